#!/usr/bin/env bash
# Run every test tier and print one summary line per tier (with its wall-clock
# seconds: CI's budget is the sum) and a final
# "N passed, N failed, N skipped" line. A tier that cannot run here counts as
# skipped with its reason, never as passed.
#
# Each tier runner prints one line per case on stdout:
#   PASS <case>            FAIL <case>: <why>            SKIP <case>: <why>
# Anything else it prints is shown as is. Select tiers with TIERS="unit golden".
set -uo pipefail

cd "$(dirname "$0")/.."
export BUILD=${BUILD:-build}
export NETTUNE_TOP=$PWD
TIERS=${TIERS:-layout unit golden schema integration fuzz vmlab}
logdir=$BUILD/test-logs
mkdir -p "$logdir"

total_pass=0 total_fail=0 total_skip=0
summary=()

run_tier() {
        local tier=$1 runner=$2 out pass fail skip reason start=$SECONDS
        out=$logdir/tier-$tier.out
        echo "== tier $tier"
        if [ ! -x "$runner" ]; then
                summary+=("$(printf '%-12s skipped: no runner %s' "$tier" "$runner")")
                total_skip=$((total_skip + 1))
                return
        fi
        "$runner" 2>&1 | tee "$out" | grep -E --line-buffered '^(PASS|FAIL|SKIP) |^  ' || true
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
                $((SECONDS - start)) "$reason")")
        total_pass=$((total_pass + pass))
        total_fail=$((total_fail + fail))
        total_skip=$((total_skip + skip))
}

for t in $TIERS; do
        case $t in
        layout)      run_tier layout tests/layout.sh ;;
        unit)        run_tier unit tests/unit/run.sh ;;
        golden)      run_tier golden tests/golden/run.sh ;;
        schema)      run_tier schema tests/schema/run.sh ;;
        integration) run_tier integration tests/integration/run.sh ;;
        fuzz)        run_tier fuzz tests/fuzz/run-check.sh ;;
        vmlab)       run_tier vmlab tests/vmlab/run.sh ;;
        *)           echo "unknown tier '$t'" >&2; exit 2 ;;
        esac
done

echo
echo "== summary"
for line in "${summary[@]}"; do
        echo "$line"
done
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
