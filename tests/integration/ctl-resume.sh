#!/usr/bin/env bash
# Controller: kill -9 between apply and confirm, then `apply --resume ID`. The test
# holds two of the third wave's agents inside their transactions (a test-only hook),
# so the controller always dies with that wave applying: three of its nodes have
# answered (pending, journaled by the controller), two are still in flight. The
# journal in SQLite says where it stopped. While the controller is down, two of the
# wave's changes run out of time and their agents restore them. The resumed rollout
# first asks every unfinished node's agent what it did (by transaction, or by
# idempotency key for the steps in flight): the three changes still pending are
# confirmed in a new confirm window, without being applied again; the two that
# expired unconfirmed never got a verdict and are applied again as new steps. It
# finishes every wave, no node is left pending, every node ends committed.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd sqlite3 pgrep
N=20
WAVE3=(7 8 9 10 11)     # wave 3 of --canary 1 --wave-size 5 (inventory order)
HELD=(10 11)            # held in their apply: in flight when the controller dies
ANSWERED=(7 8 9)        # pending, their answers journaled by the controller
EXPIRED=(9 11)          # their time runs out while the controller is down

NETTUNE_TEST_HOOK_AFTER_APPLY=$(fleet_hold_hook)
export NETTUNE_TEST_HOOK_AFTER_APPLY

step "fleet of $N agents"
fleet_up $N
unset NETTUNE_TEST_HOOK_AFTER_APPLY
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
for i in "${HELD[@]}"; do hold_node "$i"; done

all_held() { local i; for i in "${HELD[@]}"; do node_held "$i" || return 1; done; }
answered() { local i; for i in "${ANSWERED[@]}"; do [ "$(ctl_node_state "node$(printf %03d "$i")")" = pending ] || return 1; done; }
held_and_answered() { all_held && answered; }
# journal_of I: "NEWEST_STATE PENDING_COUNT" from node I's `nettune-agent history`.
journal_of() {
        ip netns exec "$(node_ns "$1")" "$AGENT" --config "$T/n$1/agent.json" --output json history |
                python3 -c 'import json,sys; d=json.load(sys.stdin)
print(d[0]["state"] if d else "none", sum(t["state"] == "pending_confirm" for t in d))'
}
newest_state() { local j; j=$(journal_of "$1") && echo "${j% *}"; }
all_pending() { local i; for i in "${WAVE3[@]}"; do [ "$(newest_state "$i")" = pending_confirm ] || return 1; done; }
db() { ctl_db "$1"; }
# applies_of I: node I's apply transactions of mtu-9000, oldest first, as "TX:STATE".
applies_of() {
        agent_history "$1" "$T/ap-$1.json" &&
                json_get "$T/ap-$1.json" '" ".join("%s:%s" % (t["tx"], t["state"]) for t in reversed(d["transactions"]) if t["kind"] == "apply" and t["policy"] == "mtu-9000")'
}

step "start a rollout and kill -9 the controller between wave 3's applies and its confirmations"
# A long confirm timeout: no wave's confirmation races its nodes' timers, however slow
# the machine; the interrupted wave's time runs out when the test says so (below).
bg ctl --quiet apply "$T/mtu.json" --canary 1 --wave-size 5 --confirm-timeout 600
wait_for 120 held_and_answered || fail "wave 3: nodes ${HELD[*]} not held, or ${ANSWERED[*]} not pending"
ctl_pid=$(pgrep -P "$BG_PID" -x nettunectl || true)
[ -n "$ctl_pid" ] || ctl_pid=$BG_PID
kill -9 "$ctl_pid"
wait "$BG_PID" 2>/dev/null || true
id=$(db "select id from rollouts order by id desc limit 1")
check "the journal says running" [ "$(db "select state from rollouts where id=$id")" = running ]
check "two waves done" [ "$(db "select count(*) from waves where rollout_id=$id and state='done'")" = 2 ]
check "wave 3 interrupted while applying" [ "$(db "select state from waves where rollout_id=$id and idx=2")" = applying ]
expect_rc 2 "confirm refuses a running rollout" ctl confirm "$id"
ctl status "$id" > "$T/status-killed.txt"
check "status says interrupted, not running" grep -q "^rollout $id (apply 'mtu-9000'): interrupted" "$T/status-killed.txt"
check "status says how to go on" grep -q "'nettunectl apply --resume $id' continues it, 'nettunectl halt $id' stops it" \
        "$T/status-killed.txt"
ctl_to "$T/status-killed.json" --output json status "$id"
check "status --output json: its driver is gone" [ "$(json_get "$T/status-killed.json" 'd["driver"]["state"]')" = interrupted ]

step "the interrupted wave's agents finish; nobody confirms them"
hold_release
check "wave 3's nodes are pending" wait_for 60 all_pending
for i in "${WAVE3[@]}"; do mtu_is "$i" 9000 || fail "node $i has mtu $(node_mtu "$i") while pending"; done
echo "ok: wave 3's nodes hold mtu 9000, unconfirmed"
declare -A FIRST
for i in "${WAVE3[@]}"; do FIRST[$i]=$(applies_of "$i"); done

step "the time of nodes ${EXPIRED[*]} runs out while the controller is down"
# What 600 s would do to them: their confirm deadline passes, their agents restore them.
for i in "${EXPIRED[@]}"; do expire_confirm "$T/n$i/state"; done
for i in "${EXPIRED[@]}"; do
        wait_for 60 mtu_is "$i" 1500 || fail "node $i was not restored by its agent (mtu $(node_mtu "$i"))"
        # the journal says so once the restore was read back (the link comes back first)
        restored() { [ "$(newest_state "$1")" = rolled_back ]; }
        wait_for 30 restored "$i" || fail "node $i: newest transaction $(newest_state "$i"), expected rolled_back"
done
echo "ok: nodes ${EXPIRED[*]} restored by their agents; nodes 7 8 10 still pending"

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
        case " ${EXPIRED[*]} " in *" $i "*) continue ;; esac
        applied_once $i mtu-9000 || fail "node $i applied mtu-9000 more than once"
done
echo "ok: every node but ${EXPIRED[*]} applied the policy exactly once"
for i in 7 8 10; do
        tx=${FIRST[$i]%%:*}
        [ "$(applies_of "$i")" = "$tx:committed" ] ||
                fail "node $i: applies '$(applies_of "$i")', expected its first transaction $tx confirmed"
done
echo "ok: the changes still pending at the resume were confirmed, not applied again"
for i in "${EXPIRED[@]}"; do
        a=$(applies_of "$i")
        [[ "$a" =~ ^[0-9]+:rolled_back\ [0-9]+:committed$ ]] || fail "node $i: applies '$a', expected expired then committed"
done
echo "ok: the changes that expired unconfirmed were applied again and committed"

step "the revisions on record are the agents' own, across the kill and the resume"
for ((i = 1; i <= N; i++)); do
        agent_history "$i" "$T/rev-$i.json" || fail "cannot read node $i's history"
        want=$(json_get "$T/rev-$i.json" '[t["rev"] for t in d["transactions"] if t["state"] == "committed"][0]')
        got=$(db "select pre_rev || ' ' || rev from nodes where rollout_id=$id and name='node$(printf %03d "$i")'")
        [ "$got" = "$((want - 1)) $want" ] || fail "node $i: recorded pre_rev and rev '$got', its agent's: $((want - 1)) $want"
done
echo "ok: every node's recorded revision before the rollout and after it match its agent's history"
expect_rc 2 "a finished rollout cannot be resumed" ctl apply --resume "$id"
