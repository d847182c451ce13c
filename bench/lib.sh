# Shared helpers for benchmarks: source it. Each benchmark prints markdown table
# rows ("| benchmark | nettune | peer | ratio | notes |") on stdout.
set -euo pipefail
: "${NETTUNE_TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${BUILD:=build}"
case $BUILD in /*) ;; *) BUILD=$NETTUNE_TOP/$BUILD ;; esac
AGENT=$BUILD/nettune-agent
CTL=$BUILD/nettunectl
B_ID=$(printf '%04x' $(( $$ % 65536 )))
W=$(mktemp -d "/tmp/nettune-bench.XXXXXX")
_b_pids=()
b_cleanup() {
        for p in "${_b_pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
        for p in "${_b_pids[@]:-}"; do [ -n "$p" ] && wait "$p" 2>/dev/null || true; done
        # b_netns runs in $(...): the names it made are in a file, not in this shell.
        [ -f "$W/netns" ] && while read -r ns; do ip netns del "$ns" 2>/dev/null || true; done < "$W/netns"
        rm -rf "$W"
}
trap b_cleanup EXIT

b_netns() { local ns="nb-$1-$B_ID"; ip netns add "$ns"; echo "$ns" >> "$W/netns"; ip -n "$ns" link set lo up; echo "$ns"; }
b_bg() { "$@" & _b_pids+=("$!"); BG_PID=$!; }

# now_ms: monotonic-enough wall clock in milliseconds.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# median N...: the median of the arguments.
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# Paired timing, statistics and goal checks.
. "$NETTUNE_TOP/bench/stats.sh"
