# Paired timing, statistics and goal checks for the benchmarks: source it (bench/lib.sh
# does). Sets no traps and makes nothing.
# now_us: a monotonic-enough clock in microseconds that forks nothing (bash's EPOCHREALTIME).
now_us() { local t=${EPOCHREALTIME/[.,]/}; echo $((10#$t)); }

# stats V...: "median p25 p75 min max" of the values (nearest rank).
stats() {
        printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {
                n = NR
                m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
                i25 = int(n * 0.25 + 0.999); if (i25 < 1) i25 = 1
                i75 = int(n * 0.75 + 0.999); if (i75 < 1) i75 = 1
                printf "%g %g %g %g %g\n", m, v[i25], v[i75], v[1], v[n] }'
}

# pair_ratios "A..." "B...": the ratios a[i] / b[i] of two lists of the same length, one per line.
pair_ratios() {
        paste <(printf '%s\n' $1) <(printf '%s\n' $2) | awk '$2 > 0 { printf "%.4f\n", $1 / $2 }'
}

# ratio A B: A / B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'; }

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
                fig=$(awk -v f="$fig" 'BEGIN { printf "%.4g", f }')
                verdict=$(awk -v f="$fig" -v l="$limit" -v op="$op" 'BEGIN {
                        ok = (op == "<=") ? (f <= l) : (f >= l); print ok ? "ok" : "FAIL" }')
        fi
        printf '%s|%s|%s|%s|%s|%s\n' "$name" "${fig:-not measured}" "$op" "$limit" "$unit" "$verdict" \
                >> "${BENCH_GOALS:-/dev/null}"
        [ "$verdict" = ok ] || echo "bench: GOAL NOT MET: $name: ${fig:-not measured} $unit (goal $op $limit $unit)" >&2
}
