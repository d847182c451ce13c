# Real etcd members for the controller's store tests: source after common.sh.
#   etcd_require                        skip (77) with the reason when etcd is not installed
#   etcd_cluster_up N [NS [CERTDIR]]    N members on 127.0.0.1 (in netns NS when given), free
#                                       client/peer ports, own data dirs under $T, started with bg
#                                       (killed by PID on exit); with CERTDIR (certs.sh make_certs):
#                                       HTTPS with client certificates required (mTLS), the
#                                       controller presenting controller.crt.
#                                       Sets ETCD_ENDPOINTS ("127.0.0.1:P1,..."), ETCD_PID_1..N,
#                                       ETCD_CLIENT_PORT_1..N, ETCD_TLS_ARGS (for nettunectl).
#   etcd_kill I                         kill -9 member I and reap it
#   etcdctl_ ARGS...                    etcdctl against the cluster (same netns, same TLS)
#   etcd_get_json PREFIX FILE           every key under PREFIX as JSON {key: {value, mod, create}}
# The members run with a short election timeout so that losing one is noticed in
# about a second; waits in tests are sized from the lease TTLs, never shorter.

etcd_require() {
        command -v etcd >/dev/null 2>&1 && command -v etcdctl >/dev/null 2>&1 ||
                skip "etcd is not installed (apt-get install etcd-server etcd-client)"
}

_etcd_ns() { if [ -n "${ETCD_NS:-}" ]; then ip netns exec "$ETCD_NS" "$@"; else "$@"; fi; }

etcdctl_() {
        _etcd_ns env ETCDCTL_API=3 etcdctl --endpoints "$ETCD_URLS" --command-timeout=5s ${ETCDCTL_TLS:-} "$@"
}

etcd_cluster_up() {
        local n=$1 i cluster="" scheme=http sep="" tls=()
        ETCD_NS=${2:-}
        ETCD_CERTS=${3:-}
        if [ -n "$ETCD_CERTS" ]; then
                scheme=https
                # etcd's JSON gateway dials its own gRPC server with the server certificate,
                # so with client-cert-auth that certificate must allow client use too.
                [ -s "$ETCD_CERTS/etcd.crt" ] || _certs_sign "$ETCD_CERTS" ca etcd "etcd" \
                        "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost"
                # Clients: the controller (the clients' CA) and the gateway itself (the agents' CA).
                cat "$ETCD_CERTS/ca.crt" "$ETCD_CERTS/clients-ca.crt" > "$ETCD_CERTS/etcd-clients.crt"
                tls=(--cert-file "$ETCD_CERTS/etcd.crt" --key-file "$ETCD_CERTS/etcd.key"
                     --trusted-ca-file "$ETCD_CERTS/etcd-clients.crt" --client-cert-auth)
                ETCDCTL_TLS="--cacert $ETCD_CERTS/ca.crt --cert $ETCD_CERTS/controller.crt --key $ETCD_CERTS/controller.key"
                ETCD_TLS_ARGS="--store-ca $ETCD_CERTS/ca.crt --store-cert $ETCD_CERTS/controller.crt --store-key $ETCD_CERTS/controller.key"
        else
                ETCDCTL_TLS=""
                ETCD_TLS_ARGS=""
        fi
        for ((i = 1; i <= n; i++)); do
                eval "ETCD_CLIENT_PORT_$i=$(free_port)"
                eval "ETCD_PEER_PORT_$i=$(free_port)"
                cluster+="${sep}e$i=http://127.0.0.1:$(eval echo \$ETCD_PEER_PORT_$i)"
                sep=,
        done
        ETCD_ENDPOINTS="" ETCD_URLS="" sep=""
        for ((i = 1; i <= n; i++)); do
                local cp pp
                cp=$(eval echo \$ETCD_CLIENT_PORT_$i)
                pp=$(eval echo \$ETCD_PEER_PORT_$i)
                mkdir -p "$T/etcd$i"
                local cmd=(etcd)
                [ -z "$ETCD_NS" ] || cmd=(ip netns exec "$ETCD_NS" etcd)
                bg "${cmd[@]}" --name "e$i" --data-dir "$T/etcd$i/data" \
                        --listen-client-urls "$scheme://127.0.0.1:$cp" --advertise-client-urls "$scheme://127.0.0.1:$cp" \
                        --listen-peer-urls "http://127.0.0.1:$pp" --initial-advertise-peer-urls "http://127.0.0.1:$pp" \
                        --initial-cluster "$cluster" --initial-cluster-state new --initial-cluster-token "nt-$NT_ID" \
                        --heartbeat-interval 100 --election-timeout 1000 "${tls[@]}" \
                        >"$T/etcd$i/log" 2>&1
                eval "ETCD_PID_$i=$BG_PID"
                ETCD_ENDPOINTS+="${sep}127.0.0.1:$cp"
                ETCD_URLS+="${sep}$scheme://127.0.0.1:$cp"
                sep=,
        done
        wait_for 60 etcdctl_ endpoint health || { tail -n 5 "$T"/etcd*/log; fail "etcd did not become healthy"; }
}

etcd_kill() {
        local pid
        pid=$(eval echo \$ETCD_PID_$1)
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
}

etcd_get_json() {
        etcdctl_ get --prefix "$1" -w json > "$2.raw" || return 1
        python3 - "$2.raw" "$2" <<'PY'
import base64, json, sys
d = json.load(open(sys.argv[1]))
out = {}
for kv in d.get("kvs", []):
    out[base64.b64decode(kv["key"]).decode()] = {
        "value": json.loads(base64.b64decode(kv.get("value", "")) or "null"),
        "mod": int(kv.get("mod_revision", 0)), "create": int(kv.get("create_revision", 0))}
json.dump(out, open(sys.argv[2], "w"))
PY
}
