#!/usr/bin/env bash
# Broadcom NetXtreme (bnxt_en) behind the netlink seam: host DCBX, nothing read back
# from the firmware until the host set it, PFC only after ETS, a delete that clears
# the firmware's DSCP entry. The shipped profiles apply, drift, revert and roll back
# with the model ending where it began.
NM_DEVICES="bnxt:ens3f0np0:7"
NM_GLOB="ens*np*"
NM_OFED_ECN=""
NM_APPLIED="ets prio_tc 0,1,2,3,4,5,6,7 tc_tsa 2,0,0,2,0,0,0,0 tc_tx_bw 50,0,0,50,0,0,0,0
pfc en 0x08
firmware dscp2pri 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,0,"
NM_HAND="pfc ens3f0np0 0x0c"
NM_HAND_KEY="ens3f0np0 pfc.priorities"
NM_COUNTER="tx_cnp_pkts"       # upstream bnxt_re's name since ~6.6 (Broadcom's own driver: cnp_tx_pkts)
. "$NETTUNE_TOP/tests/integration/host-nic.inc"

step "doctor classifies CNPs by upstream bnxt_re's names"
hw=$T/sys/class/infiniband/bnxt_re0/ports/1/hw_counters
( for v in $(seq 100 100 3000); do echo "$v" >"$hw/tx_cnp_pkts.new" && mv "$hw/tx_cnp_pkts.new" "$hw/tx_cnp_pkts";
  sleep 0.1; done ) &
climb=$!
rc=0; A --output json doctor --window 1 --save-facts "$T/doctor.json" >/dev/null || rc=$?
check "doctor collected (exit $rc)" [ "$rc" -le 1 ]
kill "$climb" 2>/dev/null || true; wait "$climb" 2>/dev/null || true
python3 - "$T/doctor.json" <<'PY' || { head -c 3000 "$T/doctor.json"; fail "no climbing cnp_sent rate named tx_cnp_pkts in doctor's facts"; }
import json, sys
d = json.load(open(sys.argv[1]))
def walk(o):
    if isinstance(o, dict):
        if o.get("kind") == "cnp_sent" and o.get("name", "").startswith("tx_cnp_pkts") and o.get("delta", 0) > 0:
            return True
        return any(walk(v) for v in o.values())
    if isinstance(o, list):
        return any(walk(v) for v in o)
    return False
sys.exit(0 if walk(d) else 1)
PY
echo "ok: doctor counts tx_cnp_pkts as CNPs sent"
