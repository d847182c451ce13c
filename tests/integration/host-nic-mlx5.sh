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

step "a failed apply flaps no link it did not change"
f0=$(flaps ens1f0np0) f1=$(flaps ens1f1np1)
nm_ctl fail ens1f1np1 setapp 5 >/dev/null               # the second port refuses its first DCB write
rc=0; A apply "$T/lossless.json" 2>"$T/err" || rc=$?
check "apply exits 3 (got $rc)" [ "$rc" -eq 3 ]
check "the refusal is named" grep -q "ens1f1np1.*dscp_to_priority" "$T/err"
nm_wait_settled
check "the first port flapped for its PFC change and its restore ($f0 -> $(flaps ens1f0np0))" \
        [ "$(flaps ens1f0np0)" -eq $((f0 + 4)) ]
check "the second port, never changed, did not flap ($f1 -> $(flaps ens1f1np1))" [ "$(flaps ens1f1np1)" -eq "$f1" ]
back_at_start "a failed apply"

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

step "as the service user: a root-owned MLNX_OFED knob is left out by name, the rest applies"
chmod 0755 "$T"; chmod 0666 "$NM_SOCK" "$NM_ETHTOOL"
mkdir -p "$T/svc" && chown nobody: "$T/svc"
sed "s|\"$T/state\"|\"$T/svc\"|" "$T/a.json" >"$T/svc.json"
S() { NETTUNE_NETLINK_SOCKET=$NM_SOCK NETTUNE_ETHTOOL_SOCKET=$NM_ETHTOOL ip netns exec "$ns" setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$AGENT" --config "$T/svc.json" "$@"; }
# NCCL's file is root's, in a directory only root may write: the service user cannot manage it
# (a policy with nccl fails at the read, exit 3, naming the file), so its policy leaves nccl out.
rc=0; S plan "$T/lossless.json" >/dev/null 2>"$T/svc.err" || rc=$?
check "as the service user, nccl is refused naming NCCL's file (exit $rc)" \
        sh -c "[ $rc -eq 3 ] && grep -q \"NCCL configuration '$T/nccl.conf'\" '$T/svc.err'"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); p["spec"].pop("nccl"); json.dump(p, open(sys.argv[2], "w"))' \
        "$T/lossless.json" "$T/svc-lossless.json"
S apply "$T/svc-lossless.json" >"$T/svc.out"
cat "$T/svc.out"
check "committed" grep -q "^transaction [0-9]*: committed" "$T/svc.out"
check "host_ecn left out, with the knob and why" grep -q "^note: host_ecn is optional and left out here: interface 'ens1f0np0' (driver mlx5_core): NIC ECN knob 'roce_rp/enable/3' cannot be written by this user (uid 65534" "$T/svc.out"
nm_state >"$T/now"
check "PFC applied" grep -q "pfc en 0x08" "$T/now"
check "the ecn knobs untouched" grep -q "ens1f0np0/ecn/roce_np/cnp_dscp 0" "$T/now"
expect_rc 0 "rollback as the service user" S rollback
back_at_start "the service user's rollback"
step "cable length and buffers: apply, read back, drift, roll back"
# The model's DCQCN is off on priority 3: PFC there alone is a lossless-class fault this step waives.
cat >"$T/headroom.json" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "headroom" },
  "checks": { "allow": ["host_ecn_priority_mismatch"] },
  "targets": { "interfaces": ["ens1f0np0"] },
  "spec": { "pfc": { "priorities": [3], "cable_length_m": 40 },
            "buffers": { "prio_to_buffer": [0, 0, 0, 1, 0, 0, 0, 0],
                         "buffer_size_bytes": [130944, 65536, 0, 0, 0, 0, 0, 0] } } }
JSON
A --output json plan "$T/headroom.json" >"$T/plan.json"
check "plan: the cable length from the driver's default 7 m" python3 - "$T/plan.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
ch = {c["key"]: c for t in p["targets"] for c in t["changes"]}
assert ch["pfc.cable_length_m"]["from"] == 7 and ch["pfc.cable_length_m"]["to"] == 40, ch
assert ch["buffers.prio_to_buffer"]["to"] == [0, 0, 0, 1, 0, 0, 0, 0], ch
assert any("manual buffer mode" in n for n in p["notes"]), p["notes"]
PY
expect_rc 0 "apply" A apply "$T/headroom.json"
nm_state >"$T/now"
check "the driver holds 40 m" grep -q "pfc en 0x08 cable_len 40" "$T/now"
check "priority 3 alone in a lossless buffer 1, thresholds from 40 m" \
        grep -q "buffers manual prio2buffer 0,0,0,1,0,0,0,0 size 130944,65536,0,0,0,0,0,0 lossless 0x02 xoff 0,22656," "$T/now"
A --output json state >"$T/state.json"
check "state reads back the cable and the buffers" python3 - "$T/state.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
i = next(i for i in d["interfaces"] if i["name"] == "ens1f0np0")
s = i["state"] if "state" in i else i
assert s["pfc"]["cable_length_m"] == 40, s["pfc"]
assert s["buffers"]["prio_to_buffer"] == [0, 0, 0, 1, 0, 0, 0, 0], s["buffers"]
assert s["buffers"]["buffer_size_bytes"][1] == 65536 and s["buffers"]["total_bytes"] == 524288, s["buffers"]
PY
expect_rc 0 "no drift right after the apply" A drift
nm_ctl delay ens1f0np0 60 >/dev/null
rc=0; A drift >"$T/out" || rc=$?
check "a cable length set by hand is drift (exit $rc)" [ "$rc" -eq 1 ]
check "drift names it" grep -q "pfc.cable_length_m" "$T/out"
nm_state >"$T/now"
check "in manual mode the driver recomputed the thresholds for 60 m by itself" grep -q "xoff 0,18432," "$T/now"
expect_rc 0 "rollback" A rollback
nm_wait_settled
nm_state | sed 's/buffers manual /buffers firmware /' >"$T/now"
if ! cmp -s "$T/start" "$T/now"; then
        diff -u "$T/start" "$T/now" | head -40
        fail "rollback: the model did not end where it began"
fi
echo "ok: rollback: map, sizes, cable length and PFC byte-for-byte where they began; the driver stays in manual mode"

step "what mlx5 would ignore or refuse is refused first"
nm_state >"$T/before"
sed 's/"cable_length_m": 40/"cable_length_m": 1000/' "$T/headroom.json" >"$T/long.json"
rc=0; A apply "$T/long.json" 2>"$T/err" || rc=$?
check "1000 m refused with exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "the reason is mlx5's" grep -q "longer than mlx5 takes (1-999 m)" "$T/err"
sed 's/130944, 65536,/130944, 32768,/' "$T/headroom.json" >"$T/small.json"
rc=0; A apply "$T/small.json" 2>"$T/err" || rc=$?
check "a lossless buffer below the headroom refused with exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "with both numbers" grep -q "buffer 1 of 32768 bytes holds lossless priority 3, below the 52992 bytes" "$T/err"
nm_state >"$T/now"
check "nothing was changed" cmp -s "$T/before" "$T/now"

step "PFC stall prevention: spec.pfc.nic_stall_timeout_ms through the ethtool tunable"
python3 - "$T/lossless.json" "$T/stall.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["metadata"]["name"] = "stall"
p["spec"] = {"pfc": {"priorities": [3], "nic_stall_timeout_ms": "auto"}}
# The model's DCQCN is off on priority 3: PFC there alone is a lossless-class fault this step waives.
p["checks"] = {"allow": ["host_ecn_priority_mismatch"]}
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
