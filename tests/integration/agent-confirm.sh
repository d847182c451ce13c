#!/usr/bin/env bash
# Commit-confirm: a change applied with a confirm timeout is restored by itself
# when nobody confirms it — by the serve daemon's timer, and without any daemon
# by the CLI's detached watchdog, which is started before the pending state is
# journaled (a CLI killed right after it still has its timer); when the watchdog
# itself is killed, the next command of any kind restores the expired change.
# A late confirm is refused; a timely one keeps it.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3 sqlite3 pgrep

ns=$(netns_add ac)
nsp=$(netns_add acp)
ifc=ca$NT_ID
veth_pair "$ns" "$ifc" "$nsp" cb$NT_ID
make_certs "$T/certs" || fail "cannot make test certificates"
policy_file "$T/p.json" jumbo "$ifc" 9000

step "CLI without a daemon: the watchdog restores at the real deadline"
agent_config "$T/cli.json" "$T/cli-state" "127.0.0.1:7450" "127.0.0.1:18525"
A() { ip netns exec "$ns" "$AGENT" --config "$T/cli.json" "$@"; }
mtu_back() { [ "$(mtu_of "$ns" "$ifc")" = "$1" ]; }
running() { pgrep -f "$1" >/dev/null; }
gone() { ! running "$1"; }
# A 1 s timer on the wall clock: nothing is checked while it runs, only what it did.
rc=0; A --output json apply --confirm-timeout 1 "$T/p.json" >"$T/r.json" || rc=$?
check "apply --confirm-timeout exits 4 (got $rc)" [ "$rc" -eq 4 ]
check "state pending_confirm" [ "$(jq_py "$T/r.json" 'd["state"]')" = pending_confirm ]
check "MTU back to 1500 after the deadline" wait_for 30 mtu_back 1500
A --output json history >"$T/h.json"
check "journal: rolled back by confirm-timeout" [ "$(jq_py "$T/h.json" 'd[0]["restored_by"]')" = confirm-timeout ]

step "CLI: pending until the deadline, then the watchdog restores"
# A long timer whose end the test triggers (expire_confirm): the checks while it is
# pending cannot race it.
t0=$(date +%s%3N)
rc=0; A --output json apply --confirm-timeout 600 "$T/p.json" >"$T/r.json" || rc=$?
t1=$(date +%s%3N)
check "apply --confirm-timeout exits 4 (got $rc)" [ "$rc" -eq 4 ]
tx=$(jq_py "$T/r.json" 'd["tx"]')
check "state pending_confirm" [ "$(jq_py "$T/r.json" 'd["state"]')" = pending_confirm ]
check "the deadline is 600 s after the apply" \
        [ "$(jq_py "$T/r.json" "$t0 + 600000 <= d['confirm_deadline_ms'] <= $t1 + 600000")" = True ]
check "MTU 9000 while pending" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
watchdog="$T/cli.json confirm-watchdog $tx\$"
check "a detached watchdog waits for the deadline" running "$watchdog"
expire_confirm "$T/cli-state" "$tx"
check "MTU back to 1500 once the deadline passed" wait_for 30 mtu_back 1500
A --output json history >"$T/h.json"
check "journal: rolled back by confirm-timeout" [ "$(jq_py "$T/h.json" 'd[0]["restored_by"]')" = confirm-timeout ]
check "the watchdog is gone" wait_for 30 gone "$watchdog"
rc=0; A confirm "$tx" 2>"$T/err" || rc=$?
check "late confirm fails (exit $rc)" [ "$rc" -eq 1 ]
check "late confirm says so" grep -q "transaction $tx already rolled back" "$T/err"

step "CLI killed right after journaling the pending state: the watchdog started before restores it"
rc=0; NETTUNE_CRASH_AT=pending_confirm A --output json apply --confirm-timeout 3 "$T/p.json" >/dev/null 2>&1 || rc=$?
check "the CLI died at the crash point (exit $rc)" [ "$rc" -eq 137 ]
check "MTU 9000: the change is pending" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
# No agent command runs from here until the MTU is back: only the watchdog can restore it.
check "MTU back to 1500 after the deadline, no other command run" wait_for 15 sh -c "[ \"\$(ip -n $ns -o link show $ifc | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')\" = 1500 ]"
A --output json history >"$T/h.json"
check "journal: the crashed apply was rolled back by confirm-timeout" \
        [ "$(jq_py "$T/h.json" 'd[0]["state"] + " " + d[0]["restored_by"]')" = "rolled_back confirm-timeout" ]

step "watchdog killed: the next command of any kind restores the expired change"
# A long timer whose end the test triggers once the watchdog is dead: on a busy machine
# a 2 s timer could pass (and the watchdog restore) before the kill.
rc=0; A --output json apply --confirm-timeout 600 "$T/p.json" >"$T/r.json" || rc=$?
check "pending (exit $rc)" [ "$rc" -eq 4 ]
tx=$(jq_py "$T/r.json" 'd["tx"]')
wd=$(pgrep -f "$T/cli.json confirm-watchdog $tx\$" || true)
check "the watchdog of transaction $tx runs (pid $wd)" [ -n "$wd" ]
kill -KILL $wd
wait_for 30 gone "$T/cli.json confirm-watchdog $tx\$" || fail "the watchdog of transaction $tx outlived SIGKILL"
expire_confirm "$T/cli-state" "$tx"
sleep 1
check "nobody restored it: MTU still 9000 past the deadline" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
A --output json history >"$T/h.json"
check "history, a read-only command, restored it first" [ "$(mtu_of "$ns" "$ifc")" = 1500 ]
check "and lists it rolled back by confirm-timeout" \
        [ "$(jq_py "$T/h.json" 'd[0]["state"] + " " + d[0]["restored_by"]')" = "rolled_back confirm-timeout" ]

step "CLI: a timely confirm keeps the change"
rc=0; A --output json apply --confirm-timeout 600 "$T/p.json" >"$T/r.json" || rc=$?
check "pending (exit $rc)" [ "$rc" -eq 4 ]
tx=$(jq_py "$T/r.json" 'd["tx"]')
watchdog="$T/cli.json confirm-watchdog $tx\$"
policy_file "$T/q.json" other "$ifc" 4000
rc=0; A apply "$T/q.json" 2>"$T/err" || rc=$?
check "another apply while one is pending is refused (exit $rc)" [ "$rc" -eq 3 ]
check "refusal names the pending transaction" grep -q "transaction $tx is pending confirmation" "$T/err"
check "MTU still 9000" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
expect_rc 0 "confirm in time" A confirm "$tx"
# Now let its deadline pass: the watchdog sees a confirmed transaction and leaves.
expire_confirm "$T/cli-state" "$tx"
check "the watchdog is gone" wait_for 30 gone "$watchdog"
expect_rc 0 "confirm again is harmless" A confirm "$tx"
check "MTU still 9000 after the deadline" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
A --output json history >"$T/h.json"
check "journal: committed" [ "$(jq_py "$T/h.json" 'd[0]["state"]')" = committed ]
ip -n "$ns" link set "$ifc" mtu 1500

step "daemon: its timer restores at the deadline"
agent_config "$T/d.json" "$T/d-state" "127.0.0.1:7451" "127.0.0.1:18526" '"drift": {"interval_s": 0}'
API_URL=https://127.0.0.1:7451
serve_start "$ns" "$T/d.json"
check "apply: 200" [ "$(api "$ns" '/v1/apply?confirm_timeout_s=600' -X POST --data-binary @"$T/p.json")" = 200 ]
check "pending, exit_code 4" [ "$(jq_py "$T/body" 'd["exit_code"]')" = 4 ]
tx=$(jq_py "$T/body" 'd["tx"]')
check "MTU 9000 while pending" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
api "$ns" /metrics >/dev/null
check "metrics: one pending confirmation" grep -q '^nettune_pending_confirm 1$' "$T/body"
check "no watchdog: the daemon keeps the deadline" gone "$T/d.json confirm-watchdog"
expire_confirm "$T/d-state" "$tx"
check "MTU back to 1500 once the deadline passed" wait_for 30 mtu_back 1500
check "late confirm: 409" [ "$(api "$ns" "/v1/confirm/$tx" -X POST)" = 409 ]
check "late confirm says already rolled back" grep -q "already rolled back" "$T/body"
api "$ns" /metrics >/dev/null
check "metrics: the rollback in the latency histogram" grep -q '^nettune_rollback_seconds_count 1$' "$T/body"
check "metrics: histogram buckets up to +Inf" grep -q '^nettune_rollback_seconds_bucket{le="+Inf"} 1$' "$T/body"

step "daemon: pending confirmations survive a restart and expire after it"
check "apply: 200" [ "$(api "$ns" '/v1/apply?confirm_timeout_s=600' -X POST --data-binary @"$T/p.json")" = 200 ]
kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true
check "MTU still 9000 after SIGTERM" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
expire_confirm "$T/d-state"
serve_start "$ns" "$T/d.json"
check "restored after restart" wait_for 30 mtu_back 1500
