#!/usr/bin/env bash
# The controller's connections to its agents, counted by the other side: the load
# generator (tests/tools/loadgen_agent.c, 48 endpoints with a certificate each, mTLS,
# the agent's own HTTPS server code) counts the requests it answered, the connections
# it accepted (each a TLS handshake) and those that resumed a session.
# - A rollout (canary 1, waves of 25%, confirm on) asks each node four things (health,
#   plan, apply, confirm) on one connection: 4 requests and one full handshake a node.
# - When every agent closes each connection after its answer, the controller
#   reconnects for each request and resumes the node's TLS session with the ticket
#   its agent issued: still one full handshake a node, the three others resumed.
# Full handshakes are counted as connections less resumed ones, so a connection the
# controller closed for idling (20 s) on a slow machine and resumed does not fail it.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/loadgen.sh"

N=48
port=7466
lg_setup "$N" "$port" cc
ns=$NS
lg_policy 9000 > "$T/a.json"
lg_policy 4000 > "$T/b.json"

# rollout POLICY NAME: every node committed; sets REQ, FULL, RESUMED (the run's, per node ×100)
rollout() {
        local k0 k1 a b
        k0=$(lg_counts) || fail "the load generator gave no counts"
        ip netns exec "$ns" "$CTL" --inventory "$T/inv.json" --db "$T/ctl.db" --quiet --output json apply "$1" \
                --canary 1 --wave-size 25% --confirm-timeout 300 --timeout 60 > "$T/$2.json" ||
                fail "the rollout exited $? ($(tail -c 400 "$T/$2.json"))"
        k1=$(lg_counts) || fail "the load generator gave no counts"
        check "$2: all $N nodes committed" \
                [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["committed"])' "$T/$2.json")" = "$N" ]
        read -r -a a <<<"$k0"
        read -r -a b <<<"$k1"
        REQ=$(( b[0] - a[0] )) FULL=$(( b[1] - a[1] - (b[2] - a[2]) )) RESUMED=$(( b[2] - a[2] ))
        echo "$2: $REQ requests, $(( b[1] - a[1] )) connections, $RESUMED resumed: $(per_node "$N" "$k0" "$k1")"
}

step "connections kept: one handshake a node for its four requests"
lg_start "$ns" "$N" "$port" "$T/pki" "$T/lg.log"
rollout "$T/a.json" kept
check "kept: 4 requests a node ($REQ for $N nodes)" [ "$REQ" = $((4 * N)) ]
check "kept: one full TLS handshake a node ($FULL)" [ "$FULL" = "$N" ]
kill "$LG_PID"; wait "$LG_PID" 2>/dev/null || true

step "every agent closes each connection: the controller resumes the node's session"
lg_start "$ns" "$N" "$port" "$T/pki" "$T/lg-close.log" --close
rollout "$T/b.json" closed
check "closed: 4 requests a node ($REQ)" [ "$REQ" = $((4 * N)) ]
check "closed: still one full TLS handshake a node ($FULL)" [ "$FULL" = "$N" ]
check "closed: the other three connections of each node resumed its session ($RESUMED)" [ "$RESUMED" = $((3 * N)) ]
kill "$LG_PID"; wait "$LG_PID" 2>/dev/null || true
