#!/usr/bin/env bash
# Connection budgets per role: no reader can starve the controller's confirm.
# - 200 connections of a read certificate (a monitoring scraper with a bug), each
#   sending one keep-alive GET /v1/health and then idling, while a change is pending
#   confirmation: the controller's requests are all answered and its confirm commits
#   the change (it used to find the daemon's 160 slots held by the reader for
#   request_timeout_s: its requests failed 40/40 and the change was restored by
#   confirm-timeout).
# - one read certificate holds at most 16 connections (its idle ones are closed
#   first as newer ones come), readers all together at most 64.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3

ns=$(netns_add rf)
nsp=$(netns_add rfp)
ifc=rf$NT_ID
veth_pair "$ns" "$ifc" "$nsp" rg$NT_ID 10.209.0.1/24 10.209.0.2/24
make_certs "$T/certs" || fail "cannot make test certificates"
port=7465
API_URL=https://127.0.0.1:$port
# Idle connections are kept 10 minutes: only the budgets can make room, not the idle timeout.
agent_config "$T/agent.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18565" \
        '"drift": {"interval_s": 0}, "request_timeout_s": 600'
python3 - "$T/agent.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["tls"]["roles"] = {"operate": ["nettune-controller"], "read": ["*.ro.test"]}
json.dump(d, open(sys.argv[1], "w"))
PY
policy_file "$T/q.json" jumbo4k "$ifc" 4000
serve_start "$ns" "$T/agent.json" 2>>"$T/serve.log"
mtu_is() { [ "$(mtu_of "$ns" "$ifc")" = "$1" ]; }

step "a change pending confirmation (600 s: nothing here races its timer)"
check "apply 4000, confirm in 600 s: 200" \
        [ "$(api "$ns" '/v1/apply?confirm_timeout_s=600' -X POST --data-binary @"$T/q.json")" = 200 ]
tx=$(jq_py "$T/body" 'd["tx"]')
check "pending at 4000" [ "$(jq_py "$T/body" 'd["state"]')" = pending_confirm ] && mtu_is 4000

step "200 keep-alive connections of the read certificate, each one GET /v1/health, then idle"
bg ip netns exec "$ns" python3 "$NETTUNE_TOP/tests/tools/tls_idle.py" --connect "127.0.0.1:$port" \
        --ca "$T/certs/ca.crt" --cert "$T/certs/monitor.crt" --key "$T/certs/monitor.key" --conns 200 \
        --hold-s 30 --ready "$T/flood.ready" --request-once > "$T/flood.json"
flood=$BG_PID
wait_for 120 test -e "$T/flood.ready" || fail "the reader did not open its connections"

ok=0
for i in $(seq 40); do
        [ "$(api "$ns" /v1/health)" = 200 ] && ok=$((ok + 1))
done
check "the controller under the flood: 40 of 40 requests answered 200 (got $ok)" [ "$ok" = 40 ]
check "the controller's confirm under the flood: 200" [ "$(api "$ns" "/v1/confirm/$tx" -X POST)" = 200 ]
check "  committed, not restored" [ "$(jq_py "$T/body" 'd["state"], d.get("restored_by") or "-"')" = "committed -" ]
check "the monitor still reads: health 200 (its idle connections make room)" \
        [ "$(api_as monitor "$ns" /v1/health)" = 200 ]

wait "$flood" || true
cat "$T/flood.json"
check "the reader's 200 handshakes completed ($(jq_py "$T/flood.json" 'd["opened"]'))" \
        [ "$(jq_py "$T/flood.json" 'd["opened"]')" = 200 ]
check "its idle connections were closed as newer ones came: at most 16 left ($(jq_py "$T/flood.json" 'd["open_at_end"]'))" \
        [ "$(jq_py "$T/flood.json" 'd["open_at_end"]')" -le 16 ]

step "after the flood: the change stays committed"
check "transaction $tx committed, MTU 4000" [ "$(api "$ns" "/v1/transactions/$tx")" = 200 ] &&
        [ "$(jq_py "$T/body" 'd["state"]')" = committed ] && mtu_is 4000
kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true
