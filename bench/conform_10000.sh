#!/usr/bin/env bash
# Benchmark: `nettunectl conform --profile` over 10,000 nodes (`BENCH=conform_10000
# bench/run.sh`; not part of `make bench` or `make check`). The endpoints are the load
# generator (tests/tools/loadgen_agent.c, NOT an agent: it answers the agent API from a
# table) on N loopback addresses of a private netns, each with a certificate of its
# own, mTLS on every connection, as bench/ctl_scale.sh runs it. Nothing is committed
# there, so every endpoint's plan of the profile is one change: 10,000 departures,
# each node asked POST /v1/plan and GET /v1/state. The peer is `nettunectl drift` over
# the same endpoints (one request per node), run just before. Goal: conform within
# 60 s; every node answered, every departure reported.
# SIZE=N another size (default 10000).
. "$(cd "$(dirname "$0")/.." && pwd)/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/loadgen.sh"
. "$NETTUNE_TOP/bench/stats.sh"
require_root
[ -x /usr/bin/time ] || skip "/usr/bin/time is not installed"
[ -x "$LG" ] || skip "'$LG' is not built (make test-bins)"
N=${SIZE:-10000}
PORT=7440
PROFILE=$NETTUNE_TOP/policies/profiles/vendor/nco-roce-optimized-26-10.json
say() { echo "$*" >&2; [ -z "${BENCH_SECTION:-}" ] || echo "$*" >> "$T/section.lines"; }
load() { cut -d' ' -f1 /proc/loadavg; }
secs() { awk -v m="$1" 'BEGIN { printf "%.1f", m / 1000 }'; }

ns=$(netns_add conform)
lg_pki "$T/pki"
lg_start "$ns" "$N" "$PORT" "$T/pki" "$T/loadgen.log"
lg_inventory "$N" "$PORT" "$T/pki" > "$T/inv.json"
l0=$(load)

t0=$(now_us)
rc=0
ip netns exec "$ns" /usr/bin/time -v -o "$T/drift.time" "$CTL" --inventory "$T/inv.json" --db "$T/bench.db" \
        --quiet --parallel 64 --output json drift > "$T/drift.json" || rc=$?
t1=$(now_us)
[ "$rc" = 0 ] || fail "drift at $N exited $rc"
d_ms=$(( (t1 - t0) / 1000 ))

k0=$(lg_counts)
t0=$(now_us)
rc=0
ip netns exec "$ns" /usr/bin/time -v -o "$T/conform.time" "$CTL" --inventory "$T/inv.json" --db "$T/bench.db" \
        --quiet --parallel 64 --output json conform --profile "$PROFILE" > "$T/conform.json" || rc=$?
t1=$(now_us)
k1=$(lg_counts)
[ "$rc" = 1 ] || fail "conform at $N exited $rc, expected 1 (a departure on every node)"
c_ms=$(( (t1 - t0) / 1000 ))
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["summary"]; print(s["departing"], s["departures"], s["unreachable"] + s["refused"])' "$T/conform.json")
[ "$got" = "$N $N 0" ] || fail "conform at $N: departing, departures, unanswered = $got"
rss=$(awk -F': ' '/Maximum resident/ {print int($2 / 1024)}' "$T/conform.time")
cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$T/conform.time")
kill "$LG_PID"; wait "$LG_PID" 2>/dev/null || true

say "conform_$N: $N endpoints: conform $(secs "$c_ms") s (drift $(secs "$d_ms") s, ratio $(ratio "$c_ms" "$d_ms")), peak rss $rss MiB, cpu $cpu s, $N departures reported"
say "    load $l0 before, $(load) after; requests/connections (TLS handshakes) per node, as the load generator counted them: $(per_node "$N" "$k0" "$k1")"
printf '| conform_%s: `nettunectl conform --profile` over %s load-generator endpoints (POST /v1/plan + GET /v1/state each, mTLS) | %s s, %s MiB | drift over the same endpoints: %s s | %s | every node answered, %s departures reported; load %s |\n' \
        "$N" "$N" "$(secs "$c_ms")" "$rss" "$(secs "$d_ms")" "$(ratio "$c_ms" "$d_ms")" "$N" "$(load)"
goal "conform_$N: conform over $N endpoints" "$(secs "$c_ms")" "<=" 60 "s"
if [ -n "${BENCH_SECTION:-}" ]; then
        {
                echo "### conform_$N: nettunectl conform over $N endpoints"
                echo
                echo "\`BENCH=conform_10000 bench/run.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, commit $(git -C "$NETTUNE_TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)."
                echo
                sed 's/^/    /' "$T/section.lines"
        } >> "$BENCH_SECTION"
fi
