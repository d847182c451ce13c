#!/usr/bin/env bash
# Controller: one node rigged to regress (tbf 200 Mbit/s on its veth, verify.probe tcp
# against a probe-server with min_gbps 0.5: a healthy veth stays above 1 Gb/s even on
# a busy machine under make check-stressed). The rollout halts in its second wave: the
# rigged node rolls itself back, its unconfirmed wave-mate is cancelled by the
# controller (its agent restores it at once, long before its 600 s deadline), the
# committed canary is rolled back (--rollback-on-halt all), later waves are never
# touched, and the report says so.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd tc sqlite3
N=20

step "fleet of $N agents, node 2 shaped to 200 Mbit/s"
fleet_up $N
tc -n "$(node_ns 2)" qdisc add dev nt0 root tbf rate 200mbit burst 32k latency 10ms
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' \
        '{ "probe": "tcp", "peer": "10.88.255.1:18515", "duration_ms": 1000, "settle_ms": 0, "runs": 1, "min_gbps": 0.5, "max_regression_pct": 90 }'

step "apply: canary 1, waves of 2, halt rolls back everything"
expect_rc 1 "rollout halts and rolls back" ctl_to "$T/apply.json" --output json --parallel 1 apply "$T/mtu.json" \
        --canary 1 --wave-size 2 --confirm-timeout 600 --rollback-on-halt all
state_of() { json_get "$T/apply.json" "[n['state'] for n in d['nodes'] if n['name']=='$1'][0]"; }
json_get "$T/apply.json" '"\n".join("%s %s %s -> %s" % (n["name"], n["state"], n["baseline_gbps"], n["post_gbps"]) for n in d["nodes"][:3])'
check "rollout state halted" [ "$(json_get "$T/apply.json" 'd["state"]')" = halted ]
check "canary node001 rolled back by the controller" [ "$(state_of node001)" = rolled_back ]
check "rigged node002 failed verification" [ "$(state_of node002)" = failed ]
check "node002's agent rolled back by its gate" [ "$(json_get "$T/apply.json" '[n for n in d["nodes"] if n["name"]=="node002"][0]["exit_code"]')" = 1 ]
check "node002 reports its low rate" [ "$(json_get "$T/apply.json" '[n for n in d["nodes"] if n["name"]=="node002"][0]["post_gbps"] < 0.5')" = True ]
check "node003 (pending in the halted wave) cancelled by the controller" [ "$(state_of node003)" = cancelled ]
check "17 later nodes skipped" [ "$(json_get "$T/apply.json" 'd["summary"]["skipped"]')" = 17 ]
check "the halted wave and the canary are back at 1500 when nettunectl returns" \
        [ "$(node_mtu 1)$(node_mtu 2)$(node_mtu 3)" = 150015001500 ]
check "a skipped node was never touched" [ "$(node_mtu 9)" = 1500 ]

step "no agent holds anything pending; node003's agent restored it when the cancel came"
for i in 1 2 3 9; do
        agent_history "$i" "$T/h$i.json" || fail "cannot read node $i's history"
        [ "$(json_get "$T/h$i.json" 'sum(t["state"] == "pending_confirm" for t in d["transactions"])')" = 0 ] ||
                fail "node $i still has a pending transaction"
done
check "node003's change was restored by its agent, not committed" \
        [ "$(json_get "$T/h3.json" '[t["state"] for t in d["transactions"] if t["kind"] == "apply"][0]')" = rolled_back ]
ctl status > "$T/status.txt"
check "status reports the halt" grep -q "halted: 1 node failed (budget 0); 1 rolled back, 1 cancelled, 0 reverted, 17 skipped" "$T/status.txt"
check "status shows node003 cancelled" grep -Eq "node003 +cancelled .*its wave halted: cancelled, its agent restored it" "$T/status.txt"

step "status --svg: the timeline of the halted rollout, every wave and node drawn"
if command -v rsvg-convert >/dev/null; then
        ctl status --svg "$T/status.svg" >/dev/null
        ctl --output json status >"$T/status.json"
        check "every wave in its state's colour (the halted one vermillion), every node's two bars in its state" \
                python3 "$NETTUNE_TOP/tests/lib/svg_check.py" status "$T/status.svg" "$T/status.json"
        check "the halt and the rollback marked" grep -q 'class="event halt"' "$T/status.svg"
        check "its text equivalent says halted" grep -q '<desc id="desc">Rollout [0-9]* (apply of &apos;mtu-9000&apos;): halted' "$T/status.svg"
else
        echo "skip: no rsvg-convert (librsvg2-bin): the picture is not rendered"
fi
