#!/usr/bin/env bash
# The PFC watchdog (spec.pfc.watchdog) on every dialect through a private sshd and switchsim:
# applied on the managed ports only, read back, re-applied without a command, drift after a
# hand edit, rolled back natively and restored from its snapshot with the switch's own
# configuration byte for byte as it was; what a dialect cannot express refused at plan time
# with nothing sent; a member the policy does not name never changed; and the storm machine
# on the switch's clock: a pause stream detected within the detection time plus one poll,
# the queue given back after the restoration time without pause.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/switch_cases.sh"
. "$NETTUNE_TOP/tests/lib/switch_semantics.sh"
require_sshd

# The dialect's own configuration as the switch keeps it (NVUE: empty objects left by nv unset
# dropped, as `nv config show` lists none).
native() {
        sim --dump > "$T/raw.json"
        python3 - "$T/raw.json" "$SIM_DIALECT" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); x = sys.argv[2]
def prune(o):
        if isinstance(o, dict):
                o = {k: prune(v) for k, v in o.items()}
                return {k: v for k, v in o.items() if v != {}}
        return o
cfg = {"sonic": lambda: d["sonic"]["db"], "nvue": lambda: prune(d["nvue"]["applied"]),
       "eos": lambda: d["eos"]["running"]}[x]()
print(json.dumps(cfg, sort_keys=True))
EOF
}

# Whether the switch's startup configuration equals its running one (a reboot keeps the change).
saved_expr() {
        case $SIM_DIALECT in
        sonic) echo "d['sonic']['saved'] == d['sonic']['db']" ;;
        nvue) echo "d['nvue']['startup'] == d['nvue']['applied']" ;;
        eos) echo "d['eos']['startup'] == d['eos']['running']" ;;
        esac
}

wd() { jget "$1" 'd["'"${2:-state}"'"]["ports"]["'"$3"'"]["pfc"]["watchdog"]'"$4"; }

# refused POLICY-SPEC TEXT: plan exits 2 naming TEXT, and nothing reached the switch.
refused() {
        local n0 rc=0
        policy "$T/bad.json" bad "$1"
        n0=$(raw 'd["mutations"]')
        swto "$T/bad.out" plan "$T/bad.json" 2>"$T/bad.err" || rc=$?
        check "plan refused: $2 (exit $rc)" test "$rc" = 2
        check "the refusal says why" grep -qF -- "$2" "$T/bad.err"
        check "nothing was written" test "$(raw 'd["mutations"]')" = "$n0"
}

hand_edit() {
        case $SIM_DIALECT in
        sonic) sim -- sudo config pfcwd start --action drop --restoration-time 2000 "$P1" 1500 ;;
        nvue) sim -- nv set qos pfc-watchdog robustness 7 && sim -- nv config apply -y ;;
        eos) sim -- "$(printf 'configure session hand\ninterface %s\n%s\nexit\ncommit' "$P1" \
                "priority-flow-control pause watchdog port timer timeout 1.5 polling-interval 0.5 recovery-time 2")" ;;
        esac >/dev/null
}

# wd_case DIALECT PORT1,PORT2,UNMANAGED POLICY-SPEC POLICY2-SPEC DETECT_MS
wd_case() {
        local ports=$2 spec=$3 spec2=$4 m0 n0
        P1=${ports%%,*}
        step "$1: a factory switch; baseline PFC on priority 3"
        sshd_stop       # the previous dialect's
        rm -rf "$T/sw"
        switch_sim_start "$T/sw" "$1" "$ports"
        manage "$(echo "$ports" | cut -d, -f1-2)"
        policy "$T/base.json" base '{"pfc": {"priorities": [3]}}'
        expect_rc 0 "apply the baseline" swto "$T/b.json" apply "$T/base.json"
        swctl read > "$T/r0.json"
        check "the watchdog is off on $P1" test "$(wd "$T/r0.json" state "$P1" '["enabled"]')" = False
        native > "$T/n0.json"
        unmanaged0=$(raw "str(d)" | md5sum)

        step "$1: apply the watchdog"
        policy "$T/wd1.json" wd1 "$spec"
        apply_logged "$T/a1.json" "$T/sent1.txt" "$T/wd1.json" --snapshot "$T/snap.json"
        grep -vE '^(show|nv show|sonic-cfggen|cat) ' "$T/sent1.txt" | grep -iE 'watchdog|pfcwd|pfc-watchdog' | cut -c1-140
        check "verified by read-back" test "$(jget "$T/a1.json" 'd["verified"]')" = True
        check "on on $P1" test "$(wd "$T/a1.json" after "$P1" '["enabled"]')" = True
        check "covering priority 3" test "$(wd "$T/a1.json" after "$P1" '["priorities"]')" = "[3]"
        check "detection as declared" test "$(wd "$T/a1.json" after "$P1" '["detection_ms"]')" = "$5"
        check "no command names the unmanaged port" bash -c "! grep -E 'watchdog|pfcwd' '$T/sent1.txt' | grep -q '${ports##*,}'"
        check "saved: the startup configuration is the running one" test "$(raw "$(saved_expr)")" = True
        native > "$T/n1.json"

        step "$1: re-apply: nothing to send"
        m0=$(raw 'd["mutations"]')
        expect_rc 0 "re-apply" swto "$T/a2.json" apply "$T/wd1.json"
        check "no commands" test "$(jget "$T/a2.json" 'd["apply_commands"]')" = 0
        check "nothing changed on the switch" test "$(raw 'd["mutations"]')" = "$m0"

        step "$1: another watchdog, rolled back natively"
        policy "$T/wd2.json" wd2 "$spec2"
        expect_rc 0 "apply then roll back" swto "$T/a3.json" apply "$T/wd2.json" --confirm 30 --rollback
        check "restored natively ($(jget "$T/a3.json" 'd["restore_method"]'))" \
                test "$(jget "$T/a3.json" 'd["restore_method"]')" != failed
        native > "$T/n3.json"
        check "the switch's configuration is byte for byte the first watchdog's" cmp -s "$T/n1.json" "$T/n3.json"

        step "$1: a hand edit is drift"
        hand_edit
        expect_rc 0 "plan" swto "$T/pl.json" plan "$T/wd1.json"
        echo "drift: $(keys "$T/pl.json")"
        check "the plan names the watchdog" bash -c "grep -q 'pfc.watchdog.detection_ms' '$T/pl.json'"
        swctl read > "$T/r1.json"
        expect_rc 0 "re-apply heals it" swto "$T/a4.json" apply "$T/wd1.json"
        check "healed" test "$(jget "$T/a4.json" 'd["verified"]')" = True
        swto "$T/pl2.json" plan "$T/wd1.json"
        check "nothing left to change" test "$(keys "$T/pl2.json")" = "[]"

        step "$1: restore the snapshot: the switch as it was, byte for byte"
        expect_rc 0 "restore" swto "$T/rs.json" restore "$T/snap.json"
        native > "$T/n5.json"
        if ! cmp -s "$T/n0.json" "$T/n5.json"; then diff <(python3 -m json.tool "$T/n0.json") \
                <(python3 -m json.tool "$T/n5.json") | head -20; fi
        check "byte for byte the baseline" cmp -s "$T/n0.json" "$T/n5.json"
        swctl read > "$T/r5.json"
        check "the watchdog is off again" test "$(wd "$T/r5.json" state "$P1" '["enabled"]')" = False
}

# storm DIALECT DETECT_MS POLL_MS RESTORE_MS: one port's pause stream on the switch's clock.
storm() {
        local d=$2 p=$3 r=$4 at st
        step "$1: a pause storm on $P1 priority 3 (the switch's clock moves only when the test says)"
        expect_rc 0 "apply the watchdog" swto "$T/s.json" apply "$T/wd1.json"
        sim --freeze-clock
        sim --traffic "$P1:pfc_rx.3=2000,$P1:tx_frames.3=10000"
        sim --advance "$(python3 -c "print($d / 2000)")"
        sim --dump > "$T/st.json"
        check "not stormed before the detection time" test "$(jget "$T/st.json" \
                'd["watchdog"]["queues"]["'"$P1"'"]["3"]["status"]')" = operational
        sim --advance "$(python3 -c "print(($d + 3 * $p) / 1000)")"
        sim --dump > "$T/st.json"
        at=$(jget "$T/st.json" 'd["watchdog"]["queues"]["'"$P1"'"]["3"]["stormed_at"] - d["traffic"]["'"$P1"'"]["counters"]["pfc_rx.3"]["t0"]')
        echo "detected $(python3 -c "print(round($at * 1000))") ms after the storm began (detection $d ms, poll $p ms)"
        check "stormed" test "$(jget "$T/st.json" 'd["watchdog"]["queues"]["'"$P1"'"]["3"]["status"]')" = stormed
        check "within the detection time plus one poll" python3 -c "import sys; sys.exit(0 if $d / 1000 <= $at <= ($d + $p) / 1000 + 1e-6 else 1)"
        sim --traffic "$P1:pfc_rx.3=0"
        sim --dump > "$T/st.json"
        st=$(jget "$T/st.json" 'd["traffic"]["'"$P1"'"]["counters"]["pfc_rx.3"]["t0"]')
        sim --advance "$(python3 -c "print(($r + 3 * $p) / 1000)")"
        sim --dump > "$T/st.json"
        at=$(jget "$T/st.json" 'd["watchdog"]["queues"]["'"$P1"'"]["3"]["restored_at"] - '"$st")
        echo "restored $(python3 -c "print(round($at * 1000))") ms after the last pause (restoration $r ms)"
        check "operational again" test "$(jget "$T/st.json" 'd["watchdog"]["queues"]["'"$P1"'"]["3"]["status"]')" = operational
        check "after the restoration time, within one more poll" python3 -c "import sys; sys.exit(0 if $r / 1000 <= $at <= ($r + $p) / 1000 + 1e-6 else 1)"
}

wd_case sonic Ethernet0,Ethernet4,Ethernet8 \
        '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 400, "restoration_ms": 800, "action": "drop", "poll_interval_ms": 200}}}' \
        '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 600, "restoration_ms": 1000, "action": "forward"}}}' 400
check "the unmanaged port's rows are untouched" test "$(raw "d['sonic']['db']['PORT_QOS_MAP']['Ethernet8']")" = \
        "{'dscp_to_tc_map': 'AZURE', 'pfc_enable': '3,4', 'pfcwd_sw_enable': '3,4', 'tc_to_queue_map': 'AZURE'}"
refused '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 50}}}' "pfc.watchdog.detection_ms 50 is outside sonic's 100-5000"
refused '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 3000, "poll_interval_ms": 2000}}}' \
        "pfc.watchdog.poll_interval_ms 2000 is outside sonic's 100-1000"
sim -- sudo config pfcwd start --action drop --restoration-time 300 Ethernet8 150 >/dev/null
sim -- sudo config save -y >/dev/null
refused '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 400, "poll_interval_ms": 200}}}' \
        "port 'Ethernet8' (not managed by this policy): its watchdog's detection time 150 ms is below the poll interval 200 ms"
step "sonic: a member the policy does not name is never changed"
sim -- sudo config pfcwd interval 100 >/dev/null
sim -- sudo config save -y >/dev/null
policy "$T/det.json" det '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 500}}}'
apply_logged "$T/d.json" "$T/sent.txt" "$T/det.json"
check "the poll interval stays 100 ms" test "$(raw "d['sonic']['db']['PFC_WD']['GLOBAL']['POLL_INTERVAL']")" = 100
check "no interval command" bash -c "! grep -q 'pfcwd interval' '$T/sent.txt'"
check "the unmanaged port's watchdog stays" test "$(raw "d['sonic']['db']['PFC_WD']['Ethernet8']['detection_time']")" = 150
sim -- sudo pfcwd stop Ethernet8 >/dev/null
sim -- sudo config save -y >/dev/null
step "sonic: a port whose row has no restoration time (infinite) is not given 2 x detection behind the policy's back"
# pfcwd/main.py start_cmd() writes restoration_time = 2 * detection_time when --restoration-time is not
# given: a policy that rewrites such a port's row without naming restoration_ms is refused.
expect_rc 0 "a watchdog on $P1" swto "$T/inf.json" apply "$T/wd1.json"
sim -- sonic-db-cli CONFIG_DB hdel "PFC_WD|$P1" restoration_time >/dev/null
sim -- sudo config save -y >/dev/null
swctl read >"$T/r8.json"
check "read back: no restoration" test "$(wd "$T/r8.json" state "$P1" '.get("restoration_ms", 0)')" = 0
refused '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 600}}}' \
        "port '$P1': its watchdog never restores by itself (no restoration_time) and 'config pfcwd start' always writes one; give restoration_ms"
policy "$T/inf2.json" inf2 '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 600, "restoration_ms": 1200}}}'
expect_rc 0 "with restoration_ms named it applies" swto "$T/inf2.out" apply "$T/inf2.json"
check "as declared" test "$(raw "d['sonic']['db']['PFC_WD']['$P1']['restoration_time']")" = 1200
storm sonic 400 200 800
sim -- show pfcwd stats | sed 's/^/  /'

wd_case nvue swp1,swp2,swp3 \
        '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 600, "action": "drop", "poll_interval_ms": 200}}}' \
        '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 1000, "poll_interval_ms": 500, "restoration_ms": 500}}}' 600
refused '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 600, "action": "forward"}}}' \
        "NVUE's watchdog drops (it stops processing pause and discards the queue's packets)"
refused '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 600, "restoration_ms": 400}}}' \
        "before Cumulus Linux 5.19 NVUE gives the queue back after one polling interval without pause"
refused '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 250}}}' \
        "pfc.watchdog.detection_ms 250 is not 1-1000 polling intervals of 100 ms"
storm nvue 600 200 200
sim -- nv show interface swp1 qos pfc-watchdog | sed 's/^/  /'
step "nvue 5.19: restoration_ms is recovery-interval x polling-interval"
sim_reinit swp1,swp2,swp3 cl519
policy "$T/r.json" r '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 300, "restoration_ms": 500}}}'
apply_logged "$T/r.out" "$T/sent.txt" "$T/r.json"
check "recovery-interval 5" grep -q 'nv set qos pfc-watchdog recovery-interval 5' "$T/sent.txt"
check "read back" test "$(wd "$T/r.out" after swp1 '["restoration_ms"]')" = 500
step "nvue 5.19: a new polling interval keeps the restoration the policy does not name, or is refused"
policy "$T/r2.json" r2 '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 500, "poll_interval_ms": 250}}}'
apply_logged "$T/r2.out" "$T/sent.txt" "$T/r2.json"
check "recovery-interval 2 at 250 ms" grep -q 'nv set qos pfc-watchdog recovery-interval 2' "$T/sent.txt"
check "the restoration stays 500 ms" test "$(wd "$T/r2.out" after swp1 '["restoration_ms"]')" = 500
refused '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 600, "poll_interval_ms": 200}}}' \
        "pfc.watchdog.restoration_ms 500 (the port's own) is not 1-1000 polling intervals of 200 ms"

wd_case eos Ethernet1,Ethernet2,Ethernet3 \
        '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 400, "restoration_ms": 800, "action": "drop", "poll_interval_ms": 200}}}' \
        '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 600, "restoration_ms": 1000, "action": "alert"}}}' 400
refused '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 400, "restoration_ms": 800, "action": "forward"}}}' \
        "EOS's watchdog drops, error-disables or only notifies"
refused '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 405, "restoration_ms": 800}}}' \
        "EOS takes it in seconds with two decimals"
refused '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 400, "restoration_ms": 800, "poll_interval_ms": 300}}}' \
        "is more than half of the shorter of timeout and recovery-time"
storm eos 400 200 800
sim -- 'show priority-flow-control counters watchdog | json' | sed 's/^/  /'
step "eos: the switch-wide action no-drop and override action drop (AVD's schema) are read, never written"
expect_rc 0 "back to the snapshot" swto "$T/rs.json" restore "$T/snap.json"
policy "$T/noact.json" noact '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 400, "restoration_ms": 800}}}'
expect_rc 0 "a watchdog without an action of the port's own" swto "$T/na.json" apply "$T/noact.json"
eos_global() { sim -- "$(printf 'configure session hand\n%s\ncommit' "$1")" >/dev/null; }
eos_global "priority-flow-control pause watchdog action no-drop"
swctl read >"$T/r6.json"
check "the port runs the switch's no-drop" test "$(wd "$T/r6.json" state "$P1" '["action"]')" = no-drop
eos_global "priority-flow-control pause watchdog override action drop"
swctl read >"$T/r7.json"
check "overridden to drop" test "$(wd "$T/r7.json" state "$P1" '["action"]')" = drop
native >"$T/n6.json"
policy "$T/alert.json" alert '{"pfc": {"priorities": [3], "watchdog": {"detection_ms": 400, "restoration_ms": 800, "action": "alert"}}}'
apply_logged "$T/al.json" "$T/sent.txt" "$T/alert.json"
check "the port's own action written" grep -q "priority-flow-control pause watchdog port action notify-only" "$T/sent.txt"
check "no switch-wide line sent" bash -c "! grep -qE '^(no )?priority-flow-control pause watchdog (action|override)' '$T/sent.txt'"
check "the switch-wide lines stay" python3 - "$T/n6.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cmds"]
assert "priority-flow-control pause watchdog action no-drop" in c and \
       "priority-flow-control pause watchdog override action drop" in c, sorted(k for k in c if "watchdog" in k)
PY
echo "ok: the watchdog on every dialect"
