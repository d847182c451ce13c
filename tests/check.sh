#!/usr/bin/env bash
# Run every test tier and print one summary line per tier (with its wall-clock
# seconds) and a final
# "N passed, N failed, N skipped" line. A tier that cannot run here counts as
# skipped with its reason, never as passed.
#
# Each tier runner prints one line per case on stdout:
#   PASS <case>            FAIL <case>: <why>            SKIP <case>: <why>
# Anything else it prints is shown as is. Select tiers with TIERS="unit golden".
# A tier of CHECK_BESIDE (below) is run first with --prepare (its builds only), then
# in the background.
set -uo pipefail

cd "$(dirname "$0")/.."
export BUILD=${BUILD:-build}
export NETTUNE_TOP=$PWD
TIERS=${TIERS:-layout unit golden schema integration fuzz vmlab}
logdir=$BUILD/test-logs
mkdir -p "$logdir"

total_pass=0 total_fail=0 total_skip=0
summary=()

# CHECK_BESIDE: tiers started in the background when the run begins, on a machine of
# two cores or more, and collected at their turn (their lines printed then). Default
# "fuzz": the fuzzers (each for a fixed time) share nothing with the host's tiers but
# the CPUs, and the host's tests pass beside busy CPUs (make check-stressed); their
# builds (the harnesses) are made first, in the foreground. The VM lab is not beside
# them: its goodput cases measure an emulated CPU, which the integration tier's cases,
# run side by side, would starve (beside them a proposal's five pairs once measured
# 0.869 of the ceiling where alone they measure 0.98-1.01). CHECK_BESIDE= runs every
# tier in turn.
if [ "$(nproc)" -ge 2 ]; then
        BESIDE=${CHECK_BESIDE-fuzz}
else
        BESIDE=${CHECK_BESIDE-}
fi
declare -A beside_pid=() beside_start=()
stop_beside() {
        local t
        for t in "${!beside_pid[@]}"; do
                pkill -TERM -s "${beside_pid[$t]}" 2>/dev/null || true
        done
}
trap stop_beside EXIT
trap 'exit 130' INT TERM

runner_of() {
        case $1 in
        layout)      echo tests/layout.sh ;;
        unit)        echo tests/unit/run.sh ;;
        golden)      echo tests/golden/run.sh ;;
        schema)      echo tests/schema/run.sh ;;
        integration) echo tests/integration/run.sh ;;
        fuzz)        echo tests/fuzz/run-check.sh ;;
        vmlab)       echo tests/vmlab/run.sh ;;
        *)           return 1 ;;
        esac
}

# count_tier TIER OUT START: its cases into the totals and its summary line.
count_tier() {
        local tier=$1 out=$2 start=$3 pass fail skip reason
        pass=$(grep -c '^PASS ' "$out")
        fail=$(grep -c '^FAIL ' "$out")
        skip=$(grep -c '^SKIP ' "$out")
        if [ "$pass" -eq 0 ] && [ "$fail" -eq 0 ] && [ "$skip" -eq 0 ]; then
                # The runner ran nothing at all: that is a failure of the tier.
                echo "FAIL $tier: runner reported no cases (see $out)"
                fail=1
        fi
        reason=""
        if [ "$skip" -gt 0 ]; then
                reason=" ($(grep '^SKIP ' "$out" | sed 's/^SKIP //' | head -3 | paste -sd ';' -))"
        fi
        summary+=("$(printf '%-12s %d passed, %d failed, %d skipped, %d s%s' "$tier" "$pass" "$fail" "$skip" \
                $(( $(cat "$out.end" 2>/dev/null || date +%s) - start )) "$reason")")
        total_pass=$((total_pass + pass))
        total_fail=$((total_fail + fail))
        total_skip=$((total_skip + skip))
}

run_tier() {
        local tier=$1 runner=$2 out=$logdir/tier-$1.out start
        echo "== tier $tier${beside_pid[$tier]:+ (run beside the tiers before it)}"
        if [ ! -x "$runner" ]; then
                summary+=("$(printf '%-12s skipped: no runner %s' "$tier" "$runner")")
                total_skip=$((total_skip + 1))
                return
        fi
        if [ -n "${beside_pid[$tier]:-}" ]; then
                wait "${beside_pid[$tier]}"
                unset "beside_pid[$tier]"
                start=${beside_start[$tier]}
                grep -E '^(PASS|FAIL|SKIP) |^  ' "$out" || true
        else
                start=$(date +%s)
                rm -f "$out.end"
                "$runner" 2>&1 | tee "$out" | grep -E --line-buffered '^(PASS|FAIL|SKIP) |^  ' || true
                date +%s > "$out.end"
        fi
        count_tier "$tier" "$out" "$start"
}

for t in $TIERS; do
        runner_of "$t" >/dev/null || { echo "unknown tier '$t'" >&2; exit 2; }
done
for t in $BESIDE; do
        case " $TIERS " in *" $t "*) ;; *) continue ;; esac
        runner=$(runner_of "$t") || { echo "CHECK_BESIDE: unknown tier '$t'" >&2; exit 2; }
        [ -x "$runner" ] || continue
        out=$logdir/tier-$t.out
        rm -f "$out.end"
        "$runner" --prepare > "$out.prepare" 2>&1 || true
        beside_start[$t]=$(date +%s)
        echo "== tier $t started beside the others"
        # its own session (timeout(1) in it makes its own process group): stopped as one if this run is
        setsid bash -c '"$1" > "$2" 2>&1; date +%s > "$2.end"' beside "$runner" "$out" &
        beside_pid[$t]=$!
done

for t in $TIERS; do
        run_tier "$t" "$(runner_of "$t")"
done

echo
echo "== summary"
for line in "${summary[@]}"; do
        echo "$line"
done
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
