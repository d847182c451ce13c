#!/usr/bin/env bash
# An apply lost on its way to the agent (its connection failed as it went out: no
# answer, and the agent never saw it) is sent once more with the same idempotency key,
# so that one failed connection does not cost the node its change. The load generator
# (tests/tools/loadgen_agent.c) loses the first applies it gets (--lose-applies N):
# the connection closes with no answer and nothing is recorded, as a request lost in
# the network is. It closes every connection after its answer (--close), so that each
# apply goes out on a new connection: libcurl sends a request again by itself only
# when a connection it reused dies unanswered.
# - One apply lost: the node's history has no transaction with the apply's key, the
#   apply goes again with it, and every node commits; each applied once, none twice.
# - The same node's apply lost twice: it is unreachable, the rollout stops at the
#   canary, and no other node was sent anything.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/loadgen.sh"

N=6
port=7468
lg_setup "$N" "$port" al
ns=$NS
lg_policy 9000 > "$T/p.json"

# applies: "APPLIED REPLAYED LOST": applies the load generator carried out, those it answered
# from a key it knew, and those it lost, so far.
applies() {
        lg_counts > /dev/null || fail "the load generator gave no counts"
        grep '^loadgen_agent: .* connections' "$LG_LOG" | tail -1 |
                sed -n 's/.* \([0-9]*\) applies, \([0-9]*\) replayed keys, .* \([0-9]*\) applies lost$/\1 \2 \3/p'
}
# node_field REPORT NAME FIELD
node_field() { json_get "$1" "[n[\"$3\"] for n in d[\"nodes\"] if n[\"name\"] == \"$2\"][0]"; }
json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

step "one apply lost: sent again with the same key, every node commits"
lg_start "$ns" "$N" "$port" "$T/pki" "$T/lg1.log" --close --lose-applies 1
rc=0
ip netns exec "$ns" "$CTL" --inventory "$T/inv.json" --db "$T/ctl.db" --quiet --output json apply "$T/p.json" \
        --canary 1 --wave-size 50% --confirm-timeout 300 --timeout 30 > "$T/one.json" || rc=$?
check "the rollout exited 0 (exit $rc)" [ "$rc" = 0 ]
check "all $N nodes committed" [ "$(json_get "$T/one.json" 'd["summary"]["committed"]')" = "$N" ]
check "one apply lost, one carried out a node, none twice (applied, replayed, lost: $(applies))" \
        [ "$(applies)" = "$N 0 1" ]
kill "$LG_PID"; wait "$LG_PID" 2>/dev/null || true

step "the same apply lost twice: the canary is unreachable, nothing else is sent"
lg_start "$ns" "$N" "$port" "$T/pki" "$T/lg2.log" --close --lose-applies 2
rc=0
ip netns exec "$ns" "$CTL" --inventory "$T/inv.json" --db "$T/ctl2.db" --quiet --output json apply "$T/p.json" \
        --canary 1 --wave-size 50% --confirm-timeout 300 --timeout 30 > "$T/two.json" || rc=$?
check "the rollout failed (exit $rc)" [ "$rc" != 0 ]
check "the canary is unreachable" [ "$(node_field "$T/two.json" lg0000 state)" = unreachable ]
check "its error says the apply went twice and never arrived" \
        grep -q "sent twice with the same key" <<<"$(node_field "$T/two.json" lg0000 error)"
check "no node applied anything (applied, replayed, lost: $(applies))" [ "$(applies)" = "0 0 2" ]
kill "$LG_PID"; wait "$LG_PID" 2>/dev/null || true
