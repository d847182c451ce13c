# Shared helpers for benchmarks: source it. Each benchmark prints markdown table
# rows ("| benchmark | nettune | peer | ratio | notes |") on stdout.
set -euo pipefail
: "${NETTUNE_TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${BUILD:=build}"
case $BUILD in /*) ;; *) BUILD=$NETTUNE_TOP/$BUILD ;; esac
AGENT=$BUILD/nettune-agent
CTL=$BUILD/nettunectl
B_ID=$(printf '%04x' $(( $$ % 65536 )))
W=$(mktemp -d "/tmp/nettune-bench.XXXXXX")
_b_netns=() _b_pids=()
b_cleanup() {
        for p in "${_b_pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
        for p in "${_b_pids[@]:-}"; do [ -n "$p" ] && wait "$p" 2>/dev/null || true; done
        for ns in "${_b_netns[@]:-}"; do [ -n "$ns" ] && ip netns del "$ns" 2>/dev/null || true; done
        rm -rf "$W"
}
trap b_cleanup EXIT

b_netns() { local ns="nb-$1-$B_ID"; ip netns add "$ns"; _b_netns+=("$ns"); ip -n "$ns" link set lo up; echo "$ns"; }
b_bg() { "$@" & _b_pids+=("$!"); BG_PID=$!; }

# now_ms: monotonic-enough wall clock in milliseconds.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# median N...: the median of the arguments.
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# ratio A B: A / B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'; }

# ---- paired timing and goals ----

# now_us: a monotonic-enough clock in microseconds that forks nothing (bash's EPOCHREALTIME).
now_us() { local t=${EPOCHREALTIME/[.,]/}; echo $((10#$t)); }

# stats V...: "median p25 p75 min max" of the values (nearest rank).
stats() {
        printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {
                n = NR
                m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
                i25 = int(n * 0.25 + 0.5); if (i25 < 1) i25 = 1
                i75 = int(n * 0.75 + 0.5); if (i75 < 1) i75 = 1
                printf "%g %g %g %g %g\n", m, v[i25], v[i75], v[1], v[n] }'
}

# pair_ratios "A..." "B...": the ratios a[i] / b[i] of two lists of the same length, one per line.
pair_ratios() {
        paste <(printf '%s\n' $1) <(printf '%s\n' $2) | awk '$2 > 0 { printf "%.4f\n", $1 / $2 }'
}

# ms US: microseconds as milliseconds with one decimal.
ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }

# goal NAME FIGURE OP LIMIT UNIT: check one figure against its goal and record it for
# bench/run.sh (the Goals table, the history line, the exit status). OP is <= or >=.
# FIGURE "" means it could not be measured: that fails too, loudly.
goal() {
        local name=$1 fig=$2 op=$3 limit=$4 unit=$5 verdict
        if [ -z "$fig" ]; then
                verdict=FAIL
        else
                verdict=$(awk -v f="$fig" -v l="$limit" -v op="$op" 'BEGIN {
                        ok = (op == "<=") ? (f <= l) : (f >= l); print ok ? "ok" : "FAIL" }')
        fi
        printf '%s|%s|%s|%s|%s|%s\n' "$name" "${fig:-not measured}" "$op" "$limit" "$unit" "$verdict" \
                >> "${BENCH_GOALS:-/dev/null}"
        [ "$verdict" = ok ] || echo "bench: GOAL NOT MET: $name: ${fig:-not measured} $unit (goal $op $limit $unit)" >&2
}
