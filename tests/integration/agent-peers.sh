#!/usr/bin/env bash
# D8: probe and fabric peers must be agents of the same fleet. probe.peers (default:
# the networks of probe.allow; without it, the networks this host's addresses are on)
# is where this agent sends probe traffic. Any other address — one that answers, a
# closed port, one that never answers — is refused before a packet leaves (tcpdump on
# the agent's only link sees none) with the same words, "peer refused": an
# authenticated client learns nothing of the host (it used to tell connection refused,
# timed out, closed and unreachable apart). The same for a fabric flow and for a
# policy's verify.peer (refused, nothing changed).
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3 tcpdump

ns=$(netns_add pe)
nsp=$(netns_add pep)
ifc=pe$NT_ID
veth_pair "$ns" "$ifc" "$nsp" pf$NT_ID 10.210.0.1/24 10.210.0.2/24
# Behind the peer: another network that answers (10.211.0.2), and a default route to nowhere.
ip -n "$nsp" addr add 10.211.0.2/24 dev lo
ip -n "$ns" route add 10.211.0.0/24 via 10.210.0.2
ip -n "$ns" route add default via 10.210.0.2
bg ip netns exec "$nsp" "$AGENT" probe-server --listen 0.0.0.0:18567 --allow 10.210.0.0/24
wait_for 10 sh -c "ip netns exec '$nsp' ss -ltnH 'sport = :18567' | grep -q LISTEN" || fail "probe-server did not start"
make_certs "$T/certs" || fail "cannot make test certificates"
port=7466
API_URL=https://127.0.0.1:$port
agent_config "$T/agent.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18568" '"drift": {"interval_s": 0}'
serve_start "$ns" "$T/agent.json" 2>>"$T/serve.log"
probe_to() { api "$ns" /v1/probe -X POST --data-binary "{\"peer\":\"$1\",\"mode\":\"tcp\",\"duration_ms\":200}"; }

step "a peer on this host's network: measured"
check "10.210.0.2:18567: 200" [ "$(probe_to 10.210.0.2:18567)" = 200 ]

step "addresses off this host's networks: refused before a packet leaves, all alike"
bg ip netns exec "$ns" tcpdump -i "$ifc" -n -l -U -w "$T/out.pcap" 'dst net 10.211.0.0/24 or dst net 192.0.2.0/24'
dump=$BG_PID
wait_for 10 sh -c "[ -s '$T/out.pcap' ]" || sleep 1
for peer in 10.211.0.2:18567 10.211.0.2:23 192.0.2.1:18567 192.0.2.1:22; do
        check "$peer: 403" [ "$(probe_to "$peer")" = 403 ]
        check "  code forbidden at \$.peer" [ "$(jq_py "$T/body" 'd["error"]["code"], d["error"]["path"]')" = 'forbidden $.peer' ]
        check "  it says only: peer refused" [ "$(jq_py "$T/body" 'd["error"]["message"]')" = "peer refused; nothing was sent" ]
done
flows="{\"start_at_ms\": $(( $(date +%s) * 1000 + 5000 )), \"duration_ms\": 200,
        \"flows\": [{\"id\": 0, \"peer\": \"10.210.0.2:18567\"}, {\"id\": 1, \"peer\": \"10.211.0.2:18567\"}]}"
check "a fabric run with one flow off the networks: 403" [ "$(api "$ns" /v1/fabric/flows -X POST --data-binary "$flows")" = 403 ]
check "  naming the flow, peer refused" [ "$(jq_py "$T/body" 'd["error"]["path"], d["error"]["message"]')" = '$.flows[1].peer peer refused; nothing was sent' ]
check "  and no flow ran: the node measures nothing" [ "$(api "$ns" /v1/health)" = 200 ] &&
        [ "$(jq_py "$T/body" 'd["measuring"]')" = None ]
sleep 1
kill -INT "$dump"; wait "$dump" 2>/dev/null || true
n=$(tcpdump -n -r "$T/out.pcap" 2>/dev/null | wc -l)
check "tcpdump saw no packet toward them ($n)" [ "$n" = 0 ]
check "the agent logged why, for the operator" grep -q "refused probe traffic for client 'CN=nettune-controller' to '192.0.2.1:22' (192.0.2.1) is on none of this host's networks" "$T/serve.log"

step "a policy whose probe leaves for such a peer: refused, nothing changed"
policy_file "$T/p.json" gated "$ifc" 9000 '{"probe":"tcp","peer":"10.211.0.2:18567","duration_ms":200,"runs":1,"settle_ms":0}'
check "apply: 400" [ "$(api "$ns" /v1/apply -X POST --data-binary @"$T/p.json")" = 400 ]
check "  at \$.verify.peer: peer refused" [ "$(jq_py "$T/body" 'd["error"]["path"]')" = '$.verify.peer' ] &&
        grep -q "peer refused; nothing was changed" "$T/body"
check "the MTU is untouched" [ "$(mtu_of "$ns" "$ifc")" = 1500 ]

step "probe.peers names the fleet: only those"
kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true
agent_config "$T/peers.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18568" \
        '"drift": {"interval_s": 0}' 
python3 - "$T/peers.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["probe"]["peers"] = ["10.211.0.0/24"]
json.dump(d, open(sys.argv[1], "w"))
PY
serve_start "$ns" "$T/peers.json" 2>>"$T/serve.log"
check "10.211.0.2:18567 (in probe.peers): 200" [ "$(probe_to 10.211.0.2:18567)" = 200 ]
check "10.210.0.2:18567 (on the link, not in probe.peers): 403" [ "$(probe_to 10.210.0.2:18567)" = 403 ]
check "the policy's peer, now in probe.peers: the transaction runs" [ "$(api "$ns" /v1/apply -X POST --data-binary @"$T/p.json")" = 200 ]
jq_py "$T/body" 'd["state"], d["probe"]["baseline"]["ok"], d["error"]'
check "  its baseline measured that peer" [ "$(jq_py "$T/body" 'd["probe"]["baseline"]["ok"], d["probe"]["baseline"]["path"]["peer"]')" = "True 10.211.0.2:18567" ]
