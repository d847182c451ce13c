#!/usr/bin/env bash
# ConnectX (mlx5) with the upstream driver, no MLNX_OFED: the knobs of host_ecn are
# debugfs cc_params (cong.c: np_cnp_dscp, np_cnp_prio, np_cnp_prio_mode; 0600, root's),
# and the per-priority DCQCN enables are the firmware's default, on every priority,
# with nothing to read them back. The shipped roce-lossless profile (host_ecn
# "optional") commits as root through debugfs, with the note of what cannot be read
# back, and rolls back to the byte, the mode a priority write resets included; a
# policy that turns DCQCN off on a priority is refused before anything changes; and as
# the service user without debugfs (no CAP_DAC_OVERRIDE) the profile applies everything
# else and names the one knob it cannot reach.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/tests/lib/nicmodel.sh"
require_root
require_cmd python3 setpriv

ns=$(netns_add nmi)
NM_DEBUGFS=$T/debug
mkdir -p "$NM_DEBUGFS" && chmod 0700 "$NM_DEBUGFS"        # debugfs is mounted 0700, root's
nicmodel_start mlx5:ens1f0np0:4 mlx5:ens1f1np1:5:dscp
cc=$NM_DEBUGFS/mlx5/0000:12:00.0/cc_params                 # ens1f0np0's PCI function (ifindex 4)
nm_profile roce-lossless.json "$T/lossless.json" "ens*np*" keep-host-ecn
python3 - "$T/lossless.json" "$T/off.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["metadata"]["name"] = "dcqcn-off"
p["spec"]["host_ecn"]["reaction_point"] = False
# The lossless class would refuse this first (host_ecn_priority_mismatch); the policy
# means it, so the refusal left is the driver's.
p.setdefault("checks", {}).setdefault("allow", []).append("host_ecn_priority_mismatch")
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
cat >"$T/a.json" <<JSON
{ "state_dir": "$T/state", "sysfs_root": "$T/sys", "debugfs_root": "$NM_DEBUGFS" }
JSON
A() { NETTUNE_NETLINK_SOCKET=$NM_SOCK ip netns exec "$ns" "$AGENT" --config "$T/a.json" "$@"; }
check "the model has cc_params and no MLNX_OFED tree" sh -c "[ -f '$cc/np_cnp_dscp' ] && [ ! -e '$T/sys/class/net/ens1f0np0/ecn' ]"
# Someone set other CNP marking by hand, and then the other CNP priority mode (after the
# priority: writing np_cnp_prio sets the mode to 0). The model takes each write at its next tick.
echo 26 > "$cc/np_cnp_dscp"; echo 5 > "$cc/np_cnp_prio"; nm_ctl stats >/dev/null
echo 1 > "$cc/np_cnp_prio_mode"; nm_ctl stats >/dev/null
nm_wait_settled
nm_state >"$T/start"
check "the hand-set values are the firmware's now" grep -q "np_cnp_dscp=26 np_cnp_prio=5 np_cnp_prio_mode=1" "$T/start"

back_at_start() {
        nm_wait_settled
        nm_state >"$T/now"
        if ! cmp -s "$T/start" "$T/now"; then
                diff -u "$T/start" "$T/now" | head -40
                fail "$1: the model did not end where it began"
        fi
        echo "ok: $1: the model is byte-for-byte where it began"
}

step "as root with debugfs: the profile plans host_ecn through cc_params"
A --output json plan "$T/lossless.json" >"$T/plan.json"
jq_py "$T/plan.json" 'd["notes"]' | tee "$T/notes"
check "the CNP knobs are planned" grep -q '"key": "host_ecn.cnp_dscp"' "$T/plan.json"
check "the enables are the firmware's default, planned as nothing to change" \
        sh -c "! grep -q 'host_ecn.priority3' '$T/plan.json'"
check "a note says they cannot be read back" grep -q "cannot read the per-priority DCQCN enables: taken as the firmware's default, on for every priority (NV ROCE_CC_PRIO_MASK), and not verified" "$T/notes"

step "apply, then rollback: the mode the priority write reset comes back"
A apply "$T/lossless.json" >"$T/out"
cat "$T/out"
check "committed" grep -q "^transaction [0-9]*: committed" "$T/out"
check "the apply names what it cannot verify" grep -q "^note: .*not verified" "$T/out"
nm_state >"$T/now"
check "np_cnp_dscp 48, np_cnp_prio 6 in the firmware" grep -q "np_cnp_dscp=48 np_cnp_prio=6 np_cnp_prio_mode=0" "$T/now"
check "and PFC 3 with it" grep -q "pfc en 0x08" "$T/now"
expect_rc 0 "no drift" A drift
expect_rc 0 "rollback" A rollback
back_at_start "rollback"

step "the policy's CNP priority already there, in CNP priority mode 1: np_cnp_prio written again, mode 0"
# The firmware's priority 6 and DSCP 48, but with np_cnp_prio_mode 1 CNPs do not carry that fixed
# priority; only a write of np_cnp_prio sets the mode to 0 (cong.c mlx5_ib_set_cc_param_mask_val()).
echo 48 > "$cc/np_cnp_dscp"; echo 6 > "$cc/np_cnp_prio"; nm_ctl stats >/dev/null
echo 1 > "$cc/np_cnp_prio_mode"; nm_ctl stats >/dev/null
nm_wait_settled
nm_state >"$T/mode1"
check "priority 6 with mode 1 by hand" grep -q "np_cnp_dscp=48 np_cnp_prio=6 np_cnp_prio_mode=1" "$T/mode1"
A --output json plan "$T/lossless.json" >"$T/plan.json"
check "the plan lists the mode's change" grep -q '"key": "host_ecn.cnp_priority_mode"' "$T/plan.json"
expect_rc 0 "apply" A apply "$T/lossless.json"
nm_state >"$T/now"
check "mode 0 and the declared priority" grep -q "np_cnp_dscp=48 np_cnp_prio=6 np_cnp_prio_mode=0" "$T/now"
expect_rc 0 "no drift" A drift
expect_rc 0 "rollback" A rollback
nm_wait_settled
nm_state >"$T/now"
cmp -s "$T/mode1" "$T/now" || { diff -u "$T/mode1" "$T/now" | head -40; fail "rollback: not back to mode 1"; }
echo "ok: rollback: priority 6 with mode 1, byte-for-byte as before"
echo 26 > "$cc/np_cnp_dscp"; echo 5 > "$cc/np_cnp_prio"; nm_ctl stats >/dev/null
echo 1 > "$cc/np_cnp_prio_mode"; nm_ctl stats >/dev/null
back_at_start "the hand-set values again"

step "DCQCN off on a priority cannot be done upstream: refused, nothing changed"
sets() { nm_ctl stats | awk '/ sets /{s += $3} END {print s}'; }
before=$(sets)
rc=0; A plan "$T/off.json" >"$T/off.out" 2>&1 || rc=$?
cat "$T/off.out"
check "plan exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "the refusal names the priority and the ways that can" \
        grep -q "host_ecn turns DCQCN off on priority 3.*use MLNX_OFED.*ROCE_CC_PRIO_MASK_P1 with mlxconfig" "$T/off.out"
rc=0; A apply "$T/off.json" >"$T/off.out" 2>&1 || rc=$?
check "apply exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "no SET reached the model ($before -> $(sets))" [ "$(sets)" = "$before" ]
back_at_start "refused"

step "as the service user without debugfs: everything else applies, host_ecn is named"
chmod 0755 "$T"; chmod 0666 "$NM_SOCK"
mkdir -p "$T/svc" && chown nobody: "$T/svc"
cat >"$T/svc.json" <<JSON
{ "state_dir": "$T/svc", "sysfs_root": "$T/sys", "debugfs_root": "$NM_DEBUGFS" }
JSON
S() { NETTUNE_NETLINK_SOCKET=$NM_SOCK ip netns exec "$ns" setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$AGENT" --config "$T/svc.json" "$@"; }
S apply "$T/lossless.json" >"$T/svc.out"
cat "$T/svc.out"
check "committed" grep -q "^transaction [0-9]*: committed" "$T/svc.out"
check "host_ecn is left out, by name" \
        grep -q "^note: interface 'ens1f0np0' (driver mlx5_core): host_ecn is optional and left out here" "$T/svc.out"
check "and why" grep -q "^note: interface 'ens1f0np0' (driver mlx5_core): no MLNX_OFED tree (class/net/ens1f0np0/ecn), and debugfs mlx5/0000:12:00.0/cc_params cannot be read by this user: debugfs is root's; the service needs CAP_DAC_OVERRIDE" "$T/svc.out"
check "no host_ecn change was listed" sh -c "! grep -v '^note' '$T/svc.out' | grep -q host_ecn"
nm_state >"$T/now"
check "PFC 3 applied" grep -q "pfc en 0x08" "$T/now"
check "the CNP knobs untouched" grep -q "np_cnp_dscp=26 np_cnp_prio=5 np_cnp_prio_mode=1" "$T/now"
expect_rc 0 "no drift for the service user" S drift
expect_rc 0 "rollback as the service user" S rollback
back_at_start "the service user's rollback"
