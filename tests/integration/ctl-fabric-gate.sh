#!/usr/bin/env bash
# Controller: the fabric gate (verify.fabric) halts a rollout that every node's own gate
# passed. Six real agents on a jumbo-frame bridge; an MTU change whose side effect on
# node 3 (the test hook of its agent, between apply and its post-change probe) throttles
# the switch port toward node 3 to 50 Mbit/s. Node 3's own probe (its traffic toward the
# reference responder) does not see it; the ring over the wave and two committed
# neighbours does. The wave is halted before anything is confirmed and its nodes go
# back through the halt path; the canary stays committed, later waves are never touched.
# Margins: the per-node gate allows 90% (it must pass on a busy machine), the fabric
# gate 75%, against a hop throttled to about 2% of its baseline.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd tc python3
N=6
FLEET_PROBE_EXTRA='"allow": ["10.88.0.0/16"], "max_clients": 8'

step "fleet of $N agents on a jumbo-frame bridge"
fleet_up $N
ip -n "$HUB" link set ntbr mtu 9000
for ((i = 1; i <= N; i++)); do ip -n "$HUB" link set "h$NT_ID-$i" mtu 9000; done
kill "$AGENT_PID_3"; wait "$AGENT_PID_3" 2>/dev/null || true
NETTUNE_TEST_HOOK_AFTER_APPLY="tc -n $HUB qdisc replace dev h$NT_ID-3 root tbf rate 50mbit burst 32k latency 10ms" \
        fleet_start_agent 3 2>>"$T/agents.log"
wait_for 20 agent_up 3 || fail "agent 3 did not come back with its hook"
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' \
        '{ "probe": "tcp", "peer": "10.88.255.1:18515", "duration_ms": 1000, "settle_ms": 0, "runs": 1,
           "max_regression_pct": 90,
           "fabric": { "pattern": "ring", "duration_ms": 1500, "max_regression_pct": 75, "mode": "tcp" } }'

step "a rollout the gate cannot measure is refused"
rc=0; ctl apply "$T/mtu.json" --canary 1 --wave-size 2 > /dev/null 2> "$T/refused.err" || rc=$?
check "a one-node canary without neighbours: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "saying why" grep -q "verify.fabric: wave 1 has 1 node and 0 neighbours join it: a ring needs at least 2 nodes" "$T/refused.err"
rc=0; ctl apply "$T/mtu.json" --canary 2 --wave-size 2 --confirm-timeout 20 > /dev/null 2> "$T/refused2.err" || rc=$?
check "a confirm timeout shorter than the gate: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "saying why" grep -q "confirm timeout 20 s is shorter than the fabric gate may take" "$T/refused2.err"
check "nothing was changed" [ "$(node_mtu 1)$(node_mtu 2)" = 15001500 ]

step "apply: canary 2, waves of 2, the ring over each wave and 2 neighbours"
# The long confirm timeout is never waited for: the pending nodes are expired below.
# --parallel 1: node steps one at a time, yet every node's flows start together.
expect_rc 1 "the fabric gate halts the rollout" ctl_to "$T/apply.json" --output json --parallel 1 apply "$T/mtu.json" \
        --canary 2 --wave-size 2 --confirm-timeout 600 --fabric-neighbours 2
state_of() { json_get "$T/apply.json" "[n['state'] for n in d['nodes'] if n['name']=='$1'][0]"; }
node_of() { json_get "$T/apply.json" "[n for n in d['nodes'] if n['name']=='$1'][0]$2"; }
json_get "$T/apply.json" '"\n".join("  wave %d %s: %s" % (w["wave"], ",".join(w["scope"]), w["gate"]["reason"]) for w in d["fabric"])'
check "rollout halted" [ "$(json_get "$T/apply.json" 'd["state"]')" = halted ]
check "the message names the fabric gate and the slowest hop" \
        [ "$(json_get "$T/apply.json" '"halted by the fabric gate of wave 2: ring busbw" in d["message"] and "slowest node002 -> node003" in d["message"]')" = True ]
check "wave 1 (the canary) passed the fabric gate" [ "$(json_get "$T/apply.json" 'd["fabric"][0]["gate"]["verdict"]')" = pass ]
check "its ring: the wave and its two untouched neighbours" \
        [ "$(json_get "$T/apply.json" '",".join(d["fabric"][0]["scope"])')" = node001,node002,node003,node004 ]
check "wave 2 regressed" [ "$(json_get "$T/apply.json" 'd["fabric"][1]["gate"]["verdict"]')" = regression ]
check "its ring: the wave and the two committed canary nodes" \
        [ "$(json_get "$T/apply.json" '",".join(d["fabric"][1]["scope"])')" = node001,node002,node003,node004 ]
check "the slowest hop after the change is node002 -> node003" \
        [ "$(json_get "$T/apply.json" '"%s>%s" % (d["fabric"][1]["post"]["figures"]["slowest"]["from"], d["fabric"][1]["post"]["figures"]["slowest"]["to"])')" = "node002>node003" ]
check "the post-change busbw fell far below the baseline (< 25%)" \
        [ "$(json_get "$T/apply.json" 'd["fabric"][1]["gate"]["post"] < 0.25 * d["fabric"][1]["gate"]["baseline"]')" = True ]
for n in node003 node004; do
        check "$n passed its own gate (pending, post-change rate measured)" \
                [ "$(node_of $n '["exit_code"]')-$(node_of $n '["post_gbps"] is not None')" = 4-True ]
done
agent_history 3 "$T/hist3.json" || fail "no history from node 3"
check "node 3's own gate verdict: pass" \
        [ "$(json_get "$T/hist3.json" '[t for t in d["transactions"] if t["kind"] == "apply"][0]["probe"]["gate"]["verdict"]')" = pass ]
check "the canary stays committed" [ "$(state_of node001)$(state_of node002)" = committedcommitted ]
check "later waves never touched" [ "$(state_of node005)$(state_of node006)" = skippedskipped ]
check "nodes 5 and 6 still at 1500" [ "$(node_mtu 5)$(node_mtu 6)" = 15001500 ]

step "the halted wave goes back"
for i in 3 4; do
        s=$(state_of "node00$i")
        # The halt cancels the wave's pending changes: their agents restore them at once.
        case $s in cancelled|rolled_back) echo "ok: node00$i $s" ;; *) fail "node00$i is $s after the halt" ;; esac
done
wait_for 60 mtu_is 3 1500 || fail "node 3 still has mtu $(node_mtu 3)"
wait_for 60 mtu_is 4 1500 || fail "node 4 still has mtu $(node_mtu 4)"
echo "ok: nodes 3 and 4 are back at 1500; the canary keeps 9000 ($(node_mtu 1), $(node_mtu 2))"
ctl status > "$T/status.txt"
check "status reports the fabric halt" grep -q "halted by the fabric gate of wave 2" "$T/status.txt"
tc -n "$HUB" qdisc del dev "h$NT_ID-3" root

step "a fleet rollback's gates measure against their neighbours' responders, not all against the one peer"
# The canary's MTU changed by hand: rollback --to 1 (mtu-9000, gated by its tcp probe) puts it back.
# Nodes 5 and 6 have no revision 1 and fail; what counts is where each gate probed.
for i in 1 2; do ip -n "$(node_ns $i)" link set nt0 mtu 1500; done
expect_rc 3 "rollback --to 1" ctl_to "$T/rb.json" --output json --yes rollback --to 1 --selector 'rack in (r1,r2)'
check "the canary back at 9000" [ "$(node_mtu 1)$(node_mtu 2)" = 90009000 ]
peer_of() {     # peer_of I: the peer node I's newest rollback probed
        agent_history "$1" "$T/rbh$1.json" && json_get "$T/rbh$1.json" \
                '[t for t in d["transactions"] if t["kind"] == "rollback"][0]["probe"]["baseline"]["path"]["peer"]'
}
p1=$(peer_of 1); p2=$(peer_of 2)
echo "node001's gate probed $p1, node002's $p2"
check "node001's gate: node002's responder" [ "$p1" = "$(node_ip 2):18515" ]
check "node002's gate: the next node's responder, not node001's and not the policy's" \
        [ "$p2" != "10.88.255.1:18515" ] && [ "$p2" != "$p1" ]
