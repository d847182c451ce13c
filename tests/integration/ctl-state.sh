#!/usr/bin/env bash
# nettunectl state, drift and YAML on a fleet of three real agents (one netns each,
# mTLS): a YAML policy planned and rolled out (the agents get its JSON), then one
# node's MTU changed by hand; `state` shows every node's live knobs in one table with
# the drifted cell marked and the difference listed (exit 1), --selector picks nodes,
# --output json has the same, an unreachable node is named (exit 3); `drift` prints
# the agents' own lines, not their JSON.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
N=3

step "fleet of $N agents; a YAML policy planned and rolled out"
fleet_up $N
cat >"$T/mtu.yaml" <<'YAML'
# jumbo frames on the GPU nodes' fabric port
apiVersion: nettune/v1
kind: Policy
metadata:
  name: mtu-9000
selector: { role: gpu }
targets:
  interfaces: [nt0]
spec:
  mtu: 9000
verify:
  probe: none
  settle_ms: 0
YAML
sed 's/  mtu: 9000/  mtu: 99999/' "$T/mtu.yaml" >"$T/bad.yaml"
rc=0; ctl plan "$T/bad.yaml" >"$T/bad.out" 2>&1 || rc=$?
check "an invalid YAML policy: exit 2 before any node is asked (got $rc)" [ "$rc" -eq 2 ]
check "naming the line, the column and the JSON path" grep -q "bad.yaml:10:3: \$.spec.mtu: mtu 99999 out of range 68-9978" "$T/bad.out"
expect_rc 0 "plan of the YAML policy" ctl_to "$T/plan.txt" plan "$T/mtu.yaml"
cat "$T/plan.txt"
check "plan: every node changes its mtu, from -> to" [ "$(grep -c '^  nt0 mtu: 1500 -> 9000$' "$T/plan.txt")" = $N ]
expect_rc 0 "rollout of the YAML policy" ctl_to "$T/apply.json" --output json apply "$T/mtu.yaml" --canary 1 \
        --wave-size 100% --confirm-timeout 30
check "every node at 9000" sh -c "[ '$(node_mtu 1)$(node_mtu 2)$(node_mtu 3)' = 900090009000 ]"
check "waves count from 1 in JSON, a node's tx is a number" \
        [ "$(json_get "$T/apply.json" '[(n["wave"], type(n["tx"]).__name__) for n in d["nodes"]]')" = \
          "[(1, 'int'), (2, 'int'), (2, 'int')]" ]
check "the agent journalled the JSON of it" sh -c "ip netns exec '$(node_ns 1)' '$AGENT' --config '$T/n1/agent.json' \
        --output json history | python3 -c 'import json,sys; t=json.load(sys.stdin)[0]; sys.exit(t[\"policy\"] != \"mtu-9000\")'"

step "state: one table, in sync"
expect_rc 0 "state" ctl_to "$T/s0.txt" state
cat "$T/s0.txt"
check "a header with the knobs" grep -q "^NODE  *TARGET  *MTU" "$T/s0.txt"
for i in 1 2 3; do
        check "node00$i nt0 9000, its committed policy@revision" grep -qE "^node00$i +nt0 +9000 +mtu-9000@1 *$" "$T/s0.txt"
done
check "the summary" grep -qx "state: 3 nodes, 0 drifted, 0 unreachable" "$T/s0.txt"

step "node 2's MTU changed by hand: the cell is marked, the difference listed"
ip -n "$(node_ns 2)" link set nt0 mtu 1500
rc=0; ctl state >"$T/s1.txt" 2>"$T/s1.err" || rc=$?
cat "$T/s1.txt"
check "exit 1: drift found (got $rc)" [ "$rc" -eq 1 ]
check "node002's cell: 1500*" grep -qE "^node002 +nt0 +1500\* +mtu-9000@1 *$" "$T/s1.txt"
check "the others unmarked" sh -c "grep -qE '^node001 +nt0 +9000 +mtu' '$T/s1.txt' && grep -qE '^node003 +nt0 +9000 +mtu' '$T/s1.txt'"
check "the difference as the agent says it" grep -qx "  node002 nt0 mtu: 1500 (committed: 9000)" "$T/s1.txt"
check "the summary counts it" grep -qx "state: 3 nodes, 1 drifted, 0 unreachable" "$T/s1.txt"
rc=0; ctl --output json state >"$T/s1.json" || rc=$?
check "--output json: exit 1 too (got $rc)" [ "$rc" -eq 1 ]
check "--output json: node002's mtu drifted, a number" \
        [ "$(json_get "$T/s1.json" '[(n["name"], n["targets"][0]["state"]["mtu"], n["targets"][0]["drifted"]) for n in d["nodes"]]')" = \
          "[('node001', 9000, []), ('node002', 1500, ['mtu']), ('node003', 9000, [])]" ]
check "--output json: the drift typed (from 1500, to 9000)" \
        [ "$(json_get "$T/s1.json" '[(c["from"], c["to"]) for c in d["nodes"][1]["drift"]]')" = "[(1500, 9000)]" ]
expect_rc 0 "--selector rack=r1: node001 alone, in sync" ctl_to "$T/s2.txt" state --selector rack=r1
check "one row" [ "$(grep -c '^node' "$T/s2.txt")" = 1 ]
expect_rc 1 "--label (the alias) rack=r2: node002, drifted" ctl_to "$T/s3.txt" state --label rack=r2
expect_rc 2 "a selector nobody carries" ctl state --selector rack=r9

step "drift prints the agents' lines"
rc=0; ctl drift >"$T/d.txt" || rc=$?
cat "$T/d.txt"
check "exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "node002: drift, then its agent's line, naming the field's owner" \
        sh -c "grep -A1 '^node002: drift' '$T/d.txt' | grep -qx \"  nt0 mtu: 1500 (committed: 9000) by policy 'mtu-9000' revision 1\""
check "no JSON in the text" sh -c "! grep -q '{' '$T/d.txt'"

step "layers on the fleet: a second policy over mtu-9000 on node001; intent names each field's owner"
ip -n "$(node_ns 2)" link set nt0 mtu 9000
policy "$T/l9000.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
policy "$T/l4000.json" mtu-4000 4000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
expect_rc 0 "plan of mtu-4000 on rack r1" ctl_to "$T/lp.txt" plan "$T/l4000.json" --selector rack=r1
cat "$T/lp.txt"
check "plan: the change names the layer that will own the field" grep -qx "  nt0 mtu: 9000 -> 4000 by policy 'mtu-4000'" "$T/lp.txt"
expect_rc 0 "plan --output json" ctl_to "$T/lp.json" --output json plan "$T/l4000.json" --selector rack=r1
check "plan --output json: owner {policy, revision null: the version this change commits}" \
        [ "$(json_get "$T/lp.json" '[c["owner"] for c in d["nodes"][0]["changes"]]')" = "[{'policy': 'mtu-4000', 'revision': None}]" ]
expect_rc 0 "apply mtu-4000 (overrides mtu-9000) to rack r1" ctl_to "$T/la.json" --yes --output json apply \
        "$T/l4000.json" --selector rack=r1 --canary 0 --wave-size 100%
check "apply --output json: what each node's pre-flight planned, owners named" \
        [ "$(json_get "$T/la.json" '[(p["name"], p["changes"]) for p in d["planned"]]')" = "[('node001', [\"nt0 mtu: 9000 -> 4000 by policy 'mtu-4000'\"])]" ]
check "node001 at 4000, the others at 9000" [ "$(node_mtu 1)$(node_mtu 2)$(node_mtu 3)" = 400090009000 ]
expect_rc 0 "intent --node node001" ctl_to "$T/i1.txt" intent --node node001
cat "$T/i1.txt"
check "both layers listed" grep -qx "node001: layer 'mtu-9000' revision 1, layer 'mtu-4000' revision 2" "$T/i1.txt"
check "the field, its value, live value and owner" grep -qx "  nt0 mtu: 4000 (live 4000) policy 'mtu-4000' revision 2" "$T/i1.txt"
expect_rc 0 "intent --output json" ctl_to "$T/i.json" --output json intent
check "--output json: target, key, value, live, owner {policy, revision} per node" \
        [ "$(json_get "$T/i.json" '[(n["name"], [(f["target"], f["key"], f["value"], f["live"], f["owner"]["policy"], f["owner"]["revision"]) for f in n["fields"]]) for n in d["nodes"]]')" = \
          "[('node001', [('nt0', 'mtu', 4000, 4000, 'mtu-4000', 2)]), ('node002', [('nt0', 'mtu', 9000, 9000, 'mtu-9000', 1)]), ('node003', [('nt0', 'mtu', 9000, 9000, 'mtu-9000', 1)])]" ]

step "a policy that declares a committed layer's field without overriding it: the pre-flight refuses, nothing changed"
cat >"$T/rogue.json" <<'JSON'
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "mtu-rogue" }, "selector": { "role": "gpu" },
  "targets": { "interfaces": ["nt0"] }, "spec": { "mtu": 2000 }, "verify": { "probe": "none" } }
JSON
rc=0; ctl --yes apply "$T/rogue.json" >"$T/rogue.out" 2>&1 || rc=$?
cat "$T/rogue.out"
check "exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "node001 refuses it naming field_owned, the field, the target, the owner now and every layer that declares it" \
        grep -q "node001 refuses the policy: .*field_owned: field 'mtu' of interface 'nt0' is owned by policy 'mtu-4000' (revision 2) and declared by 2 committed layers it does not override ('mtu-9000', 'mtu-4000')" "$T/rogue.out"
check "node002 names its one owner" \
        grep -q "node002 refuses the policy: .*field_owned: field 'mtu' of interface 'nt0' is owned by policy 'mtu-9000' (revision 1); list 'mtu-9000' in metadata.overrides" "$T/rogue.out"
check "nothing changed" [ "$(node_mtu 1)$(node_mtu 2)$(node_mtu 3)" = 400090009000 ]
sed 's/"name": "mtu-rogue" }/"name": "mtu-rogue", "overrides": ["mtu-4000"] }/' "$T/rogue.json" >"$T/rogue2.json"
rc=0; ctl --yes apply "$T/rogue2.json" --selector rack=r1 >"$T/rogue2.out" 2>&1 || rc=$?
cat "$T/rogue2.out"
check "overriding the owner alone is not enough: exit 2 (got $rc), mtu-9000 named" \
        grep -q "node001 refuses the policy: .*field_owned: field 'mtu' of interface 'nt0' is owned by policy 'mtu-4000' (revision 2) and declared by 1 committed layers it does not override ('mtu-9000')" "$T/rogue2.out"
check "nothing changed" [ "$(node_mtu 1)" = 4000 ]

step "a bare fleet rollback says what it would not undo: exit 2, the newest rollouts listed, nothing changed"
rollouts=$(ctl_db 'select count(*) from rollouts')
rc=0; ctl --yes rollback >"$T/rb.out" 2>&1 || rc=$?
cat "$T/rb.out"
check "exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "it names the ways to say it" grep -q -- "--rollout ID .*--policy NAME" "$T/rb.out"
check "it lists the newest rollout" grep -qE "^  [0-9]+ +apply +completed +mtu-4000" "$T/rb.out"
check "no rollout recorded" [ "$(ctl_db 'select count(*) from rollouts')" = "$rollouts" ]
check "nothing changed" [ "$(node_mtu 1)$(node_mtu 2)$(node_mtu 3)" = 400090009000 ]

step "rollback --policy mtu-4000: the nodes that hold it (node001) take it out, back to mtu-9000's value"
expect_rc 0 "rollback --policy mtu-4000" ctl --yes rollback --policy mtu-4000 2>"$T/rbp.err"
cat "$T/rbp.err"
check "the others are named and left out" grep -q "policy 'mtu-4000' is not committed on node002, node003: left out" "$T/rbp.err"
check "node001 back at 9000" [ "$(node_mtu 1)$(node_mtu 2)$(node_mtu 3)" = 900090009000 ]

step "remove mtu-4000 as a rollout (canary, then a wave; each node's step pending until confirmed)"
expect_rc 0 "apply mtu-4000 to every node" ctl --yes apply "$T/l4000.json" --canary 1 --wave-size 100%
check "every node at 4000" [ "$(node_mtu 1)$(node_mtu 2)$(node_mtu 3)" = 400040004000 ]
expect_rc 0 "remove mtu-4000" ctl_to "$T/rm.json" --yes --output json remove mtu-4000 --canary 1 --wave-size 100% \
        --confirm-timeout 30
check "a rollout of kind remove, in 2 waves, every node committed" \
        [ "$(json_get "$T/rm.json" '(d["kind"], d["policy"], len(d["waves"]), d["summary"]["committed"])')" = "('remove', 'mtu-4000', 2, 3)" ]
check "every node back at mtu-9000's value" [ "$(node_mtu 1)$(node_mtu 2)$(node_mtu 3)" = 900090009000 ]
check "node002's agent journaled one remove, committed after its confirm" sh -c "ip netns exec '$(node_ns 2)' '$AGENT' \
        --config '$T/n2/agent.json' --output json history | python3 -c 'import json,sys; t=json.load(sys.stdin)[0]; sys.exit((t[\"kind\"], t[\"state\"], t[\"policy\"]) != (\"remove\", \"committed\", \"mtu-4000\"))'"
ctl history > "$T/hist.txt"
check "history lists it" grep -qE "^[0-9]+ +remove +completed +mtu-4000" "$T/hist.txt"
rc=0; ctl --yes remove mtu-4000 >"$T/rm2.out" 2>&1 || rc=$?
check "removing it again: exit 2, nothing changed (got $rc)" [ "$rc" -eq 2 ]
check "it says no node holds it" grep -q "no selected node has policy 'mtu-4000' committed" "$T/rm2.out"

step "remove the last layer on node001: its MTU back to the value before nettune"
expect_rc 0 "remove mtu-9000 --selector rack=r1" ctl --yes remove mtu-9000 --selector rack=r1
check "node001 at 1500, the others at 9000" [ "$(node_mtu 1)$(node_mtu 2)$(node_mtu 3)" = 150090009000 ]
expect_rc 0 "intent --node node001" ctl_to "$T/i2.txt" intent --node node001
check "nothing managed there" grep -qx "node001: no committed policy: nettune manages nothing here" "$T/i2.txt"

step "an unreachable node is named"
kill "$AGENT_PID_3"
wait_for 20 sh -c "! ip netns exec '$(node_ns 3)' ss -ltnH 'sport = :$FLEET_PORT' | grep -q LISTEN" || fail "agent 3 still listens"
rc=0; ctl --timeout 3 state --selector rack=r3 >"$T/s4.txt" 2>&1 || rc=$?
cat "$T/s4.txt"
check "exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "node003: unreachable, and why, said once" sh -c "grep -qE '^node003 +unreachable: cannot connect \\(' '$T/s4.txt' && ! grep -q 'unreachable: unreachable' '$T/s4.txt'"
check "state stored nothing (no drift scan)" [ "$(ctl_db 'select count(*) from drift_scans')" = 1 ]
