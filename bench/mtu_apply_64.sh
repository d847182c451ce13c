#!/usr/bin/env bash
# MTU change on 64 veth interfaces: nettune-agent apply (validate + plan + snapshot +
# apply + read-back, no probe) vs one `ip -batch` of the same 64 changes vs 64
# separate `ip link set` processes. Median of REPS alternating 9000/1500 changes.
. "$(dirname "$0")/lib.sh"
REPS=${REPS:-7}
ns=$(b_netns mtu)
for i in $(seq 0 31); do
        ip -n "$ns" link add "bm$i" type veth peer name "bn$i"
done
mkdir -p "$W/state"
printf '{ "state_dir": "%s" }\n' "$W/state" > "$W/agent.json"
for m in 9000 1500; do
        cat > "$W/p$m.json" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "bench-mtu-$m" },
  "targets": { "interfaces": ["bm*", "bn*"] }, "spec": { "mtu": $m },
  "verify": { "probe": "none" } }
JSON
        : > "$W/batch$m"
        for i in $(seq 0 31); do
                echo "link set dev bm$i mtu $m" >> "$W/batch$m"
                echo "link set dev bn$i mtu $m" >> "$W/batch$m"
        done
done
agent=() batch=() procs=()
for r in $(seq 1 "$REPS"); do
        for m in 9000 1500; do
                t0=$(now_ms)
                ip netns exec "$ns" "$AGENT" --config "$W/agent.json" apply "$W/p$m.json" >/dev/null
                agent+=($(( $(now_ms) - t0 )))
        done
        for m in 9000 1500; do
                t0=$(now_ms); ip -n "$ns" -batch "$W/batch$m"; batch+=($(( $(now_ms) - t0 )))
        done
        for m in 9000 1500; do
                t0=$(now_ms)
                for i in $(seq 0 31); do
                        ip -n "$ns" link set dev "bm$i" mtu "$m"
                        ip -n "$ns" link set dev "bn$i" mtu "$m"
                done
                procs+=($(( $(now_ms) - t0 )))
        done
done
# Check the last apply really changed every interface.
n=$(ip -n "$ns" -o link show | grep -c 'mtu 1500')
[ "$n" -ge 64 ] || { echo "bench: expected 64 interfaces at mtu 1500, found $n" >&2; exit 1; }
a=$(median "${agent[@]}") b=$(median "${batch[@]}") p=$(median "${procs[@]}")
echo "| MTU apply, 64 veth (median of $((REPS * 2))) | ${a} ms | ip -batch: ${b} ms | $(ratio "$a" "$b") | full transaction incl. SQLite journal and read-back |"
echo "| MTU apply, 64 veth (median of $((REPS * 2))) | ${a} ms | 64 × ip link set: ${p} ms | $(ratio "$a" "$p") | |"
