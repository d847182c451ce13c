#!/usr/bin/env bash
# Benchmark: the controller alone against 2,000 endpoints. The endpoints are one
# load generator (tests/tools/loadgen_agent.c: answers the agent API from a table,
# changes nothing; NOT an agent) on 2,000 loopback addresses of a private netns,
# mTLS on every connection. One rollout (canary 1, waves of 25%, --parallel 64,
# confirm on) driven by a `nettunectl serve` replica on a real etcd member, against
# the same kind of rollout driven by `nettunectl apply` on SQLite. Reports wall
# time, controller CPU and peak RSS, and etcd writes per rollout.
# ENDPOINTS=2000 by default.
. "$(cd "$(dirname "$0")/.." && pwd)/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/etcd.sh"
. "$NETTUNE_TOP/bench/stats.sh"
. "$NETTUNE_TOP/bench/ctl_store.inc"
require_root
etcd_require
[ -x /usr/bin/time ] || skip "/usr/bin/time is not installed"
[ -x "$LG" ] || skip "'$LG' is not built (make test-bins)"
N=${ENDPOINTS:-2000}

ns=$(netns_add load)
port=7440
lg_pki "$T/pki"
lg_inventory "$N" "$port" "$T/pki" > "$T/inventory.json"
lg_start "$ns" "$N" "$port" "$T/pki" "$T/loadgen.log"
lg_pid=$LG_PID
etcd_cluster_up 1 "$ns"
for p in 9000 4000; do lg_policy "$p" > "$T/p$p.json"; done
args=(--canary 1 --wave-size 25% --confirm-timeout 300 --timeout 60)
sqlite_rollout "$ns" "$T/inventory.json" "$T/p9000.json" --parallel 64 "${args[@]}"
[ "$Q_COMMITTED" = "$N" ] || fail "SQLite rollout: $Q_COMMITTED of $N committed"
serve_rollout "$ns" "$T/inventory.json" "$T/p4000.json" "${args[@]}"
[ "$S_COMMITTED" = "$N" ] || fail "etcd rollout: $S_COMMITTED of $N committed"
kill "$lg_pid"; wait "$lg_pid" 2>/dev/null || true
stats=$(grep -o '[0-9]* applies, [0-9]* replayed keys' "$T/loadgen.log" | tail -1)

echo "| ctl_store_$N (controller alone, etcd vs SQLite) | $(secs "$S_WALL_MS") | $(secs "$Q_WALL_MS") (SQLite) | $(ratio "$S_WALL_MS" "$Q_WALL_MS") | $N load-generator endpoints (not agents), mTLS, 5 waves, confirm on; controller cpu $S_CPU_S s (serve) vs $Q_CPU_S s, peak rss $((S_RSS_KB / 1024)) MiB vs $((Q_RSS_KB / 1024)) MiB; etcd writes per rollout: $S_WRITES revisions ($S_TXNS txns by the replica); load generator: $stats |"
