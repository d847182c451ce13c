#!/usr/bin/env bash
# doctor reads every dialect's ports and counters through its own show commands: a
# SONiC switch (show interfaces status, show pfc counters, show queue counters, show
# queue wredcounters) and an EOS switch (show interfaces | json), both switchsim behind
# a real sshd in the agent's namespace. A pause storm on a SONiC port's priority 3, a
# SONiC port whose WRED profile marks below the floor while its queue marks heavily,
# an EOS port's link pause storm and an EOS port that came up at 10G beside 100G ones
# are each found with their counters' rates; EOS's undocumented PFC/ECN counters are
# named as not read; the factory SONiC's lossless priorities without a PFC watchdog are
# watchdog_missing until it is started.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/tests/lib/doctor.sh"
. "$NETTUNE_TOP/tests/integration/agent-switch.inc"
require_root
require_sshd
require_cmd python3

AS_NS=$(netns_add drd)
as_switch leaf2 sonic Ethernet0,Ethernet4,Ethernet8
as_switch leaf3 eos Ethernet1,Ethernet2,Ethernet3
as_switches_up

diagnose() { doctor_expect "$1" "$2" A --output json doctor --window 2; }

step "both switches read; EOS's missing counters said"
diagnose "watchdog_missing" "factory switches: SONiC's lossless 3,4 without a PFC watchdog"
check "on leaf2's ports" [ "$(finding watchdog_missing "['ports']")" = \
        "['leaf2:Ethernet0', 'leaf2:Ethernet4', 'leaf2:Ethernet8']" ]
swsim leaf2 -- sudo config pfcwd start --action drop --restoration-time 400 Ethernet0 Ethernet4 Ethernet8 200 >/dev/null
diagnose "" "the watchdog started on leaf2"
check "the note names what EOS does not show" jq_py "$T/d.json" \
        "1/0 if not [n for n in d['notes'] if \"switch 'leaf3': EOS: PFC per priority and ECN marks\" in n] else 1"

step "SONiC: a pause storm on Ethernet4, priority 3 (show pfc counters)"
swsim leaf2 --traffic Ethernet4:pfc_tx.3=4000
diagnose "pause_storm" "Ethernet4 sends 4000 PFC frames/s"
check "leaf2:Ethernet4" [ "$(finding pause_storm "['ports']")" = "['leaf2:Ethernet4']" ]
check "priority 3" [ "$(finding pause_storm "['evidence']['priority']")" = 3.0 ]
swsim leaf2 --traffic Ethernet4:pfc_tx.3=0

step "SONiC: WRED thresholds under the floor while the queue marks (show queue wredcounters)"
swsim leaf2 -- sonic-db-cli CONFIG_DB hset "WRED_PROFILE|AZURE_LOSSLESS" green_min_threshold 20000 green_max_threshold 100000 >/dev/null
swsim leaf2 --traffic Ethernet0:ecn_marked.3=3000
diagnose "ecn_threshold_low" "AZURE_LOSSLESS at 20000/100000, queue 3 of Ethernet0 marking 3000/s"
check "critical: the marks of UC3" [ "$(finding ecn_threshold_low "['severity']")" = critical ]
check "every port bound to the profile" [ "$(finding ecn_threshold_low "['ports']")" = \
        "['leaf2:Ethernet0', 'leaf2:Ethernet4', 'leaf2:Ethernet8']" ]
swsim leaf2 --traffic Ethernet0:ecn_marked.3=0
swsim leaf2 -- sonic-db-cli CONFIG_DB hset "WRED_PROFILE|AZURE_LOSSLESS" green_min_threshold 1048576 green_max_threshold 2097152 >/dev/null
diagnose "" "thresholds back"

step "EOS: link pause frames and a port at 10G (show interfaces | json)"
swsim leaf3 --traffic Ethernet2:link_pause_rx=2500,Ethernet3:speed=10G
diagnose "link_downshift pause_storm" "Ethernet2 pausing, Ethernet3 at 10G"
check "the storm is Ethernet2's link pause" [ "$(finding pause_storm "['ports']")" = "['leaf3:Ethernet2']" ]
check "the slow port is Ethernet3" [ "$(finding link_downshift "['ports']")" = "['leaf3:Ethernet3']" ]
swsim leaf3 --traffic Ethernet2:link_pause_rx=0,Ethernet3:speed=100G
diagnose "" "quiet again"
