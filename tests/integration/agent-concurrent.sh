#!/usr/bin/env bash
# One transaction at a time per node: of two concurrent API applies one gets 409,
# and a CLI apply while the daemon's transaction runs is refused (exit 3) without
# changing anything.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3

ns=$(netns_add ak)
nsp=$(netns_add akp)
ifc=ka$NT_ID
veth_pair "$ns" "$ifc" "$nsp" kb$NT_ID
make_certs "$T/certs" || fail "cannot make test certificates"
policy_file "$T/p.json" jumbo "$ifc" 9000 '{"probe":"none"}'
policy_file "$T/q.json" other "$ifc" 4000 '{"probe":"none"}'
agent_config "$T/agent.json" "$T/state" "127.0.0.1:7460" "127.0.0.1:18535" '"drift": {"interval_s": 0}'
API_URL=https://127.0.0.1:7460
# The test-only hook holds each of the daemon's transactions after its apply until the
# test releases it: the concurrent attempts below run while it holds the lock for sure.
NETTUNE_TEST_HOOK_AFTER_APPLY=$(gate_hook apply) serve_start "$ns" "$T/agent.json"

step "two concurrent applies"
( api "$ns" /v1/apply -X POST --data-binary @"$T/p.json" >"$T/code1"; cp "$T/body" "$T/body1" ) &
first=$!
wait_for 60 gate_held apply || fail "the first apply never reached its hook"
T2=$T/second; mkdir -p "$T2"
code2=$(ip netns exec "$ns" curl -s -o "$T2/body" -w '%{http_code}' --cacert "$T/certs/ca.crt" \
        --cert "$T/certs/controller.crt" --key "$T/certs/controller.key" \
        -H 'Content-Type: application/json' -X POST --data-binary @"$T/q.json" "$API_URL/v1/apply" || true)
check "second apply: 409 (got $code2)" [ "$code2" = 409 ]
check "409 body says busy" [ "$(jq_py "$T2/body" 'd["error"]["code"]')" = busy ]

step "CLI apply while the daemon's transaction runs"
rc=0; ip netns exec "$ns" "$AGENT" --config "$T/agent.json" apply "$T/q.json" 2>"$T/err" || rc=$?
check "CLI refused with exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "CLI says another transaction runs" grep -q "another transaction is running" "$T/err"
check "health answers during the transaction" [ "$(api "$ns" /v1/health)" = 200 ]

gate_open apply
wait "$first"
check "first apply: 200" [ "$(cat "$T/code1")" = 200 ]
check "first apply committed" [ "$(jq_py "$T/body1" 'd["state"]')" = committed ]
check "MTU is the first policy's" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
api "$ns" /v1/history >/dev/null
check "exactly one transaction recorded" [ "$(jq_py "$T/body" 'len(d["transactions"])')" = 1 ]
