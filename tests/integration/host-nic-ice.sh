#!/usr/bin/env bash
# Intel E810 (ice) behind the netlink seam: software DCBX with willing ETS, DSCP mode
# entered and left through the APP table (ETS and PFC reset by the driver each time),
# devreset link flaps, at most 63 DSCP entries. The shipped profiles apply, drift,
# revert and roll back with the model ending where it began.
NM_DEVICES="ice:ens2f0np0:6"
NM_GLOB="ens*np*"
NM_OFED_ECN=""
NM_APPLIED="lldp software mode dscp
etscfg willing 0 cbs 0 maxtcs 8 prio 0,1,2,3,4,5,6,7 tcbw 50,0,0,50,0,0,0,0 tsa 2,0,0,2,0,0,0,0
pfc willing 0 cap 8 en 0x08
dscp_map 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,0,"
NM_HAND="app-del ens2f0np0 27 0"
NM_HAND_KEY="ens2f0np0 dscp_to_priority.others"
NM_COUNTER="RxECNMrkd"
. "$NETTUNE_TOP/tests/integration/host-nic.inc"
check "no driver memory overrun in the whole run" sh -c "! '$NICMODEL' ctl '$NM_CTL' dump | grep -q CORRUPT"

step "no PFC stall prevention tunable on ice: a policy that names one is refused, nothing changed"
python3 - "$T/lossless.json" "$T/stall.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["spec"] = {"pfc": {"priorities": [3], "nic_stall_timeout_ms": 100}}
json.dump(p, open(sys.argv[2], "w"))
PY
nm_state >"$T/s0"
rc=0; A apply "$T/stall.json" 2>"$T/err" || rc=$?
cat "$T/err"
check "refused (exit $rc)" [ "$rc" -eq 2 ]
check "naming the tunable" grep -q "does not support the PFC stall prevention tunable" "$T/err"
nm_state >"$T/s1"
check "the model is untouched" cmp -s "$T/s0" "$T/s1"
