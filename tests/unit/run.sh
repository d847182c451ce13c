#!/usr/bin/env bash
# Unit tier: the CUnit runner prints PASS/FAIL per test. The runner's own exit status
# counts too: a sanitizer report (a leak found at exit) fails the tier even when every
# test passed.
cd "$(dirname "$0")/../.."
"${BUILD:-build}/unit-tests"
rc=$?
[ "$rc" -eq 0 ] || echo "FAIL unit-runner: exit $rc (a sanitizer or the runner itself failed; see above)"
exit 0
