#!/usr/bin/env bash
# Controller: rollouts an operator steers, on 12 real agents in racks r0-r3 (node I in
# rack r(I % 4)) with the example inventory's label "canary": "true" on node007.
# - --canary-selector canary=true: node007, not the first node, is the canary wave (wave 1);
# - --wave-by rack: no wave mixes two racks; --max-unavailable 1 counts per rack: one
#   node failing in each of two racks completes the rollout (exit 3, both named and
#   restored by their agents), two failing in one rack halt it there (exit 1), later
#   racks untouched (a node fails its gate: tbf 200 Mbit/s on its veth against
#   min_gbps 0.5, as in ctl-halt.sh);
# - a node that finds the policy invalid (its interface is not there) stops the
#   rollout in its pre-flight: exit 2 naming the node and the JSON path, no node
#   changed;
# - --max-regression-pct and --probe-duration-ms are recorded with the rollout and
#   are what each agent's gate used; a --timeout shorter than the policy's
#   measurements does not lose their answers.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd sqlite3 tc
N=12
GATE='{ "probe": "tcp", "peer": "10.88.255.1:18515", "duration_ms": 500, "settle_ms": 0, "runs": 1, "min_gbps": 0.5, "max_regression_pct": 90, "on_inconclusive": "fail" }'
shape() { tc -n "$(node_ns "$1")" qdisc add dev nt0 root tbf rate 200mbit burst 32k latency 10ms; }
unshape() { tc -n "$(node_ns "$1")" qdisc del dev nt0 root; }

step "fleet of $N agents in 4 racks, node007 labelled canary"
fleet_up $N
python3 - "$T/inventory.json" <<'PY'
import json, sys
inv = json.load(open(sys.argv[1]))
inv["nodes"][6]["labels"]["canary"] = "true"
json.dump(inv, open(sys.argv[1], "w"), indent=1)
PY
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' "$GATE"
policy "$T/mtu2.json" mtu-4000 4000 '{ "role": "gpu" }' "$GATE"
policy "$T/plain.json" mtu-4000 4000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
# rack_of NAME: the rack the inventory gives the node.
rack_of() { json_get "$T/inventory.json" "[n['labels']['rack'] for n in d['nodes'] if n['name'] == '$1'][0]"; }
state_in() { json_get "$1" "[n['state'] for n in d['nodes'] if n['name'] == '$2'][0]"; }

step "canary by label, waves by rack, one failure in each of two racks: within budget"
shape 5
shape 6
expect_rc 3 "rollout completes with failed nodes" ctl_to "$T/a.json" --output json apply "$T/mtu.json" \
        --canary-selector canary=true --wave-by rack --wave-size 100% --max-unavailable 1 --confirm-timeout 600
check "the canary wave is node007 alone" [ "$(json_get "$T/a.json" '[n["name"] for n in d["nodes"] if n["wave"] == 1]')" = "['node007']" ]
python3 - "$T/a.json" "$T/inventory.json" <<'PY' || fail "a wave mixes racks, or a rack is split"
import json, sys
d, inv = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rack = {n["name"]: n["labels"]["rack"] for n in inv["nodes"]}
waves = {}
for n in d["nodes"]:
    if n["wave"] > 1:
        waves.setdefault(n["wave"], set()).add(rack[n["name"]])
assert all(len(r) == 1 for r in waves.values()), waves
assert len(waves) == 4, waves           # one wave per rack at --wave-size 100%
print("waves:", {w: sorted(r) for w, r in sorted(waves.items())})
PY
echo "ok: every wave after the canary is one whole rack"
check "rollout completed" [ "$(json_get "$T/a.json" 'd["state"]')" = completed ]
check "node005 (rack $(rack_of node005)) failed" [ "$(state_in "$T/a.json" node005)" = failed ]
check "node006 (rack $(rack_of node006)) failed" [ "$(state_in "$T/a.json" node006)" = failed ]
check "10 committed" [ "$(json_get "$T/a.json" 'd["summary"]["committed"]')" = 10 ]
check "the budget is per rack" grep -q "budget 1 per 'rack'" "$T/a.json"
check "the failed nodes are back at 1500, the others at 9000" \
        [ "$(node_mtu 5)$(node_mtu 6)$(node_mtu 7)$(node_mtu 12)" = 1500150090009000 ]
check "options recorded" [ "$(sqlite3 "$T/ctl.db" "select json_extract(opts, '\$.canary_selector') || ' ' || json_extract(opts, '\$.wave_by') from rollouts order by id desc limit 1")" = "canary=true rack" ]
unshape 5
unshape 6

step "two failures in one rack halt the rollout in that rack"
shape 1
shape 9                          # both rack r1, the first rack after the canary
expect_rc 1 "rollout halts" ctl_to "$T/b.json" --output json apply "$T/mtu2.json" \
        --canary-selector canary=true --wave-by rack --wave-size 100% --max-unavailable 1 --confirm-timeout 600
check "rollout halted" [ "$(json_get "$T/b.json" 'd["state"]')" = halted ]
check "node005, their rack-mate, cancelled" [ "$(state_in "$T/b.json" node005)" = cancelled ]
check "the other racks skipped" [ "$(json_get "$T/b.json" 'd["summary"]["skipped"]')" = 8 ]
check "rack r1 back at its old MTUs, a later rack untouched, the canary kept" \
        [ "$(node_mtu 1) $(node_mtu 5) $(node_mtu 9) $(node_mtu 2) $(node_mtu 7)" = "9000 1500 9000 9000 4000" ]
unshape 1
unshape 9

step "a node that finds the policy invalid stops the rollout in its pre-flight"
ip -n "$(node_ns 10)" link set nt0 name xt0
rc=0; ctl apply "$T/plain.json" --canary 1 --wave-size 100% > "$T/c.out" 2> "$T/c.err" || rc=$?
check "exit 2 (got $rc)" [ "$rc" = 2 ]
check "it names the node and the JSON path" \
        grep -q "node node010 refuses the policy: \$.targets.interfaces\[0\]: no interface matches 'nt0' (interfaces here: xt0)" "$T/c.err"
check "nothing changed anywhere" [ "$(node_mtu 2) $(node_mtu 3)" = "9000 9000" ]
rc=0; ctl --output json plan "$T/plain.json" > "$T/c-plan.json" || rc=$?
check "plan: invalid there too, exit 2 (got $rc)" [ "$rc" = 2 ]
check "plan names the path, not 'unreachable'" [ "$(json_get "$T/c-plan.json" \
        '[(n.get("invalid"), n.get("path")) for n in d["nodes"] if n["name"] == "node010"][0]')" = "(True, '\$.targets.interfaces[0]')" ]
ip -n "$(node_ns 10)" link set xt0 name nt0

step "the gate's threshold and probe length for one run, and a --timeout shorter than the probes"
policy "$T/probe.json" mtu-8000 8000 '{ "rack": "r0" }' \
        '{ "probe": "tcp", "peer": "10.88.255.1:18515", "duration_ms": 1000, "runs": 1, "settle_ms": 0, "max_regression_pct": 90, "on_inconclusive": "fail" }'
expect_rc 2 "an override for a policy that measures nothing" ctl apply "$T/plain.json" --max-regression-pct 30
ctl_to "$T/d.json" --timeout 3 --output json apply "$T/probe.json" --canary 1 --wave-size 100% \
        --max-regression-pct 95 --probe-duration-ms 2500 --confirm-timeout 600 2> "$T/d.err" ||
        fail "the rollout with a short --timeout failed: $(tail -3 "$T/d.err")"
check "the short --timeout is raised, and says so" grep -q "each apply waits that long for its answer, not --timeout 3 s" "$T/d.err"
check "3 committed, their answers kept" [ "$(json_get "$T/d.json" 'd["summary"]["committed"]')" = 3 ]
check "their changes counted" [ "$(json_get "$T/d.json" 'sum(n["changes"] for n in d["nodes"])')" = 3 ]
check "the overrides recorded" [ "$(sqlite3 "$T/ctl.db" "select json_extract(opts, '\$.max_regression_pct') || ' ' || json_extract(opts, '\$.probe_duration_ms') from rollouts order by id desc limit 1")" = "95 2500" ]
check "the document its agents got has them" [ "$(sqlite3 "$T/ctl.db" "select json_extract(policy_doc, '\$.verify.max_regression_pct') || ' ' || json_extract(policy_doc, '\$.verify.duration_ms') from rollouts order by id desc limit 1")" = "95 2500" ]
agent_history 4 "$T/h4.json" || fail "cannot read node004's history"
check "node004's gate allowed 95%" [ "$(json_get "$T/h4.json" \
        '[int(t["probe"]["gate"]["max_regression_pct"]) for t in d["transactions"] if t["policy"] == "mtu-8000"][0]')" = 95 ]
check "node004 measured 2 x 2.5 s, not 2 x 1 s (its transaction took at least 5 s)" [ "$(json_get "$T/h4.json" \
        '[t["finished_ms"] - t["started_ms"] >= 5000 for t in d["transactions"] if t["policy"] == "mtu-8000"][0]')" = True ]
