#!/usr/bin/env bash
# Run every libFuzzer harness for a while:   tests/fuzz/run.sh BUILD SECONDS
# build/fuzz/fuzz_NAME runs on tests/fuzz/corpus/NAME/ (new inputs go to a scratch
# copy, so the seed corpus in git stays as it is). Crash reproducers kept in
# tests/fuzz/crashes/NAME/ are replayed first. New crashes are written to
# $BUILD/fuzz-artifacts/NAME/. Prints PASS/FAIL per harness.
set -uo pipefail

cd "$(dirname "$0")/../.."
build=${1:-${BUILD:-build}}
seconds=${2:-60}
failed=0
shopt -s nullglob

for bin in "$build"/fuzz/fuzz_*; do
        [ -x "$bin" ] || continue
        name=$(basename "$bin")
        name=${name#fuzz_}
        corpus=tests/fuzz/corpus/$name
        crashes=(tests/fuzz/crashes/$name/*)
        scratch=$build/fuzz-corpus/$name
        artifacts=$build/fuzz-artifacts/$name/
        log=$build/fuzz-logs/$name.log
        mkdir -p "$scratch" "$artifacts" "$(dirname "$log")"
        if [ ${#crashes[@]} -gt 0 ] && ! "$bin" "${crashes[@]}" > "$log" 2>&1; then
                echo "FAIL fuzz_$name: a kept crash reproducer fails again (see $log)"
                failed=1
                continue
        fi
        [ -d "$corpus" ] && cp -n "$corpus"/* "$scratch"/ 2>/dev/null
        if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
                -artifact_prefix="$artifacts" -print_final_stats=1 "$scratch" > "$log" 2>&1 &&
                ! grep -q 'runtime error:' "$log"; then
                runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
                echo "PASS fuzz_$name (${runs:-?} runs in ${seconds}s, ${#crashes[@]} reproducers replayed)"
        else
                echo "FAIL fuzz_$name: crash, leak or undefined behaviour; reproducer in $artifacts (see $log)"
                failed=1
        fi
done
exit $failed
