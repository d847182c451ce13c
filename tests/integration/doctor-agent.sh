#!/usr/bin/env bash
# nettune-agent doctor on one node, each finding code against a lab that has the fault
# and against one that does not: a ConnectX host port (the mlx5 model behind the
# netlink seam, its sysfs tree with an MLNX_OFED ecn tree, the link's speed and RDMA
# rate) cabled ("links") to port swp1 of leaf1, a simulated NVUE switch behind a real
# sshd that the same agent manages. The host takes the shipped roce-lossless profile,
# the switch is configured to agree by hand; then one fault at a time is made - on the
# switch with NVUE commands or its data plane's counters (switchsim --traffic), on the
# host through the model - and doctor must name exactly that code, with its evidence,
# and be silent again once it is undone (a long cable on the host: headroom_insufficient with both
# numbers and the switch port's cable_length_unset). Then --propose writes the fix, validate
# accepts it, apply of it makes doctor clean; bad input is 2, an unreadable switch 3.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/tests/lib/doctor.sh"
. "$NETTUNE_TOP/tests/lib/nicmodel.sh"
. "$NETTUNE_TOP/tests/integration/agent-switch.inc"
require_root
require_sshd
require_cmd python3

HOST_IF=ens1f0np0
AS_NS=$(netns_add dra)
as_switch leaf1 nvue swp1,swp2,swp3
as_switches_up
nicmodel_start "mlx5:$HOST_IF:4"
ofed_ecn_tree "$HOST_IF"
echo 100000 >"$T/sys/class/net/$HOST_IF/speed"                 # what the kernel exports for a 100G link
rdma=$(ls "$T/sys/class/net/$HOST_IF/device/infiniband")
echo "100 Gb/sec (4X EDR)" >"$T/sys/class/infiniband/$rdma/ports/1/rate"
mkdir -p "$T/proc"                                               # where lldpad is looked for
python3 - "$T/agent.json" "$T" "$HOST_IF" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c.update({"sysfs_root": sys.argv[2] + "/sys", "proc_root": sys.argv[2] + "/proc", "settle_ms": 10000,
          "links": {sys.argv[3]: "leaf1:swp1"}})
json.dump(c, open(sys.argv[1], "w"), indent=1)
EOF
A() { NETTUNE_NETLINK_SOCKET=$NM_SOCK ip netns exec "$AS_NS" "$AGENT" --config "$T/agent.json" "$@"; }
nv() { swsim leaf1 -- nv "$@" >/dev/null; }
nv_apply() { nv config apply -y; }

# diagnose "CODES" WHAT: doctor --window 2 finds exactly CODES. Rates cross their bounds by a
# wide margin: a busy machine's SSH latency moves a measured rate.
diagnose() { doctor_expect "$1" "$2" A --output json doctor --window 2; }

step "a lab that agrees end to end"
nm_profile roce-lossless.json "$T/host.json" "$HOST_IF" keep-host-ecn
expect_rc 0 "the host takes roce-lossless" A apply "$T/host.json"
nv set qos mapping default-global trust l3
nv set qos mapping default-global dscp 26 switch-priority 3
nv set qos mapping default-global dscp 48 switch-priority 6
nv set qos pfc default-global switch-priority 3
nv set qos congestion-control default-global traffic-class 3 ecn enable
nv set qos congestion-control default-global traffic-class 3 min-threshold 150000
nv set qos congestion-control default-global traffic-class 3 max-threshold 1500000
nv set qos congestion-control default-global traffic-class 3 probability 100
nv_apply
diagnose "watchdog_missing" "lossless priority 3 without a PFC watchdog on the switch"
nv set interface swp1,swp2,swp3 qos pfc-watchdog state enable && nv_apply
diagnose "" "healthy lab"
check "the path came from links" [ "$(A --output json doctor --window 0.2 --save-facts "$T/f.json" >/dev/null; \
        jq_py "$T/f.json" "[i['peer'] for i in d['nodes'][0]['interfaces'] if i['name'] == '$HOST_IF'][0]")" = \
        "{'port': 'swp1', 'source': 'config', 'switch': 'leaf1'}" ]
check "the switch's ports were read with link and counters" [ "$(jq_py "$T/f.json" \
        "[(p['link']['speed_mbps'], len(p['rates']) > 0) for p in d['nodes'][0]['switches'][0]['ports']]")" = \
        "[(100000, True), (100000, True), (100000, True)]" ]

step "the NIC's counters as rates: np_cnp_sent climbing in its RDMA hw_counters"
cnp=$T/sys/class/infiniband/$rdma/ports/1/hw_counters/np_cnp_sent
[ -f "$cnp" ] || fail "the model has no np_cnp_sent"
( n=0; while :; do n=$((n + 50)); echo $n >"$cnp.new" && mv "$cnp.new" "$cnp"; sleep 0.1; done ) &
climb=$!
_nt_pids+=("$climb")
A --output json doctor --window 2 --save-facts "$T/f2.json" >/dev/null || true
kill "$climb" && wait "$climb" 2>/dev/null || true
rate=$(jq_py "$T/f2.json" "[r['per_s'] for i in d['nodes'][0]['interfaces'] for r in i['rates'] if r['kind'] == 'cnp_sent'][0]")
check "np_cnp_sent read as CNPs sent, $rate per second" python3 -c "import sys; sys.exit(not 0 < $rate < 2000)"

step "mtu_mismatch: the switch port carries less than the host sends"
nv set interface swp1 link mtu 1500 && nv_apply
diagnose "mtu_mismatch" "switch port MTU 1500"
check "evidence: 9000 over 1500" [ "$(finding mtu_mismatch "['evidence']")" = "{'host_mtu': 9000.0, 'switch_port_mtu': 1500.0}" ]
check "the ports on the path" [ "$(finding mtu_mismatch "['ports']")" = "['$(hostname):$HOST_IF', 'leaf1:swp1']" ]
nv set interface swp1 link mtu 9216 && nv_apply
diagnose "" "MTU back"

step "trust_mismatch"
nv set qos mapping default-global trust l2 && nv_apply
diagnose "trust_mismatch" "switch trusts pcp"
nv set qos mapping default-global trust l3 && nv_apply
diagnose "" "trust back"

step "dscp_map_mismatch"
nv set qos mapping default-global dscp 26 switch-priority 4 && nv_apply
diagnose "dscp_map_mismatch roce_priority_lossy" "switch maps DSCP 26 to 4 (PFC on 3: lossy there too)"
check "the switch against itself: DSCP 26 on 4, which has no PFC" grep -q "leaf1: the RoCE DSCP 26 (--roce-dscp) maps to priority 4, which has no PFC" \
        <(finding roce_priority_lossy "['summary']")
check "evidence names DSCP 26: host 3, switch 4" [ "$(finding dscp_map_mismatch "['evidence']")" = \
        "{'dscp': 26.0, 'host_priority': '3', 'switch_priority': '4'}" ]
nv set qos mapping default-global dscp 26 switch-priority 3 && nv_apply
diagnose "" "map back"

step "pfc_priority_mismatch"
# (NVUE refuses a watchdog on a port without PFC: it goes with it)
nv unset interface swp1,swp2,swp3 qos pfc-watchdog && nv unset qos pfc default-global switch-priority 3 && nv_apply
diagnose "pfc_priority_mismatch roce_priority_lossy" "priority 3 lossless on the host only (the switch: RoCE lossy)"
nv set qos pfc default-global switch-priority 3 && nv set interface swp1,swp2,swp3 qos pfc-watchdog state enable &&
        nv_apply
diagnose "" "PFC back"

step "ecn_disabled_on_lossless_queue"
nv set qos congestion-control default-global traffic-class 3 ecn disable && nv_apply
diagnose "ecn_disabled_on_lossless_queue" "queue 3 lossless without ECN"
check "one finding for the switch's three ports" [ "$(finding ecn_disabled_on_lossless_queue "['ports']")" = \
        "['leaf1:swp1', 'leaf1:swp2', 'leaf1:swp3']" ]
nv set qos congestion-control default-global traffic-class 3 ecn enable && nv_apply
diagnose "" "ECN back"

step "ecn_threshold_low, then the seed's case (heavy marking with pause frames)"
nv set qos congestion-control default-global traffic-class 3 min-threshold 15000
nv set qos congestion-control default-global traffic-class 3 max-threshold 150000
nv_apply
diagnose "ecn_threshold_low" "thresholds 15000/150000 at 100G"
check "a warning without marking" [ "$(finding ecn_threshold_low "['severity']")" = warning ]
swsim leaf1 --traffic swp1:ecn_marked.3=5000,swp1:pfc_tx.3=800
diagnose "ecn_threshold_low" "thresholds low while swp1 marks 5000/s and pauses 800/s"
check "critical with marking" [ "$(finding ecn_threshold_low "['severity']")" = critical ]
marks=$(finding ecn_threshold_low "['evidence']['ecn_marked_per_s']")
check "evidence: the marking rate ($marks/s) measured over the window" python3 -c "import sys; sys.exit(not 4000 < $marks < 6000)"
swsim leaf1 --traffic swp1:ecn_marked.3=0,swp1:pfc_tx.3=0
nv set qos congestion-control default-global traffic-class 3 min-threshold 150000
nv set qos congestion-control default-global traffic-class 3 max-threshold 1500000
nv_apply
diagnose "" "thresholds back, traffic quiet"

step "pause_storm"
swsim leaf1 --traffic swp2:pfc_rx.3=5000
diagnose "pause_storm" "swp2 receives 5000 pause frames/s on priority 3"
check "evidence: priority 3" [ "$(finding pause_storm "['evidence']['priority']")" = 3.0 ]
swsim leaf1 --traffic swp2:pfc_rx.3=200
diagnose "" "200 pause frames/s: under the bound"
swsim leaf1 --traffic swp2:pfc_rx.3=0

step "link_downshift"
swsim leaf1 --traffic swp3:speed=25G
diagnose "link_downshift" "swp3 at 25G, its peers at 100G"
check "evidence" [ "$(finding link_downshift "['evidence']")" = "{'peers_speed_mbps': 100000.0, 'speed_mbps': 25000.0}" ]
swsim leaf1 --traffic swp3:speed=100G
diagnose "" "speed back"

step "cnp_priority_mismatch"
nv set qos mapping default-global dscp 48 switch-priority 0 && nv_apply
diagnose "cnp_priority_mismatch" "CNPs (DSCP 48, priority 6) mapped to 0 on the switch"
nv set qos mapping default-global dscp 48 switch-priority 6 && nv_apply
diagnose "" "CNP map back"

step "cnp_class_mismatch: the NIC marks CNPs as NCO 26.7's roceOptimized does (DSCP 4), leaf1 keeps DSCP 48 on 6"
# NVUE's qos roce lossless: DSCP 48 -> switch priority 6 -> traffic class 6, strict; DSCP 4 is not there
echo 4 >"$T/sys/class/net/$HOST_IF/ecn/roce_np/cnp_dscp"
diagnose "cnp_class_mismatch cnp_dscp_unmapped cnp_priority_mismatch drift" "the NIC's live CNP DSCP 4 by hand"
check "both ends named" [ "$(finding cnp_class_mismatch "['ports'][1]")" = "leaf1:swp1" ]
check "the NIC's marking and the port's CNP class" [ "$(jq_py "$T/d.json" "[[f['evidence'][k] for k in \
        ('nic_cnp_dscp', 'nic_cnp_priority', 'switch_cnp_class_priority')] for f in d['findings'] \
        if f['code'] == 'cnp_class_mismatch'][0]")" = "[4.0, 6.0, 6.0]" ]
echo 48 >"$T/sys/class/net/$HOST_IF/ecn/roce_np/cnp_dscp"
diagnose "" "CNP DSCP 48 again"

step "lldpad_conflict"
mkdir -p "$T/proc/4242" && echo lldpad >"$T/proc/4242/comm"
diagnose "lldpad_conflict" "an lldpad process"
check "evidence: its pid" [ "$(finding lldpad_conflict "['evidence']['lldpad_pid']")" = 4242.0 ]
rm -rf "$T/proc/4242"
diagnose "" "lldpad gone"

step "headroom_insufficient and cable_length_unset: a long cable on a ConnectX in firmware buffer mode"
# mlx5 stores the length and leaves the firmware's buffers as they are (no manual mode): priority 3's
# buffer 0 of 130944 bytes is short of the headroom for 500 m; the switch port has no length at all.
nm_ctl delay "$HOST_IF" 500 >/dev/null
diagnose "cable_length_unset headroom_insufficient" "the host's cable length 500 m by hand"
# xoff (301 + 1080) * 100 + 272 * 9000 / 100 = 162580, + 9216 + 128 = 171924 -> 1344 cells
check "both numbers" [ "$(jq_py "$T/d.json" "[(f['evidence']['configured_bytes'], f['evidence']['needed_bytes']) for f in d['findings'] if f['code'] == 'headroom_insufficient'][0]")" = "(130944.0, 172032.0)" ]
check "the switch port's missing length, from the host's" [ "$(finding cable_length_unset "['ports']")" = "['leaf1:swp1']" ]
nm_ctl delay "$HOST_IF" 7 >/dev/null
diagnose "" "the driver's default length again"

step "drift"
nm_ctl mtu "$HOST_IF" 4000 >/dev/null
diagnose "drift" "the host's MTU changed by hand"
check "evidence: mtu 4000, committed 9000 by the policy that owns it, as drift says" \
        [ "$(finding drift "['evidence']['mtu']")" = "4000 (committed 9000 by policy 'roce-lossless')" ]
expect_rc 0 "re-apply heals it" A apply "$T/host.json"
diagnose "" "no drift"

step "text output and exit codes"
nv set interface swp1 link mtu 1500 && nv_apply
rc=0; A doctor --window 0.5 >"$T/d.txt" 2>&1 || rc=$?
cat "$T/d.txt"
check "exit 1 with findings (got $rc)" [ "$rc" -eq 1 ]
check "text names the code, the severity and the fix" grep -q "^CRITICAL mtu_mismatch: .* carries at most 1500" "$T/d.txt"
check "text gives the fix" grep -q "fix: raise the MTU of leaf1 port swp1 to 9216 (policy mtu) \[in the proposal\]" "$T/d.txt"
expect_rc 2 "--window 0" A doctor --window 0
expect_rc 2 "an unknown option" A doctor --colour
echo '{"nodes": [{"name": "x", "colour": 1}]}' >"$T/bad.json"
expect_rc 2 "--facts with an unknown key" A doctor --facts "$T/bad.json"
rc=0; A doctor --facts "$T/f.json" >/dev/null || rc=$?
check "--facts judges saved facts offline (healthy then: exit $rc)" [ "$rc" -eq 0 ]

step "--propose writes the fix; validate accepts it; apply of it makes doctor clean"
nv set qos congestion-control default-global traffic-class 3 min-threshold 15000 && nv_apply
nv unset interface swp1,swp2,swp3 qos pfc-watchdog && nv unset qos pfc default-global switch-priority 3 && nv_apply
diagnose "ecn_threshold_low mtu_mismatch pfc_priority_mismatch roce_priority_lossy" "three faults at once (no PFC: RoCE lossy on the switch)"
rc=0; A doctor --window 0.5 --propose "$T/fix.json" >"$T/d.txt" || rc=$?
check "doctor exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "the proposal was written" grep -q "proposal written to '$T/fix.json'" "$T/d.txt"
cat "$T/fix.json"
expect_rc 0 "nettune-agent validate accepts the proposal" "$AGENT" validate "$T/fix.json"
check "it sets mtu, pfc and ecn of leaf1" [ "$(jq_py "$T/fix.json" \
        "(d['targets'], sorted(d['spec']), d['spec']['mtu'], d['spec']['pfc'], d['spec']['ecn']['min_threshold_bytes'])")" = \
        "({'switches': ['leaf1']}, ['ecn', 'mtu', 'pfc'], 9216, {'priorities': [3]}, 150000)" ]
expect_rc 0 "apply the proposal" A apply "$T/fix.json"
# the proposal does not choose watchdog times: watchdog_missing says which fields to declare
diagnose "watchdog_missing" "after the proposal, lossless again without a watchdog"
check "its fix names spec.pfc.watchdog" grep -q "spec.pfc.watchdog" <<<"$(finding watchdog_missing "['fix']")"
nv set interface swp1,swp2,swp3 qos pfc-watchdog state enable && nv_apply
diagnose "" "after the proposal and the watchdog"

step "a switch that cannot be read: exit 3, the rest still judged"
dead=$(free_port)
python3 - "$T/agent.json" "$T/agent-dead.json" "$dead" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
s = dict(c["switches"][0], name="spine1", port=int(sys.argv[3]), connect_timeout_ms=500, command_timeout_ms=500)
c["switches"].append(s)
json.dump(c, open(sys.argv[2], "w"))
EOF
rc=0; NETTUNE_NETLINK_SOCKET=$NM_SOCK ip netns exec "$AS_NS" "$AGENT" --config "$T/agent-dead.json" doctor \
        --window 0.2 >"$T/d.txt" 2>&1 || rc=$?
check "exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "the note names spine1" grep -q "note: .*switch 'spine1' could not be read" "$T/d.txt"
