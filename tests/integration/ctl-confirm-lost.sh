#!/usr/bin/env bash
# Controller: confirm answers that never come back, and confirms that come too late,
# through a TLS proxy between nettunectl and an agent (tests/tools/confirm_proxy.py:
# real mTLS on both sides). The proxy in front of node 1 forwards every confirm to its
# agent and swallows the answer; the one in front of node 3 holds every confirm until
# the controller's not_after_ms has passed, then forwards it.
#
# 1. The wave goes on: node 1's agent committed, the controller never heard it, asks
#    GET /v1/transactions/TX, and records it committed: committed everywhere.
# 2. The wave halts: node 3's agent refuses the late confirm (409 expired) and restores
#    the change; that is an answer (node 3 reverted), the wave is over budget, and node
#    1 (committed, answer lost again) and node 2 are rolled back: the old state
#    everywhere.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd python3 sqlite3
python3 -c 'import ssl' 2>/dev/null || skip "python3 has no ssl module"
N=3
HUB_IP=10.88.255.1
PROXY=$NETTUNE_TOP/tests/tools/confirm_proxy.py

step "fleet of $N agents; proxies in front of node 1 (drop answers) and node 3 (confirm late)"
fleet_up $N
proxy_up() {
        local i=$1 port=$2 mode=$3
        bg ip netns exec "$HUB" python3 "$PROXY" --listen "$HUB_IP:$port" --upstream "$(node_ip "$i"):$FLEET_PORT" \
                --cert "$T/pki/agent.crt" --key "$T/pki/agent.key" --client-ca "$T/pki/clients-ca.crt" \
                --ca "$T/pki/ca.crt" --client-cert "$T/pki/controller.crt" --client-key "$T/pki/controller.key" \
                --mode "$mode" --log "$T/proxy-$i.log"
        wait_for 20 sh -c "ip netns exec '$HUB' ss -ltnH 'sport = :$port' | grep -q LISTEN" ||
                fail "the proxy for node $i did not start"
}
proxy_up 1 7501 drop
proxy_up 3 7503 late
# inventory NODES...: the fleet's inventory with only those nodes, 1 and 3 behind their proxies.
inventory() {
        python3 - "$T/inventory.json" "$T/inventory-all.json" "$@" <<'PY'
import json, sys
inv = json.load(open(sys.argv[2]))
keep = {"node%03d" % int(i) for i in sys.argv[3:]}
inv["nodes"] = [n for n in inv["nodes"] if n["name"] in keep]
for n in inv["nodes"]:
    if n["name"] == "node001": n["url"] = "https://10.88.255.1:7501"
    if n["name"] == "node003": n["url"] = "https://10.88.255.1:7503"
json.dump(inv, open(sys.argv[1], "w"), indent=1)
PY
}
cp "$T/inventory.json" "$T/inventory-all.json"
node_field() { json_get "$1" "[n['$3'] for n in d['nodes'] if n['name'] == '$2'][0]"; }

step "1: node 1's confirm answer is lost; the wave goes on"
inventory 1 2
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
expect_rc 0 "rollout commits" ctl_to "$T/a.json" --output json apply "$T/mtu.json" --canary 0 --wave-size 100% \
        --confirm-timeout 600 --timeout 30
check "the proxy forwarded node 1's confirm, its agent committed, the answer was dropped" \
        grep -Eq "^drop [0-9]+ 200$" "$T/proxy-1.log"
check "node001 committed (learnt from its agent)" [ "$(node_field "$T/a.json" node001 state)" = committed ]
check "node002 committed" [ "$(node_field "$T/a.json" node002 state)" = committed ]
check "nodes 1 and 2 at 9000" [ "$(node_mtu 1)$(node_mtu 2)" = 90009000 ]
for i in 1 2; do
        check "node $i holds nothing pending" [ "$(pending_count $i)" = 0 ]
        applied_once $i mtu-9000 || fail "node $i applied mtu-9000 more than once"
done

step "2: node 3's confirm comes after the wave's deadline; the wave halts"
inventory 1 2 3
policy "$T/mtu2.json" mtu-4000 4000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
# --timeout 20: the wave's confirm window; node 3's proxy forwards its confirm 1 s after it.
expect_rc 1 "rollout halts and rolls back" ctl_to "$T/b.json" --output json apply "$T/mtu2.json" --canary 0 \
        --wave-size 100% --confirm-timeout 600 --timeout 20
check "the proxy held node 3's confirm past its not_after_ms; its agent answered 409" \
        grep -Eq "^late [0-9]+ 409 " "$T/proxy-3.log"
read -r _ _ _ not_after forwarded < <(grep "^late " "$T/proxy-3.log" | tail -1)
check "it was forwarded after the confirm's not_after_ms" [ "$forwarded" -gt "$not_after" ]
# (libcurl sends a request again, once, when a reused connection closes before any answer.)
check "node 1's confirm answer was dropped in this rollout too" \
        [ "$(awk '/^drop / { print $2 }' "$T/proxy-1.log" | sort -u | wc -l)" = 2 ]
check "node003 reverted: the agent refused the late confirm" [ "$(node_field "$T/b.json" node003 state)" = reverted ]
echo "node003: $(node_field "$T/b.json" node003 error)"
check "node001 (committed, its answer lost) rolled back" [ "$(node_field "$T/b.json" node001 state)" = rolled_back ]
check "node002 rolled back" [ "$(node_field "$T/b.json" node002 state)" = rolled_back ]
check "the whole wave at its old mtu (9000, 9000, and 1500 on node 3, not in the first rollout)" \
        [ "$(node_mtu 1)/$(node_mtu 2)/$(node_mtu 3)" = 9000/9000/1500 ]
for i in 1 2 3; do
        check "node $i holds nothing pending" [ "$(pending_count $i)" = 0 ]
done
agent_history 3 "$T/h3.json"
check "node 3's agent restored its change when the late confirm came" \
        [ "$(json_get "$T/h3.json" '[(t["policy"], t["state"], t["restored_by"]) for t in d["transactions"] if t["kind"] == "apply"][0]')" = \
          "('mtu-4000', 'rolled_back', 'confirm-timeout')" ]
ctl status > "$T/status.txt"
check "status: node003 reverted, its confirm too late" grep -Eq "node003 +reverted .*its confirm came too late|node003 +reverted .*restored by its agent" "$T/status.txt"
check "status: 2 rolled back, 1 reverted" grep -q "halted: 1 node failed (budget 0); 2 rolled back, 0 cancelled, 1 reverted, 0 skipped" "$T/status.txt"
