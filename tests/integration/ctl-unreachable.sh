#!/usr/bin/env bash
# Controller: one of 20 agents is down. plan reports it (exit 3); a rollout with
# --max-unavailable 1 commits the other 19 and exits 3 with the node marked
# unreachable; with the default budget 0 the rollout halts when it meets it and
# cancels the pending change of the unreachable node's wave-mate.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd sqlite3
N=20

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

step "apply within the budget"
expect_rc 3 "rollout completes with a failed node" ctl_to "$T/apply.json" --output json apply "$T/mtu.json" \
        --wave-size 50% --max-unavailable 1
check "19 committed" [ "$(json_get "$T/apply.json" 'd["summary"]["committed"]')" = 19 ]
check "node020 unreachable" [ "$(json_get "$T/apply.json" '[n["state"] for n in d["nodes"] if n["name"]=="node020"][0]')" = unreachable ]
check "rollout completed" [ "$(json_get "$T/apply.json" 'd["state"]')" = completed ]
check "node 19 changed" [ "$(node_mtu 19)" = 9000 ]

step "apply over the budget halts"
expect_rc 1 "rollout halts" ctl_to "$T/apply2.json" --output json apply "$T/mtu2.json" --wave-size 50% --confirm-timeout 600
check "rollout halted" [ "$(json_get "$T/apply2.json" 'd["state"]')" = halted ]
check "the wave with node020 is halted" [ "$(json_get "$T/apply2.json" 'd["waves"][2]["state"]')" = halted ]
check "canary kept (rollback-on-halt wave)" [ "$(node_mtu 1)" = 4000 ]
check "node020 unreachable: its apply was not sent (its revision could not be read first)" \
        [ "$(json_get "$T/apply2.json" '[n["error"] for n in d["nodes"] if n["name"]=="node020"][0].startswith("its apply was not sent: cannot read its agent")')" = True ]
check "node019 (same wave, pending) cancelled by the controller" \
        [ "$(json_get "$T/apply2.json" '[n["state"] for n in d["nodes"] if n["name"]=="node019"][0]')" = cancelled ]
check "node019 is back at 9000 when nettunectl returns" [ "$(node_mtu 19)" = 9000 ]
