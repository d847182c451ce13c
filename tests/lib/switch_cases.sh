# Switch driver cases through a real sshd + switchsim, shared by tests/integration/switch-*.sh.
# Source after common.sh and sshd.sh; call switch_cases DIALECT PORTS MTU [TIMER].

SWCTL=$BUILD/tools/switchctl

swctl() { "$SWCTL" --config "$T/sw/agent.json" --switch sw1 "$@"; }
# swto FILE ARGS...: switchctl with its JSON output in FILE (for expect_rc)
swto() { local out=$1; shift; swctl "$@" > "$out"; }

# jq-like field from a JSON file: jget FILE PYTHON-EXPR (d = the document)
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# jports FILE PYTHON-EXPR: EXPR over every port's state (p), one value when all ports agree, else the list.
jports() {
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); v=[$2 for p in d['state']['ports'].values()]; print(v[0] if all(x == v[0] for x in v) else v)" "$1"
}

sim_mutations() { sim --dump > "$T/dump.json"; jget "$T/dump.json" 'd["mutations"]'; }

write_policy() {        # write_policy FILE MTU PRIO
        cat > "$1" <<EOF
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": {"name": "sw-$2"},
  "targets": {"switches": ["sw1"]},
  "spec": { "mtu": $2, "trust": "dscp", "dscp_to_priority": {"26": $3, "48": 6},
            "pfc": {"priorities": [$3]},
            "ecn": {"queues": [$3], "min_threshold_bytes": 150000, "max_threshold_bytes": 1500000,
                    "mark_probability_pct": 100} } }
EOF
}

# same_state A B: the "state"/"after" objects of two switchctl outputs are equal.
same_state() {
        python3 - "$1" "$2" <<'EOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
pick = lambda d: d.get("state") or d.get("after")
sys.exit(0 if pick(a) == pick(b) else 1)
EOF
}

hand_edit_mtu() {      # hand_edit_mtu PORT MTU: change the switch behind nettune's back
        case $SIM_DIALECT in
        nvue) sim -- nv set interface "$1" link mtu "$2" && sim -- nv config apply -y ;;
        sonic) sim -- sonic-db-cli CONFIG_DB hset "PORT|$1" mtu "$2" ;;
        eos) sim -- "$(printf 'configure session hand\ninterface %s\nmtu %s\nexit\ncommit' "$1" "$2")" ;;
        esac >/dev/null
}

switch_cases() {
        local dialect=$1 ports=$2 mtu=$3 timer=${4:-yes} first=${2%%,*}
        switch_sim_start "$T/sw" "$dialect" "$ports"
        write_policy "$T/p1.json" "$mtu" 3
        write_policy "$T/p2.json" 2000 4

        step "baseline read"
        swctl read > "$T/base.json"
        check "baseline has every port" test "$(jget "$T/base.json" 'len(d["state"]["ports"])')" = 2

        step "apply through ssh: trust, dscp map, pfc, ecn, mtu"
        expect_rc 0 "apply p1" swto "$T/a1.json" apply "$T/p1.json" --confirm 30 --snapshot "$T/snap.json"
        check "apply verified by read-back" test "$(jget "$T/a1.json" 'd["verified"]')" = True
        check "commands were sent" test "$(jget "$T/a1.json" 'd["apply_commands"]')" -gt 0
        swctl read > "$T/r1.json"
        check "read-back trust dscp on every port" test "$(jports "$T/r1.json" 'p["trust"]')" = dscp
        check "read-back dscp 26 -> 3" test "$(jports "$T/r1.json" 'p["dscp_to_priority"]["26"]')" = 3
        check "read-back pfc [3]" test "$(jports "$T/r1.json" 'p["pfc"]["priorities"]')" = "[3]"
        check "read-back ecn queue3 min" test "$(jports "$T/r1.json" 'p["ecn"]["queue3"]["min_threshold_bytes"]')" = 150000
        check "read-back every port mtu $mtu" test "$(jget "$T/r1.json" 'sorted({p["mtu"] for p in d["state"]["ports"].values()})')" = "[$mtu]"

        step "idempotent re-apply: nothing sent, nothing changed"
        local m0; m0=$(sim_mutations)
        expect_rc 0 "re-apply p1" swto "$T/a2.json" apply "$T/p1.json" --confirm 30
        check "no commands on re-apply" test "$(jget "$T/a2.json" 'd["apply_commands"]')" = 0
        check "no new revision/commit on the switch" test "$(sim_mutations)" = "$m0"

        step "rollback after a failed gate"
        expect_rc 0 "apply p2 then roll back" swto "$T/a3.json" apply "$T/p2.json" --confirm 30 --rollback
        echo "restore method: $(jget "$T/a3.json" 'd["restore_method"]')"
        check "restored natively" test "$(jget "$T/a3.json" 'd["restore_method"]')" != failed
        swctl read > "$T/r3.json"
        check "state is p1 again" same_state "$T/r1.json" "$T/r3.json"

        if [ "$timer" = yes ]; then
                step "commit-confirm expiry: no commit, the switch reverts by itself"
                # The timer must outlast the apply and the read that follow it: under load and
                # sanitizers they take over 10 s. It started before the apply returned: wait
                # until 30 s after that.
                local t0
                expect_rc 0 "apply p2 without commit" swto "$T/a4.json" apply "$T/p2.json" --confirm 30 --no-commit
                t0=$(date +%s)
                swctl read > "$T/r4.json"
                check "p2 is live while pending" test "$(jget "$T/r4.json" 'd["state"]["ports"]["'"$first"'"]["mtu"]')" = 2000
                while [ $(( $(date +%s) - t0 )) -le 31 ]; do sleep 1; done
                sim --tick
                swctl read > "$T/r5.json"
                check "timer expired: p1 is back" same_state "$T/r1.json" "$T/r5.json"
        fi

        step "drift after a hand edit on the switch"
        hand_edit_mtu "$first" 1500
        swctl read > "$T/r6.json"
        check "drift visible in read" test "$(jget "$T/r6.json" 'd["state"]["ports"]["'"$first"'"]["mtu"]')" = 1500
        expect_rc 0 "re-apply fixes drift" swto "$T/a6.json" apply "$T/p1.json"
        check "only the drifted knob was sent" test "$(jget "$T/a6.json" 'd["apply_commands"]')" -gt 0
        swctl read > "$T/r7.json"
        check "state is p1 again after drift fix" same_state "$T/r1.json" "$T/r7.json"

        step "restore the original snapshot"
        expect_rc 0 "restore snapshot" swto "$T/rs.json" restore "$T/snap.json"
        swctl read > "$T/r8.json"
        check "back to the baseline" same_state "$T/base.json" "$T/r8.json"
}
