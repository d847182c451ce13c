#!/usr/bin/env bash
# The transaction commands' CLI contract: --help, usage errors (exit 2), a field the
# interface cannot serve refused before anything is touched (exit 2), invalid
# policies (exit 2), nothing to roll back, and a full apply/rollback round trip.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd python3

ns=$(netns_add al)
nsp=$(netns_add alp)
ifc=la$NT_ID
veth_pair "$ns" "$ifc" "$nsp" lb$NT_ID
echo "{ \"state_dir\": \"$T/state\" }" >"$T/agent.json"
A() { ip netns exec "$ns" "$AGENT" --config "$T/agent.json" "$@"; }

step "help and usage"
for c in apply rollback confirm history drift serve; do
        A "$c" --help >"$T/help" || fail "$c --help failed"
        check "$c --help prints usage" grep -q "^usage: nettune-agent .* $c" "$T/help"
done
expect_rc 2 "apply without a policy" A apply
expect_rc 2 "apply with a bad --confirm-timeout" A apply --confirm-timeout soon "$T/x.json"
expect_rc 2 "confirm with a bad id" A confirm abc
expect_rc 2 "serve with an unknown flag" A serve --bogus

step "refusals change nothing"
cat >"$T/pfc.json" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "lossless" },
  "targets": { "interfaces": ["$ifc"] }, "spec": { "mtu": 9000, "pfc": { "priorities": [3] } } }
JSON
rc=0; A apply "$T/pfc.json" 2>"$T/err" || rc=$?
check "unsupported field refused with exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "message names interface, field, and that nothing changed" \
        grep -q "interface '$ifc' (driver veth) does not support DCB (needed for pfc); nothing was changed" "$T/err"
check "MTU untouched" [ "$(mtu_of "$ns" "$ifc")" = 1500 ]
policy_file "$T/bad.json" bad "$ifc" 99999
rc=0; A apply "$T/bad.json" 2>"$T/err" || rc=$?
check "invalid policy exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "message has file and JSON path" grep -q "bad.json: \$.spec.mtu: mtu 99999 out of range 68-9978; nothing was changed" "$T/err"
policy_file "$T/none.json" none "zz$NT_ID*" 9000
rc=0; A apply "$T/none.json" 2>"$T/err" || rc=$?
check "no interface matches: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "the error lists the interfaces that exist" grep -q "no interface matches 'zz$NT_ID\*' (interfaces here: .*$ifc" "$T/err"
rc=0; A aply "$T/p.json" 2>"$T/err" || rc=$?
check "an unknown subcommand: exit 2 and the closest (got $rc)" [ "$rc" -eq 2 ] && grep -q "did you mean 'apply'" "$T/err"
rc=0; A apply --confirm-timout 5 "$T/p.json" 2>"$T/err" || rc=$?
check "an unknown flag: exit 2 and the closest" [ "$rc" -eq 2 ] && grep -q "did you mean '--confirm-timeout'" "$T/err"
expect_rc 2 "nothing to roll back" A rollback
A --output json history >"$T/h.json"
check "no transaction recorded" [ "$(jq_py "$T/h.json" 'len(d)')" = 0 ]

step "apply, rollback, history"
policy_file "$T/p.json" jumbo "$ifc" 9000
expect_rc 0 "apply" A apply "$T/p.json"
check "MTU 9000" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
rc=0; A --output json apply "$T/p.json" >"$T/r.json" || rc=$?
check "second apply: nothing to do (exit $rc)" [ "$rc" -eq 0 ] && [ "$(jq_py "$T/r.json" 'd["result"]')" = nothing_to_do ]
expect_rc 0 "rollback" A rollback
check "MTU 1500 again" [ "$(mtu_of "$ns" "$ifc")" = 1500 ]
A history >"$T/h.txt"
check "history table lists both" sh -c "grep -q '^2 *rollback' '$T/h.txt' && grep -q '^1 *apply *jumbo' '$T/h.txt'"
