#!/usr/bin/env bash
# Benchmark: the controller alone against 2,000 endpoints. The endpoints are one
# load generator (tests/tools/loadgen_agent.c: answers the agent API from a table,
# changes nothing; NOT an agent) on 2,000 loopback addresses of a private netns,
# mTLS on every connection. One rollout (canary 1, waves of 25%, --parallel 64,
# confirm on) driven by a `nettunectl serve` replica on a real etcd member, against
# the same kind of rollout driven by `nettunectl apply` on SQLite. Reports wall
# time, controller CPU and peak RSS, and etcd writes per rollout.
# ENDPOINTS=2000 by default.
. "$(cd "$(dirname "$0")/.." && pwd)/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/etcd.sh"
. "$NETTUNE_TOP/bench/ctl_store.inc"
require_root
etcd_require
[ -x /usr/bin/time ] || skip "/usr/bin/time is not installed"
LG=$BUILD/tools/loadgen_agent
[ -x "$LG" ] || skip "'$LG' is not built (make test-bins)"
N=${ENDPOINTS:-2000}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'; }

ns=$(netns_add load)
mkdir -p "$T/pki"
(
        cd "$T/pki"
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
                -subj /CN=nettune-bench-ca -keyout ca.key -out ca.crt 2>/dev/null
        python3 - "$N" > lg.ext <<'PY'
import sys
n = int(sys.argv[1])
ips = ",".join("IP:127.1.%d.%d" % ((i + 1) >> 8, (i + 1) & 255) for i in range(n))
print("subjectAltName=" + ips + "\nextendedKeyUsage=serverAuth")
PY
        printf 'extendedKeyUsage=clientAuth\n' > ctl.ext
        for who in lg ctl; do
                openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$who" \
                        -keyout $who.key -out $who.csr 2>/dev/null
                openssl x509 -req -in $who.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
                        -extfile $who.ext -out $who.crt 2>/dev/null
        done
) || fail "cannot make certificates"
port=7440
python3 - "$N" "$port" "$T" > "$T/inventory.json" <<'PY'
import json, sys
n, port, t = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
nodes = [{"name": "lg%04d" % i, "url": "https://127.1.%d.%d:%d" % ((i + 1) >> 8, (i + 1) & 255, port),
          "labels": {"role": "gpu"}} for i in range(n)]
json.dump({"tls": {"ca": t + "/pki/ca.crt", "cert": t + "/pki/ctl.crt", "key": t + "/pki/ctl.key"},
           "nodes": nodes}, sys.stdout)
PY
bg ip netns exec "$ns" "$LG" --listen "0.0.0.0:$port" --endpoints "$N" --cert "$T/pki/lg.crt" \
        --key "$T/pki/lg.key" --client-ca "$T/pki/ca.crt" 2>>"$T/loadgen.log"
lg_pid=$BG_PID
wait_for 20 sh -c "ip netns exec $ns ss -ltnH 'sport = :$port' | grep -q LISTEN" || fail "the load generator did not start"
etcd_cluster_up 1 "$ns"
for p in 9000 4000; do
        cat > "$T/p$p.json" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "mtu-$p" }, "selector": { "role": "gpu" },
  "targets": { "interfaces": ["lg0"] }, "spec": { "mtu": $p }, "verify": { "probe": "none", "settle_ms": 0 } }
JSON
done
args=(--canary 1 --wave-size 25% --confirm-timeout 300 --timeout 60)
sqlite_rollout "$ns" "$T/inventory.json" "$T/p9000.json" --parallel 64 "${args[@]}"
[ "$Q_COMMITTED" = "$N" ] || fail "SQLite rollout: $Q_COMMITTED of $N committed"
serve_rollout "$ns" "$T/inventory.json" "$T/p4000.json" "${args[@]}"
[ "$S_COMMITTED" = "$N" ] || fail "etcd rollout: $S_COMMITTED of $N committed"
kill "$lg_pid"; wait "$lg_pid" 2>/dev/null || true
stats=$(grep -o '[0-9]* applies, [0-9]* replayed keys' "$T/loadgen.log" | tail -1)

echo "| ctl_store_$N (controller alone, etcd vs SQLite) | $(secs "$S_WALL_MS") | $(secs "$Q_WALL_MS") (SQLite) | $(ratio "$S_WALL_MS" "$Q_WALL_MS") | $N load-generator endpoints (not agents), mTLS, 5 waves, confirm on; controller cpu $S_CPU_S s (serve) vs $Q_CPU_S s, peak rss $((S_RSS_KB / 1024)) MiB vs $((Q_RSS_KB / 1024)) MiB; etcd writes per rollout: $S_WRITES revisions ($S_TXNS txns by the replica); load generator: $stats |"
