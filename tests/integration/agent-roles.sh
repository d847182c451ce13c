#!/usr/bin/env bash
# D1 (roles) and D2: roles per endpoint, decided in the TLS handshake's accounting.
# - tls.roles: a read certificate reads state, drift, history, transactions,
#   metrics and health, and every change it asks for is 403 with nothing changed —
#   it cannot confirm or cancel the controller's pending change, nor roll back,
#   apply, plan or probe; the operate certificate can; a certificate in neither list
#   is 403 even for health, and each refusal is logged with its subject.
# - tls.allowed_clients alone still means operate; both together are refused at start.
# - a client that will be refused never holds a slot: 160 idle connections of a
#   verified certificate that names no client (and 40 of a serverAuth-only one) stay in the
#   budget of unauthenticated connections and are evicted, so the controller's own
#   requests all get through (they were counted authenticated and filled the
#   daemon's 160 connections: a quarter of the controller's requests failed).
# - a resumed TLS session (the agent issues session tickets) keeps its certificate's
#   role: operate still operates, read is still refused a confirm, a stranger still 403.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3

ns=$(netns_add ar)
nsp=$(netns_add arp)
ifc=ar$NT_ID
veth_pair "$ns" "$ifc" "$nsp" as$NT_ID 10.208.0.1/24 10.208.0.2/24
make_certs "$T/certs" || fail "cannot make test certificates"
port=7464
API_URL=https://127.0.0.1:$port
agent_config "$T/agent.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18564" '"drift": {"interval_s": 0}'
python3 - "$T/agent.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["tls"]["roles"] = {"operate": ["nettune-controller"], "read": ["*.ro.test"]}
json.dump(d, open(sys.argv[1], "w"))
PY
policy_file "$T/p.json" jumbo "$ifc" 9000
# The same layer (metadata.name): 4000 is a new revision of jumbo, pending over 9000.
policy_file "$T/q.json" jumbo "$ifc" 4000
serve_start "$ns" "$T/agent.json" 2>>"$T/serve.log"
mtu_is() { [ "$(mtu_of "$ns" "$ifc")" = "$1" ]; }
code() { jq_py "$T/body" 'd["error"]["code"]'; }

step "the operate certificate commits one change and leaves another pending"
check "apply 9000: 200" [ "$(api "$ns" /v1/apply -X POST --data-binary @"$T/p.json")" = 200 ]
check "apply 4000, confirm in 600 s: 200" \
        [ "$(api "$ns" '/v1/apply?confirm_timeout_s=600' -X POST --data-binary @"$T/q.json")" = 200 ]
tx=$(jq_py "$T/body" 'd["tx"]')
check "pending" [ "$(jq_py "$T/body" 'd["state"]')" = pending_confirm ] && mtu_is 4000

step "the read certificate reads"
for path in /v1/health /v1/state /v1/drift /v1/history "/v1/transactions/$tx" /metrics '/v1/doctor?window_s=0.1'; do
        check "read: GET $path is 200" [ "$(api_as monitor "$ns" "$path")" = 200 ]
done
api_as monitor "$ns" /v1/health >/dev/null
check "health names the role read" [ "$(jq_py "$T/body" 'd["client"], d["role"]')" = "CN=monitor read" ]
api "$ns" /v1/health >/dev/null
check "health names the controller's role operate" [ "$(jq_py "$T/body" 'd["role"]')" = operate ]

step "the read certificate changes nothing"
check "read: confirm of the pending change is 403" [ "$(api_as monitor "$ns" "/v1/confirm/$tx" -X POST)" = 403 ]
check "  code forbidden, naming the role" [ "$(code)" = forbidden ] && grep -q "has the role read; POST /v1/confirm/$tx needs operate; nothing was changed" "$T/body"
check "read: cancel ({\"not_after_ms\": 1}) is 403" \
        [ "$(api_as monitor "$ns" "/v1/confirm/$tx" -X POST --data-binary '{"not_after_ms": 1}')" = 403 ]
check "  the change is still pending, not restored" mtu_is 4000 &&
        [ "$(api "$ns" "/v1/transactions/$tx")" = 200 ] && [ "$(jq_py "$T/body" 'd["state"]')" = pending_confirm ]
check "read: rollback is 403" [ "$(api_as monitor "$ns" /v1/rollback -X POST)" = 403 ]
check "read: rollback without the gate is 403" [ "$(api_as monitor "$ns" '/v1/rollback?no_gate=true' -X POST)" = 403 ]
check "operate: no_gate other than true or false is 400 naming it" \
        [ "$(api "$ns" '/v1/rollback?no_gate=yes' -X POST)" = 400 ] && grep -q "no_gate 'yes': expected true or false" "$T/body"
check "read: apply is 403" [ "$(api_as monitor "$ns" /v1/apply -X POST --data-binary @"$T/p.json")" = 403 ]
check "read: plan is 403" [ "$(api_as monitor "$ns" /v1/plan -X POST --data-binary @"$T/p.json")" = 403 ]
check "read: probe is 403" [ "$(api_as monitor "$ns" /v1/probe -X POST --data-binary '{"peer":"10.208.0.2:18564"}')" = 403 ]
check "read: fabric is 403" [ "$(api_as monitor "$ns" /v1/fabric)" = 403 ]
check "read: fabric flows are 403" [ "$(api_as monitor "$ns" /v1/fabric/flows -X POST --data-binary '{"start_at_ms":1,"flows":[]}')" = 403 ]
check "  still pending at 4000" mtu_is 4000
check "the role refusals are logged with the subject" grep -q "refused POST /v1/confirm/$tx from client 'CN=monitor': it has the role read, operate is needed" "$T/serve.log"

step "a resumed TLS session keeps its certificate's role (session tickets)"
# One curl run, two connections (each closed after its request): the second resumes the
# first's session with the ticket the agent issued, so no certificate crosses it; its
# role is decided from the certificate the ticket carries, verified again.
resumed() {     # resumed CERT LOG URL1 ARGS2... : GET URL1, then a second connection with ARGS2
        local who=$1 log=$2 url=$3; shift 3
        ip netns exec "$ns" curl -sv --max-time 60 --cacert "$T/certs/ca.crt" --cert "$T/certs/$who.crt" \
                --key "$T/certs/$who.key" -H 'Connection: close' -o "$T/body1" -w '%{http_code} ' "$API_URL$url" \
                --next -sv --max-time 60 --cacert "$T/certs/ca.crt" --cert "$T/certs/$who.crt" --key "$T/certs/$who.key" \
                -H 'Connection: close' -H 'Content-Type: application/json' -o "$T/body" -w '%{http_code}' "$@" 2>"$log" || true
}
# The second connection (#1) offered the session and the agent took it: no certificate asked for or sent.
resumed_ok() { sed -n '/(#1)/,$p' "$1" > "$1.second"; grep -q 're-using session' "$1.second" &&
               ! grep -q 'Request CERT\|Certificate (11)' "$1.second"; }
codes=$(resumed controller "$T/resume-op.log" /v1/health "$API_URL/v1/health")
check "operate: both connections answered 200 ($codes)" [ "$codes" = "200 200" ]
check "  the second connection resumed: no certificate was asked for or sent" \
        resumed_ok "$T/resume-op.log"
check "  and it has the role operate" [ "$(jq_py "$T/body" 'd["client"], d["role"]')" = "CN=nettune-controller operate" ]
codes=$(resumed monitor "$T/resume-ro.log" /v1/health -X POST "$API_URL/v1/confirm/$tx")
check "read: health 200, then a confirm on the resumed session is 403 ($codes)" [ "$codes" = "200 403" ]
check "  the second connection resumed" \
        resumed_ok "$T/resume-ro.log"
check "  naming the role read; the change is still pending" grep -q "has the role read" "$T/body" && mtu_is 4000 &&
        [ "$(api "$ns" "/v1/transactions/$tx")" = 200 ] && [ "$(jq_py "$T/body" 'd["state"]')" = pending_confirm ]
codes=$(resumed intruder "$T/resume-in.log" /v1/health "$API_URL/v1/health")
check "a certificate in neither list: 403 on the resumed session too ($codes)" [ "$codes" = "403 403" ]

step "a certificate in neither list: 403 everywhere, logged with its subject"
check "intruder: health is 403" [ "$(api_as intruder "$ns" /v1/health)" = 403 ]
check "  it names no client of tls.roles" grep -q "client certificate 'CN=intruder' names no client of tls.roles" "$T/body"
check "intruder: confirm is 403" [ "$(api_as intruder "$ns" "/v1/confirm/$tx" -X POST)" = 403 ]
check "the refusal is logged with the subject" grep -q "refused client from 127.0.0.1: client certificate 'CN=intruder' names no client of tls.roles" "$T/serve.log"

step "the operate certificate confirms"
check "confirm: 200" [ "$(api "$ns" "/v1/confirm/$tx" -X POST)" = 200 ] && mtu_is 4000

step "tls.allowed_clients alone still means operate"
kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true
agent_config "$T/allow.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18564" '"drift": {"interval_s": 0}'
python3 - "$T/allow.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["tls"]["allowed_clients"] = ["nettune-controller"]
json.dump(d, open(sys.argv[1], "w"))
PY
serve_start "$ns" "$T/allow.json" 2>>"$T/serve.log"
check "allowed client: apply 9000 is 200" [ "$(api "$ns" /v1/apply -X POST --data-binary @"$T/p.json")" = 200 ] && mtu_is 9000
check "the monitor, not listed: 403" [ "$(api_as monitor "$ns" /v1/health)" = 403 ]
check "  names no client of tls.allowed_clients" grep -q "names no client of tls.allowed_clients" "$T/body"
step "refused clients never hold a slot (160 idle ones next to the controller)"
idle() {        # idle CERT N HOLD_S READY [ARGS]: N mTLS connections held HOLD_S seconds, reopened when closed
        local who=$1 n=$2 hold=$3 ready=$4; shift 4
        ip netns exec "$ns" python3 "$NETTUNE_TOP/tests/tools/tls_idle.py" --connect "127.0.0.1:$port" \
                --ca "$T/certs/ca.crt" --cert "$T/certs/$who.crt" --key "$T/certs/$who.key" --conns "$n" \
                --hold-s "$hold" --ready "$ready" --reconnect "$@"
}
# From other addresses than the controller's (127.0.0.1): three clients of 60 that ask
# again every second (answered 403), one of 40 that never asks.
idle_t0=$(date +%s)
for k in 1 2 3; do
        bg idle intruder 60 20 "$T/idle$k.ready" --bind 127.0.0.$((k + 1)) --request-every-ms 1000 > "$T/idle$k.json"
        idle_pids="${idle_pids:-} $BG_PID"
done
bg idle server-only 40 20 "$T/idle4.ready" --bind 127.0.0.5 > "$T/idle4.json"
idle_pids="$idle_pids $BG_PID"
wait_for 60 sh -c "ls '$T'/idle?.ready | wc -l | grep -qx 4" || fail "the idle clients did not open their connections"
ok=0
for i in $(seq 40); do
        [ "$(api "$ns" /v1/health)" = 200 ] && ok=$((ok + 1))
done
check "the controller: 40 of 40 requests answered 200 (got $ok)" [ "$ok" = 40 ]
wait $idle_pids
idle_s=$(( $(date +%s) - idle_t0 + 1 ))
cat "$T"/idle?.json
sum() { python3 -c "import json,sys; print(sum(json.load(open(f))[sys.argv[1]] for f in sys.argv[2:]))" "$1" "$T"/idle?.json; }
check "the refused clients completed their handshakes, again and again ($(sum opened))" [ "$(sum opened)" -ge 200 ]
check "the server closed them as newer ones came: at most 32 left, the budget ($(sum open_at_end))" \
        [ "$(sum open_at_end)" -le 32 ]
check "refusals are rate-limited: the rest counted in one line" grep -q "more refused connection(s) or client(s) were not logged" "$T/serve.log"
n=$(grep -c "refused client from 127.0.0.[2-5]" "$T/serve.log" || true)
# Counted over the time the clients really ran (20 s held, plus their handshakes: longer on a busy machine).
check "no more than 10 refusal lines a second ($n in all over $idle_s s)" [ "$n" -le $(( 10 * idle_s + 10 )) ]

kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true

step "tls.roles and tls.allowed_clients together: refused at start"
python3 - "$T/allow.json" "$T/both.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["tls"]["roles"] = {"read": ["monitor"]}
json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 2 "serve refuses the configuration" ip netns exec "$ns" "$AGENT" --config "$T/both.json" serve 2>"$T/both.err"
check "  naming \$.tls.roles" grep -q '\$.tls.roles: tls.roles and tls.allowed_clients are both given' "$T/both.err"
