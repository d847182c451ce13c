#!/usr/bin/env bash
# doctor reads every dialect's ports and counters through its own show commands: a
# SONiC switch (show interfaces status, show pfc counters, show queue counters, show
# queue wredcounters) and an EOS switch (show interfaces | json, show
# priority-flow-control counters | json, show qos interfaces ecn counters queue | json),
# both switchsim behind a real sshd in the agent's namespace. A pause storm on a SONiC
# port's priority 3, drops of a lossless priority group and of a lossless queue, a SONiC
# port whose WRED profile marks below the floor while its
# queue marks heavily, an EOS port's link pause storm, an EOS port's PFC storm, an EOS
# port that came up at 10G beside 100G ones are each found with their counters' rates,
# and an EOS queue's ECN marks are read where the queue counts them. SONiC's factory map
# sends DSCP 26 to a lossy priority: the lossless class finds it (roce_priority_lossy),
# and RoCE on its DSCP 3 is clean.
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

# SONiC's factory map (AZURE) makes DSCP 3 and 4 lossless: the fabric's RoCE DSCP here is 3.
diagnose() { doctor_expect "$1" "$2" A --output json doctor --window 2 --roce-dscp 3; }

step "the lossless class against SONiC's factory map: RoCE on DSCP 26 would be lossy there"
doctor_expect "roce_priority_lossy" "factory switches, RoCE on DSCP 26" A --output json doctor --window 0.5
check "leaf2 against itself: DSCP 26 on priority 1, PFC on 3 and 4" [ "$(finding roce_priority_lossy "['summary']")" = \
        "leaf2: the RoCE DSCP 26 (--roce-dscp) maps to priority 1, which has no PFC (pfc.priorities (live: [3,4])): RoCE is not lossless" ]
check "one finding for its three ports" [ "$(finding roce_priority_lossy "['ports']")" = \
        "['leaf2:Ethernet0', 'leaf2:Ethernet4', 'leaf2:Ethernet8']" ]

step "both switches read, EOS's PFC and ECN counters included"
diagnose "" "factory switches, RoCE on DSCP 3"
check "no note says a counter was not read" jq_py "$T/d.json" \
        "1/0 if [n for n in d['notes'] if 'not read' in n] else 1"

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

step "SONiC: drops at a lossless priority (show priority-group drop counters, show queue counters)"
swsim leaf2 --traffic Ethernet8:pg_drop.3=50
diagnose "lossless_drops" "Ethernet8 drops received packets of PG3"
check "leaf2:Ethernet8" [ "$(finding lossless_drops "['ports']")" = "['leaf2:Ethernet8']" ]
check "priority 3, the PG's counter" [ "$(jq_py "$T/d.json" "[(f['evidence']['priority'], f['evidence']['counter']) for f in d['findings'] if f['code'] == 'lossless_drops'][0]")" = "(3.0, 'PG3 dropped')" ]
check "critical" [ "$(finding lossless_drops "['severity']")" = critical ]
swsim leaf2 --traffic Ethernet8:pg_drop.3=0,Ethernet4:tx_drop.4=30,Ethernet4:tx_drop.0=500
diagnose "lossless_drops" "queue 4 of Ethernet4 drops (lossless), queue 0 drops (lossy)"
check "only the lossless queue" [ "$(jq_py "$T/d.json" "[f['evidence']['counter'] for f in d['findings'] if f['code'] == 'lossless_drops']")" = "['UC4 Drop/pkts']" ]
swsim leaf2 --traffic Ethernet4:tx_drop.4=0,Ethernet4:tx_drop.0=0
diagnose "" "no drops"

step "EOS: link pause frames and a port at 10G (show interfaces | json)"
swsim leaf3 --traffic Ethernet2:link_pause_rx=2500,Ethernet3:speed=10G
diagnose "link_downshift pause_storm" "Ethernet2 pausing, Ethernet3 at 10G"
check "the storm is Ethernet2's link pause" [ "$(finding pause_storm "['ports']")" = "['leaf3:Ethernet2']" ]
check "the slow port is Ethernet3" [ "$(finding link_downshift "['ports']")" = "['leaf3:Ethernet3']" ]
swsim leaf3 --traffic Ethernet2:link_pause_rx=0,Ethernet3:speed=100G
diagnose "" "quiet again"

step "EOS: a PFC storm on Ethernet1 (show priority-flow-control counters)"
swsim leaf3 --traffic Ethernet1:pfc_tx.3=4000
diagnose "pause_storm" "Ethernet1 sends 4000 PFC frames/s"
check "leaf3:Ethernet1" [ "$(finding pause_storm "['ports']")" = "['leaf3:Ethernet1']" ]
swsim leaf3 --traffic Ethernet1:pfc_tx.3=0
diagnose "" "quiet again"

step "EOS: ECN marks of a queue that counts them (show qos interfaces ecn counters queue)"
swsim leaf3 -- $'configure session hand\ninterface Ethernet2\ntx-queue 3\nrandom-detect ecn count\ncommit' >/dev/null
swsim leaf3 --traffic Ethernet2:ecn_marked.3=700,Ethernet3:ecn_marked.3=700
rc=0; A --output json doctor --window 2 --save-facts "$T/f.json" >/dev/null || rc=$?
check "doctor collected (exit $rc)" [ "$rc" -le 1 ]
python3 - "$T/f.json" <<'PY' || fail "doctor did not read Ethernet2's queue 3 marks (and only those)"
import json, sys
d = json.load(open(sys.argv[1]))
rates = []
def walk(o, port=None):
    if isinstance(o, dict):
        port = o.get("name", port) if "rates" in o else port
        for r in o.get("rates", []) if isinstance(o.get("rates"), list) else []:
            rates.append((port, r))
        for v in o.values():
            walk(v, port)
    elif isinstance(o, list):
        for v in o:
            walk(v, port)
walk(d)
marks = [(p, r) for p, r in rates if r.get("name") == "ECN queue 3" and r.get("kind") == "ecn_marked"]
print(marks)
sys.exit(0 if [p for p, r in marks if p == "Ethernet2" and r["delta"] > 0] and not [p for p, r in marks if p == "Ethernet3"] else 1)
PY
echo "ok: Ethernet2's queue 3 marks are read; Ethernet3's queue does not count them (\"-\")"
swsim leaf3 --traffic Ethernet2:ecn_marked.3=0,Ethernet3:ecn_marked.3=0
