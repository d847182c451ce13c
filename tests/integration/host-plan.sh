#!/usr/bin/env bash
# nettune-agent state/plan against real veth links in a namespace this test makes:
# the live MTU is read over rtnetlink, plan shows the exact field diff and changes
# nothing, a matching MTU plans no change, and every DCB field is refused on veth
# with the clear unsupported error (exit 2) while the MTU stays untouched.
. "$NETTUNE_TOP/tests/lib/common.sh"
require_root
require_cmd ip python3
[ -x "$AGENT" ] || skip "agent not built ($AGENT)"

ns=$(netns_add host)
a=hA$NT_ID b=hB$NT_ID
veth_pair "$ns" "$a" "$ns" "$b"
run() { ip netns exec "$ns" "$AGENT" "$@"; }
mtu_of() { ip -n "$ns" -o link show "$1" | sed -n 's/.* mtu \([0-9]*\) .*/\1/p'; }

policy() {     # policy FILE SPEC-JSON [INTERFACES-JSON]
        printf '{"apiVersion":"nettune/v1","kind":"Policy","metadata":{"name":"host-plan"},"targets":{"interfaces":%s},"spec":%s}\n' \
                "${3:-[\"hA*\"]}" "$2" > "$1"
}

step "state reads the live links"
run state --output json > "$T/state.json"
check "state lists both veth ends with mtu 1500 and driver veth" python3 - "$T/state.json" "$a" "$b" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
by = {i["name"]: i for i in doc["interfaces"]}
for name in sys.argv[2:]:
    i = by[name]
    assert i["state"] == {"mtu": 1500}, i
    assert i["driver"] == "veth", i
    assert "pfc" in i["unsupported"] and "mtu" not in i["unsupported"], i
    assert i["counters"] == [], i
assert "lo" not in by
PY
run state --interfaces "$a" > "$T/state.txt"
check "veth has no mlx5 congestion parameters" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert all(i["cc_params"] == {} for i in d["interfaces"])' "$T/state.json"
# A sysfs/debugfs tree the test builds: the interface's PCI device and its mlx5 cc_params.
mkdir -p "$T/sys/devices/0000:08:00.0" "$T/sys/class/net/$a" "$T/debug/mlx5/0000:08:00.0/cc_params"
ln -s ../../../devices/0000:08:00.0 "$T/sys/class/net/$a/device"
echo 2000 > "$T/debug/mlx5/0000:08:00.0/cc_params/rp_time_reset"
printf '{ "state_dir": "%s/var", "sysfs_root": "%s/sys", "debugfs_root": "%s/debug" }\n' "$T" "$T" "$T" > "$T/cc.json"
run --config "$T/cc.json" state --interfaces "$a" --output json > "$T/cc-state.json"
check "state reports the mlx5 debugfs cc_params read-only" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["interfaces"][0]["cc_params"] == {"rp_time_reset": 2000}, d' "$T/cc-state.json"
run --config "$T/cc.json" state --interfaces "$a" | grep -q "cc_param rp_time_reset: 2000" || fail "text state shows the cc_param"
check "text state names the interface and its mtu" grep -q "^interface '$a' (ifindex [0-9]*, driver veth)" "$T/state.txt"
check "only the requested interface is shown" test "$(grep -c '^interface' "$T/state.txt")" -eq 1

step "plan shows the mtu diff and changes nothing"
policy "$T/mtu.json" '{"mtu":9000}'
run plan "$T/mtu.json" > "$T/plan.txt"
check "plan prints mtu 1500 -> 9000" grep -qx "  mtu: 1500 -> 9000" "$T/plan.txt"
check "plan counts one change" grep -q "^1 change planned; nothing was changed" "$T/plan.txt"
check "mtu is still 1500 after plan" test "$(mtu_of "$a")" = 1500
run --output json plan "$T/mtu.json" > "$T/plan.json"
check "json plan carries the entry" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["changes"] == 1, d
t = d["targets"][0]
assert t["kind"] == "interface" and t["name"] == sys.argv[2], t
assert t["changes"] == [{"field": "mtu", "key": "mtu", "from": 1500, "to": 9000}], t   # typed
' "$T/plan.json" "$a"

step "a matching live state plans nothing"
ip -n "$ns" link set "$a" mtu 9000
run plan "$T/mtu.json" > "$T/plan2.txt"
check "plan reports no changes" grep -q "^interface '$a': no changes" "$T/plan2.txt"
check "zero changes" grep -q "^0 changes planned" "$T/plan2.txt"

step "DCB fields are refused on veth before anything is touched"
for spec in '{"mtu":1500,"pfc":{"priorities":[3]}}' '{"trust":"dscp","dscp_to_priority":{"26":3}}' \
            '{"ets":{"priority_to_tc":[0,1,2,3,4,5,6,7],"tc_bandwidth_pct":[50,0,0,50,0,0,0,0],"tc_tsa":["ets","strict","strict","ets","strict","strict","strict","strict"]}}'; do
        policy "$T/dcb.json" "$spec"
        expect_rc 2 "plan refuses $spec" run plan "$T/dcb.json" 2> "$T/err.txt"
        check "the error names interface, driver and DCB" grep -q "interface '$a' (driver veth) does not support DCB (needed for .*); nothing was changed" "$T/err.txt"
done
check "mtu untouched by the refused plans" test "$(mtu_of "$a")" = 9000

step "bad input exits 2"
echo '{"apiVersion":"nettune/v1","kind":"Policy","spec":{"mtu":70000}}' > "$T/bad.json"
expect_rc 2 "out-of-range mtu policy" run plan "$T/bad.json"
policy "$T/none.json" '{"mtu":9000}' '["nosuch*"]'
expect_rc 2 "a glob that matches nothing" run plan "$T/none.json" 2> "$T/err2.txt"
check "the error quotes the glob" grep -q "no interface matches 'nosuch\*' (interfaces here: " "$T/err2.txt"
step "globs never select loopback or virtual devices; exact names do"
# (this kernel has no dummy driver: a tap and a bridge stand for the software devices)
ip netns exec "$ns" ip tuntap add "hD$NT_ID" mode tap
ip -n "$ns" link add "hR$NT_ID" type bridge
lo_mtu=$(mtu_of lo)
printf '{ "state_dir": "%s/state" }\n' "$T" > "$T/agent.json"
policy "$T/star.json" '{"mtu":9000}' '["*"]'
run --output json plan "$T/star.json" > "$T/star-plan.json"
check "'*' plans the two veth ends and nothing else" python3 - "$T/star-plan.json" "$a" "$b" <<'PY'
import json, sys
names = sorted(t["name"] for t in json.load(open(sys.argv[1]))["targets"])
assert names == sorted(sys.argv[2:]), names
PY
rc=0; run --config "$T/agent.json" apply "$T/star.json" >/dev/null 2>&1 || rc=$?
check "apply '*' commits (exit $rc)" [ "$rc" -eq 0 ]
check "the veth ends are at 9000" [ "$(mtu_of "$a")" = 9000 ] && [ "$(mtu_of "$b")" = 9000 ]
check "lo is untouched ($(mtu_of lo))" [ "$(mtu_of lo)" = "$lo_mtu" ]
check "the tap and the bridge are untouched" [ "$(mtu_of "hD$NT_ID")" = 1500 ] && [ "$(mtu_of "hR$NT_ID")" = 1500 ]
policy "$T/dummies.json" '{"mtu":9000}' "[\"hD*\"]"
rc=0; run plan "$T/dummies.json" >/dev/null 2>"$T/err3.txt" || rc=$?
check "a glob that only a tap matches: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "the error says why" grep -q "loopback and virtual devices match only by their exact name" "$T/err3.txt"
policy "$T/exact.json" '{"mtu":9000}' "[\"hD$NT_ID\"]"
rc=0; run --config "$T/agent.json" apply "$T/exact.json" >/dev/null 2>&1 || rc=$?
check "the tap by its exact name: applied (exit $rc)" [ "$rc" -eq 0 ] && [ "$(mtu_of "hD$NT_ID")" = 9000 ]
echo "host-plan: ok"
