#!/usr/bin/env bash
# Layers and owners on one agent (docs/policy-reference.md, "Layers and owners"): a
# second policy does not hide the first from drift; a field another layer owns is
# refused with nothing changed; metadata.overrides wins, and taking the overriding
# layer out returns the owner's value; a new version releases what it no longer
# declares; removing the last layer restores the value before nettune; a bare
# rollback over two layers is refused, rollback --policy undoes one.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd python3

ns=$(netns_add al)
nsp=$(netns_add alp)
a0=la$NT_ID
b0=lb$NT_ID
veth_pair "$ns" "$a0" "$nsp" pa$NT_ID
veth_pair "$ns" "$b0" "$nsp" pb$NT_ID
ip -n "$ns" link set "$a0" mtu 1500
ip -n "$ns" link set "$b0" mtu 1600
cat >"$T/agent.json" <<JSON
{ "state_dir": "$T/state" }
JSON
A() { ip netns exec "$ns" "$AGENT" --config "$T/agent.json" "$@"; }
pol() { # FILE NAME IFACES_JSON MTU [OVERRIDES_JSON]
        local ov=""
        [ -z "${5:-}" ] || ov=", \"overrides\": $5"
        cat >"$1" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy",
  "metadata": { "name": "$2"$ov },
  "targets": { "interfaces": $3 }, "spec": { "mtu": $4 },
  "verify": { "probe": "none", "settle_ms": 0 } }
JSON
}

step "two layers: pol-a on $a0, pol-b on $b0"
pol "$T/a.json" pol-a "[\"$a0\"]" 9000
pol "$T/b.json" pol-b "[\"$b0\"]" 4000
expect_rc 0 "apply pol-a" A apply "$T/a.json"
expect_rc 0 "apply pol-b" A apply "$T/b.json"
check "$a0 at 9000" [ "$(mtu_of "$ns" "$a0")" = 9000 ]
check "$b0 at 4000" [ "$(mtu_of "$ns" "$b0")" = 4000 ]

step "intent lists both layers' fields with their owners"
A --output json intent >"$T/i.json" || fail "intent failed"
check "two fields" [ "$(jq_py "$T/i.json" 'len(d["fields"])')" = 2 ]
check "$a0 mtu owned by pol-a" [ "$(jq_py "$T/i.json" "[f['owner']['policy'] for f in d['fields'] if f['target'] == '$a0'][0]")" = pol-a ]
check "live value shown" [ "$(jq_py "$T/i.json" "[f['live'] for f in d['fields'] if f['target'] == '$a0'][0]")" = 9000 ]
A intent >"$T/i.txt"
check "text names the owner" grep -q "$a0 mtu: 9000 (live 9000) policy 'pol-a' revision 1" "$T/i.txt"

step "a hand edit of the first layer's field is drift after the second policy"
ip -n "$ns" link set "$a0" mtu 1500
rc=0; A drift >"$T/d.txt" || rc=$?
check "drift exits 1 (got $rc)" [ "$rc" -eq 1 ]
check "drift names field, values and owner" grep -q "$a0 mtu: 1500 (committed: 9000) by policy 'pol-a' revision 1" "$T/d.txt"
A --output json drift >"$T/d.json" || true
check "JSON drift names the owner" [ "$(jq_py "$T/d.json" 'd["changes"][0]["owner"]["policy"]')" = pol-a ]
A --output json doctor --window 1 --interfaces "$a0,$b0" >"$T/doc.json" 2>/dev/null || true
check "doctor judges the same intent: drift on $a0's mtu, owned by pol-a" \
        [ "$(jq_py "$T/doc.json" "[f['evidence']['mtu'] for f in d['findings'] if f['code'] == 'drift']" 2>/dev/null)" = "[\"1500 (committed 9000 by policy 'pol-a')\"]" ]
ip -n "$ns" link set "$a0" mtu 9000
expect_rc 0 "no drift once restored" A drift

step "a field owned by another layer is refused, nothing changed"
pol "$T/c.json" pol-c "[\"$a0\"]" 5000
rc=0; A plan "$T/c.json" 2>"$T/err" >/dev/null || rc=$?
check "plan exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "plan names rule, field, target, owner, revision" grep -q "field_owned: field 'mtu' of interface '$a0' is owned by policy 'pol-a' (revision 1)" "$T/err"
A --output json history >"$T/h0.json"
rc=0; A apply "$T/c.json" 2>"$T/err" >/dev/null || rc=$?
check "apply exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "apply names the rule" grep -q "field_owned" "$T/err"
check "$a0 untouched" [ "$(mtu_of "$ns" "$a0")" = 9000 ]
A --output json history >"$T/h1.json"
check "no transaction touched a device" [ "$(jq_py "$T/h1.json" "[t['state'] for t in d if t['policy'] == 'pol-c' and t['state'] != 'planned']")" = "[]" ]

step "overrides wins; removing it returns the owner's value"
pol "$T/c.json" pol-c "[\"$a0\"]" 5000 '["pol-a"]'
expect_rc 0 "apply pol-c overriding pol-a" A apply "$T/c.json"
check "$a0 at 5000" [ "$(mtu_of "$ns" "$a0")" = 5000 ]
A --output json intent >"$T/i.json"
check "$a0 mtu now owned by pol-c" [ "$(jq_py "$T/i.json" "[f['owner']['policy'] for f in d['fields'] if f['target'] == '$a0'][0]")" = pol-c ]
rc=0; A rollback >"$T/out" 2>&1 || rc=$?
check "bare rollback over three layers exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "bare rollback names the layers" grep -q "pol-a, pol-b, pol-c" "$T/out"
check "$a0 untouched by the refused rollback" [ "$(mtu_of "$ns" "$a0")" = 5000 ]
expect_rc 0 "remove pol-c" A remove pol-c
check "$a0 back at pol-a's 9000" [ "$(mtu_of "$ns" "$a0")" = 9000 ]
expect_rc 0 "no drift after the remove" A drift

step "a new version releases what it no longer declares"
pol "$T/b2.json" pol-b "[\"$a0\"]" 9000 '["pol-a"]'
expect_rc 0 "pol-b moves to $a0" A apply "$T/b2.json"
check "$b0 back at its value before nettune (1600)" [ "$(mtu_of "$ns" "$b0")" = 1600 ]
expect_rc 0 "rollback --policy pol-b" A rollback --policy pol-b
check "$b0 at pol-b's previous 4000" [ "$(mtu_of "$ns" "$b0")" = 4000 ]

step "removing the last layer restores the value before nettune"
expect_rc 0 "remove pol-b" A remove pol-b
check "$b0 back at 1600" [ "$(mtu_of "$ns" "$b0")" = 1600 ]
expect_rc 0 "remove pol-a" A remove pol-a
check "$a0 back at 1500" [ "$(mtu_of "$ns" "$a0")" = 1500 ]
A --output json intent >"$T/i.json"
check "nothing left in the intent" [ "$(jq_py "$T/i.json" 'len(d["fields"])')" = 0 ]
rc=0; A remove pol-a 2>"$T/err" || rc=$?
check "removing a layer that is not committed exits 2 (got $rc)" [ "$rc" -eq 2 ]

step "a field another system owns (external_owners) is refused, nothing changed"
cat >"$T/ext.json" <<JSON
{ "state_dir": "$T/state",
  "external_owners": [ { "owner": "nic-operator", "interfaces": ["la*"], "fields": ["trust", "mtu"] } ] }
JSON
E() { ip netns exec "$ns" "$AGENT" --config "$T/ext.json" "$@"; }
rc=0; E plan "$T/a.json" 2>"$T/err" >/dev/null || rc=$?
check "plan exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "plan names rule, field, target and owner" grep -q "field_owned: field 'mtu' of interface '$a0' is owned by 'nic-operator'" "$T/err"
rc=0; E apply "$T/a.json" 2>"$T/err" >/dev/null || rc=$?
check "apply exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "apply names the owner" grep -q "owned by 'nic-operator'" "$T/err"
check "$a0 untouched" [ "$(mtu_of "$ns" "$a0")" = 1500 ]
expect_rc 0 "a policy on another interface is not refused" E plan "$T/b.json"
cat >"$T/bad.json" <<JSON
{ "state_dir": "$T/state", "external_owners": [ { "owner": "x", "fields": ["mtux"] } ] }
JSON
rc=0; ip netns exec "$ns" "$AGENT" --config "$T/bad.json" validate 2>"$T/err" || rc=$?
check "an unknown field name is refused (got $rc)" [ "$rc" -eq 2 ]
check "naming the JSON path" grep -q 'external_owners\[0\].fields\[0\]' "$T/err"
