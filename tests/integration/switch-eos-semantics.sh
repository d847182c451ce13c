#!/usr/bin/env bash
# EOS semantics through a private sshd and switchsim: only the listed queue and the
# managed ports get lines, the commit is copied to startup-config and survives a
# reboot, ECN removed by hand from one port is drift on that port, someone else's
# session with a commit timer is refused and left alone, and the documented forms
# are read and written: drop-precedence, service-profile, uc-tx-queue and
# priority-flow-control all off.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/switch_cases.sh"
. "$NETTUNE_TOP/tests/lib/switch_semantics.sh"
require_sshd

# Ethernet3 exists on the switch but is not managed.
switch_sim_start "$T/sw" eos Ethernet1,Ethernet2,Ethernet3
manage Ethernet1,Ethernet2
write_policy "$T/p1.json" 9100 3
policy "$T/ecn.json" ecn3 '{"ecn": {"queues": [3], "min_threshold_bytes": 200000, "max_threshold_bytes": 2000000}}'
policy "$T/off.json" ecn3off '{"ecn": {"queues": [3], "enabled": false}}'
running() { raw "json.dumps(d['eos']['running'])"; }
session() { sim -- "$(printf '%s\n' "$@")" >/dev/null; }

step "a policy that lists queue 3 on two ports: lines for that queue and those ports only"
apply_logged "$T/a1.json" "$T/sent.txt" "$T/ecn.json" --confirm 30
check "queue 3 was written" grep -q "tx-queue 3" "$T/sent.txt"
check "no other queue" bash -c "! grep -E 'tx-queue [0-24-7]' '$T/sent.txt'"
check "not the unmanaged port" bash -c "! grep -q 'Ethernet3' '$T/sent.txt'"
check "saved to startup-config" test "$(raw "d['eos']['startup'] == d['eos']['running']")" = True
check "the result says saved" test "$(jget "$T/a1.json" 'd["save_how"]')" = "copy running-config startup-config"
swctl read > "$T/r1.json"

step "a reboot loads startup-config: the commit survives"
sim --reboot
swctl read > "$T/r2.json"
check "same state after the reboot" same_state "$T/r1.json" "$T/r2.json"

step "ECN removed by hand from one port is drift on that port only"
session "configure session hand" "interface Ethernet2" "tx-queue 3" "no random-detect ecn" "exit" "exit" "commit"
expect_rc 0 "plan" swto "$T/pl.json" plan "$T/ecn.json"
echo "plan keys: $(keys "$T/pl.json")"
check "only Ethernet2's queue 3" test "$(keys "$T/pl.json")" = "['ports.Ethernet2.ecn.queue3.enabled', 'ports.Ethernet2.ecn.queue3.mark_probability_pct', 'ports.Ethernet2.ecn.queue3.max_threshold_bytes', 'ports.Ethernet2.ecn.queue3.min_threshold_bytes']"
n0=$(sim_commands)
expect_rc 0 "re-apply" swto "$T/a2.json" apply "$T/ecn.json"
sim_log_since "$n0" | grep -q "interface Ethernet1" && fail "Ethernet1 got lines" || echo "ok: Ethernet1 got no lines"

step "someone else's session with a commit timer is refused and left alone"
session "configure session operator" "interface Ethernet1" "mtu 9000" "exit" "commit timer 00:10:00"
rc=0; swto "$T/f1.json" apply "$T/p1.json" --confirm 30 2>"$T/f1.err" || rc=$?
check "apply refused (exit $rc)" test "$rc" = 2
check "the error names their session" grep -q "configuration session 'operator' awaits its commit timer" "$T/f1.err"
check "their timer is still pending" test "$(raw "d['eos']['timer']['session']")" = operator
sim -- "configure session operator abort" >/dev/null

step "drop-precedence: read, and kept on the code points nettune does not change"
sim_reinit Ethernet1,Ethernet2,Ethernet3 drop-precedence
swctl read > "$T/dp.json"
check "dscp 26 reads as class 4" test "$(jports "$T/dp.json" "p['dscp_to_priority']['26']")" = 4
policy "$T/map.json" map '{"trust": "dscp", "dscp_to_priority": {"18": 4, "20": 4, "22": 4, "26": 3, "28": 4, "30": 4, "34": 4, "36": 4, "38": 4, "8": 1, "9": 1, "10": 1, "11": 1, "12": 1, "13": 1, "14": 1, "15": 1}}'
expect_rc 0 "apply a map that moves 26 only" swto "$T/dp2.json" apply "$T/map.json"
check "18 keeps its drop-precedence" grep -q "qos map dscp 18 20 22 28 30 34 36 38 to traffic-class 4 drop-precedence 2" <(running)
check "26 maps to 3" grep -q "qos map dscp 26 to traffic-class 3" <(running)

step "priority-flow-control all off: PFC reads off everywhere and is not fought"
sim_reinit Ethernet1,Ethernet2,Ethernet3 pfc-all-off
rc=0; swto "$T/pf.json" plan "$T/p1.json" 2>"$T/pf.err" || rc=$?
check "plan refused (exit $rc)" test "$rc" = 2
check "the refusal names the global line" grep -q "'priority-flow-control all off' is configured" "$T/pf.err"

step "service-profile: its lines are read on the port; only an interface line is ever written"
sim_reinit Ethernet1,Ethernet2,Ethernet3 service-profile
swctl read > "$T/sp.json"
check "Ethernet2 marks queue 3 through its profile" test "$(jget "$T/sp.json" "d['state']['ports']['Ethernet2']['ecn']['queue3']['min_threshold_bytes']")" = 327680
check "Ethernet1 does not" test "$(jget "$T/sp.json" "d['state']['ports']['Ethernet1']['ecn']['queue3']['enabled']")" = False
rc=0; swto "$T/sp2.json" plan "$T/off.json" 2>"$T/sp2.err" || rc=$?
check "turning off a profile's marking is refused (exit $rc)" test "$rc" = 2
check "the refusal says it comes from the profile" grep -q "comes from its service-profile" "$T/sp2.err"
expect_rc 0 "new thresholds go on the interface" swto "$T/sp3.json" apply "$T/ecn.json"
check "the profile is unchanged" test "$(raw "list(d['eos']['running']['cmds']['qos profile roce']['cmds']['tx-queue 3']['cmds'])")" = "['random-detect ecn minimum-threshold 320 kbytes maximum-threshold 320 kbytes max-mark-probability 90']"

step "uc-tx-queue (7280R/Jericho): the port's own queue keyword is used"
sim_reinit Ethernet1,Ethernet2,Ethernet3 uc-tx-queue
swctl read > "$T/uc.json"
check "Ethernet1 reads uc-tx-queue 3" test "$(jget "$T/uc.json" "d['state']['ports']['Ethernet1']['ecn']['queue3']['min_threshold_bytes']")" = 327680
n0=$(sim_commands)
expect_rc 0 "apply queue 3" swto "$T/uc2.json" apply "$T/ecn.json"
check "Ethernet1 got uc-tx-queue 3" grep -q "uc-tx-queue 3" <(sim_log_since "$n0")
check "and no plain tx-queue 3" test "$(raw "list(d['eos']['running']['cmds']['interface Ethernet1']['cmds'])" | grep -c "'tx-queue 3'")" = 0

step "EOS has no cable length: refused before anything is sent, with the reason"
policy "$T/cable.json" cable '{"pfc": {"priorities": [3], "cable_length_m": 40}}'
m0=$(raw 'd["mutations"]')
rc=0; swto "$T/cb.json" apply "$T/cable.json" 2>"$T/cb.err" || rc=$?
check "apply refused (exit $rc)" test "$rc" = 2
check "the reason" grep -q "EOS has no cable length to set (no cable-length or PFC headroom command" "$T/cb.err"
check "nothing was written" test "$(raw 'd["mutations"]')" = "$m0"
