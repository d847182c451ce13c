#!/usr/bin/env bash
# A journal written before layers (tests/data/journal/before-layers.sql, made by the
# agent of commit f3e2ae2: pol-a then pol-b, both on mga0) opens as one layer, its
# newest committed policy, without re-applying anything; the value each field had
# before nettune comes from the oldest snapshot that holds it.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd python3

ns=$(netns_add lm)
nsp=$(netns_add lmp)
veth_pair "$ns" mga0 "$nsp" mp0$NT_ID
veth_pair "$ns" mgb0 "$nsp" mp1$NT_ID
# as the old agent left them
ip -n "$ns" link set mga0 mtu 4000
ip -n "$ns" link set mgb0 mtu 4000
mkdir -m 0700 "$T/state"
python3 - "$NETTUNE_TOP/tests/data/journal/before-layers.sql" "$T/state/journal.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[2])
c.executescript(open(sys.argv[1]).read())
c.close()
PY
chmod 0600 "$T/state/journal.db"
echo "{ \"state_dir\": \"$T/state\" }" >"$T/agent.json"
A() { ip netns exec "$ns" "$AGENT" --config "$T/agent.json" "$@"; }

step "the old journal opens as one layer"
A --output json history >"$T/h0.json" || fail "history failed"
check "two transactions, as written" [ "$(jq_py "$T/h0.json" 'len(d)')" = 2 ]
A --output json intent >"$T/i.json" || fail "intent failed"
check "one layer: pol-b, revision 2" [ "$(jq_py "$T/i.json" '[(l["policy"], l["revision"]) for l in d["layers"]]')" = "[('pol-b', 2)]" ]
check "pol-b owns both MTUs" [ "$(jq_py "$T/i.json" 'sorted((f["target"], f["owner"]["policy"], f["value"]) for f in d["fields"])')" = "[('mga0', 'pol-b', 4000), ('mgb0', 'pol-b', 4000)]" ]
expect_rc 0 "no drift" A drift
A --output json history >"$T/h1.json"
check "nothing was re-applied" [ "$(jq_py "$T/h1.json" 'len(d)')" = 2 ]

step "the journal's snapshots give each field's value before nettune"
expect_rc 0 "remove pol-b" A remove pol-b
check "mga0 back at 1500 (before pol-a, the first to take it)" [ "$(mtu_of "$ns" mga0)" = 1500 ]
check "mgb0 back at 1600" [ "$(mtu_of "$ns" mgb0)" = 1600 ]
A --output json intent >"$T/i.json"
check "nothing left" [ "$(jq_py "$T/i.json" 'len(d["layers"])')" = 0 ]
