#!/usr/bin/env bash
# `nettune-agent state --output json` over 1,000 interfaces vs `ip -j link show`.
. "$(dirname "$0")/lib.sh"
REPS=${REPS:-7}
ns=$(b_netns state)
{
        for i in $(seq 0 499); do echo "link add s$i type veth peer name t$i"; done
} > "$W/batch"
ip -n "$ns" -batch "$W/batch"
cnt=$(ip -n "$ns" -o link show | grep -c -v ': lo:')
[ "$cnt" -eq 1000 ] || { echo "bench: expected 1000 interfaces, found $cnt" >&2; exit 1; }
printf '{ "state_dir": "%s" }\n' "$W" > "$W/agent.json"
agent=() iprt=()
for r in $(seq 1 "$REPS"); do
        t0=$(now_ms)
        ip netns exec "$ns" "$AGENT" --config "$W/agent.json" state --output json > "$W/state.json"
        agent+=($(( $(now_ms) - t0 )))
        t0=$(now_ms)
        ip -n "$ns" -j link show > "$W/ip.json"
        iprt+=($(( $(now_ms) - t0 )))
done
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d.get("interfaces", d); print(len(i))' "$W/state.json")
[ "$got" -ge 1000 ] || { echo "bench: state listed $got interfaces, expected 1000" >&2; exit 1; }
a=$(median "${agent[@]}") b=$(median "${iprt[@]}")
echo "| state read, 1,000 veth (median of $REPS) | ${a} ms | ip -j link show: ${b} ms | $(ratio "$a" "$b") | includes DCB/ECN capability probes and counters per interface |"
