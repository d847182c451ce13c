#!/usr/bin/env bash
# D10: transaction ids in a path are read strictly. libmicrohttpd decodes a path
# before it reaches a handler ("%31" is "1", "1%00" is "1" and a NUL) and strtoll
# takes a sign ("+1"): all three used to read as transaction 1, and a confirm of
# "%31" confirmed transaction 1. Now every such id is 404, nothing is changed, and a
# percent-encoded route is no route.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3

ns=$(netns_add ti)
nsp=$(netns_add tip)
ifc=ti$NT_ID
veth_pair "$ns" "$ifc" "$nsp" tj$NT_ID 10.207.0.1/24 10.207.0.2/24
make_certs "$T/certs" || fail "cannot make test certificates"
port=7463
agent_config "$T/agent.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18563" '"drift": {"interval_s": 0}'
API_URL=https://127.0.0.1:$port
policy_file "$T/p.json" jumbo "$ifc" 9000
serve_start "$ns" "$T/agent.json" 2>>"$T/serve.log"

step "transaction 1, left pending"
check "apply: 200" [ "$(api "$ns" '/v1/apply?confirm_timeout_s=600' -X POST --data-binary @"$T/p.json")" = 200 ]
check "tx 1 pending" [ "$(jq_py "$T/body" 'd["tx"], d["state"]')" = "1 pending_confirm" ]
check "GET /v1/transactions/1: 200" [ "$(api "$ns" /v1/transactions/1 --path-as-is)" = 200 ]

step "ids that are not decimal numbers: 404, never transaction 1"
for id in '+1' '1%00' '%31' '01' '1%20' '-1' '0' '1e0' '99999999999999999999'; do
        code=$(api "$ns" "/v1/transactions/$id" --path-as-is)
        check "GET /v1/transactions/$id: 404 (got $code)" [ "$code" = 404 ]
        check "  it names no transaction 1" sh -c "! grep -q '\"tx\": *1\\b' '$T/body'"
done
for id in '%31' '+1' '1%00'; do
        code=$(api "$ns" "/v1/confirm/$id" --path-as-is -X POST)
        check "POST /v1/confirm/$id: 404 (got $code)" [ "$code" = 404 ]
        check "  the body says why" grep -q "a transaction id is a decimal number" "$T/body"
done
check "transaction 1 is still pending: nothing was confirmed" \
        [ "$(api "$ns" /v1/transactions/1)" = 200 ] && [ "$(jq_py "$T/body" 'd["state"]')" = pending_confirm ]
check "the link still has the pending MTU" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]

step "a percent-encoded route is no route"
check "GET /v1/health%00: 404" [ "$(api "$ns" '/v1/health%00' --path-as-is)" = 404 ]
check "GET /v1/%68ealth: 404" [ "$(api "$ns" '/v1/%68ealth' --path-as-is)" = 404 ]
check "GET /v1/health: 200" [ "$(api "$ns" /v1/health)" = 200 ]

step "the real id confirms"
check "POST /v1/confirm/1: 200" [ "$(api "$ns" /v1/confirm/1 -X POST)" = 200 ]
check "committed" [ "$(jq_py "$T/body" 'd["state"]')" = committed ]
