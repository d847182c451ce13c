#!/usr/bin/env bash
# doctor learns the path from LLDP: real lldpd on both ends of a veth pair, the far end
# announcing itself as leaf1 and its port as swp1 (as Cumulus Linux's lldpd does), the
# near end asked by the agent (`lldpcli -u SOCKET -f json0 show neighbors`). leaf1's
# configuration is a switchsim behind sshd that the agent manages: its swp1 carries less
# than the host's MTU, and only the LLDP path can say so. A "links" entry wins over
# LLDP; without either, the report says "path unknown".
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/tests/integration/agent-switch.inc"
require_root
require_sshd
require_cmd python3 lldpd lldpcli

AS_NS=$(netns_add drl)
FAR=$(netns_add drlf)
HOST_IF=l0$NT_ID
veth_pair "$AS_NS" "$HOST_IF" "$FAR" swp1
ip -n "$FAR" link set swp1 mtu 9000
as_switch leaf1 nvue swp1,swp2
as_switches_up
swsim leaf1 -- nv set interface swp1 link mtu 1500 >/dev/null
swsim leaf1 -- nv config apply -y >/dev/null

# lldpd on each end: -d stays in the foreground (cleanup stops it by PID), -u its own socket,
# which its unprivileged half (user _lldpd) creates: the directory must be reachable.
chmod 711 "$T"
mkdir -m 755 "$T/lldp"
bg ip netns exec "$FAR" lldpd -d -u "$T/lldp/far.sock" -I swp1
bg ip netns exec "$AS_NS" lldpd -d -u "$T/lldp/near.sock" -I "$HOST_IF"
wait_for 10 ip netns exec "$FAR" lldpcli -u "$T/lldp/far.sock" show configuration || fail "lldpd did not start"
wait_for 10 ip netns exec "$AS_NS" lldpcli -u "$T/lldp/near.sock" show configuration || fail "lldpd did not start"
ip netns exec "$FAR" lldpcli -u "$T/lldp/far.sock" configure system hostname leaf1 >/dev/null
ip netns exec "$FAR" lldpcli -u "$T/lldp/far.sock" configure lldp portidsubtype ifname >/dev/null
ip netns exec "$FAR" lldpcli -u "$T/lldp/far.sock" configure lldp tx-interval 1 >/dev/null
heard() { ip netns exec "$AS_NS" lldpcli -u "$T/lldp/near.sock" -f json0 show neighbors | grep -q '"value": "leaf1"'; }
wait_for 30 heard || fail "the near end never heard leaf1"

python3 - "$T/agent.json" "$T" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["lldpd_socket"] = sys.argv[2] + "/lldp/near.sock"
c["proc_root"] = sys.argv[2] + "/proc"
json.dump(c, open(sys.argv[1], "w"), indent=1)
EOF
mkdir -p "$T/proc"
policy_file "$T/host.json" host "$HOST_IF" 9000
expect_rc 0 "the host interface is managed (mtu 9000)" A apply "$T/host.json"

step "the path from LLDP"
rc=0; A --output json doctor --window 0.5 --save-facts "$T/f.json" >"$T/d.json" || rc=$?
check "exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "the peer came from LLDP" [ "$(jq_py "$T/f.json" "[i['peer'] for i in d['nodes'][0]['interfaces'] if i['name'] == '$HOST_IF'][0]")" = \
        "{'port': 'swp1', 'source': 'lldp', 'switch': 'leaf1'}" ]
check "mtu_mismatch on that path" [ "$(jq_py "$T/d.json" "[(f['code'], f['ports'][1]) for f in d['findings']]")" = \
        "[('mtu_mismatch', 'leaf1:swp1')]" ]

step "links wins over LLDP"
python3 - "$T/agent.json" "$HOST_IF" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1])); c["links"] = {sys.argv[2]: "leaf1:swp2"}; json.dump(c, open(sys.argv[1], "w"))
EOF
rc=0; A --output json doctor --window 0.5 >"$T/d.json" || rc=$?
check "swp2 carries 9216: no finding (exit $rc)" [ "$rc" -eq 0 ]

step "neither: path unknown, said"
python3 - "$T/agent.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1])); del c["links"]; c["lldpd_socket"] = "/nonexistent/lldpd.sock"
json.dump(c, open(sys.argv[1], "w"))
EOF
rc=0; A doctor --window 0.5 >"$T/d.txt" || rc=$?
cat "$T/d.txt"
check "no finding without a path (exit $rc)" [ "$rc" -eq 0 ]
check "the report says the path is unknown" grep -q "$HOST_IF: path unknown (no 'links' entry and no LLDP neighbour)" "$T/d.txt"
