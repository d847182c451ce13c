#!/usr/bin/env bash
# serve over HTTPS with client certificates: missing, wrong-CA, expired client
# certificates and an agent's own server certificate are refused in the TLS
# handshake; certificates without extendedKeyUsage clientAuth, or not in
# tls.allowed_clients, get 403 and a log line; only TLS 1.3 and TLS 1.2 AEAD suites
# are spoken; oversized, non-JSON, malformed and invalid bodies are refused with
# nothing changed; plan and apply work for the right client; plain HTTP is refused
# off loopback.
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

serve_start "$ns" "$T/agent.json" 2>>"$T/serve.log"

step "client certificates: verified in the TLS handshake"
# curl exit 56/35: the agent ended the handshake (TLS 1.3 alert certificate_required, or bad certificate)
code=$(ip netns exec "$ns" curl -s -o "$T/body" -w '%{http_code}' --cacert "$T/certs/ca.crt" "$API_URL/v1/health" || true)
check "no client certificate: refused in the handshake, no HTTP answer (got $code)" [ "$code" = 000 ]
for bad in wrong-client expired agent; do
        code=$(api_as "$bad" "$ns" /v1/health)
        check "$bad certificate: refused in the handshake (got $code)" [ "$code" = 000 ]
done
check "refusals are logged with the reason" wait_for 5 grep -q "client certificate refused in the TLS handshake" "$T/serve.log"
grep -q "expired" "$T/serve.log" && echo "ok: expired certificate reported as expired"
check "controller certificate accepted" [ "$(api "$ns" /v1/health)" = 200 ]
check "health names the client" grep -q 'CN=nettune-controller' "$T/body"
code=$(ip netns exec "$ns" curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/health" || true)
check "plain HTTP to the TLS port gets no answer (got $code)" [ "$code" != 200 ]

step "client roles: extendedKeyUsage clientAuth"
for bad in server-only no-eku; do
        code=$(api_as "$bad" "$ns" /v1/health)
        check "$bad certificate from the clients' CA: 403 (got $code)" [ "$code" = 403 ]
        check "$bad: JSON error code forbidden" [ "$(jq_py "$T/body" 'd["error"]["code"]')" = forbidden ]
        check "$bad: the answer says clientAuth is required" grep -q 'clientAuth is required' "$T/body"
done
check "server-only refusal logged" grep -q "refused client from 127.0.0.1: client certificate 'CN=nettune-agent-7' is not for clients: its extendedKeyUsage is serverAuth" "$T/serve.log"
check "an apply with the server-only certificate changes nothing" \
        [ "$(api_as server-only "$ns" /v1/apply -X POST --data-binary @"$T/p.json")" = 403 ]
check "MTU untouched" [ "$(mtu_of "$ns" "$ifc")" = 1500 ]

step "TLS versions and ciphers"
tls() { ip netns exec "$ns" openssl s_client -connect "127.0.0.1:$port" -CAfile "$T/certs/ca.crt" \
                -cert "$T/certs/controller.crt" -key "$T/certs/controller.key" "$@" </dev/null 2>&1; }
check "TLS 1.3 is what a client gets by default" sh -c 'tls_out=$1; echo "$tls_out" | grep -q "Protocol *: TLSv1.3\|New, TLSv1.3"' _ "$(tls)"
check "TLS 1.2 with an AEAD suite is accepted" sh -c 'echo "$1" | grep -q "Cipher is ECDHE-ECDSA-AES256-GCM-SHA384"' _ \
        "$(tls -tls1_2 -cipher ECDHE-ECDSA-AES256-GCM-SHA384)"
for c in ECDHE-ECDSA-AES128-SHA ECDHE-ECDSA-AES256-SHA384 ECDHE-ECDSA-AES128-SHA256; do
        check "TLS 1.2 $c (CBC) is refused" sh -c '! echo "$1" | grep -q "Cipher is $2"' _ "$(tls -tls1_2 -cipher "$c")" "$c"
done
check "TLS 1.1 is refused" sh -c '! echo "$1" | grep -q "Cipher is [A-Z]"' _ "$(tls -tls1_1 -cipher 'ALL:@SECLEVEL=0')"

step "bad requests change nothing"
raw() {         # raw URL_PATH CURL_ARGS...: like api, without the JSON Content-Type
        local path=$1; shift
        ip netns exec "$ns" curl -s -o "$T/body" -w '%{http_code}' --cacert "$T/certs/ca.crt" \
                --cert "$T/certs/controller.crt" --key "$T/certs/controller.key" "$@" "$API_URL$path" || true
}
code=$(raw /v1/apply -X POST -H 'Content-Type: text/plain' --data-binary @"$T/p.json")
check "a policy sent as text/plain: 415 (got $code)" [ "$code" = 415 ]
check "415 names the media type" grep -q "Content-Type 'text/plain'; the API takes application/json" "$T/body"
code=$(raw /v1/plan -X POST --data-binary @"$T/p.json")
check "a form-encoded body (curl's default): 415 (got $code)" [ "$code" = 415 ]
code=$(raw /v1/apply -X POST -H 'Transfer-Encoding: chunked' --data-binary @"$T/p.json")
check "a chunked body without a Content-Type: 415 (got $code)" [ "$code" = 415 ]
code=$(raw /v1/rollback -X POST)
check "a POST without a body needs no Content-Type (rollback: nothing to roll back, 404; got $code)" [ "$code" = 404 ]
check "application/json with a charset is JSON" \
        [ "$(api "$ns" /v1/plan -X POST -H 'Content-Type: application/json; charset=utf-8' --data-binary @"$T/p.json")" = 200 ]
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

step "tls.allowed_clients: exact names and *.suffix"
kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true
agent_config "$T/allow.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18515"
python3 - "$T/allow.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["tls"]["allowed_clients"] = ["nettune-controller", "*.ops.test"]
json.dump(d, open(sys.argv[1], "w"))
PY
serve_start "$ns" "$T/allow.json" 2>>"$T/serve.log"
check "nettune-controller (exact CN) allowed" [ "$(api "$ns" /v1/health)" = 200 ]
check "ctl1 (SAN ctl1.ops.test matches *.ops.test) allowed" [ "$(api_as ops "$ns" /v1/health)" = 200 ]
check "intruder (clientAuth, same CA, not listed): 403" [ "$(api_as intruder "$ns" /v1/health)" = 403 ]
check "the answer says why" grep -q "names no client of tls.allowed_clients" "$T/body"
check "and the refusal is logged" grep -q "refused client from 127.0.0.1: client certificate 'CN=intruder' names no client" "$T/serve.log"

step "plain HTTP only on loopback and only when asked"
agent_config "$T/open.json" "$T/state2" "10.203.0.1:7441" "127.0.0.1:18516"
expect_rc 2 "--insecure-loopback on a non-loopback address is refused" \
        ip netns exec "$ns" "$AGENT" --config "$T/open.json" serve --insecure-loopback

step "SIGTERM stops serve cleanly"
kill -TERM "$SERVE_PID"
rc=0; wait "$SERVE_PID" || rc=$?
check "serve exited 0 (got $rc)" [ "$rc" -eq 0 ]
