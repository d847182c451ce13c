#!/usr/bin/env bash
# Rollouts through controller and etcd faults, for CHAOS_SECONDS: three `nettunectl
# serve` replicas on a 3-member etcd cluster drive rollouts to real agents, and
# during each one a fault is injected in turn — the leading replica killed (-9, then
# started again), the leading replica stopped (SIGSTOP) past its lease then resumed,
# an etcd member killed and started again. Every rollout must complete with every
# node on its policy, each node having applied it exactly once (its own history),
# and a stopped leader must write nothing after another took over. Prints the
# figures (bench/RESULTS.md, "Chaos").
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
. "$NETTUNE_TOP/tests/lib/etcd.sh"
fleet_require
etcd_require
. "$NETTUNE_TOP/tests/integration/ctl-etcd.inc"
SECONDS_MAX=${CHAOS_SECONDS:-300}
SEED=${CHAOS_SEED:-$$}
RANDOM=$SEED
N=${CHAOS_NODES:-8}
echo "seed $SEED, $SECONDS_MAX s, $N nodes"

# Each apply holds its wave for a second on the agent, so faults land mid-wave.
export NETTUNE_TEST_HOOK_AFTER_APPLY="sleep 1"
fleet_up $N
unset NETTUNE_TEST_HOOK_AFTER_APPLY
etcd_cluster_up 3 "$HUB"
for i in 1 2 3; do replica_up $i --drift-interval 0; done
wait_for $((LEASE_TTL * 10)) has_leader || fail "no replica took the lead"

# The replica whose pid leads now (its index), or "" .
leader_index() {
        local p i; p=$(leader_pid)
        for i in 1 2 3; do
                if [ "$(eval echo \$REPLICA_PID_$i)" = "$p" ]; then echo "$i"; fi
        done
}
# The etcd member I again, on its data directory (etcd_cluster_up's flags).
etcd_restart() {
        local i=$1 cp pp cluster="" k sep=""
        cp=$(eval echo \$ETCD_CLIENT_PORT_$i); pp=$(eval echo \$ETCD_PEER_PORT_$i)
        for k in 1 2 3; do cluster+="${sep}e$k=http://127.0.0.1:$(eval echo \$ETCD_PEER_PORT_$k)"; sep=,; done
        bg ip netns exec "$HUB" etcd --name "e$i" --data-dir "$T/etcd$i/data" \
                --listen-client-urls "http://127.0.0.1:$cp" --advertise-client-urls "http://127.0.0.1:$cp" \
                --listen-peer-urls "http://127.0.0.1:$pp" --initial-advertise-peer-urls "http://127.0.0.1:$pp" \
                --initial-cluster "$cluster" --initial-cluster-state existing --initial-cluster-token "nt-$NT_ID" \
                --heartbeat-interval 100 --election-timeout 1000 >>"$T/etcd$i/log" 2>&1
        eval "ETCD_PID_$i=$BG_PID"
}
# No record last written by pid OLD has a revision after FENCE (the takeover's).
wrote_after() {
        etcd_get_json "$ETCD_PREFIX/" "$T/records.json" || return 1
        python3 - "$T/records.json" "$1" "$2" <<'PY'
import json, sys
recs, old, fence = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
late = [k for k, r in recs.items()
        if isinstance(r["value"], dict) and str(r["value"].get("by", "")).endswith(":" + old) and r["mod"] > fence]
sys.exit(0 if late else 1)
PY
}

fault() {                       # fault KIND: inject it into the running rollout
        local li old
        li=$(leader_index)
        case $1 in
        kill)
                [ -n "$li" ] || return 0
                kill -9 "$(eval echo \$REPLICA_PID_$li)" 2>/dev/null || true
                replica_up "$li" --drift-interval 0
                kills=$((kills + 1)) ;;
        stop)
                [ -n "$li" ] || return 0
                old=$(eval echo \$REPLICA_PID_$li)
                kill -STOP "$old"
                # A follower takes over once the stopped one's lease expired; the record of the new leader is the fence.
                sleep $((LEASE_TTL * 2 + 1))
                etcdctl_ get "$ETCD_PREFIX/leader" -w json > "$T/leader.json" 2>/dev/null || true
                fence=$(json_get "$T/leader.json" 'int(d["kvs"][0]["create_revision"]) if d.get("kvs") else 0' 2>/dev/null || echo 0)
                kill -CONT "$old"
                stops=$((stops + 1))
                stopped_pid=$old stopped_fence=$fence ;;
        etcd)
                local m=$((RANDOM % 3 + 1))
                etcd_kill "$m"
                sleep 2
                etcd_restart "$m"
                etcd_restarts=$((etcd_restarts + 1)) ;;
        esac
}

rounds=0 completed=0 nodes_ok=0 nodes_all=0 kills=0 stops=0 etcd_restarts=0 deposed_wrote=0
faults=(kill stop etcd)
start=$(date +%s)
while [ $(( $(date +%s) - start )) -lt "$SECONDS_MAX" ]; do
        rounds=$((rounds + 1))
        mtu=$(( rounds % 2 ? 9000 : 4000 ))
        name=chaos-$rounds-$mtu
        policy "$T/p.json" "$name" "$mtu" '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
        wait_for $((LEASE_TTL * 20)) has_leader || fail "round $rounds: nobody leads"
        ectl --quiet apply "$T/p.json" --canary 1 --wave-size 2 --confirm-timeout 60 --timeout 20 --detach \
                > "$T/submit.out" 2>&1 || { cat "$T/submit.out"; fail "round $rounds: submit failed"; }
        id=$(sed -n 's/^rollout \([0-9]*\) submitted.*/\1/p' "$T/submit.out")
        [ -n "$id" ] || fail "round $rounds: no rollout id in: $(cat "$T/submit.out")"
        stopped_pid=""
        sleep "$(printf '%d.%d' $((RANDOM % 3)) $((RANDOM % 10)))"
        fault "${faults[$(( (rounds - 1) % 3 ))]}"
        wait_for 240 rollout_over "$id" || fail "round $rounds: rollout $id did not finish"
        [ "$(rollout_field "$id" 'd["state"]')" = completed ] && completed=$((completed + 1))
        for ((i = 1; i <= N; i++)); do
                nodes_all=$((nodes_all + 1))
                if mtu_is "$i" "$mtu" && applied_once "$i" "$name" >/dev/null; then nodes_ok=$((nodes_ok + 1)); fi
        done
        if [ -n "$stopped_pid" ] && [ "$stopped_fence" != 0 ] && wrote_after "$stopped_pid" "$stopped_fence"; then
                deposed_wrote=$((deposed_wrote + 1))
        fi
        echo "round $rounds ($name, fault ${faults[$(( (rounds - 1) % 3 ))]}): $(rollout_field "$id" 'd["state"]'), $nodes_ok of $nodes_all nodes so far"
done
elapsed=$(( $(date +%s) - start ))
echo "FIGURE rollouts completed: $completed of $rounds in $elapsed s (seed $SEED), through $kills leader kills, $stops leader stops past the lease, $etcd_restarts etcd member restarts"
echo "FIGURE nodes on the policy and having applied it exactly once: $nodes_ok of $nodes_all; writes by a stopped leader after the takeover: $deposed_wrote"
[ "$completed" = "$rounds" ] || fail "$((rounds - completed)) rollout(s) did not complete"
[ "$nodes_ok" = "$nodes_all" ] || fail "$((nodes_all - nodes_ok)) node step(s) missed their policy or applied it twice"
[ "$deposed_wrote" = 0 ] || fail "a stopped leader wrote after the takeover ($deposed_wrote rounds)"
