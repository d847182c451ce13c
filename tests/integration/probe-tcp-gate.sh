#!/usr/bin/env bash
# The tcp probe across a veth pair between two namespaces, and the regression gate:
# a tbf rate limit added between the baseline and the post-change measurement
# makes the gate fail (exit 1, verdict "regression"); removing it recovers. The
# responder serves only the networks it allows: without --allow, this host only.
# The limit (200 Mbit/s) costs over 80% of any baseline above 1 Gb/s, while the
# rate of an unchanged veth on a busy machine (make check-stressed) moves by more
# than 50% between two measurements: the gates allow 75% regression, so that the
# unchanged path passes and the limited one fails, however busy the CPUs are.
. "$NETTUNE_TOP/tests/lib/common.sh"
require_root
require_cmd tc ip ss python3

nsa=$(netns_add pa)
nsb=$(netns_add pb)
va=pa$NT_ID vb=pb$NT_ID
veth_pair "$nsa" "$va" "$nsb" "$vb" 10.201.0.1/24 10.201.0.2/24
port=18515
peer=10.201.0.2:$port

step "probe-server in $nsb"
bg ip netns exec "$nsb" "$AGENT" probe-server --listen "$peer" --allow 10.201.0.0/24
server=$BG_PID
wait_for 10 sh -c "ip netns exec '$nsb' ss -ltnH 'sport = :$port' | grep -q LISTEN" ||
        fail "probe-server did not start listening on $peer"

probe() {       # probe EXTRA...: JSON result on stdout, exit status of the agent
        ip netns exec "$nsa" "$AGENT" probe --peer "$peer" --mode tcp --duration-ms 700 --runs 3 \
                --output json "$@"
}
field() {       # field FILE PYEXPR
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

step "baseline"
probe >"$T/base.json" || fail "baseline probe failed"
base=$(field "$T/base.json" 'd["gbps"]')
runs=$(field "$T/base.json" 'len(d["measurement"]["runs"])')
echo "baseline: $base Gb/s over $runs runs"
check "three runs recorded" [ "$runs" -eq 3 ]
check "baseline above 1 Gb/s on veth (got $base)" python3 -c "import sys; sys.exit(0 if $base > 1 else 1)"

step "no change: the gate passes"
rc=0; probe --baseline-gbps "$base" --max-regression-pct 75 >"$T/same.json" || rc=$?
echo "unchanged: $(field "$T/same.json" 'd["gbps"]') Gb/s"
check "unchanged path passes the gate (exit $rc)" [ "$rc" -eq 0 ]
check "verdict pass" [ "$(field "$T/same.json" 'd["gate"]["verdict"]')" = pass ]

step "tbf 200mbit on $va: the gate fails"
tc -n "$nsa" qdisc add dev "$va" root tbf rate 200mbit burst 32k latency 10ms
rc=0; probe --baseline-gbps "$base" --max-regression-pct 75 >"$T/post.json" || rc=$?
check "rate-limited path fails the gate (exit $rc, expected 1)" [ "$rc" -eq 1 ]
post=$(field "$T/post.json" 'd["gbps"]')
echo "post: $post Gb/s, gate: $(field "$T/post.json" 'd["gate"]["reason"]')"
check "verdict regression" [ "$(field "$T/post.json" 'd["gate"]["verdict"]')" = regression ]
check "post rate at most the 0.2 Gb/s limit (got $post)" python3 -c "import sys; sys.exit(0 if 0.05 < $post < 0.25 else 1)"

step "tbf removed: recovered"
tc -n "$nsa" qdisc del dev "$va" root
rc=0; probe --baseline-gbps "$base" --max-regression-pct 75 >/dev/null || rc=$?
check "recovered path passes the gate (exit $rc)" [ "$rc" -eq 0 ]

step "failures"
expect_rc 3 "unreachable peer is a runtime failure" \
        ip netns exec "$nsa" "$AGENT" probe --peer 10.201.0.2:1 --mode tcp --runs 1
expect_rc 2 "bad usage" ip netns exec "$nsa" "$AGENT" probe --peer 10.201.0.2:1 --streams 99
expect_rc 3 "verbs without an RDMA device" \
        ip netns exec "$nsa" "$AGENT" probe --peer "$peer" --mode verbs --runs 1

step "the responder refuses clients it does not allow, before any session"
bg ip netns exec "$nsb" "$AGENT" probe-server --listen 10.201.0.2:18516
wait_for 10 sh -c "ip netns exec '$nsb' ss -ltnH 'sport = :18516' | grep -q LISTEN" || fail "second probe-server"
bg ip netns exec "$nsb" "$AGENT" probe-server --listen 10.201.0.2:18517 --allow 10.9.0.0/16 --allow fd00::/8
wait_for 10 sh -c "ip netns exec '$nsb' ss -ltnH 'sport = :18517' | grep -q LISTEN" || fail "third probe-server"
for p in 18516 18517; do
        rc=0
        ip netns exec "$nsa" "$AGENT" probe --peer 10.201.0.2:$p --mode tcp --duration-ms 200 --runs 1 \
                2>"$T/refused.err" || rc=$?
        check "port $p: refused (exit $rc, expected 3)" [ "$rc" -eq 3 ]
        check "port $p: the client is told why" grep -q "client 10.201.0.1 is not allowed" "$T/refused.err"
done
# the same responder serves this host (its own address, loopback)
rc=0; ip netns exec "$nsb" "$AGENT" probe --peer 10.201.0.2:18516 --mode tcp --duration-ms 200 --runs 1 >/dev/null || rc=$?
check "a probe from the responder's own host is served (exit $rc)" [ "$rc" -eq 0 ]

step "probe-server stops on SIGTERM"
kill -TERM "$server"
rc=0; wait "$server" || rc=$?
check "probe-server exited 0 (got $rc)" [ "$rc" -eq 0 ]
