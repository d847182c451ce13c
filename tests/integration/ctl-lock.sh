#!/usr/bin/env bash
# Controller: the rollout lease. While one `nettunectl apply` drives a rollout that
# the test holds (the canary's agent waits in a test-only hook until released), a
# second apply, rollback or confirm on the same --db is refused with exit 2 and
# changes nothing; once the first has finished the lease is gone and the second
# apply succeeds.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd sqlite3
N=3

step "fleet of $N agents that hold their transaction after the apply until released"
NETTUNE_TEST_HOOK_AFTER_APPLY=$(gate_hook rollout)
export NETTUNE_TEST_HOOK_AFTER_APPLY
fleet_up $N
unset NETTUNE_TEST_HOOK_AFTER_APPLY
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none" }'
policy "$T/mtu2.json" mtu-4000 4000 '{ "role": "gpu" }' '{ "probe": "none" }'

lease_held() { [ -n "$(sqlite3 "$T/ctl.db" 'select pid from lease' 2>/dev/null)" ]; }

step "first controller: canary 1, waves of 1"
bg ctl --quiet --output json apply "$T/mtu.json" --canary 1 --wave-size 1 --confirm-timeout 30 > "$T/first.json"
first=$BG_PID
wait_for 60 lease_held || fail "the first controller took no lease"
wait_for 60 gate_held rollout || fail "the canary's apply never reached its hook"
rollouts_before=$(sqlite3 "$T/ctl.db" 'select count(*) from rollouts')
echo "lease: $(sqlite3 "$T/ctl.db" 'select rollout_id, pid, host from lease')"

step "a second controller on the same database is refused"
expect_rc 2 "second apply refused" ctl apply "$T/mtu2.json" --wave-size 100% 2> "$T/second.err"
cat "$T/second.err"
check "the refusal names the holder" grep -Eq 'is being driven by pid [0-9]+ on .* since .*; nothing was changed' "$T/second.err"
expect_rc 2 "rollback refused" ctl rollback --to 1 2> /dev/null
expect_rc 2 "resume refused" ctl apply --resume 1 2> /dev/null
expect_rc 2 "confirm refused" ctl confirm 1 2> /dev/null
check "no rollout was added" [ "$(sqlite3 "$T/ctl.db" 'select count(*) from rollouts')" = "$rollouts_before" ]
check "the first controller is still running" kill -0 "$first"
for ((i = 1; i <= N; i++)); do
        [ "$(node_mtu $i)" != 4000 ] || fail "node $i got the refused policy's mtu 4000"
done
echo "ok: no node has the refused policy's mtu"

heartbeat_moved() { [ "$(sqlite3 "$T/ctl.db" 'select heartbeat > started_at from lease')" = 1 ]; }
check "the holder refreshes its heartbeat (every 5 s)" wait_for 60 heartbeat_moved

step "the first rollout finishes and releases the lease"
gate_open rollout
rc=0
wait "$first" || rc=$?
[ "$rc" -eq 0 ] || fail "first rollout: exit $rc, expected 0"
check "first rollout committed all $N" [ "$(json_get "$T/first.json" 'd["summary"]["committed"]')" = $N ]
check "the lease is released" [ -z "$(sqlite3 "$T/ctl.db" 'select pid from lease')" ]

step "now the second apply succeeds"
expect_rc 0 "second apply commits" ctl_to "$T/second.json" --output json apply "$T/mtu2.json" --wave-size 100% \
        --confirm-timeout 30
check "second rollout committed all $N" [ "$(json_get "$T/second.json" 'd["summary"]["committed"]')" = $N ]
for ((i = 1; i <= N; i++)); do
        [ "$(node_mtu $i)" = 4000 ] || fail "node $i has mtu $(node_mtu $i), expected 4000"
done
echo "ok: every node's nt0 has mtu 4000"
