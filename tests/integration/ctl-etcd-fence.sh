#!/usr/bin/env bash
# Fencing: the leading replica is cut off from etcd mid-rollout (SIGSTOP: its
# keepalives stop). A follower takes over only once the lease expired, finishes
# the rollout, and the old leader, resumed, stops acting: it writes nothing after
# the takeover (every write is a txn conditioned on its leader key) and sends
# nothing that applies twice (each agent's history). Plain-HTTP etcd here; the
# failover test covers mTLS.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
. "$NETTUNE_TOP/tests/lib/etcd.sh"
fleet_require
etcd_require
. "$NETTUNE_TOP/tests/integration/ctl-etcd.inc"
N=8

step "fleet of $N agents (each apply takes 3 s), 3 etcd members, 2 replicas"
export NETTUNE_TEST_HOOK_AFTER_APPLY="sleep 3"
fleet_up $N
etcd_cluster_up 3 "$HUB"
m1=$(free_port) m2=$(free_port)
replica_up 1 --drift-interval 0 --metrics 127.0.0.1:$m1
wait_for $((LEASE_TTL * 10)) has_leader || fail "no replica took the lead"
replica_up 2 --drift-interval 0 --metrics 127.0.0.1:$m2
old=$(leader_pid)
echo "leader: pid $old"

metric() { ip netns exec "$HUB" curl -s --max-time 5 "http://127.0.0.1:$1/metrics" | awk -v k="$2" '$1 == k { print $2 }'; }
check "the leader's /metrics says it leads" [ "$(metric $m1 nettune_ctl_leader)" = 1 ]
check "the follower's /metrics says it does not" [ "$(metric $m2 nettune_ctl_leader)" = 0 ]

step "submit a rollout; SIGSTOP the leader in its second wave"
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
ectl --quiet apply "$T/mtu.json" --canary 1 --wave-size 2 --confirm-timeout 60 --timeout 20 --detach > "$T/submit.out"
id=$(sed -n 's/^rollout \([0-9]*\) submitted.*/\1/p' "$T/submit.out")
wait_for 120 waves_done "$id" 1 || fail "the rollout did not get through its canary"
kill -STOP "$old"
stopped_at=$(date +%s%N)
echo "stopped the leader (pid $old)"

step "the follower takes over once the lease expired, and finishes"
new_leader() { local p; p=$(leader_pid); [ -n "$p" ] && [ "$p" != "$old" ]; }
wait_for $((LEASE_TTL * 10)) new_leader || fail "no follower took over"
took_at=$(date +%s%N)
new=$(leader_pid)
gap_ms=$(( (took_at - stopped_at) / 1000000 ))
echo "pid $new leads, about $gap_ms ms after the stop (lease TTL ${LEASE_TTL} s)"
check "the takeover waited for the lease to expire" [ "$gap_ms" -ge $(( (LEASE_TTL - 1) * 1000 )) ]
etcdctl_ get "$ETCD_PREFIX/leader" -w json > "$T/leader.json"
fence=$(json_get "$T/leader.json" 'int(d["kvs"][0]["create_revision"])')
wait_for 180 rollout_over "$id" || fail "the rollout did not finish after the takeover"
check "rollout completed" [ "$(rollout_field "$id" 'd["state"]')" = completed ]
check "all $N committed" [ "$(rollout_field "$id" 'd["summary"]["committed"]')" = $N ]

step "resume the old leader: it stops acting"
kill -CONT "$old"
wait_for $((LEASE_TTL * 10)) grep -q "stepping down" "$T/replica-1.log" ||
        fail "the old leader did not step down: $(tail -3 "$T/replica-1.log")"
cat "$T/replica-1.log"
wait_for 20 sh -c "[ \"\$(ip netns exec $HUB curl -s --max-time 5 http://127.0.0.1:$m1/metrics | awk '\$1 == \"nettune_ctl_leader\" { print \$2 }')\" = 0 ]" ||
        fail "the old leader's /metrics still says it leads"
check "the new leader's /metrics says it leads" [ "$(metric $m2 nettune_ctl_leader)" = 1 ]
etcd_get_json "$ETCD_PREFIX/" "$T/records.json" || fail "cannot read the records"
python3 - "$T/records.json" "$old" "$fence" <<'PY' || fail "the old leader wrote after the takeover"
import json, sys
recs, old, fence = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
late = [k for k, r in recs.items()
        if isinstance(r["value"], dict) and str(r["value"].get("by", "")).endswith(":" + old) and r["mod"] > fence]
mine = [k for k, r in recs.items() if isinstance(r["value"], dict) and str(r["value"].get("by", "")).endswith(":" + old)]
print("records last written by the old leader:", len(mine), "after the takeover:", late)
sys.exit(1 if late else 0)
PY
echo "ok: no record written by the old leader after revision $fence"
for ((i = 1; i <= N; i++)); do
        mtu_is $i 9000 || fail "node $i has mtu $(node_mtu $i), expected 9000"
        applied_once $i mtu-9000 || fail "node $i applied mtu-9000 more than once"
done
echo "ok: every node has mtu 9000 and applied it exactly once"
