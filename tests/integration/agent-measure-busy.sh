#!/usr/bin/env bash
# D1 (nothing waits behind a measurement) and D7 (a second fabric run is 409).
# - A change is left pending (apply with a confirm timeout); a second certificate
#   starts a long POST /v1/probe (its responder then stops answering, so it lasts
#   while using no CPU). While it runs, reads are answered at once (state
#   from the last state read, with "measuring"), changes get 409 busy at once naming
#   the measurement and when it ends, a second probe too — and the confirm of the
#   pending change gets through and commits (it used to wait 60 s for the probe, get
#   503 and leave the change to be restored: exit 3, the change reverted).
# - A probe of more than 60 s of traffic is refused (400).
# - A transaction's own baseline is the node's measurement: a probe asked meanwhile
#   is 409 busy naming it (tx-N-baseline).
# - A fabric run holds the node from its request to its end: a second one, asked
#   while the first waits for its start, is 409 busy at once (it used to wait, then
#   run: 200).
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3

ns=$(netns_add mb)
nsp=$(netns_add mbp)
ifc=mb$NT_ID
veth_pair "$ns" "$ifc" "$nsp" mc$NT_ID 10.209.0.1/24 10.209.0.2/24
make_certs "$T/certs" || fail "cannot make test certificates"
port=7465
API_URL=https://127.0.0.1:$port
agent_config "$T/agent.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18566" '"drift": {"interval_s": 0}'
start_responder() {
        bg ip netns exec "$nsp" "$AGENT" probe-server --listen 10.209.0.2:18565 --allow 10.209.0.0/24
        RESPONDER=$BG_PID
        wait_for 10 sh -c "ip netns exec '$nsp' ss -ltnH 'sport = :18565' | grep -q LISTEN" ||
                fail "probe-server did not start"
}
start_responder
serve_start "$ns" "$T/agent.json" 2>>"$T/serve.log"
mtu_is() { [ "$(mtu_of "$ns" "$ifc")" = "$1" ]; }
err() { jq_py "$T/body" "d['error']$1"; }
measuring_kind() {              # the kind of what health says runs now ("" when none)
        api "$ns" /v1/health >/dev/null
        jq_py "$T/body" '(d["measuring"] or {}).get("kind", "")'
}
health_kind_is() { [ "$(measuring_kind)" = "$1" ]; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

step "a change left pending, then a long probe from another certificate"
policy_file "$T/p.json" jumbo "$ifc" 9000
check "GET /v1/state before (kept as the last state read)" [ "$(api "$ns" /v1/state)" = 200 ]
check "apply, confirm in 600 s: 200" [ "$(api "$ns" '/v1/apply?confirm_timeout_s=600' -X POST --data-binary @"$T/p.json")" = 200 ]
tx=$(jq_py "$T/body" 'd["tx"]')
check "pending" [ "$(jq_py "$T/body" 'd["state"]')" = pending_confirm ] && mtu_is 9000
bg api_as ops "$ns" /v1/probe -X POST --data-binary '{"peer":"10.209.0.2:18565","mode":"tcp","duration_ms":30000,"runs":2}' > "$T/probe.code"
wait_for 30 health_kind_is probe || fail "the probe never started measuring"
# The responder stops answering: the probe's sender blocks on a full socket (no CPU of
# its own, nothing to compete with the checks) until its duration and handshake
# timeouts run out (at least 30 s), far longer than the checks below take.
kill -STOP "$RESPONDER"

step "while it measures: reads answered at once"
t0=$(now_ms)
check "health names the measurement" [ "$(measuring_kind)" = probe ]
check "  its id and end" [ "$(jq_py "$T/body" 'd["measuring"]["id"]')" = probe-1 ] &&
        [ "$(jq_py "$T/body" 'd["measuring"]["ends_ms"] > d["measuring"]["started_ms"] + 60000')" = True ]
for path in /v1/history "/v1/transactions/$tx" /metrics /v1/drift; do
        check "GET $path: 200" [ "$(api "$ns" "$path")" = 200 ]
done
check "GET /v1/state: 200 from the last state read, naming the measurement" [ "$(api "$ns" /v1/state)" = 200 ] &&
        [ "$(jq_py "$T/body" 'd["measuring"]["id"], d["as_of_ms"] < d["measuring"]["started_ms"]')" = "probe-1 True" ]

step "while it measures: changes refused at once, naming it"
check "apply: 409" [ "$(api "$ns" /v1/apply -X POST --data-binary @"$T/p.json")" = 409 ]
check "  busy, naming probe-1 and its end" [ "$(err '["code"]')" = busy ] &&
        [ "$(err '["measurement"]["id"], d["error"]["measurement"]["kind"]')" = "probe-1 probe" ] &&
        grep -q "a bandwidth measurement is running (probe-1, due to end at [0-9]*, in [0-9]* ms); retry after it; nothing was changed" "$T/body"
check "rollback: 409 busy" [ "$(api "$ns" /v1/rollback -X POST)" = 409 ] && [ "$(err '["code"]')" = busy ]
check "plan: 409 busy" [ "$(api "$ns" /v1/plan -X POST --data-binary @"$T/p.json")" = 409 ]
check "a second probe: 409 busy" \
        [ "$(api "$ns" /v1/probe -X POST --data-binary '{"peer":"10.209.0.2:18565","mode":"tcp","duration_ms":100}')" = 409 ]
check "the pending change is untouched" mtu_is 9000

step "while it measures: the confirm of the pending change gets through"
check "confirm: 200" [ "$(api "$ns" "/v1/confirm/$tx" -X POST)" = 200 ]
check "committed" [ "$(jq_py "$T/body" 'd["state"]')" = committed ] && mtu_is 9000
check "and the probe is still measuring: nothing waited for it ($(( $(now_ms) - t0 )) ms for all of this)" \
        [ "$(measuring_kind)" = probe ]

step "the responder goes away: the probe ends, the node is free again"
kill -KILL "$RESPONDER"; wait "$RESPONDER" 2>/dev/null || true
wait_for 90 sh -c "[ -s '$T/probe.code' ]" || fail "the probe did not end"
check "the probe answered 502 (its peer went away)" [ "$(cat "$T/probe.code")" = 502 ]
check "nothing measures" [ "$(measuring_kind)" = "" ]
check "GET /v1/state live again, no measuring" [ "$(api "$ns" /v1/state)" = 200 ] &&
        [ "$(jq_py "$T/body" '"measuring" in d')" = False ]

step "maximum durations"
check "a probe of 15 x 60 s: 400" \
        [ "$(api "$ns" /v1/probe -X POST --data-binary '{"peer":"10.209.0.2:18565","duration_ms":60000,"runs":15}')" = 400 ]
check "  naming \$.runs and the limit" [ "$(err '["path"]')" = '$.runs' ] &&
        grep -q "runs 15 x duration_ms 60000 is 900000 ms of traffic, at most 60000 in one request" "$T/body"

step "a transaction's baseline is the node's measurement"
start_responder
policy_file "$T/g.json" jumbo "$ifc" 4000 \
        '{"probe":"tcp","peer":"10.209.0.2:18565","duration_ms":30000,"runs":2,"settle_ms":0}'
bg api "$ns" /v1/apply -X POST --data-binary @"$T/g.json" > "$T/gated.code"
wait_for 30 health_kind_is baseline ||
        fail "the transaction's baseline never started"
kill -STOP "$RESPONDER"
check "a probe meanwhile: 409 busy naming the transaction's baseline" \
        [ "$(api_as ops "$ns" /v1/probe -X POST --data-binary '{"peer":"10.209.0.2:18565","duration_ms":100}')" = 409 ] &&
        jq_py "$T/body" 'd["error"]["measurement"]["id"]' | grep -Eq '^tx-[0-9]+-baseline$'
check "history meanwhile: 200" [ "$(api "$ns" /v1/history)" = 200 ]
kill -KILL "$RESPONDER"; wait "$RESPONDER" 2>/dev/null || true
wait_for 90 sh -c "[ -s '$T/gated.code' ]" || fail "the gated apply did not end"
check "the baseline failed, nothing was changed" mtu_is 9000

step "one fabric run at a time: the second is 409 at once"
start_responder
start=$(( $(now_ms) + 50000 ))
flows="{\"start_at_ms\": $start, \"duration_ms\": 200, \"flows\": [{\"id\": 0, \"peer\": \"10.209.0.2:18565\", \"mode\": \"tcp\"}]}"
bg api "$ns" /v1/fabric/flows -X POST --data-binary "$flows" > "$T/fabric1.code"
wait_for 30 health_kind_is fabric ||
        fail "the first fabric run never took the node"
t0=$(now_ms)
check "a second fabric run: 409" [ "$(api "$ns" /v1/fabric/flows -X POST --data-binary "$flows")" = 409 ]
check "  busy, naming the first and its end after its start" [ "$(err '["code"]')" = busy ] &&
        [ "$(err '["measurement"]["kind"]')" = fabric ] &&
        [ "$(jq_py "$T/body" "d['error']['measurement']['ends_ms'] >= $start + 200")" = True ]
check "  answered long before the first one's start ($(( $(now_ms) - t0 )) ms)" [ "$(now_ms)" -lt "$start" ]
check "a read meanwhile: 200" [ "$(api "$ns" /v1/history)" = 200 ]
