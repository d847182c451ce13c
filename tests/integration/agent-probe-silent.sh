#!/usr/bin/env bash
# Inside the fleet network (probe.peers) a peer that never answers as a probe
# responder is one answer, in one time: a closed port, a silent host, another service
# (it greets in its own protocol) and an unreachable network each make POST /v1/probe
# answer 502 with the same body, "no probe responder answered", no sooner than the
# probe's connect-and-hello bound (10 s) after the request (it used to tell connection
# refused in milliseconds, a timeout in seconds, a bad magic and no route apart). The
# same for a fabric flow (its 5 s bound). The agent logs each cause for the operator.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3

ns=$(netns_add ps)
nsp=$(netns_add psp)
ifc=ps$NT_ID
veth_pair "$ns" "$ifc" "$nsp" pq$NT_ID 10.220.0.1/24 10.220.0.2/24
ip -n "$ns" route add unreachable 10.221.0.0/24
bg ip netns exec "$nsp" "$AGENT" probe-server --listen 0.0.0.0:18577 --allow 10.220.0.0/24
wait_for 10 sh -c "ip netns exec '$nsp' ss -ltnH 'sport = :18577' | grep -q LISTEN" || fail "probe-server did not start"
# Another service: it greets every connection in its own protocol and then waits.
bg ip netns exec "$nsp" python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 2222)); s.listen(8); keep = []
while True:
    c, _ = s.accept(); c.sendall(b"SSH-2.0-OpenSSH_9.6\r\n"); keep.append(c)'
wait_for 10 sh -c "ip netns exec '$nsp' ss -ltnH 'sport = :2222' | grep -q LISTEN" || fail "the other service did not start"
make_certs "$T/certs" || fail "cannot make test certificates"
port=7476
API_URL=https://127.0.0.1:$port
agent_config "$T/agent.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18578" '"drift": {"interval_s": 0}'
python3 - "$T/agent.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["probe"]["peers"] = ["10.220.0.0/24", "10.221.0.0/24"]
json.dump(d, open(sys.argv[1], "w"))
PY
serve_start "$ns" "$T/agent.json" 2>>"$T/serve.log"
probe_to() { api "$ns" /v1/probe -X POST --data-binary "{\"peer\":\"$1\",\"mode\":\"tcp\",\"duration_ms\":200,\"runs\":3}"; }

step "a responder in the fleet network: measured"
check "10.220.0.2:18577: 200" [ "$(probe_to 10.220.0.2:18577)" = 200 ]

step "four peers that never answer as responders: one body, no sooner than 10 s each"
first=""
for peer in 10.220.0.2:23 10.220.0.77:18577 10.220.0.2:2222 10.221.0.5:18577; do
        t0=$(date +%s%N)
        code=$(probe_to "$peer")
        ms=$(( ($(date +%s%N) - t0) / 1000000 ))
        echo "$peer: $code in $ms ms: $(cat "$T/body")"
        check "$peer: 502" [ "$code" = 502 ]
        check "  it says only: no probe responder answered" \
                [ "$(jq_py "$T/body" 'd["error"], d["runs"][0]["error"], d["n_runs"], "path" in d')" = \
                  "no probe responder answered no probe responder answered 1 False" ]
        check "  no sooner than the connect-and-hello bound (took $ms ms)" [ "$ms" -ge 10000 ]
        if [ -z "$first" ]; then first=$(cat "$T/body"); else
                check "  the same body as the first" [ "$(cat "$T/body")" = "$first" ]
        fi
done
check "the agent logged each cause for the operator" \
        grep -q "probe for client 'CN=nettune-controller': 10.220.0.2:23: .*Connection refused" "$T/serve.log"

step "a fabric flow to each: the same words, the flow's 5 s bound"
start=$(( $(date +%s) * 1000 + 2000 ))
flows="{\"start_at_ms\": $start, \"duration_ms\": 200, \"flows\": [
        {\"id\": 0, \"peer\": \"10.220.0.2:23\"}, {\"id\": 1, \"peer\": \"10.220.0.77:18577\"},
        {\"id\": 2, \"peer\": \"10.220.0.2:2222\"}, {\"id\": 3, \"peer\": \"10.221.0.5:18577\"}]}"
check "POST /v1/fabric/flows: answered" [ "$(api "$ns" /v1/fabric/flows -X POST --data-binary "$flows")" = 200 ]
cat "$T/body"; echo
check "  every flow: no probe responder answered, no path, the mode asked" [ "$(jq_py "$T/body" \
        'sorted(set((f["error"], f["path"], f["mode"]) for f in d["flows"]))')" = \
        "[('no probe responder answered', None, 'auto')]" ]
check "  every flow lasted no less than 5 s" [ "$(jq_py "$T/body" \
        'all(f["ended_ms"] - f["started_ms"] >= 5000 for f in d["flows"])')" = True ]
