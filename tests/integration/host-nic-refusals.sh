#!/usr/bin/env bash
# What ice and bnxt_en refuse in the middle of a DCB change, said at plan time with the
# reason and the fix, nothing changed (no SET reaches the model, the model byte-for-byte
# as it was): an ice port of a bond (6.6+), an ice port in DSCP mode whose DCBX must
# switch (v5.16+), ice under the custom Tx scheduler (devlink-rate, 6.2+), bnxt_en at
# DCBX 0x08 (a VF, or the firmware's LLDP agent without its DCBX agent). Each model
# refuses the same change by hand, as its driver does. And what a change does that the
# reader is told: ice drops its exported devlink-rate tree; bnxt_en's queue remap on a
# PFC change closes and reopens the NIC, and the link wait rides it out.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/tests/lib/nicmodel.sh"
require_root
require_cmd python3

ns=$(netns_add nm)
nicmodel_start ice:ens1f0np0:4 bond:bond0:9 ice:ens2f0np0:5:cee-dscp ice:ens3f0np0:6:custom-tx \
        ice:ens4f0np0:7:switchdev bnxt:ens5f0np0:8:vf bnxt:ens6f0np0:10:lldp-only bnxt:ens7f0np0:11
cat >"$T/a.json" <<JSON
{ "state_dir": "$T/state", "sysfs_root": "$T/sys" }
JSON
A() { NETTUNE_NETLINK_SOCKET=$NM_SOCK ip netns exec "$ns" "$AGENT" --config "$T/a.json" "$@"; }
sets() { nm_ctl stats | awk '/ sets /{s += $3} END {print s}'; }
flaps() { nm_ctl stats | awk -v d="$1" '$1 == d {print $5}'; }
dev_dump() { nm_ctl dump | awk -v d="$1" '/^device /{on = $2 == d} on'; }
for i in ens1f0np0 ens2f0np0 ens3f0np0 ens4f0np0 ens5f0np0 ens6f0np0 ens7f0np0; do
        nm_profile roce-lossless.json "$T/$i.json" "$i"
done
nm_ctl master ens1f0np0 bond0 >/dev/null

# refused IFACE WHAT PATTERN...: plan and apply exit 2, each pattern in the refusal, no SET, no change
refused() {
        local ifc=$1 what=$2 rc before pat
        shift 2
        step "$what: refused at plan time, nothing changed"
        nm_wait_settled
        nm_state >"$T/before"
        before=$(sets)
        rc=0; A plan "$T/$ifc.json" >"$T/out" 2>&1 || rc=$?
        cat "$T/out"
        check "plan exits 2 (got $rc)" [ "$rc" -eq 2 ]
        for pat in "$@"; do
                check "the refusal says: $pat" grep -q -- "$pat" "$T/out"
        done
        check "and that nothing was changed" grep -q "nothing was changed" "$T/out"
        rc=0; A apply "$T/$ifc.json" >"$T/out" 2>&1 || rc=$?
        check "apply exits 2 too (got $rc)" [ "$rc" -eq 2 ]
        check "no SET reached the model ($before -> $(sets))" [ "$(sets)" = "$before" ]
        nm_state >"$T/after"
        check "the model is byte-for-byte as it was" cmp -s "$T/before" "$T/after"
}

# hand_refused IFACE COMMAND...: the model's driver refuses the change itself
hand_refused() {
        local ifc=$1
        shift
        check "the driver model refuses it by hand too ($*)" sh -c "! '$NICMODEL' ctl '$NM_CTL' $* >/dev/null 2>&1"
        nm_state >"$T/after"
        check "and changes nothing" cmp -s "$T/before" "$T/after"
}

refused ens1f0np0 "ice: a port of a bond" \
        "interface 'ens1f0np0' (driver ice) is a port of bond 'bond0'" \
        "DCB changes not allowed when in a bond" "ip link set ens1f0np0 nomaster"
hand_refused ens1f0np0 pfc ens1f0np0 8
check "the model logged the driver's message" grep -q "ens1f0np0: DCB changes not allowed when in a bond" "$T/model.log"
step "ice: out of the bond, the same policy applies and rolls back"
nm_ctl master ens1f0np0 none >/dev/null
nm_state >"$T/start"
expect_rc 0 "apply" A apply "$T/ens1f0np0.json"
expect_rc 0 "rollback" A rollback
nm_wait_settled
nm_state >"$T/now"
check "the model is where it began" cmp -s "$T/start" "$T/now"

refused ens2f0np0 "ice: DCBX to switch in DSCP mode" \
        "DCBX is 0x05 and must become host + IEEE (0x09) first" \
        "DSCP configuration is not DCBx negotiated" "dcb app del dev ens2f0np0 dscp-prio 26:3"
nm_state >"$T/before"
dev_dump ens2f0np0 >"$T/now"
check "the driver model is at DCBX 0x05 in DSCP mode" grep -q "dcbx cap 0x05 lldp software mode dscp" "$T/now"
step "ice: with its DSCP entry deleted the port is in VLAN mode and the policy applies"
nm_ctl app-del ens2f0np0 26 3 >/dev/null
nm_wait_settled
expect_rc 0 "apply" A apply "$T/ens2f0np0.json"
dev_dump ens2f0np0 >"$T/now"
check "DCBX is host + IEEE now" grep -q "dcbx cap 0x09" "$T/now"
expect_rc 0 "rollback" A rollback

refused ens3f0np0 "ice: the custom Tx scheduler" \
        "the custom Tx scheduler is on (devlink-rate pci/" "leaf pci/" "tx_max 125000000" \
        "Custom Tx scheduler feature enabled, can't configure DCB" "devlink dev reload pci/"
# A policy of one traffic class is no DCB tagging: ice lets it through (PFC on TC 0).
python3 - "$T/ens3f0np0.json" "$T/one-tc.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
for k in ("ets", "trust", "dscp_to_priority", "host_ecn", "ecn"):
    p["spec"].pop(k, None)
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
step "ice: a policy of one traffic class is not refused under the custom Tx scheduler"
A plan "$T/one-tc.json" >"$T/out" 2>&1; cat "$T/out"
check "it plans PFC" grep -q "pfc.priorities: \\[\\] -> \\[3\\]" "$T/out"

step "ice: the devlink-rate tree it exports goes with the first DCB of several TCs (a note)"
A --output json plan "$T/ens4f0np0.json" >"$T/plan.json"
check "the model exports it" sh -c "'$NICMODEL' ctl '$NM_CTL' dump | grep -q 'devlink-rate objects 2 custom_tx off'"
check "the plan notes it" grep -q "removes the port's devlink-rate tree (2 objects of pci/" "$T/plan.json"
expect_rc 0 "apply" A apply "$T/ens4f0np0.json"
dev_dump ens4f0np0 >"$T/now"
check "and the model tore it down" sh -c "! grep -q devlink-rate '$T/now'"
expect_rc 0 "rollback" A rollback

refused ens5f0np0 "bnxt_en: a VF (DCBX 0x08)" \
        "DCBX is 0x08, IEEE without host mode: the port is a VF" "bnxt_dcb_init()" "configure DCB on the PF"
hand_refused ens5f0np0 pfc ens5f0np0 8
refused ens6f0np0 "bnxt_en: the firmware's LLDP agent without DCBX agent (DCBX 0x08)" \
        "DCBX is 0x08" "the NIC firmware runs its LLDP agent without the DCBX agent"
hand_refused ens6f0np0 pfc ens6f0np0 8

step "bnxt_en: PFC on a lossy queue remaps the queues and bounces the link; the wait rides it out"
nm_wait_settled
nm_state >"$T/start"
A --output json plan "$T/ens7f0np0.json" >"$T/plan.json"
check "the plan notes the bounce" grep -q "PFC on priority 3 may close and reopen the NIC (bnxt_queue_remap()" "$T/plan.json"
f0=$(flaps ens7f0np0)
expect_rc 0 "apply" A apply "$T/ens7f0np0.json"
check "the model remapped and bounced the link" grep -q "ens7f0np0: bnxt_queue_remap: lossless TCs 0x08" "$T/model.log"
check "carrier changed ($f0 -> $(flaps ens7f0np0))" [ "$(flaps ens7f0np0)" -gt "$f0" ]
expect_rc 0 "no drift after the bounce" A drift
expect_rc 0 "rollback" A rollback
nm_wait_settled
nm_state >"$T/now"
check "the model is where it began" cmp -s "$T/start" "$T/now"

step "ice under the custom Tx scheduler refuses DCB of several TCs by hand (the -EBUSY a plan now foresees)"
nm_ctl app-add ens3f0np0 26 3 >/dev/null 2>&1 || true
check "the model logged the driver's refusal" \
        grep -q "ens3f0np0: Custom Tx scheduler feature enabled, can't configure DCB" "$T/model.log"
