#!/usr/bin/env bash
# SONiC semantics through a private sshd and switchsim: every write is one
# `sudo config apply-patch` that touches only the managed ports, queues and
# nettune's own maps and profiles (AZURE is never edited, the WRED copy keeps the
# lossless profile's yellow/red settings), the commit is saved with `config save`
# and survives a reboot, ECN removed by hand from one port is drift on that port,
# someone else's unsaved change and checkpoint are never saved or rolled back, PFC
# needs a lossless BUFFER_PG, and trust pcp binds a DOT1P_TO_TC_MAP.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/switch_cases.sh"
. "$NETTUNE_TOP/tests/lib/switch_semantics.sh"
require_sshd

# Ethernet8 exists on the switch but is not managed.
switch_sim_start "$T/sw" sonic Ethernet0,Ethernet4,Ethernet8
manage Ethernet0,Ethernet4
write_policy "$T/p1.json" 9100 3
write_policy "$T/p2.json" 2000 4
db() { raw "d['sonic']['db']$1"; }

step "apply: one patch, managed ports and nettune's own rows only, saved"
azure=$(db "['DSCP_TO_TC_MAP']['AZURE']")
e8=$(db "['PORT_QOS_MAP']['Ethernet8']")
apply_logged "$T/a1.json" "$T/sent.txt" "$T/p1.json" --confirm 30
cat "$T/sent.txt" | cut -c1-120
check "every config command ran with sudo" bash -c "! grep -q '^config ' '$T/sent.txt'"
check "CONFIG_DB was never written around GCU" bash -c "! grep -q 'sonic-db-cli' '$T/sent.txt'"
check "the shared AZURE map is untouched" test "$(db "['DSCP_TO_TC_MAP']['AZURE']")" = "$azure"
check "the unmanaged port is untouched" test "$(db "['PORT_QOS_MAP']['Ethernet8']")" = "$e8"
check "no patch path names the unmanaged port or AZURE" test "$(raw "[o['path'] for p in d['patches'] for o in p if 'Ethernet8' in o['path'] or 'AZURE' in o['path']]")" = "[]"
check "queues: only queue 3 was written" test "$(raw "sorted({o['path'] for p in d['patches'] for o in p if o['path'].startswith('/QUEUE')})")" = "['/QUEUE/Ethernet0|3/wred_profile', '/QUEUE/Ethernet4|3/wred_profile']"
check "nettune's map is bound on both ports" test "$(raw "[d['sonic']['db']['PORT_QOS_MAP'][p]['dscp_to_tc_map'] for p in ('Ethernet0', 'Ethernet4')]")" = "['NETTUNE_sw-9100', 'NETTUNE_sw-9100']"
check "nettune's WRED copy keeps AZURE_LOSSLESS's yellow/red settings" test "$(raw "{k: v for k, v in d['sonic']['db']['WRED_PROFILE']['NETTUNE_sw-9100_Q3'].items() if k.startswith(('yellow', 'red', 'wred_yellow', 'wred_red'))} == {k: v for k, v in d['sonic']['db']['WRED_PROFILE']['AZURE_LOSSLESS'].items() if k.startswith(('yellow', 'red', 'wred_yellow', 'wred_red'))}")" = True
check "the commit was saved (config save)" test "$(raw "d['sonic']['saved'] == d['sonic']['db']")" = True
check "the result says saved" test "$(jget "$T/a1.json" 'd["save"]')" = saved
check "no checkpoint is left" test "$(raw "len(d['sonic']['checkpoints'])")" = 0
swctl read > "$T/r1.json"

step "a reboot loads the saved CONFIG_DB: the commit survives"
sim --reboot
swctl read > "$T/r2.json"
check "same state after the reboot" same_state "$T/r1.json" "$T/r2.json"

step "ECN removed by hand from one port is drift on that port only"
sim -- sonic-db-cli CONFIG_DB hdel "QUEUE|Ethernet4|3" wred_profile >/dev/null
expect_rc 0 "plan p1" swto "$T/pl.json" plan "$T/p1.json"
echo "plan keys: $(keys "$T/pl.json")"
check "only Ethernet4's queue 3" test "$(keys "$T/pl.json")" = "['ports.Ethernet4.ecn.queue3.enabled', 'ports.Ethernet4.ecn.queue3.mark_probability_pct', 'ports.Ethernet4.ecn.queue3.max_threshold_bytes', 'ports.Ethernet4.ecn.queue3.min_threshold_bytes']"
expect_rc 0 "re-apply heals it (the unsaved hand edit is what the patch writes)" swto "$T/a3.json" apply "$T/p1.json"
swctl read > "$T/r3.json"
check "healed" same_state "$T/r1.json" "$T/r3.json"

step "someone else's unsaved change is not saved with ours"
sim -- sonic-db-cli CONFIG_DB hset "PORT|Ethernet8" mtu 1500 >/dev/null
m0=$(raw 'd["mutations"]')
rc=0; swto "$T/f1.json" apply "$T/p2.json" 2>"$T/f1.err" || rc=$?
check "apply refused (exit $rc)" test "$rc" = 2
check "the error names the row" grep -q "PORT|Ethernet8' differs from /etc/sonic/config_db.json" "$T/f1.err"
check "nothing was written" test "$(raw 'd["mutations"]')" = "$m0"
sim -- sudo config save -y >/dev/null

step "someone else's checkpoint is never rolled back or deleted"
sim -- sudo config checkpoint operator-cp >/dev/null
expect_rc 0 "apply p2, then roll back" swto "$T/a4.json" apply "$T/p2.json" --rollback
check "restored by our own checkpoint" test "$(jget "$T/a4.json" 'd["restore_method"]')" = checkpoint-rollback
check "only their checkpoint is left" test "$(raw "sorted(d['sonic']['checkpoints'])")" = "['operator-cp']"

step "PFC needs a lossless BUFFER_PG"
pfc_off() {     # PFC off on the managed ports (saved), so that p1 turns priority 3 on
        sim -- sonic-db-cli CONFIG_DB hdel "PORT_QOS_MAP|Ethernet0" pfc_enable >/dev/null
        sim -- sonic-db-cli CONFIG_DB hdel "PORT_QOS_MAP|Ethernet4" pfc_enable >/dev/null
        sim -- sudo config save -y >/dev/null
}
sim_reinit Ethernet0,Ethernet4,Ethernet8 no-lossless-pg
pfc_off
rc=0; swto "$T/pfc.json" plan "$T/p1.json" 2>"$T/pfc.err" || rc=$?
check "plan refused (exit $rc)" test "$rc" = 2
check "the refusal names port, priority and BUFFER_PG" grep -q "port 'Ethernet0': pfc priority 3 has no lossless BUFFER_PG" "$T/pfc.err"
sim_reinit Ethernet0,Ethernet4,Ethernet8 dynamic-buffer
pfc_off
expect_rc 0 "the dynamic buffer model's NULL profile is lossless" swto "$T/pfc2.json" apply "$T/p1.json"

step "a GCU that refuses DSCP_TO_TC_MAP changes: nothing changes, nothing is left behind"
sim_reinit Ethernet0,Ethernet4,Ethernet8 gcu-blocks-dscp-map
swctl read > "$T/g0.json"
rc=0; swto "$T/g1.json" apply "$T/p1.json" 2>"$T/g1.err" || rc=$?
check "apply fails (exit $rc)" test "$rc" = 3
check "with GCU's error" grep -q "Modification of DSCP_TO_TC_MAP table is illegal" "$T/g1.err"
swctl read > "$T/g2.json"
check "the switch is as before" same_state "$T/g0.json" "$T/g2.json"
check "no checkpoint is left" test "$(raw "len(d['sonic']['checkpoints'])")" = 0

step "trust pcp binds nettune's DOT1P_TO_TC_MAP and drops the DSCP map"
sim_reinit Ethernet0,Ethernet4,Ethernet8
policy "$T/pcp.json" pcp '{"trust": "pcp"}'
expect_rc 0 "apply trust pcp" swto "$T/t1.json" apply "$T/pcp.json"
check "Ethernet0 has a dot1p map and no dscp map" test "$(db "['PORT_QOS_MAP']['Ethernet0'].get('dot1p_to_tc_map'), d['sonic']['db']['PORT_QOS_MAP']['Ethernet0'].get('dscp_to_tc_map')")" = "NETTUNE_pcp None"
swctl read > "$T/t2.json"
check "every managed port trusts pcp" test "$(jports "$T/t2.json" "p['trust']")" = pcp
check "the unmanaged port still uses AZURE" test "$(db "['PORT_QOS_MAP']['Ethernet8']['dscp_to_tc_map']")" = AZURE

step "cable length: CABLE_LENGTH, then the dynamic model's lossless profile; rolled back byte-identical"
sim_reinit Ethernet0,Ethernet4,Ethernet8 dynamic-buffer
policy "$T/cable.json" cable '{"pfc": {"priorities": [3, 4], "cable_length_m": 40}}'
appl() { sim -- sonic-db-cli APPL_DB hgetall "$1"; }
check "the factory profile is the 5 m one" test "$(appl 'BUFFER_PG_TABLE:Ethernet0:3-4')" = "{'profile': 'pg_lossless_100000_5m_profile'}"
apply_logged "$T/cl1.json" "$T/cl1.sent" "$T/cable.json"
check "CABLE_LENGTH holds 40m for the managed ports" test "$(db "['CABLE_LENGTH']['AZURE']")" = "{'Ethernet0': '40m', 'Ethernet4': '40m', 'Ethernet8': '5m'}"
check "the patch wrote CABLE_LENGTH only" test "$(raw "sorted({o['path'] for o in d['patches'][-1]})")" = "['/CABLE_LENGTH/AZURE/Ethernet0', '/CABLE_LENGTH/AZURE/Ethernet4']"
check "buffermgrd derived the 40 m profile" test "$(appl 'BUFFER_PG_TABLE:Ethernet0:3-4')" = "{'profile': 'pg_lossless_100000_40m_profile'}"
want=$("$CTL" headroom --speed-gbps 100 --cable-m 40 --mtu 9100 --asic spectrum2 --output json | \
       python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["xon_bytes"], j["xoff_bytes"], j["size_bytes"])')
got=$(appl 'BUFFER_PROFILE_TABLE:pg_lossless_100000_40m_profile' | python3 -c 'import ast,sys; r=ast.literal_eval(sys.stdin.read()); print(r["xon"], r["xoff"], r["size"])')
check "its xon/xoff/size ($got) are nettunectl headroom's ($want)" test "$got" = "$want"
swctl read > "$T/cl2.json"
check "every managed port reads 40 m back" test "$(jports "$T/cl2.json" "p['pfc']['cable_length_m']")" = 40
sim_reinit Ethernet0,Ethernet4,Ethernet8 dynamic-buffer
db0=$(raw "json.dumps(d['sonic']['db'], sort_keys=True)")
expect_rc 0 "apply and roll back (a failed probe)" swto "$T/cl3.json" apply "$T/cable.json" --rollback
check "CONFIG_DB is byte-identical to before" test "$(raw "json.dumps(d['sonic']['db'], sort_keys=True)")" = "$db0"
check "and the 5 m profile is back" test "$(appl 'BUFFER_PG_TABLE:Ethernet0:3-4')" = "{'profile': 'pg_lossless_100000_5m_profile'}"

step "the traditional buffer model: a cable length is refused, with the reason"
sim_reinit Ethernet0,Ethernet4,Ethernet8
m0=$(raw 'd["mutations"]')
rc=0; swto "$T/cl4.json" plan "$T/cable.json" 2>"$T/cl4.err" || rc=$?
check "plan refused (exit $rc)" test "$rc" = 2
check "naming pg_profile_lookup.ini" grep -q "buffer model is 'traditional', not dynamic: buffermgrd takes a cable length only from the rows of the SKU's pg_profile_lookup.ini" "$T/cl4.err"
check "nothing was written" test "$(raw 'd["mutations"]')" = "$m0"
