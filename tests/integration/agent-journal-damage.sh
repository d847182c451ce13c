#!/usr/bin/env bash
# D6 and the startup check: a journal that cannot be written, or is damaged.
# - The state directory's file system is full: an apply is refused before anything
#   is touched, saying so ("no space left on its file system; nothing was changed"),
#   every link as it was (it used to report "no transaction N" after restoring
#   nothing, and leave the journal saying "applying").
# - It is read-only: refused the same way, naming the read-only file system.
# - A torn page: `serve` refuses to start on it (PRAGMA quick_check), naming what
#   SQLite found and the recovery command; `journal-recover` salvages what can be
#   read into a new journal (the damaged one kept beside it), restores the
#   transaction that was left in flight from its snapshot — the link back
#   byte-identical — and `serve` starts again.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd python3 ss sqlite3

ns=$(netns_add jd)
for i in $(seq 0 19); do
        ip -n "$ns" link add "jd$i-$NT_ID" type veth peer name "je$i-$NT_ID"
done
ifc=jd0-$NT_ID
mkdir -p "$T/fs"
mount -t tmpfs -o size=2m tmpfs "$T/fs" || skip "cannot mount a tmpfs"
trap 'r=$?; umount -l "$T/fs" 2>/dev/null; (exit $r); nt_cleanup' EXIT
printf '{ "state_dir": "%s", "listen": "127.0.0.1:7469", "probe": { "listen": "127.0.0.1:18572" } }\n' \
        "$T/fs/state" > "$T/agent.json"
agent() { ip netns exec "$ns" "$AGENT" --config "$T/agent.json" "$@"; }
links() { ip -n "$ns" -d -o link show | grep -- "-$NT_ID" | sed 's/^[0-9]*: //'; }
layer=all-$(printf 'x%.0s' $(seq 40))   # one layer: each apply below replaces the one before
policy_file "$T/p9000.json" "$layer" "$ifc" 9000
cat > "$T/all.json" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "$layer" },
  "targets": { "interfaces": ["jd*-$NT_ID", "je*-$NT_ID"] }, "spec": { "mtu": 4000 },
  "verify": { "probe": "none", "settle_ms": 0 } }
JSON

step "the state directory's file system is full"
agent apply "$T/p9000.json" >/dev/null || fail "the first apply failed"
before=$(links)
dd if=/dev/zero of="$T/fs/fill" bs=1k count="$(df -k --output=avail "$T/fs" | tail -1)" 2>/dev/null || true
rc=0; agent apply "$T/all.json" >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err"
check "the apply is refused (exit $rc)" [ "$rc" = 3 ]
check "  naming the cause" grep -q "cannot write the journal before changing anything: .*(no space left on its file system); nothing was changed" "$T/err"
check "  not a transaction it cannot find" sh -c "! grep -q 'no transaction' '$T/err'"
check "every link as it was" [ "$(links)" = "$before" ]
check "history still answers" agent history
rm -f "$T/fs/fill"
check "with room again, the same apply commits" agent apply "$T/all.json"

step "the state directory's file system is read-only"
before=$(links)
mount -o remount,ro "$T/fs"
rc=0; agent apply "$T/p9000.json" >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err"
mount -o remount,rw "$T/fs"
check "the apply is refused (exit $rc)" [ "$rc" = 3 ]
check "  naming the read-only file system" grep -qi "read-only file system.*nothing was changed" "$T/err"
check "every link as it was" [ "$(links)" = "$before" ]

step "a torn page of the journal, a transaction left in flight"
agent apply "$T/p9000.json" >/dev/null
before=$(links)
rc=0; NETTUNE_CRASH_AT=applied agent apply "$T/all.json" >/dev/null 2>&1 || rc=$?
check "the apply crashed after the change (exit $rc)" [ "$rc" = 137 ]
check "  the links changed" [ "$(links)" != "$before" ]
root=$(sqlite3 "$T/fs/state/journal.db" "SELECT rootpage FROM sqlite_master WHERE name = 'steps'")
dd if=/dev/urandom of="$T/fs/state/journal.db" bs=1 seek=$(( root * 4096 - 2048 )) count=2048 conv=notrunc 2>/dev/null
rc=0; agent serve --insecure-loopback >"$T/serve.out" 2>&1 || rc=$?
cat "$T/serve.out"
check "serve refuses to start (exit $rc)" [ "$rc" = 3 ]
check "  it names what quick_check found" grep -q "the journal is damaged (quick_check: .*page $root" "$T/serve.out"
check "  and the recovery command" grep -q "run 'nettune-agent --config FILE journal-recover'" "$T/serve.out"
rc=0; agent journal-recover >"$T/rec.out" 2>&1 || rc=$?
cat "$T/rec.out"
check "journal-recover salvages it (exit $rc)" [ "$rc" = 0 ]
check "  keeping the damaged file beside the new one" sh -c "ls '$T/fs/state'/journal.db.damaged-* >/dev/null"
check "  and restoring the transaction in flight from its snapshot" grep -q "^1 unfinished transaction(s) restored" "$T/rec.out"
check "the links are byte-identical to before the crashed change" [ "$(links)" = "$before" ]
agent --output json history > "$T/h.json"
check "history: the crashed transaction rolled back by recovery" \
        [ "$(jq_py "$T/h.json" 'd[0]["state"], d[0]["restored_by"]')" = "rolled_back recovery" ]
check "journal-recover on the sound journal: nothing to do" sh -c "'$AGENT' --config '$T/agent.json' journal-recover | grep -q 'is sound (quick_check: ok); nothing was changed'"
serve_start "$ns" "$T/agent.json" --insecure-loopback 2>>"$T/serve.log"
check "serve starts on the recovered journal" kill -0 "$SERVE_PID"
