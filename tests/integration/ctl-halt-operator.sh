#!/usr/bin/env bash
# Controller: the operator halts rollouts that no controller drives any more.
# 1. A rollout whose controller was killed (kill -9) in its second wave, two nodes
#    pending, one still applying: `nettunectl halt ID --rollback-on-halt all` asks
#    every unfinished node's agent first (the one in flight by its idempotency key),
#    cancels every pending change, rolls back the committed canary, and says so.
# 2. A rollout left pending (--no-confirm): `halt ID` cancels every pending node; another
#    one is confirmed by hand (`confirm ID`), each confirm with its not_after_ms.
# Halted, every node ends at its old MTU, read back from its namespace; nothing is left
# pending in any case.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd sqlite3 pgrep
N=4
NETTUNE_TEST_HOOK_AFTER_APPLY=$(fleet_hold_hook)
export NETTUNE_TEST_HOOK_AFTER_APPLY

step "fleet of $N agents; node 4's apply will be held"
fleet_up $N
unset NETTUNE_TEST_HOOK_AFTER_APPLY
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
hold_node 4
node_field() { json_get "$1" "[n['$3'] for n in d['nodes'] if n['name'] == '$2'][0]"; }
no_pending() { local i; for i in $(seq 1 $N); do [ "$(pending_count "$i")" = 0 ] || return 1; done; }

step "1: kill -9 the controller while wave 2 has two nodes pending and one applying"
bg ctl --quiet apply "$T/mtu.json" --canary 1 --wave-size 3 --confirm-timeout 600
interrupted() {
        [ "$(ctl_node_state node001)" = committed ] && [ "$(ctl_node_state node002)" = pending ] &&
        [ "$(ctl_node_state node003)" = pending ] && node_held 4
}
wait_for 120 interrupted || fail "wave 2 did not reach two pending nodes and one held"
ctl_pid=$(pgrep -P "$BG_PID" -x nettunectl || true)
[ -n "$ctl_pid" ] || ctl_pid=$BG_PID
kill -9 "$ctl_pid"
wait "$BG_PID" 2>/dev/null || true
hold_release
id=$(ctl_db "select id from rollouts order by id desc limit 1")
check "rollout $id interrupted: running" [ "$(ctl_db "select state from rollouts where id=$id")" = running ]
held_pending() { agent_history 4 "$T/h4.json" && [ "$(json_get "$T/h4.json" 'd["transactions"][0]["state"]')" = pending_confirm ]; }
wait_for 60 held_pending || fail "node 4's agent did not finish its apply"
check "node 4 journaled as applying by the dead controller" [ "$(ctl_node_state node004)" = applying ]
check "wave 2 at mtu 9000, unconfirmed" [ "$(node_mtu 2)$(node_mtu 3)$(node_mtu 4)" = 900090009000 ]

expect_rc 1 "halt cancels and rolls back" ctl_to "$T/halt.json" --output json halt "$id" --rollback-on-halt all
check "rollout halted" [ "$(json_get "$T/halt.json" 'd["state"]')" = halted ]
check "canary node001 rolled back" [ "$(node_field "$T/halt.json" node001 state)" = rolled_back ]
for n in node002 node003 node004; do
        check "$n cancelled" [ "$(node_field "$T/halt.json" $n state)" = cancelled ]
done
check "node004's transaction found by its key" [ -n "$(node_field "$T/halt.json" node004 tx)" ]
for i in $(seq 1 $N); do check "node $i at the old mtu 1500" [ "$(node_mtu $i)" = 1500 ]; done
check "no agent holds anything pending" no_pending
ctl status "$id" > "$T/status.txt"
check "status reports the halt" grep -q "halted: 0 nodes failed (budget 0); 1 rolled back, 3 cancelled, 0 reverted, 0 skipped" "$T/status.txt"
expect_rc 2 "a halted rollout cannot be halted again" ctl halt "$id"
expect_rc 2 "nor resumed" ctl apply --resume "$id"

step "2: a rollout left pending (--no-confirm), halted"
expect_rc 4 "rollout left pending" ctl_to "$T/pending.json" --output json apply "$T/mtu.json" --canary 1 \
        --wave-size 3 --confirm-timeout 600 --no-confirm
id2=$(json_get "$T/pending.json" 'd["id"]')
check "every node pending at 9000" [ "$(json_get "$T/pending.json" 'd["summary"]["pending"]')/$(node_mtu 1)$(node_mtu 4)" = 4/90009000 ]
expect_rc 1 "halt cancels them" ctl_to "$T/halt2.json" --output json halt "$id2"
check "all four cancelled" [ "$(json_get "$T/halt2.json" 'd["summary"]["cancelled"]')" = 4 ]
for i in $(seq 1 $N); do check "node $i at the old mtu 1500" [ "$(node_mtu $i)" = 1500 ]; done
check "no agent holds anything pending" no_pending

step "3: a rollout left pending, confirmed by hand within its window"
expect_rc 4 "rollout left pending" ctl_to "$T/pending3.json" --output json apply "$T/mtu.json" --canary 1 \
        --wave-size 3 --confirm-timeout 600 --no-confirm
id3=$(json_get "$T/pending3.json" 'd["id"]')
expect_rc 0 "confirm commits them" ctl_to "$T/confirm3.json" --output json confirm "$id3"
check "all four committed" [ "$(json_get "$T/confirm3.json" 'd["summary"]["committed"]')" = 4 ]
check "each confirm carried a not_after_ms before its agent's deadline" \
        [ "$(json_get "$T/confirm3.json" 'all(0 < n["not_after_ms"] < n["confirm_deadline_ms"] for n in d["nodes"])')" = True ]
for i in $(seq 1 $N); do check "node $i at 9000" [ "$(node_mtu $i)" = 9000 ]; done
check "no agent holds anything pending" no_pending
