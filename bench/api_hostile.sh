#!/usr/bin/env bash
# Benchmark: the agent API under hostile clients. A fleet of 4 agents; the peer is
# the same fleet with no hostile client. Pairs run alternately (quiet, hostile,
# quiet, hostile, ...): a controller rollout with confirms (canary 1, waves of 50%,
# probe none) and 20 health requests from the controller's address, once with 200
# slow unauthenticated connections held against the canary from four addresses of
# their own (tests/tools/slowconn: TLS ClientHello trickled a byte a second, or
# nothing), once without. Prints one table row, and the figures as a section.
. "$(cd "$(dirname "$0")/.." && pwd)/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
SLOW=$BUILD/tools/slowconn
[ -x "$SLOW" ] || skip "'$SLOW' is not built"
N=4 PAIRS=${PAIRS:-3} HEALTH=20
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

fleet_up "$N" 2>>"$T/agents.log" >&2
netns_add evil >/dev/null
EVIL="nt-evil-$NT_ID"
ip link add nt0 netns "$EVIL" type veth peer name "he$NT_ID" netns "$HUB"
ip -n "$HUB" link set "he$NT_ID" master ntbr up
for a in 1 2 3 4; do ip -n "$EVIL" addr add "10.88.254.$a/16" dev nt0; done
ip -n "$EVIL" link set nt0 up
policy "$T/p9000.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
policy "$T/p4000.json" mtu-4000 4000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'

hostile_on() {  # 200 connections against node001 until hostile_off
        local a mode
        SLOW_PIDS=()
        for a in 1 2 3 4; do
                mode=""; [ "$a" -le 2 ] || mode=--idle
                bg ip netns exec "$EVIL" "$SLOW" --connect "$(node_ip 1):$FLEET_PORT" --bind "10.88.254.$a" \
                        --conns 50 --duration-s 600 --interval-ms 1000 --reconnect-ms 500 $mode >> "$T/slow.out"
                SLOW_PIDS+=("$BG_PID")
        done
        sleep 3
}
hostile_off() { local pid; kill -TERM "${SLOW_PIDS[@]}"; for pid in "${SLOW_PIDS[@]}"; do wait "$pid" || true; done; }

# health: HEALTH requests to node001; sets H_MS (median ms of the answered) and H_OK (answered).
health() {
        local i t0 ms=()
        H_OK=0
        for ((i = 0; i < HEALTH; i++)); do
                t0=$(date +%s%N)
                if ip netns exec "$HUB" curl -s -o /dev/null --max-time 10 --cacert "$T/pki/ca.crt" \
                        --cert "$T/pki/controller.crt" --key "$T/pki/controller.key" \
                        "https://$(node_ip 1):$FLEET_PORT/v1/health"; then
                        H_OK=$((H_OK + 1))
                        ms+=($(( ($(date +%s%N) - t0) / 1000000 )))
                fi
        done
        H_MS=$(median "${ms[@]:-0}")
}

# rollout POLICY: sets R_MS; fails unless every node committed.
rollout() {
        local t0=$(date +%s%N)
        ip netns exec "$HUB" "$CTL" --inventory "$T/inventory.json" --db "$T/ctl.db" --quiet --output json \
                apply "$1" --canary 1 --wave-size 50% --confirm-timeout 30 --timeout 30 > "$T/r.json" ||
                fail "rollout exited $?"
        R_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
        [ "$(json_get "$T/r.json" 'd["summary"]["committed"]')" = "$N" ] || fail "not all $N committed"
}

q_roll=() h_roll=() q_health=() h_health=() h_ok=0 q_ok=0 pol=9000 pair=0
for ((pair = 0; pair < PAIRS; pair++)); do
        health; q_health+=("$H_MS"); q_ok=$((q_ok + H_OK))
        rollout "$T/p$pol.json"; q_roll+=("$R_MS"); pol=$([ $pol = 9000 ] && echo 4000 || echo 9000)
        hostile_on
        health; h_health+=("$H_MS"); h_ok=$((h_ok + H_OK))
        rollout "$T/p$pol.json"; h_roll+=("$R_MS"); pol=$([ $pol = 9000 ] && echo 4000 || echo 9000)
        hostile_off
done
qr=$(median "${q_roll[@]}") hr=$(median "${h_roll[@]}") qh=$(median "${q_health[@]}") hh=$(median "${h_health[@]}")
opened=$(python3 -c 'import json,sys; print(sum(json.loads(l)["opened"] for l in open(sys.argv[1]) if l.startswith("{")))' "$T/slow.out")
longest=$(python3 -c 'import json,sys; print(max(json.loads(l)["longest_ms"] for l in open(sys.argv[1]) if l.startswith("{")))' "$T/slow.out")
total=$((PAIRS * HEALTH))

echo "| api_hostile: rollout with confirms, $N agents, 200 slow connections on the canary (median of $PAIRS pairs) | $(awk -v m="$hr" 'BEGIN {printf "%.2f s", m / 1000}') | $(awk -v m="$qr" 'BEGIN {printf "%.2f s", m / 1000}') without them | $(ratio "$hr" "$qr") | health $h_ok/$total answered, median $hh ms (without: $q_ok/$total, $qh ms); all rollouts committed |"
if [ -n "${BENCH_SECTION:-}" ]; then
        cat > "$BENCH_SECTION" <<MD
## API under hostile connections

\`bench/api_hostile.sh\`: $N agents (one netns each, mTLS), 200 slow unauthenticated
connections from four addresses of their own held against the canary (half trickle a
TLS ClientHello one byte a second, half send nothing; each reconnects 0.5 s after
the agent shuts it). Pairs alternate: quiet, then hostile; $PAIRS pairs.

| figure | quiet | hostile |
|---|---|---|
| rollout with confirms (canary 1, waves of 50%), median | $(awk -v m="$qr" 'BEGIN {printf "%.2f s", m / 1000}') | $(awk -v m="$hr" 'BEGIN {printf "%.2f s", m / 1000}') |
| rollouts committed | $PAIRS of $PAIRS | $PAIRS of $PAIRS |
| health requests answered (controller's address) | $q_ok of $total | $h_ok of $total |
| health latency, median | $qh ms | $hh ms |
| hostile connections opened / longest life of one the agent shut | — | $opened / $longest ms |

MD
fi
