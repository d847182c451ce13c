#!/usr/bin/env bash
# Switches as targets of the agent, end to end through a private sshd with switchsim
# (nvue) as its ForceCommand, together with a veth interface in the agent's netns:
# state (with an unreachable switch), plan, apply + read-back, idempotent re-apply,
# a failing TCP gate that restores switch and interface (and says how), confirm
# timeout, drift after a hand edit and its healing, the agent's rollback, and the
# HTTPS API (plan, state, drift) over the same switch.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/integration/agent-switch.inc"
require_root
require_sshd
require_cmd tc ss python3 openssl curl sqlite3

as_setup 207
as_switch leaf1 nvue swp1,swp2
# spine1 is configured but nobody listens there: an unreachable switch.
dead=$(free_port)
EXTRA_SWITCHES_JSON="{ \"name\": \"spine1\", \"dialect\": \"nvue\", \"host\": \"127.0.0.1\", \"port\": $dead,
  \"user\": \"nobody\", \"key\": \"$T/leaf1/id_ed25519\", \"known_hosts\": \"$T/leaf1/known_hosts\",
  \"ports\": [\"swp1\"], \"connect_timeout_ms\": 1000, \"command_timeout_ms\": 1000 }"
as_switches_up
verify_gate="{\"probe\":\"tcp\",\"peer\":\"$AS_PEER:18515\",\"duration_ms\":700,\"runs\":3,\"settle_ms\":0,\"max_regression_pct\":50}"
policy_mixed "$T/p1.json" jumbo 9000 150000
# p2, p3 (and p4 below) are new revisions of p1's layer (the same metadata.name), each
# replacing it: a bare rollback after p3 goes back to p1.
policy_mixed "$T/p2.json" jumbo 4000 200000 "$verify_gate"
policy_switch "$T/p3.json" jumbo 9000 3

step "state: interfaces and switches; an unreachable switch is reported, the rest listed"
rc=0; A --output json state >"$T/s.json" 2>"$T/s.err" || rc=$?
check "state exits 3 with an unreachable switch (got $rc)" [ "$rc" -eq 3 ]
check "interface listed" [ "$(jq_py "$T/s.json" "[i['name'] for i in d['interfaces']] == ['$AS_IF']")" = True ]
check "leaf1 ports read" [ "$(jq_py "$T/s.json" "[p['mtu'] for p in d['switches'][0]['state']['ports'].values()]")" = "[9216, 9216]" ]
check "leaf1 trust read per port (pcp = nvue l2)" [ "$(jq_py "$T/s.json" "sorted({p['trust'] for p in d['switches'][0]['state']['ports'].values()})")" = "['pcp']" ]
check "spine1 has an error" [ "$(jq_py "$T/s.json" "'error' in d['switches'][1] and 'state' not in d['switches'][1]")" = True ]
check "the error names spine1 on stderr" grep -q "switch 'spine1'" "$T/s.err"
expect_rc 0 "state --no-switches" A state --no-switches
A --output json state --switches 'leaf*' >"$T/s2.json"
check "--switches leaf* lists leaf1 only" [ "$(jq_py "$T/s2.json" "[s['name'] for s in d['switches']]")" = "['leaf1']" ]
expect_rc 2 "state --switches nomatch" A state --switches 'nomatch*'

step "plan: switch and interface diffs, nothing changed"
m0=$(swdump leaf1 'd["mutations"]')
A --output json plan "$T/p1.json" >"$T/plan.json"
keys=$(jq_py "$T/plan.json" "sorted(c['key'] for t in d['targets'] if t['name'] == 'leaf1' for c in t['changes'])")
echo "leaf1 plan keys: $keys"
for k in ports.swp1.mtu ports.swp2.mtu ports.swp1.ecn.queue3.min_threshold_bytes ports.swp2.ecn.queue3.min_threshold_bytes; do
        check "plan shows $k" grep -q "'$k'" <<<"$keys"
done
check "plan shows the interface mtu" [ "$(jq_py "$T/plan.json" "[c['to'] for t in d['targets'] if t['name'] == '$AS_IF' for c in t['changes']]")" = "[9000]" ]
check "plan changed nothing on the switch" [ "$(swdump leaf1 'd["mutations"]')" = "$m0" ]

step "apply: one transaction over the interface and the switch, committed natively"
expect_rc 0 "apply p1" A --output json apply "$T/p1.json"
check "interface mtu 9000" [ "$(mtu_of "$AS_NS" "$AS_IF")" = 9000 ]
check "switch swp1/swp2 mtu 9000" [ "$(swdump leaf1 '[d["nvue"]["applied"]["interface"][p]["link"]["mtu"] for p in ("swp1","swp2")]')" = "[9000, 9000]" ]
check "switch queue 3 min threshold" [ "$(swdump leaf1 'd["nvue"]["applied"]["qos"]["congestion-control"]["default-global"]["traffic-class"]["3"]["min-threshold"]')" = 150000 ]
check "no confirmation left pending on the switch" [ "$(swdump leaf1 'd["nvue"]["confirm"]')" = None ]
check "applied with a commit timer, then confirmed" [ "$(swdump leaf1 'd["nvue"]["revisions"][-1]["state"]')" = applied_and_saved ]
check "the timer was armed (nv config apply --confirm)" grep -q -- "--confirm [0-9]*s" <(swdump leaf1 'd["log"]')
A --output json state --switches leaf1 >"$T/s3.json"
check "agent read-back: leaf1 ports 9000" [ "$(jq_py "$T/s3.json" "[p['mtu'] for p in d['switches'][0]['state']['ports'].values()]")" = "[9000, 9000]" ]
tree_p1=$(swtree leaf1)

step "re-apply: nothing to do, nothing sent"
m1=$(swdump leaf1 'd["mutations"]')
A --output json apply "$T/p1.json" >"$T/r.json"
check "result nothing_to_do" [ "$(jq_py "$T/r.json" 'd["result"]')" = nothing_to_do ]
check "switch not mutated" [ "$(swdump leaf1 'd["mutations"]')" = "$m1" ]

step "a regressing TCP gate restores the switch and the interface"
rc=0
NETTUNE_TEST_HOOK_AFTER_APPLY="tc qdisc add dev $AS_IF root tbf rate 1gbit burst 64k latency 10ms" \
        A --output json apply "$T/p2.json" >"$T/r.json" || rc=$?
check "apply exits 1 (got $rc)" [ "$rc" -eq 1 ]
echo "baseline $(jq_py "$T/r.json" 'd["probe"]["baseline_gbps"]') Gb/s, post $(jq_py "$T/r.json" 'd["probe"]["post_gbps"]') Gb/s"
check "restored by the gate" [ "$(jq_py "$T/r.json" 'd["restored_by"]')" = gate ]
check "result: switch restored by vendor-abort" [ "$(jq_py "$T/r.json" "[r['method'] for r in d['restores'] if r['target'] == 'leaf1']")" = "['vendor-abort']" ]
check "result: interface restored by driver-reapply" [ "$(jq_py "$T/r.json" "[r['method'] for r in d['restores'] if r['target'] == '$AS_IF']")" = "['driver-reapply']" ]
check "interface mtu back to 9000" [ "$(mtu_of "$AS_NS" "$AS_IF")" = 9000 ]
check "switch configuration back to p1 exactly" [ "$(swtree leaf1)" = "$tree_p1" ]
check "switch: the pending apply was rolled back" [ "$(swdump leaf1 'd["nvue"]["revisions"][-1]["state"]')" = rolled_back ]
A --output json history >"$T/h.json"
check "journal: rolled_back" [ "$(jq_py "$T/h.json" 'd[0]["state"]')" = rolled_back ]
check "journal records how leaf1 was restored" [ "$(jq_py "$T/h.json" "[r['method'] for r in d[0]['restores'] if r['target'] == 'leaf1']")" = "['vendor-abort']" ]
tc -n "$AS_NS" qdisc del dev "$AS_IF" root

step "--confirm-timeout without confirm reverts the switch and the interface"
policy_mixed "$T/p4.json" jumbo 5000 300000
# A long timer that the test runs out (expire_confirm): the reads while it is pending
# cannot race it.
rc=0; A --output json apply --confirm-timeout 600 "$T/p4.json" >"$T/r.json" || rc=$?
check "pending confirmation (exit $rc)" [ "$rc" -eq 4 ]
check "switch has p4 while pending" [ "$(swdump leaf1 'd["nvue"]["applied"]["interface"]["swp1"]["link"]["mtu"]')" = 5000 ]
check "interface has p4 while pending" [ "$(mtu_of "$AS_NS" "$AS_IF")" = 5000 ]
expire_confirm "$T/state"
journal_final() { A --output json history >"$T/h.json" && case $(jq_py "$T/h.json" 'd[0]["state"]') in rolled_back|failed) ;; *) false ;; esac; }
check "the watchdog restored it after the deadline" wait_for 20 journal_final
check "interface back to 9000" [ "$(mtu_of "$AS_NS" "$AS_IF")" = 9000 ]
check "journal: rolled back by confirm-timeout" [ "$(jq_py "$T/h.json" 'd[0]["restored_by"]')" = confirm-timeout ]
check "journal: leaf1 written back by the driver" [ "$(jq_py "$T/h.json" "[r['method'] for r in d[0]['restores'] if r['target'] == 'leaf1']")" = "['driver-reapply']" ]
check "switch configuration back to p1 exactly" [ "$(swtree leaf1)" = "$tree_p1" ]

step "drift after a hand edit on the switch, healed by re-apply"
expect_rc 0 "no drift yet" A drift
swsim leaf1 -- nv set interface swp2 link mtu 1500 >/dev/null
swsim leaf1 -- nv config apply -y >/dev/null
rc=0; A --output json drift >"$T/d.json" || rc=$?
check "drift found (exit $rc)" [ "$rc" -eq 1 ]
check "drift names leaf1 ports.swp2.mtu" [ "$(jq_py "$T/d.json" "[(c['target'], c['key'], c['from']) for c in d['changes']]")" = "[('leaf1', 'ports.swp2.mtu', 1500)]" ]
expect_rc 0 "re-apply heals" A apply "$T/p1.json"
expect_rc 0 "no drift after healing" A drift
check "switch configuration is p1 again" [ "$(swtree leaf1)" = "$tree_p1" ]

step "rollback restores the previous switch configuration"
expect_rc 0 "apply p3 (trust, dscp map, pfc, ecn, mtu)" A apply "$T/p3.json"
check "switch trusts dscp (l3)" [ "$(swdump leaf1 'd["nvue"]["applied"]["qos"]["mapping"]["default-global"]["trust"]')" = l3 ]
check "switch maps dscp 26 to 3" [ "$(swdump leaf1 'd["nvue"]["applied"]["qos"]["mapping"]["default-global"]["dscp"]["26"]["switch-priority"]')" = 3 ]
expect_rc 0 "rollback" A rollback
check "switch trusts pcp (l2) again" [ "$(swdump leaf1 'd["nvue"]["applied"]["qos"]["mapping"]["default-global"]["trust"]')" = l2 ]
check "switch has no dscp mapping again" [ "$(swdump leaf1 'bool(d["nvue"]["applied"]["qos"]["mapping"]["default-global"].get("dscp"))')" = False ]
check "switch has no pfc priority again" [ "$(swdump leaf1 'bool(d["nvue"]["applied"]["qos"]["pfc"]["default-global"].get("switch-priority"))')" = False ]
A --output json state --switches leaf1 >"$T/s4.json"
check "agent read: leaf1 is as before p3" [ "$(jq_py "$T/s4.json" 'd["switches"][0]["state"]')" = "$(jq_py "$T/s3.json" 'd["switches"][0]["state"]')" ]
A --output json history >"$T/h.json"
check "journal: rollback committed" [ "$(jq_py "$T/h.json" '(d[0]["kind"], d[0]["state"])')" = "('rollback', 'committed')" ]

step "the API covers the switch: plan, state, drift"
make_certs "$T/certs" || fail "cannot make test certificates"
python3 - "$T/agent.json" "$T/serve.json" "$T/certs" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c.update({"listen": "127.0.0.1:7470", "drift": {"interval_s": 0},
          "tls": {"cert": sys.argv[3] + "/agent.crt", "key": sys.argv[3] + "/agent.key",
                  "client_ca": sys.argv[3] + "/clients-ca.crt"}, "probe": {"listen": "127.0.0.1:18545"}})
json.dump(c, open(sys.argv[2], "w"))
PY
API_URL=https://127.0.0.1:7470
serve_start "$AS_NS" "$T/serve.json"
check "plan: 200" [ "$(api "$AS_NS" /v1/plan -X POST --data-binary @"$T/p3.json")" = 200 ]
check "plan names leaf1's trust change on each port" [ "$(jq_py "$T/body" "[(c['key'], c['to']) for t in d['targets'] if t['name'] == 'leaf1' for c in t['changes'] if c['field'] == 'trust']")" = "[('ports.swp1.trust', 'dscp'), ('ports.swp2.trust', 'dscp')]" ]
check "state: 200" [ "$(api "$AS_NS" /v1/state)" = 200 ]
check "state has leaf1 with both ports" [ "$(jq_py "$T/body" "[sorted(t['state']['ports']) for t in d['targets'] if t['kind'] == 'switch']")" = "[['swp1', 'swp2']]" ]
swsim leaf1 -- nv set interface swp1 link mtu 2000 >/dev/null
swsim leaf1 -- nv config apply -y >/dev/null
check "drift: 200" [ "$(api "$AS_NS" /v1/drift)" = 200 ]
check "drift reports ports.swp1.mtu on leaf1" [ "$(jq_py "$T/body" "(d['drift'], [(c['target'], c['key']) for c in d['changes']])")" = "(True, [('leaf1', 'ports.swp1.mtu')])" ]
