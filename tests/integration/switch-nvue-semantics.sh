#!/usr/bin/env bash
# NVUE semantics through a private sshd and switchsim: only listed queues are written
# (the factory queue 0 keeps marking), a commit is saved and survives a reboot (an
# unconfirmed one does not), a profile bound to one port by hand is drift on that
# port only, someone else's pending confirmation or unapplied edits are refused and
# never confirmed or cancelled, RoCE mode is refused as a conflict, and an NVUE
# without `nv config save` says the commit is not durable.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/switch_cases.sh"
. "$NETTUNE_TOP/tests/lib/switch_semantics.sh"
require_sshd

switch_sim_start "$T/sw" nvue swp1,swp2
policy "$T/ecn.json" ecn3 '{"ecn": {"queues": [3], "min_threshold_bytes": 200000, "max_threshold_bytes": 2000000,
                                    "mark_probability_pct": 50}}'
policy "$T/mtu.json" mtu9000 '{"mtu": 9000}'
write_policy "$T/p1.json" 9100 3
q() { jports "$1" "p['ecn']['queue$2']$3"; }

step "a policy that lists queue 3 writes queue 3 only"
apply_logged "$T/a1.json" "$T/sent.txt" "$T/ecn.json" --confirm 30
check "something was sent for queue 3" grep -q "traffic-class 3 min-threshold 200000" "$T/sent.txt"
check "nothing was sent for any other traffic class" bash -c "! grep 'traffic-class' '$T/sent.txt' | grep -v 'traffic-class 3 '"
swctl read > "$T/r1.json"
check "the factory queue 0 still marks on every port" test "$(q "$T/r1.json" 0 "['enabled']")" = True
check "queue 3 marks on every port" test "$(q "$T/r1.json" 3 "['min_threshold_bytes']")" = 200000
check "the commit was saved" test "$(jget "$T/a1.json" 'd["save"] + " " + d["save_how"]')" = "saved nv config save"
check "startup holds the change" test "$(raw 'd["nvue"]["startup"]["qos"]["congestion-control"]["default-global"]["traffic-class"]["3"]["min-threshold"]')" = 200000

step "a reboot keeps the committed change and drops an unconfirmed one"
expect_rc 0 "apply mtu 9000 without confirming it" swto "$T/a2.json" apply "$T/mtu.json" --confirm 300 --no-commit
sim --reboot
swctl read > "$T/r2.json"
check "after the reboot: queue 3 is still as committed" same_state "$T/r1.json" "$T/r2.json"
check "the unconfirmed mtu is gone" test "$(jports "$T/r2.json" "p['mtu']")" = 9216

step "a profile bound to one port by hand is drift on that port only"
sim -- nv set qos congestion-control my-red-profile traffic-class 3 min-threshold 40000 >/dev/null
sim -- nv set interface swp2 qos congestion-control profile my-red-profile >/dev/null
sim -- nv config apply -y >/dev/null
rc=0; swto "$T/pl.json" plan "$T/ecn.json" 2>"$T/pl.err" || rc=$?
echo "plan keys: $(keys "$T/pl.json")"
check "the plan names swp2 only" test "$(keys "$T/pl.json")" = "['ports.swp2.ecn.queue3.mark_probability_pct', 'ports.swp2.ecn.queue3.max_threshold_bytes', 'ports.swp2.ecn.queue3.min_threshold_bytes']"
check "and refuses to write another profile (exit $rc)" test "$rc" = 2
check "the refusal names the port and the profile" grep -q "port 'swp2' is bound to qos congestion-control profile 'my-red-profile'" "$T/pl.err"

step "someone else's apply awaiting confirmation is never confirmed or cancelled"
sim_reinit swp1,swp2
swctl read > "$T/base.json"
sim -- nv set interface swp1 link mtu 9000 >/dev/null
sim -- nv config apply -y --confirm 600s >/dev/null
m0=$(raw 'd["mutations"]')
rc=0; swto "$T/f1.json" apply "$T/p1.json" --confirm 30 2>"$T/f1.err" || rc=$?
check "apply refused (exit $rc)" test "$rc" = 2
check "the error says whose it is" grep -q "an apply awaits confirmation on the switch .* nettune did not make it" "$T/f1.err"
check "nothing was written" test "$(raw 'd["mutations"]')" = "$m0"
rc=0; swto "$T/f2.json" restore "$T/base.json" 2>"$T/f2.err" || rc=$?
check "restore refuses too (exit $rc)" test "$rc" != 0
check "their confirmation is still pending" test "$(raw 'd["nvue"]["confirm"] is not None and d["nvue"]["revisions"][-1]["state"]')" = confirm
check "no --confirm-yes/--confirm-no was sent" test "$(raw "any('--confirm-yes' in c or '--confirm-no' in c for c in d['log'])")" = False

step "someone else's edits that are set but not applied are not applied with ours"
sim_reinit swp1,swp2
sim -- nv set interface swp1 link mtu 8000 >/dev/null
rc=0; swto "$T/f3.json" apply "$T/p1.json" --confirm 30 2>"$T/f3.err" || rc=$?
check "apply refused (exit $rc)" test "$rc" = 2
check "the error names nv config diff" grep -q "set but not applied (nv config diff)" "$T/f3.err"
check "their pending edit is still there" test "$(raw 'd["nvue"]["pending"]["interface"]["swp1"]["link"]["mtu"]')" = 8000

step "RoCE mode on: a policy that would fight it is refused; an mtu change is not"
sim_reinit swp1,swp2 roce-lossless
rc=0; swto "$T/rc.json" plan "$T/p1.json" 2>"$T/rc.err" || rc=$?
check "plan refused (exit $rc)" test "$rc" = 2
check "the refusal says RoCE mode" grep -q "RoCE mode 'lossless' is on" "$T/rc.err"
expect_rc 0 "plan an mtu change" swto "$T/rc2.json" plan "$T/mtu.json"
check "the plan notes RoCE mode" grep -q "RoCE mode 'lossless' is on" <(jget "$T/rc2.json" 'd["notes"]')

step "an NVUE without nv config save: the commit is applied, not saved, and says so"
sim_reinit swp1,swp2 no-config-save
expect_rc 0 "plan mtu 9000" swto "$T/ns.json" plan "$T/mtu.json"
check "the plan notes that it does not survive a reboot" grep -q "not saved and does not survive a reboot" <(jget "$T/ns.json" 'd["notes"]')
expect_rc 0 "apply mtu 9000" swto "$T/ns2.json" apply "$T/mtu.json" --confirm 30
check "the result says not durable" test "$(jget "$T/ns2.json" 'd["save"]')" = not-durable
sim --reboot
swctl read > "$T/ns3.json"
check "as documented, the reboot loses it" test "$(jports "$T/ns3.json" "p['mtu']")" = 9216

step "cable length: the PFC profile's, one command for every port, rolled back byte-identical"
sim_reinit swp1,swp2
# PFC as the factory has it (no priority), so that the profile is compared for the cable length alone
policy "$T/cable.json" cable '{"pfc": {"priorities": [], "cable_length_m": 40}}'
pfc0=$(raw 'json.dumps(d["nvue"]["applied"]["qos"]["pfc"], sort_keys=True)')
swctl read > "$T/cb0.json"
check "unset reads as 0 on every port" test "$(jports "$T/cb0.json" "p['pfc'].get('cable_length_m')")" = 0
apply_logged "$T/cb1.json" "$T/cb1.sent" "$T/cable.json" --confirm 30
check "one set of the default-global profile" test "$(grep -c 'nv set qos pfc default-global cable-length 40' "$T/cb1.sent")" = 1
check "the applied profile holds 40 m" test "$(raw 'd["nvue"]["applied"]["qos"]["pfc"]["default-global"]["cable-length"]')" = 40
swctl read > "$T/cb2.json"
check "every port reads 40 m back" test "$(jports "$T/cb2.json" "p['pfc']['cable_length_m']")" = 40
expect_rc 0 "apply and roll back" swto "$T/cb3.json" apply "$T/cable.json" --rollback
sim_reinit swp1,swp2
expect_rc 0 "apply, then restore the snapshot" swto "$T/cb4.json" apply "$T/cable.json" --snapshot "$T/cbsnap.json"
expect_rc 0 "restore" swto "$T/cb5.json" restore "$T/cbsnap.json"
check "the restore unset it: the applied pfc profiles are byte-identical to before" \
        test "$(raw 'json.dumps(d["nvue"]["applied"]["qos"]["pfc"], sort_keys=True)')" = "$pfc0"
rc=0; sim -- nv set qos pfc default-global cable-length 100001 >/dev/null 2>"$T/cb.err" || rc=$?
check "the simulator refuses 100001 m like NVUE (exit $rc)" [ "$rc" -ne 0 ]
check "with NVUE's range" grep -q "expected integer:1 - 100000" "$T/cb.err"
sim -- nv config detach >/dev/null 2>&1 || true
