#!/usr/bin/env bash
# Idle footprint of `nettune-agent serve`: RSS (VmRSS) and the CPU time it uses over an
# idle window (/proc/PID/stat utime+stime), with TLS, the probe responder and a 1 s
# drift timer running; the peer is an idle `iperf3 -s` measured the same way.
# Goals: serve idle <= 8 MiB RSS, and about no CPU (<= 0.5% of one CPU) over the window.
# Prints one row of bench/run.sh's table:
#   | agent_footprint | RSS, CPU | iperf3 -s RSS, CPU | RSS ratio | notes |
# Needs root (runs in its own network namespace). IDLE_S=60 by default.
set -euo pipefail
: "${NETTUNE_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
export NETTUNE_TOP
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/bench/stats.sh"
require_root
idle=${IDLE_S:-60}

ns=$(netns_add fp)
make_certs "$T/certs" >/dev/null || fail "cannot make test certificates"
agent_config "$T/agent.json" "$T/state" "127.0.0.1:7490" "127.0.0.1:18590" '"drift": {"interval_s": 1}'
serve_start "$ns" "$T/agent.json" 2>/dev/null
# ip netns exec execs the agent in place: the PID is the agent's own.
pid=$SERVE_PID
[ "$(cat "/proc/$pid/comm")" = nettune-agent ] || fail "pid $pid is $(cat "/proc/$pid/comm"), not the agent"
sleep 1
bg ip netns exec "$ns" iperf3 -s -B 127.0.0.1 -p 7491 >/dev/null 2>&1
peer=$BG_PID
sleep 1
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
a0=$(cpu "$pid") p0=$(cpu "$peer")
sleep "$idle"
a1=$(cpu "$pid") p1=$(cpu "$peer")
ams=$(( (a1 - a0) * 1000 / ticks )) pms=$(( (p1 - p0) * 1000 / ticks ))
arss=$(rss "$pid") prss=$(rss "$peer")
ratio=$(awk -v a="$arss" -v b="$prss" 'BEGIN { printf "%.2f", a / b }')
pct=$(awk -v m="$ams" -v s="$idle" 'BEGIN { printf "%.2f", m / (s * 10) }')
echo "| agent_footprint (serve idle ${idle} s) | ${arss} KiB RSS, ${ams} ms CPU (${pct}% of a CPU) | iperf3 -s: ${prss} KiB RSS, ${pms} ms CPU | ${ratio} (RSS) | TLS API + probe responder + 1 s drift timer |"
goal "serve idle RSS" "$(awk -v k="$arss" 'BEGIN { printf "%.2f", k / 1024 }')" "<=" 8 "MiB"
goal "serve idle CPU over ${idle} s" "$pct" "<=" 0.5 "% of a CPU"
