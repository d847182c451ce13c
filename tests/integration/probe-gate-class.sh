#!/usr/bin/env bash
# The gate judges the class its own probe rode (issue #43). A ConnectX port
# (tests/nicmodel mlx5) that trusts DSCP with the firmware's map (DSCP >> 3: 0 -> 0,
# 24 and 26 -> 3) and PFC on 3, and an MTU change gated by a real TCP probe: the
# probe leaves by a real veth that carries the model device's name and ifindex (the
# model answers route lookups from the kernel of its namespace, --kernel-routes), so
# its traffic is real while the agent reads and writes the model. A probe told
# verify.dscp 0 rides priority 0 after the change: its rate passes, but it proves
# nothing of the lossless class, so the gate fails (verdict lossy_class, exit 1) and
# the model ends byte-for-byte where it began. With the DSCP derived from the port's
# map (24, the lowest on priority 3) the same change commits and the gate says the
# probe rode priority 3.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/tests/lib/nicmodel.sh"
require_root
require_cmd ss python3

nsa=$(netns_add gca)
nsb=$(netns_add gcb)
ifc=ens1f0np0
veth_pair "$nsa" "$ifc" "$nsb" "gc$NT_ID" 10.213.0.1/24 10.213.0.2/24
idx=$(ip netns exec "$nsa" cat "/sys/class/net/$ifc/ifindex")
bg ip netns exec "$nsb" "$AGENT" probe-server --listen 10.213.0.2:18515 --allow 10.213.0.0/24
wait_for 10 sh -c "ip netns exec '$nsb' ss -ltnH 'sport = :18515' | grep -q LISTEN" || fail "probe-server did not start"

NM_SOCK=$T/nl.sock NM_CTL=$T/ctl.sock NM_ETHTOOL=$T/ethtool.sock
mkdir -p "$T/sys"
bg ip netns exec "$nsa" "$NICMODEL" serve --socket "$NM_SOCK" --control "$NM_CTL" --ethtool "$NM_ETHTOOL" \
        --sysfs "$T/sys" --log "$T/model.log" --link-up-ms 100 --kernel-routes "mlx5:$ifc:$idx:dscp" >"$T/model.out" 2>&1
wait_for 10 grep -qx ready "$T/model.out" || fail "the NIC model did not start: $(cat "$T/model.out")"
cat >"$T/a.json" <<JSON
{ "state_dir": "$T/state", "sysfs_root": "$T/sys" }
JSON
A() { NETTUNE_NETLINK_SOCKET=$NM_SOCK NETTUNE_ETHTOOL_SOCKET=$NM_ETHTOOL ip netns exec "$nsa" "$AGENT" --config "$T/a.json" "$@"; }
verify='{"probe":"tcp","peer":"10.213.0.2:18515","duration_ms":300,"runs":1,"settle_ms":0,"max_regression_pct":95'
nm_ctl() { "$NICMODEL" ctl "$NM_CTL" "$@"; }
nm_ctl pfc "$ifc" 0x08 >/dev/null
nm_state >"$T/start"

step "verify.dscp 0: the probe rides priority 0, the gate fails, the change is rolled back"
policy_file "$T/lossy.json" class "$ifc" 9000 "$verify"',"dscp":0}'
A plan "$T/lossy.json" >"$T/lossy.plan"
check "plan says the gate would fail" grep -q "verify.dscp 0 maps to priority 0 on '$ifc', which is not PFC-enabled: the gate measures a lossy class, and fails" "$T/lossy.plan"
rc=0; A --output json apply "$T/lossy.json" >"$T/lossy.out" 2>"$T/lossy.err" || rc=$?
cat "$T/lossy.err"
check "apply exits 1 (got $rc)" [ "$rc" -eq 1 ]
check "the post probe measured a rate" python3 -c "import json,sys; sys.exit(0 if json.load(open('$T/lossy.out'))['probe']['post_gbps'] > 0 else 1)"
check "verdict lossy_class, the probe rode priority 0" [ "$(jq_py "$T/lossy.out" \
        '(d["probe"]["gate"]["verdict"], d["probe"]["gate"]["rode_priority"], d["restored_by"])')" = "('lossy_class', 0, 'gate')" ]
check "the reason names the priorities" grep -q "the probe's traffic rode priority 0, not the lossless 3: the change is not what the workload will see (DSCP 0 through the DSCP map of '$ifc' (trust dscp))" "$T/lossy.err"
nm_wait_settled
nm_state >"$T/now"
check "the model is byte-for-byte where it began" cmp -s "$T/start" "$T/now"

step "the DSCP from the port's map (24): the probe rides priority 3, the change commits"
policy_file "$T/lossless.json" class "$ifc" 9000 "$verify}"
rc=0; A --output json apply "$T/lossless.json" >"$T/ok.out" 2>"$T/ok.err" || rc=$?
cat "$T/ok.err"
check "apply commits (exit $rc)" [ "$rc" -eq 0 ]
check "the gate passed, the probe rode priority 3 on DSCP 24" [ "$(jq_py "$T/ok.out" \
        '(d["probe"]["gate"]["verdict"], d["probe"]["gate"]["rode_priority"], d["probe"]["post"]["path"]["dscp"])')" = "('pass', 3, 24)" ]
check "the model's MTU is 9000" sh -c "'$NICMODEL' ctl '$NM_CTL' dump | grep -q 'mtu 9000'"
