#!/usr/bin/env bash
# Controller replicas on etcd: a 3-member etcd cluster (mTLS, free ports, own data
# dirs) and three `nettunectl serve` replicas against 12 real agents. kill -9 the
# leading replica mid-rollout: another replica takes over and finishes the rollout
# from its records; the history is complete and consistent and no agent applied
# the policy twice (each agent's own history). Then kill -9 one etcd member: the
# next rollout still completes.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
. "$NETTUNE_TOP/tests/lib/etcd.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
fleet_require
etcd_require
. "$NETTUNE_TOP/tests/integration/ctl-etcd.inc"
N=12

step "fleet of $N agents, 3 etcd members (mTLS), 3 controller replicas"
# Every apply takes 3 s on the agent (after the change, before verification), so a
# wave is in flight long enough to kill its controller in the middle of it.
export NETTUNE_TEST_HOOK_AFTER_APPLY="sleep 3"
fleet_up $N
make_certs "$T/etcd-pki" || fail "cannot make etcd certificates"
etcd_cluster_up 3 "$HUB" "$T/etcd-pki"
for i in 1 2 3; do replica_up $i --drift-interval 0; done
wait_for $((LEASE_TTL * 10)) has_leader || fail "no replica took the lead"
echo "leader: pid $(leader_pid)"

step "submit a rollout; kill -9 the leader after its second wave"
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
ectl --quiet apply "$T/mtu.json" --canary 1 --wave-size 2 --confirm-timeout 60 --timeout 20 --detach > "$T/submit.out"
id=$(sed -n 's/^rollout \([0-9]*\) submitted.*/\1/p' "$T/submit.out")
[ -n "$id" ] || fail "no rollout id in: $(cat "$T/submit.out")"
wait_for 120 waves_done "$id" 2 || fail "the rollout did not get through two waves"
old=$(leader_pid)
kill -9 "$old"
echo "killed the leader (pid $old) after $(rollout_field "$id" 'sum(1 for w in d["waves"] if w["state"] == "done")') of 7 waves"
check "the rollout was still running" [ "$(rollout_field "$id" 'd["state"]')" = running ]

step "another replica takes over and finishes it"
wait_for 180 rollout_over "$id" || fail "the rollout did not finish after the takeover"
new=$(leader_pid)
check "a different replica leads" [ -n "$new" ] && [ "$new" != "$old" ]
check "rollout completed" [ "$(rollout_field "$id" 'd["state"]')" = completed ]
check "all $N committed" [ "$(rollout_field "$id" 'd["summary"]["committed"]')" = $N ]
check "every wave done" [ "$(rollout_field "$id" 'all(w["state"] == "done" for w in d["waves"])')" = True ]
check "every node has its tx and idempotency key" \
        [ "$(rollout_field "$id" 'all(n["tx"] and n["idempotency_key"] for n in d["nodes"])')" = True ]
for ((i = 1; i <= N; i++)); do
        mtu_is $i 9000 || fail "node $i has mtu $(node_mtu $i), expected 9000"
        applied_once $i mtu-9000 || fail "node $i applied mtu-9000 more than once"
done
echo "ok: every node has mtu 9000 and applied it exactly once"
# The key each agent journaled is the one the record holds.
for ((i = 1; i <= N; i++)); do
        k=$(rollout_field "$id" "[n for n in d['nodes'] if n['name'] == 'node$(printf %03d $i)'][0]['idempotency_key']")
        grep -q "\"idempotency_key\": *\"$k\"" "$T/hist-$i.json" || fail "node $i: key $k is not in its history"
done
echo "ok: every agent journaled the key its record holds"

step "kill -9 one etcd member: the next rollout still completes"
etcd_kill 1
policy "$T/mtu2.json" mtu-4000 4000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
expect_rc 0 "a rollout with one etcd member down" ectl --quiet --output json apply "$T/mtu2.json" \
        --canary 1 --wave-size 50% --confirm-timeout 60 --timeout 20
for ((i = 1; i <= N; i++)); do
        mtu_is $i 4000 || fail "node $i has mtu $(node_mtu $i), expected 4000"
        applied_once $i mtu-4000 || fail "node $i applied mtu-4000 more than once"
done
echo "ok: every node has mtu 4000"
check "history lists both rollouts" [ "$(ectl history | grep -c completed)" -ge 2 ]
