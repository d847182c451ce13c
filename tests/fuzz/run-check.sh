#!/usr/bin/env bash
# Fuzz tier of tests/check.sh: build the libFuzzer harnesses with clang and run
# each for a bounded time (FUZZ_SECONDS, default 10). Skips without clang.
# --prepare: the build only (tests/check.sh makes it before it runs the tier beside others).
set -uo pipefail

cd "$(dirname "$0")/../.."
build=${BUILD:-build}
seconds=${FUZZ_SECONDS:-10}
clang=${CLANG:-clang}

if ! command -v "$clang" > /dev/null; then
        echo "SKIP fuzz: clang not installed"
        exit 0
fi
if ! make -s BUILD="$build" CLANG="$clang" fuzz-build > "$build/fuzz-build.log" 2>&1; then
        echo "FAIL fuzz-build: cannot build the harnesses (see $build/fuzz-build.log)"
        tail -5 "$build/fuzz-build.log" | sed 's/^/  /'
        exit 1
fi
[ "${1:-}" = --prepare ] && exit 0
exec tests/fuzz/run.sh "$build" "$seconds"
