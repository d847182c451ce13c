#!/usr/bin/env bash
# Upgrade and continuous reconcile: a history made with SQLite is carried into
# etcd by `nettunectl store migrate` (ids, node results, keys kept); a replica
# serving that store with --enforce scans for drift on its own and, when a node's
# MTU is changed by hand, re-applies the policy that node last committed (a
# rollout of kind "enforce"), then the node is back in sync. /metrics counts it.
# A rollout the replica halted is rolled back by rollout from the etcd records
# (each node's revision before it, the transactions that undid it), and again as a
# no-op.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
. "$NETTUNE_TOP/tests/lib/etcd.sh"
fleet_require
etcd_require
require_cmd tc
. "$NETTUNE_TOP/tests/integration/ctl-etcd.inc"
N=4

step "fleet of $N agents; a rollout recorded in SQLite"
fleet_up $N
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
expect_rc 0 "apply with the SQLite store" ctl --quiet apply "$T/mtu.json" --canary 1 --wave-size 50%
etcd_cluster_up 1 "$HUB"

step "store migrate: SQLite history into etcd"
expect_rc 2 "migrate needs --to" ectl store migrate --from "sqlite:$T/ctl.db"
expect_rc 0 "migrate" ectl store migrate --from "sqlite:$T/ctl.db" --to "etcd://$ETCD_ENDPOINTS$ETCD_PREFIX"
ip netns exec "$HUB" "$CTL" --db "$T/ctl.db" --output json status 1 > "$T/sqlite-1.json"
ectl --output json status 1 > "$T/etcd-1.json"
python3 - "$T/sqlite-1.json" "$T/etcd-1.json" <<'PY' || fail "the migrated rollout differs from the SQLite one"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k in ("id", "kind", "policy", "state", "exit_code", "message", "summary", "waves"):
    assert a[k] == b[k], (k, a[k], b[k])
for x, y in zip(a["nodes"], b["nodes"]):
    for k in ("name", "url", "wave", "state", "tx", "exit_code", "changes", "idempotency_key", "pre_rev", "rev"):
        assert x.get(k) == y.get(k), (x["name"], k, x.get(k), y.get(k))
PY
echo "ok: rollout 1 in etcd has the same waves, nodes, transactions, keys and revisions"
expect_rc 2 "migrating twice is refused (ids kept, never overwritten)" \
        ectl store migrate --from "sqlite:$T/ctl.db" --to "etcd://$ETCD_ENDPOINTS$ETCD_PREFIX"

step "a replica with --enforce keeps the fleet in sync"
m=$(free_port)
replica_up 1 --enforce --drift-interval 2 --metrics 127.0.0.1:$m
wait_for $((LEASE_TTL * 10)) has_leader || fail "the replica did not take the lead"
metric() { ip netns exec "$HUB" curl -s --max-time 5 "http://127.0.0.1:$m/metrics" | awk -v k="$1" '$1 == k { print $2 }'; }
scanned() { [ "$(metric nettune_ctl_drift_scans_total)" -ge "$1" ]; }
wait_for 60 scanned 1 || fail "no drift scan"
ip -n "$(node_ns 2)" link set nt0 mtu 1500
echo "node 2: mtu set to 1500 by hand"
wait_for 120 mtu_is 2 9000 || fail "node 2 was not put back: $(tail -5 "$T/replica-1.log")"
echo "ok: node 2 is back at mtu 9000"
enforced() { [ "$(metric nettune_ctl_enforce_rollouts_total)" -ge 1 ]; }
wait_for 20 enforced || fail "/metrics shows no enforce rollout"
ectl --output json history > "$T/history.json"
check "history has a completed enforce rollout of mtu-9000 on node002 only" python3 - "$T/history.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
e = [r for r in h if r["kind"] == "enforce"]
sys.exit(0 if e and e[0]["policy"] == "mtu-9000" and e[0]["state"] in ("completed", "running") else 1)
PY
eid=$(json_get "$T/history.json" '[r["id"] for r in d if r["kind"] == "enforce"][-1]')
wait_for 60 rollout_over "$eid" || fail "the enforce rollout did not finish"
check "it re-applied node002 only" [ "$(rollout_field "$eid" '",".join(n["name"] for n in d["nodes"])')" = node002 ]
check "and committed it" [ "$(rollout_field "$eid" 'd["state"]')" = completed ]
for i in 1 3 4; do mtu_is $i 9000 || fail "node $i has mtu $(node_mtu $i)"; done
grep -q "drift scan" "$T/replica-1.log" || fail "the replica logged no drift scan"

step "backup and restore of the prefix (docs/controller.md)"
etcdctl_ get --prefix "$ETCD_PREFIX/" > "$T/backup.txt"
check "the backup holds the records" grep -q "^$ETCD_PREFIX/rollout/" "$T/backup.txt"
sed "s|^$ETCD_PREFIX/|$ETCD_PREFIX-restored/|" "$T/backup.txt" > "$T/restore.txt"
restore() { while IFS= read -r k && IFS= read -r v; do
        [ "$k" = "$ETCD_PREFIX-restored/leader" ] && continue
        etcdctl_ put "$k" "$v" </dev/null >/dev/null || return 1; done < "$T/restore.txt"; }
restore || fail "cannot restore the backup"
ip netns exec "$HUB" "$CTL" --store "etcd://$ETCD_ENDPOINTS$ETCD_PREFIX-restored" --output json history > "$T/restored.json"
ectl --output json history > "$T/original.json"
check "the restored prefix shows the same history" python3 - "$T/original.json" "$T/restored.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if [(r["id"], r["state"], r["kind"]) for r in a] == [(r["id"], r["state"], r["kind"]) for r in b] else 1)
PY

step "rollback by rollout on etcd: a halted rollout, then every node back where it was"
# node 3 fails its gate (tbf 200 Mbit/s against min_gbps 0.5): the replica halts rollout S
# in its second wave, the canary committed, node 2 cancelled; then, the replica stopped
# (a rollback takes the leader key for its run), every node goes back, and a second run
# changes nothing. The revisions and the undoing transactions are etcd records.
policy "$T/gate.json" mtu-4000 4000 '{ "role": "gpu" }' \
        '{ "probe": "tcp", "peer": "10.88.255.1:18515", "duration_ms": 500, "settle_ms": 0, "runs": 1, "min_gbps": 0.5, "max_regression_pct": 90, "on_inconclusive": "fail" }'
tc -n "$(node_ns 3)" qdisc add dev nt0 root tbf rate 200mbit burst 32k latency 10ms
ectl_to() { local f=$1; shift; ectl "$@" > "$f"; }
expect_rc 1 "the rollout halts" ectl_to "$T/s.json" --quiet --output json apply "$T/gate.json" --canary 1 \
        --wave-size 50% --confirm-timeout 600
S=$(json_get "$T/s.json" 'd["id"]')
check "the canary committed at 4000, the rest at 9000" \
        [ "$(node_mtu 1) $(node_mtu 2) $(node_mtu 3) $(node_mtu 4)" = "4000 9000 9000 9000" ]
check "the canary's revisions are on record in etcd" [ "$(rollout_field "$S" \
        '[(n["pre_rev"], n["rev"]) for n in d["nodes"] if n["name"] == "node001"][0]')" = "(1, 2)" ]
kill -TERM "$REPLICA_PID_1"
wait "$REPLICA_PID_1" 2>/dev/null || true
expect_rc 0 "rollback --rollout $S" ectl_to "$T/r.json" --output json rollback --rollout "$S"
check "1 restored, 2 already there" [ "$(json_get "$T/r.json" '(d["summary"]["restored"], d["summary"]["already_there"])')" = "(1, 2)" ]
check "live: every node at 9000 again" [ "$(node_mtu 1) $(node_mtu 2) $(node_mtu 3) $(node_mtu 4)" = "9000 9000 9000 9000" ]
check "rollout $S keeps the transaction that undid the canary" [ "$(rollout_field "$S" \
        '[n["undo_tx"] is not None for n in d["nodes"] if n["name"] == "node001"][0]')" = True ]
expect_rc 0 "the same rollback again" ectl_to "$T/r2.json" --output json rollback --rollout "$S"
check "a no-op: 3 already there" [ "$(json_get "$T/r2.json" 'd["summary"]["already_there"]')" = 3 ]
