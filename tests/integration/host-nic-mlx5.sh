#!/usr/bin/env bash
# ConnectX (mlx5) behind the netlink seam: a fresh port (firmware DCBX, PCP trust,
# vendor TSA, firmware DSCP table dscp >> 3) and a port that trusted DSCP at driver
# load (64 firmware APP entries), with MLNX_OFED ecn knobs. The shipped profiles
# apply, drift, revert and roll back with the model ending where it began; a
# restore that fails on one field restores every other one and names what is left.
NM_DEVICES="mlx5:ens1f0np0:4 mlx5:ens1f1np1:5:dscp"
NM_GLOB="ens*np*"
NM_OFED_ECN="ens1f0np0 ens1f1np1"
NM_APPLIED="trust dscp dscp_app_cnt 64 dscp2prio 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,0
pfc en 0x08
tc_tsa 2,0,0,2,0,0,0,0
dcbx cap 0x09 firmware host
ens1f0np0/ecn/roce_np/cnp_dscp 48"
NM_HAND="pfc ens1f0np0 0x18"
NM_HAND_KEY="ens1f0np0 pfc.priorities"
NM_COUNTER="np_cnp_sent"
. "$NETTUNE_TOP/tests/integration/host-nic.inc"

step "a restore that fails on one field restores the others and names it"
nm_ctl fail ens1f1np1 setets 5 >/dev/null               # the apply fails on the second port ...
nm_ctl fail ens1f0np0 setpfc 5 1 >/dev/null             # ... and the first port's PFC restore fails
rc=0; A apply "$T/lossless.json" 2>"$T/err" || rc=$?
cat "$T/err"
check "apply exits 3 (got $rc)" [ "$rc" -eq 3 ]
check "the restore failure is named" grep -q "ens1f0np0.*pfc: set pfc: the device driver refused it" "$T/err"
check "what is left is named" grep -q "interface 'ens1f0np0' still differs: pfc.priorities is \[3\], snapshot has \[\]" "$T/err"
nm_state >"$T/now"
check "the first port's APP table was restored" grep -q "trust pcp dscp_app_cnt 0" "$T/now"
check "its DCBX mode too" grep -q "dcbx cap 0x0c firmware auto" "$T/now"
nm_ctl pfc ens1f0np0 0 >/dev/null                       # what the operator does by hand
back_at_start "best-effort restore and the hand fix"

step "PFC stall prevention: spec.pfc.nic_stall_timeout_ms through the ethtool tunable"
python3 - "$T/lossless.json" "$T/stall.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["metadata"]["name"] = "stall"
p["spec"] = {"pfc": {"priorities": [3], "nic_stall_timeout_ms": "auto"}}
json.dump(p, open(sys.argv[2], "w"))
PY
nm_state >"$T/before-stall"
check "the factory watermark: 8000 ms" grep -q "pfcc stall critical 8000 minor 6800" "$T/before-stall"
A plan "$T/stall.json" >"$T/out"
cat "$T/out"
check "plan: 8000 -> auto on both ports" test "$(grep -c 'pfc.nic_stall_timeout_ms: 8000 -> auto' "$T/out")" = 2
expect_rc 0 "apply auto" A apply "$T/stall.json"
nm_state >"$T/now"
check "auto is 100 ms, minor 85 (mlx5e_set_pfc_prevention_tout)" test "$(grep -c 'pfcc stall critical 100 minor 85' "$T/now")" = 2
expect_rc 0 "read back as auto: no drift" A drift
nm_ctl tunable ens1f0np0 8000 >/dev/null
rc=0; A drift >"$T/out" || rc=$?
check "a hand change to 8000 is drift (exit $rc)" [ "$rc" -eq 1 ]
cat "$T/out"
check "drift names it" grep -q "ens1f0np0.*pfc.nic_stall_timeout_ms.*8000.*auto" "$T/out"
expect_rc 0 "rollback" A rollback
nm_state >"$T/now"
check "rolled back: the factory watermark, byte for byte" cmp -s "$T/before-stall" "$T/now"
python3 - "$T/stall.json" "$T/stall-bad.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["spec"]["pfc"]["nic_stall_timeout_ms"] = 50
json.dump(p, open(sys.argv[2], "w"))
PY
rc=0; A plan "$T/stall-bad.json" 2>"$T/err" || rc=$?
check "50 ms refused (exit $rc)" [ "$rc" -eq 2 ]
check "naming path and range" grep -q '\$.spec.pfc.nic_stall_timeout_ms: nic_stall_timeout_ms 50 out of range 80-8000' "$T/err"

step "a stalled receive path: the NIC stops its pause after the timeout, and counts it"
expect_rc 0 "apply auto" A apply "$T/stall.json"
A --output json state >"$T/s0.json"
storms() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(c['value'] for i in d['interfaces'] \
if i['name'] == 'ens1f0np0' for c in i['counters'] if c['name'] == 'tx_pause_storm_error_events'))" "$1"; }
check "tx_pause_storm_error_events is read (0)" test "$(storms "$T/s0.json")" = 0
nm_ctl stall ens1f0np0 on >/dev/null
stormed() { A --output json state >"$T/s1.json" && [ "$(storms "$T/s1.json")" = 1 ]; }
wait_for 30 stormed || fail "no pause storm error event after the 100 ms timeout"
echo "ok: the stall was stopped and counted (tx_pause_storm_error_events 1)"
nm_ctl stall ens1f0np0 off >/dev/null
expect_rc 0 "rollback" A rollback
