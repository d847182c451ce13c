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
check "naming the line, the column and the JSON path" grep -q "bad.yaml:10:3: \$.spec.mtu: mtu 99999 out of range 68-9216" "$T/bad.out"
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

step "an unreachable node is named"
kill "$AGENT_PID_3"
wait_for 20 sh -c "! ip netns exec '$(node_ns 3)' ss -ltnH 'sport = :$FLEET_PORT' | grep -q LISTEN" || fail "agent 3 still listens"
rc=0; ctl --timeout 3 state --selector rack=r3 >"$T/s4.txt" 2>&1 || rc=$?
cat "$T/s4.txt"
check "exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "node003: unreachable, and why, said once" sh -c "grep -qE '^node003 +unreachable: cannot connect \\(' '$T/s4.txt' && ! grep -q 'unreachable: unreachable' '$T/s4.txt'"
check "state stored nothing (no drift scan)" [ "$(ctl_db 'select count(*) from drift_scans')" = 1 ]
