#!/usr/bin/env bash
# Switch faults through a private sshd and switchsim (NVUE dialect, plus EOS for the
# dropped session): rejected command, slow reply, wrong JSON, session dropped
# mid-apply (restored by the driver / by the switch's own commit timer), unknown
# and changed host keys, wrong key and wrong user. Each fault leaves the switch in
# its old state or its new one, never mixed.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/switch_cases.sh"
require_sshd

faults() { echo "$1" > "$SIM_STATE.faults"; }
nofaults() { rm -f "$SIM_STATE.faults"; }
raw() { sim --dump > "$T/raw.json"; jget "$T/raw.json" "$1"; }

switch_sim_start "$T/sw" nvue swp1,swp2
write_policy "$T/p1.json" 9100 3
swctl read > "$T/base.json"

step "rejected command: nothing changed"
faults '{"reject": "switch-priority"}'
expect_rc 3 "apply with a rejected command fails" swto "$T/f1.json" apply "$T/p1.json" --confirm 30
nofaults
swctl read > "$T/r1.json"
check "switch unchanged after rejection" same_state "$T/base.json" "$T/r1.json"
check "pending revision discarded" test "$(raw 'd["nvue"]["pending"]')" = None

step "slow reply: timeout error"
faults '{"slow_ms": 5000, "slow_match": "nv show --applied qos"}'
rc=0; swctl read > /dev/null 2> "$T/slow.err" || rc=$?
nofaults
check "slow read fails (exit $rc)" test "$rc" = 3
check "error says timed out" grep -q "timed out" "$T/slow.err"
# The slow command still holds the switch's state lock: wait for it, not for a clock.
flock "$SIM_STATE.lock" true

step "wrong JSON: clear parse error"
faults '{"bad_json": "nv show interface"}'
rc=0; swctl read > /dev/null 2> "$T/json.err" || rc=$?
nofaults
check "bad JSON read fails (exit $rc)" test "$rc" = 3
check "error names the command and says invalid JSON" grep -q "'nv show interface -o json' printed invalid JSON" "$T/json.err"

step "session dropped right after the apply: the driver restores"
faults '{"drop_match": "nv config apply -y", "drop_after_run": true}'
expect_rc 3 "apply with a dropped session" swto "$T/f2.json" apply "$T/p1.json" --confirm 30
nofaults
echo "restore method: $(jget "$T/f2.json" 'd["restore_method"]')"
check "restored by the vendor abort" test "$(jget "$T/f2.json" 'd["restore_method"]')" = vendor-abort
swctl read > "$T/r2.json"
check "switch in its old state" same_state "$T/base.json" "$T/r2.json"

step "switch unreachable after the apply: its commit timer reverts"
faults '{"drop_match": "nv config apply -y", "drop_after_run": true, "drop_all_after": true}'
expect_rc 3 "apply, then the switch is unreachable" swto "$T/f3.json" apply "$T/p1.json" --confirm 600
check "restore left to the switch timer" test "$(jget "$T/f3.json" 'd["restore_method"]')" = vendor-timer
check "new state is pending on the switch" test "$(raw 'd["nvue"]["confirm"] is not None')" = True
sim --advance 601       # the switch's clock runs out the 600 s timer
nofaults
swctl read > "$T/r3.json"
check "timer reverted the switch to its old state" same_state "$T/base.json" "$T/r3.json"

# An apply that waits behind the switch's lock (another apply) runs late and arms its
# commit timer then: the undo waits for it and cancels it, or names it when the wait runs
# out; never "reverts within N s" counted from when nettune gave up. 2 s command timeouts.
sed 's/"command_timeout_ms": [0-9]*/"command_timeout_ms": 2000/' "$T/sw/agent.json" > "$T/fast.json"
swfast() { local out=$1; shift; "$SWCTL" --config "$T/fast.json" --switch sw1 "$@" > "$out"; }

step "an apply stalled behind the switch's lock: waited for, then cancelled"
faults '{"slow_ms": 10000, "slow_match": "nv config apply -y"}'
expect_rc 3 "apply whose nv config apply stalls" swfast "$T/f4.json" apply "$T/p1.json" --confirm 30
nofaults
check "restored by the vendor abort once the switch answered" test "$(jget "$T/f4.json" 'd["restore_method"]')" = vendor-abort
check "nothing awaits confirmation on the switch" test "$(raw 'd["nvue"]["confirm"]')" = None
swctl read > "$T/r4.json"
check "switch in its old state" same_state "$T/base.json" "$T/r4.json"

step "an apply stalled past the wait: named, and the switch's timer counts from when it ran"
sim --freeze-clock      # the switch's timer runs out when the test says so, not on a busy machine's clock
faults '{"slow_ms": 10000, "slow_match": "nv config apply -y"}'
expect_rc 3 "apply whose nv config apply stalls past the wait" swfast "$T/f5.json" apply "$T/p1.json" --confirm 2
check "left to the switch's timer" test "$(jget "$T/f5.json" 'd["restore_method"]')" = vendor-timer
check "the stalled apply is named, not promised away" grep -q "may run yet" <<< "$(jget "$T/f5.json" 'd["restore_error"]')"
flock "$SIM_STATE.lock" true    # the stalled apply ends
nofaults
check "the switch took the stalled apply late" test "$(raw 'd["nvue"]["confirm"] is not None')" = True
sim --advance 3
swctl read > "$T/r5.json"
check "its timer reverted the switch" same_state "$T/base.json" "$T/r5.json"

step "dropped session mid-script on EOS"
EOS_T=$T/eos; mkdir -p "$EOS_T"
(
        T=$EOS_T
        switch_sim_start "$T/sw" eos Ethernet1,Ethernet2
        # A subshell does not inherit the cleanup trap: stop this sshd when it ends.
        trap sshd_stop EXIT
        write_policy "$T/p1.json" 9100 3
        swctl read > "$T/base.json"
        faults '{"drop_match": "configure session", "drop_after_run": true}'
        expect_rc 3 "eos apply with a dropped session" swto "$T/f.json" apply "$T/p1.json" --confirm 30
        rm -f "$SIM_STATE.faults"
        echo "restore method: $(jget "$T/f.json" 'd["restore_method"]')"
        check "eos restored by session abort" test "$(jget "$T/f.json" 'd["restore_method"]')" = vendor-abort
        swctl read > "$T/r.json"
        check "eos switch in its old state" same_state "$T/base.json" "$T/r.json"
)

step "host keys"
m0=$(raw 'd["mutations"]')
cp "$SSHD_KNOWN_HOSTS" "$T/kh.good"
ssh-keygen -q -t ed25519 -N '' -f "$T/other" -C other
echo "[127.0.0.1]:$SSHD_PORT $(cut -d' ' -f1,2 "$T/other.pub")" > "$SSHD_KNOWN_HOSTS"
rc=0; swctl read > /dev/null 2> "$T/hk1.err" || rc=$?
check "changed host key refused (exit $rc)" grep -q "does not match" "$T/hk1.err"
echo "[127.0.0.2]:$SSHD_PORT $(cut -d' ' -f1,2 "$T/other.pub")" > "$SSHD_KNOWN_HOSTS"
rc=0; swctl read > /dev/null 2> "$T/hk2.err" || rc=$?
check "unknown host refused (exit $rc)" grep -q "is not in" "$T/hk2.err"
cp "$T/kh.good" "$SSHD_KNOWN_HOSTS"
sshd_change_hostkey "$T/sw"
rc=0; swctl apply "$T/p1.json" > /dev/null 2> "$T/hk3.err" || rc=$?
check "re-keyed switch stops the driver cold (exit $rc)" grep -q "does not match" "$T/hk3.err"
check "nothing ran on the switch" test "$(raw 'd["mutations"]')" = "$m0"
echo "[127.0.0.1]:$SSHD_PORT $(cut -d' ' -f1,2 "$T/sw/host_ed25519.pub")" > "$SSHD_KNOWN_HOSTS"

step "wrong key, wrong user"
sed "s|$SSHD_KEY|$T/other|" "$T/sw/agent.json" > "$T/badkey.json"
rc=0; "$SWCTL" --config "$T/badkey.json" --switch sw1 read > /dev/null 2> "$T/k.err" || rc=$?
check "wrong key refused (exit $rc)" grep -q "was refused" "$T/k.err"
sed "s|\"user\": \"[^\"]*\"|\"user\": \"nettune-nobody\"|" "$T/sw/agent.json" > "$T/baduser.json"
rc=0; "$SWCTL" --config "$T/baduser.json" --switch sw1 read > /dev/null 2> "$T/u.err" || rc=$?
check "wrong user refused (exit $rc)" grep -q "was refused" "$T/u.err"
swctl read > /dev/null
echo "all switch faults behaved"
