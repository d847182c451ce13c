#!/usr/bin/env bash
# The agent's half of the confirm protocol, over HTTPS with mTLS (curl):
# - an apply left pending answers confirm_deadline_ms, an absolute time (ms since
#   the epoch) that GET /v1/transactions/TX reports too, with the agent's clock;
# - a confirm that names the caller's deadline ({"not_after_ms": N}) and is
#   processed after it is refused (409 expired) and the change is restored at once,
#   even though the agent's own deadline is far away — also when the agent was
#   stopped (SIGSTOP) while the confirm waited, the case where a node committed a
#   change its controller had given up on;
# - a confirm processed after the agent's own deadline is refused (409) and the
#   change is restored;
# - a confirm whose not_after_ms lies before the transaction started (the
#   controller's cancel, not_after_ms 1) is a cancel: 409 expired, restored, and
#   journaled as restored_by "cancelled" with that reason, not as a confirm timeout;
# - GET /v1/transactions/TX reports each final state: pending_confirm, committed,
#   rolled_back, failed; 404 for an unknown one.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3

ns=$(netns_add aq)
nsp=$(netns_add aqp)
ifc=qa$NT_ID
veth_pair "$ns" "$ifc" "$nsp" qb$NT_ID 10.205.0.1/24 10.205.0.2/24
make_certs "$T/certs" || fail "cannot make test certificates"
port=7452
agent_config "$T/agent.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18527" '"drift": {"interval_s": 0}'
API_URL=https://127.0.0.1:$port
policy_file "$T/p.json" jumbo "$ifc" 9000
serve_start "$ns" "$T/agent.json" 2>>"$T/serve.log"

get_tx() {      # get_tx TX: GET /v1/transactions/TX into $T/tx.json; prints the status code
        local code
        code=$(api "$ns" "/v1/transactions/$1")
        cp "$T/body" "$T/tx.json"
        echo "$code"
}
field() { jq_py "$T/tx.json" "$1"; }
mtu_is_now() { [ "$(mtu_of "$ns" "$ifc")" = "$1" ]; }

step "the apply reply carries the absolute deadline; GET /v1/transactions agrees"
check "apply: 200" [ "$(api "$ns" '/v1/apply?confirm_timeout_s=30' -X POST --data-binary @"$T/p.json")" = 200 ]
cp "$T/body" "$T/apply.json"
tx=$(jq_py "$T/apply.json" 'd["tx"]')
deadline=$(jq_py "$T/apply.json" 'd["confirm_deadline_ms"]')
check "pending, exit_code 4" [ "$(jq_py "$T/apply.json" 'd["state"], d["exit_code"]')" = "pending_confirm 4" ]
check "GET /v1/transactions/$tx: 200" [ "$(get_tx "$tx")" = 200 ]
check "state pending_confirm with the same deadline" [ "$(field 'd["state"], d["confirm_deadline_ms"]')" = "pending_confirm $deadline" ]
check "the deadline is 30 s after the agent's now (within 10 s of work)" \
        python3 -c "import sys; n=$(field 'd["now_ms"]'); sys.exit(0 if 20000 <= $deadline - n <= 30000 else 1)"

step "a confirm after the caller's not_after_ms: 409 expired, restored at once"
# The caller's deadline lies after the transaction started (else it is a cancel, below)
# and before the confirm: 100 ms after the agent's now, the confirm sent 1.2 s later.
now=$(field 'd["now_ms"]')
sleep 1.2
check "confirm with not_after_ms in the past: 409" \
        [ "$(api "$ns" "/v1/confirm/$tx" -X POST --data-binary "{\"not_after_ms\": $((now + 100))}")" = 409 ]
check "error code expired" [ "$(jq_py "$T/body" 'd["error"]["code"]')" = expired ]
check "the message says which deadline" grep -q "after the caller's not_after_ms $((now + 100)); the change was rolled back" "$T/body"
check "MTU restored at once, long before the agent's own deadline" mtu_is_now 1500
get_tx "$tx" >/dev/null
check "GET: rolled_back by confirm-timeout" [ "$(field 'd["state"], d["restored_by"]')" = "rolled_back confirm-timeout" ]
check "a second confirm: 409 not_pending" [ "$(api "$ns" "/v1/confirm/$tx" -X POST)" = 409 ] &&
        [ "$(jq_py "$T/body" 'd["error"]["code"]')" = not_pending ]

step "a cancel (not_after_ms 1): refused, restored, journaled as cancelled by its caller"
api "$ns" '/v1/apply?confirm_timeout_s=30' -X POST --data-binary @"$T/p.json" >/dev/null
tx=$(jq_py "$T/body" 'd["tx"]')
check "MTU 9000 pending" mtu_is_now 9000
check "cancel: 409" [ "$(api "$ns" "/v1/confirm/$tx" -X POST --data-binary '{"not_after_ms": 1}')" = 409 ]
check "error code expired" [ "$(jq_py "$T/body" 'd["error"]["code"]')" = expired ]
check "the answer says its caller cancelled it" grep -q "was not confirmed: its caller cancelled it" "$T/body"
check "the answer does not count milliseconds since 1970" sh -c "! grep -q 'ms after the caller' '$T/body'"
check "MTU restored at once" mtu_is_now 1500
get_tx "$tx" >/dev/null
check "GET: rolled_back by cancelled" [ "$(field 'd["state"], d["restored_by"]')" = "rolled_back cancelled" ]
check "GET: the journal keeps the reason" [ "$(field 'd["error"]')" = \
        "its caller cancelled it (not_after_ms 1 lies before the transaction started)" ]

step "a confirm within not_after_ms commits"
api "$ns" '/v1/apply?confirm_timeout_s=30' -X POST --data-binary @"$T/p.json" >/dev/null
tx=$(jq_py "$T/body" 'd["tx"]')
get_tx "$tx" >/dev/null
check "confirm with not_after_ms 60 s ahead: 200" \
        [ "$(api "$ns" "/v1/confirm/$tx" -X POST --data-binary "{\"not_after_ms\": $(( $(field 'd["now_ms"]') + 60000 ))}")" = 200 ]
check "committed" [ "$(jq_py "$T/body" 'd["state"]')" = committed ]
get_tx "$tx" >/dev/null
check "GET: committed" [ "$(field 'd["state"], d["result"]')" = "committed committed" ]
check "MTU 9000" mtu_is_now 9000
check "a bad body: 400 naming the member" [ "$(api "$ns" "/v1/confirm/$tx" -X POST --data-binary '{"not_after_ms": "soon"}')" = 400 ]
check "path \$.not_after_ms" [ "$(jq_py "$T/body" 'd["error"]["path"]')" = '$.not_after_ms' ]
check "an unknown key: 400" [ "$(api "$ns" "/v1/confirm/$tx" -X POST --data-binary '{"deadline": 1}')" = 400 ]
check "unknown transaction: 404" [ "$(get_tx 99999)" = 404 ]

step "the agent stopped while a confirm waits, past the caller's deadline: refused and restored"
policy_file "$T/q.json" jumbo "$ifc" 4000      # a new revision of the jumbo layer
api "$ns" '/v1/apply?confirm_timeout_s=60' -X POST --data-binary @"$T/q.json" >/dev/null
tx=$(jq_py "$T/body" 'd["tx"]')
get_tx "$tx" >/dev/null
check "MTU 4000 pending" mtu_is_now 4000
not_after=$(( $(field 'd["now_ms"]') + 1000 ))
kill -STOP "$SERVE_PID"
( api "$ns" "/v1/confirm/$tx" -X POST --data-binary "{\"not_after_ms\": $not_after}" >"$T/late.code"; cp "$T/body" "$T/late.json" ) &
late=$!
sleep 2.5                       # past not_after_ms, well within the agent's own 60 s and its 5 s header deadline
kill -CONT "$SERVE_PID"
wait "$late"
check "the queued confirm: 409 (got $(cat "$T/late.code"))" [ "$(cat "$T/late.code")" = 409 ]
check "error code expired" [ "$(jq_py "$T/late.json" 'd["error"]["code"]')" = expired ]
check "MTU back to 9000 (the committed revision)" mtu_is_now 9000
get_tx "$tx" >/dev/null
check "GET: rolled_back" [ "$(field 'd["state"]')" = rolled_back ]

step "a confirm after the agent's own deadline: 409, restored"
api "$ns" '/v1/apply?confirm_timeout_s=2' -X POST --data-binary @"$T/q.json" >/dev/null
tx=$(jq_py "$T/body" 'd["tx"]')
kill -STOP "$SERVE_PID"         # its timer cannot restore it meanwhile
( api "$ns" "/v1/confirm/$tx" -X POST >"$T/late.code"; cp "$T/body" "$T/late.json" ) &
late=$!
sleep 3
kill -CONT "$SERVE_PID"
wait "$late"
check "the confirm: 409 (got $(cat "$T/late.code"))" [ "$(cat "$T/late.code")" = 409 ]
check "not committed: MTU 9000" mtu_is_now 9000
get_tx "$tx" >/dev/null
check "GET: rolled_back by confirm-timeout" [ "$(field 'd["state"], d["restored_by"]')" = "rolled_back confirm-timeout" ]

step "GET /v1/transactions reports failed"
# The test-only hook deletes the interface before the post probe; the probe fails, the
# gate rolls back, and the restore cannot reach the interface: failed.
kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true
NETTUNE_TEST_HOOK_AFTER_APPLY="ip link del $ifc" serve_start "$ns" "$T/agent.json" 2>>"$T/serve.log"
policy_file "$T/f.json" jumbo "$ifc" 4000 \
        '{"probe":"tcp","peer":"10.205.0.2:1","duration_ms":100,"runs":1,"settle_ms":0,"on_baseline_failure":"skip_gate"}'
check "apply: 200" [ "$(api "$ns" /v1/apply -X POST --data-binary @"$T/f.json")" = 200 ]
tx=$(jq_py "$T/body" 'd["tx"]')
check "the apply failed, its restore with it" [ "$(jq_py "$T/body" 'd["state"], d["exit_code"]')" = "failed 3" ]
get_tx "$tx" >/dev/null
check "GET: failed, RESTORE FAILED named" [ "$(field 'd["state"]')" = failed ] && grep -q "RESTORE FAILED" "$T/tx.json"
