#!/usr/bin/env bash
# A journal reset to 0 bytes (its WAL gone), or removed, while a transaction is in
# flight is told apart from a first start: the state directory's marker
# (journal.marker) records that a journal existed and which transaction was in
# flight, so serve and the CLI refuse to start, naming the interface that
# transaction may have left changed and the recovery (journal-recover). Before, the
# agent opened an empty journal as a first start: the interface stayed on the
# half-applied value and nothing said a journal was lost.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3

ns=$(netns_add jl)
nsp=$(netns_add jlp)
ifc=jl$NT_ID
veth_pair "$ns" "$ifc" "$nsp" jm$NT_ID 10.212.0.1/24 10.212.0.2/24
make_certs "$T/certs" || fail "cannot make test certificates"
port=7468
agent_config "$T/agent.json" "$T/state" "127.0.0.1:$port" "127.0.0.1:18568" '"drift": {"interval_s": 0}'
API_URL=https://127.0.0.1:$port
policy_file "$T/p4000.json" jumbo4k "$ifc" 4000
policy_file "$T/p9000.json" jumbo "$ifc" 9000
agent() { ip netns exec "$ns" "$AGENT" --config "$T/agent.json" "$@"; }
mtu_is() { [ "$(mtu_of "$ns" "$ifc")" = "$1" ]; }

step "a first start: an empty state directory starts, and records its journal"
serve_start "$ns" "$T/agent.json" 2>>"$T/serve.log"
check "the marker exists beside the journal" [ -s "$T/state/journal.marker" ] && [ -e "$T/state/journal.db" ]

step "a transaction in flight (pending confirmation, 600 s), then the agent dies"
check "apply 4000: 200, pending" \
        [ "$(api "$ns" '/v1/apply?confirm_timeout_s=600' -X POST --data-binary @"$T/p4000.json")" = 200 ] &&
        [ "$(jq_py "$T/body" 'd["state"]')" = pending_confirm ] && mtu_is 4000
tx=$(jq_py "$T/body" 'd["tx"]')
check "the marker names the transaction in flight and its target" \
        [ "$(jq_py "$T/state/journal.marker" 'd["in_flight"]["tx"], d["in_flight"]["targets"]')" = "$tx ['$ifc']" ]
kill -KILL "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true

step "the journal reset to 0 bytes, its WAL gone: refused at start, not a first start"
: > "$T/state/journal.db"
rm -f "$T/state/journal.db-wal" "$T/state/journal.db-shm"
rc=0; timeout 30 ip netns exec "$ns" "$AGENT" --config "$T/agent.json" serve 2>"$T/refused.err" || rc=$?
cat "$T/refused.err"
check "serve exits non-zero (got $rc)" [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]
check "  saying the journal is lost, not new" grep -q "the journal is lost: it is empty (0 bytes, no WAL), but .*journal.marker records that a journal existed" "$T/refused.err"
check "  naming the transaction in flight and the interface it may have left changed" \
        grep -q "transaction $tx (apply of policy 'jumbo4k'), which may have left changed: '$ifc'" "$T/refused.err"
check "  and the recovery" grep -q "journal-recover" "$T/refused.err"
check "  the journal was not recreated: still 0 bytes" [ ! -s "$T/state/journal.db" ]
check "the CLI refuses too (history)" sh -c "! ip netns exec '$ns' '$AGENT' --config '$T/agent.json' history 2>'$T/hist.err'" &&
        grep -q "the journal is lost" "$T/hist.err"
check "nothing was touched: MTU still the half-applied 4000" mtu_is 4000

step "removed altogether: refused the same way"
rm -f "$T/state/journal.db"
check "serve refuses: the journal is missing" \
        sh -c "! timeout 30 ip netns exec '$ns' '$AGENT' --config '$T/agent.json' serve 2>'$T/missing.err'" &&
        grep -q "the journal is lost: it is missing" "$T/missing.err" && grep -q "'$ifc'" "$T/missing.err"

step "the documented recovery: journal-recover keeps the marker, starts a new journal"
check "journal-recover: exit 0" agent journal-recover > "$T/recover.out"
cat "$T/recover.out"
check "  it names the interface to check" grep -q "which may have left changed: '$ifc'" "$T/recover.out"
check "  the old marker is kept beside" ls "$T"/state/journal.marker.lost-* >/dev/null
serve_start "$ns" "$T/agent.json" 2>>"$T/serve.log"
check "serve starts; the new journal is empty" [ "$(api "$ns" /v1/history)" = 200 ] &&
        [ "$(jq_py "$T/body" 'len(d["transactions"])')" = 0 ]
check "the operator sets the interface: apply 9000, committed" \
        [ "$(api "$ns" /v1/apply -X POST --data-binary @"$T/p9000.json")" = 200 ] &&
        [ "$(jq_py "$T/body" 'd["state"]')" = committed ] && mtu_is 9000
check "the new marker records nothing in flight" [ "$(jq_py "$T/state/journal.marker" 'd["in_flight"]')" = None ]
kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true
