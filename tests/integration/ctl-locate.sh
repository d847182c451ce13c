#!/usr/bin/env bash
# nettunectl locate on 16 real agents in 4 racks (bridges joined to a spine bridge by
# their uplinks): a clean lab names nothing (exit 0); a node's link throttled with tbf
# is named as that node, receive side; a rack's uplink throttled is named as that
# rack's uplink, not as its nodes; the JSON carries the evidence; doctor --locate
# judges the same suspect (fabric_suspect), also from saved facts; bad input changes
# nothing and names the node without a rack. The lab at 64 and 200 agents, with its
# timings and false-positive runs, is bench/locate_lab.sh (make lab-locate).
. "$(cd "$(dirname "$0")/../.." && pwd)/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-racks.inc"
fleet_require
require_cmd tc python3
FLEET_PROBE_EXTRA='"allow": ["10.88.0.0/16"], "max_clients": 8'
racks_up 16 4 2>>"$T/agents.log" >&2

locate() { ctl --quiet "$@"; }

step "a clean lab: no suspect"
for run in 1 2; do
        expect_rc 0 "clean lab, run $run" ctl_to "$T/clean$run.txt" --quiet locate
        cat "$T/clean$run.txt"
        check "clean run $run says no suspect" grep -q '^no suspect' "$T/clean$run.txt"
done

step "node006's link throttled (toward it) to 5 Mbit/s"
throttle_node 6 5mbit
expect_rc 1 "locate names a suspect" ctl_to "$T/node.json" --quiet --output json locate
python3 - "$T/node.json" <<'PY' || fail "node006 was not named alone (see $T/node.json)"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["suspects"]
print(json.dumps(s, indent=1)[:1500])
assert [x["name"] for x in s] == ["node006"], s
x = s[0]
# toward it: its receive side; its own sends slow too when their ACKs queue behind the throttle
assert x["kind"] == "node" and x["side"] in ("receive", "both") and x["rack"] == "r1", x
assert x["confidence"] == "high" and x["slow_pairs"] >= 2 and x["below_pct"] > 50, x
assert all("node006" in (p["to"], p["from"]) and p["slow"] for p in x["evidence"]), x
assert any(p["to"] == "node006" for p in x["evidence"]), x
assert d["rounds"] == 2 and d["pairs_probed"] == 2 * len(d["pairs"]) and d["bytes_sent"] > 0, d
PY
echo "ok: node006 named alone, with its pairs as evidence"
step "doctor --locate judges the same: fabric_suspect on node006"
expect_rc 1 "doctor --locate has a finding" ctl_to "$T/doctor.txt" --quiet doctor --locate --window 1 --save-facts "$T/facts.json"
cat "$T/doctor.txt"
check "doctor names node006's link" grep -Eq '^(CRITICAL|WARNING) fabric_suspect: the link of node node006 is slow' "$T/doctor.txt"
check "the saved facts carry the suspect" grep -q '"name": "node006"' "$T/facts.json"
expect_rc 1 "the saved facts judge the same" ctl_to "$T/doctor2.txt" doctor --facts "$T/facts.json"
check "and name it again" grep -q 'fabric_suspect: the link of node node006' "$T/doctor2.txt"
clear_faults

step "rack r2's uplink throttled (toward the rack) to 5 Mbit/s"
throttle_uplink 2 5mbit
expect_rc 1 "locate names a suspect" ctl_to "$T/uplink.txt" --quiet locate
cat "$T/uplink.txt"
# toward the rack: its receive side, or both when its pairs' ACKs out of the rack queue behind it
check "the uplink of rack r2 is named" grep -Eq '^SUSPECT uplink r2 \(rack r2\), (receive side|both directions): ' "$T/uplink.txt"
check "it is the only suspect" test "$(grep -c '^SUSPECT' "$T/uplink.txt")" = 1
clear_faults

step "bad input: a node without the --by label; nothing is run"
expect_rc 2 "a label no node carries" ctl_to "$T/bad.txt" locate --by leaf
expect_rc 2 "--slow-pct out of range" ctl_to "$T/bad.txt" locate --slow-pct 99
ctl locate --by leaf > "$T/bad.txt" 2>&1 || true
grep -q "node 'node001' has no label 'leaf' (--by)" "$T/bad.txt" || fail "the refusal does not name the node and the label"
echo "ok: refusals name what is wrong"
