#!/usr/bin/env bash
# Controller: what it accepts from an agent's TLS server. The agent's certificate
# must chain to the inventory's CA, name the URL's host, and carry extendedKeyUsage
# serverAuth; only TLS 1.3 or TLS 1.2 with an AEAD suite is spoken. The "agent" here
# is openssl s_server, so each case changes one thing; a node that fails any check
# is a "tls failure" and no request is sent to it.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
require_root
require_cmd openssl ss python3

ns=$(netns_add ct)
ip -n "$ns" addr add 127.0.0.2/8 dev lo 2>/dev/null || true
make_certs "$T/certs" || fail "cannot make test certificates"
certs=$T/certs
port=7460
policy_json='{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "p" },
  "targets": { "interfaces": ["nt0"] }, "spec": { "mtu": 9000 } }'
echo "$policy_json" >"$T/p.json"

inventory() {   # inventory HOST
        printf '{ "tls": { "ca": "%s/ca.crt", "cert": "%s/controller.crt", "key": "%s/controller.key" },
  "nodes": [ { "name": "n1", "url": "https://%s:%d" } ] }\n' "$certs" "$certs" "$certs" "$1" "$port" >"$T/inv.json"
}

SERVER_PID=
server() {      # server CERT [S_SERVER ARGS...]: an "agent" that speaks TLS and answers HTTP 200 with HTML
        local cert=$1; shift
        if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null || true; fi
        bg ip netns exec "$ns" openssl s_server -quiet -www -accept "$port" -cert "$certs/$cert.crt" \
                -key "$certs/$cert.key" "$@"
        SERVER_PID=$BG_PID
        wait_for 10 sh -c "ip netns exec '$ns' ss -ltnH 'sport = :$port' | grep -q LISTEN" || fail "s_server did not start"
}

plan() {        # plan: nettunectl plan against the one node; its JSON in $T/out.json, exit status echoed
        local rc=0
        ip netns exec "$ns" "$CTL" --inventory "$T/inv.json" --db "$T/ctl.db" --timeout 5 --output json \
                plan "$T/p.json" >"$T/out.json" 2>"$T/err" || rc=$?
        echo "$rc"
}
node_error() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["nodes"][0].get("error") or "")' "$T/out.json"; }

tls_failure() { # tls_failure DESCRIPTION: the plan failed at TLS
        local rc
        rc=$(plan)
        check "$1: plan exit 3 (got $rc)" [ "$rc" -eq 3 ]
        check "$1: the node is a tls failure ($(node_error))" sh -c 'echo "$1" | grep -q "tls failure"' _ "$(node_error)"
}

step "positive control: a proper agent certificate gets past TLS"
inventory 127.0.0.1
server agent
rc=$(plan)
echo "error: $(node_error)"
check "the answer is read (it is not an agent, so it is refused as an answer, not at TLS)" \
        sh -c '[ -n "$1" ] && ! echo "$1" | grep -q "tls failure"' _ "$(node_error)"

step "extendedKeyUsage"
inventory localhost
server server-only
rc=$(plan)
check "a serverAuth certificate from the clients' CA is not trusted for agents" sh -c 'echo "$1" | grep -q "tls failure"' _ "$(node_error)"
# Sign, with the agents' CA, certificates that differ from agent.crt only in their purpose.
for eku in clientAuth none; do
        ext="basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nsubjectAltName=DNS:localhost,IP:127.0.0.1"
        [ "$eku" = none ] || ext="$ext\nextendedKeyUsage=$eku"
        _certs_sign "$certs" ca "agent-$eku" "nettune-agent" "$ext"
        inventory 127.0.0.1
        server "agent-$eku"
        tls_failure "agent certificate with extendedKeyUsage $eku"
        check "$eku: the reason is the certificate's purpose" sh -c 'echo "$1" | grep -q "certificate purpose"' _ "$(node_error)"
done

step "host name"
inventory 127.0.0.2
server agent
tls_failure "URL host 127.0.0.2 that the certificate does not name"

step "TLS versions and ciphers"
inventory 127.0.0.1
server agent -tls1_2 -cipher ECDHE-ECDSA-AES128-SHA
tls_failure "TLS 1.2 with CBC only"
server agent -tls1_2 -cipher ECDHE-ECDSA-AES256-SHA384
tls_failure "TLS 1.2 with CBC-SHA384 only"
server agent -tls1_2 -cipher ECDHE-ECDSA-AES128-GCM-SHA256
rc=$(plan)
check "TLS 1.2 with AES-GCM gets past TLS ($(node_error))" sh -c '! echo "$1" | grep -q "tls failure"' _ "$(node_error)"
