# The load generator (tests/tools/loadgen_agent.c: NOT an agent, it answers the agent
# API from a table) for the controller's tests and benchmarks. Source after
# tests/lib/common.sh.
#   lg_setup N PORT NAME        a test's start: root, the tools and the program there (else skip), a
#                               netns (NS), the PKI in $T/pki, an inventory of N endpoints in $T/inv.json
#   lg_pki DIR                  a CA (ca.crt, ca.key) and the controller's client certificate (ctl.crt, ctl.key)
#   lg_inventory N PORT DIR     an inventory of N endpoints lg0000.. at https://127.1.x.y:PORT (stdout)
#   lg_start NS N PORT DIR LOG [ARGS]  the load generator in NS, each endpoint with a certificate of
#                               its own signed by DIR's CA (as every agent has), its stderr in LOG;
#                               sets LG_PID, LG_LOG
#   lg_policy MTU               a policy setting that MTU on every endpoint (stdout)
#   lg_counts                   "REQUESTS CONNECTIONS RESUMED" so far
#   per_node N "A" "B"          between two lg_counts, per node: "R/C (S resumed)"

LG=$BUILD/tools/loadgen_agent

lg_setup() {
        require_root
        require_cmd openssl python3 ss
        [ -x "$LG" ] || skip "'$LG' is not built (make test-bins)"
        NS=$(netns_add "$3")
        lg_pki "$T/pki"
        lg_inventory "$1" "$2" "$T/pki" > "$T/inv.json"
}

lg_pki() {
        mkdir -p "$1"
        (
                cd "$1"
                openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
                        -subj /CN=nettune-bench-ca -keyout ca.key -out ca.crt 2>/dev/null
                printf 'extendedKeyUsage=clientAuth\n' > ctl.ext
                openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=ctl" \
                        -keyout ctl.key -out ctl.csr 2>/dev/null
                openssl x509 -req -in ctl.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
                        -extfile ctl.ext -out ctl.crt 2>/dev/null
        ) || fail "cannot make certificates"
}

lg_inventory() {
        python3 - "$1" "$2" "$3" <<'PY'
import json, sys
n, port, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
nodes = [{"name": "lg%04d" % i, "url": "https://127.1.%d.%d:%d" % ((i + 1) >> 8, (i + 1) & 255, port),
          "labels": {"role": "gpu"}} for i in range(n)]
json.dump({"tls": {"ca": d + "/ca.crt", "cert": d + "/ctl.crt", "key": d + "/ctl.key"}, "nodes": nodes}, sys.stdout)
PY
}

lg_policy() {
        printf '{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "mtu-%s" }, "selector": { "role": "gpu" },\n' "$1"
        printf '  "targets": { "interfaces": ["lg0"] }, "spec": { "mtu": %s }, "verify": { "probe": "none", "settle_ms": 0 } }\n' "$1"
}

lg_start() {
        local ns=$1 n=$2 port=$3 d=$4 log=$5; shift 5
        bg ip netns exec "$ns" "$LG" --listen "0.0.0.0:$port" --endpoints "$n" --sign-ca "$d/ca.crt" \
                --sign-key "$d/ca.key" --client-ca "$d/ca.crt" "$@" 2>>"$log"
        LG_PID=$BG_PID LG_LOG=$log
        wait_for 60 sh -c "ip netns exec $ns ss -ltnH 'sport = :$port' | grep -q LISTEN" ||
                fail "the load generator did not start"
}

# lg_counts: "REQUESTS CONNECTIONS RESUMED" the load generator has answered so far (it prints them on SIGUSR1).
lg_counts() {
        local before
        before=$(grep -c '^loadgen_agent: .* connections' "$LG_LOG")
        kill -USR1 "$LG_PID" || return 1
        wait_for 10 sh -c "[ \$(grep -c '^loadgen_agent: .* connections' '$LG_LOG') -gt $before ]" || return 1
        grep '^loadgen_agent: .* connections' "$LG_LOG" | tail -1 |
                sed -n 's/^loadgen_agent: \([0-9]*\) requests, \([0-9]*\) connections, \([0-9]*\) resumed.*/\1 \2 \3/p'
}

# per_node N "R0 C0 S0" "R1 C1 S1": requests and connections per node between two lg_counts,
# and how many of those connections resumed a TLS session ("R/C (S resumed)").
per_node() {
        local a b
        read -r -a a <<<"$2"
        read -r -a b <<<"$3"
        awk -v n="$1" -v r=$(( b[0] - a[0] )) -v c=$(( b[1] - a[1] )) -v s=$(( b[2] - a[2] )) \
                'BEGIN { printf "%.2f/%.2f (%.2f resumed)", r / n, c / n, s / n }'
}
