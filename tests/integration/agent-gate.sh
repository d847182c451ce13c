#!/usr/bin/env bash
# The TCP probe gate inside a transaction: a tbf rate limit added between the
# baseline and the post-change probe (NETTUNE_TEST_HOOK_AFTER_APPLY, test-only)
# makes the gate fail, and the agent rolls the MTU back (exit 1). Without the
# limit the same change commits. The threshold is 75%: tbf at 200 Mbit/s costs
# over 90%, while veth noise on a busy 2-core machine (make check-stressed)
# exceeds 50%.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd tc ss python3

ns=$(netns_add ag)
nsp=$(netns_add agp)
ifc=ga$NT_ID
veth_pair "$ns" "$ifc" "$nsp" gb$NT_ID 10.205.0.1/24 10.205.0.2/24
bg ip netns exec "$nsp" "$AGENT" probe-server --listen 10.205.0.2:18515 --allow 10.205.0.0/24
wait_for 10 sh -c "ip netns exec '$nsp' ss -ltnH 'sport = :18515' | grep -q LISTEN" || fail "probe-server did not start"
verify='{"probe":"tcp","peer":"10.205.0.2:18515","duration_ms":700,"runs":3,"settle_ms":0,"max_regression_pct":75}'
policy_file "$T/p.json" jumbo "$ifc" 9000 "$verify"
echo "{ \"state_dir\": \"$T/state\" }" >"$T/agent.json"
A() { ip netns exec "$ns" "$AGENT" --config "$T/agent.json" "$@"; }

step "tbf added after the apply: the gate fails, the MTU is rolled back"
rc=0
NETTUNE_TEST_HOOK_AFTER_APPLY="tc qdisc add dev $ifc root tbf rate 200mbit burst 32k latency 10ms" \
        A --output json apply "$T/p.json" >"$T/r.json" || rc=$?
check "apply exits 1 (got $rc)" [ "$rc" -eq 1 ]
echo "baseline $(jq_py "$T/r.json" 'd["probe"]["baseline_gbps"]') Gb/s, post $(jq_py "$T/r.json" 'd["probe"]["post_gbps"]') Gb/s"
check "restored by the gate" [ "$(jq_py "$T/r.json" 'd["restored_by"]')" = gate ]
check "three baseline runs journaled" [ "$(jq_py "$T/r.json" 'len(d["probe"]["baseline"]["runs"])')" = 3 ]
check "post below 0.25 Gb/s" python3 -c "import sys; sys.exit(0 if $(jq_py "$T/r.json" 'd["probe"]["post_gbps"]') < 0.25 else 1)"
check "MTU back to 1500" [ "$(mtu_of "$ns" "$ifc")" = 1500 ]
A --output json history >"$T/h.json"
check "journal: rolled_back" [ "$(jq_py "$T/h.json" 'd[0]["state"]')" = rolled_back ]
# The way back is timed from the gate's decision to the interface read back.
check "result: the rollback took a measured time" \
        python3 -c "import sys; sys.exit(0 if 0 < $(jq_py "$T/r.json" 'd["rollback_ms"]') < 60000 else 1)"
check "journal: the same rollback_ms" [ "$(jq_py "$T/h.json" 'd[0]["rollback_ms"]')" = "$(jq_py "$T/r.json" 'd["rollback_ms"]')" ]

step "without the limit the change commits"
tc -n "$ns" qdisc del dev "$ifc" root
expect_rc 0 "apply commits" A apply "$T/p.json"
check "MTU 9000" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]

step "the fabric on fire: a gated rollback is defeated by its own gate, --no-gate restores"
policy_file "$T/p4.json" jumbo "$ifc" 4000 "$verify"
expect_rc 0 "a second revision of the layer commits" A apply "$T/p4.json"
check "MTU 4000" [ "$(mtu_of "$ns" "$ifc")" = 4000 ]
fire="tc qdisc replace dev $ifc root tbf rate 200mbit burst 32k latency 10ms"
rc=0; NETTUNE_TEST_HOOK_AFTER_APPLY=$fire A --output json rollback >"$T/rb.json" || rc=$?
check "the gated rollback fails (exit $rc)" [ "$rc" -ne 0 ]
check "  its gate undid it: MTU still 4000" [ "$(mtu_of "$ns" "$ifc")" = 4000 ]
tc -n "$ns" qdisc del dev "$ifc" root
expect_rc 0 "rollback --no-gate" sh -c "NETTUNE_TEST_HOOK_AFTER_APPLY='$fire' ip netns exec '$ns' '$AGENT' \
        --config '$T/agent.json' --output json rollback --no-gate >'$T/rbn.json'"
check "  restored: MTU 9000" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
check "  committed, no gate ran" [ "$(jq_py "$T/rbn.json" 'd["result"], "gate" in d.get("probe", {})')" = "committed False" ]
tc -n "$ns" qdisc del dev "$ifc" root 2>/dev/null || true
