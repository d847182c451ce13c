#!/usr/bin/env bash
# Unit tier: the CUnit runner prints PASS/FAIL per test.
cd "$(dirname "$0")/../.."
exec "${BUILD:-build}/unit-tests"
