#!/usr/bin/env bash
# make bench: run every benchmark in one go, each against a real peer in the same run,
# and write bench/RESULTS.md (OUT=FILE elsewhere). BENCH="mtu_apply_64 state_1000" selects some. A benchmark
# may also write a section of its own ($BENCH_SECTIONS/NAME.md), which follows the table;
# the section of a benchmark that is not run this time is kept from the previous file.
#
# A benchmark checks its figures against their goals (bench/stats.sh: goal); the run
# lists every check under "Goals", appends one line to the history section (kept
# between runs, the newest HISTORY_MAX lines), and exits 1 naming every figure worse
# than its goal or not measured.
set -uo pipefail
cd "$(dirname "$0")/.."
export BUILD=${BUILD:-build} NETTUNE_TOP=$PWD
order="mtu_apply_64 state_1000 rollback_64 pfc_storm probe_tcp_vs_iperf3 agent_footprint rollout_200 ctl_store_2000 ctl_etcd_200 api_hostile api_read_flood probe_verbs_vs_ib_write_bw ecn_lab fabric_lab policy_validate"
# Run only when selected (BENCH=ctl_scale: `make bench-scale`; ctl_scale_loop: `make
# bench-scale-loop`; locate_lab: `make bench-locate`; conform_10000: `BENCH=conform_10000 bench/run.sh`;
# counter_sampler: `make bench-sampler`); their
# sections are kept like the others'.
selected_only="ctl_scale ctl_scale_loop locate_lab conform_10000 counter_sampler"
sel=${BENCH:-$order}
out=${OUT:-bench/RESULTS.md}
HISTORY_MAX=${HISTORY_MAX:-30}
rows=$(mktemp)
BENCH_SECTIONS=$(mktemp -d)
BENCH_GOALS=$(mktemp)
export BENCH_SECTIONS BENCH_GOALS
trap 'rm -rf "$rows" "$BENCH_SECTIONS" "$BENCH_GOALS"' EXIT

# The section NAME of the current results file, markers included ("" when there is none).
old_section() {
        [ -f "$out" ] && sed -n "/^<!-- section $1 -->\$/,/^<!-- end $1 -->\$/p" "$out"
}

for b in $sel; do
        s=bench/$b.sh
        [ -x "$s" ] || { echo "| $b | — | — | — | not run: bench/$b.sh missing |" >> "$rows"; continue; }
        echo "bench: $b" >&2
        if ! BENCH_SECTION=$BENCH_SECTIONS/$b.md timeout -k 10 "${BENCH_TIMEOUT:-900}" "$s" > "$rows.one" 2> "$rows.err" \
                < /dev/null; then       # no terminal: nothing asks before a change
                echo "| $b | — | — | — | failed: $(tail -n 1 "$rows.err" | tr '|' '/') |" >> "$rows"
                echo "$b (the benchmark failed)|not measured||||FAIL" >> "$BENCH_GOALS"
                tail -n 5 "$rows.err" >&2
                continue
        fi
        grep -e '^bench: GOAL NOT MET' -e "^$b: " "$rows.err" >&2
        cat "$rows.one" >> "$rows"
done
rm -f "$rows.one" "$rows.err"

# The table's rows: this run's. A run of some benchmarks (BENCH=...) keeps the previous
# file's others, in their order: a row of this run takes the place of the rows whose
# benchmark cell begins with the same word ("rollout_200", "pfc_storm," ...).
table_rows() {
        if [ -z "${BENCH:-}" ] || [ ! -f "$out" ]; then
                cat "$rows"
                return
        fi
        sed -n '/^| benchmark | nettune |/,/^$/p' "$out" | grep '^| ' | grep -v '^| benchmark | nettune |' |
                awk -F'|' -v mine="$rows" '
                function word(cell) { sub(/^ +/, "", cell); sub(/[ ,(].*$/, "", cell); return cell }
                BEGIN { while ((getline l < mine) > 0) { split(l, f, "|"); w = word(f[2]); new[w] = new[w] l "\n"; order[++n] = w } }
                { w = word($2)
                  if (!(w in new)) { print; next }
                  if (!(w in done)) { printf "%s", new[w]; done[w] = 1 } }
                END { for (i = 1; i <= n; i++) if (!(order[i] in done)) { printf "%s", new[order[i]]; done[order[i]] = 1 } }'
}

table() {
        echo "# nettune benchmark results"
        echo
        echo "Written by \`make bench\` on $(date -u '+%Y-%m-%d %H:%M UTC'): $(nproc) cores,"
        echo "$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), kernel $(uname -r),"
        echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end, commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown),"
        echo "build \`$BUILD\` ($(head -c 120 "$BUILD/.flags" 2>/dev/null | grep -q fsanitize && echo 'sanitizers ON: numbers are pessimistic' || echo 'optimised, no sanitizers'))."
        echo "Each row compares nettune with a real peer measured in the same run; timed pairs"
        echo "alternate (A B B A rounds) so that a machine that speeds up or slows down during the"
        echo "run moves both sides. Times: median [first-third quartile]; \"pairwise\": the median"
        echo "[quartiles] of the ratios of the pairs run back to back."
        [ -z "${BENCH:-}" ] || echo "This run: \`BENCH=\"$sel\"\`; the other rows are kept from earlier runs."
        echo
        echo "| benchmark | nettune | peer | ratio (nettune ÷ peer) | notes |"
        echo "|---|---|---|---|---|"
        table_rows
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

# Goals of this run: | goal | figure | limit | verdict |. A run of some benchmarks
# (BENCH=...) keeps the previous file's rows of the others: a row whose goal this run
# checked, or that names a benchmark run now ("ctl_scale: ..."), is replaced.
goals() {
        local mine
        mine=$(mktemp)
        awk -F'|' '{ unit = ($2 == "not measured") ? "" : $5
                     verdict = ($6 == "ok") ? "met" : "**NOT MET**"
                     printf "| %s | %s %s | %s %s %s | %s |\n", $1, $2, unit, $3, $4, $5, verdict }' "$BENCH_GOALS" > "$mine"
        echo "## Goals"
        echo
        if [ -n "${BENCH:-}" ]; then
                echo "Checked by the latest run of each benchmark (bench/stats.sh \`goal\`); \`make bench\` exits 1 when one is not met."
        else
                echo "Checked by this run (bench/stats.sh \`goal\`); \`make bench\` exits 1 when one is not met."
        fi
        echo
        echo "| goal | figure | limit | |"
        echo "|---|---|---|---|"
        cat "$mine"
        if [ -n "${BENCH:-}" ] && [ -f "$out" ]; then
                sed -n '/^## Goals$/,/^<!-- history -->$/p' "$out" | grep '^| ' | grep -v '^| goal | figure |' |
                        awk -F'|' -v sel="$sel" -v mine="$mine" '
                        BEGIN { while ((getline l < mine) > 0) { split(l, f, "|"); have[f[2]] = 1 }
                                n = split(sel, b, " ") }
                        { if ($2 in have) next
                          name = substr($2, 2)
                          for (i = 1; i <= n; i++)
                                  if (index(name, b[i] ":") == 1 || index(name, b[i] " (") == 1) next
                          print }'
        fi
        rm -f "$mine"
}

# One line of history: date, commit, and every goal's figure.
history_line() {
        printf '| %s | %s | %s |\n' "$(date -u '+%Y-%m-%d %H:%M')" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
                "$(awk -F'|' '{ sep = (NR > 1) ? "; " : ""; note = ($6 == "ok") ? "" : " (not met)"
                                printf "%s%s: %s%s", sep, $1, $2, note }' "$BENCH_GOALS")"
}

history() {
        echo "<!-- history -->"
        echo "## History"
        echo
        echo "One line per \`make bench\` run (the newest $HISTORY_MAX), the figures its goals checked."
        echo
        echo "| date (UTC) | commit | figures |"
        echo "|---|---|---|"
        { [ -f "$out" ] && sed -n '/^<!-- history -->$/,/^<!-- end history -->$/p' "$out" | grep '^| [0-9]' || true
          [ -s "$BENCH_GOALS" ] && history_line; } | tail -n "$HISTORY_MAX"
        echo "<!-- end history -->"
}

{
        # Only sections were run (BENCH=ecn_lab): the table stays as it was, with its date.
        if [ ! -s "$rows" ] && [ -f "$out" ]; then
                sed -n '/^<!-- section /q; /^<!-- history -->$/q; /^## Goals$/q; p' "$out" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
        else
                table
        fi
        if [ -s "$BENCH_GOALS" ] || { [ -n "${BENCH:-}" ] && grep -q '^## Goals$' "$out" 2>/dev/null; }; then
                echo
                goals
        fi
        echo
        history
        # chaos: written by `make check-chaos` (tests/chaos/run.sh); durability: the journal's
        # designs measured side by side once (docs/design.md); store_writes: the controller's
        # store writes before and after record/barrier, measured once; write-ahead: the agent's
        # journal writes per apply, the same; ctl_scale, ctl_scale_loop:
        # `make bench-scale`, `make bench-scale-loop`. All kept as they are when not run.
        for b in $order $selected_only chaos durability store_writes write-ahead; do
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
if grep -q '|FAIL$' "$BENCH_GOALS"; then
        echo >&2
        echo "bench: FAILED: these figures are worse than their goals (or were not measured):" >&2
        awk -F'|' '$6 == "FAIL" { printf "  - %s: %s %s (goal %s %s %s)\n", $1, $2, $5, $3, $4, $5 }' "$BENCH_GOALS" >&2
        exit 1
fi
exit 0
