#!/usr/bin/env bash
# Controller: one of 20 agents is down. plan reports it (exit 3). A rollout's
# pre-flight finds it before the canary changes anything: the rollout stops with
# exit 3, no node was touched (the canary's agent has no transaction at all) and
# nothing is recorded. With --skip-unreachable the dead node is left out, named,
# and the other 19 commit. An agent that dies after the pre-flight, mid-rollout,
# is found when its wave comes (its apply is not delivered): with the default budget
# 0 the rollout halts there and cancels the pending change of its wave-mate.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd sqlite3
N=20

NETTUNE_TEST_HOOK_AFTER_APPLY=$(fleet_hold_hook)
export NETTUNE_TEST_HOOK_AFTER_APPLY

step "fleet of $N agents, node 20 down"
fleet_up $N
kill "$AGENT_PID_20"
wait "$AGENT_PID_20" 2>/dev/null || true
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
policy "$T/mtu2.json" mtu-4000 4000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'

step "plan"
expect_rc 3 "plan reports an unreachable node" ctl_to "$T/plan.json" --output json plan "$T/mtu.json"
check "one unreachable" [ "$(json_get "$T/plan.json" 'd["summary"]["unreachable"]')" = 1 ]
check "19 changing" [ "$(json_get "$T/plan.json" 'd["summary"]["changing"]')" = 19 ]
check "the reason is not doubled" [ "$(json_get "$T/plan.json" \
        '[n["error"] for n in d["nodes"] if n["name"] == "node020"][0].startswith("cannot connect (")')" = True ]

step "apply: the pre-flight stops it before the canary changes"
rc=0; ctl apply "$T/mtu.json" --wave-size 50% --max-unavailable 1 > "$T/apply0.out" 2> "$T/apply0.err" || rc=$?
check "exit 3 (got $rc)" [ "$rc" = 3 ]
check "it names the dead node" grep -q "node node020 did not answer the pre-flight: its health check: cannot connect" "$T/apply0.err"
check "it says what to do and that nothing changed" \
        grep -q "pre-flight: 19 of 20 nodes ready (--skip-unreachable leaves the unreachable ones out); no node was changed" \
        "$T/apply0.err"
for ((i = 1; i < N; i++)); do
        [ "$(node_mtu $i)" = 1500 ] || fail "node $i has mtu $(node_mtu $i) after a stopped pre-flight"
done
echo "ok: no node changed, the canary included"
agent_history 1 "$T/h1.json" || fail "cannot read the canary's history"
check "the canary's agent never ran a transaction" [ "$(json_get "$T/h1.json" 'len(d["transactions"])')" = 0 ]
check "no rollout was recorded" [ "$(sqlite3 "$T/ctl.db" 'select count(*) from rollouts')" = 0 ]

step "apply --skip-unreachable: the dead node left out, named"
expect_rc 0 "rollout commits the 19" ctl_to "$T/apply.json" --output json apply "$T/mtu.json" \
        --wave-size 50% --skip-unreachable
check "19 committed" [ "$(json_get "$T/apply.json" 'd["summary"]["committed"]')" = 19 ]
check "node020 is not a node of the rollout" [ "$(json_get "$T/apply.json" '"node020" in [n["name"] for n in d["nodes"]]')" = False ]
check "the report names it as left out" [ "$(json_get "$T/apply.json" 'd["left_out"][0]["name"]')" = node020 ]
check "the option is recorded" [ "$(sqlite3 "$T/ctl.db" "select json_extract(opts, '\$.skip_unreachable') from rollouts order by id desc limit 1")" = 1 ]
check "node 19 changed" [ "$(node_mtu 19)" = 9000 ]

step "an agent that dies mid-rollout: its wave halts"
fleet_start_agent 20 2>>"$T/agents.log"
wait_for 20 agent_up 20 || fail "agent 20 did not come back"
hold_node 1
bg ctl_to "$T/apply2.json" --output json apply "$T/mtu2.json" --wave-size 50% --confirm-timeout 600
apply_pid=$BG_PID
wait_for 60 node_held 1 || fail "the canary's apply did not start"
kill "$AGENT_PID_20"
wait "$AGENT_PID_20" 2>/dev/null || true
hold_release
rc=0; wait "$apply_pid" || rc=$?
check "rollout halts: exit 1 (got $rc)" [ "$rc" = 1 ]
check "rollout halted" [ "$(json_get "$T/apply2.json" 'd["state"]')" = halted ]
check "the wave with node020 is halted" [ "$(json_get "$T/apply2.json" 'd["waves"][2]["state"]')" = halted ]
check "canary kept (rollback-on-halt wave)" [ "$(node_mtu 1)" = 4000 ]
check "node020 unreachable: its apply was not delivered" \
        [ "$(json_get "$T/apply2.json" '[(n["state"], n["error"].startswith("its apply was not delivered: cannot connect")) for n in d["nodes"] if n["name"]=="node020"][0]')" = "('unreachable', True)" ]
check "node019 (same wave, pending) cancelled by the controller" \
        [ "$(json_get "$T/apply2.json" '[n["state"] for n in d["nodes"] if n["name"]=="node019"][0]')" = cancelled ]
check "node019 is back at 9000 when nettunectl returns" [ "$(node_mtu 19)" = 9000 ]
agent_history 19 "$T/h19.json" || fail "cannot read node019's history"
check "node019's agent journaled the cancel as its caller's, not a confirm timeout" \
        [ "$(json_get "$T/h19.json" '[t["restored_by"] for t in d["transactions"] if t["policy"] == "mtu-4000"][0]')" = cancelled ]
