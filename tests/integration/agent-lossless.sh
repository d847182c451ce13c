#!/usr/bin/env bash
# The lossless class on live state: plan and apply judge each target as it is and as
# the change leaves it (live with the policy's fields put over it). A partial policy
# that would make a consistent target inconsistent is refused with exit 2 and the
# device is untouched; one that keeps it consistent goes through; a target that is
# inconsistent already gets a note; a waiver in checks.allow lets a change through.
# Against a ConnectX host port (the mlx5 model behind the netlink seam, an MLNX_OFED
# ecn tree) and a simulated NVUE switch behind a real sshd, both managed by one agent.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/tests/lib/nicmodel.sh"
. "$NETTUNE_TOP/tests/integration/agent-switch.inc"
require_root
require_sshd
require_cmd python3

HOST_IF=ens1f0np0
AS_NS=$(netns_add lsl)
as_switch leaf1 nvue swp1,swp2
as_switches_up
nicmodel_start "mlx5:$HOST_IF:4"
ofed_ecn_tree "$HOST_IF"
python3 - "$T/agent.json" "$T" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c.update({"sysfs_root": sys.argv[2] + "/sys", "settle_ms": 10000})
json.dump(c, open(sys.argv[1], "w"), indent=1)
EOF
A() { NETTUNE_NETLINK_SOCKET=$NM_SOCK ip netns exec "$AS_NS" "$AGENT" --config "$T/agent.json" "$@"; }
policy() {      # policy FILE NAME TARGETS_JSON SPEC_JSON [EXTRA] [OVERRIDES_JSON]
        local over=${6:+, \"overrides\": $6}
        cat >"$1" <<EOF
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "$2"$over }, "targets": $3,
  "spec": $4, "verify": { "probe": "none" }${5:+, $5} }
EOF
}
host_state() { nm_state; }                      # the model: DCB, links, the ecn tree
switch_state() { swtree leaf1; }
host='{ "interfaces": ["'$HOST_IF'"] }'
sw='{ "switches": ["leaf1"] }'

step "both ends made lossless on priority 3 (DSCP 26, ECN on queue 3, DCQCN on 3)"
nm_profile roce-lossless.json "$T/host.json" "$HOST_IF" keep-host-ecn
expect_rc 0 "the host takes roce-lossless" A apply "$T/host.json"
policy "$T/sw.json" sw-lossless "$sw" '{ "trust": "dscp", "dscp_to_priority": { "26": 3, "48": 6 },
  "pfc": { "priorities": [3] }, "ecn": { "queues": [3], "min_threshold_bytes": 150000,
  "max_threshold_bytes": 1500000, "mark_probability_pct": 100 } }'
expect_rc 0 "the switch takes the same class" A apply "$T/sw.json"

step "an ECN-only change that turns marking off on the lossless queue: refused, the switch untouched"
policy "$T/ecn-off.json" ecn-off "$sw" '{ "ecn": { "queues": [3], "enabled": false } }' '' '["sw-lossless"]'
expect_rc 0 "validate alone cannot judge it (no pfc in the document)" A validate "$T/ecn-off.json"
before=$(switch_state)
m0=$(swdump leaf1 'd["mutations"]')
rc=0; A plan "$T/ecn-off.json" >"$T/plan.out" 2>"$T/plan.err" || rc=$?
cat "$T/plan.err"
check "plan exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "plan names the code, the port and both paths" grep -q \
        "switch 'leaf1' port 'swp1': \$.spec.ecn.enabled: ecn_queue_not_lossless: priority 3 is lossless (pfc.priorities (live: \[3\]))" \
        "$T/plan.err"
rc=0; A apply "$T/ecn-off.json" >"$T/apply.out" 2>"$T/apply.err" || rc=$?
cat "$T/apply.err"
check "apply exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "apply says so and that nothing was changed" grep -q "ecn_queue_not_lossless: .*nothing was changed" "$T/apply.err"
check "nothing was sent to the switch" [ "$(swdump leaf1 'd["mutations"]')" = "$m0" ]
check "the switch's configuration is byte-identical" [ "$(switch_state)" = "$before" ]

step "an ECN-only change to a queue that is not the lossless one keeps the class: it goes through"
policy "$T/ecn4.json" ecn-queue4 "$sw" '{ "ecn": { "queues": [4], "min_threshold_bytes": 150000,
  "max_threshold_bytes": 1500000, "mark_probability_pct": 100 } }' '' '["sw-lossless"]'
expect_rc 0 "apply ECN on queue 4" A apply "$T/ecn4.json"
check "queue 4 marks now" [ "$(swdump leaf1 'd["nvue"]["applied"]["qos"]["congestion-control"]["default-global"]["traffic-class"]["4"]["ecn"]')" = enable ]
check "queue 3 still marks" [ "$(swdump leaf1 'd["nvue"]["applied"]["qos"]["congestion-control"]["default-global"]["traffic-class"]["3"]["ecn"]')" = enable ]

step "a PFC-only change that makes priority 5 lossless without a DSCP or ECN: refused"
policy "$T/pfc5.json" pfc5 "$sw" '{ "pfc": { "priorities": [3, 5] } }' '' '["sw-lossless"]'
before=$(switch_state)
rc=0; A apply "$T/pfc5.json" 2>"$T/pfc5.err" || rc=$?
cat "$T/pfc5.err"
check "apply exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "the refusal names \$.spec.pfc.priorities[1]" grep -q "\$.spec.pfc.priorities\[1\]" "$T/pfc5.err"
check "the switch is byte-identical" [ "$(switch_state)" = "$before" ]

step "a host_ecn-only change that turns DCQCN off on the lossless priority: refused, the NIC untouched"
policy "$T/rp-off.json" rp-off "$host" '{ "host_ecn": { "priorities": [3], "reaction_point": false } }' '' '["roce-lossless"]'
host_state >"$T/h0"
rc=0; A apply "$T/rp-off.json" 2>"$T/rp.err" || rc=$?
cat "$T/rp.err"
check "apply exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "the refusal names the interface, the code and \$.spec.host_ecn.reaction_point" grep -q \
        "interface '$HOST_IF': \$.spec.host_ecn.reaction_point: host_ecn_priority_mismatch: DCQCN is off for priority 3" "$T/rp.err"
host_state >"$T/h1"
check "the model and its ecn tree are byte-identical" cmp -s "$T/h0" "$T/h1"
check "the reaction point of priority 3 is still on" [ "$(cat "$T/sys/class/net/$HOST_IF/ecn/roce_rp/enable/3")" = 1 ]

step "the same change with its rule waived goes through"
policy "$T/rp-off-ok.json" rp-off-ok "$host" '{ "host_ecn": { "priorities": [3], "reaction_point": false } }' \
        '"checks": { "allow": ["host_ecn_priority_mismatch"] }' '["roce-lossless"]'
expect_rc 0 "apply with checks.allow" A apply "$T/rp-off-ok.json"
check "the reaction point of priority 3 is off" [ "$(cat "$T/sys/class/net/$HOST_IF/ecn/roce_rp/enable/3")" = 0 ]

step "an inconsistent target gets a note on a change that leaves the class as it is, and the change goes through"
policy "$T/mtu.json" mtu "$host" '{ "mtu": 4200, "pfc": { "priorities": [3] } }' '' '["roce-lossless"]'
A --output json plan "$T/mtu.json" >"$T/mtu.plan"
python3 -c "import json,sys; [print('note:', n) for n in json.load(open(sys.argv[1]))['notes']]" "$T/mtu.plan"
check "the note says it was so before" grep -q "lossless class, so before this change already: interface '$HOST_IF': .*host_ecn_priority_mismatch" \
        <(jq_py "$T/mtu.plan" 'd["notes"]')
expect_rc 0 "apply the MTU" A apply "$T/mtu.json"
check "the MTU changed" grep -q "mtu 4200" <(nm_ctl dump)

step "a change that makes the class whole again; its rollback leaves it as it was, never refused"
policy "$T/rp-on.json" rp-on "$host" '{ "host_ecn": { "priorities": [3], "reaction_point": true } }' '' '["roce-lossless", "rp-off-ok"]'
expect_rc 0 "apply DCQCN on again" A apply "$T/rp-on.json"
check "the reaction point of priority 3 is on" [ "$(cat "$T/sys/class/net/$HOST_IF/ecn/roce_rp/enable/3")" = 1 ]
expect_rc 0 "rollback (the snapshot had it off: the way back is never refused)" A rollback --policy rp-on
check "the reaction point of priority 3 is off again" [ "$(cat "$T/sys/class/net/$HOST_IF/ecn/roce_rp/enable/3")" = 0 ]
