#!/usr/bin/env bash
# make bench: run every benchmark in one go, each against a real peer in the same run,
# and write bench/RESULTS.md (OUT=FILE elsewhere). BENCH="mtu_apply_64 state_1000"
# selects some. A benchmark may also write a markdown section to the file named by
# $BENCH_SECTION; sections follow the table.
set -uo pipefail
cd "$(dirname "$0")/.."
export BUILD=${BUILD:-build} NETTUNE_TOP=$PWD
order="mtu_apply_64 state_1000 probe_tcp_vs_iperf3 agent_footprint rollout_200 api_hostile probe_verbs_vs_ib_write_bw"
sel=${BENCH:-$order}
out=${OUT:-bench/RESULTS.md}
rows=$(mktemp)
sections=$(mktemp)
trap 'rm -f "$rows" "$sections" "$rows.section"' EXIT

for b in $sel; do
        s=bench/$b.sh
        [ -x "$s" ] || { echo "| $b | — | — | — | not run: bench/$b.sh missing |" >> "$rows"; continue; }
        echo "bench: $b" >&2
        rm -f "$rows.section"
        if ! BENCH_SECTION=$rows.section timeout -k 10 "${BENCH_TIMEOUT:-900}" "$s" > "$rows.one" 2> "$rows.err"; then
                echo "| $b | — | — | — | failed: $(tail -n 1 "$rows.err" | tr '|' '/') |" >> "$rows"
                tail -n 5 "$rows.err" >&2
                continue
        fi
        cat "$rows.one" >> "$rows"
        [ -s "$rows.section" ] && { echo; cat "$rows.section"; } >> "$sections"
done
rm -f "$rows.one" "$rows.err"

{
        echo "# nettune benchmark results"
        echo
        echo "Written by \`make bench\` on $(date -u '+%Y-%m-%d %H:%M UTC'): $(nproc) cores,"
        echo "$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), kernel $(uname -r),"
        echo "build \`$BUILD\` ($(head -c 120 "$BUILD/.flags" 2>/dev/null | grep -q fsanitize && echo 'sanitizers ON: numbers are pessimistic' || echo 'optimised, no sanitizers'))."
        echo "Each row compares nettune with a real peer measured in the same run."
        echo
        echo "| benchmark | nettune | peer | ratio (nettune ÷ peer) | notes |"
        echo "|---|---|---|---|---|"
        cat "$rows"
        echo
        echo "Ratios of times: lower is better for nettune. Ratios of bandwidth: 1.00 means"
        echo "the probe measures what the reference tool measures. Run-to-run noise of veth"
        echo "throughput on this kind of machine is about ±12%."
        cat "$sections"
} > "$out"
echo "bench: wrote $out" >&2
cat "$out"
