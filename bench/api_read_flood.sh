#!/usr/bin/env bash
# Benchmark: a confirm under a flood of readers. One agent (mTLS, tls.roles: the
# controller's certificate operates, a monitor's reads) with a change pending
# confirmation; the figure is the latency of the controller's POST /v1/confirm (curl's
# time_total: TCP, TLS handshake, the confirm, its answer) while 200 keep-alive
# connections of the read certificate, each having sent one GET /v1/health, sit idle
# (tests/tools/tls_idle.py --request-once). The peer is the same confirm with no
# reader. Pairs alternate (quiet, flood, ...). Goals: every confirm under the flood
# commits, and its median latency is at most 1000 ms (the confirm path answers
# within any deadline a controller sets, whatever readers do).
. "$(cd "$(dirname "$0")/.." && pwd)/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/bench/stats.sh"
PAIRS=${PAIRS:-5} READERS=200

ns=$(netns_add bf)
nsp=$(netns_add bfp)
ifc=bf$NT_ID
veth_pair "$ns" "$ifc" "$nsp" bg$NT_ID 10.214.0.1/24 10.214.0.2/24
make_certs "$T/certs" >/dev/null 2>&1 || fail "cannot make certificates"
port=7470
API_URL=https://127.0.0.1:$port
agent_config "$T/agent.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18570" \
        '"drift": {"interval_s": 0}, "request_timeout_s": 600'
python3 - "$T/agent.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["tls"]["roles"] = {"operate": ["nettune-controller"], "read": ["*.ro.test"]}
json.dump(d, open(sys.argv[1], "w"))
PY
policy_file "$T/p4000.json" b4000 "$ifc" 4000
policy_file "$T/p9000.json" b9000 "$ifc" 9000
serve_start "$ns" "$T/agent.json" 2>>"$T/serve.log"

pending() {     # a change pending confirmation (600 s); sets TX
        [ "$(api "$ns" '/v1/apply?confirm_timeout_s=600' -X POST --data-binary @"$T/p$1.json")" = 200 ] ||
                fail "apply $1: $(cat "$T/body")"
        TX=$(jq_py "$T/body" 'd["tx"]')
}
confirm_ms() {  # the confirm's latency in ms (its answer in $T/body)
        local s
        : > "$T/body"
        s=$(ip netns exec "$ns" curl -s -o "$T/body" -w '%{http_code} %{time_total}' --max-time 60 \
                --cacert "$T/certs/ca.crt" --cert "$T/certs/controller.crt" --key "$T/certs/controller.key" \
                -X POST "$API_URL/v1/confirm/$TX" || true)
        awk -v t="${s#* }" 'BEGIN { printf "%.1f", t * 1000 }'
}
committed() { python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1])).get("state") == "committed"))' \
                "$T/body" 2>/dev/null || echo 0; }
flood_on() {
        rm -f "$T/flood.ready"
        bg ip netns exec "$ns" python3 "$NETTUNE_TOP/tests/tools/tls_idle.py" --connect "127.0.0.1:$port" \
                --ca "$T/certs/ca.crt" --cert "$T/certs/monitor.crt" --key "$T/certs/monitor.key" --conns "$READERS" \
                --hold-s 600 --ready "$T/flood.ready" --request-once > "$T/flood.json"
        FLOOD=$BG_PID
        wait_for 120 test -e "$T/flood.ready" || fail "the readers did not open their connections"
}
flood_off() { kill -TERM "$FLOOD" 2>/dev/null || true; wait "$FLOOD" 2>/dev/null || true; }

quiet=() flood=() ok=0 pol=4000
for ((i = 0; i < PAIRS; i++)); do
        pending $pol; pol=$([ $pol = 4000 ] && echo 9000 || echo 4000)
        quiet+=("$(confirm_ms)")
        [ "$(committed)" = 1 ] || fail "the quiet confirm did not commit: $(cat "$T/body")"
        pending $pol; pol=$([ $pol = 4000 ] && echo 9000 || echo 4000)
        flood_on
        flood+=("$(confirm_ms)")
        ok=$((ok + $(committed)))
        flood_off
done
read -r fm fq1 fq3 _ fmax <<< "$(stats "${flood[@]}")"
read -r qm qq1 qq3 _ _ <<< "$(stats "${quiet[@]}")"
printf '| api_read_flood: confirm under %d idle keep-alive connections of a read certificate (median of %d pairs) | %s ms [%s–%s] | %s ms [%s–%s] without them | %s | %d of %d confirms committed under the flood, slowest %s ms; curl time_total (TCP, TLS, confirm) |\n' \
        "$READERS" "$PAIRS" "$fm" "$fq1" "$fq3" "$qm" "$qq1" "$qq3" "$(ratio "$fm" "$qm")" "$ok" "$PAIRS" "$fmax"
goal "confirms committed under a reader flood (of $PAIRS)" "$ok" ">=" "$PAIRS" ""
goal "confirm latency under a reader flood, median" "$fm" "<=" 1000 "ms"
if [ -n "${BENCH_SECTION:-}" ]; then
        cat > "$BENCH_SECTION" <<MD
## A confirm under a reader flood

\`bench/api_read_flood.sh\`: one agent (mTLS, \`tls.roles\`) with a change pending
confirmation; $READERS connections of a read certificate, each sending one keep-alive
\`GET /v1/health\` and then idling, against the controller's \`POST /v1/confirm\`.
Pairs alternate: quiet, then flood; $PAIRS pairs. Latency: curl's \`time_total\` (TCP,
TLS handshake, the confirm, its answer). Before the budgets per role, the readers held
160 of the daemon's 160 slots until \`request_timeout_s\`: the confirm found none and
the change was restored at its deadline (\`tests/integration/agent-read-flood.sh\`:
the controller's requests 0 of 40); now a read certificate holds at most 16, readers
at most 64, and the idle ones are closed first.

| figure | quiet | flood |
|---|---|---|
| confirm latency, median [quartiles] | $qm ms [$qq1–$qq3] | $fm ms [$fq1–$fq3] |
| confirms committed | $PAIRS of $PAIRS | $ok of $PAIRS |

MD
fi
