# Helpers for the agent's integration tests: source after common.sh.
#   policy_file FILE NAME IFACE MTU [VERIFY_JSON [COMMIT_JSON]]
#   agent_config FILE STATE_DIR LISTEN PROBE_LISTEN [EXTRA_JSON_MEMBERS]
#   serve_start NS CONFIG [ARGS...]      start serve in NS (bg); waits until it listens
#   api NS URL_PATH [CURL_ARGS...]       HTTPS call with the controller cert (bodies sent as
#                                        application/json); prints the status code, leaves
#                                        the body in $T/body
#   api_as CERT NS URL_PATH [CURL_ARGS...]  the same with $T/certs/CERT.crt/.key
#   mtu_of NS IFACE                      the live MTU
#   jq_py FILE PYEXPR                    evaluate PYEXPR over the JSON in FILE (d)

policy_file() {
        local f=$1 name=$2 ifc=$3 mtu=$4 verify=${5:-'{"probe":"none","settle_ms":0}'} commit=${6:-'{}'}
        cat >"$f" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "$name" },
  "targets": { "interfaces": ["$ifc"] }, "spec": { "mtu": $mtu },
  "verify": $verify, "commit": $commit }
JSON
}

agent_config() {
        local f=$1 state=$2 listen=$3 probe=$4 extra=${5:-}
        cat >"$f" <<JSON
{ "listen": "$listen",
  "tls": { "cert": "$T/certs/agent.crt", "key": "$T/certs/agent.key", "client_ca": "$T/certs/clients-ca.crt" },
  "state_dir": "$state", "probe": { "listen": "$probe" }${extra:+, $extra} }
JSON
}

serve_start() {
        local ns=$1 cfg=$2 port; shift 2
        port=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["listen"].rsplit(":",1)[1])' "$cfg")
        bg ip netns exec "$ns" "$AGENT" --config "$cfg" serve "$@"
        SERVE_PID=$BG_PID
        wait_for 10 sh -c "ip netns exec '$ns' ss -ltnH 'sport = :$port' | grep -q LISTEN" ||
                fail "serve did not start listening on port $port"
}

API_URL=""
api_as() {
        local who=$1 ns=$2 path=$3; shift 3
        ip netns exec "$ns" curl -s -o "$T/body" -w '%{http_code}' --max-time 60 \
                --cacert "$T/certs/ca.crt" --cert "$T/certs/$who.crt" --key "$T/certs/$who.key" \
                -H 'Content-Type: application/json' "$API_URL$path" "$@" || true
}

api() { api_as controller "$@"; }

mtu_of() { ip -n "$1" -o link show "$2" | sed -n 's/.* mtu \([0-9]*\) .*/\1/p'; }

jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
