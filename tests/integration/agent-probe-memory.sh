#!/usr/bin/env bash
# D9: the agent's memory does not keep the size of the largest probe it ran. Probes
# and fabric runs of 16 streams of 16 MiB messages (16 flows at once) used to leave
# the serving agent at ~300 MiB resident for good when no drift timer came by to
# trim it (drift.interval_s 0). The buffers a request sizes are mappings of their
# own, given back when the measurement ends, and the heap is trimmed after it: the
# agent stays within 16 MiB of where it started.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3

ns=$(netns_add pm)
nsp=$(netns_add pmp)
veth_pair "$ns" pm$NT_ID "$nsp" pn$NT_ID 10.212.0.1/24 10.212.0.2/24
make_certs "$T/certs" || fail "cannot make test certificates"
bg ip netns exec "$nsp" "$AGENT" probe-server --listen 10.212.0.2:18569 --allow 10.212.0.0/24 --max-clients 16
wait_for 10 sh -c "ip netns exec '$nsp' ss -ltnH 'sport = :18569' | grep -q LISTEN" || fail "probe-server did not start"
port=7467
API_URL=https://127.0.0.1:$port
agent_config "$T/agent.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18570" '"drift": {"interval_s": 0}'
serve_start "$ns" "$T/agent.json" 2>>"$T/serve.log"
pid=$(pgrep -f "$T/agent.json serve" | tail -1)
rss() { awk '/VmRSS/ { print $2 }' "/proc/$pid/status"; }
check "GET /v1/health" [ "$(api "$ns" /v1/health)" = 200 ]
start=$(rss)
echo "resident at the start: $start KiB"

step "probes of 16 streams x 16 MiB messages"
for i in 1 2 3; do
        check "probe $i: 200" [ "$(api "$ns" /v1/probe -X POST --data-binary \
                '{"peer":"10.212.0.2:18569","mode":"tcp","duration_ms":300,"streams":16,"message_size":16777216}')" = 200 ]
        echo "  resident after it: $(rss) KiB"
done

step "fabric runs of 16 such flows at once"
# The start lies 15 s ahead: the request (python, curl, TLS) must reach the agent
# before it, or the run is refused 409 late; on a busy machine 1.5 s was not enough.
for i in 1 2; do
        at=$(( $(date +%s%N) / 1000000 + 15000 ))
        python3 -c "import json; print(json.dumps({'start_at_ms': $at, 'duration_ms': 300, 'flows': [{'id': k,
                'peer': '10.212.0.2:18569', 'mode': 'tcp', 'streams': 16, 'message_size': 16777216} for k in range(16)]}))" \
                > "$T/flows.json"
        code=$(api "$ns" /v1/fabric/flows -X POST --data-binary @"$T/flows.json")
        [ "$code" = 200 ] || cat "$T/body"
        check "fabric run $i: 200 (got $code)" [ "$code" = 200 ]
        check "  its 16 flows ran" [ "$(jq_py "$T/body" 'd["ok"]')" = 16 ]
        echo "  resident after it: $(rss) KiB"
done

step "the memory went back"
end=$(rss)
check "resident $end KiB, within 16 MiB of the start's $start KiB" [ "$end" -le $((start + 16384)) ]
