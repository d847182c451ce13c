#!/usr/bin/env bash
# serve over HTTPS with client certificates: missing, wrong-CA and expired client
# certificates are refused; oversized, malformed and invalid bodies are refused
# with nothing changed; plan and apply work for the right client; plain HTTP is
# refused off loopback.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3

ns=$(netns_add at)
nsp=$(netns_add atp)
ifc=ta$NT_ID
veth_pair "$ns" "$ifc" "$nsp" tb$NT_ID 10.203.0.1/24 10.203.0.2/24
make_certs "$T/certs" || fail "cannot make test certificates"
port=7440
agent_config "$T/agent.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18515" '"max_body_bytes": 4096'
policy_file "$T/p.json" jumbo "$ifc" 9000
API_URL=https://127.0.0.1:$port

serve_start "$ns" "$T/agent.json"

step "client certificates"
code=$(ip netns exec "$ns" curl -s -o "$T/body" -w '%{http_code}' --cacert "$T/certs/ca.crt" "$API_URL/v1/health" || true)
check "no client certificate: 401 (got $code)" [ "$code" = 401 ]
check "error body names the problem" grep -q 'client certificate is required' "$T/body"
for bad in wrong-client expired; do
        code=$(ip netns exec "$ns" curl -s -o "$T/body" -w '%{http_code}' --cacert "$T/certs/ca.crt" \
                --cert "$T/certs/$bad.crt" --key "$T/certs/$bad.key" "$API_URL/v1/health" || true)
        check "$bad certificate refused with 403 or at TLS level (got $code)" sh -c '[ "$1" = 403 ] || [ "$1" = 000 ]' _ "$code"
        [ "$code" = 000 ] || check "$bad: JSON error code forbidden" [ "$(jq_py "$T/body" 'd["error"]["code"]')" = forbidden ]
done
grep -q expired "$T/body" && echo "ok: expired certificate reported as expired"
check "controller certificate accepted" [ "$(api "$ns" /v1/health)" = 200 ]
check "health names the client" grep -q 'CN=nettune-controller' "$T/body"
code=$(ip netns exec "$ns" curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/health" || true)
check "plain HTTP to the TLS port gets no answer (got $code)" [ "$code" != 200 ]

step "bad requests change nothing"
head -c 10000 /dev/zero | tr '\0' ' ' >"$T/big"
check "oversized body: 413" [ "$(api "$ns" /v1/apply -X POST --data-binary @"$T/big")" = 413 ]
check "malformed JSON: 400" [ "$(api "$ns" /v1/apply -X POST --data-binary '{"apiVersion": ')" = 400 ]
sed 's/9000/99999/' "$T/p.json" >"$T/bad.json"
check "out-of-range MTU: 400" [ "$(api "$ns" /v1/apply -X POST --data-binary @"$T/bad.json")" = 400 ]
check "error names the JSON path" [ "$(jq_py "$T/body" 'd["error"]["path"]')" = '$.spec.mtu' ]
check "unknown route: 404" [ "$(api "$ns" /v1/nothing)" = 404 ]
check "confirm of unknown transaction: 404" [ "$(api "$ns" /v1/confirm/77 -X POST)" = 404 ]
check "MTU untouched" [ "$(mtu_of "$ns" "$ifc")" = 1500 ]
api "$ns" /v1/history >/dev/null
check "no transaction recorded" [ "$(jq_py "$T/body" 'len(d["transactions"])')" = 0 ]

step "plan and apply"
check "plan: 200" [ "$(api "$ns" /v1/plan -X POST --data-binary @"$T/p.json")" = 200 ]
check "plan lists the mtu change" [ "$(jq_py "$T/body" 'd["targets"][0]["changes"][0]["to"]')" = 9000 ]
check "plan changed nothing" [ "$(mtu_of "$ns" "$ifc")" = 1500 ]
check "apply: 200" [ "$(api "$ns" /v1/apply -X POST --data-binary @"$T/p.json")" = 200 ]
check "apply committed" [ "$(jq_py "$T/body" 'd["state"]')" = committed ]
check "MTU is 9000" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
check "state shows it" [ "$(api "$ns" /v1/state)" = 200 ] && grep -q '"mtu":9000' "$T/body"
check "metrics: 200" [ "$(api "$ns" /metrics)" = 200 ]
check "metrics count the commit" grep -q '^nettune_transactions_total{result="committed"} 1$' "$T/body"
check "metrics have build info" grep -q '^nettune_build_info{version=' "$T/body"

step "plain HTTP only on loopback and only when asked"
agent_config "$T/open.json" "$T/state2" "10.203.0.1:7441" "127.0.0.1:18516"
expect_rc 2 "--insecure-loopback on a non-loopback address is refused" \
        ip netns exec "$ns" "$AGENT" --config "$T/open.json" serve --insecure-loopback

step "SIGTERM stops serve cleanly"
kill -TERM "$SERVE_PID"
rc=0; wait "$SERVE_PID" || rc=$?
check "serve exited 0 (got $rc)" [ "$rc" -eq 0 ]
