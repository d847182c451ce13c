#!/usr/bin/env bash
# EOS and SONiC switches in one agent transaction, each behind its own private sshd
# with switchsim: plan, apply + read-back, the journal's record that both saved the
# commit and a reboot that keeps it, a hand edit on one port of each that drift
# names by port, idempotent re-apply, a failing gate that restores both natively
# (EOS: session abort, SONiC: checkpoint rollback) and says so per switch, and the
# agent's rollback to the previous revision.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/tests/integration/agent-switch.inc"
require_root
require_sshd
require_cmd ss python3

as_setup 209
as_switch leaf1 eos Ethernet1,Ethernet2
as_switch leaf2 sonic Ethernet0,Ethernet4
as_switches_up
policy_switch "$T/p1.json" lossless 9000 3
# p2 is a new revision of p1's layer (the same metadata.name): its gate fails and p1 stays.
policy_switch "$T/p2.json" lossless 4000 4 \
        "{\"probe\":\"tcp\",\"peer\":\"$AS_PEER:18515\",\"device\":\"$AS_IF\",\"duration_ms\":200,\"runs\":1,\"settle_ms\":0,\"min_gbps\":100000}"
sw_state() { A --output json state --switches "$1" >"$T/st.json" && jq_py "$T/st.json" 'd["switches"][0]["state"]'; }
# sw_get SWITCH EXPR: EXPR of every port's state, one value when all ports agree.
sw_get() {
        A --output json state --switches "$1" >"$T/st.json" &&
        jq_py "$T/st.json" "(lambda v: v[0] if all(x == v[0] for x in v) else v)([p$2 for p in d['switches'][0]['state']['ports'].values()])"
}

base1=$(sw_state leaf1)
base2=$(sw_state leaf2)

step "plan: both switches, every knob"
A --output json plan "$T/p1.json" >"$T/plan.json"
for sw in leaf1 leaf2; do
        keys=$(jq_py "$T/plan.json" "sorted(c['key'] for t in d['targets'] if t['name'] == '$sw' for c in t['changes'])")
        echo "$sw: $keys" | cut -c1-300
        check "plan $sw shows the port MTUs" grep -q "'ports\.[A-Za-z0-9]*\.mtu'" <<<"$keys"
        for k in dscp_to_priority.26 pfc.priorities ecn.queue3.min_threshold_bytes; do
                check "plan $sw shows $k on every port" [ "$(grep -o "'ports\.[A-Za-z0-9]*\.$k'" <<<"$keys" | wc -l)" = 2 ]
        done
done

step "apply: committed on both, read back"
expect_rc 0 "apply p1" A apply "$T/p1.json"
for sw in leaf1 leaf2; do
        check "$sw trust dscp" [ "$(sw_get $sw "['trust']")" = dscp ]
        check "$sw dscp 26 -> 3" [ "$(sw_get $sw "['dscp_to_priority']['26']")" = 3 ]
        check "$sw pfc [3]" [ "$(sw_get $sw "['pfc']['priorities']")" = "[3]" ]
        check "$sw ports mtu 9000" [ "$(sw_get $sw "['mtu']")" = 9000 ]
done
check "eos: no commit timer left running" [ "$(swdump leaf1 'd["eos"]["timer"]')" = None ]
check "eos: running config has mtu 9000 on Ethernet2" grep -q "mtu 9000" <(swdump leaf1 'json.dumps(d["eos"]["running"])')
check "sonic: CONFIG_DB port mtu" [ "$(swdump leaf2 'd["sonic"]["db"]["PORT"]["Ethernet4"]["mtu"]')" = 9000 ]
check "sonic: no checkpoint left behind" [ "$(swdump leaf2 'len(d["sonic"]["checkpoints"])')" = 0 ]
p1_1=$(sw_state leaf1)
p1_2=$(sw_state leaf2)

step "the journal says both switches saved the commit; a reboot keeps it"
A --output json history >"$T/h.json"
check "journal: saved on leaf1 and leaf2" [ "$(jq_py "$T/h.json" "sorted((s['target'], s['saved']) for s in d[0]['saves'])")" = "[('leaf1', True), ('leaf2', True)]" ]
swsim leaf1 --reboot
swsim leaf2 --reboot
check "leaf1 after a reboot is p1" [ "$(sw_state leaf1)" = "$p1_1" ]
check "leaf2 after a reboot is p1" [ "$(sw_state leaf2)" = "$p1_2" ]

step "re-apply: nothing to do"
A --output json apply "$T/p1.json" >"$T/r.json"
check "nothing_to_do" [ "$(jq_py "$T/r.json" 'd["result"]')" = nothing_to_do ]

step "a failing gate restores both switches natively"
rc=0; A --output json apply "$T/p2.json" >"$T/r.json" || rc=$?
check "apply exits 1 (got $rc)" [ "$rc" -eq 1 ]
check "eos restored by vendor-abort" [ "$(jq_py "$T/r.json" "[r['method'] for r in d['restores'] if r['target'] == 'leaf1']")" = "['vendor-abort']" ]
check "sonic restored by checkpoint-rollback" [ "$(jq_py "$T/r.json" "[r['method'] for r in d['restores'] if r['target'] == 'leaf2']")" = "['checkpoint-rollback']" ]
check "leaf1 is p1 again" [ "$(sw_state leaf1)" = "$p1_1" ]
check "leaf2 is p1 again" [ "$(sw_state leaf2)" = "$p1_2" ]
check "eos: no commit timer left running" [ "$(swdump leaf1 'd["eos"]["timer"]')" = None ]
A --output json history >"$T/h.json"
check "journal: both restore methods" [ "$(jq_py "$T/h.json" "sorted((r['target'], r['method']) for r in d[0]['restores'])")" = "[('leaf1', 'vendor-abort'), ('leaf2', 'checkpoint-rollback')]" ]

step "rollback: back to before p1"
expect_rc 0 "rollback" A rollback
check "leaf1 back to its first state" [ "$(sw_state leaf1)" = "$base1" ]
check "leaf2 back to its first state" [ "$(sw_state leaf2)" = "$base2" ]

step "a hand edit on one port is drift on that port only"
expect_rc 0 "apply p1 again" A apply "$T/p1.json"
swsim leaf2 -- sonic-db-cli CONFIG_DB hdel "QUEUE|Ethernet4|3" wred_profile >/dev/null
swsim leaf1 -- "$(printf 'configure session hand\ninterface Ethernet2\ntx-queue 3\nno random-detect ecn\nexit\nexit\ncommit')" >/dev/null
rc=0; A --output json drift >"$T/d.json" || rc=$?
check "drift found (exit $rc)" [ "$rc" -eq 1 ]
echo "drift: $(jq_py "$T/d.json" "sorted({(c['target'], c['key'].rsplit('.', 1)[0]) for c in d['changes']})")"
check "drift names leaf1 Ethernet2 and leaf2 Ethernet4 queue 3, nothing else" [ "$(jq_py "$T/d.json" "sorted({(c['target'], c['key'].rsplit('.', 1)[0]) for c in d['changes']})")" = "[('leaf1', 'ports.Ethernet2.ecn.queue3'), ('leaf2', 'ports.Ethernet4.ecn.queue3')]" ]
expect_rc 0 "re-apply heals both" A apply "$T/p1.json"
expect_rc 0 "no drift left" A drift
check "leaf1 is p1 again" [ "$(sw_state leaf1)" = "$p1_1" ]
check "leaf2 is p1 again" [ "$(sw_state leaf2)" = "$p1_2" ]
