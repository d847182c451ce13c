#!/usr/bin/env bash
# The switch role against a Spectrum port model (tests/nicmodel/nm_mlxsw.c behind the
# netlink seam): the kernel's tc core with ets and red, and the qdisc offload as mlxsw
# does it - a RED that mlxsw_sp_qdisc_red_check_params() refuses stays in software,
# the request succeeding, and only TCA_HW_OFFLOAD 0 tells. nettune reads every change
# back with its offload flag: a tree that did not offload fails the change naming the
# port and the class, and the transaction restores the port. RED on a class of a PFC
# priority carries nodrop. A policy without ets leaves the port's scheduling as it was:
# nettune's ets qdisc takes the port's DCB ETS over as it is (a DCB ETS a tc ets qdisc
# cannot express is refused before anything changes), and a port without one keeps every
# priority in traffic class 0.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/tests/lib/nicmodel.sh"
require_root
require_cmd python3

ns=$(netns_add mlxsw)
nicmodel_start mlxsw:swp1:4 mlxsw:swp2:5:no-hw-tc mlxsw:swp3:6
cat >"$T/a.json" <<JSON
{ "role": "switch", "state_dir": "$T/state", "sysfs_root": "$T/sys" }
JSON
A() { NETTUNE_NETLINK_SOCKET=$NM_SOCK ip netns exec "$ns" "$AGENT" --config "$T/a.json" "$@"; }
dev_dump() { nm_ctl dump | awk -v d="$1" '/^device /{on = $2 == d} on'; }
sets() { nm_ctl stats | awk '/ sets /{s += $3} END {print s}'; }
policy() {      # policy FILE IFACE SPEC-JSON [MORE-JSON]
        cat >"$1" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "$(basename "$1" .json)" },
  "targets": { "interfaces": ["$2"] }, "spec": $3, "verify": { "probe": "none" }${4:+, $4} }
JSON
}
# PFC before its ECN: the lossless class would refuse the first step alone (the second gives it ECN)
ALLOW='"checks": { "allow": ["ecn_queue_not_lossless"] }'
ECN='"ecn": { "queues": [3], "min_threshold_bytes": 150000, "max_threshold_bytes": 1500000, "mark_probability_pct": 100 }'
policy "$T/dcb.json" swp1 '{ "pfc": { "priorities": [3] },
  "ets": { "priority_to_tc": [0,1,2,3,4,5,6,7], "tc_bandwidth_pct": [40,10,10,40,0,0,0,0],
           "tc_tsa": ["ets","ets","ets","ets","strict","strict","strict","strict"] } }' "$ALLOW"
policy "$T/ecn.json" swp1 "{ $ECN }"
policy "$T/big.json" swp1 '{ "ecn": { "queues": [3], "min_threshold_bytes": 150000, "max_threshold_bytes": 20000000,
  "mark_probability_pct": 100 } }'
policy "$T/sw.json" swp2 "{ $ECN }"
policy "$T/bad-dcb.json" swp3 '{ "ets": { "priority_to_tc": [0,1,2,3,4,5,6,7], "tc_bandwidth_pct": [50,0,0,50,0,0,0,0],
  "tc_tsa": ["ets","strict","strict","ets","strict","strict","strict","strict"] } }'
policy "$T/ecn3.json" swp3 "{ $ECN }"

step "the port's DCB: ETS and PFC on priority 3 (the dcb driver, as on any port)"
expect_rc 0 "apply" A apply "$T/dcb.json"
dev_dump swp1 >"$T/dcb-state"
cat "$T/dcb-state"
check "DCB ETS and PFC on the model" grep -q "pfc en 0x08" "$T/dcb-state"
check "no qdisc yet" sh -c "! grep -q qdisc '$T/dcb-state'"

step "ecn without ets: the tree takes the DCB ETS over as it is, RED on the lossless class with nodrop, offloaded"
A plan "$T/ecn.json" >"$T/out" 2>&1; cat "$T/out"
check "the plan says the root qdisc moves the headroom to TC mode, and what PFC priority 3 needs" \
        grep -q "interface 'swp1': nettune's root ets qdisc puts this Spectrum port's headroom in TC mode .*PFC priorities 3 need spec.buffers" "$T/out"
expect_rc 0 "apply" A apply "$T/ecn.json"
dev_dump swp1 >"$T/now"
cat "$T/now"
check "ets at the root: 4 strict bands (classes 7-4), the DCB's priority map, offloaded" \
        grep -q "qdisc ets 4e54: parent ffff:ffff bands 8 strict 4 priomap 7,6,5,4,3,2,1,0 quanta 40000,10000,10000,40000 offloaded 1" "$T/now"
check "red under band 4 (class 3) with ecn and nodrop (flags 0x9), offloaded" \
        grep -q "qdisc red 4e63: parent 4e54:5 min 150000 max 1500000 limit 6000000 flags 0x9 offloaded 1" "$T/now"
check "DCB ETS and PFC untouched" cmp -s <(grep -v -e qdisc -e headroom "$T/now") <(grep -v headroom "$T/dcb-state")
check "the offloaded root put the port's headroom in TC mode (mlxsw_sp_qdisc_create)" grep -q "headroom tc " "$T/now"
expect_rc 0 "no drift" A drift
# dcb and ecn are two layers (policies) on swp1: roll back the ecn one, dcb stays
expect_rc 0 "rollback" A rollback --policy ecn
dev_dump swp1 >"$T/now"
check "the tree is gone, the port as it was" cmp -s "$T/now" "$T/dcb-state"

step "a RED mlxsw does not offload (max above the shared buffer): the change fails, naming port and class, and is restored"
before=$(dev_dump swp1)
rc=0; A apply "$T/big.json" >"$T/out" 2>&1 || rc=$?
cat "$T/out"
check "apply fails (exit $rc)" [ "$rc" -ne 0 ]
check "naming the port, the class and why" \
        grep -q "interface 'swp1' (driver mlxsw_spectrum2): the red qdisc of traffic class 3 (4e63:, min 150000, max 20000000 bytes) is not offloaded" "$T/out"
check "and that it was restored" grep -Eq "rolled back|restored" "$T/out"
check "the driver said why, in its log only" grep -q "swp1: spectrum: RED: max value 20000000 is too big" "$T/model.log"
check "the port is as it was" test "$(dev_dump swp1)" = "$before"

step "hw-tc-offload off: nothing offloads, the ets qdisc is named, the port restored"
before=$(dev_dump swp2)
rc=0; A apply "$T/sw.json" >"$T/out" 2>&1 || rc=$?
cat "$T/out"
check "apply fails (exit $rc)" [ "$rc" -ne 0 ]
check "naming the ets qdisc and hw-tc-offload" \
        grep -q "interface 'swp2' (driver mlxsw_spectrum2): nettune's ets qdisc 4e54: is not offloaded.*hw-tc-offload" "$T/out"
check "the port is as it was" test "$(dev_dump swp2)" = "$before"

step "a DCB ETS a tc ets qdisc cannot express: ecn is refused before anything changes"
expect_rc 0 "the DCB ETS (strict classes 1, 2 below the ETS class 3)" A apply "$T/bad-dcb.json"
before=$(dev_dump swp3); s0=$(sets)
rc=0; A plan "$T/ecn3.json" >"$T/out" 2>&1 || rc=$?
cat "$T/out"
check "plan exits 2 ($rc)" [ "$rc" -eq 2 ]
check "saying why" grep -q "ecn needs nettune's ets qdisc at the root, which takes the port's scheduling over from its DCB ETS" "$T/out"
rc=0; A apply "$T/ecn3.json" >"$T/out" 2>&1 || rc=$?
check "apply exits 2 ($rc)" [ "$rc" -eq 2 ]
check "nothing changed (sets $s0 -> $(sets))" [ "$(sets)" = "$s0" ]
check "the port is as it was" test "$(dev_dump swp3)" = "$before"

step "a port without DCB ETS: every priority stays in traffic class 0, and an ECN queue nobody uses is named"
A rollback --policy bad-dcb >/dev/null      # swp3 back to its power-on DCB
A plan "$T/ecn3.json" >"$T/out" 2>&1; cat "$T/out"
check "no PFC, no headroom note" sh -c "! grep -q 'headroom in TC mode' '$T/out'"
check "the plan says queue 3 carries no traffic" grep -q "ecn queue 3 carries no traffic: no priority maps to traffic class 3" "$T/out"
expect_rc 0 "apply" A apply "$T/ecn3.json"
dev_dump swp3 >"$T/now"
check "ets: every priority in band 7 (class 0), all strict" \
        grep -q "qdisc ets 4e54: parent ffff:ffff bands 8 strict 8 priomap 7,7,7,7,7,7,7,7 quanta offloaded 1" "$T/now"
check "red without nodrop (no PFC)" grep -q "qdisc red 4e63: .* flags 0x1 offloaded 1" "$T/now"
expect_rc 0 "rollback" A rollback --policy ecn3
