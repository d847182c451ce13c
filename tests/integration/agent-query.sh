#!/usr/bin/env bash
# The query string is read strictly on every endpoint. libmicrohttpd's own reading
# truncated a value at a percent-encoded NUL ("idempotency_key=R1%00anything" was
# the key R1, "expect_revision=4%00junk" the precondition 4), let the first copy of a
# duplicated parameter win, ignored an unknown one (a typo of expect_revision: the
# precondition silently absent), and a rollback's query expect_revision lost to its
# body's. Each of these is now 400 naming the parameter, with nothing changed.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3

ns=$(netns_add qs)
nsp=$(netns_add qsp)
ifc=qs$NT_ID
veth_pair "$ns" "$ifc" "$nsp" qt$NT_ID 10.210.0.1/24 10.210.0.2/24
make_certs "$T/certs" || fail "cannot make test certificates"
port=7466
agent_config "$T/agent.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18566" '"drift": {"interval_s": 0}'
API_URL=https://127.0.0.1:$port
policy_file "$T/p.json" jumbo "$ifc" 9000
policy_file "$T/q.json" jumbo4k "$ifc" 4000
serve_start "$ns" "$T/agent.json" 2>>"$T/serve.log"
mtu_is() { [ "$(mtu_of "$ns" "$ifc")" = "$1" ]; }
txs() { api "$ns" '/v1/history' >/dev/null; jq_py "$T/body" 'len(d["transactions"])'; }
# refused URL PARAM [curl args...]: 400 invalid naming PARAM in path and message, nothing changed
refused() {
        local url=$1 param=$2 code; shift 2
        code=$(api "$ns" "$url" --path-as-is "$@")
        check "$url: 400 (got $code)" [ "$code" = 400 ]
        check "  invalid, naming '$param'" [ "$(jq_py "$T/body" 'd["error"]["code"], d["error"]["path"]')" = "invalid $param" ] &&
                grep -q "$param" "$T/body"
}

step "revision 1: MTU 9000"
check "apply 9000 with key K1: 200" [ "$(api "$ns" '/v1/apply?idempotency_key=K1' -X POST --data-binary @"$T/p.json")" = 200 ]
check "committed, rev 1" [ "$(jq_py "$T/body" 'd["state"], d["rev"]')" = "committed 1" ] && mtu_is 9000
n=$(txs)

step "a NUL in a value: 400, never the value before it"
refused '/v1/apply?idempotency_key=R1%00anything' idempotency_key -X POST --data-binary @"$T/q.json"
check "  its message names the NUL" grep -q 'NUL (%00)' "$T/body"
refused '/v1/apply?expect_revision=1%00junk' expect_revision -X POST --data-binary @"$T/q.json"
refused '/v1/apply?idempotency_key=K1%zz' idempotency_key -X POST --data-binary @"$T/q.json"
check "nothing was applied: MTU 9000, $n transaction(s)" mtu_is 9000 && [ "$(txs)" = "$n" ]

step "a duplicated parameter: 400, no copy wins"
refused '/v1/apply?expect_revision=1&expect_revision=7' expect_revision -X POST --data-binary @"$T/q.json"
check "  it says the parameter is given more than once" grep -q "given more than once" "$T/body"
refused '/v1/doctor?window_s=0.1&window_s=0.2' window_s
check "nothing was applied: MTU 9000, $n transaction(s)" mtu_is 9000 && [ "$(txs)" = "$n" ]

step "an unknown parameter (a typo of expect_revision): 400, not an apply without the precondition"
refused '/v1/apply?expect_revison=0' expect_revison -X POST --data-binary @"$T/q.json"
check "  it names what the route takes" grep -q "it takes confirm_timeout_s, idempotency_key, expect_revision" "$T/body"
check "nothing was applied: MTU 9000, $n transaction(s)" mtu_is 9000 && [ "$(txs)" = "$n" ]

step "the same on every endpoint"
refused '/v1/health?verbose=1' verbose
refused '/metrics?x' x
refused '/v1/state?a=1' a
refused '/v1/drift?a=1' a
refused '/v1/history?limit=5' limit
refused '/v1/transactions/1?a=1' a
refused '/v1/fabric?a=1' a
refused '/v1/plan?a=1' a -X POST --data-binary @"$T/q.json"
refused '/v1/probe?a=1' a -X POST --data-binary '{"peer":"10.210.0.2:18566"}'
refused '/v1/fabric/flows?a=1' a -X POST --data-binary '{"start_at_ms":1,"flows":[]}'
refused '/v1/confirm/1?a=1' a -X POST
refused '/v1/intent?a=1' a
refused '/v1/remove?a=1' a -X POST --data-binary '{"policy":"q"}'
refused '/v1/plan?compare=2' compare -X POST --data-binary @"$T/q.json"
refused '/v1/rollback?to=1' to -X POST
refused '/v1/health?=1' query
check "GET /v1/health: 200 without a query" [ "$(api "$ns" /v1/health)" = 200 ]
check "GET /v1/doctor?window_s=0.1: 200" [ "$(api "$ns" '/v1/doctor?window_s=0.1')" = 200 ]

step "a rollback's expect_revision in the query and the body: they must agree"
refused '/v1/rollback?expect_revision=1' expect_revision -X POST --data-binary '{"expect_revision": 0}'
check "  it names both values" grep -q "expect_revision is 1 in the query and 0 in the body" "$T/body"
check "nothing was rolled back: MTU 9000, $n transaction(s)" mtu_is 9000 && [ "$(txs)" = "$n" ]
check "the query's expect_revision is the precondition: ?expect_revision=0 is 409" \
        [ "$(api "$ns" '/v1/rollback?expect_revision=0' -X POST)" = 409 ] && mtu_is 9000
check "agreeing (1, 1): the rollback runs, 200" \
        [ "$(api "$ns" '/v1/rollback?expect_revision=1' -X POST --data-binary '{"expect_revision": 1}')" = 200 ]
check "  rolled back to 1500" mtu_is 1500
kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true
