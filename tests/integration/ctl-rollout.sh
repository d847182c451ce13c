#!/usr/bin/env bash
# Controller: a clean canary + wave rollout of an MTU change to 20 real agents (one
# netns each, mTLS), then status/history from SQLite, a drift scan after a hand edit
# on two nodes, a fleet rollback by rollout (run twice: the second changes nothing) and
# rollbacks to a revision.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
N=20

step "fleet of $N agents"
fleet_up $N
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none" }'

step "plan"
expect_rc 0 "plan reaches every node" ctl_to "$T/plan.json" --output json plan "$T/mtu.json"
check "plan: $N nodes change mtu" [ "$(json_get "$T/plan.json" 'd["summary"]["fields"].get("mtu")')" = $N ]
check "plan: nothing applied" [ "$(node_mtu 1)" = 1500 ]

step "apply: canary 1, waves of 25%"
expect_rc 0 "rollout commits" ctl_to "$T/apply.json" --output json apply "$T/mtu.json" --canary 1 --wave-size 25% \
        --confirm-timeout 30
check "5 waves (1 + 5 + 5 + 5 + 4)" [ "$(json_get "$T/apply.json" 'len(d["waves"])')" = 5 ]
check "all $N committed" [ "$(json_get "$T/apply.json" 'd["summary"]["committed"]')" = $N ]
for ((i = 1; i <= N; i++)); do
        [ "$(node_mtu $i)" = 9000 ] || fail "node $i has mtu $(node_mtu $i), expected 9000"
done
echo "ok: every node's nt0 has mtu 9000"
id=$(json_get "$T/apply.json" 'd["id"]')

step "status and history"
expect_rc 0 "status" ctl_to "$T/status.json" --output json status "$id"
check "status says completed" [ "$(json_get "$T/status.json" 'd["state"]')" = completed ]
check "every node has its agent transaction id" \
        [ "$(json_get "$T/status.json" 'sum(1 for n in d["nodes"] if n.get("tx"))')" = $N ]
ctl history > "$T/history.txt"
check "history lists the rollout" grep -q "^$id .*completed .*mtu-9000" "$T/history.txt"

step "apply again: nothing to do"
expect_rc 0 "second rollout is a no-op" ctl_to "$T/again.json" --output json apply "$T/mtu.json" --wave-size 100%
check "no node changed" [ "$(json_get "$T/again.json" 'sum(n["changes"] for n in d["nodes"])')" = 0 ]

step "drift after a hand edit on two nodes"
expect_rc 0 "no drift yet" ctl drift
ip -n "$(node_ns 3)" link set nt0 mtu 1500
ip -n "$(node_ns 17)" link set nt0 mtu 4000
expect_rc 1 "drift found" ctl_to "$T/drift.json" --output json drift
check "exactly two drifted" [ "$(json_get "$T/drift.json" 'd["drifted"]')" = 2 ]
check "the right two" [ "$(json_get "$T/drift.json" '",".join(n["name"] for n in d["nodes"] if n["drifted"])')" = node003,node017 ]
check "drift scan stored" [ "$(sqlite3 "$T/ctl.db" 'select drifted from drift_scans order by id desc limit 1')" = 2 ]

step "rollback of the rollout's nodes"
ip -n "$(node_ns 3)" link set nt0 mtu 9000
ip -n "$(node_ns 17)" link set nt0 mtu 9000
expect_rc 0 "fleet rollback" ctl_to "$T/rollback.json" --output json rollback --rollout "$id"
check "all $N restored" [ "$(json_get "$T/rollback.json" 'd["summary"]["restored"]')" = $N ]
check "the summary counts them" [ "$(json_get "$T/rollback.json" 'd["message"]')" = \
        "rollback of rollout $id: $N restored, 0 already there, 0 refused, 0 failed; every node it touched is at its revision before it" ]
for ((i = 1; i <= N; i++)); do
        [ "$(node_mtu $i)" = 1500 ] || fail "node $i has mtu $(node_mtu $i) after rollback, expected 1500"
done
echo "ok: every node is back at mtu 1500"
agent_history 5 "$T/h5-before.json"
expect_rc 0 "the same rollback again" ctl_to "$T/rollback2.json" --output json rollback --rollout "$id"
check "a no-op: all $N already there" [ "$(json_get "$T/rollback2.json" 'd["summary"]["already_there"]')" = $N ]
agent_history 5 "$T/h5-after.json"
check "no transaction on node005" [ "$(json_get "$T/h5-before.json" 'd["transactions"][0]["tx"]')" = \
        "$(json_get "$T/h5-after.json" 'd["transactions"][0]["tx"]')" ]

step "rollback --to the first revision"
expect_rc 2 "--to needs a number" ctl rollback --to first
rc=0; ctl_to "$T/rbto-bad.json" --output json rollback --to 999 || rc=$?
check "unknown revision everywhere: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "no node rolled back" [ "$(json_get "$T/rbto-bad.json" 'd["summary"].get("rolled_back", 0)')" = 0 ]
check "the node error says why" grep -q "revision 999 does not exist" "$T/rbto-bad.json"
check "nothing changed" [ "$(node_mtu 1)" = 1500 ]
expect_rc 0 "fleet rollback --to 1" ctl_to "$T/rbto.json" --output json rollback --to 1
check "all $N rolled back" [ "$(json_get "$T/rbto.json" 'd["summary"]["rolled_back"]')" = $N ]
for ((i = 1; i <= N; i++)); do
        [ "$(node_mtu $i)" = 9000 ] || fail "node $i has mtu $(node_mtu $i) after rollback --to 1, expected 9000"
done
echo "ok: every node is at mtu 9000 again (revision 1)"
