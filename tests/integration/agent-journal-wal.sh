#!/usr/bin/env bash
# D5: the journal survives the loss or corruption of its WAL with at most the last
# unfinished transaction lost — and the device is restored from that transaction's
# snapshot. For every crash point of an apply after the first device change (kill -9,
# NETTUNE_CRASH_AT) the WAL is then removed, emptied, overwritten with garbage or torn
# mid-frame; the restarted `serve` restores the link byte-identical to before the
# change (`ip -d link show`), and the committed history before it is still there. (It
# used to live in the WAL: losing it emptied the journal, `history` answered nothing
# with rc 0, and the link stayed at the unverified new MTU.) A crash before the first
# device change loses only that transaction; one after the commit loses nothing; a
# change pending confirmation stays pending.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd python3 ss

ns=$(netns_add jw)
ifc=jw$NT_ID
ip -n "$ns" link add "$ifc" type veth peer name jx$NT_ID
ip -n "$ns" link set "$ifc" up
policy_file "$T/p9000.json" jumbo "$ifc" 9000
policy_file "$T/p4000.json" jumbo "$ifc" 4000      # revision 2 of the same layer
link_line() { ip -n "$ns" -d -o link show dev "$ifc" | sed 's/^[0-9]*: //'; }
agent() { ip netns exec "$ns" "$AGENT" --config "$T/agent.json" "$@"; }
history_json() { agent --output json history > "$T/h.json"; }
h() { jq_py "$T/h.json" "$1"; }

# damage NAME: what happens to the WAL after the crash.
damage() {
        local wal=$T/state/journal.db-wal size
        size=$(stat -c %s "$wal" 2>/dev/null || echo 0)
        case $1 in
        removed)  rm -f "$wal" "$T/state/journal.db-shm" ;;
        emptied)  : > "$wal" ;;
        garbage)  if [ "$size" -gt 32 ]; then
                          dd if=/dev/urandom of="$wal" bs=1 seek=32 count=$((size - 32)) conv=notrunc 2>/dev/null
                  fi ;;
        torn)     if [ "$size" -gt 1000 ]; then truncate -s $((size - 1000)) "$wal"; fi ;;
        esac
        echo "  WAL $1: $size bytes before, $(stat -c %s "$wal" 2>/dev/null || echo 0) after"
}

# restart: serve once (its start restores what was left in flight), then stop it.
restart() {
        serve_start "$ns" "$T/agent.json" --insecure-loopback 2>>"$T/serve.log"
        kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true
}

fresh() {       # a new state directory with one committed revision (MTU 9000)
        rm -rf "$T/state"
        printf '{ "state_dir": "%s", "listen": "127.0.0.1:7468", "probe": { "listen": "127.0.0.1:18571" } }\n' \
                "$T/state" > "$T/agent.json"
        agent apply "$T/p9000.json" >/dev/null || fail "the first apply failed"
        before=$(link_line)
}

step "a crash after the first device change, the WAL lost: the link comes back byte-identical"
for point in applied-drivers applied verifying; do
        for how in removed emptied garbage torn; do
                fresh
                rc=0; NETTUNE_CRASH_AT=$point agent apply "$T/p4000.json" >/dev/null 2>&1 || rc=$?
                [ "$rc" = 137 ] || fail "$point: the apply did not crash (exit $rc)"
                [ "$(mtu_of "$ns" "$ifc")" = 4000 ] || fail "$point: the crash came before the change"
                damage "$how"
                restart
                check "$point, WAL $how: the link is as before the change" [ "$(link_line)" = "$before" ]
                history_json
                check "  the committed revision before it is still there" \
                        [ "$(h '[t["tx"] for t in d if t["state"] == "committed"]')" = "[1]" ]
                check "  the crashed transaction restored by recovery" \
                        [ "$(h 'd[0]["tx"], d[0]["state"], d[0]["restored_by"]')" = "2 rolled_back recovery" ]
        done
done

step "a crash before the first device change, the WAL lost: only that transaction is gone"
for point in planned snapshotted applying; do
        fresh
        rc=0; NETTUNE_CRASH_AT=$point agent apply "$T/p4000.json" >/dev/null 2>&1 || rc=$?
        damage removed
        restart
        check "$point: the link is as before" [ "$(link_line)" = "$before" ]
        history_json
        check "  revision 1 is still committed" [ "$(h '[(t["tx"], t["state"]) for t in d if t["tx"] == 1]')" = "[(1, 'committed')]" ]
done

step "a crash right after the commit, the WAL lost: the commit is kept"
fresh
rc=0; NETTUNE_CRASH_AT=committed agent apply "$T/p4000.json" >/dev/null 2>&1 || rc=$?
damage removed
restart
check "the link keeps its new MTU" [ "$(mtu_of "$ns" "$ifc")" = 4000 ]
history_json
check "and transaction 2 is committed as revision 2" [ "$(h 'd[0]["tx"], d[0]["state"], d[0]["rev"]')" = "2 committed 2" ]

step "a crash right after the change became pending, the WAL lost: still pending"
fresh
rc=0; NETTUNE_CRASH_AT=pending_confirm agent apply --confirm-timeout 600 "$T/p4000.json" >/dev/null 2>&1 || rc=$?
# The detached watchdog of the CLI apply (deadline in 600 s) is not what this is about: stop it.
wd=$(pgrep -f "$T/agent.json confirm-watchdog 2\$" || true)
[ -n "$wd" ] && kill -KILL $wd
damage removed
restart
check "the link keeps the pending MTU" [ "$(mtu_of "$ns" "$ifc")" = 4000 ]
history_json
check "and transaction 2 is pending confirmation" [ "$(h 'd[0]["tx"], d[0]["state"]')" = "2 pending_confirm" ]
expire_confirm "$T/state"
restart
check "its deadline passed: restored byte-identical" [ "$(link_line)" = "$before" ]
