#!/usr/bin/env bash
# The fleet pre-flight across the cable, on real agents: node001 is a ConnectX host (the
# mlx5 model behind its agent's netlink seam) cabled ("links") to port swp1 of leaf1, a
# simulated NVUE switch that node002's agent manages. nettunectl plan and apply judge
# doctor's path rules on the merged intent of both ends before anything changes: the
# host's lossless class against a factory switch (an end with no intent of its own) is a
# note; the switch's matching policy goes out; a switch policy that moves RoCE to priority
# 4 while the host uses 3 is refused by plan and by apply (exit 2) naming both ends and
# the rule, with the switch and the host byte-for-byte as they were, and accepted when
# it waives those rules; a path inconsistent already (a port MTU set by hand) is a note.
# Then doctor and drift agree, state's columns, state --port, headroom against the
# port's live buffer.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
. "$NETTUNE_TOP/tests/lib/nicmodel.sh"
fleet_require
require_sshd
require_cmd python3

HOST_IF=ens1f0np0
N=2
fleet_certs "$N"
fleet_hub
for ((i = 1; i <= N; i++)); do fleet_node "$i"; done
fleet_inventory "$N"
fleet_leaf1 2 swp1,swp2
nicmodel_start "mlx5:$HOST_IF:4"
python3 - "$T/n1/agent.json" "$T" "$HOST_IF" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c.update({"sysfs_root": sys.argv[2] + "/sys", "links": {sys.argv[3]: "leaf1:swp1"}})
json.dump(c, open(sys.argv[1], "w"), indent=1)
EOF
bg env NETTUNE_NETLINK_SOCKET="$NM_SOCK" NETTUNE_ETHTOOL_SOCKET="$NM_ETHTOOL" ip netns exec "$(node_ns 1)" \
        "$AGENT" serve --config "$T/n1/agent.json" 2>>"$T/agents.log"
AGENT_PID_1=$BG_PID
fleet_start_agent 2 2>>"$T/agents.log"
for ((i = 1; i <= N; i++)); do wait_for 20 agent_up "$i" || fail "agent $i did not come up (see $T/agents.log)"; done

# policies: the host's lossless class (the shipped profile), the switch's to match, one that moves RoCE to 4
nm_profile roce-lossless.json "$T/host.json" "$HOST_IF" keep-host-ecn   # host_ecn optional: this NIC has no tree for it
python3 - "$T" <<'EOF'
import json, sys
t = sys.argv[1]
h = json.load(open(t + "/host.json"))
h["spec"].pop("mtu")
h["spec"]["pfc"]["nic_stall_timeout_ms"] = "auto"         # the NIC's own storm guard: no watchdog_missing
h["verify"]["dscp"] = 26                # the RoCE DSCP (the profile's roce_tos 106 >> 2; the model has no rdma_cm)
json.dump(h, open(t + "/host.json", "w"), indent=1)
def switch(name, prio, allow=None):
    p = {"apiVersion": "nettune/v1", "kind": "Policy", "metadata": {"name": name}, "selector": {"role": "fabric"},
         "targets": {"switches": ["leaf1"]},
         "spec": {"trust": "dscp", "dscp_to_priority": {"26": prio, "48": 6}, "pfc": {"priorities": [prio], "watchdog": {"detection_ms": 200, "action": "drop"}},
                  "ecn": {"queues": [prio], "min_threshold_bytes": 150000, "max_threshold_bytes": 1500000,
                          "mark_probability_pct": 100}},
         "verify": {"probe": "none"}}
    if allow:
        p["checks"] = {"allow": allow}
    if name != "leaf-roce3":            # a layer over the profile: it means to win over its fields
        p["metadata"]["overrides"] = ["leaf-roce3"]
    json.dump(p, open("%s/%s.json" % (t, name), "w"), indent=1)
switch("leaf-roce3", 3)
switch("leaf-roce4", 4)
switch("leaf-roce4-waived", 4, ["dscp_map_mismatch", "pfc_priority_mismatch"])
EOF
leaf_state() {  # its configuration, applied and pending (not the log of the commands it was asked)
        "$SIM" --dialect nvue --state "$LEAF/state.json" --dump |
                python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["nvue"], indent=1, sort_keys=True))'
}
snap() { leaf_state >"$T/leaf.$1"; nm_state >"$T/host.$1"; }
unchanged() {   # unchanged WHAT: leaf1 and the host's NIC as snap before left them
        leaf_state >"$T/leaf.now"
        nm_state >"$T/host.now"
        cmp -s "$T/leaf.before" "$T/leaf.now" || { diff -u "$T/leaf.before" "$T/leaf.now" | head -20; fail "$1: leaf1 changed"; }
        cmp -s "$T/host.before" "$T/host.now" || { diff -u "$T/host.before" "$T/host.now" | head -20; fail "$1: the host changed"; }
        echo "ok: $1: leaf1 and node001's NIC byte-for-byte as they were"
}

step "the host's lossless class against a factory switch (trust pcp, no PFC, nothing committed): noted"
snap before
rc=0; ctl plan "$T/host.json" >"$T/p.out" 2>"$T/p.err" || rc=$?
cat "$T/p.out" "$T/p.err"
check "plan: exit 0, the switch declares nothing of its own (got $rc)" [ "$rc" -eq 0 ]
check "the note names both ends and the rule" grep -q "across the cable: node001:$HOST_IF <-> leaf1:swp1 becomes inconsistent (trust_mismatch), not refused: an end declares no intent" "$T/p.out"
unchanged "plan"
expect_rc 0 "apply of the host policy" ctl apply "$T/host.json" --yes --canary 1 --wave-size 100%

step "the switch's matching policy: the path consistent again, accepted"
expect_rc 0 "apply leaf-roce3" ctl apply "$T/leaf-roce3.json" --yes --canary 1 --wave-size 100%

step "a switch policy that moves RoCE to priority 4 while the host uses 3: refused, nothing changed"
snap before
rc=0; ctl plan "$T/leaf-roce4.json" >"$T/p.out" 2>"$T/p.err" || rc=$?
cat "$T/p.out" "$T/p.err"
check "plan: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "dscp_map_mismatch, both ends named" grep -q "across the cable: node001:$HOST_IF <-> leaf1:swp1: dscp_map_mismatch" "$T/p.err"
check "pfc_priority_mismatch, both ends named" grep -q "node001:$HOST_IF <-> leaf1:swp1: pfc_priority_mismatch" "$T/p.err"
rc=0; ctl --output json plan "$T/leaf-roce4.json" >"$T/p.json" 2>/dev/null || rc=$?
check "plan --output json: exit 2, the refusals with both ends" [ "$rc" -eq 2 ] && [ "$(jq_py "$T/p.json" \
        "sorted((x['code'], x['ends']) for x in d['cable_refused'])")" = "[('dscp_map_mismatch', ['node001:$HOST_IF', \
'leaf1:swp1']), ('pfc_priority_mismatch', ['node001:$HOST_IF', 'leaf1:swp1'])]" ]
rc=0; ctl apply "$T/leaf-roce4.json" --yes --canary 1 --wave-size 100% >"$T/a.out" 2>"$T/a.err" || rc=$?
cat "$T/a.err"
check "apply: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "apply: across the cable, no node changed" grep -q "leaf-roce4.json: the change breaks 2 rules across the cable.*no node was changed" "$T/a.err"
unchanged "the refused switch policy"
expect_rc 0 "waiving both rules, plan accepts it" ctl plan "$T/leaf-roce4-waived.json"
unchanged "the waived plan"

step "a path inconsistent already (leaf1 swp1's MTU lowered by hand): a plan note, not a refusal"
"$SIM" --dialect nvue --state "$LEAF/state.json" -- nv set interface swp1 link mtu 1000 >/dev/null
"$SIM" --dialect nvue --state "$LEAF/state.json" -- nv config apply -y >/dev/null
rc=0; ctl plan "$T/leaf-roce3.json" >"$T/p.out" 2>"$T/p.err" || rc=$?
cat "$T/p.out"
check "plan: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "the note names both ends and the rule" grep -q "across the cable: node001:$HOST_IF <-> leaf1:swp1 is inconsistent already (mtu_mismatch)" "$T/p.out"
"$SIM" --dialect nvue --state "$LEAF/state.json" -- nv set interface swp1 link mtu 9216 >/dev/null
"$SIM" --dialect nvue --state "$LEAF/state.json" -- nv config apply -y >/dev/null

step "doctor and drift agree: the optional host_ecn this NIC cannot serve is no drift"
rc=0; ctl --output json drift >"$T/dr.json" || rc=$?
check "drift: exit 0, in sync (got $rc)" [ "$rc" -eq 0 ]
rc=0; ctl --output json doctor --window 0.5 >"$T/d.json" 2>"$T/d.err" || rc=$?
check "doctor: no drift finding" [ "$(jq_py "$T/d.json" "[f['code'] for f in d['findings'] if f['code'] == 'drift']")" = "[]" ]
check "doctor: exit 0 on the healthy fabric (got $rc: $(jq_py "$T/d.json" "[(f['code'], f['ports']) for f in d['findings']]"))" \
        [ "$rc" -eq 0 ]

step "a hand change on leaf1: doctor's drift is drift's, field for field, with the owner"
"$SIM" --dialect nvue --state "$LEAF/state.json" -- nv set qos mapping default-global dscp 10 switch-priority 5 >/dev/null
"$SIM" --dialect nvue --state "$LEAF/state.json" -- nv config apply -y >/dev/null
rc=0; ctl --output json drift >"$T/dr.json" || rc=$?
check "drift: exit 1 (got $rc)" [ "$rc" -eq 1 ]
rc=0; ctl --output json doctor --window 0.5 >"$T/d.json" 2>"$T/d.err" || rc=$?
check "doctor: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "every difference drift reports is doctor's evidence, whole, with its owner" python3 - "$T/dr.json" "$T/d.json" <<'EOF2'
import json, sys
dr = json.load(open(sys.argv[1])); doc = json.load(open(sys.argv[2]))
want = {}
for n in dr["nodes"]:
    for c in (n.get("report") or {}).get("changes", []):
        owner = " by policy '%s'" % c["owner"]["policy"] if c.get("owner") else ""
        want[c["key"]] = "%s (committed %s%s)" % (c["from"], c["to"], owner)
f = [f for f in doc["findings"] if f["code"] == "drift"]
assert len(f) == 1, f
ev = {k: v for k, v in f[0]["evidence"].items() if k != "differences"}
assert want and ev == want, (ev, want)
assert f[0]["evidence"]["differences"] == len(want), f[0]["evidence"]
assert "leaf-roce3" in list(want.values())[0], want
EOF2

step "state: every knob a column, ECN in KB/MB, the drift marker on the drifted queue, policy@revision"
"$SIM" --dialect nvue --state "$LEAF/state.json" -- nv set qos congestion-control default-global traffic-class 3 \
        min-threshold 120000 >/dev/null
"$SIM" --dialect nvue --state "$LEAF/state.json" -- nv config apply -y >/dev/null
rc=0; ctl state --wide >"$T/s.txt" 2>&1 || rc=$?
cat "$T/s.txt"
check "exit 1: drift (got $rc)" [ "$rc" -eq 1 ]
check "the columns (--wide: the buffers too; a knob no row has is left out)" \
        grep -Eq "^NODE +TARGET +MTU +TRUST +DSCP->PRIO +PFC +CABLE +WATCHDOG +ETS +ECN +BUFFERS +POLICY$" "$T/s.txt"
check "ECN in KB/MB with its queue, the '*' on queue 3 alone" \
        grep -Eq "^node002 +leaf1:swp1 .*q3 120KB-1\.5MB 100%\*(,|  )" "$T/s.txt"
check "the drifted DSCP map marked" grep -Eq "^node002 +leaf1:swp1 .*10:5 .*\* " "$T/s.txt"
check "the switch's watchdog" grep -Eq "^node002 +leaf1:swp1 .*on 200/[0-9]+ms drop" "$T/s.txt"
check "the NIC's stall guard" grep -Eq "^node001 +$HOST_IF .*stall auto|^node001 +$HOST_IF .*stall [0-9]+ms" "$T/s.txt"
check "policy@revision of each node" grep -Eq "^node002 +leaf1:swp1 .*leaf-roce3@[0-9]+$" "$T/s.txt"
rc=0; ctl state --columns mtu,ecn,policy >"$T/s2.txt" 2>&1 || rc=$?
check "--columns: those, in the table's order" grep -Eq "^NODE +TARGET +MTU +ECN +POLICY$" "$T/s2.txt"
expect_rc 2 "--columns with an unknown one" ctl state --columns mtu,colour
rc=0; ctl --output json state >"$T/s.json" 2>&1 || rc=$?
check "--output json: the revision, the drifted keys of the row" [ "$(jq_py "$T/s.json" \
        "[(n['revision'] > 0, sorted(n['targets'][0]['drifted_keys'])) for n in d['nodes'] if n['name'] == 'node002']")" = \
        "[(True, ['dscp_to_priority.10', 'ecn.queue3.min_threshold_bytes'])]" ]

step "nettune-agent state --port: the port as mlnx_qos -i shows it"
NETTUNE_NETLINK_SOCKET="$NM_SOCK" NETTUNE_ETHTOOL_SOCKET="$NM_ETHTOOL" ip netns exec "$(node_ns 1)" "$AGENT" \
        --config "$T/n1/agent.json" state --port "$HOST_IF" >"$T/port.txt"
cat "$T/port.txt"
check "trust" grep -qx "Priority trust state: dscp" "$T/port.txt"
check "the DSCP map by priority" grep -qx "        prio:3 dscp:26," "$T/port.txt"
check "the PFC table" grep -Eqx " +enabled +0 +0 +0 +1 +0 +0 +0 +0" "$T/port.txt"
check "each traffic class with its share" grep -qx "tc: 3 tsa: ets, bw: 50%" "$T/port.txt"
expect_rc 2 "--port takes one name, no glob" ip netns exec "$(node_ns 1)" "$AGENT" --config "$T/n1/agent.json" \
        state --port 'ens*'

step "headroom against the port's live buffer: node001's NIC, priority 3's buffer"
rc=0; ctl headroom --asic connectx --speed-gbps 100 --cable-m 7 --mtu 1500 --node node001 --port "$HOST_IF" \
        >"$T/h.txt" 2>&1 || rc=$?
cat "$T/h.txt"
check "ok: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "the size against buffer 0's, as the NIC reports it" \
        grep -qx "port $HOST_IF of node001: priority 3 needs 45.1 KB, buffer 0 has 130.9 KB: ok" "$T/h.txt"
rc=0; ctl --output json headroom --asic connectx --speed-gbps 200 --cable-m 500 --mtu 9000 --max-mtu 9978 \
        --node node001 --port "$HOST_IF" >"$T/h.json" 2>&1 || rc=$?
check "200G over 500 m does not fit: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "--output json: port_buffer with both sizes" [ "$(jq_py "$T/h.json" \
        "(d['port_buffer']['buffer_bytes'], d['port_buffer']['needs_bytes'], d['port_buffer']['ok'])")" = \
        "(130944, 310912, False)" ]
expect_rc 2 "--node without --port" ctl headroom --asic connectx --speed-gbps 100 --cable-m 7 --mtu 1500 --node node001
