#!/bin/sh
# The qdisc driver against a kernel that has sch_ets and sch_red (busybox sh, in the lab
# guest): an agent in the switch role applies, reads back, refuses and restores on a veth
# pair (va, vb) in a namespace of its own. tc's own view decides every verdict.
# Prints "VMLAB-RESULT PASS|FAIL name[: why]" and "VMLAB-INFO text" lines.
IP=/usr/bin/ip TC=/usr/sbin/tc AGENT=/usr/bin/nettune-agent
W=/tmp/qd N=qdcases

res() { echo "VMLAB-RESULT $*"; }
ns() { $IP netns exec $N "$@"; }
agent() { ns timeout 180 $AGENT --config $W/agent.json "$@"; }     # a command that hangs fails its case
qdiscs() { ns $TC qdisc show dev "$1" | sed 's/ refcnt [0-9]*//' | tr '\n' '|'; }
verdict() {     # CONDITION; verdict NAME $?: PASS, or FAIL with the last output and tc's view
        n=$1
        if [ "$2" -eq 0 ]; then
                res "PASS qdisc-$n"
        else
                res "FAIL qdisc-$n: $(tr '\n' ' ' < $W/out | cut -c1-300) | va: $(qdiscs va) | vb: $(qdiscs vb)"
        fi
}
has() { grep -q "$1" $W/out; }
run() { "$@" > $W/out 2>&1; rc=$?; }

# policy FILE IFACE ECN [SPEC_EXTRA]: one layer per port (docs/policy-reference.md, "Layers
# and owners"), so that a policy for vb leaves va's as it is, and the next one for va replaces it
policy() {
        cat > "$1" <<EOF
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "qdisc-$2" },
  "targets": { "interfaces": ["$2"] }, "spec": { "ecn": $3 $4 }, "verify": { "probe": "none" } }
EOF
}

setup() {
        mkdir -p /run/netns $W/state
        $IP netns add $N && ns $IP link set lo up || return 1
        ns $IP link add name va type veth peer name vb || return 1
        ns $IP link set va up && ns $IP link set vb up || return 1
        printf '{ "role": "switch", "state_dir": "%s/state", "qdisc_parents": { "vb": "1:1" } }\n' $W > $W/agent.json
        low='{ "queues": [0], "min_threshold_bytes": 3000, "max_threshold_bytes": 15000 }'
        policy $W/low.json va "$low"
        policy $W/low-replace.json va '{ "queues": [0], "min_threshold_bytes": 3000, "max_threshold_bytes": 15000,
                                          "replace_root_qdisc": true }'
        policy $W/vb.json vb '{ "queues": [0, 3], "min_threshold_bytes": 150000, "max_threshold_bytes": 1500000,
                                "mark_probability_pct": 10 }'
        policy $W/ets.json va '{ "queues": [3], "min_threshold_bytes": 150000, "max_threshold_bytes": 1500000 }' \
                ', "ets": { "priority_to_tc": [0,0,0,3,0,0,6,0], "tc_bandwidth_pct": [40,5,5,50,0,0,0,0],
                            "tc_tsa": ["ets","ets","ets","ets","strict","strict","strict","strict"] }'
        policy $W/ets-bad.json va '{ "queues": [3], "min_threshold_bytes": 150000, "max_threshold_bytes": 1500000 }' \
                ', "ets": { "priority_to_tc": [0,0,0,3,0,0,6,0], "tc_bandwidth_pct": [50,0,0,50,0,0,0,0],
                            "tc_tsa": ["ets","strict","strict","ets","strict","strict","strict","strict"] }'
        policy $W/off.json va '{ "queues": [3], "enabled": false }'
}

cases() {
        # Nothing configured: nettune's tree goes in; a rollback leaves the kernel's default again.
        run agent apply $W/low.json
        [ $rc -eq 0 ] &&
                qdiscs va | grep -q 'ets 4e54: root.*red 4e60: parent 4e54:8 .*min 3000b max 15000b ecn'
        verdict default-apply $?
        run agent --output json state --interfaces va
        tr -d ' \n' < $W/out > $W/out.compact         # the JSON as one line, without its indentation
        grep -q '"queue0":{"enabled":true,"mark_probability_pct":100,"max_threshold_bytes":15000,"min_threshold_bytes":3000}' $W/out.compact &&
                grep -q '"queue1":{"enabled":false' $W/out.compact
        verdict state-reads-back $?
        run agent rollback
        [ $rc -eq 0 ] && qdiscs va | grep -q '^qdisc noqueue 0: root'
        verdict default-restored $?

        # A foreign root is refused, nothing changes; replace_root_qdisc takes it over.
        ns $TC qdisc add dev va root handle 1: htb default 1
        run agent apply $W/low.json
        [ $rc -eq 2 ] && has "the qdisc 'htb 1:' at root was not created by nettune" &&
                qdiscs va | grep -q '^qdisc htb 1: root'
        verdict foreign-refused $?
        run agent apply $W/low-replace.json
        [ $rc -eq 0 ] && qdiscs va | grep -q 'ets 4e54: root'
        verdict foreign-replaced $?
        # Returning to a state with that foreign qdisc is impossible: nothing changes, and it says why.
        run agent rollback
        [ $rc -ne 0 ] && has "had the qdisc 'htb 1:' that nettune replaced" &&
                qdiscs va | grep -q 'ets 4e54: root'
        verdict foreign-rollback-refused $?
        # A pending change that expires restores its snapshot: our tree goes, the restore names what it cannot put back.
        ns $TC qdisc del dev va root
        ns $TC qdisc add dev va root handle 1: htb default 1
        run agent apply --confirm-timeout 1 $W/low-replace.json
        for i in $(seq 60); do          # its watchdog (or the next transaction) restores it
                sleep 0.5
                run agent --output json history
                grep -q "cannot be put back" $W/out && break
        done
        grep -q "cannot be put back" $W/out && qdiscs va | grep -q '^qdisc noqueue 0: root'
        verdict foreign-restore-named $?

        # Under a class the operator names (htb 1:1 on vb); missing first.
        run agent plan $W/vb.json
        [ $rc -ne 0 ] && has "the class 1:1 where nettune attaches its qdiscs"
        verdict parent-missing $?
        ns $TC qdisc add dev vb root handle 1: htb default 1
        ns $TC class add dev vb parent 1: classid 1:1 htb rate 200mbit
        run agent apply $W/vb.json
        [ $rc -eq 0 ] && qdiscs vb | grep -q 'ets 4e54: parent 1:1' &&
                qdiscs vb | grep -q 'red 4e63: parent 4e54:5 limit 6000000b min 150000b max 1500000b ecn'
        verdict parent-apply $?
        run agent rollback --policy qdisc-vb          # va's layer stays committed beside it
        [ $rc -eq 0 ] && ! qdiscs vb | grep -q 'ets 4e54:' && qdiscs vb | grep -q 'htb 1: root'
        verdict parent-restored $?

        # ets through the tc ets qdisc: read back equal; a shape tc ets cannot have is refused.
        run agent apply $W/ets.json
        [ $rc -eq 0 ] &&
                qdiscs va | grep -q 'ets 4e54: root bands 8 strict 4 quanta 50000 5000 5000 40000 priomap 7 7 7 4 7 7 1 7'
        verdict ets-apply $?
        run agent plan $W/ets.json
        [ $rc -eq 0 ] && has "0 changes planned"
        verdict ets-read-back-equal $?
        run agent apply $W/ets-bad.json
        [ $rc -eq 2 ] && has "strict tc 1 is below ets tc 3" && qdiscs va | grep -q 'strict 4 quanta 50000'
        verdict ets-inexpressible-refused $?
        # Marking off on the listed queue: nettune's red goes, the band keeps the kernel's default.
        run agent apply $W/off.json
        [ $rc -eq 0 ] && ! qdiscs va | grep -q 'red 4e63:'
        verdict enabled-false $?
}

rm -rf $W
if ! setup > $W.setup.log 2>&1; then
        res "FAIL qdisc-setup: $(tail -2 $W.setup.log | tr '\n' ' ')"
else
        cases
fi
$IP netns del $N 2>/dev/null
