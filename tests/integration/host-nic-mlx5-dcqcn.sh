#!/usr/bin/env bash
# DCQCN parameters (spec.host_ecn.dcqcn) on the ConnectX (mlx5) model in both layouts
# at once: ens1f0np0 with MLNX_OFED's ecn tree (roce_rp/rpg_*, roce_np/min_time_between_cnps),
# ens2f0np0 with upstream mlx5_ib's debugfs cc_params only (the model's own files: it
# takes each write at its next tick, masked to the firmware field), each at the
# firmware's defaults. One policy applies to both, reads back, drifts on a hand edit, rolls
# back and is reverted by the confirm timer with every file byte-for-byte where it
# began; a value out of range and a parameter the kernel lacks are refused with
# nothing written.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/tests/lib/nicmodel.sh"
require_root
require_cmd python3

ns=$(netns_add nm)
NM_DEBUGFS=$T/debug
mkdir -p "$NM_DEBUGFS" && chmod 0700 "$NM_DEBUGFS"        # debugfs is mounted 0700, root's
nicmodel_start mlx5:ens1f0np0:4 mlx5:ens2f0np0:6
ofed_ecn_tree ens1f0np0
ofed_dcqcn_tree ens1f0np0
debug_dir=$NM_DEBUGFS/mlx5/$(basename "$(readlink "$T/sys/class/net/ens2f0np0/device")")/cc_params
ofed_cc=$NM_DEBUGFS/mlx5/$(basename "$(readlink "$T/sys/class/net/ens1f0np0/device")")/cc_params
check "the model has both ports' cc_params" test -f "$debug_dir/rp_time_reset" -a -f "$ofed_cc/rp_time_reset"
cat >"$T/a.json" <<JSON
{ "state_dir": "$T/state", "sysfs_root": "$T/sys", "debugfs_root": "$T/debug", "settle_ms": 10000,
  "flap_wait_ms": 1000, "rdma_wait_ms": 10000 }
JSON
A() { NETTUNE_NETLINK_SOCKET=$NM_SOCK ip netns exec "$ns" "$AGENT" --config "$T/a.json" "$@"; }
policy() {      # policy FILE DCQCN-JSON
        cat >"$1" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "dcqcn" },
  "targets": { "interfaces": ["ens*np*"] },
  "spec": { "host_ecn": { "dcqcn": $2 } },
  "verify": { "probe": "none" } }
JSON
}
policy "$T/dcqcn.json" '{ "rp_time_reset": 600, "rp_ai_rate": 10, "rp_hai_rate": 100, "rp_min_dec_fac": 25,
                          "rp_gd": 9, "np_min_time_between_cnps": 0 }'
nm_state >"$T/start"

back_at_start() {
        nm_state >"$T/now"
        if ! cmp -s "$T/start" "$T/now"; then
                diff -u "$T/start" "$T/now" | head -40
                fail "$1: the model did not end where it began"
        fi
        echo "ok: $1: every file is byte-for-byte where it began"
}

step "state: the DCQCN parameters of both layouts"
A --output json state --interfaces 'ens*np*' >"$T/state.json"
check "both interfaces show rp_time_reset 300 and rp_gd 11" python3 -c "import json,sys
d = json.load(open(sys.argv[1]))
v = [i['state']['host_ecn']['dcqcn'] for i in d['interfaces']]
sys.exit(0 if len(v) == 2 and all(x['rp_time_reset'] == 300 and x['rp_gd'] == 11 for x in v) else 1)" "$T/state.json"

step "apply: written through roce_rp/rpg_* and cc_params/rp_*"
expect_rc 0 "apply" A apply "$T/dcqcn.json"
check "OFED: rpg_ai_rate 10" [ "$(cat "$T/sys/class/net/ens1f0np0/ecn/roce_rp/rpg_ai_rate")" = 10 ]
check "OFED: min_time_between_cnps 0" [ "$(cat "$T/sys/class/net/ens1f0np0/ecn/roce_np/min_time_between_cnps")" = 0 ]
check "debugfs: rp_ai_rate 10" [ "$(cat "$debug_dir/rp_ai_rate")" = 10 ]
check "debugfs: rp_gd 9" [ "$(cat "$debug_dir/rp_gd")" = 9 ]
check "a parameter the policy does not name is untouched" [ "$(cat "$debug_dir/rp_byte_reset")" = 32767 ]
nm_ctl dump >"$T/dump"
check "the model's firmware took the debugfs writes" grep -q "cc_params.* rp_ai_rate=10 .* rp_gd=9 " "$T/dump"
check "the OFED port's debugfs cc_params are untouched" [ "$(cat "$ofed_cc/rp_ai_rate")" = 5 ]
expect_rc 0 "no drift right after the apply" A drift

step "a hand edit is drift, named by parameter"
echo 20 >"$debug_dir/rp_ai_rate"
check "the model takes the hand edit" sh -c "'$NICMODEL' ctl '$NM_CTL' dump | grep -q ' rp_ai_rate=20 '"
rc=0; A drift >"$T/out" || rc=$?
cat "$T/out"
check "drift exits 1 (got $rc)" [ "$rc" -eq 1 ]
check "drift names host_ecn.dcqcn.rp_ai_rate" grep -q "ens2f0np0.*host_ecn.dcqcn.rp_ai_rate" "$T/out"

step "rollback"
expect_rc 0 "rollback" A rollback
back_at_start "rollback"

step "confirm timeout: reverted by the watchdog"
rc=0; A apply --confirm-timeout 2 "$T/dcqcn.json" >/dev/null || rc=$?
check "apply --confirm-timeout exits 4 (got $rc)" [ "$rc" -eq 4 ]
check "pending: OFED rpg_time_reset 600" [ "$(cat "$T/sys/class/net/ens1f0np0/ecn/roce_rp/rpg_time_reset")" = 600 ]
timed_out() { A --output json history | grep -q '"confirm-timeout"'; }
wait_for 60 timed_out || fail "the confirm timeout did not restore"
back_at_start "confirm timeout"

step "out of range: refused before anything is written"
policy "$T/bad.json" '{ "rp_time_reset": 600, "rp_dce_tcp_g": 1024 }'
rc=0; A apply "$T/bad.json" 2>"$T/err" || rc=$?
cat "$T/err"
check "exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "the range is named" grep -q 'host_ecn.dcqcn.rp_dce_tcp_g: rp_dce_tcp_g 1024 out of range 0-1023' "$T/err"
back_at_start "range refused"

step "a kernel without np_min_time_between_cnps (4.x debugfs): refused, nothing written"
rm "$debug_dir/np_min_time_between_cnps"
nm_state >"$T/start"
rc=0; A apply "$T/dcqcn.json" 2>"$T/err" || rc=$?
cat "$T/err"
check "exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "the missing knob is named" grep -q "ens2f0np0.*'np_min_time_between_cnps' does not exist; nothing was changed" "$T/err"
back_at_start "missing parameter refused"
