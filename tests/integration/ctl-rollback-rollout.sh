#!/usr/bin/env bash
# Controller: a fleet rollback by rollout ends where the fleet was before the rollout.
# Six real agents, all at a committed MTU 4000 first (revision 1 each). Rollout S of MTU
# 9000 halts with mixed outcomes: the canary committed, node003's gate rejected the
# change (tbf 200 Mbit/s against min_gbps 0.5) and its agent restored it, its wave-mate
# node002 was cancelled, nodes 4-6 skipped. Then:
# - a bare `nettunectl rollback` is refused (exit 2, nothing changed), listing S among
#   the newest rollouts; `rollback --rollout S`: the canary's change is undone,
#   node002 and node003 are already there and left alone (node003's rejected change is
#   never put back), every node reads MTU 4000 live, the summary counts it, and a
#   second run changes nothing on any node;
# - after a second such rollout S2, a later rollout changes the canary again: `rollback
#   --rollout S2` refuses it by name (exit 3, left at the later value), `--force`
#   restores its revision from before S2 over it, and a further run is a no-op.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd sqlite3 tc
N=6
GATE='{ "probe": "tcp", "peer": "10.88.255.1:18515", "duration_ms": 500, "settle_ms": 0, "runs": 1, "min_gbps": 0.5, "max_regression_pct": 90, "on_inconclusive": "fail" }'

step "fleet of $N agents, all at a committed MTU 4000"
fleet_up $N
policy "$T/v1.json" mtu-4000 4000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
policy "$T/v2.json" mtu-9000 9000 '{ "role": "gpu" }' "$GATE"
policy "$T/v3.json" mtu-8000 8000 '{ "rack": "r1" }' '{ "probe": "none", "settle_ms": 0 }'
expect_rc 0 "the base rollout" ctl --quiet apply "$T/v1.json" --canary 1 --wave-size 100% > /dev/null
mtus() { local i s=""; for ((i = 1; i <= N; i++)); do s+="$(node_mtu "$i") "; done; echo "${s% }"; }
check "every node at 4000" [ "$(mtus)" = "4000 4000 4000 4000 4000 4000" ]
# newest_tx I: the newest transaction of node I's history ("TX KIND STATE").
newest_tx() {
        agent_history "$1" "$T/nt-$1.json" &&
                json_get "$T/nt-$1.json" '" ".join(str(d["transactions"][0][k]) for k in ("tx", "kind", "state"))'
}
state_in() { json_get "$1" "[n['state'] for n in d['nodes'] if n['name'] == '$2'][0]"; }
error_in() { json_get "$1" "[n['error'] for n in d['nodes'] if n['name'] == '$2'][0]"; }
halted_rollout() {      # halted_rollout FILE: rollout of v2 with node003 shaped; exit 1, mixed outcomes
        expect_rc 1 "the rollout halts" ctl_to "$1" --output json apply "$T/v2.json" --canary 1 --wave-size 2 \
                --confirm-timeout 600
        check "the canary committed" [ "$(state_in "$1" node001)" = committed ]
        check "node003's gate rejected the change" [ "$(state_in "$1" node003) $(json_get "$1" \
                '[n["exit_code"] for n in d["nodes"] if n["name"] == "node003"][0]')" = "failed 1" ]
        check "node002 cancelled" [ "$(state_in "$1" node002)" = cancelled ]
        check "3 skipped" [ "$(json_get "$1" 'd["summary"]["skipped"]')" = 3 ]
        check "live: the canary at 9000, the rest at 4000" [ "$(mtus)" = "9000 4000 4000 4000 4000 4000" ]
}

step "rollout S halts with mixed outcomes"
tc -n "$(node_ns 3)" qdisc add dev nt0 root tbf rate 200mbit burst 32k latency 10ms
halted_rollout "$T/s.json"
S=$(json_get "$T/s.json" 'd["id"]')
check "each node's revision before S is on record" \
        [ "$(ctl_db "select group_concat(pre_rev || '/' || rev, ' ') from (select pre_rev, rev from nodes where rollout_id=$S order by seq)")" = \
          "1/2 1/0 1/0 -1/0 -1/0 -1/0" ]
tx3=$(newest_tx 3)

step "a bare rollback after the halted rollout says what it would not undo; --rollout S undoes S"
rc=0; ctl --yes rollback >"$T/bare.out" 2>&1 || rc=$?
cat "$T/bare.out"
check "bare: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "bare: the halted rollout is listed" grep -qE "^  $S +apply +halted +mtu-9000" "$T/bare.out"
check "bare: nothing changed" [ "$(mtus)" = "9000 4000 4000 4000 4000 4000" ]
expect_rc 0 "rollback --rollout $S" ctl_to "$T/r1.json" --output json rollback --rollout "$S"
check "it is a rollback of rollout $S" [ "$(json_get "$T/r1.json" 'd["policy"]')" = "rollback of rollout $S" ]
check "the summary counts it" [ "$(json_get "$T/r1.json" 'd["message"]')" = \
        "rollback of rollout $S: 1 restored, 2 already there, 0 refused, 0 failed; every node it touched is at its revision before it" ]
check "the canary restored" [ "$(state_in "$T/r1.json" node001)" = restored ]
check "node003 already there" [ "$(state_in "$T/r1.json" node003)" = already_there ]
check "live: every node at its MTU before S" [ "$(mtus)" = "4000 4000 4000 4000 4000 4000" ]
check "node003's rejected change was not put back: no transaction since" [ "$(newest_tx 3)" = "$tx3" ]
check "the canary's way back was one gated rollback transaction" [ "$(newest_tx 1 | cut -d' ' -f2-)" = "rollback committed" ]
ctl status > "$T/status.txt"
check "status shows each node's end state" grep -Eq "node001 +restored .*revision 3 \(tx [0-9]+\) holds its state before rollout $S" "$T/status.txt"
check "status shows node002 left alone" grep -Eq "node002 +already_there: at revision 1, its revision before rollout $S" "$T/status.txt"
for i in 1 2 3; do eval "before_$i=\"\$(newest_tx $i)\""; done

step "the same rollback again is a no-op"
expect_rc 0 "rollback --rollout $S again" ctl_to "$T/r2.json" --output json rollback --rollout "$S"
check "all 3 already there" [ "$(json_get "$T/r2.json" 'd["summary"]["already_there"]')" = 3 ]
for i in 1 2 3; do
        eval "want=\$before_$i"
        [ "$(newest_tx $i)" = "$want" ] || fail "node $i ran a transaction in a no-op rollback: $(newest_tx $i)"
done
echo "ok: no node ran a transaction"
check "live: unchanged" [ "$(mtus)" = "4000 4000 4000 4000 4000 4000" ]

step "rollout S2 halts the same way; a later rollout changes the canary again"
halted_rollout "$T/s2.json"
S2=$(json_get "$T/s2.json" 'd["id"]')
expect_rc 0 "a later rollout on rack r1" ctl --quiet apply "$T/v3.json" --canary 1 --wave-size 100% > /dev/null
check "the canary at 8000 now" [ "$(node_mtu 1)" = 8000 ]

step "rollback --rollout S2 refuses the node changed since, by name"
expect_rc 3 "rollback --rollout $S2" ctl_to "$T/r3.json" --output json rollback --rollout "$S2"
check "the canary refused" [ "$(state_in "$T/r3.json" node001)" = refused ]
check "its reason names what came after and --force" grep -q \
        "changed since rollout $S2: revision 5 (tx [0-9]*, apply 'mtu-8000') is current, not the rollout's; --force restores revision 3 over it" \
        <<< "$(error_in "$T/r3.json" node001)"
check "the summary says the fleet is not back" grep -q "0 restored, 2 already there, 1 refused, 0 failed; the fleet is not back" \
        <<< "$(json_get "$T/r3.json" 'd["message"]')"
check "live: the canary left at 8000" [ "$(mtus)" = "8000 4000 4000 4000 8000 4000" ]

step "--force restores it"
expect_rc 0 "rollback --rollout $S2 --force" ctl_to "$T/r4.json" --output json rollback --rollout "$S2" --force
check "the canary restored" [ "$(state_in "$T/r4.json" node001)" = restored ]
check "live: nodes 1-3 at their MTU before S2" [ "$(mtus)" = "4000 4000 4000 4000 8000 4000" ]
expect_rc 0 "and once more: a no-op" ctl_to "$T/r5.json" --output json rollback --rollout "$S2"
check "all 3 already there" [ "$(json_get "$T/r5.json" 'd["summary"]["already_there"]')" = 3 ]
