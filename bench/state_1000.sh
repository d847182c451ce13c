#!/usr/bin/env bash
# `nettune-agent state --output json` over 1,000 interfaces vs `ip -j link show` of
# the same namespace, each writing its JSON to a file. Paired and alternating (A B B A
# rounds) inside the namespace; medians, quartiles and the median per-pair ratio.
# Goal: state <= 1.5 x ip -j link show.
. "$(dirname "$0")/lib.sh"
REPS=${REPS:-10}                # rounds: 2 pairs each
ns=$(b_netns state)
{
        for i in $(seq 0 499); do echo "link add s$i type veth peer name t$i"; done
} > "$W/batch"
ip -n "$ns" -batch "$W/batch"
cnt=$(ip -n "$ns" -o link show | grep -c -v ': lo:')
[ "$cnt" -eq 1000 ] || { echo "bench: expected 1000 interfaces, found $cnt" >&2; exit 1; }
printf '{ "state_dir": "%s" }\n' "$W" > "$W/agent.json"
cat > "$W/loop.sh" <<EOF
. "$NETTUNE_TOP/bench/lib.sh"
A() { "$AGENT" --config "$W/agent.json" state --output json > "$W/state.json"; }
B() { ip -j link show > "$W/ip.json"; }
t() { local s=\$(now_us); "\$1"; echo "\$1 \$((\$(now_us) - s))"; }
A; B                            # warm up
for r in \$(seq $REPS); do t A; t B; t B; t A; done
EOF
ip netns exec "$ns" bash "$W/loop.sh" > "$W/times" || { echo "bench: the timed loop failed" >&2; exit 1; }
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interfaces", d); print(len(i))' "$W/state.json")
[ "$got" -ge 1000 ] || { echo "bench: state listed $got interfaces, expected 1000" >&2; exit 1; }
a=$(awk '$1 == "A" {print $2}' "$W/times") b=$(awk '$1 == "B" {print $2}' "$W/times")
read -r am a25 a75 _ _ <<<"$(stats $a)"
read -r bm b25 b75 _ _ <<<"$(stats $b)"
read -r rm r25 r75 _ _ <<<"$(stats $(pair_ratios "$a" "$b"))"
pr=$(ratio "$am" "$bm")
printf '| state read, 1,000 veth (%d pairs, ABBA, in the namespace) | %s ms [%s-%s] | ip -j link show: %s ms [%s-%s] | %s | pairwise %.2f [%.2f-%.2f]; DCB/ECN capability probes and counters of every interface included |\n' \
        $((REPS * 2)) "$(ms "$am")" "$(ms "$a25")" "$(ms "$a75")" "$(ms "$bm")" "$(ms "$b25")" "$(ms "$b75")" "$pr" \
        "$rm" "$r25" "$r75"
goal "state of 1,000 interfaces / ip -j link show" "$pr" "<=" 1.5 "x"
