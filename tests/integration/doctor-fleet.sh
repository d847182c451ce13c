#!/usr/bin/env bash
# nettunectl doctor across a fleet of real agents (serve, mutual TLS): three hosts whose
# interfaces are cabled ("links") to leaf1's ports, and a fabric node whose agent manages
# leaf1 (switchsim, NVUE, behind a private sshd in its namespace). What no single agent
# can see, the fleet-wide rules find: a host's MTU above the port another agent reads,
# a host slower than its peers. Each fault is made, found with both ends named, and
# undone; then --propose writes a policy with the fabric node's labels as its selector,
# `nettunectl apply` rolls it out, and doctor is clean. An unreachable node is exit 3;
# --probe measures point-to-point bandwidth between every pair of hosts, one pair at a
# time and all at once (the fabric probe).
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
. "$NETTUNE_TOP/tests/lib/doctor.sh"
fleet_require
require_sshd
require_cmd python3

N=4                                     # node001..node003: hosts; node004: the fabric node
fleet_certs "$N"
fleet_hub
for ((i = 1; i <= N; i++)); do fleet_node "$i"; done
fleet_inventory "$N"
fleet_leaf1 4 swp1,swp2,swp3
python3 - "$T" <<'EOF'
import json, sys
for i in range(1, 4):
    f = "%s/n%d/agent.json" % (sys.argv[1], i)
    c = json.load(open(f))
    c["links"] = {"nt0": "leaf1:swp%d" % i}
    json.dump(c, open(f, "w"), indent=1)
EOF
for ((i = 1; i <= N; i++)); do
        ip -n "$HUB" link set "h$NT_ID-$i" mtu 9000             # the bridge carries what the hosts send
        [ "$i" -eq 4 ] || ip -n "$(node_ns "$i")" link set nt0 mtu 9000
        fleet_start_agent "$i" 2>>"$T/agents.log"
done
for ((i = 1; i <= N; i++)); do wait_for 20 agent_up "$i" || fail "agent $i did not come up (see $T/agents.log)"; done

# diagnose "CODES" WHAT [ARGS...]: nettunectl doctor finds exactly CODES.
diagnose() { local want=$1 what=$2; shift 2; doctor_expect "$want" "$what" ctl --output json doctor --window 2 "$@"; }

step "the fleet agrees"
diagnose "" "healthy fleet"
check "every node collected" [ "$(jq_py "$T/d.json" "[n['collected'] for n in d['nodes']]")" = "[True, True, True, True]" ]
check "no path unknown: every host meets its port" [ "$(jq_py "$T/d.json" "d['notes']")" = "[]" ]

step "mtu_mismatch across nodes: node002's port on leaf1, read by node004"
nv set interface swp2 link mtu 1500 && nv_apply
diagnose "mtu_mismatch" "leaf1 swp2 at 1500"
check "nodes node002 and node004" [ "$(finding mtu_mismatch "['nodes']")" = "['node002', 'node004']" ]
check "ports node002:nt0 and leaf1:swp2" [ "$(finding mtu_mismatch "['ports']")" = "['node002:nt0', 'leaf1:swp2']" ]
rc=0; ip netns exec "$(node_ns 2)" "$AGENT" --config "$T/n2/agent.json" doctor --window 0.5 >"$T/a.txt" || rc=$?
cat "$T/a.txt"
check "node002's agent alone cannot judge it (exit $rc)" [ "$rc" -eq 0 ]
check "and says why" grep -q "nt0: path unknown (switch 'leaf1' is not in the collected facts (nettunectl doctor collects every agent's))" "$T/a.txt"
rc=0; ctl doctor --window 1 --svg "$T/d.svg" --node-labels "$T/labels.txt" >/dev/null || rc=$?
check "doctor --svg and --node-labels: exit 1 (findings), as without them" [ "$rc" -eq 1 ]
if command -v rsvg-convert >/dev/null; then
        check "the picture's one vermillion hop is leaf1:swp2, the port the fix changes" \
                python3 "$NETTUNE_TOP/tests/lib/svg_check.py" doctor "$T/d.svg" leaf1:swp2
fi
check "node002 and node004 (named by the critical mtu_mismatch) are broken, the rest ok" python3 - "$T/labels.txt" <<'EOF2'
import sys
got = {l.split()[0]: dict(kv.split("=", 1) for kv in l.split()[1:]) for l in open(sys.argv[1])}
want = {"node001": ("ok", ""), "node002": ("broken", "mtu_mismatch"), "node003": ("ok", ""),
        "node004": ("broken", "mtu_mismatch")}
assert {n: (v["nettune.io/lossless"], v["nettune.io/findings"]) for n, v in got.items()} == want, got
EOF2
ctl --output json doctor --window 1 --node-labels "$T/labels.json" >/dev/null || true
check "--output json: a merge patch per node for kubectl patch" python3 - "$T/labels.json" <<'EOF2'
import json, sys
j = json.load(open(sys.argv[1]))["nodes"]
assert j["node002"] == {"metadata": {"labels": {"nettune.io/lossless": "broken", "nettune.io/findings": "mtu_mismatch"}}}, j
assert j["node001"]["metadata"]["labels"]["nettune.io/lossless"] == "ok", j
EOF2
nv set interface swp2 link mtu 9216 && nv_apply
diagnose "" "MTU back"
ctl doctor --window 1 --node-labels "$T/labels.txt" >/dev/null
check "with the MTU back every node is ok again" [ "$(grep -c 'nettune.io/lossless=ok nettune.io/findings=$' "$T/labels.txt")" -eq 4 ]

step "link_downshift across nodes: node003 slower than its peers"
mkdir -p "$T/sys3/class/net/nt0" && echo 1000 >"$T/sys3/class/net/nt0/speed"
python3 - "$T/n3/agent.json" "$T/sys3" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1])); c["sysfs_root"] = sys.argv[2]; json.dump(c, open(sys.argv[1], "w"))
EOF
kill "$AGENT_PID_3" && wait "$AGENT_PID_3" 2>/dev/null || true
fleet_start_agent 3 2>>"$T/agents.log"
wait_for 20 agent_up 3 || fail "agent 3 did not come back"
diagnose "link_downshift" "node003 at 1000 Mb/s, its peers at 10000"
check "node003:nt0" [ "$(finding link_downshift "['ports']")" = "['node003:nt0']" ]
echo 10000 >"$T/sys3/class/net/nt0/speed"
diagnose "" "speed back"

step "an unreachable node: exit 3, the rest judged"
python3 - "$T/inventory.json" "$T/inventory-dead.json" "$(free_port)" <<'EOF'
import json, sys
inv = json.load(open(sys.argv[1]))
inv["nodes"].append({"name": "node009", "url": "https://127.0.0.1:%s" % sys.argv[3], "labels": {"role": "gpu"}})
json.dump(inv, open(sys.argv[2], "w"))
EOF
rc=0; ip netns exec "$HUB" "$CTL" --inventory "$T/inventory-dead.json" --db "$T/ctl.db" --timeout 3 doctor --window 0.5 \
        >"$T/d.txt" 2>&1 || rc=$?
check "exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "the note names node009" grep -q "^note: node009: not collected" "$T/d.txt"
expect_rc 2 "--label nobody has" ctl doctor --label role=nobody
expect_rc 2 "a bad --window" ctl doctor --window x

step "--probe: point-to-point bandwidth between the hosts, one pair at a time, then all at once"
rc=0; ctl --output json doctor --window 0.5 --probe --label role=gpu >"$T/p.json" 2>"$T/p.err" || rc=$?
check "doctor --probe exit 0 (got $rc)" [ "$rc" -eq 0 ]
jq_py "$T/p.json" "'\n'.join('%s -> %s: %s' % (p['from'], p['to'], p['gbps'] or p['error']) for p in d['probes']['p2p'])"
check "6 ordered pairs measured" [ "$(jq_py "$T/p.json" "len([p for p in d['probes']['p2p'] if p['ok'] and p['gbps'] > 0])")" = 6 ]
jq_py "$T/p.json" "'\n'.join('fabric %s -> %s: %s' % (p['from'], p['to'], p['gbps'] or p.get('error')) for p in d['probes']['fabric'])"
check "the same 6 flows at once (the fabric probe's all-to-all)" \
        [ "$(jq_py "$T/p.json" "len([p for p in d['probes']['fabric'] if p['ok'] and p['gbps'] > 0])")" = 6 ]

step "the agent's own --probe, and the API refuses a bad window"
bg ip netns exec "$HUB" "$AGENT" probe-server --listen 10.88.255.1:18515 --allow 10.88.0.0/16
wait_for 10 ip netns exec "$HUB" bash -c ": < /dev/tcp/10.88.255.1/18515" || fail "the hub's probe-server did not start"
ip netns exec "$(node_ns 1)" "$AGENT" --config "$T/n1/agent.json" --output json doctor --window 0.2 \
        --probe --peer 10.88.255.1:18515 >"$T/ap.json" || true
check "node001 measured the hub ($(jq_py "$T/ap.json" "d['probes']['p2p'][0]['gbps']") Gb/s)" \
        [ "$(jq_py "$T/ap.json" "d['probes']['p2p'][0]['ok'] and d['probes']['p2p'][0]['to']")" = 10.88.255.1:18515 ]
code=$(ip netns exec "$HUB" curl -s -o "$T/body" -w '%{http_code}' --max-time 20 --cacert "$T/pki/ca.crt" \
        --cert "$T/pki/controller.crt" --key "$T/pki/controller.key" "https://$(node_ip 1):$FLEET_PORT/v1/doctor?window_s=0")
check "GET /v1/doctor?window_s=0 is 400 (got $code)" [ "$code" = 400 ]
check "naming window_s" grep -q '"path":"window_s"' "$T/body"

step "--propose: the fix for leaf1, selected by the fabric node's labels; apply; clean"
nv set interface swp1 link mtu 1500
nv set qos congestion-control default-global traffic-class 0 min-threshold 15000
nv_apply
diagnose "ecn_threshold_low mtu_mismatch" "two faults" --propose "$T/fix.json"
cat "$T/fix.json"
expect_rc 0 "the proposal validates" "$AGENT" validate "$T/fix.json"
check "selector: node004's labels" [ "$(jq_py "$T/fix.json" "d['selector']")" = "{'role': 'fabric', 'site': 'lab'}" ]
check "proposal file named in the report" [ "$(jq_py "$T/d.json" "d['proposal_file']")" = "$T/fix.json" ]
expect_rc 0 "nettunectl apply of the proposal" ctl apply "$T/fix.json" --canary 1 --wave-size 100% --confirm-timeout 60
diagnose "" "after the proposal"
check "leaf1 swp1 at 9216, queue 0 from 150000 bytes" [ "$("$SIM" --dialect nvue --state "$LEAF/state.json" --dump | \
        python3 -c 'import json,sys; a=json.load(sys.stdin)["nvue"]["applied"]; print(a["interface"]["swp1"]["link"]["mtu"], a["qos"]["congestion-control"]["default-global"]["traffic-class"]["0"]["min-threshold"])')" = "9216 150000" ]

step "leaf1's ports over two agents: node003 manages swp2, node004 swp1 and swp3; every host meets its port"
bg ip netns exec "$(node_ns 3)" /usr/sbin/sshd -D -e -f "$LEAF/sshd_config"     # leaf1 reached from node003 too
wait_for 10 ip netns exec "$(node_ns 3)" bash -c ": < /dev/tcp/127.0.0.1/$SSHD_PORT" || fail "leaf1's sshd in node003 did not start"
python3 - "$T" <<'EOF2'
import json, sys
t = sys.argv[1]
c4 = json.load(open(t + "/n4/agent.json"))
c3 = json.load(open(t + "/n3/agent.json"))
c3["switches"] = [dict(c4["switches"][0], ports=["swp2"])]
c4["switches"][0]["ports"] = ["swp1", "swp3"]
json.dump(c3, open(t + "/n3/agent.json", "w"), indent=1)
json.dump(c4, open(t + "/n4/agent.json", "w"), indent=1)
EOF2
for i in 3 4; do
        eval "pid=\$AGENT_PID_$i"
        kill "$pid" && wait "$pid" 2>/dev/null || true
        fleet_start_agent "$i" 2>>"$T/agents.log"
done
for i in 3 4; do wait_for 20 agent_up "$i" || fail "agent $i did not come back"; done
# node003 reports leaf1 first: judged on its copy alone, node001's and node003's paths were unknown
diagnose "" "leaf1 reported by node003 (swp2) and by node004 (swp1, swp3)"
check "no path unknown: the union of both agents' ports" [ "$(jq_py "$T/d.json" "d['notes']")" = "[]" ]
nv set interface swp2 link mtu 1500 && nv_apply
diagnose "mtu_mismatch" "leaf1 swp2 at 1500, read by node003"
check "nodes node002 and node003" [ "$(finding mtu_mismatch "['nodes']")" = "['node002', 'node003']" ]
nv set interface swp1 link mtu 1500 && nv_apply
diagnose "drift mtu_mismatch" "and swp1 at 1500, read by node004 (whose committed proposal set 9216: drift)"
check "two findings, each with the agent that reads the port" [ "$(jq_py "$T/d.json" \
        "sorted((f['ports'][1], f['nodes'][1]) for f in d['findings'] if f['code'] == 'mtu_mismatch')")" = \
        "[('leaf1:swp1', 'node004'), ('leaf1:swp2', 'node003')]" ]
nv set interface swp1 link mtu 9216 && nv set interface swp2 link mtu 9216 && nv_apply
diagnose "" "MTUs back"

step "a switch inconsistent with itself, hosts without DCB: DSCP 26 on priority 3, PFC on 4, ECN on 3 and 4"
# node003's nt0 is a RoCE port (an RDMA device behind it, in its agent's sysfs_root); the
# other hosts' veths carry no RDMA and are no endpoints of the lossless class
mkdir -p "$T/sys3/class/net/nt0/device/infiniband/rxe0" "$T/sys3/class/infiniband/rxe0/ports/1"
nv set qos mapping default-global trust l3
nv set qos mapping default-global dscp 26 switch-priority 3
nv set qos pfc default-global switch-priority 4
for tc in 3 4; do
        nv set qos congestion-control default-global traffic-class $tc ecn enable
        nv set qos congestion-control default-global traffic-class $tc min-threshold 150000
        nv set qos congestion-control default-global traffic-class $tc max-threshold 1500000
        nv set qos congestion-control default-global traffic-class $tc probability 100
done
nv_apply
# (PFC on 4 without NVUE's PFC watchdog on the ports: watchdog_missing too)
diagnose "pfc_priority_mismatch roce_priority_lossy watchdog_missing" "leaf1 against itself and along the RoCE host's path"
check "the switch against itself, every port of it, from both agents" [ "$(jq_py "$T/d.json" \
        "[[sorted(f['ports']), sorted(f['nodes'])] for f in d['findings'] if f['code'] == 'roce_priority_lossy'][0]")" = \
        "[['leaf1:swp1', 'leaf1:swp2', 'leaf1:swp3'], ['node003', 'node004']]" ]
check "it names DSCP 26 on priority 3 and PFC on 4" grep -q "maps to priority 3, which has no PFC (pfc.priorities (live: \[4\]))" \
        <(finding roce_priority_lossy "['summary']")
check "watchdog_missing: one finding for leaf1's three ports, from both agents" [ "$(jq_py "$T/d.json" \
        "[[sorted(f['ports']), sorted(f['nodes'])] for f in d['findings'] if f['code'] == 'watchdog_missing']")" = \
        "[[['leaf1:swp1', 'leaf1:swp2', 'leaf1:swp3'], ['node003', 'node004']]]" ]
check "the RoCE host meets PFC it cannot honour; the hosts without RDMA are not judged" [ "$(jq_py "$T/d.json" \
        "sorted(f['ports'][0] for f in d['findings'] if f['code'] == 'pfc_priority_mismatch')")" = \
        "['node003:nt0']" ]
check "no DCB on the host, said" grep -q "has no DCB of its own" <(finding pfc_priority_mismatch "['summary']")
rm -rf "$T/sys3/class/net/nt0/device" "$T/sys3/class/infiniband"
nv unset qos pfc default-global switch-priority 4
nv set qos mapping default-global trust l2
for tc in 3 4; do nv set qos congestion-control default-global traffic-class $tc ecn disable; done
nv_apply
diagnose "" "leaf1 back to the factory class"
