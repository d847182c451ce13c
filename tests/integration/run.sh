#!/usr/bin/env bash
# Integration tier: every tests/integration/*.sh is one case. Exit 0 = pass,
# 77 = skipped (the reason is the script's last "SKIP: ..." line), else fail.
# Select with TESTS='host-*'.
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
export BUILD NETTUNE_TOP=$PWD
logdir=$BUILD/test-logs/integration
mkdir -p "$logdir"
pattern=${TESTS:-*}
for t in tests/integration/$pattern.sh; do
        [ -e "$t" ] || continue
        name=$(basename "$t" .sh)
        [ "$name" = run ] && continue           # this runner
        log=$logdir/$name.log
        timeout -k 10 "${TEST_TIMEOUT:-600}" bash "$t" >"$log" 2>&1
        rc=$?
        case $rc in
        0)  echo "PASS $name" ;;
        77) echo "SKIP $name: $(grep -a '^SKIP: ' "$log" | tail -1 | cut -c7-)" ;;
        124|137) echo "FAIL $name: timed out (log: $log)"; tail -n 20 "$log" | sed 's/^/  /' ;;
        *)  echo "FAIL $name: exit $rc (log: $log)"; tail -n 20 "$log" | sed 's/^/  /' ;;
        esac
done
