#!/usr/bin/env bash
# TCP probe vs iperf3 across a veth pair between two namespaces: same duration, one
# stream each, alternating, median of REPS. Prints one markdown table row.
. "$(dirname "$0")/lib.sh"
REPS=${REPS:-5}
DUR_S=${DUR_S:-2}
command -v iperf3 >/dev/null || { echo "| tcp probe vs iperf3 | - | - | - | skipped: iperf3 not installed |"; exit 0; }
na=$(b_netns pa) nb=$(b_netns pb)
ip link add "ba$B_ID" netns "$na" type veth peer name "bb$B_ID" netns "$nb"
ip -n "$na" addr add 10.202.0.1/24 dev "ba$B_ID"; ip -n "$nb" addr add 10.202.0.2/24 dev "bb$B_ID"
ip -n "$na" link set "ba$B_ID" up; ip -n "$nb" link set "bb$B_ID" up
b_bg ip netns exec "$nb" "$AGENT" probe-server --listen 10.202.0.2:18515 --allow 10.202.0.0/24 >/dev/null 2>&1
b_bg ip netns exec "$nb" iperf3 -s -B 10.202.0.2 -p 5201 >/dev/null 2>&1
sleep 0.5
ours=() theirs=()
for r in $(seq 1 "$REPS"); do
        ours+=($(ip netns exec "$na" "$AGENT" probe --peer 10.202.0.2:18515 --mode tcp --runs 1 \
                 --duration-ms $((DUR_S * 1000)) --output json 2>/dev/null |
                 python3 -c 'import json,sys; print(json.load(sys.stdin)["gbps"])'))
        theirs+=($(ip netns exec "$na" iperf3 -c 10.202.0.2 -p 5201 -t "$DUR_S" -J |
                   python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e9)'))
done
o=$(median "${ours[@]}") t=$(median "${theirs[@]}")
printf '| tcp probe vs iperf3 (veth, 1 stream, %s s, median of %s) | %.2f Gb/s | %.2f Gb/s | %s | receiver-side rates |\n' \
        "$DUR_S" "$REPS" "$o" "$t" "$(ratio "$o" "$t")"
