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
#   expire_confirm STATE_DIR [TX]        the confirm deadline of TX (default: of every
#                                        pending transaction) has passed now

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

# The agent's confirm clock is the deadline in its journal (transactions.confirm_deadline_ms):
# the detached watchdog and the serve daemon read it back every second, and every command
# that takes the lock checks it. Moving it into the past is the test's explicit expiry
# trigger: the change is applied with a long --confirm-timeout, so nothing checked while it
# is pending can race the timer, and then its time runs out when the test says so.
expire_confirm() {
        local db=$1/journal.db where="state = 'pending_confirm'"
        [ -z "${2:-}" ] || where="id = $2"
        [ -e "$db" ] || fail "expire_confirm: no journal '$db'"
        sqlite3 -cmd '.timeout 10000' "$db" \
                "UPDATE transactions SET confirm_deadline_ms = (CAST(strftime('%s', 'now') AS INTEGER) - 1) * 1000
                 WHERE $where AND confirm_deadline_ms > 0" || fail "expire_confirm: cannot update '$db'"
}
