#!/usr/bin/env bash
# Controller: a node is stopped (kill -STOP) while its change is pending. Its confirm
# gets no answer within the wave's confirm window, so the controller cannot count it
# committed: the wave halts, its committed wave-mates are rolled back, and the stopped
# node's outcome stays open while the controller keeps asking its agent. The node is
# continued after the wave was halted: the confirm it had queued carries the wave's
# not_after_ms, which has passed, so its agent refuses it and restores the change
# (or the controller's cancel does, whichever its agent takes first). The whole wave
# ends at the old MTU, read back from each namespace, nothing is left pending, and
# `status` says what each node did.
# Then a node stays stopped past its own deadline: the controller gives up on it as
# `unknown` (exit 3, listed in the message) instead of guessing; continued, its agent
# restores the expired change itself.
#
# Nothing races a short timer: the apply of node 3 is held (a test-only hook) until
# node 1 is pending and stopped, the agents' confirm deadline is 600 s, and the test
# continues node 1 only once the controller has journaled the halt (in the second part,
# only once the controller has given up on it).
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd sqlite3 pgrep
N=3
STOPPED=""
# A stopped agent would not take the cleanup's SIGTERM: continue it first, whatever happens.
trap 'rc=$?; [ -z "$STOPPED" ] || kill -CONT "$STOPPED" 2>/dev/null || true; (exit $rc); nt_cleanup' EXIT

NETTUNE_TEST_HOOK_AFTER_APPLY=$(fleet_hold_hook)
export NETTUNE_TEST_HOOK_AFTER_APPLY

step "fleet of $N agents; node 3's apply will be held until node 1 is stopped"
fleet_up $N
unset NETTUNE_TEST_HOOK_AFTER_APPLY
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
hold_node 3

step "one wave of three; node 1 stopped while its change is pending"
# --timeout 30: each request's limit, and the wave's confirm window (not_after_ms).
bg ctl --output json apply "$T/mtu.json" --canary 0 --wave-size 100% --confirm-timeout 600 --timeout 30 \
        > "$T/apply.json" 2> "$T/apply.err"
CTL_BG=$BG_PID
node1_pending() { [ "$(ctl_node_state node001)" = pending ] && node_held 3; }
wait_for 120 node1_pending || fail "node001 did not become pending (controller: $(ctl_node_state node001))"
STOPPED=$(agent_pid 1)
[ -n "$STOPPED" ] || fail "cannot find node 1's agent process"
kill -STOP "$STOPPED"
t_stop=$(date +%s%N)
echo "ok: node001 pending at mtu $(node_mtu 1); its agent (pid $STOPPED) stopped"
hold_release

step "the confirm to node 1 gets no answer: the wave halts, its committed nodes are rolled back"
halted() {
        [ "$(ctl_db "select state from waves where idx = 0 order by rollout_id desc limit 1")" = halted ] &&
        [ "$(ctl_node_state node002)" = rolled_back ] && [ "$(ctl_node_state node003)" = rolled_back ]
}
wait_for 240 halted || fail "the wave did not halt with node002/node003 rolled back ($(ctl_node_state node002)/$(ctl_node_state node003))"
echo "halted and rolled back $(( ($(date +%s%N) - t_stop) / 1000000 )) ms after node 1 was stopped (confirm window 30 s)"
check "node001's outcome is open: the controller recorded no verdict of its own" \
        [ "$(ctl_node_state node001)" = unknown ]
check "node 1 still holds the change (stopped, its deadline 600 s away)" [ "$(node_mtu 1)" = 9000 ]
check "node 2 and node 3 are back at 1500" [ "$(node_mtu 2)$(node_mtu 3)" = 15001500 ]
check "the controller is still asking node 1" kill -0 "$CTL_BG"

step "node 1 continued after the halt"
kill -CONT "$STOPPED"
STOPPED=""
t_cont=$(date +%s%N)
rc=0
wait "$CTL_BG" || rc=$?
echo "node 1's outcome known, nettunectl done, $(( ($(date +%s%N) - t_cont) / 1000000 )) ms after it was continued"
[ "$rc" -eq 1 ] || { cat "$T/apply.err"; fail "nettunectl exit $rc, expected 1 (halted and rolled back)"; }
echo "ok: nettunectl exit 1"
node_field() { json_get "$T/apply.json" "[n['$2'] for n in d['nodes'] if n['name'] == '$1'][0]"; }
check "rollout halted" [ "$(json_get "$T/apply.json" 'd["state"]')" = halted ]
check "node001 reverted: its agent restored it" [ "$(node_field node001 state)" = reverted ]
echo "node001: $(node_field node001 error)"
check "node002 and node003 rolled back" [ "$(node_field node002 state)/$(node_field node003 state)" = rolled_back/rolled_back ]
check "node001's confirm carried the wave's deadline, before its agent's own" \
        [ "$(json_get "$T/apply.json" '[n["not_after_ms"] < n["confirm_deadline_ms"] for n in d["nodes"] if n["name"] == "node001"][0]')" = True ]
for i in 1 2 3; do
        check "node $i at the old mtu 1500" [ "$(node_mtu $i)" = 1500 ]
        check "node $i holds nothing pending" [ "$(pending_count $i)" = 0 ]
done
agent_history 1 "$T/h1.json"
check "node 1's agent never committed the change: restored at the refused confirm" \
        [ "$(json_get "$T/h1.json" '[(t["state"], t["restored_by"]) for t in d["transactions"] if t["kind"] == "apply"][0]')" = \
          "('rolled_back', 'confirm-timeout')" ]

step "status says what each node did"
ctl status > "$T/status.txt"
cat "$T/status.txt"
check "status: halted, 2 rolled back, node001 reverted" \
        grep -q "halted: 1 node failed (budget 0); 2 rolled back, 0 cancelled, 1 reverted, 0 skipped" "$T/status.txt"
check "status: node001 reverted" grep -Eq "node001 +reverted +tx [0-9]+: .*(restored by its agent|its agent restored it)" "$T/status.txt"
check "status never says a node reverts by itself" bash -c "! grep -q 'by itself' '$T/status.txt'"

step "2: a node stopped past its own deadline: its outcome stays unknown, and the controller says so"
# A confirm timeout of 30 s this time: the controller gives node 1 until its agent's
# deadline and a margin, then records what it cannot know instead of guessing.
policy "$T/mtu2.json" mtu-4000 4000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
rm -f "$T/hold.open" "$T"/held-*
hold_node 3
bg ctl --output json apply "$T/mtu2.json" --canary 0 --wave-size 100% --confirm-timeout 30 --timeout 15 \
        > "$T/apply2.json" 2> "$T/apply2.err"
CTL_BG=$BG_PID
wait_for 120 node1_pending || fail "node001 did not become pending again"
STOPPED=$(agent_pid 1)
kill -STOP "$STOPPED"
hold_release
rc=0
wait "$CTL_BG" || rc=$?
[ "$rc" -eq 3 ] || { cat "$T/apply2.err"; fail "nettunectl exit $rc, expected 3 (halted, an outcome unknown)"; }
echo "ok: nettunectl exit 3"
check "node001 unknown" [ "$(json_get "$T/apply2.json" '[n["state"] for n in d["nodes"] if n["name"] == "node001"][0]')" = unknown ]
echo "node001: $(json_get "$T/apply2.json" '[n["error"] for n in d["nodes"] if n["name"] == "node001"][0]')"
check "the rollout's message lists it" grep -q "outcome unknown (agent not answering): node001" <(json_get "$T/apply2.json" 'd["message"]')
check "node002 and node003 at their old mtu 1500" [ "$(node_mtu 2)$(node_mtu 3)" = 15001500 ]
check "node 1 still holds the change while stopped" [ "$(node_mtu 1)" = 4000 ]
kill -CONT "$STOPPED"
STOPPED=""
wait_for 60 mtu_is 1 1500 || fail "node 1's agent did not restore its expired change (mtu $(node_mtu 1))"
echo "ok: continued, node 1's agent restored its expired change by itself: mtu 1500"
check "node 1 holds nothing pending" [ "$(pending_count 1)" = 0 ]
ctl status > "$T/status2.txt"
check "status: node001 unknown, with the reason" grep -Eq "node001 +unknown +tx [0-9]+: outcome unknown: no final answer from its agent by" "$T/status2.txt"
