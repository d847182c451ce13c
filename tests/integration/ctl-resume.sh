#!/usr/bin/env bash
# Controller: kill -9 mid-rollout, then `apply --resume ID`. The journal in SQLite
# says where it stopped; the resumed rollout asks the agents of the interrupted
# wave what they did (by idempotency key) instead of applying again, finishes
# every wave, no node is left pending, every node ends committed at the new MTU,
# and no agent applied the policy twice.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd sqlite3 pgrep
N=20

step "fleet of $N agents"
fleet_up $N
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 1500 }'

waves_done() { [ "$(sqlite3 "$T/ctl.db" "select count(*) from waves where state='done'" 2>/dev/null)" -ge "$1" ]; }

step "start a rollout and kill -9 the controller after two waves"
bg ctl --quiet apply "$T/mtu.json" --canary 1 --wave-size 5 --confirm-timeout 4 --timeout 10
wait_for 60 waves_done 2 || fail "the rollout did not get through two waves"
ctl_pid=$(pgrep -P "$BG_PID" -x nettunectl || true)
[ -n "$ctl_pid" ] || ctl_pid=$BG_PID
kill -9 "$ctl_pid"
wait "$BG_PID" 2>/dev/null || true
id=$(sqlite3 "$T/ctl.db" "select id from rollouts order by id desc limit 1")
check "the journal says running" [ "$(sqlite3 "$T/ctl.db" "select state from rollouts where id=$id")" = running ]
done_waves=$(sqlite3 "$T/ctl.db" "select count(*) from waves where rollout_id=$id and state='done'")
check "it stopped before the last wave" [ "$done_waves" -lt 5 ]
echo "killed after $done_waves of 5 waves"
expect_rc 2 "confirm refuses a running rollout" ctl confirm "$id"

step "resume"
expect_rc 0 "resumed rollout commits" ctl_to "$T/resume.json" --output json apply --resume "$id"
check "rollout completed" [ "$(json_get "$T/resume.json" 'd["state"]')" = completed ]
check "all $N committed" [ "$(json_get "$T/resume.json" 'd["summary"]["committed"]')" = $N ]
check "no wave left undone" [ "$(sqlite3 "$T/ctl.db" "select count(*) from waves where rollout_id=$id and state!='done'")" = 0 ]
for ((i = 1; i <= N; i++)); do
        mtu_is $i 9000 || fail "node $i has mtu $(node_mtu $i), expected 9000"
done
echo "ok: every node has mtu 9000"
for ((i = 1; i <= N; i++)); do
        applied_once $i mtu-9000 || fail "node $i applied mtu-9000 more than once"
done
echo "ok: every agent applied the policy exactly once"

step "nothing stays pending: after the confirm timeout every node still holds the change"
sleep 5
for ((i = 1; i <= N; i++)); do
        mtu_is $i 9000 || fail "node $i reverted to $(node_mtu $i): it was left unconfirmed"
done
echo "ok: every node kept mtu 9000 past its confirm deadline"
expect_rc 2 "a finished rollout cannot be resumed" ctl apply --resume "$id"
