#!/usr/bin/env bash
# Rollback latency of 64 interfaces: an MTU change on 64 veth whose regression gate
# always fails (a tcp probe to a real probe-server, min_gbps far above veth), so the
# transaction restores all 64. The figure is what the journal records per transaction
# (rollback_ms: from the gate's decision to the last interface restored and read back).
# The peer is the same work done by hand in the same namespace: one `ip -batch` that
# puts the 64 MTUs back plus one `ip -o link show` that reads them, timed alike.
# Pairs alternate; medians. Goal: <= 50 ms.
. "$(dirname "$0")/lib.sh"
REPS=${REPS:-7}
ns=$(b_netns rb)
nsp=$(b_netns rbp)
for i in $(seq 0 31); do
        ip -n "$ns" link add "bm$i" type veth peer name "bn$i"
done
ip link add "rbp$B_ID" type veth peer name "rbq$B_ID"
ip link set "rbp$B_ID" netns "$ns"
ip link set "rbq$B_ID" netns "$nsp"
ip -n "$ns" addr add 10.213.0.1/24 dev "rbp$B_ID"
ip -n "$nsp" addr add 10.213.0.2/24 dev "rbq$B_ID"
ip -n "$ns" link set "rbp$B_ID" up
ip -n "$nsp" link set "rbq$B_ID" up
b_bg ip netns exec "$nsp" "$AGENT" probe-server --listen 10.213.0.2:18517 --allow 10.213.0.0/24 2>/dev/null
for _ in $(seq 50); do
        ip netns exec "$nsp" ss -ltnH 'sport = :18517' | grep -q LISTEN && break
        sleep 0.1
done
mkdir -p "$W/state"
printf '{ "state_dir": "%s" }\n' "$W/state" > "$W/agent.json"
cat > "$W/gated.json" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "bench-rollback" },
  "targets": { "interfaces": ["bm*", "bn*"] }, "spec": { "mtu": 9000 },
  "verify": { "probe": "tcp", "peer": "10.213.0.2:18517", "device": "rbp$B_ID", "duration_ms": 100,
              "runs": 1, "settle_ms": 0, "min_gbps": 100000 } }
JSON
: > "$W/restore"
for i in $(seq 0 31); do
        echo "link set dev bm$i mtu 1500" >> "$W/restore"
        echo "link set dev bn$i mtu 1500" >> "$W/restore"
done
: > "$W/change"
sed 's/mtu 1500/mtu 9000/' "$W/restore" > "$W/change"
agent=() peer=()
for r in $(seq 1 "$REPS"); do
        rc=0
        ip netns exec "$ns" "$AGENT" --yes --config "$W/agent.json" --output json apply "$W/gated.json" > "$W/r.json" \
                2>>"$W/agent.log" || rc=$?
        [ "$rc" -eq 1 ] || { echo "bench: the gated apply exited $rc, expected 1 (rolled back)" >&2; exit 1; }
        agent+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rollback_ms"])' "$W/r.json")")
        ip -n "$ns" -batch "$W/change"
        t0=$(now_us); ip -n "$ns" -batch "$W/restore"; ip -n "$ns" -o link show > /dev/null
        peer+=("$(ms $(( $(now_us) - t0 )))")
done
n=$(ip -n "$ns" -o link show | grep -c 'mtu 1500')
[ "$n" -ge 64 ] || { echo "bench: expected 64 interfaces back at mtu 1500, found $n" >&2; exit 1; }
a=$(median "${agent[@]}") p=$(median "${peer[@]}")
worst=$(printf '%s\n' "${agent[@]}" | sort -g | tail -1)
printf '| rollback after a failed gate, 64 veth (median of %d) | %.1f ms | ip -batch + ip link show: %s ms | %s | slowest %.1f ms; rollback_ms as the journal records it: from the decision of the gate to the last interface restored and read back |\n' \
        "$REPS" "$a" "$p" "$(ratio "$a" "$p")" "$worst"
goal "rollback of 64 interfaces after a failed gate" "$a" "<=" 50 "ms"
