#!/usr/bin/env bash
# The counter sampler's cost (drivers/host/sampler.c, counters.sample_ms): its CPU at a
# period of 10 ms on a host's 2 ports and on a 32-port switch agent's ports, against the
# floor of reading the same counters with nothing kept (build/tools/sampler_bench floor:
# the same RTM_GETSTATS requests on plain sockets, in the same namespace, same period),
# runs alternating, TRIALS of SECS each; its memory (RSS growth); and its bookkeeping
# alone over 40 congestion counters a port (a ConnectX port's PFC, ECN, CNP and discard
# counters), which a veth cannot show: a veth has no congestion counter in its ethtool
# statistics, so on veth the sampler reads the links' drop counters only.
# Goal (issue #48): <= 1% of one core at 10 ms on 2 ports and on 32 ports.
# Prints the rows of bench/run.sh's table; writes its section. Needs root.
set -euo pipefail
: "${NETTUNE_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
export NETTUNE_TOP
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/bench/stats.sh"
require_root
TRIALS=${TRIALS:-3}
SECS=${SECS:-10}
PERIOD=${PERIOD:-10}
tool=$BUILD/tools/sampler_bench
[ -x "$tool" ] || fail "$tool not built (make test-bins)"

ns=$(netns_add smp)
nsp=$(netns_add smpp)
ports=()
for i in $(seq 0 31); do
        veth_pair "$ns" "cs$i$NT_ID" "$nsp" "cq$i$NT_ID"
        ports+=("cs$i$NT_ID")
done
load0=$(cut -d' ' -f1 /proc/loadavg)

# one run: prints CPU % of one core, samples, overruns, RSS KiB
one() {
        local out
        out=$(ip netns exec "$ns" "$tool" "$@")
        awk -v secs="$SECS" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                printf "%.3f %s %s %s\n", v["cpu_ms"] / (secs * 10), v["samples"], v["overruns"], v["rss_kib"] }' <<<"$out"
}

declare -A cpu samples overruns rss
for t in $(seq 1 "$TRIALS"); do
        for n in 2 32; do
                for mode in sample floor; do
                        read -r c s o r < <(one "$mode" "$PERIOD" "$SECS" "${ports[@]:0:$n}")
                        cpu[$mode$n]+="$c " samples[$mode$n]+="$s " overruns[$mode$n]+="$o " rss[$mode$n]+="$r "
                        echo "counter_sampler: trial $t, $n ports, $mode: $c% of a core, $s samples, $o overruns, +$r KiB" >&2
                done
        done
done
read -r acc40 _ _ accrss < <(one account "$PERIOD" "$SECS" 32 40)
read -r acc2 _ _ _ < <(one account "$PERIOD" "$SECS" 2 40)
read -r wake _ _ _ < <(one account "$PERIOD" "$SECS" 0 0)
load1=$(cut -d' ' -f1 /proc/loadavg)

med() { stats $1 | cut -d' ' -f1; }
q() { stats $1 | awk '{ printf "[%s-%s]", $2, $3 }'; }
rows=""
for n in 2 32; do
        s=$(med "${cpu[sample$n]}") f=$(med "${cpu[floor$n]}")
        r=$(ratio "$s" "$f")
        rows+="| counter_sampler ($n ports, ${PERIOD} ms) | $s% of a core $(q "${cpu[sample$n]}") | floor $f% $(q "${cpu[floor$n]}") | $r | $(med "${samples[sample$n]}") samples in ${SECS} s, $(med "${overruns[sample$n]}") overruns; +$(med "${rss[sample$n]}") KiB RSS; veth: link drop counters; load $load0-$load1 on $(nproc) cores |
"
        goal "counter sampler CPU at ${PERIOD} ms, $n ports" "$s" "<=" 1 "% of a core"
done
printf '%s' "$rows"

if [ -n "${BENCH_SECTION:-}" ]; then
        cat > "$BENCH_SECTION" <<MD
## The counter sampler (counters.sample_ms)

Written by \`bench/counter_sampler.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), load average
$load0 at the start and $load1 at the end on $(nproc) cores (other work on the machine). In a network namespace of 32 veth ports,
\`build/tools/sampler_bench\` runs the sampler (its own thread, every ${PERIOD} ms) over the first 2 and over all 32
ports for ${SECS} s, and the floor beside it: the same link counter requests (RTM_GETSTATS: a GET per port for 2 of
33 links, one dump for 32 of 33, as the sampler chooses) on plain sockets, nothing parsed or kept; $TRIALS trials
alternating; CPU is the process's user + system time (getrusage), as a share of one core; median [p25-p75].

| ports | sampler, % of a core | floor, % of a core | ratio | samples / overruns | RSS growth |
|---|---|---|---|---|---|
| 2 | $(med "${cpu[sample2]}") $(q "${cpu[sample2]}") | $(med "${cpu[floor2]}") $(q "${cpu[floor2]}") | $(ratio "$(med "${cpu[sample2]}")" "$(med "${cpu[floor2]}")") | $(med "${samples[sample2]}") / $(med "${overruns[sample2]}") | $(med "${rss[sample2]}") KiB |
| 32 | $(med "${cpu[sample32]}") $(q "${cpu[sample32]}") | $(med "${cpu[floor32]}") $(q "${cpu[floor32]}") | $(ratio "$(med "${cpu[sample32]}")" "$(med "${cpu[floor32]}")") | $(med "${samples[sample32]}") / $(med "${overruns[sample32]}") | $(med "${rss[sample32]}") KiB |

The bookkeeping alone (\`sampler_bench account\`: histogram, window, bursts per counter per sample, no reads),
40 counters a port: $acc2% of a core at 2 ports, $acc40% at 32 ports (+$accrss KiB); waking every ${PERIOD} ms and
doing nothing costs $wake% here. A veth has no pause, ECN or CNP counter: on a NIC each port adds one
ETHTOOL_GSTATS a period (the driver's own cost: mlx5 queries its firmware for the PPCNT groups) and the
bookkeeping above; neither can be measured on this machine's veths.

Read: the sampler's reads are the floor's (a few system calls a period); what it adds is parsing the replies
and keeping the counters. Samples short of ${SECS}000/${PERIOD} and the overruns are periods the loaded machine
did not wake the thread in time (a late sample is measured over its own interval, not lost).
MD
fi
