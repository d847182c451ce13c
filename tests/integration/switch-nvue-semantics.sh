#!/usr/bin/env bash
# NVUE semantics through a private sshd and switchsim: only listed queues are written
# (the factory queue 0 keeps marking), a commit is saved and survives a reboot (an
# unconfirmed one does not), a profile bound to one port by hand is drift on that
# port only, someone else's pending confirmation, unapplied edits or open revision
# (even one whose edits changed nothing) are refused and never confirmed, cancelled
# or joined, RoCE mode is refused as a conflict, an NVUE without `nv config save`
# says the commit is not durable; nettune never leaves a revision of its own staged
# (a refused apply, a session dropped between its edits), and reports the restore
# done when the switch is back; auto-save (CL 5.9+) is followed: no save after a
# commit, a save after a cancelled apply it had saved; CL 5.10's spellings are the
# ones written; a --confirm-status text nettune cannot read is a refusal.
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
check "the error names their open revision" grep -q "revision [0-9]* is open .*nettune did not open it.*nv config detach" "$T/f3.err"
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

faults() { echo "$1" > "$SIM_STATE.faults"; }
nofaults() { rm -f "$SIM_STATE.faults"; }
open_revisions() { raw '[r["id"] for r in d["nvue"]["revisions"] if r["state"] == "pending"]'; }

step "someone's nv set that changed nothing left a revision open: refused, named, nothing joined"
sim_reinit swp1,swp2
sim -- nv set interface swp1 link mtu 9216 >/dev/null           # the MTU it has: nv config diff stays empty
check "nv config diff is empty" test "$(sim -- nv config diff -o json)" = "[]"
check "their revision is open" test "$(open_revisions)" = "[2]"
m0=$(raw 'd["mutations"]')
rc=0; swto "$T/o1.json" plan "$T/p1.json" 2>"$T/o1.err" || rc=$?
check "plan refuses (exit $rc)" test "$rc" = 2
check "naming the revision and the way out" grep -q "revision 2 is open .*nettune did not open it.*(nv config detach)" "$T/o1.err"
rc=0; swto "$T/o2.json" apply "$T/p1.json" --confirm 30 2>"$T/o2.err" || rc=$?
check "apply refuses (exit $rc)" test "$rc" = 2
check "nothing was written" test "$(raw 'd["mutations"]')" = "$m0"
check "their revision is still open, untouched" test "$(open_revisions)" = "[2]"
check "no confirm timer was armed" test "$(raw 'd["nvue"]["confirm"] is None')" = True
sim -- nv config detach >/dev/null

step "a refused nv config apply leaves no revision of nettune's staged; the restore says done"
sim_reinit swp1,swp2
swctl read > "$T/b4.json"
faults '{"reject": "nv config apply -y"}'
rc=0; swto "$T/r4.json" apply "$T/p1.json" --confirm 30 2>"$T/r4.err" || rc=$?
nofaults
cat "$T/r4.err"
check "apply fails (exit $rc)" test "$rc" = 3
check "no RESTORE FAILED" sh -c "! grep -q 'RESTORE FAILED' '$T/r4.err'"
check "restored" test "$(jget "$T/r4.json" 'd["restore_method"]')" != failed
check "no revision is left open" test "$(open_revisions)" = "[]"
check "the one nettune staged was detached" test "$(raw 'd["nvue"]["revisions"][-1]["state"]')" = detached
swctl read > "$T/a4.json"
check "the switch is on its old configuration" same_state "$T/b4.json" "$T/a4.json"
check "a later nv config apply by anyone pushes nothing" sh -c "'$SIM' --dialect nvue --state '$SIM_STATE' -- nv config apply -y | grep -q 'no configuration changes'"

step "a session dropped between nettune's edits: its revision is detached, the restore says done"
sim_reinit swp1,swp2
faults '{"drop_match": "switch-priority"}'       # after the trust edit, before the first DSCP one
rc=0; swto "$T/r5.json" apply "$T/p1.json" --confirm 30 2>"$T/r5.err" || rc=$?
nofaults
cat "$T/r5.err"
check "apply fails (exit $rc)" test "$rc" = 3
check "no RESTORE FAILED" sh -c "! grep -q 'RESTORE FAILED' '$T/r5.err'"
check "no revision is left open" test "$(open_revisions)" = "[]"
check "the partial edits are gone" test "$(raw 'd["nvue"]["pending"]')" = None
swctl read > "$T/a5.json"
check "the switch is on its old configuration" same_state "$T/b4.json" "$T/a5.json"

step "auto-save on (CL 5.9: enable on): a commit is saved by the apply, a cancelled apply is saved over"
sim_reinit swp1,swp2 auto-save
apply_logged "$T/s1.json" "$T/s1.sent" "$T/mtu.json" --confirm 30
check "the commit says auto-save saved it" grep -q "auto-save" <(jget "$T/s1.json" 'd["save_how"]')
check "no nv config save was sent" sh -c "! grep -q '^nv config save' '$T/s1.sent'"
check "startup has it" test "$(raw 'd["nvue"]["startup"]["interface"]["swp1"]["link"]["mtu"]')" = 9000
write_policy "$T/p9.json" 8000 3
n0=$(sim_commands)
rc=0; swto "$T/s2.json" apply "$T/p9.json" --confirm 300 --rollback || rc=$?
sim_log_since "$n0" > "$T/s2.sent"
check "cancelled by the vendor abort" test "$(jget "$T/s2.json" 'd["restore_method"]')" = vendor-abort
check "then saved over what auto-save had saved" sh -c "grep -n -- '--confirm-no' '$T/s2.sent' && grep -q '^nv config save$' '$T/s2.sent'"
check "startup is the committed configuration again" test "$(raw 'd["nvue"]["startup"]["interface"]["swp1"]["link"]["mtu"]')" = 9000

step "CL 5.10: the words the switch prints are the ones written; state enabled is auto-save"
sim_reinit swp1,swp2 nvue-5.10
policy "$T/off.json" ecn3off '{"ecn": {"queues": [3], "enabled": false}}'
apply_logged "$T/v2.json" "$T/v2.sent" "$T/ecn.json" --confirm 30
check "queue 3 turned on with the switch's word" grep -q "traffic-class 3 ecn enabled" "$T/v2.sent"
apply_logged "$T/v1.json" "$T/v1.sent" "$T/off.json" --confirm 30
check "and off with it" grep -q "traffic-class 3 ecn disabled" "$T/v1.sent"
check "auto-save read from 'state enabled'" grep -q "auto-save" <(jget "$T/v2.json" 'd["save_how"]')

step "a --confirm-status text nettune cannot read is a refusal, not a guess"
sim_reinit swp1,swp2
faults '{"reword": "--confirm-status"}'         # a line NVIDIA never documented
rc=0; swto "$T/c1.json" plan "$T/mtu.json" 2>"$T/c1.err" || rc=$?
nofaults
check "plan refuses (exit $rc)" test "$rc" = 2
check "saying what it printed" grep -q "printed 'Confirmation state: unknown', which says neither that nothing awaits confirmation nor how long" "$T/c1.err"

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
