#!/usr/bin/env bash
# Benchmark: the full path against 200 real agents (one netns each, mTLS, verify.probe
# none): one rollout (canary 1, waves of 25%, --parallel 32) driven by a `nettunectl
# serve` replica on a real etcd member, against the same kind of rollout driven by
# `nettunectl apply` on SQLite. Reports wall time, controller CPU and peak RSS, and
# etcd writes per rollout. NODES=200 by default.
. "$(cd "$(dirname "$0")/.." && pwd)/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
. "$NETTUNE_TOP/tests/lib/etcd.sh"
. "$NETTUNE_TOP/bench/ctl_store.inc"
fleet_require
etcd_require
[ -x /usr/bin/time ] || skip "/usr/bin/time is not installed"
N=${NODES:-200}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'; }

fleet_up "$N" 2>>"$T/agents.log" >&2
etcd_cluster_up 1 "$HUB"
policy "$T/p1.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
policy "$T/p2.json" mtu-4000 4000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
args=(--canary 1 --wave-size 25% --confirm-timeout 120 --parallel 32)
sqlite_rollout "$HUB" "$T/inventory.json" "$T/p1.json" "${args[@]}"
[ "$Q_COMMITTED" = "$N" ] || fail "SQLite rollout: $Q_COMMITTED of $N committed"
serve_rollout "$HUB" "$T/inventory.json" "$T/p2.json" "${args[@]}"
[ "$S_COMMITTED" = "$N" ] || fail "etcd rollout: $S_COMMITTED of $N committed"
for ((i = 1; i <= N; i++)); do mtu_is "$i" 4000 || fail "node $i has mtu $(node_mtu "$i")"; done

echo "| ctl_etcd_$N (200 real agents, etcd vs SQLite) | $(secs "$S_WALL_MS") | $(secs "$Q_WALL_MS") (SQLite) | $(ratio "$S_WALL_MS" "$Q_WALL_MS") | full path, 5 waves, probe none; controller cpu $S_CPU_S s (serve) vs $Q_CPU_S s, peak rss $((S_RSS_KB / 1024)) MiB vs $((Q_RSS_KB / 1024)) MiB; etcd writes per rollout: $S_WRITES revisions ($S_TXNS txns by the replica) |"
