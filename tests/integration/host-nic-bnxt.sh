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
NM_COUNTER="rx_ecn_marked_pkts"
. "$NETTUNE_TOP/tests/integration/host-nic.inc"
