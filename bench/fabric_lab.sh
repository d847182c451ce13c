#!/usr/bin/env bash
# Benchmark: the fabric probe against the same pairs run alone. A lab of 6 agents on a
# bridge (one netns each, mTLS, TCP probes over veth). Rounds alternate, 3 by default:
# every ordered pair the pattern uses is measured alone (`nettune-agent probe` from its
# sender, one pair at a time: what a per-node gate sees), then the pattern all at once
# (`nettunectl probe`). Ring, incast and all-to-all; then the ring again with the
# switch port toward node003 shaped to 50 Mbit/s (tbf), against the slowest of its
# pairs alone. Medians over the rounds. Writes its figures as a section of
# bench/RESULTS.md only (no table row), so that running it alone keeps the table.
# On this lab the "fabric" is the hosts' CPUs: veth throughput is CPU-bound, so flows
# at once share the cores, as flows at once share a switch's buffers and uplinks.
. "$(cd "$(dirname "$0")/.." && pwd)/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd tc python3
N=6 ROUNDS=${ROUNDS:-3} DUR=2000
FLEET_PROBE_EXTRA='"allow": ["10.88.0.0/16"], "max_clients": 8'
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
gb() { awk -v v="$1" 'BEGIN { printf "%.2f Gb/s", v }'; }

fleet_up "$N" 2>>"$T/agents.log" >&2

# pair I J: node I alone to node J's responder, Gb/s.
pair() {
        ip netns exec "$(node_ns "$1")" "$AGENT" --output json probe --peer "$(node_ip "$2"):18515" --mode tcp \
                --duration-ms "$DUR" --runs 1 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["gbps"])' ||
                fail "pair $1 -> $2 failed"
}
# pairs PATTERN: "I J" per line, the pairs of the pattern over nodes 1..N (incast into node 1).
pairs() {
        local i j
        for ((i = 1; i <= N; i++)); do
                case $1 in
                ring) echo "$i $(( i % N + 1 ))" ;;
                incast) [ "$i" -gt 1 ] && echo "$i 1" ;;
                alltoall) for ((j = 1; j <= N; j++)); do [ "$i" != "$j" ] && echo "$i $j"; done ;;
                esac
        done
}
# alone PATTERN: sum and minimum of its pairs run one at a time -> ALONE_SUM ALONE_MIN
alone() {
        local sum=0 min="" g i j
        while read -r i j; do
                g=$(pair "$i" "$j")
                sum=$(awk -v a="$sum" -v b="$g" 'BEGIN { print a + b }')
                min=$(awk -v a="${min:-$g}" -v b="$g" 'BEGIN { print (b < a) ? b : a }')
        done < <(pairs "$1")
        ALONE_SUM=$sum ALONE_MIN=$min
}
# together PATTERN: the pattern at once -> FIG (its collective figure) SUM (its flows' sum)
together() {
        ctl --quiet --output json probe --pattern "$1" --mode tcp --duration-ms "$DUR" > "$T/$1.json" ||
                fail "$1: nettunectl probe exited $?"
        FIG=$(json_get "$T/$1.json" 'd["figures"]["value"]')
        SUM=$(json_get "$T/$1.json" 'd["figures"]["sum_gbps"]')
        EXTRA=$(json_get "$T/$1.json" 'd["figures"].get("rx_median_gbps") or d["figures"].get("link_ratio") or d["figures"].get("algbw_gbps")')
}

declare -A a_sum a_min t_fig t_sum t_extra
for p in ring incast alltoall ring_tbf; do a_sum[$p]="" a_min[$p]="" t_fig[$p]="" t_sum[$p]="" t_extra[$p]=""; done
for ((r = 0; r < ROUNDS; r++)); do
        for p in ring incast alltoall ring_tbf; do
                pat=${p%_tbf}
                [ "$p" = ring_tbf ] && tc -n "$HUB" qdisc add dev "h$NT_ID-3" root tbf rate 50mbit burst 32k latency 10ms
                echo "bench: fabric_lab round $((r + 1))/$ROUNDS: $p" >&2
                alone "$pat"
                together "$pat"
                [ "$p" = ring_tbf ] && tc -n "$HUB" qdisc del dev "h$NT_ID-3" root
                a_sum[$p]+=" $ALONE_SUM" a_min[$p]+=" $ALONE_MIN" t_fig[$p]+=" $FIG" t_sum[$p]+=" $SUM" t_extra[$p]+=" $EXTRA"
        done
done
m() { median ${1}; }
busbw=$(m "${t_fig[ring]}") ring_alone=$(m "${a_sum[ring]}")
pct() { awk -v v="$1" 'BEGIN { printf "%.2f", v }'; }
echo "bench: fabric_lab: ring busbw $(gb "$busbw"), its pairs alone $(gb "$ring_alone") in sum" >&2

if [ -n "${BENCH_SECTION:-}" ]; then
        cat > "$BENCH_SECTION" <<MD
## Fabric probe: patterns against their pairs run alone

Written by \`bench/fabric_lab.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC') (load $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores):
$N agents on a Linux bridge (one netns each, mTLS), TCP probes over veth, $((DUR / 1000)) s
flows. $ROUNDS rounds, alternating: each ordered pair of a pattern measured alone, one
after the other (\`nettune-agent probe\` from its sender: what a per-node gate sees),
then the whole pattern at once
(\`nettunectl probe\`: every flow started at one agreed time). Medians over the
rounds. Collective figures as nccl-tests defines them (ring: busbw = the slowest hop;
incast: goodput at node001; all-to-all: the minimum per-node receive rate).

| pattern | collective figure, at once | its flows at once, sum | its pairs alone, sum | slowest pair alone | at once ÷ alone (sums) |
|---|---|---|---|---|---|
| ring ($N hops) | busbw $(gb "$(m "${t_fig[ring]}")") (algbw $(gb "$(m "${t_extra[ring]}")")) | $(gb "$(m "${t_sum[ring]}")") | $(gb "$(m "${a_sum[ring]}")") | $(gb "$(m "${a_min[ring]}")") | $(ratio "$(m "${t_sum[ring]}")" "$(m "${a_sum[ring]}")") |
| incast ($((N - 1)) → 1) | goodput $(gb "$(m "${t_fig[incast]}")") ($(pct "$(m "${t_extra[incast]}")") of the 10 Gb/s veth) | $(gb "$(m "${t_sum[incast]}")") | $(gb "$(m "${a_sum[incast]}")") | $(gb "$(m "${a_min[incast]}")") | $(ratio "$(m "${t_sum[incast]}")" "$(m "${a_sum[incast]}")") |
| all-to-all ($((N * (N - 1))) flows) | min receive $(gb "$(m "${t_fig[alltoall]}")") (median $(gb "$(m "${t_extra[alltoall]}")")) | $(gb "$(m "${t_sum[alltoall]}")") | $(gb "$(m "${a_sum[alltoall]}")") | $(gb "$(m "${a_min[alltoall]}")") | $(ratio "$(m "${t_sum[alltoall]}")" "$(m "${a_sum[alltoall]}")") |
| ring, port toward node003 at 50 Mbit/s | busbw $(gb "$(m "${t_fig[ring_tbf]}")") | $(gb "$(m "${t_sum[ring_tbf]}")") | $(gb "$(m "${a_sum[ring_tbf]}")") | $(gb "$(m "${a_min[ring_tbf]}")") | $(ratio "$(m "${t_sum[ring_tbf]}")" "$(m "${a_sum[ring_tbf]}")") |

Ring busbw ÷ the sum of its $N pairs run alone: $(ratio "$busbw" "$ring_alone"); ÷ the slowest of
them alone: $(ratio "$busbw" "$(m "${a_min[ring]}")").

Read: link bandwidth is not collective throughput. Each pair alone gets the whole
machine; at once the flows share it, and the collective figure is set by the slowest
hop or the busiest receiver, not by the sum. With the port toward node003 shaped, the
ring's busbw falls to that port's rate; run alone, only the one pair that crosses it
(node002 → node003) shows the limit, and a per-node gate, which probes toward a
reference responder, never runs that pair at all.
MD
fi
