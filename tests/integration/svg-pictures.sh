#!/usr/bin/env bash
# nettunectl's pictures that need no fleet, rendered with rsvg-convert and read back
# (tests/lib/svg_check.py: the SVG's elements, then the rendered pixels where they
# are): headroom's bars per speed and cable length (every pair drawn in its colour,
# the asked one outlined), tune's plot (readable ticks on both y axes, the noise band,
# doctor's floor), and doctor's picture of a saved fleet's facts (the hops its findings
# blame drawn vermillion, a text equivalent in <title>/<desc>). The pictures made on a
# fleet are checked in doctor-fleet.sh (the mismatching hop) and ctl-halt.sh (every
# wave of a halted rollout).
. "$NETTUNE_TOP/tests/lib/common.sh"
require_cmd python3 rsvg-convert
SVGCHECK=$NETTUNE_TOP/tests/lib/svg_check.py

step "headroom --svg"
"$CTL" headroom --speed-gbps 100 --cable-m 40 --mtu 9216 --svg "$T/h.svg" >"$T/h.txt"
check "renders: 40 bars, each in its colour, 100 Gb/s over 40 m outlined" python3 "$SVGCHECK" headroom "$T/h.svg"
check "the asked bar is the 100 Gb/s, 40 m one" grep -q 'class="bar asked" id="bar-100-40"' "$T/h.svg"
size=$("$CTL" headroom --speed-gbps 400 --cable-m 300 --mtu 9216 --output json | python3 -c 'import json,sys; print(json.load(sys.stdin)["size_bytes"])')
check "each bar is the calculator's size (400 Gb/s, 300 m: $size)" grep -q "data-speed-gbps=\"400\" data-cable-m=\"300\" data-size-bytes=\"$size\"" "$T/h.svg"
check "its text equivalent lists every bar" [ "$(grep -Ec '^[0-9]+ +[0-9]+ +[0-9]+$' "$T/h.txt")" -eq 40 ]
rc=0; "$CTL" headroom --speed-gbps 100 --cable-m 40 --mtu 9216 --svg "$T/x.svg" --node n1 2>"$T/e" || rc=$?
check "--node without --port is refused (exit $rc)" [ "$rc" -eq 2 ]
check "naming both" grep -q -- "--node and --port go together" "$T/e"

step "tune's plot"
NETTUNE_TUNE_SVG="$T/tune.svg" "$BUILD/unit-tests" tune >"$T/tune.txt" 2>&1 || fail "unit-tests tune: $(tail -3 "$T/tune.txt")"
check "renders: readable ticks on every axis, axis titles, the noise band, doctor's floor" python3 "$SVGCHECK" tune "$T/tune.svg"

step "doctor --svg of saved facts"
rc=0; "$CTL" doctor --facts "$NETTUNE_TOP/tests/data/doctor/fleet/facts.json" --svg "$T/d.svg" >"$T/d.txt" || rc=$?
check "doctor judged it (exit $rc: critical findings)" [ "$rc" -eq 3 ]
check "renders; the switch port every mismatch's fix changes is vermillion" python3 - "$SVGCHECK" "$T/d.svg" <<'PY'
import sys, importlib.util
spec = importlib.util.spec_from_file_location("svg_check", sys.argv[1]); m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
root, img = m.parse(sys.argv[2]), m.render(sys.argv[2])
hops = {g.get("data-hop"): g for g in root.iter(m.NS + "g") if g.get("class") == "hop"}
assert set(hops) == {"gpu1:ens1f0np0", "leaf1:swp1"}, hops
sw = [t.text for t in hops["leaf1:swp1"].iter(m.NS + "text")]
host = [t.text for t in hops["gpu1:ens1f0np0"].iter(m.NS + "text")]
# blamed (X) where the fix changes the switch; the host end only involved (!) in it
assert "X critical mtu_mismatch" in sw and "! critical mtu_mismatch" in host, (sw, host)
assert "X critical pause_storm" in host            # a finding on the host alone is the host's
assert "MTU 1500" in sw and "MTU 9000" in host
for g in hops.values():
    head = [r for r in g.iter(m.NS + "rect") if r.get("class") == "hop-head"][0]
    rgb = m.pixel(img, float(head.get("x")) + float(head.get("width")) - 5, float(head.get("y")) + 4)
    assert m.near(rgb, m.OKABE["vermillion"]), rgb
PY
check "its text equivalent names the hops and their findings" grep -q "switch port leaf1 swp1: MISMATCH (critical mtu_mismatch" "$T/d.svg"

step "doctor --node-labels of saved facts"
"$CTL" doctor --facts "$NETTUNE_TOP/tests/data/doctor/fleet/facts.json" --node-labels "$T/labels.txt" >/dev/null || true
"$CTL" --output json doctor --facts "$NETTUNE_TOP/tests/data/doctor/fleet/facts.json" >"$T/report.json" || true
check "each node's verdict and codes are its findings' (most severe first, within 63 characters)" python3 - "$T/labels.txt" "$T/report.json" <<'PY'
import json, sys
got = {l.split()[0]: dict(kv.split("=", 1) for kv in l.split()[1:]) for l in open(sys.argv[1])}
rep = json.load(open(sys.argv[2]))
assert set(got) == {n["name"] for n in rep["nodes"] if n["collected"]}, got
for node, labels in got.items():
    mine = [f for f in rep["findings"] if node in f["nodes"] and f["severity"] != "info"]
    want = "broken" if any(f["severity"] == "critical" for f in mine) else "degraded" if mine else "ok"
    assert labels["nettune.io/lossless"] == want, (node, labels, want)
    codes = labels["nettune.io/findings"].split(".") if labels["nettune.io/findings"] else []
    order = []
    for f in mine:
        if f["code"] not in order:
            order.append(f["code"])
    assert codes == [c for c in order if c in codes] and set(codes) <= set(order), (node, codes, order)
    assert len(labels["nettune.io/findings"]) <= 63 and (codes or not mine), (node, codes)
PY

step "headroom --svg --node --port against an agent"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
fleet_up 1
rc=0; ctl headroom --speed-gbps 100 --cable-m 40 --mtu 9216 --svg "$T/hp.svg" --node node001 --port nosuch >/dev/null 2>"$T/err" || rc=$?
check "a port the node does not report: exit $rc, named" [ "$rc" -eq 2 ] && grep -q "\-\-port 'nosuch': node 'node001' reports no such interface or switch port" "$T/err"
rc=0; ctl headroom --speed-gbps 100 --cable-m 40 --mtu 9216 --svg "$T/hp.svg" --node node009 --port nt0 >/dev/null 2>"$T/err" || rc=$?
check "a node not in the inventory: exit $rc, named" [ "$rc" -eq 2 ] && grep -q "\-\-node 'node009': not in the inventory" "$T/err"
rc=0; ctl headroom --speed-gbps 100 --cable-m 40 --mtu 9216 --svg "$T/hp.svg" --node node001 --port nt0 >"$T/hp.txt" 2>"$T/err" || rc=$?
check "a veth reports no receive buffers: exit $rc, said so" [ "$rc" -eq 0 ] && grep -q "no receive buffers reported: the picture has no buffer line" "$T/err"
check "and the picture is drawn without a buffer line" python3 "$SVGCHECK" headroom "$T/hp.svg"
