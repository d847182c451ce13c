#!/usr/bin/env bash
# Rollback to a committed revision: `rollback --to REV` and POST /v1/rollback
# {"to": REV} apply that revision's policy again as a full transaction of kind
# "rollback"; an unknown revision is refused (exit 2 / 404) with nothing changed;
# bad arguments and bodies are refused (exit 2 / 400); history shows each
# committed transaction's revision number.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3

ns=$(netns_add ar)
nsp=$(netns_add arp)
ifc=ra$NT_ID
veth_pair "$ns" "$ifc" "$nsp" rb$NT_ID
make_certs "$T/certs" || fail "cannot make test certificates"
agent_config "$T/agent.json" "$T/state" "127.0.0.1:7440" "127.0.0.1:18515"
API_URL=https://127.0.0.1:7440
A() { ip netns exec "$ns" "$AGENT" --config "$T/agent.json" "$@"; }
ntx() { A --output json history >"$T/h.json" && jq_py "$T/h.json" 'len(d)'; }
rev_of_mtu() {  # the revision number the apply of this MTU committed
        jq_py "$T/a$1.json" 'd["rev"]'
}

# Three revisions of one policy (one layer, docs/policy-reference.md "Layers and owners":
# a second policy of another name could not declare the same MTU).
step "three committed revisions"
for m in 9000 4000 2000; do
        policy_file "$T/p$m.json" mtu "$ifc" "$m"
        expect_rc 0 "apply mtu $m" sh -c "ip netns exec '$ns' '$AGENT' --config '$T/agent.json' --output json apply '$T/p$m.json' >'$T/a$m.json'"
done
r9000=$(rev_of_mtu 9000); r4000=$(rev_of_mtu 4000); r2000=$(rev_of_mtu 2000)
echo "revisions: 9000=$r9000 4000=$r4000 2000=$r2000"
check "revisions numbered in commit order" [ "$r9000" -lt "$r4000" ] && [ "$r4000" -lt "$r2000" ]
A history >"$T/h.txt"
check "history table has a REV column" grep -q "^TX .* REV " "$T/h.txt"

step "refusals change nothing"
n=$(ntx)
rc=0; A rollback --to 999 2>"$T/err" || rc=$?
check "unknown revision: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "message names the revision" grep -q "revision 999 does not exist: no committed revision has that number; nothing was changed" "$T/err"
expect_rc 2 "--to without a number" A rollback --to abc
expect_rc 2 "--to 0" A rollback --to 0
expect_rc 2 "unknown argument" A rollback --bogus
check "MTU still 2000" [ "$(mtu_of "$ns" "$ifc")" = 2000 ]
check "no transaction recorded ($(ntx) vs $n)" [ "$(ntx)" = "$n" ]
A rollback --help >"$T/help"
check "help documents --to" grep -q -- "--to REV" "$T/help"

step "rollback --to the first revision (CLI)"
rc=0; A --output json rollback --to "$r9000" >"$T/r.json" || rc=$?
check "exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "committed" [ "$(jq_py "$T/r.json" 'd["result"]')" = committed ]
check "MTU 9000 again" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
A --output json history >"$T/h.json"
check "journaled as kind rollback of policy mtu" \
        [ "$(jq_py "$T/h.json" 'd[0]["kind"] + " " + d[0]["policy"]')" = "rollback mtu" ]
check "and recorded as a new revision" [ "$(jq_py "$T/h.json" 'd[0]["rev"]')" -gt "$r2000" ]

step "POST /v1/rollback with {\"to\": REV}"
serve_start "$ns" "$T/agent.json"
n=$(ntx)
check "unknown revision: 404" [ "$(api "$ns" /v1/rollback -X POST --data-binary '{"to": 999}')" = 404 ]
check "404 names the revision" grep -q 'revision 999 does not exist' "$T/body"
check "string revision: 400" [ "$(api "$ns" /v1/rollback -X POST --data-binary '{"to": "1"}')" = 400 ]
check "400 names the JSON path" [ "$(jq_py "$T/body" 'd["error"]["path"]')" = '$.to' ]
check "unknown key: 400" [ "$(api "$ns" /v1/rollback -X POST --data-binary '{"rev": 1}')" = 400 ]
check "revision 0: 400" [ "$(api "$ns" /v1/rollback -X POST --data-binary '{"to": 0}')" = 400 ]
check "malformed body: 400" [ "$(api "$ns" /v1/rollback -X POST --data-binary '{"to":')" = 400 ]
check "MTU still 9000" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
check "no transaction recorded" [ "$(ntx)" = "$n" ]
check "to the 4000 revision: 200" [ "$(api "$ns" /v1/rollback -X POST --data-binary "{\"to\": $r4000}")" = 200 ]
check "answer: committed" [ "$(jq_py "$T/body" 'd["result"]')" = committed ]
check "MTU 4000" [ "$(mtu_of "$ns" "$ifc")" = 4000 ]
check "same revision again: nothing to do" \
        [ "$(api "$ns" /v1/rollback -X POST --data-binary "{\"to\": $r4000}")" = 200 ] &&
        [ "$(jq_py "$T/body" 'd["result"]')" = nothing_to_do ]
check "empty body: undo the newest revision (200)" [ "$(api "$ns" /v1/rollback -X POST)" = 200 ]
check "MTU 9000 after the plain rollback" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]

step "a rollback with an idempotency key, sent twice: the second copy gets the first's answer"
A --output json history >"$T/h.json"
cur=$(jq_py "$T/h.json" "[t['rev'] for t in d if t['rev']][0]")
body="{\"to\": $r2000, \"expect_revision\": $cur}"
check "the first copy: 200" [ "$(api "$ns" '/v1/rollback?idempotency_key=rb-7-1-0-0000abcd' -X POST --data-binary "$body")" = 200 ]
check "committed" [ "$(jq_py "$T/body" 'd["result"]')" = committed ]
tx=$(jq_py "$T/body" 'd["tx"]')
check "MTU 2000" [ "$(mtu_of "$ns" "$ifc")" = 2000 ]
n=$(ntx)
check "the second copy, its precondition now stale: 200, not 409" \
        [ "$(api "$ns" '/v1/rollback?idempotency_key=rb-7-1-0-0000abcd' -X POST --data-binary "$body")" = 200 ]
check "answered from the journal: the same transaction, replayed" \
        [ "$(jq_py "$T/body" '(d["tx"], d["result"], d["replayed"])')" = "($tx, 'committed', True)" ]
check "nothing more journaled" [ "$(ntx)" = "$n" ]
A --output json history >"$T/h.json"
check "history shows the key with the rollback" \
        [ "$(jq_py "$T/h.json" "[t.get('idempotency_key') for t in d if t['tx'] == $tx][0]")" = rb-7-1-0-0000abcd ]
check "without the key, the same body is refused: 409" \
        [ "$(api "$ns" /v1/rollback -X POST --data-binary "$body")" = 409 ]
check "a bad key: 400 naming it" [ "$(api "$ns" '/v1/rollback?idempotency_key=a%20b' -X POST)" = 400 ] &&
        [ "$(jq_py "$T/body" 'd["error"]["path"]')" = idempotency_key ]
check "MTU still 2000" [ "$(mtu_of "$ns" "$ifc")" = 2000 ]
