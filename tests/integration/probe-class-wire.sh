#!/usr/bin/env bash
# The probe rides the class the policy names, proven on the wire: tcpdump on the
# peer's side of a veth pair between two namespaces sees every data segment of the
# TCP probe with IP DSCP 26 (TOS 0x68, IPv6 traffic class 0x68), the responder's
# ACKs too. Socket priority is not visible on a veth and this kernel has no 802.1Q
# to turn it into a PCP: each run reports what the kernel says of its data socket
# (getsockopt SO_PRIORITY), and a run whose socket disagrees with the pin fails. An apply with verify.dscp 26 (veth has no DCB, so the
# DSCP is given, not derived: the derivation is unit-tested over the DCB model)
# measures its baseline and post-change probes on DSCP 26 and says so in plan,
# apply --output json and the journal. A probe that would leave by an interface
# the policy does not target is refused before anything changes; `auto` resolving
# to tcp on a node with an RDMA device is a warning.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd tcpdump ip ss python3

nsa=$(netns_add ca)
nsb=$(netns_add cb)
va=ca$NT_ID vb=cb$NT_ID
veth_pair "$nsa" "$va" "$nsb" "$vb" 10.211.0.1/24 10.211.0.2/24
ip -n "$nsa" addr add fd14::1/64 dev "$va" nodad
ip -n "$nsb" addr add fd14::2/64 dev "$vb" nodad
# a second interface of the agent's namespace that the probe does not leave by
ip -n "$nsa" link add "ox$NT_ID" type veth peer name "oy$NT_ID"

for l in 10.211.0.2:18515 [fd14::2]:18515; do
        bg ip netns exec "$nsb" "$AGENT" probe-server --listen "$l" --allow 10.211.0.0/24 --allow fd14::/64
done
wait_for 10 sh -c "[ \$(ip netns exec '$nsb' ss -ltnH 'sport = :18515' | grep -c LISTEN) -eq 2 ]" ||
        fail "the probe-servers did not start"

# capture IF FILE CMD...: tcpdump on IF in the responder's namespace while CMD runs
capture() {
        local ifc=$1 file=$2 pid; shift 2
        ip netns exec "$nsb" tcpdump -Z root -i "$ifc" -nn -U -s 160 -w "$file" tcp \
                2>"$file.log" &
        pid=$!
        _nt_pids+=("$pid")
        wait_for 10 grep -q "listening on" "$file.log" || fail "tcpdump did not start on $ifc"
        "$@"
        sleep 0.5
        kill -INT "$pid"
        wait "$pid" || true
}
# segments FILE FILTER: tcpdump's verbose lines of the packets FILTER selects, one per packet
segments() { tcpdump -r "$1" -nn -v "$2" 2>/dev/null | grep -E '^[0-9]'; }
# ratio_ok WHAT TOTAL GOOD MIN: every one of at least MIN packets is good
ratio_ok() {
        echo "$1: $3 of $2 packets"
        [ "$2" -ge "$4" ] && [ "$3" -eq "$2" ]
}

step "the control: without --dscp no segment carries DSCP 26"
capture "$vb" "$T/v0.pcap" ip netns exec "$nsa" "$AGENT" probe --peer 10.211.0.2:18515 --mode tcp \
        --duration-ms 300 --runs 1 >/dev/null
data="src host 10.211.0.1 and dst host 10.211.0.2 and not port 18515 and greater 200"
total=$(segments "$T/v0.pcap" "$data" | wc -l)
good=$(segments "$T/v0.pcap" "$data" | grep -c 'tos 0x6[89ab],' || true)
echo "data without --dscp: $good of $total with DSCP 26"
check "the capture tells the classes apart (none of $total)" sh -c '[ "$1" -ge 20 ] && [ "$2" -eq 0 ]' _ "$total" "$good"

step "tcp probe with --dscp 26 --priority 3: IPv4"
capture "$vb" "$T/v4.pcap" ip netns exec "$nsa" "$AGENT" probe --peer 10.211.0.2:18515 --mode tcp --dscp 26 \
        --priority 3 --streams 2 --duration-ms 300 --runs 1 --output json >"$T/v4.json"
data="src host 10.211.0.1 and dst host 10.211.0.2 and not port 18515 and greater 200"
total=$(segments "$T/v4.pcap" "$data" | wc -l)
good=$(segments "$T/v4.pcap" "$data" | grep -c 'tos 0x6[89ab],' || true)
check "every data segment carries DSCP 26 (TOS 0x68)" ratio_ok "data" "$total" "$good" 20
acks="src host 10.211.0.2 and dst host 10.211.0.1 and not port 18515"
total=$(segments "$T/v4.pcap" "$acks" | wc -l)
good=$(segments "$T/v4.pcap" "$acks" | grep -c 'tos 0x6[89ab],' || true)
check "every responder ACK carries DSCP 26 too" ratio_ok "acks" "$total" "$good" 5
total=$(segments "$T/v4.pcap" "port 18515" | wc -l)
good=$(segments "$T/v4.pcap" "port 18515" | grep -c 'tos 0x0,' || true)
check "the control connection stays in the default class" ratio_ok "control" "$total" "$good" 4
check "the result names DSCP 26, priority 3, 2 streams, interface $va" python3 -c "
import json,sys; p=json.load(open('$T/v4.json'))['measurement']['path']
sys.exit(0 if (p['dscp'],p['priority'],p['streams'],p['interface'],p['mode']) == (26,3,2,'$va','tcp') else 1)"
check "the kernel reports DSCP 26 and priority 3 for the run's data socket" python3 -c "
import json,sys; r=json.load(open('$T/v4.json'))['measurement']['runs'][0]
sys.exit(0 if (r['dscp'],r['priority']) == (26,3) else 1)"

step "IPv6: the traffic class"
capture "$vb" "$T/v6.pcap" ip netns exec "$nsa" "$AGENT" probe --peer '[fd14::2]:18515' --mode tcp --dscp 26 \
        --duration-ms 300 --runs 1 >/dev/null
data="src host fd14::1 and dst host fd14::2 and not port 18515 and greater 200"
total=$(segments "$T/v6.pcap" "$data" | wc -l)
good=$(segments "$T/v6.pcap" "$data" | grep -c 'class 0x6[89ab],' || true)
check "every IPv6 data segment has traffic class 0x68" ratio_ok "data" "$total" "$good" 20

step "apply with verify.dscp 26: baseline and post-change on DSCP 26"
mkdir -p "$T/state"
echo "{ \"state_dir\": \"$T/state\" }" >"$T/agent.json"
A() { ip netns exec "$nsa" "$AGENT" --config "$T/agent.json" "$@"; }
verify='{"probe":"tcp","peer":"10.211.0.2:18515","dscp":26,"duration_ms":300,"runs":1,"settle_ms":0,"max_regression_pct":90}'
policy_file "$T/p.json" class "$va" 1400 "$verify"
A --output json plan "$T/p.json" >"$T/plan.json"
check "plan: the pinned probe (tcp via $va, DSCP 26 from verify.dscp, priority left)" python3 -c "
import json,sys; p=json.load(open('$T/plan.json'))['probe']
sys.exit(0 if (p['mode'],p['interface'],p['dscp'],p['dscp_from'],p['priority'],p['source']) ==
              ('tcp','$va',26,'verify.dscp',None,'10.211.0.1') else 1)"
capture "$vb" "$T/apply.pcap" A --output json apply "$T/p.json" >"$T/apply.json"
check "committed" [ "$(jq_py "$T/apply.json" 'd["result"]')" = committed ]
check "MTU 1400" [ "$(mtu_of "$nsa" "$va")" = 1400 ]
data="src host 10.211.0.1 and dst host 10.211.0.2 and not port 18515 and greater 200"
total=$(segments "$T/apply.pcap" "$data" | wc -l)
good=$(segments "$T/apply.pcap" "$data" | grep -c 'tos 0x6[89ab],' || true)
check "both measurements' data segments carry DSCP 26" ratio_ok "data" "$total" "$good" 40
for ph in baseline post; do
        check "apply JSON: $ph ran on DSCP 26 via $va" [ "$(jq_py "$T/apply.json" \
                "(lambda p: (p['dscp'], p['interface'], p['mode']))(d['probe']['$ph']['path'])")" = "(26, '$va', 'tcp')" ]
done
A --output json history >"$T/h.json"
check "journal: the post-change path says DSCP 26" [ "$(jq_py "$T/h.json" 'd[0]["probe"]["post"]["path"]["dscp"]')" = 26 ]
check "journal: the gate's verdict" [ "$(jq_py "$T/h.json" 'd[0]["probe"]["gate"]["verdict"]')" = pass ]

step "a probe that leaves by an interface the policy does not target is refused"
policy_file "$T/other.json" other "ox$NT_ID" 1300 "$verify"
rc=0; A apply "$T/other.json" 2>"$T/other.err" || rc=$?
check "exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "the message names the probe's interface" grep -q "leaves by interface '$va', which is not an interface target" "$T/other.err"
check "nothing changed on ox$NT_ID" [ "$(mtu_of "$nsa" "ox$NT_ID")" = 1500 ]
expect_rc 2 "plan refuses it the same way" A plan "$T/other.json"
policy_file "$T/named.json" named "ox$NT_ID" 1300 \
        '{"probe":"tcp","peer":"10.211.0.2:18515","device":"'"$va"'","dscp":26,"duration_ms":300,"runs":1,"settle_ms":0}'
expect_rc 0 "verify.device names it: planned" A plan "$T/named.json"

step "auto resolving to tcp on a node with an RDMA device is a warning"
gid=$T/sys/class/infiniband/mlx5_0/ports/1
mkdir -p "$gid/gids" "$gid/gid_attrs/types"
echo 0000:0000:0000:0000:0000:ffff:c000:0201 >"$gid/gids/1"      # ::ffff:192.0.2.1, not our source
echo "RoCE v2" >"$gid/gid_attrs/types/1"
echo "{ \"state_dir\": \"$T/state\", \"sysfs_root\": \"$T/sys\" }" >"$T/agent.json"
# a new revision of the committed layer class (the same metadata.name): it replaces it
policy_file "$T/auto.json" class "$va" 1500 \
        '{"probe":"auto","peer":"10.211.0.2:18515","dscp":26,"duration_ms":300,"runs":1,"settle_ms":0,"max_regression_pct":90}'
A plan "$T/auto.json" >"$T/auto.plan"
check "plan notes the warning" grep -q "warning: probe 'auto' resolved to tcp on '$va' although this node has RDMA device mlx5_0" "$T/auto.plan"
rc=0; A --output json apply "$T/auto.json" >"$T/auto.json.out" 2>"$T/auto.err" || rc=$?
check "apply committed (exit $rc)" [ "$rc" -eq 0 ]
check "apply warns on stderr" grep -q "warning: probe 'auto' resolved to tcp" "$T/auto.err"
check "apply JSON carries the warning" [ "$(jq_py "$T/auto.json.out" 'len(d["probe"]["pinned"]["warnings"])')" = 1 ]
