#!/usr/bin/env bash
# kill -9 of the agent at random moments, for CHAOS_SECONDS: the CLI's apply, and
# `serve` while it applies a policy sent over its API; after some kills the journal's
# WAL is also removed, emptied or torn. After every kill the next command restores
# what was left in flight, and then every interface is exactly in the old or the new
# state — all of them alike — and matches the journal: `drift` finds nothing, and no
# transaction is left unfinished. Prints the figures (bench/RESULTS.md, "Chaos").
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd curl sqlite3 ss
SECONDS_MAX=${CHAOS_SECONDS:-300}
SEED=${CHAOS_SEED:-$$}
RANDOM=$SEED
echo "seed $SEED, $SECONDS_MAX s"

ns=$(netns_add k9)
N=8
for i in $(seq 0 $((N - 1))); do ip -n "$ns" link add "k9$i-$NT_ID" type veth peer name "k8$i-$NT_ID"; done
port=7470
printf '{ "state_dir": "%s", "listen": "127.0.0.1:%d", "probe": { "listen": "127.0.0.1:18573" }, "drift": { "interval_s": 0 } }\n' \
        "$T/state" "$port" > "$T/agent.json"
mtus=(9000 4000 1500)
for m in "${mtus[@]}"; do
        cat > "$T/p$m.json" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "chaos-$m" },
  "targets": { "interfaces": ["k9*-$NT_ID"] }, "spec": { "mtu": $m }, "verify": { "probe": "none", "settle_ms": 0 } }
JSON
done
agent() { ip netns exec "$ns" "$AGENT" --config "$T/agent.json" "$@"; }
live_mtus() {           # the distinct MTUs of the target interfaces
        for i in $(seq 0 $((N - 1))); do mtu_of "$ns" "k9$i-$NT_ID"; done | sort -u | tr '\n' ' '
}
unfinished() {
        sqlite3 -readonly -cmd '.timeout 5000' "$T/state/journal.db" \
                "SELECT count(*) FROM transactions WHERE state NOT IN ('committed', 'rolled_back', 'failed')" 2>/dev/null || echo 0
}
damage() {
        local wal=$T/state/journal.db-wal size
        size=$(stat -c %s "$wal" 2>/dev/null || echo 0)
        case $((RANDOM % 3)) in
        0) rm -f "$wal" "$T/state/journal.db-shm"; echo removed ;;
        1) : > "$wal"; echo emptied ;;
        2) if [ "$size" -gt 200 ]; then truncate -s $((size - RANDOM % (size / 2) - 1)) "$wal"; fi; echo torn ;;
        esac
}
# The invariant after a kill: the next command recovers; then all alike, old or new, as the journal says.
check_node() {
        agent history >/dev/null 2>&1 || { echo "history failed after kill $iter"; return 1; }
        local m; m=$(live_mtus)
        [ "$(echo $m | wc -w)" = 1 ] || { echo "kill $iter: the interfaces differ: $m"; return 1; }
        [ "$(unfinished)" = 0 ] || { echo "kill $iter: a transaction is still unfinished"; return 1; }
        agent drift >/dev/null 2>&1 || { echo "kill $iter: live state ($m) is not what the journal committed"; agent drift; return 1; }
}

agent apply "$T/p1500.json" >/dev/null
iter=0 cli=0 srv=0 mid=0 dmg=0 violations=0 start=$(date +%s)
while [ $(( $(date +%s) - start )) -lt "$SECONDS_MAX" ]; do
        iter=$((iter + 1))
        m=${mtus[$((RANDOM % 3))]}
        delay=$(printf '0.%03d' $((RANDOM % 40)))
        if [ $((RANDOM % 4)) -ne 0 ]; then
                cli=$((cli + 1))
                NETTUNE_TEST_HOOK_AFTER_APPLY="sleep 0.0$((RANDOM % 3))" ip netns exec "$ns" "$AGENT" --config "$T/agent.json" \
                        apply "$T/p$m.json" >/dev/null 2>&1 &
                pid=$!
                sleep "$delay"
                kill -9 $pid 2>/dev/null || true
                wait $pid 2>/dev/null || true
        else
                srv=$((srv + 1))
                NETTUNE_TEST_HOOK_AFTER_APPLY="sleep 0.0$((RANDOM % 3))" serve_start "$ns" "$T/agent.json" --insecure-loopback \
                        2>>"$T/serve.log"
                ip netns exec "$ns" curl -s -o /dev/null --max-time 20 -H 'Content-Type: application/json' \
                        --data-binary @"$T/p$m.json" "http://127.0.0.1:$port/v1/apply" &
                cpid=$!
                sleep "$delay"
                kill -9 "$SERVE_PID" 2>/dev/null || true
                wait "$SERVE_PID" 2>/dev/null || true
                wait $cpid 2>/dev/null || true
        fi
        [ "$(unfinished)" = 0 ] || mid=$((mid + 1))
        if [ $((RANDOM % 4)) = 0 ]; then damage >/dev/null; dmg=$((dmg + 1)); fi
        if [ $((RANDOM % 2)) = 0 ]; then       # recovered by serve's start or by the next CLI command
                serve_start "$ns" "$T/agent.json" --insecure-loopback 2>>"$T/serve.log"
                kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true
        fi
        check_node || violations=$((violations + 1))
done
elapsed=$(( $(date +%s) - start ))
echo "FIGURE kills $iter ($cli of the CLI's apply, $srv of serve applying over its API) in $elapsed s (seed $SEED)"
echo "FIGURE in flight when killed: $mid; the WAL removed, emptied or torn after $dmg kills"
echo "FIGURE every interface old or new, all alike, matching the journal: $((iter - violations)) of $iter"
[ "$violations" = 0 ] || fail "$violations kill(s) left the node in a state the journal does not say"
