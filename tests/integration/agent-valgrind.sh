#!/usr/bin/env bash
# valgrind finds no leaks or errors in the apply path (apply, a gate-less commit,
# nothing-to-do, drift, rollback) of a non-sanitized build inside a namespace.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd valgrind ss
if nm -D "$AGENT" 2>/dev/null | grep -c __asan_init >/dev/null; then
        # valgrind cannot run a sanitized binary: build a plain copy beside it.
        plain=$BUILD/plain
        make -s -C "$NETTUNE_TOP" BUILD="$plain" SANITIZE= "$plain/nettune-agent" >"$T/build.log" 2>&1 ||
                { tail -5 "$T/build.log"; fail "cannot build a plain nettune-agent for valgrind"; }
        AGENT=$plain/nettune-agent
fi

ns=$(netns_add av)
nsp=$(netns_add avp)
ifc=va$NT_ID
veth_pair "$ns" "$ifc" "$nsp" vb$NT_ID 10.206.0.1/24 10.206.0.2/24
bg ip netns exec "$nsp" "$AGENT" probe-server --listen 10.206.0.2:18515 --allow 10.206.0.0/24
wait_for 10 sh -c "ip netns exec '$nsp' ss -ltnH 'sport = :18515' | grep -q LISTEN" || fail "probe-server did not start"
# min_gbps far above veth: the probe runs, the gate fails, the snapshot is restored.
policy_file "$T/gated.json" gated "$ifc" 4000 \
        '{"probe":"tcp","peer":"10.206.0.2:18515","duration_ms":200,"runs":2,"settle_ms":0,"min_gbps":100000}'
policy_file "$T/p.json" jumbo "$ifc" 9000
echo "{ \"state_dir\": \"$T/state\" }" >"$T/agent.json"
V() {
        ip netns exec "$ns" valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
                --errors-for-leak-kinds=definite,indirect --error-exitcode=9 \
                "$AGENT" --config "$T/agent.json" "$@"
}
expect_rc 0 "apply under valgrind" V apply "$T/p.json"
check "MTU 9000" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
expect_rc 0 "nothing to do under valgrind" V apply "$T/p.json"
ip -n "$ns" link set "$ifc" mtu 1400
expect_rc 1 "drift under valgrind" V drift
expect_rc 0 "rollback under valgrind" V rollback
expect_rc 1 "gated apply rolled back under valgrind" V apply "$T/gated.json"
check "MTU restored to 1500" [ "$(mtu_of "$ns" "$ifc")" = 1500 ]
expect_rc 0 "history under valgrind" V --output json history

step "serve: the fabric endpoints under valgrind"
# The agent's part of a fabric probe: its clock and responder, then two flows started
# together against its own responder (loopback), and a start that has passed.
cat >"$T/serve.json" <<JSON
{ "listen": "127.0.0.1:17440", "state_dir": "$T/state-serve",
  "probe": { "listen": "127.0.0.1:18516", "max_clients": 4 }, "drift": { "interval_s": 0 } }
JSON
bg ip netns exec "$ns" valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
        --errors-for-leak-kinds=definite,indirect --error-exitcode=9 --log-file="$T/serve-vg.log" \
        "$AGENT" --config "$T/serve.json" serve --insecure-loopback
VG_PID=$BG_PID
wait_for 120 sh -c "ip netns exec '$ns' ss -ltnH 'sport = :17440' | grep -q LISTEN" || fail "serve did not start under valgrind"
fab() { ip netns exec "$ns" curl -s -o "$T/body" -w '%{http_code}' --max-time 120 -H 'Content-Type: application/json' \
        "http://127.0.0.1:17440$1" "${@:2}"; }
check "GET /v1/fabric" [ "$(fab /v1/fabric)" = 200 ]
check "it advertises its responder" [ "$(jq_py "$T/body" 'd["probe"]["address"]')" = 127.0.0.1:18516 ]
start=$(( $(date +%s%N) / 1000000 + 5000 ))
check "two flows at one start" [ "$(fab /v1/fabric/flows -d "{\"start_at_ms\": $start, \"duration_ms\": 300, \"flows\": [
        {\"id\": 1, \"peer\": \"127.0.0.1:18516\", \"mode\": \"tcp\"}, {\"id\": 2, \"peer\": \"127.0.0.1:18516\", \"mode\": \"tcp\"}]}")" = 200 ]
check "both measured" [ "$(jq_py "$T/body" 'd["ok"]')" = 2 ]
check "a start that has passed: 409" [ "$(fab /v1/fabric/flows -d "{\"start_at_ms\": $start, \"flows\": [{\"id\": 1, \"peer\": \"127.0.0.1:18516\"}]}")" = 409 ]
kill -TERM "$VG_PID"
rc=0; wait "$VG_PID" || rc=$?
cat "$T/serve-vg.log"
[ "$rc" -eq 0 ] || fail "serve exited $rc under valgrind"
[ ! -s "$T/serve-vg.log" ] || fail "valgrind reported errors or leaks in serve (above)"
echo "ok: serve exits cleanly under valgrind, nothing reported"
