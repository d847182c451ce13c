#!/usr/bin/env bash
# Controller: kill -9 in the middle of a wave, then `apply --resume ID`. The test
# holds the third wave's agents inside their transactions (a test-only hook), so the
# controller always dies with that wave applying. The journal in SQLite says where
# it stopped; the interrupted wave's nodes revert by themselves once their confirm
# deadline passes. The resumed rollout asks the agents of that wave what they did
# (by idempotency key): a change that expired unconfirmed never got a verdict, so it
# is applied again as a new step; every other node is applied exactly once. It
# finishes every wave, no node is left pending, every node ends committed.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd sqlite3 pgrep
N=20
HELD=(7 8 9 10 11)      # wave 3 of --canary 1 --wave-size 5 (inventory order)

# The hook holds an apply on a node that has a hold file until the test opens the gate.
cat > "$T/hook.sh" <<SH
ns=\$(ip netns identify)
[ -e "$T/hold-\$ns" ] || exit 0
touch "$T/held-\$ns"
until [ -e "$T/resume.open" ] || [ -e "$T/gates.open" ]; do sleep 0.05; done
SH
export NETTUNE_TEST_HOOK_AFTER_APPLY="sh $T/hook.sh"

step "fleet of $N agents"
fleet_up $N
unset NETTUNE_TEST_HOOK_AFTER_APPLY
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
for i in "${HELD[@]}"; do touch "$T/hold-$(node_ns "$i")"; done

all_held() { local i; for i in "${HELD[@]}"; do [ -e "$T/held-$(node_ns "$i")" ] || return 1; done; }
# journal_of I: "NEWEST_STATE PENDING_COUNT" from node I's `nettune-agent history`.
journal_of() {
        ip netns exec "$(node_ns "$1")" "$AGENT" --config "$T/n$1/agent.json" --output json history |
                python3 -c 'import json,sys; d=json.load(sys.stdin)
print(d[0]["state"] if d else "none", sum(t["state"] == "pending_confirm" for t in d))'
}
newest_state() { local j; j=$(journal_of "$1") && echo "${j% *}"; }
all_pending() { local i; for i in "${HELD[@]}"; do [ "$(newest_state "$i")" = pending_confirm ] || return 1; done; }
db() { sqlite3 -cmd '.timeout 10000' "$T/ctl.db" "$1"; }

step "start a rollout and kill -9 the controller while wave 3 applies"
# A long confirm timeout: no wave's confirmation races its nodes' timers, however slow
# the machine; the interrupted wave's time runs out when the test says so (below).
bg ctl --quiet apply "$T/mtu.json" --canary 1 --wave-size 5 --confirm-timeout 600
wait_for 120 all_held || fail "wave 3's agents did not all reach their hook"
ctl_pid=$(pgrep -P "$BG_PID" -x nettunectl || true)
[ -n "$ctl_pid" ] || ctl_pid=$BG_PID
kill -9 "$ctl_pid"
wait "$BG_PID" 2>/dev/null || true
id=$(db "select id from rollouts order by id desc limit 1")
check "the journal says running" [ "$(db "select state from rollouts where id=$id")" = running ]
check "two waves done" [ "$(db "select count(*) from waves where rollout_id=$id and state='done'")" = 2 ]
check "wave 3 interrupted while applying" [ "$(db "select state from waves where rollout_id=$id and idx=2")" = applying ]
expect_rc 2 "confirm refuses a running rollout" ctl confirm "$id"

step "the interrupted wave's agents finish; nobody confirms them"
rm -f "$T"/hold-*
touch "$T/resume.open"
check "wave 3's nodes are pending" wait_for 60 all_pending
for i in "${HELD[@]}"; do mtu_is "$i" 9000 || fail "node $i has mtu $(node_mtu "$i") while pending"; done
echo "ok: wave 3's nodes hold mtu 9000, unconfirmed"

step "their time runs out"
# What 600 s would do: each unconfirmed node's deadline passes (its agent restores it)
# and so does the deadline the controller journaled for the wave it was applying.
for i in "${HELD[@]}"; do expire_confirm "$T/n$i/state"; done
for i in "${HELD[@]}"; do
        wait_for 60 mtu_is "$i" 1500 || fail "node $i did not revert by itself (mtu $(node_mtu "$i"))"
        [ "$(newest_state "$i")" = rolled_back ] || fail "node $i: newest transaction $(newest_state "$i"), expected rolled_back"
done
echo "ok: wave 3's nodes reverted by themselves"
db "UPDATE waves SET deadline = CAST(strftime('%s', 'now') AS INTEGER) - 3 WHERE rollout_id = $id AND state = 'applying'"

step "resume"
expect_rc 0 "resumed rollout commits" ctl_to "$T/resume.json" --output json apply --resume "$id"
check "rollout completed" [ "$(json_get "$T/resume.json" 'd["state"]')" = completed ]
check "all $N committed" [ "$(json_get "$T/resume.json" 'd["summary"]["committed"]')" = $N ]
check "no wave left undone" [ "$(db "select count(*) from waves where rollout_id=$id and state!='done'")" = 0 ]
for ((i = 1; i <= N; i++)); do
        mtu_is $i 9000 || fail "node $i has mtu $(node_mtu $i), expected 9000"
done
echo "ok: every node has mtu 9000"

step "nothing stays pending: every node's journal has the change committed"
for ((i = 1; i <= N; i++)); do
        j=$(journal_of $i)
        [ "$j" = "committed 0" ] || fail "node $i: newest transaction and pending count '$j', expected 'committed 0'"
done
echo "ok: no node has a pending transaction; every newest one is committed"
for ((i = 1; i <= N; i++)); do
        case " ${HELD[*]} " in *" $i "*) continue ;; esac
        applied_once $i mtu-9000 || fail "node $i applied mtu-9000 more than once"
done
echo "ok: every node outside the interrupted wave applied the policy exactly once"
expect_rc 2 "a finished rollout cannot be resumed" ctl apply --resume "$id"
