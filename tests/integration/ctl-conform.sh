#!/usr/bin/env bash
# nettunectl conform and apply --profile on real agents (serve, mutual TLS): node001 a
# host (a veth, no switch), node002 the fabric node whose agent manages leaf1 (the
# switch simulator, NVUE, ports swp1 and swp2). The factory leaf1 departs from NVUE's
# `qos roce` lossless profile; `apply --profile` rolls the profile out as the policy it
# is; conform then finds nothing. The lab is then given two departures on every port
# (PFC on 4 as well, DSCP 48 on priority 0) and conform reports exactly those, live and
# profile values and the owning policy, exit 1; --node narrows to a node the profile
# does not target (exit 0); the profile's unmanaged settings are listed as not
# verifiable; a host profile on a NIC without DCB is not verifiable there (exit 3).
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_sshd
require_cmd python3
export NETTUNE_PROFILE_PATH=$NETTUNE_TOP/policies/profiles/vendor
PROFILE=nvue-roce-lossless-cl5

N=2
fleet_certs "$N"
fleet_hub
for ((i = 1; i <= N; i++)); do fleet_node "$i"; done
fleet_inventory "$N"
fleet_leaf1 2 swp1,swp2
for ((i = 1; i <= N; i++)); do fleet_start_agent "$i" 2>>"$T/agents.log"; done
for ((i = 1; i <= N; i++)); do wait_for 20 agent_up "$i" || fail "agent $i did not come up (see $T/agents.log)"; done

# conform_json FILE ARGS...: nettunectl --output json conform into FILE; its exit status in $rc.
conform_json() { local f=$1; shift; rc=0; ctl --output json conform "$@" >"$f" 2>"$f.err" || rc=$?; cat "$f.err"; }
departures() { json_get "$1" "sorted((x['node'], x['key'], str(x['live']), str(x['profile']), x['owner']) for x in d['departures'])"; }

step "a factory leaf1 departs from $PROFILE"
conform_json "$T/c0.json" --profile "$PROFILE"
check "exit 1 on a departure (got $rc)" [ "$rc" -eq 1 ]
check "every departure is on leaf1, read by node002, owned by no policy" [ "$(json_get "$T/c0.json" \
        "sorted(set((x['node'], x['target'], x['owner']) for x in d['departures']))")" = "[('node002', 'leaf1', None)]" ]
check "PFC on 3 is missing on both ports" [ "$(json_get "$T/c0.json" \
        "sorted(x['key'] for x in d['departures'] if x['field'] == 'pfc')")" = "['ports.swp1.pfc.priorities', 'ports.swp2.pfc.priorities']" ]
check "each departure carries the profile's source" [ "$(json_get "$T/c0.json" \
        "all('Cumulus Linux 5.12' in x['source'] for x in d['departures'])")" = True ]
check "node001 has no switch: not targeted, not a departure" [ "$(json_get "$T/c0.json" "d['summary']['not_targeted']")" = 1 ]

step "apply --profile: the profile rolled out as the policy '$PROFILE'"
# a vendor profile has no selector: the rollout's nodes are the inventory's, here the fabric node alone
json_get "$T/inventory.json" "__import__('json').dumps(dict(d, nodes=[n for n in d['nodes'] if n['name'] == 'node002']))" \
        >"$T/inventory-fabric.json"
expect_rc 0 "apply --profile $PROFILE" ip netns exec "$HUB" "$CTL" --inventory "$T/inventory-fabric.json" \
        --db "$T/ctl.db" --output json apply --profile "$PROFILE" --canary 0 --wave-size 100% --confirm-timeout 60
check "node002 committed '$PROFILE'" applied_once 2 "$PROFILE"
check "leaf1 has PFC on 3 and DSCP 48 on 6" [ "$("$SIM" --dialect nvue --state "$LEAF/state.json" --dump | python3 -c '
import json, sys
a = json.load(sys.stdin)["nvue"]["applied"]["qos"]
print(a["pfc"]["default-global"]["switch-priority"] and sorted(a["pfc"]["default-global"]["switch-priority"]),
      a["mapping"]["default-global"]["dscp"]["48"]["switch-priority"])')" = "['3'] 6" ]
expect_rc 2 "--profile and a file at once" ctl apply "$T/apply.json" --profile "$PROFILE"
expect_rc 2 "an unknown profile" ctl apply --profile no-such-profile

step "the lab conforms"
conform_json "$T/c1.json" --profile "$PROFILE"
check "exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "no departure" [ "$(json_get "$T/c1.json" "len(d['departures'])")" = 0 ]
check "one conforming node, one not targeted" [ "$(json_get "$T/c1.json" \
        "(d['summary']['conforming'], d['summary']['not_targeted'])")" = "(1, 1)" ]
check "the profile's ETS is listed as not verifiable, with why" [ "$(json_get "$T/c1.json" \
        "[x['why'][:22] for x in d['unverified'] if x['field'].startswith('egress-scheduler')]")" = "['not managed by nettune']" ]
rc=0; ctl conform --profile "$PROFILE" >"$T/c1.txt" 2>&1 || rc=$?
cat "$T/c1.txt"
check "text: the profile's settings beyond nettune, one line each" \
        grep -q "^  profile: lldp-app-tlv = UDP, protocol 4791, priority 3: not managed by nettune: nettune does not manage LLDP application TLVs$" "$T/c1.txt"
check "text: the summary line" grep -q "^conform: profile '$PROFILE' on 2 nodes: 0 departing (0 departures), 1 conforming, 1 not targeted" "$T/c1.txt"

step "the lab given two departures on every port: PFC on 4 too, DSCP 48 on priority 0"
nv set qos pfc default-global switch-priority 4
nv set qos mapping default-global dscp 48 switch-priority 0
nv_apply
conform_json "$T/c2.json" --profile "$PROFILE"
check "exit 1 (got $rc)" [ "$rc" -eq 1 ]
json_get "$T/c2.json" "d['departures']"
check "exactly the four departures given, live and profile values, owned by the policy '$PROFILE'" \
        [ "$(departures "$T/c2.json")" = "[('node002', 'ports.swp1.dscp_to_priority.48', '0', '6', '$PROFILE'), ('node002', 'ports.swp1.pfc.priorities', '[3, 4]', '[3]', '$PROFILE'), ('node002', 'ports.swp2.dscp_to_priority.48', '0', '6', '$PROFILE'), ('node002', 'ports.swp2.pfc.priorities', '[3, 4]', '[3]', '$PROFILE')]" ]
rc=0; ctl conform --profile "$PROFILE" >"$T/c2.txt" 2>&1 || rc=$?
cat "$T/c2.txt"
check "text: a departure line names node, port, live, profile and owner" \
        grep -q "^  node002 leaf1 ports.swp1.pfc.priorities: \[3,4\] (profile: \[3\]; owner: policy '$PROFILE')$" "$T/c2.txt"

step "--node: only node001, which the profile does not target"
conform_json "$T/c3.json" --profile "$PROFILE" --node node001
check "exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "one node asked" [ "$(json_get "$T/c3.json" "(d['summary']['nodes'], len(d['departures']))")" = "(1, 0)" ]
expect_rc 2 "--node not in the inventory" ctl conform --profile "$PROFILE" --node node009
expect_rc 2 "no --profile" ctl conform

step "a host profile on a NIC without DCB: not verifiable there, said so"
conform_json "$T/c4.json" --profile nco-roce-optimized-26-7 --node node001
check "exit 3 (got $rc)" [ "$rc" -eq 3 ]
json_get "$T/c4.json" "d['unverified'][0]"
check "node001 named, with the agent's reason" [ "$(json_get "$T/c4.json" \
        "[x['node'] for x in d['unverified'] if x['field'] == '*']")" = "['node001']" ]
check "the nvconfig ROCE_CC_PRIO_MASK is listed as unmanaged" [ "$(json_get "$T/c4.json" \
        "len([x for x in d['unverified'] if x['field'].startswith('nvconfig ROCE_CC_PRIO_MASK')])")" = 1 ]

step "one profile for hosts and switches: the switch part goes to the node that manages leaf1"
# selector role=gpu picks node001 alone; node002 (role fabric) manages leaf1 and gets its part
cat >"$T/one.json" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy",
  "metadata": { "name": "one-profile", "overrides": ["$PROFILE"] }, "selector": { "role": "gpu" },
  "targets": { "interfaces": ["nt0"], "switches": ["leaf1"] }, "spec": { "mtu": 4000 }, "verify": { "probe": "none" } }
JSON
expect_rc 0 "plan" ctl_to "$T/one-plan.txt" plan "$T/one.json"
cat "$T/one-plan.txt"
check "plan: node001 carries the hosts' part" sh -c "grep -A2 '^node001:' '$T/one-plan.txt' | grep -qx '  carries: hosts'"
check "plan: node002 carries leaf1's part" sh -c "grep -A2 '^node002:' '$T/one-plan.txt' | grep -qx '  carries: switch leaf1'"
check "plan: leaf1's ports change on node002" grep -q "^  leaf1 swp1-2: mtu 9216 -> 4000" "$T/one-plan.txt"
expect_rc 0 "plan --output json" ctl_to "$T/one-plan.json" --output json plan "$T/one.json"
check "plan --output json: each node's part" [ "$(json_get "$T/one-plan.json" '[(n["name"], n["part"]) for n in d["nodes"]]')" = \
        "[('node001', 'hosts'), ('node002', 'switch leaf1')]" ]
expect_rc 0 "apply" ctl --yes apply "$T/one.json" --canary 1 --wave-size 100%
check "node001's nt0 at 4000" [ "$(node_mtu 1)" = 4000 ]
expect_rc 0 "intent of node002" ctl_to "$T/one-intent.json" --output json intent --node node002
check "leaf1's ports at 4000, owned by one-profile on node002" [ "$(json_get "$T/one-intent.json" \
        '[(f["key"], f["value"], f["live"], f["owner"]["policy"]) for f in d["nodes"][0]["fields"] if f["key"].endswith(".mtu")]')" = \
        "[('ports.swp1.mtu', 4000, 4000, 'one-profile'), ('ports.swp2.mtu', 4000, 4000, 'one-profile')]" ]
sed 's/"leaf1"/"leaf9"/' "$T/one.json" >"$T/nine.json"
rc=0; ctl plan "$T/nine.json" >"$T/nine.out" 2>&1 || rc=$?
check "a switch no node manages: exit 2 (got $rc), named" grep -q "switch 'leaf9' of the policy: no node's agent manages it" "$T/nine.out"
