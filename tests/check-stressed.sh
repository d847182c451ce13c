#!/usr/bin/env bash
# `make check-stressed`: every test tier (tests/check.sh, TIERS as usual) while
# `stress-ng --cpu STRESS_CPUS` keeps the CPUs busy beside it. A test that races a
# wall-clock timer shorter than the work before its assertion fails here. stress-ng
# is stopped by its PID (and its workers by theirs) whatever happens.
set -uo pipefail

cd "$(dirname "$0")/.."
cpus=${STRESS_CPUS:-2}
command -v stress-ng >/dev/null || { echo "check-stressed: stress-ng is not installed; run 'make deps'" >&2; exit 2; }

# --timeout bounds it even if this script is killed with SIGKILL.
stress-ng --cpu "$cpus" --timeout 4h --quiet &
stress_pid=$!
stop_stress() {
        local workers
        workers=$(pgrep -P "$stress_pid" 2>/dev/null || true)
        kill -TERM "$stress_pid" 2>/dev/null || true
        wait "$stress_pid" 2>/dev/null || true
        # shellcheck disable=SC2086
        [ -z "$workers" ] || kill -KILL $workers 2>/dev/null || true
}
trap stop_stress EXIT
trap 'exit 130' INT TERM
sleep 1
kill -0 "$stress_pid" 2>/dev/null || { echo "check-stressed: stress-ng did not start" >&2; exit 2; }
echo "== stress-ng --cpu $cpus running (pid $stress_pid, workers $(pgrep -P "$stress_pid" | paste -sd' ' -)); load $(cut -d' ' -f1-3 /proc/loadavg)"

start=$(date +%s)
rc=0
tests/check.sh || rc=$?
echo "== check-stressed: tests/check.sh exited $rc after $(( $(date +%s) - start )) s beside stress-ng --cpu $cpus; load $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$rc"
