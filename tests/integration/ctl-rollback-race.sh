#!/usr/bin/env bash
# D3: two controllers that both undo "the newest revision" of a layer cannot undo each
# other. Each runs `rollback --policy mtu`, reads the node's history (revision 2 is
# current) and sends POST /v1/rollback naming it ({"policy": "mtu", "expect_revision": 2}); a TLS proxy holds the second controller's
# rollback between its history check and its request (the check-then-act window)
# until the first has rolled back (revision 3). The agent checks the precondition
# under its transaction lock: the second is refused (409 precondition_failed), the
# controller reports it as a refusal naming the node, and the node stays one revision
# back — it is not returned to the policy both meant to undo. Likewise when no revision
# is current yet: a `rollback --to 1` names revision 0, and a change committed meanwhile
# stands.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd python3 sqlite3
python3 -c 'import ssl' 2>/dev/null || skip "python3 has no ssl module"
HUB_IP=10.88.255.1
PROXY=$NETTUNE_TOP/tests/tools/confirm_proxy.py

step "one node, nothing committed yet; controller B reaches it through a proxy that holds its rollbacks"
fleet_up 1
# two revisions of one layer (docs/policy-reference.md, "Layers and owners"): rollback
# --policy mtu returns the layer to its previous revision
policy "$T/p9000.json" mtu 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
policy "$T/p4000.json" mtu 4000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
mkdir -p "$T/gate"
bg ip netns exec "$HUB" python3 "$PROXY" --listen "$HUB_IP:7501" --upstream "$(node_ip 1):$FLEET_PORT" \
        --cert "$T/pki/agent.crt" --key "$T/pki/agent.key" --client-ca "$T/pki/clients-ca.crt" \
        --ca "$T/pki/ca.crt" --client-cert "$T/pki/controller.crt" --client-key "$T/pki/controller.key" \
        --mode hold-rollback --gate "$T/gate" --log "$T/proxy.log"
wait_for 20 sh -c "ip netns exec '$HUB' ss -ltnH 'sport = :7501' | grep -q LISTEN" || fail "the proxy did not start"
python3 - "$T/inventory.json" "$T/inventory-b.json" <<'PY'
import json, sys
inv = json.load(open(sys.argv[1]))
inv["nodes"][0]["url"] = "https://10.88.255.1:7501"
json.dump(inv, open(sys.argv[2], "w"), indent=1)
PY
ctl_b() { ip netns exec "$HUB" "$CTL" --inventory "$T/inventory-b.json" --db "$T/ctl-b.db" "$@"; }

step "no revision is current: B's rollback --to 1 names that (expect_revision 0), A applies meanwhile"
bg ctl_b --output json rollback --to 1 > "$T/b0.json" 2> "$T/b0.err"
b=$BG_PID
wait_for 60 test -e "$T/gate/rollback.held" || fail "controller B's first rollback never reached the proxy"
expect_rc 0 "A: apply 9000 (revision 1)" ctl --quiet apply "$T/p9000.json" --canary 0 --wave-size 100%
touch "$T/gate/rollback.open"
rc=0; wait "$b" || rc=$?
cat "$T/b0.json" "$T/b0.err" "$T/proxy.log"
check "B exits non-zero (got $rc)" [ "$rc" -ne 0 ]
check "the proxy saw B name revision 0 and the agent answer 409" grep -Eq '^rollback 409 .*"expect_revision": ?0' "$T/proxy.log"
check "B reports node001 refused, naming revision 1" \
        grep -q "rollback refused by its agent: .*the current revision is 1 (transaction [0-9]*, apply), not the expected 0" "$T/b0.json"
check "A's change stands: the node is at 9000" mtu_is 1 9000
rm -f "$T/gate/rollback.held" "$T/gate/rollback.open"

step "revision 2 (mtu 4000); B's next rollback is held between its history check and its request"
expect_rc 0 "apply 4000" ctl --quiet apply "$T/p4000.json" --canary 0 --wave-size 100%
check "node at 4000" mtu_is 1 4000
bg ctl_b --output json rollback --policy mtu > "$T/b.json" 2> "$T/b.err"
b=$BG_PID
wait_for 60 test -e "$T/gate/rollback.held" || fail "controller B's rollback never reached the proxy"

step "controller A rolls layer mtu back meanwhile: revision 3 undoes 2"
expect_rc 0 "A: rollback --policy mtu" ctl_to "$T/a.json" --output json rollback --policy mtu
check "A: node001 rolled back" [ "$(json_get "$T/a.json" "[n['state'] for n in d['nodes']][0]")" = rolled_back ]
check "node at 9000" mtu_is 1 9000

step "B's rollback goes on: refused by the agent, the node stays where A left it"
touch "$T/gate/rollback.open"
rc=0; wait "$b" || rc=$?
cat "$T/b.json" "$T/b.err" "$T/proxy.log"
check "B exits non-zero (got $rc)" [ "$rc" -ne 0 ]
check "the proxy saw B name revision 2 and the agent answer 409" grep -Eq '^rollback 409 .*"expect_revision": ?2' "$T/proxy.log"
check "B reports node001 refused, naming the current revision" \
        grep -q "rollback refused by its agent: .*the current revision is 3 (transaction [0-9]*, rollback), not the expected 2" "$T/b.json"
check "node001 is not rolled back by B" [ "$(json_get "$T/b.json" "[n['state'] for n in d['nodes']][0]")" != rolled_back ]
check "the node is still at 9000, not back on the policy both meant to undo" mtu_is 1 9000
agent_history 1 "$T/h.json"
check "the agent committed exactly one rollback" \
        [ "$(json_get "$T/h.json" "sum(t['kind'] == 'rollback' and t['state'] == 'committed' for t in d['transactions'])")" = 1 ]
