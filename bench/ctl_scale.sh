#!/usr/bin/env bash
# Benchmark: the controller at 1,000, 5,000 and 10,000 nodes against the protocol's
# own floor (`make bench-scale`; not part of `make bench` or `make check`).
#
# The endpoints are one load generator (tests/tools/loadgen_agent.c, NOT an agent: it
# answers the agent API from a table and changes nothing) on N loopback addresses of
# a private netns, each with a certificate of its own, mTLS on every connection. For
# each size, in this order:
#   floor    tests/tools/https_floor.c: a bare libcurl multi client making only the
#            requests a rollout cannot do without (an apply per node, then, once its
#            wave is answered, a confirm), same waves, TLS settings and parallelism
#   rollout  `nettunectl apply` on SQLite (canary 1, waves of 25%, --parallel 64, confirm on)
#   floor    again: the rollout's ratio is to the mean of the floors around it
#   etcd     the same rollout driven by a `nettunectl serve` replica on a real etcd member
#   drift    `nettunectl drift` over every node
# and prints one line per size:
#   ctl_scale: N endpoints: rollout S s (floor F s, ratio R), etcd S2 s, drift D s,
#   peak rss M MiB, etcd revisions W, per-endpoint C ms
# (peak rss: the largest of the three controllers; per-endpoint: the SQLite rollout's
# wall time per node), and the requests and TLS handshakes per node of the floor and
# of the SQLite rollout, as the load generator counted them. Goals (bench/stats.sh `goal`) at the largest size: ratio <= 1.5,
# peak rss <= 100 MiB, etcd revisions <= 4 x waves + 16, per-endpoint cost within 1.3x
# of the smallest size's; every node of every rollout committed.
#
# SIZES="1000 5000 10000" by default. LOOP=10: instead, that many consecutive SQLite
# rollouts at the largest size (bench/ctl_scale_loop.sh, `make bench-scale-loop`), each
# of which must commit every node. FLOOR_MAX_CONNS: the floor's connections kept (default: a whole wave's).
. "$(cd "$(dirname "$0")/.." && pwd)/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/etcd.sh"
. "$NETTUNE_TOP/bench/stats.sh"
. "$NETTUNE_TOP/bench/ctl_store.inc"
require_root
etcd_require
[ -x /usr/bin/time ] || skip "/usr/bin/time is not installed"
FLOOR=$BUILD/tools/https_floor
for b in "$LG" "$FLOOR"; do [ -x "$b" ] || skip "'$b' is not built (make test-bins)"; done
SIZES=${SIZES:-1000 5000 10000}
LOOP=${LOOP:-0}
NAME=${SCALE_NAME:-ctl_scale}           # the benchmark's name in its lines and goals
MAX=$(printf '%s\n' $SIZES | sort -n | tail -1)
MIN=$(printf '%s\n' $SIZES | sort -n | head -1)
PORT=7440
ARGS=(--canary 1 --wave-size 25% --confirm-timeout 300 --timeout 60)
say() { echo "$*" >&2; [ -z "${BENCH_SECTION:-}" ] || echo "$*" >> "$T/section.lines"; }
load() { cut -d' ' -f1 /proc/loadavg; }

ns=$(netns_add scale)
lg_pki "$T/pki"
lg_start "$ns" "$MAX" "$PORT" "$T/pki" "$T/loadgen.log"
lg_policy 9000 > "$T/a.json"
lg_policy 4000 > "$T/b.json"

# floor N POLICY: sets F_WALL_MS and F_CONNECTS; every node must commit.
floor() {
        local out
        out=$(ip netns exec "$ns" "$FLOOR" --endpoints "$1" --port "$PORT" --ca "$T/pki/ca.crt" --cert "$T/pki/ctl.crt" \
                --key "$T/pki/ctl.key" --policy "$2" --parallel 64 --canary 1 --wave-size 25% --confirm-timeout 300 \
                ${FLOOR_MAX_CONNS:+--max-conns "$FLOOR_MAX_CONNS"}) || fail "floor at $1: $out"
        echo "$out" >> "$T/floor.log"
        F_WALL_MS=$(echo "$out" | sed -n 's/.*wall \([0-9]*\) ms.*/\1/p')
}

# drift_scan N INVENTORY: sets D_WALL_MS D_RSS_KB; every node reached and in sync.
drift_scan() {
        local t0 t1 rc=0
        t0=$(now_us)
        ip netns exec "$ns" /usr/bin/time -v -o "$T/drift.time" "$CTL" --inventory "$2" --db "$T/bench.db" --quiet \
                --output json drift > "$T/drift.json" || rc=$?
        t1=$(now_us)
        [ "$rc" = 0 ] || fail "drift at $1 exited $rc"
        [ "$(json_get "$T/drift.json" 'd["nodes_scanned"] - d["drifted"] - d["unreachable"]')" = "$1" ] ||
                fail "drift at $1: not every node reached and in sync"
        D_WALL_MS=$(( (t1 - t0) / 1000 ))
        D_RSS_KB=$(awk -F': ' '/Maximum resident/ {print $2}' "$T/drift.time")
}

# The ten-run loop: consecutive rollouts at the largest size, each committing every node.
if [ "$LOOP" -gt 0 ]; then
        lg_inventory "$MAX" "$PORT" "$T/pki" > "$T/inv.json"
        ok=0
        for ((i = 1; i <= LOOP; i++)); do
                pol=$T/a.json; [ $((i % 2)) = 0 ] && pol=$T/b.json
                sqlite_rollout "$ns" "$T/inv.json" "$pol" --parallel 64 "${ARGS[@]}"
                say "$NAME: $i/$LOOP: $MAX endpoints: rollout $(secs "$Q_WALL_MS"), $Q_COMMITTED committed, peak rss $((Q_RSS_KB / 1024)) MiB (load $(load))"
                [ "$Q_COMMITTED" = "$MAX" ] && ok=$((ok + 1))
        done
        goal "$NAME: consecutive $MAX-endpoint rollouts with every node committed" "$ok" ">=" "$LOOP" "of $LOOP"
        [ -z "${BENCH_SECTION:-}" ] || { echo "### $NAME: $LOOP consecutive rollouts of $MAX endpoints"; echo
                                         echo "\`make bench-scale-loop\` on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, commit $(git -C "$NETTUNE_TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)."; echo
                                         sed 's/^/    /' "$T/section.lines"; } >> "$BENCH_SECTION"
        exit 0
fi

etcd_cluster_up 1 "$ns"
declare -A PER
for n in $SIZES; do
        lg_inventory "$n" "$PORT" "$T/pki" > "$T/inv$n.json"
        l0=$(load)
        k0=$(lg_counts)
        floor "$n" "$T/a.json"; f1=$F_WALL_MS
        k1=$(lg_counts)
        sqlite_rollout "$ns" "$T/inv$n.json" "$T/b.json" --parallel 64 "${ARGS[@]}"
        [ "$Q_COMMITTED" = "$n" ] || fail "SQLite rollout at $n: $Q_COMMITTED of $n committed"
        k2=$(lg_counts)
        waves=$(json_get "$T/sqlite-rollout.json" 'len(d["waves"])')
        floor "$n" "$T/a.json"; f2=$F_WALL_MS
        SERVE_PREFIX=/scale$n SERVE_ARGS="--parallel 64" serve_rollout "$ns" "$T/inv$n.json" "$T/b.json" "${ARGS[@]}"
        [ "$S_COMMITTED" = "$n" ] || fail "etcd rollout at $n: $S_COMMITTED of $n committed"
        kill "$S_PID"; wait "$S_PID" 2>/dev/null || true
        drift_scan "$n" "$T/inv$n.json"
        f=$(( (f1 + f2) / 2 ))
        rss=$(printf '%s\n' "$Q_RSS_KB" "$S_RSS_KB" "$D_RSS_KB" | sort -n | tail -1)
        per=$(awk -v w="$Q_WALL_MS" -v n="$n" 'BEGIN { printf "%.2f", w / n }')
        PER[$n]=$per
        say "ctl_scale: $n endpoints: rollout $(awk -v m="$Q_WALL_MS" 'BEGIN { printf "%.1f", m / 1000 }') s (floor $(awk -v m="$f" 'BEGIN { printf "%.1f", m / 1000 }') s, ratio $(ratio "$Q_WALL_MS" "$f")), etcd $(awk -v m="$S_WALL_MS" 'BEGIN { printf "%.1f", m / 1000 }') s, drift $(awk -v m="$D_WALL_MS" 'BEGIN { printf "%.1f", m / 1000 }') s, peak rss $((rss / 1024)) MiB, etcd revisions $S_WRITES, per-endpoint $per ms"
        say "    load $l0 before, $(load) after; controller cpu $Q_CPU_S s (SQLite), $S_CPU_S s (replica); $waves waves; floors $f1 ms, $f2 ms; rss $((Q_RSS_KB / 1024)) / $((S_RSS_KB / 1024)) / $((D_RSS_KB / 1024)) MiB (SQLite / replica / drift)"
        say "    requests/connections (TLS handshakes) per node, as the load generator counted them: floor $(per_node "$n" "$k0" "$k1"), SQLite rollout $(per_node "$n" "$k1" "$k2")"
        if [ "$n" = "$MAX" ]; then
                goal "ctl_scale: rollout at $n, ÷ the protocol's floor" "$(ratio "$Q_WALL_MS" "$f")" "<=" 1.5 "×"
                goal "ctl_scale: peak controller rss at $n" "$((rss / 1024))" "<=" 100 "MiB"
                goal "ctl_scale: etcd revisions of one rollout at $n ($waves waves)" "$S_WRITES" "<=" $((4 * waves + 16)) "revisions"
        fi
done
if [ "$MAX" != "$MIN" ]; then
        goal "ctl_scale: per-endpoint cost at $MAX ÷ at $MIN" "$(ratio "${PER[$MAX]}" "${PER[$MIN]}")" "<=" 1.3 "×"
fi
kill "$LG_PID"; wait "$LG_PID" 2>/dev/null || true
if [ -n "${BENCH_SECTION:-}" ]; then
        {
                echo "### ctl_scale: the controller at $(echo $SIZES | sed 's/ /, /g') nodes against the protocol's floor"
                echo
                echo "\`make bench-scale\` on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, commit $(git -C "$NETTUNE_TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)."
                echo "Ratios are to \`tests/tools/https_floor\` measured just before and just after the rollout"
                echo "(the machine is shared: its load average is given beside each size)."
                echo
                sed 's/^/    /' "$T/section.lines"
        } >> "$BENCH_SECTION"
fi
