# The stories of the demo: source after lib.sh and lab.sh.
# Each story narrates, runs real commands against the lab, and checks the results
# on the kernel (ip link), the switch simulator's own configuration, the agents'
# journals and the controller's SQLite record — never on the printed text alone.

GPU_POLICY=$POLICIES/lab-gpu-lossless.json
LEAF_POLICY=$POLICIES/lab-leaf-lossless.json
ECN_POLICY=$POLICIES/lab-leaf-lossless-ecn.json
BAD_POLICY=$POLICIES/lab-gpu-bad-mtu.json
WAVES=(--canary 1 --wave-size 50%)

agent_in() { local n=$1; shift; in_ns "$n" "$AGENT" --yes --config "$DEMO_DIR/$n/agent.json" "$@"; }
# ctl_json FILE ARGS...: nettunectl --output json into FILE, its exit status returned.
ctl_json() { local f=$1; shift; ctl --output json "$@" >"$f" 2>>"$DEMO_DIR/ctl.log"; }
node_field() { json "$1" "[n['$3'] for n in d['nodes'] if n['name'] == '$2'][0]"; }
# The switch's own view, straight from the simulator: nv show qos -o json.
leaf_qos() { sim -- nv show qos -o json >"$DEMO_DIR/qos.json" && json "$DEMO_DIR/qos.json" "$1"; }
leaf_mtus() {
        sim -- nv show interface -o json >"$DEMO_DIR/ifs.json" &&
                json "$DEMO_DIR/ifs.json" "sorted({v['link']['mtu'] for v in d.values()})"
}
drift_metric() { agent_api "$1" /metrics | grep '^nettune_drift_fields{field="mtu"}'; }
mtu_is() { [ "$(mtu_of "$1")" = "$2" ]; }
all_mtu() { local n; for n in "${GPUS[@]}"; do [ "$(mtu_of "$n")" = "$1" ] || return 1; done; }
tx_count() { agent_in "$1" --output json history | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
leaf_own() {    # the simulated switch's own configuration, compact
        sim -- nv show qos -o json >"$DEMO_DIR/qos.json" && leaf_mtus >"$DEMO_DIR/mtus" &&
                python3 - "$DEMO_DIR/qos.json" "$(cat "$DEMO_DIR/mtus")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d.get("mapping", {}).get("default-global", {})
print("trust %s; dscp map %s" % (m.get("trust"),
      ", ".join("%s->%s" % (k, v.get("switch-priority")) for k, v in sorted(m.get("dscp", {}).items())) or "none"))
print("pfc switch-priority %s" % sorted(d.get("pfc", {}).get("default-global", {}).get("switch-priority", {})))
w = d.get("pfc-watchdog", {})
if w:
    print("pfc-watchdog: polling-interval %s, robustness %s" % (w.get("polling-interval", "default"), w.get("robustness", "default")))
for tc, e in sorted(d.get("congestion-control", {}).get("default-global", {}).get("traffic-class", {}).items()):
    print("traffic-class %s: ecn %s, min-threshold %s, max-threshold %s, probability %s" % (tc, e.get("ecn"),
          e.get("min-threshold"), e.get("max-threshold"), e.get("probability")))
print("port mtu %s" % sys.argv[2])
PY
}
leaf_ecn() {    # the agent's read-back of leaf1 over ssh, compact
        agent_api fabric1 /v1/state | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except ValueError:
    sys.exit("no read-back: the agent did not answer with JSON")
for t in d["targets"]:
    ports = t["state"].get("ports", {})
    s = next(iter(ports.values()), {})          # every port alike in the demo: show the first, MTUs of all
    print("%s (policy %s): trust %s, pfc %s, dscp %s, ports mtu %s" % (t["name"], d["policy"], s.get("trust"),
          s.get("pfc", {}).get("priorities"), s.get("dscp_to_priority"), sorted({p.get("mtu") for p in ports.values()})))
    for q, e in sorted(s.get("ecn", {}).items()):
        print("  ecn %s: min %s B, max %s B, probability %s%%" % (q, e.get("min_threshold_bytes"),
              e.get("max_threshold_bytes"), e.get("mark_probability_pct")))'
}

story_1() {
        local rc
        story_begin 1 "declare the RoCE lossless profile fleet-wide"
        say "Two declarations make up the profile in this lab: $GPU_POLICY for the GPU nodes (selector role=gpu) and $LEAF_POLICY for the leaf switch (selector role=fabric)." \
            "Be clear about the lab: veth has no DCB, so the hosts here can only take the MTU. DSCP trust, the DSCP map, PFC, ECN and the PFC watchdog are carried by the switch. The agent says so itself instead of pretending:"
        show "nettune-agent state --interfaces eth0            # on gpu1" agent_in gpu1 state --interfaces eth0
        rc=0
        show "nettune-agent validate $GPU_POLICY $LEAF_POLICY" \
                "$AGENT" validate "$GPU_POLICY" "$LEAF_POLICY" || rc=$?
        expect "both policies are valid (exit $rc)" [ "$rc" -eq 0 ]
        say "nettunectl runs in the hub namespace with --inventory $DEMO_DIR/inventory.json and --db $DEMO_DIR/nettune.db. First the plan: every agent diffs its live state against the policy; nothing changes."
        show "nettunectl plan $GPU_POLICY" ctl plan "$GPU_POLICY"
        say "Now the rollout: a canary wave of 1 node, then waves of 50%. Each node's agent measures TCP bandwidth to the probe-server before and after the change and rolls back by itself if it drops by more than 75% (veth rates on two busy CPUs move by more than half between two measurements; production would gate at 15-20%). Each wave stays pending until the controller confirms it, within --confirm-timeout 30 s. --parallel 1: one probe at a time, so the nodes do not share the probe-server's CPU."
        rc=0
        show_out "nettunectl --parallel 1 apply $GPU_POLICY --canary 1 --wave-size 50% --confirm-timeout 30" \
                ctl --parallel 1 apply "$GPU_POLICY" "${WAVES[@]}" --confirm-timeout 30 || rc=$?
        expect "rollout exit 0 (got $rc)" [ "$rc" -eq 0 ]
        ctl_json "$DEMO_DIR/s1.json" status
        expect "controller: rollout completed, 4 nodes committed" \
                [ "$(json "$DEMO_DIR/s1.json" "d['state'], sum(n['state'] == 'committed' for n in d['nodes'])")" = "('completed', 4)" ]
        expect "canary first: 3 waves (1 + 2 + 1)" [ "$(json "$DEMO_DIR/s1.json" 'len(d["waves"])')" = 3 ]
        expect "kernel: eth0 has MTU 9000 on gpu1..gpu4" all_mtu 9000
        say "The switch: fabric1's agent drives leaf1 over SSH (host key pinned in known_hosts) with NVUE commands, reads the result back and commits it only then."
        show "nettunectl plan $LEAF_POLICY" ctl plan "$LEAF_POLICY"
        rc=0
        show_out "nettunectl apply $LEAF_POLICY --canary 1 --wave-size 50% --confirm-timeout 30" \
                ctl apply "$LEAF_POLICY" "${WAVES[@]}" --confirm-timeout 30 || rc=$?
        expect "rollout exit 0 (got $rc)" [ "$rc" -eq 0 ]
        show "nv show qos -o json; nv show interface -o json   # on leaf1, summarised" leaf_own
        expect "leaf1: trust dscp (NVUE 'l3')" [ "$(leaf_qos 'd["mapping"]["default-global"]["trust"]')" = l3 ]
        expect "leaf1: DSCP 26 -> priority 3, 48 -> 6" \
                [ "$(leaf_qos '[d["mapping"]["default-global"]["dscp"][k]["switch-priority"] for k in ("26","48")]')" = "[3, 6]" ]
        expect "leaf1: PFC on priority 3" [ "$(leaf_qos 'list(d["pfc"]["default-global"]["switch-priority"])')" = "['3']" ]
        expect "leaf1: ECN on queue 3" [ "$(leaf_qos 'd["congestion-control"]["default-global"]["traffic-class"]["3"]["ecn"]')" = enable ]
        expect "leaf1: the PFC watchdog on every port, 200 ms = robustness 2 at NVUE's 100 ms polling interval" \
                [ "$(sim -- nv show --applied interface -o json >"$DEMO_DIR/ifs.json" && json "$DEMO_DIR/ifs.json" \
                    "sorted({v.get('qos', {}).get('pfc-watchdog', {}).get('state') for v in d.values()})")$(leaf_qos 'd["pfc-watchdog"]["robustness"]')" = "['enable']2" ]
        expect "leaf1: MTU 9216 on every port" [ "$(leaf_mtus)" = "[9216]" ]
        story_end 1
}

story_2() {
        local rc
        story_begin 2 "raise the switch ECN thresholds fleet-wide"
        say "The incident from the field: training runs at 60% of the expected throughput. The checklist (docs/operations.md): link rate fine; point-to-point bandwidth fine; pause counters high; root cause: the ECN thresholds are too low, so the switch marks congestion too early and the senders slow down. Step 2 of the checklist, here on gpu1:"
        show "nettune-agent probe --peer $PROBE_PEER --mode tcp --duration-ms 500   # on gpu1" \
                agent_in gpu1 probe --peer "$PROBE_PEER" --mode tcp --duration-ms 500 --runs 3
        say "(The lab cannot make real RoCE congestion or pause frames; the thresholds themselves are real switch configuration.) What leaf1 has now, read back by fabric1's agent over SSH:"
        show "curl https://198.18.0.21:7440/v1/state (mTLS)    # fabric1's read-back of leaf1" leaf_ecn
        say "The fix is a small policy of its own: $ECN_POLICY declares only the thresholds, raised from 15 kB / 150 kB to 150 kB / 1.5 MB, as a layer over the leaf profile (metadata.overrides: lab-leaf-lossless, whose ECN it replaces; the profile's trust, PFC and MTU stay its own). The plan shows that only those two values change, on each of leaf1's ports:"
        show "nettunectl plan $ECN_POLICY" ctl plan "$ECN_POLICY"
        ctl_json "$DEMO_DIR/p2.json" plan "$ECN_POLICY"
        expect "plan: only ecn changes, 2 values on every port of leaf1, on fabric1" \
                [ "$(json "$DEMO_DIR/p2.json" 'd["summary"]["fields"], [(n["name"], sorted({c["key"].split(".", 2)[2] for c in n["changes"]}), len(n["changes"])) for n in d["nodes"]]')" = "({'ecn': 1}, [('fabric1', ['ecn.queue3.max_threshold_bytes', 'ecn.queue3.min_threshold_bytes'], $((2 * $(tr "," "\n" <<<"$LEAF_PORTS" | wc -l))))])" ]
        rc=0
        show_out "nettunectl apply $ECN_POLICY --canary 1 --wave-size 50% --confirm-timeout 30" \
                ctl apply "$ECN_POLICY" "${WAVES[@]}" --confirm-timeout 30 || rc=$?
        expect "rollout exit 0 (got $rc)" [ "$rc" -eq 0 ]
        show "curl https://198.18.0.21:7440/v1/state (mTLS)    # read-back after the change" leaf_ecn
        show "nv show qos -o json; nv show interface -o json   # on leaf1, summarised" leaf_own
        expect "switch: queue 3 marks from 150000 to 1500000 bytes" \
                [ "$(leaf_qos 'tuple(d["congestion-control"]["default-global"]["traffic-class"]["3"][k] for k in ("min-threshold","max-threshold"))')" = "(150000, 1500000)" ]
        expect "switch: trust, PFC and MTU untouched" \
                [ "$(leaf_qos 'd["mapping"]["default-global"]["trust"], list(d["pfc"]["default-global"]["switch-priority"])')$(leaf_mtus)" = "('l3', ['3'])[9216]" ]
        story_end 2
}

story_3() {
        local rc
        story_begin 3 "a hand edit drifts, nettunectl finds it, a re-apply heals it"
        say "Someone logs into gpu3 and sets the MTU back to 1500 by hand."
        show "ip link set eth0 mtu 1500                        # on gpu3" ip -n "$(ns_of gpu3)" link set eth0 mtu 1500
        rc=0
        show "nettunectl drift" ctl drift || rc=$?
        expect "drift found: exit 1 (got $rc)" [ "$rc" -eq 1 ]
        ctl_json "$DEMO_DIR/d3.json" drift
        expect "exactly gpu3 drifted" \
                [ "$(json "$DEMO_DIR/d3.json" '",".join(n["name"] for n in d["nodes"] if n["drifted"])')" = gpu3 ]
        say "gpu3's agent also exports it for monitoring (the drift scan refreshed the gauge):"
        show "curl https://198.18.0.13:7440/metrics | grep drift_fields.*mtu" drift_metric gpu3
        expect "metrics: nettune_drift_fields{field=\"mtu\"} 1 on gpu3" [ "$(drift_metric gpu3)" = 'nettune_drift_fields{field="mtu"} 1' ]
        say "Heal it by rolling the same declaration out again: every agent diffs, only gpu3 has something to do (and measures before and after)."
        rc=0
        show_out "nettunectl --parallel 1 apply $GPU_POLICY --canary 1 --wave-size 50% --confirm-timeout 30" \
                ctl --parallel 1 apply "$GPU_POLICY" "${WAVES[@]}" --confirm-timeout 30 || rc=$?
        expect "rollout exit 0 (got $rc)" [ "$rc" -eq 0 ]
        ctl_json "$DEMO_DIR/s3.json" status
        expect "only gpu3 changed" \
                [ "$(json "$DEMO_DIR/s3.json" '",".join(n["name"] for n in d["nodes"] if n["changes"])')" = gpu3 ]
        expect "kernel: gpu3's eth0 is back at MTU 9000" [ "$(mtu_of gpu3)" = 9000 ]
        rc=0
        show "nettunectl drift" ctl drift || rc=$?
        expect "drift clean: exit 0 (got $rc)" [ "$rc" -eq 0 ]
        say "Story 2's ECN change is a layer of its own over story 1's leaf profile ($ECN_POLICY declares only the ECN thresholds and overrides lab-leaf-lossless). Both stay guarded: someone sets leaf1's trust back to PCP by hand, a field of story 1's profile, after the ECN change."
        show "nv set qos mapping default-global trust l2; nv config apply   # on leaf1" \
                sim -- nv set qos mapping default-global trust l2
        sim -- nv config apply -y >/dev/null
        rc=0
        show "nettunectl drift" ctl drift || rc=$?
        expect "drift found on fabric1: exit 1 (got $rc)" [ "$rc" -eq 1 ]
        ctl_json "$DEMO_DIR/d3b.json" drift
        expect "fabric1's trust drifted, owned by story 1's lab-leaf-lossless" \
                [ "$(json "$DEMO_DIR/d3b.json" '[(n["name"], c["key"].split(".", 2)[2], c["owner"]["policy"]) for n in d["nodes"] if n["drifted"] for c in n["report"]["changes"]][:1]')" = "[('fabric1', 'trust', 'lab-leaf-lossless')]" ]
        rc=0
        show_out "nettunectl apply $LEAF_POLICY --canary 1 --wave-size 50% --confirm-timeout 30" \
                ctl apply "$LEAF_POLICY" "${WAVES[@]}" --confirm-timeout 30 || rc=$?
        expect "rollout exit 0 (got $rc)" [ "$rc" -eq 0 ]
        expect "leaf1: trust dscp again, the raised ECN thresholds kept" \
                [ "$(leaf_qos 'd["mapping"]["default-global"]["trust"], tuple(d["congestion-control"]["default-global"]["traffic-class"]["3"][k] for k in ("min-threshold","max-threshold"))')" = "('l3', (150000, 1500000))" ]
        story_end 3
}

story_4_explain() {
        say "A bad change goes out: $BAD_POLICY lowers the MTU of every GPU node to 1280. On a RoCE NIC that costs bandwidth. On veth it barely does (segmentation is done in software), so the lab SIMULATES the cost on one node: gpu2's agent was started with the test hook NETTUNE_TEST_HOOK_AFTER_APPLY, armed now, which adds 'tc qdisc ... tbf rate 200mbit burst 32k latency 10ms' to gpu2's eth0 after the change and before the post-change probe." \
            "Everything else is real: the probes, gpu2's gate and its rollback, the controller's halt, the cancel of gpu3's pending change, the rollback of the canary (--rollback-on-halt all)."
}

story_4_checks() {
        local f=$DEMO_DIR/s4.json
        ctl_json "$f" status
        expect "controller: rollout halted" [ "$(json "$f" 'd["state"]')" = halted ]
        expect "gpu2 failed its gate and rolled back by itself (agent exit 1)" \
                [ "$(node_field "$f" gpu2 state)/$(node_field "$f" gpu2 exit_code)" = failed/1 ]
        expect "gpu2 measured the regression (post < half the baseline)" \
                [ "$(json "$f" "[n['post_gbps'] < n['baseline_gbps'] / 2 for n in d['nodes'] if n['name'] == 'gpu2'][0]")" = True ]
        expect "gpu1 (canary, committed) rolled back by the controller" [ "$(node_field "$f" gpu1 state)" = rolled_back ]
        expect "gpu4 skipped, its agent never asked" \
                [ "$(node_field "$f" gpu4 state)/$(tx_count gpu4)" = "skipped/$GPU4_TX" ]
        expect "kernel: gpu1, gpu2, gpu4 at MTU 9000 again" \
                [ "$(mtu_of gpu1)$(mtu_of gpu2)$(mtu_of gpu4)" = 900090009000 ]
        say "gpu3 was in the failing wave and still pending when it halted: the controller cancelled it (a confirm with not_after_ms 1, before its transaction even started: its agent refuses it, restores at once and journals it as its caller's cancel), instead of leaving it to its 15 s confirm timer."
        expect "gpu3 cancelled by the controller" [ "$(node_field "$f" gpu3 state)" = cancelled ]
        expect "kernel: gpu3's eth0 is back at MTU 9000 when nettunectl returns" [ "$(mtu_of gpu3)" = 9000 ]
        expect "gpu3 agent journal: its change rolled back by the controller's cancel, never committed" \
                [ "$(agent_in gpu3 --output json history | python3 -c 'import json,sys; t=json.load(sys.stdin)[0]; print(t["state"], t["restored_by"])')" = "rolled_back cancelled" ]
}

story_4() {
        local rc
        story_begin 4 "a change that regresses bandwidth is caught and rolled back"
        story_4_explain
        GPU4_TX=$(tx_count gpu4)
        touch "$DEMO_DIR/rig-gpu2"
        rc=0
        show_out "nettunectl --parallel 1 apply $BAD_POLICY --canary 1 --wave-size 50% --confirm-timeout 15 --rollback-on-halt all" \
                ctl --parallel 1 apply "$BAD_POLICY" "${WAVES[@]}" --confirm-timeout 15 --rollback-on-halt all || rc=$?
        rm -f "$DEMO_DIR/rig-gpu2"
        say "The lab removes its rate limit from gpu2 (nettune does not manage qdiscs)."
        tc -n "$(ns_of gpu2)" qdisc del dev eth0 root 2>/dev/null || true
        expect "rollout exit 1: halted and rolled back (got $rc)" [ "$rc" -eq 1 ]
        story_4_checks
        show "nettune-agent history                            # on gpu3" agent_in gpu3 history
        story_end 4
}

# Story 5 runs where this kernel has sch_ets and sch_red (every Debian kernel); here it
# may not, and then the agent's own verdict is shown with the way to run it in the VM lab.
story_5() {
        local out rc=0
        out=$("$DEMO_HOME/ecn-story.sh" --check 2>&1) || rc=$?
        if [ "$rc" -ne 0 ]; then
                STORY5_SKIPPED=${out#ecn-story: }
                banner "story 5: ECN thresholds on a real Linux data plane (not run here)"
                say "$STORY5_SKIPPED"
                return
        fi
        story_begin 5 "ECN thresholds on a real Linux data plane"
        say "A Linux switch forwards two hosts' traffic to a receiver; its port toward the receiver is the bottleneck. nettune-agent runs on the switch in the switch role and serves ECN on its ports through tc ets + red qdiscs (as mlxsw offloads them). Too-low thresholds cost goodput; nettunectl's fleet-wide change restores it; a change back is caught by the gate and rolled back. Every figure is measured in this run."
        rc=0
        SHOW_LINES=400 show "examples/demo/ecn-story.sh" "$DEMO_HOME/ecn-story.sh" || rc=$?
        expect "every check of the story passed (exit $rc)" [ "$rc" -eq 0 ]
        story_end 5
}

# ---- story 6: doctor ----

NIC_POLICY=$POLICIES/lab-gpu-nic-lossless.json
codes_of() { json "$1" '" ".join(sorted({f["code"] for f in d["findings"]}))'; }
leaf_pfc_mtu_ecn() {    # leaf1's own configuration, from the simulator: PFC, swp5's MTU, queue 3's thresholds
        sim --dump | python3 -c '
import json, sys
a = json.load(sys.stdin)["nvue"]["applied"]
q = a["qos"]
tc3 = q.get("congestion-control", {}).get("default-global", {}).get("traffic-class", {}).get("3", {})
print(sorted(q.get("pfc", {}).get("default-global", {}).get("switch-priority", {})), a["interface"]["swp5"]["link"]["mtu"],
      tc3.get("min-threshold"), tc3.get("max-threshold"))'
}

story_6_break() {
        say "Now the fabric goes wrong the way the seed's 60% cluster did, plus two classic mistakes. By hand on leaf1: the lossless priority moves from 3 to 4, gpu5's port swp5 gets MTU 1500, and queue 3 marks ECN from 15 kB (max 150 kB): far below what a 100 Gb/s port needs."
        show "nv unset qos pfc default-global switch-priority 3; nv set ... switch-priority 4   # on leaf1" \
                sim -- nv unset qos pfc default-global switch-priority 3
        sim -- nv set qos pfc default-global switch-priority 4 >/dev/null
        sim -- nv set interface swp5 link mtu 1500 >/dev/null
        sim -- nv set qos congestion-control default-global traffic-class 3 min-threshold 15000 >/dev/null
        sim -- nv set qos congestion-control default-global traffic-class 3 max-threshold 150000 >/dev/null
        show "nv config apply -y                                              # on leaf1" sim -- nv config apply -y
        say "The lab cannot carry RoCE traffic, so the switch simulator's counters stand in for the data plane: swp5's queue 3 marks 4000 packets per second and the port sends 600 PFC pause frames per second on priority 4 - the seed's signature (switchsim --traffic)."
        sim --traffic swp5:ecn_marked.3=4000,swp5:pfc_tx.4=600
}

story_6_checks() {
        local f=$DEMO_DIR/d6.json
        expect "doctor names exactly: drift, ecn_disabled_on_lossless_queue, ecn_threshold_low, mtu_mismatch, pfc_priority_mismatch, roce_priority_lossy" \
                [ "$(codes_of "$f")" = "drift ecn_disabled_on_lossless_queue ecn_threshold_low mtu_mismatch pfc_priority_mismatch roce_priority_lossy" ]
        expect "roce_priority_lossy: the RoCE DSCP 26 rides priority 3, lossy on leaf1; the proposal's PFC on 3 fixes it" \
                [ "$(json "$f" "[(x['nodes'], x['fixed_by_proposal']) for x in d['findings'] if x['code'] == 'roce_priority_lossy'][0]")" = "(['fabric1'], True)" ]
        expect "mtu_mismatch: gpu5's ens1f0np0 (9000) over leaf1 swp5 (1500), read by two agents" \
                [ "$(json "$f" "[(x['ports'], x['evidence']['switch_port_mtu'], x['nodes']) for x in d['findings'] if x['code'] == 'mtu_mismatch'][0]")" = \
                  "(['gpu5:ens1f0np0', 'leaf1:swp5'], 1500.0, ['gpu5', 'fabric1'])" ]
        expect "pfc_priority_mismatch: the host has 3, the switch 4" \
                [ "$(json "$f" "[(x['evidence']['host_pfc'], x['evidence']['switch_port_pfc']) for x in d['findings'] if x['code'] == 'pfc_priority_mismatch'][0]")" = "('3', '4')" ]
        expect "ecn_threshold_low is critical: low thresholds with heavy marking (the seed's case)" \
                [ "$(json "$f" "[x['severity'] for x in d['findings'] if x['code'] == 'ecn_threshold_low'][0]")" = critical ]
        expect "drift: leaf1 differs from fabric1's committed policy" \
                [ "$(json "$f" "[x['nodes'] for x in d['findings'] if x['code'] == 'drift'][0]")" = "['fabric1']" ]
}

story_6() {
        local rc
        story_begin 6 "doctor: why is the fabric slow?"
        say "gpu5 has a ConnectX port (the mlx5 behaviour model behind its agent's netlink seam): it can take the whole RoCE host profile - trust dscp, DSCP 26 on priority 3, PFC on 3 - which veth cannot. Roll it out:"
        rc=0
        show_out "nettunectl apply $NIC_POLICY --canary 1 --wave-size 100% --confirm-timeout 30" \
                ctl apply "$NIC_POLICY" --canary 1 --wave-size 100% --confirm-timeout 30 || rc=$?
        expect "rollout exit 0 (got $rc)" [ "$rc" -eq 0 ]
        story_6_break
        say "The seed's engineers walked link rate, point-to-point bandwidth, pause counters and ECN thresholds by hand. nettunectl doctor asks every agent at once: each reads its interfaces and switches and samples their counters over the same window; the controller joins a host interface to the switch port it is cabled to (each agent's 'links'; LLDP where it runs) and judges both ends together."
        rc=0
        SHOW_LINES=60 show_out "nettunectl doctor --window 3" ctl doctor --window 3 || rc=$?
        expect "doctor exit 1: findings (got $rc)" [ "$rc" -eq 1 ]
        ctl_json "$DEMO_DIR/d6.json" doctor --window 3
        story_6_checks
        say "--propose writes the policy that fixes what a policy can fix - here all of leaf1's part: PFC back on 3 (which also takes queue 4 out of the lossless set), the ports' MTU at NVUE's 9216, queue 3's thresholds at the floor for 100 Gb/s. Its selector is the label of the node that manages leaf1. What no policy fixes is listed (the drift disappears once the proposal is the committed policy)."
        rc=0
        show_out "nettunectl doctor --window 3 --propose $DEMO_DIR/fix.json" \
                ctl doctor --window 3 --propose "$DEMO_DIR/fix.json" || rc=$?
        SHOW_LINES=40 show "cat $DEMO_DIR/fix.json" cat "$DEMO_DIR/fix.json"
        expect "nettune-agent validate accepts the proposal" "$AGENT" validate "$DEMO_DIR/fix.json"
        rc=0
        show_out "nettunectl apply $DEMO_DIR/fix.json --canary 1 --wave-size 100% --confirm-timeout 30" \
                ctl apply "$DEMO_DIR/fix.json" --canary 1 --wave-size 100% --confirm-timeout 30 || rc=$?
        expect "rollout exit 0 (got $rc)" [ "$rc" -eq 0 ]
        expect "leaf1 itself: PFC on 3, swp5 at MTU 9216, queue 3 from 150000 to 1500000 bytes" \
                [ "$(leaf_pfc_mtu_ecn)" = "['3'] 9216 150000 1500000" ]
        say "With the thresholds raised the switch stops marking early and the pauses stop; the lab stops the simulated counters to say so. Doctor again:"
        sim --traffic swp5:ecn_marked.3=0,swp5:pfc_tx.4=0
        rc=0
        show_out "nettunectl doctor --window 3" ctl doctor --window 3 || rc=$?
        expect "doctor exit 0: no findings (got $rc)" [ "$rc" -eq 0 ]
        story_end 6
}
