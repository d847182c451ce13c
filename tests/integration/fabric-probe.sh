#!/usr/bin/env bash
# The fabric probe across 6 real agents on a bridge (one netns each, mTLS): ring,
# incast and all-to-all flows started at one agreed time by `nettunectl probe`, and the
# seed's signature — a tbf rate limit on the switch port toward node 3 (the hub's veth
# to it) makes the ring report node002 -> node003 as its slowest hop, with busbw bounded
# by it, while every node's point-to-point probe run alone looks fine. Then the agent's
# fabric API (clock, refusals) and failures named by node. Rates are compared by ratio
# with wide margins, never with absolute figures near a limit, so a busy machine
# (stress-ng beside it) does not change the verdicts.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd tc python3
N=6
FLEET_PROBE_EXTRA='"allow": ["10.88.0.0/16"], "max_clients": 8'

step "fleet of $N agents, responders open to the fleet's network"
fleet_up $N
# fab FILE ARGS...: nettunectl probe --output json into FILE.
fab() { local f=$1; shift; ctl --output json probe --mode tcp --duration-ms 1500 "$@" > "$f"; }
fig() { json_get "$1" "d['figures']$2"; }

step "healthy ring"
expect_rc 0 "ring over every node" fab "$T/ring0.json" --pattern ring
check "6 hops, all measured" [ "$(json_get "$T/ring0.json" 'sum(1 for f in d["flows"] if f["ok"])')" = 6 ]
check "hops follow the inventory, the last back to the first" \
        [ "$(json_get "$T/ring0.json" '",".join(f["from"][-1] + f["to"][-1] for f in d["flows"])')" = 12,23,34,45,56,61 ]
check "busbw is the slowest hop" \
        [ "$(json_get "$T/ring0.json" 'd["figures"]["busbw_gbps"] == min(f["gbps"] for f in d["flows"])')" = True ]
check "algbw = busbw x n / 2(n-1)" \
        [ "$(json_get "$T/ring0.json" 'abs(d["figures"]["algbw_gbps"] - d["figures"]["busbw_gbps"] * 6 / 10) < 1e-9')" = True ]
check "every node reports its link (nt0, a veth: 10 Gb/s)" \
        [ "$(json_get "$T/ring0.json" 'all(n["interface"] == "nt0" and n["link_gbps"] == 10 for n in d["nodes"])')" = True ]
# One kernel clock in every netns: the comparison must find no skew beyond its own error bar.
check "clock skew within its error bar" \
        [ "$(json_get "$T/ring0.json" 'all(abs(n["skew_ms"]) <= n["skew_err_ms"] + 1 for n in d["nodes"])')" = True ]
check "every flow started at the agreed time (within its tolerance)" \
        [ "$(json_get "$T/ring0.json" 'all(0 <= f["late_ms"] <= 500 for f in d["flows"])')" = True ]

step "tbf 50 Mbit/s on the switch port toward node 3"
tc -n "$HUB" qdisc add dev "h$NT_ID-3" root tbf rate 50mbit burst 32k latency 10ms
expect_rc 0 "ring" fab "$T/ring.json" --pattern ring
json_get "$T/ring.json" '"\n".join("  %s -> %s %.3f" % (f["from"], f["to"], f["gbps"]) for f in d["flows"])'
check "the slowest hop is node002 -> node003" \
        [ "$(fig "$T/ring.json" '["slowest"]["from"] + ">" + d["figures"]["slowest"]["to"]')" = "node002>node003" ]
check "busbw is that hop's rate" \
        [ "$(json_get "$T/ring.json" 'd["figures"]["busbw_gbps"] == d["figures"]["slowest"]["gbps"]')" = True ]
check "busbw is bounded by the 50 Mbit/s limit" [ "$(fig "$T/ring.json" '["busbw_gbps"] < 0.1')" = True ]
check "the throttled hop is far below the others (ratio < 0.25 of their median)" \
        [ "$(json_get "$T/ring.json" 'd["figures"]["slowest"]["gbps"] < 0.25 * sorted(f["gbps"] for f in d["flows"] if f["to"] != "node003")[2]')" = True ]
# --parallel 1 bounds the controller's other requests; a fabric run still starts every node at once.
ctl --parallel 1 probe --mode tcp --duration-ms 1500 --pattern ring > "$T/ring.txt"
check "the text report names the slowest hop" grep -q "^slowest hop: node002 -> node003 at" "$T/ring.txt"
check "and gives busbw and algbw" grep -q "^ring all-reduce over 6 nodes: busbw .* (the slowest hop), algbw" "$T/ring.txt"

step "every pair run alone looks fine"
# Each node's point-to-point probe to the reference responder, one at a time: what a
# per-node gate measures. The limit sits on traffic into node 3, which no pair shows.
for ((i = 1; i <= N; i++)); do
        ip netns exec "$(node_ns "$i")" "$AGENT" --output json probe --peer 10.88.255.1:18515 --mode tcp \
                --duration-ms 1000 --runs 1 > "$T/p2p-$i.json" || fail "node $i: point-to-point probe failed"
done
p2p() { json_get "$T/p2p-$1.json" 'd["gbps"]'; }
python3 - "$T" "$N" "$(fig "$T/ring.json" '["busbw_gbps"]')" <<'PY' || fail "a pair alone did not look fine"
import json, sys
t, n, busbw = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rates = [json.load(open("%s/p2p-%d.json" % (t, i)))["gbps"] for i in range(1, n + 1)]
median = sorted(rates)[n // 2]
print("  point-to-point Gb/s:", " ".join("%.2f" % r for r in rates), "; ring busbw %.3f" % busbw)
assert all(r > 0.5 * median for r in rates), "a pair below half the median"
assert rates[2] > 10 * busbw, "node003's pair is not far above the ring's busbw"
PY
echo "ok: every pair within half of the median, node003's pair far above the ring's busbw"

step "all-to-all and incast"
expect_rc 0 "all-to-all" fab "$T/a2a.json" --pattern alltoall
check "30 flows measured" [ "$(fig "$T/a2a.json" '["flows_ok"]')" = 30 ]
check "node003 receives least" [ "$(fig "$T/a2a.json" '["rx_min_node"]')" = node003 ]
check "its receive rate is far below the median" [ "$(fig "$T/a2a.json" '["rx_min_gbps"] < 0.25 * d["figures"]["rx_median_gbps"]')" = True ]
check "busbw is the minimum per-node receive rate" [ "$(fig "$T/a2a.json" '["busbw_gbps"] == d["figures"]["rx_min_gbps"]')" = True ]
check "a node's receive rate is the sum of its incoming flows" \
        [ "$(json_get "$T/a2a.json" 'abs(sum(f["gbps"] for f in d["flows"] if f["to"] == "node003") - [n for n in d["nodes"] if n["name"] == "node003"][0]["rx_gbps"]) < 1e-9')" = True ]
expect_rc 0 "incast to node001" fab "$T/incast.json" --pattern incast
check "5 senders into node001" [ "$(json_get "$T/incast.json" 'd["receiver"] + ":" + str(len(d["flows"]))')" = node001:5 ]
check "goodput / link rate" \
        [ "$(json_get "$T/incast.json" 'abs(d["figures"]["link_ratio"] - d["figures"]["goodput_gbps"] / 10) < 1e-9')" = True ]
expect_rc 0 "incast to node003" fab "$T/incast3.json" --pattern incast --receiver node003
check "node003's goodput is bounded by its port's limit" [ "$(fig "$T/incast3.json" '["goodput_gbps"] < 0.1')" = True ]
check "far below the incast into node001" \
        [ "$(fig "$T/incast3.json" '["goodput_gbps"]' | awk -v b="$(fig "$T/incast.json" '["goodput_gbps"]')" '{ print ($1 < 0.25 * b) }')" = 1 ]
tc -n "$HUB" qdisc del dev "h$NT_ID-3" root

step "the agent's fabric API"
api_fabric() { ip netns exec "$(node_ns 1)" curl -s -o "$T/body" -w '%{http_code}' --max-time 30 \
        --cacert "$T/pki/ca.crt" --cert "$T/pki/controller.crt" --key "$T/pki/controller.key" \
        -H 'Content-Type: application/json' "https://$(node_ip 1):$FLEET_PORT$1" "${@:2}"; }
check "GET /v1/fabric answers 200" [ "$(api_fabric /v1/fabric)" = 200 ]
check "it advertises its responder and sessions" \
        [ "$(json_get "$T/body" 'd["probe"]["address"] + " " + str(d["probe"]["max_clients"])')" = "$(node_ip 1):18515 8" ]
now=$(( $(date +%s%N) / 1000000 ))
check "a start that has passed: 409 late" [ "$(api_fabric /v1/fabric/flows -d "{\"start_at_ms\": $((now - 5000)), \"flows\": [{\"id\": 1, \"peer\": \"$(node_ip 2):18515\"}]}")" = 409 ]
check "it says so" grep -q '"code":"late".*no flow was run' "$T/body"
check "a start too far ahead: 400" [ "$(api_fabric /v1/fabric/flows -d "{\"start_at_ms\": $((now + 600000)), \"flows\": [{\"id\": 1, \"peer\": \"$(node_ip 2):18515\"}]}")" = 400 ]
check "naming the member" grep -q '"path":"$.start_at_ms"' "$T/body"
check "an invalid flow: 400 with its path" [ "$(api_fabric /v1/fabric/flows -d "{\"start_at_ms\": $now, \"flows\": [{\"id\": 1, \"peer\": \"$(node_ip 2):18515\", \"streams\": 17}]}")" = 400 ]
check "naming the flow's member" grep -q '"path":"$.flows\[0\].streams"' "$T/body"

step "failures are named by node"
sed -i 's/"max_clients": 8/"max_clients": 4/' "$T/n6/agent.json"
kill "$AGENT_PID_6"; wait "$AGENT_PID_6" 2>/dev/null || true
fleet_start_agent 6 2>>"$T/agents.log"
wait_for 20 agent_up 6 || fail "agent 6 did not come back"
rc=0; ctl probe --mode tcp --pattern alltoall > /dev/null 2> "$T/a2a-refused.err" || rc=$?
check "all-to-all beyond a responder's sessions: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "naming the node and its limit" grep -q "node 'node006' would receive 5 flows at once but its responder takes 4 sessions" "$T/a2a-refused.err"
expect_rc 0 "the ring still fits it" fab "$T/ring6.json" --pattern ring
kill "$AGENT_PID_5"; wait "$AGENT_PID_5" 2>/dev/null || true
rc=0; ctl --timeout 5 probe --mode tcp --pattern ring > /dev/null 2> "$T/ring-down.err" || rc=$?
check "a node that does not answer: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "naming it" grep -q "node 'node005' did not answer (node005: cannot connect" "$T/ring-down.err"
rc=0; ctl --output json probe --pattern ring --selector rack=r9 > /dev/null 2> "$T/none.err" || rc=$?
check "a selection of fewer than 2 nodes: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "saying why" grep -q "a ring needs at least 2 nodes, 0 selected; nothing was run" "$T/none.err"
