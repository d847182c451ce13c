#!/usr/bin/env bash
# An idempotency key names one request: the digest of its operation, parameters and
# body is journaled with it. The same key with another body, other parameters or
# another operation is 409 idempotency_mismatch naming what differs, and nothing
# runs; a second copy of the same request is answered from the journal with
# everything the first answer had (rev, kind, policy, state, result, changes).
# Before: apply MTU 2000 with the key of a committed apply of MTU 4000 was "200
# replayed" with the 4000 transaction and no rev, kind or policy; a rollback sent with
# an apply's key was answered with the apply and never ran.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3

ns=$(netns_add ik)
nsp=$(netns_add ikp)
ifc=ik$NT_ID
veth_pair "$ns" "$ifc" "$nsp" il$NT_ID 10.211.0.1/24 10.211.0.2/24
make_certs "$T/certs" || fail "cannot make test certificates"
port=7467
agent_config "$T/agent.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18567" '"drift": {"interval_s": 0}'
API_URL=https://127.0.0.1:$port
policy_file "$T/p4000.json" jumbo4k "$ifc" 4000
policy_file "$T/p2000.json" jumbo2k "$ifc" 2000
serve_start "$ns" "$T/agent.json" 2>>"$T/serve.log"
mtu_is() { [ "$(mtu_of "$ns" "$ifc")" = "$1" ]; }
txs() { api "$ns" '/v1/history' >/dev/null; jq_py "$T/body" 'len(d["transactions"])'; }
mismatch() {    # mismatch WHAT: 409 idempotency_mismatch, mismatch WHAT, naming the key
        [ "$(jq_py "$T/body" 'd["error"]["code"], d["error"]["mismatch"], d["error"]["path"]')" = \
          "idempotency_mismatch $1 idempotency_key" ]
}

step "apply MTU 4000 with key K1: committed"
check "apply: 200" [ "$(api "$ns" '/v1/apply?idempotency_key=K1' -X POST --data-binary @"$T/p4000.json")" = 200 ]
cp "$T/body" "$T/first.json"
check "committed at 4000" [ "$(jq_py "$T/first.json" 'd["state"]')" = committed ] && mtu_is 4000
n=$(txs)

step "the same key with another body: 409 naming the mismatch, nothing applied"
check "apply MTU 2000 with K1: 409" [ "$(api "$ns" '/v1/apply?idempotency_key=K1' -X POST --data-binary @"$T/p2000.json")" = 409 ]
check "  idempotency_mismatch: request" mismatch request
check "  the message names the key, the transaction and what differs" \
        grep -q "idempotency key 'K1' was journaled with transaction $(jq_py "$T/first.json" 'd["tx"]') (apply of policy 'jumbo4k') for another request: this apply's body or parameters differ" "$T/body"
check "  MTU still 4000, $n transaction(s)" mtu_is 4000 && [ "$(txs)" = "$n" ]
check "the same key and body with another parameter (confirm_timeout_s=600): 409" \
        [ "$(api "$ns" '/v1/apply?idempotency_key=K1&confirm_timeout_s=600' -X POST --data-binary @"$T/p4000.json")" = 409 ] &&
        mismatch request && mtu_is 4000 && [ "$(txs)" = "$n" ]

step "a second copy of the same request: the first's answer, whole"
check "apply MTU 4000 with K1 again: 200" \
        [ "$(api "$ns" '/v1/apply?idempotency_key=K1' -X POST --data-binary @"$T/p4000.json")" = 200 ]
check "  replayed" [ "$(jq_py "$T/body" 'd["replayed"]')" = True ]
for f in tx rev state result exit_code changes; do
        check "  $f as in the first answer ($(jq_py "$T/first.json" "d['$f']"))" \
                [ "$(jq_py "$T/body" "d['$f']")" = "$(jq_py "$T/first.json" "d['$f']")" ]
done
check "  with its kind and policy (apply, jumbo4k)" [ "$(jq_py "$T/body" 'd["kind"], d["policy"]')" = "apply jumbo4k" ]
check "  nothing ran: $n transaction(s)" [ "$(txs)" = "$n" ]

step "a rollback with an apply's key: 409, the rollback does not run as the apply"
check "rollback with K1: 409" [ "$(api "$ns" '/v1/rollback?idempotency_key=K1' -X POST)" = 409 ]
check "  idempotency_mismatch: operation" mismatch operation
check "  it names the operations" grep -q "(apply of policy 'jumbo4k'); this request is a rollback" "$T/body"
check "  MTU still 4000, $n transaction(s)" mtu_is 4000 && [ "$(txs)" = "$n" ]

step "a rollback's key: the same body replays, another is refused"
check "rollback with R1: 200, back to 1500" [ "$(api "$ns" '/v1/rollback?idempotency_key=R1' -X POST --data-binary '{}')" = 200 ] &&
        mtu_is 1500
cp "$T/body" "$T/rb.json"
check "rollback with R1 again: 200 replayed, kind rollback, the same transaction" \
        [ "$(api "$ns" '/v1/rollback?idempotency_key=R1' -X POST --data-binary '{}')" = 200 ] &&
        [ "$(jq_py "$T/body" 'd["replayed"], d["kind"], d["tx"]')" = "True rollback $(jq_py "$T/rb.json" 'd["tx"]')" ]
check "rollback with R1 and another body: 409" \
        [ "$(api "$ns" '/v1/rollback?idempotency_key=R1' -X POST --data-binary '{"expect_revision": 2}')" = 409 ] &&
        mismatch request
check "apply with R1 (a rollback's key): 409 operation" \
        [ "$(api "$ns" '/v1/apply?idempotency_key=R1' -X POST --data-binary @"$T/p2000.json")" = 409 ] && mismatch operation
check "  MTU still 1500" mtu_is 1500
kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true
