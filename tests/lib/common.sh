# Shared helpers for integration scripts: source it, never run it.
#   . "$NETTUNE_TOP/tests/lib/common.sh"
# Provides: skip, fail, check (assert), netns/veth creation that is torn down on
# exit, background processes killed by PID on exit, and a per-test temp dir.
set -euo pipefail

: "${NETTUNE_TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${BUILD:=build}"
case $BUILD in /*) ;; *) BUILD=$NETTUNE_TOP/$BUILD ;; esac
AGENT=$BUILD/nettune-agent
CTL=$BUILD/nettunectl
TEST_NAME=$(basename "${0%.sh}")
# Short unique prefix for namespaces and links (interface names are <= 15 chars).
# tests/integration/run.sh exports one per test, so that it can find what a test leaves behind.
NT_ID=${NT_ID:-$(printf '%04x' $(( $$ % 65536 )))}
# The per-test temp dir; the runner passes one (NT_TMP) to find processes left running from it.
if [ -n "${NT_TMP:-}" ] && [ -d "$NT_TMP" ]; then T=$NT_TMP; else T=$(mktemp -d "/tmp/nettune-$TEST_NAME.XXXXXX"); fi

_nt_netns=()
_nt_pids=()

nt_cleanup() {
        local rc=$?
        touch "$T/gates.open" 2>/dev/null || true     # release every gate_hook first
        for pid in "${_nt_pids[@]:-}"; do
                [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
        done
        for pid in "${_nt_pids[@]:-}"; do
                [ -n "$pid" ] && wait "$pid" 2>/dev/null || true
        done
        # Every namespace this test made carries its suffix; netns_add may have run in a
        # subshell ($(...)), so do not rely on the array alone.
        for ns in "${_nt_netns[@]:-}" $(ip netns list 2>/dev/null | awk '{print $1}' | grep -- "-$NT_ID\$"); do
                [ -n "$ns" ] && ip netns del "$ns" 2>/dev/null || true
        done
        [ "${KEEP_TMP:-0}" = 1 ] || rm -rf "$T"
        exit $rc
}
trap nt_cleanup EXIT
trap 'exit 130' INT TERM

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }

# check DESCRIPTION CMD...: run CMD, fail with DESCRIPTION if it fails.
check() {
        local what=$1; shift
        if ! "$@"; then fail "$what"; fi
        echo "ok: $what"
}

# expect_rc N DESCRIPTION CMD...: CMD must exit with N.
expect_rc() {
        local want=$1 what=$2 rc=0; shift 2
        "$@" || rc=$?
        [ "$rc" -eq "$want" ] || fail "$what: exit $rc, expected $want"
        echo "ok: $what (exit $rc)"
}

require_root() { [ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"; }
require_cmd() { for c in "$@"; do command -v "$c" >/dev/null 2>&1 || skip "'$c' is not installed"; done; }

# netns_add NAME: create a namespace (name gets the test's unique suffix) with lo up; prints its name.
# Safe inside $(...): cleanup deletes every namespace ending in -$NT_ID.
netns_add() {
        local ns="nt-$1-$NT_ID"
        ip netns add "$ns" || fail "cannot create netns $ns"
        _nt_netns+=("$ns")
        ip -n "$ns" link set lo up
        echo "$ns"
}

# veth_pair NS_A IF_A NS_B IF_B [ADDR_A/len ADDR_B/len]: a veth pair across two namespaces.
veth_pair() {
        local nsa=$1 ifa=$2 nsb=$3 ifb=$4
        ip link add "$ifa" netns "$nsa" type veth peer name "$ifb" netns "$nsb"
        ip -n "$nsa" link set "$ifa" up
        ip -n "$nsb" link set "$ifb" up
        if [ $# -ge 6 ]; then
                ip -n "$nsa" addr add "$5" dev "$ifa"
                ip -n "$nsb" addr add "$6" dev "$ifb"
        fi
}

# bg CMD...: start CMD in the background, remember its PID for cleanup; sets BG_PID.
bg() {
        "$@" &
        BG_PID=$!
        _nt_pids+=("$BG_PID")
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
wait_for() {
        local deadline=$(( $(date +%s%N) / 1000000 + $1 * 1000 )); shift
        until "$@" >/dev/null 2>&1; do
                [ $(( $(date +%s%N) / 1000000 )) -lt $deadline ] || return 1
                sleep 0.1
        done
}

# free_port: an unused TCP port on 127.0.0.1.
free_port() {
        python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# gate_hook NAME: a shell command for a test-only hook (NETTUNE_TEST_HOOK_AFTER_APPLY) that
# holds whoever runs it until the test says so: it creates $T/NAME.held, then waits for
# gate_open NAME (or the test's end). A test checks "while the transaction runs" between
# gate_held and gate_open, however slow the machine, instead of racing a sleep.
gate_hook() { echo "touch '$T/$1.held'; until [ -e '$T/$1.open' ] || [ -e '$T/gates.open' ]; do sleep 0.05; done"; }
gate_held() { [ -e "$T/$1.held" ]; }
gate_open() { touch "$T/$1.open"; }
