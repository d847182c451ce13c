#!/usr/bin/env bash
# make bench: run every benchmark in one go, each against a real peer in the same run,
# and write bench/RESULTS.md (OUT=FILE elsewhere). BENCH="mtu_apply_64 state_1000" selects some. A benchmark
# may also write a section of its own ($BENCH_SECTIONS/NAME.md), which follows the table;
# the section of a benchmark that is not run this time is kept from the previous file.
set -uo pipefail
cd "$(dirname "$0")/.."
export BUILD=${BUILD:-build} NETTUNE_TOP=$PWD
order="mtu_apply_64 state_1000 probe_tcp_vs_iperf3 agent_footprint rollout_200 ctl_store_2000 ctl_etcd_200 api_hostile probe_verbs_vs_ib_write_bw ecn_lab fabric_lab"
sel=${BENCH:-$order}
out=${OUT:-bench/RESULTS.md}
rows=$(mktemp)
BENCH_SECTIONS=$(mktemp -d)
export BENCH_SECTIONS
trap 'rm -rf "$rows" "$BENCH_SECTIONS"' EXIT

# The section NAME of the current results file, markers included ("" when there is none).
old_section() {
        [ -f "$out" ] && sed -n "/^<!-- section $1 -->\$/,/^<!-- end $1 -->\$/p" "$out"
}

for b in $sel; do
        s=bench/$b.sh
        [ -x "$s" ] || { echo "| $b | — | — | — | not run: bench/$b.sh missing |" >> "$rows"; continue; }
        echo "bench: $b" >&2
        if ! BENCH_SECTION=$BENCH_SECTIONS/$b.md timeout -k 10 "${BENCH_TIMEOUT:-900}" "$s" > "$rows.one" 2> "$rows.err"; then
                echo "| $b | — | — | — | failed: $(tail -n 1 "$rows.err" | tr '|' '/') |" >> "$rows"
                tail -n 5 "$rows.err" >&2
                continue
        fi
        cat "$rows.one" >> "$rows"
done
rm -f "$rows.one" "$rows.err"

table() {
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
        echo
        echo "Controller store rows (ctl_store_2000, ctl_etcd_200): \"nettune\" is a \`nettunectl serve\`"
        echo "replica on one real etcd member, \"peer\" is \`nettunectl apply\` on SQLite, the same wave"
        echo "rules (canary 1, waves of 25%). The 2,000 endpoints are one load generator"
        echo "(\`tests/tools/loadgen_agent.c\`, not an agent: it answers the agent API from a table"
        echo "and changes nothing) on 2,000 loopback addresses; controller CPU there is mostly TLS"
        echo "handshakes. \"etcd writes per rollout\" is etcd's revision count across the rollout"
        echo "(every write txn adds one), including the submitting \`apply\`."
}

{
        # Only sections were run (BENCH=ecn_lab): the table stays as it was, with its date.
        if [ ! -s "$rows" ] && [ -f "$out" ]; then
                sed -n '/^<!-- section /q; p' "$out" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
        else
                table
        fi
        for b in $order; do
                if [ -s "$BENCH_SECTIONS/$b.md" ]; then
                        printf '\n<!-- section %s -->\n' "$b"
                        cat "$BENCH_SECTIONS/$b.md"
                        printf '<!-- end %s -->\n' "$b"
                elif [ -n "$(old_section "$b")" ]; then
                        echo
                        old_section "$b"
                fi
        done
} > "$out.new"
mv "$out.new" "$out"
echo "bench: wrote $out" >&2
cat "$out"
