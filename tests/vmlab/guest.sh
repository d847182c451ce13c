#!/bin/sh
# Runs inside the lab guest (busybox sh). Soft-RoCE cases here: two rxe devices on the
# two ends of a veth pair in the main namespace (rxe does not work across namespaces on
# 6.1), with policy routing so traffic between the two local addresses crosses the
# veth. The ECN story is ecn-lab.sh.
# Prints "VMLAB-RESULT PASS|FAIL|SKIP name[: why]" and "VMLAB-INFO text" lines.
IP=/usr/bin/ip TC=/usr/sbin/tc RDMA=/usr/bin/rdma AGENT=/usr/bin/nettune-agent
A=10.77.0.1 B=10.77.0.2 PORT=18515
ITER=${VMLAB_ITER:-800} SIZE=65536
ulimit -l unlimited

res() { echo "VMLAB-RESULT $*"; }
info() { echo "VMLAB-INFO $*"; }
mtu() { cat /sys/class/net/$1/mtu; }
set_mtu() { $IP link set va mtu "$1" && $IP link set vb mtu "$1"; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "nan" }'; }
gbps() { sed -n 's/^  "gbps": \([0-9.e+-]*\).*/\1/p' "$1" | head -1; }
# until_ok TRIES CMD...: run CMD every 0.2 s until it succeeds (TRIES at most). TCG on a
# busy host is slow: wait for the condition itself, never for a fixed time.
until_ok() {
        n=$1; shift
        until "$@"; do
                n=$((n - 1))
                [ $n -gt 0 ] || return 1
                sleep 0.2
        done
}
# listening PORT: a TCP socket listens on PORT (any address, IPv4 or IPv6).
listening() {
        hex=$(printf ':%04X ' "$1")
        grep -q "$hex[0-9A-F:]* 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
# rxe_ready DEV: the port is ACTIVE and GID index 1 (IPv4-mapped, what -x 1 uses) is set.
rxe_ready() {
        grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null &&
                ! grep -q '^0000:0000:0000:0000:0000:0000:0000:0000$' "/sys/class/infiniband/$1/ports/1/gids/1" 2>/dev/null &&
                [ -e "/sys/class/infiniband/$1/ports/1/gids/1" ]
}

setup() {
        $IP link add va type veth peer name vb || return 1
        set_mtu 9000
        $IP addr add $A/32 dev va && $IP addr add $B/32 dev vb || return 1
        $IP link set va up && $IP link set vb up || return 1
        for c in all default va vb; do
                echo 0 > /proc/sys/net/ipv4/conf/$c/rp_filter
                echo 1 > /proc/sys/net/ipv4/conf/$c/accept_local
        done
        $IP route add $B dev va src $A table 101 && $IP route add $A dev vb src $B table 102 || return 1
        $IP rule add pref 100 to $B iif lo lookup 101 && $IP rule add pref 101 to $A iif lo lookup 102 || return 1
        # rdma_cm's accepting side checks the way back to the requester out of the REQ's interface
        # (cma.c validate_ipv4_net_dev(): a fib lookup with that oif and no iif): the same tables by oif
        $IP rule add pref 98 to $B oif va lookup 101 && $IP rule add pref 99 to $A oif vb lookup 102 || return 1
        $IP rule add pref 1000 lookup local && $IP rule del pref 0 || return 1
        $RDMA link add rxe0 type rxe netdev va && $RDMA link add rxe1 type rxe netdev vb || return 1
        until_ok 300 rxe_ready rxe0 && until_ok 300 rxe_ready rxe1 || { echo "rxe devices not ready"; return 1; }
}

probe() {       # probe OUT [extra...]: our verbs probe, JSON into OUT
        out=$1; shift
        $AGENT probe --peer $B:$PORT --mode verbs --duration-ms 0 --iterations $ITER --size $SIZE \
                --output json "$@" > "$out" 2>/tmp/probe.err
}

perftest() {    # average Gb/s of one ib_write_bw pair, "" on failure
        ib_write_bw -d rxe1 -x 1 -s $SIZE -n $ITER -F --report_gbits -p 18600 > /tmp/ibs.out 2>&1 &
        srv=$!
        until_ok 300 listening 18600 || { kill $srv 2>/dev/null; echo "ib_write_bw server did not listen" >/tmp/ibc.out; return 1; }
        ib_write_bw -d rxe0 -x 1 -s $SIZE -n $ITER -F --report_gbits -p 18600 $B > /tmp/ibc.out 2>&1
        rc=$?
        wait $srv
        [ $rc -eq 0 ] || { cat /tmp/ibc.out /tmp/ibs.out >&2; return 1; }
        awk -v s=$SIZE '$1 == s && NF >= 5 { print $4 }' /tmp/ibc.out | head -1
}

# One verbs probe run and one ib_write_bw run, the same size and iterations: $o and $i (Gb/s).
probe_once() {
        probe /tmp/a.json --runs 1 || { res "FAIL verbs-probe: $(tail -1 /tmp/probe.err)"; return 1; }
        o=$(gbps /tmp/a.json)
        qps=$(sed -n 's/^ *"streams": \([0-9]*\).*/\1/p' /tmp/a.json | head -1)
}
perftest_once() {
        i=$(perftest) && [ -n "$i" ] || { res "FAIL ib_write_bw: $(tail -2 /tmp/ibc.out | tr '\n' ' ')"; return 1; }
}

# Three pairs, alternating (probe first, then ib_write_bw first, then probe first: TCG's
# rate drifts with the host's load, and each side leads as often); the pair with the
# median ratio stands.
case_a() {
        pairs=""
        for pair in 1 2 3; do
                if [ $((pair % 2)) -eq 1 ]; then
                        probe_once && perftest_once || return 1
                else
                        perftest_once && probe_once || return 1
                fi
                r=$(ratio "$o" "$i")
                info "pair $pair: verbs probe $o Gb/s, ib_write_bw $i Gb/s: $r"
                pairs="$pairs$r $o $i
"
        done
        set -- $(printf '%s' "$pairs" | sort -n | sed -n 2p)
        r=$1 ours=$2 ibw=$3
        info "verbs probe and ib_write_bw, the median of 3 alternating pairs: $ours Gb/s; ib_write_bw: $ibw Gb/s; ratio $r (pairs: $(printf '%s' "$pairs" | cut -d' ' -f1 | tr '\n' ' ')) (size $SIZE, $ITER iterations, ${qps:-?} QP each)"
        ge "$ours" 0.01 && res "PASS verbs-probe" || res "FAIL verbs-probe: rate '$ours' Gb/s"
        ge "$r" 0.5 && res "PASS verbs-probe-vs-ib_write_bw" ||
                res "FAIL verbs-probe-vs-ib_write_bw: ratio $r below 0.5"
}

# policy FILE MTU MAX_REGRESSION_PCT: the MTUs of the cases are revisions of one layer
# (docs/policy-reference.md, "Layers and owners"), each replacing the one before
policy() {
        cat > "$1" <<EOP
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "vmlab-mtu" },
  "targets": { "interfaces": ["va", "vb"] },
  "spec": { "mtu": $2 },
  "verify": { "probe": "verbs", "peer": "$B:$PORT", "duration_ms": 800, "message_size": $SIZE,
              "max_regression_pct": $3, "min_gbps": 0, "settle_ms": 500, "runs": 5 } }
EOP
}

has_apply() {
        $AGENT apply --help >/dev/null 2>&1
}

case_b() {
        has_apply || { res "SKIP mtu-drop-rolled-back: nettune-agent has no 'apply' command yet"; return; }
        set_mtu 9000
        # MTU 9000 -> 1500 quadruples rxe's packets per WRITE (RoCE MTU 4096 -> 1024).
        # Under TCG each phase's rate also moves with the host's load: the post-change
        # probe has measured 17% to 73% below the baseline in this lab. The gate allows
        # 10%, as a production gate would.
        policy /tmp/drop.json 1500 10
        $AGENT --yes --config /tmp/agent.json apply /tmp/drop.json > /tmp/b.out 2>&1
        rc=$?
        info "apply mtu 1500: exit $rc, mtu now va=$(mtu va) vb=$(mtu vb)"
        tail -5 /tmp/b.out | sed 's/^/VMLAB-INFO   /'
        if [ $rc -ne 1 ] || [ "$(mtu va)" != 9000 ] || [ "$(mtu vb)" != 9000 ]; then
                res "FAIL mtu-drop-rolled-back: exit $rc (expected 1), mtu va=$(mtu va) vb=$(mtu vb) (expected 9000)"
                return
        fi
        res "PASS mtu-drop-rolled-back"
        # Recovery: the restored MTU 9000 against MTU 1500, measured back to back in three
        # pairs that alternate which half runs first; the median pair counts. TCG rates on
        # a busy host drift between two probes: single pairs measured 1.19 to 4.33 here (the
        # median must clear 1.15); one run's 1.188 failed a single-pair 1.2 although the
        # rollback had held.
        rs=""
        for try in 1 2 3; do
                if [ $try = 2 ]; then
                        set_mtu 1500
                        probe /tmp/b15.json --runs 3 || { res "FAIL reprobe-after-rollback: at mtu 1500: $(tail -1 /tmp/probe.err)"; set_mtu 9000; return; }
                        set_mtu 9000
                        probe /tmp/b9.json --runs 3 || { res "FAIL reprobe-after-rollback: $(tail -1 /tmp/probe.err)"; return; }
                else
                        probe /tmp/b9.json --runs 3 || { res "FAIL reprobe-after-rollback: $(tail -1 /tmp/probe.err)"; return; }
                        set_mtu 1500
                        probe /tmp/b15.json --runs 3 || { res "FAIL reprobe-after-rollback: at mtu 1500: $(tail -1 /tmp/probe.err)"; set_mtu 9000; return; }
                        set_mtu 9000
                fi
                r9=$(gbps /tmp/b9.json) r15=$(gbps /tmp/b15.json)
                r=$(ratio "$r9" "$r15")
                info "after rollback: $r9 Gb/s at mtu 9000 vs $r15 Gb/s at mtu 1500 (pair $try, ratio $r)"
                rs="$rs$r $r9 $r15
"
        done
        set -- $(printf '%s' "$rs" | sort -n | sed -n 2p)
        r=$1 r9=$2 r15=$3
        ge "$r" 1.15 && res "PASS reprobe-after-rollback" ||
                res "FAIL reprobe-after-rollback: mtu 9000 rate $r9 is not above mtu 1500 rate $r15 (median pair of 3, ratio $r)"
}

case_c() {
        has_apply || { res "SKIP harmless-change-commits: nettune-agent has no 'apply' command yet"; return; }
        set_mtu 4200
        # Raising the MTU never costs rxe bandwidth, but TCG rates on a loaded host swing
        # by more than half between two measurements (make check-stressed): only a
        # collapse would fail this gate.
        policy /tmp/up.json 9000 90
        $AGENT --yes --config /tmp/agent.json apply /tmp/up.json > /tmp/c.out 2>&1
        rc=$?
        info "apply mtu 4200 -> 9000: exit $rc, mtu now va=$(mtu va) vb=$(mtu vb)"
        tail -5 /tmp/c.out | sed 's/^/VMLAB-INFO   /'
        [ $rc -eq 0 ] && [ "$(mtu va)" = 9000 ] && [ "$(mtu vb)" = 9000 ] && res "PASS harmless-change-commits" ||
                res "FAIL harmless-change-commits: exit $rc, mtu va=$(mtu va) vb=$(mtu vb)"
}

rdma_cases() {
        if ! setup > /tmp/setup.log 2>&1; then
                res "FAIL lab-setup: $(tail -2 /tmp/setup.log | tr '\n' ' ')"
                return
        fi
        res "PASS lab-setup"
        mkdir -p /tmp/state
        printf '{ "state_dir": "/tmp/state", "probe": { "listen": "%s:%s" } }\n' $B $PORT > /tmp/agent.json
        $AGENT --config /tmp/agent.json probe-server > /tmp/server.log 2>&1 &
        server=$!
        until_ok 300 listening $PORT || res "FAIL probe-server: not listening on $PORT: $(tail -1 /tmp/server.log)"
        case_a
        case_b
        case_c
        . /case-probe-class.sh
        case_probe_class
        kill $server 2>/dev/null
        . /case-roce-tos.sh
        case_roce_tos
}

# "rocetos" alone: the veth pair, its two rxe devices, and spec.roce_tos on the wire (case-roce-tos.sh).
rocetos_cases() {
        if ! setup > /tmp/setup.log 2>&1; then
                res "FAIL lab-setup: $(tail -2 /tmp/setup.log | tr '\n' ' ')"
                return
        fi
        . /case-roce-tos.sh
        case_roce_tos
}

# VMLAB_CASES (kernel command line): "rdma" (Soft-RoCE verbs, spec.roce_tos on the wire
# included), "rocetos" (that one alone), "qdisc" (the qdisc driver against this kernel,
# qdisc-cases.sh), "ecn" (the ECN story, ecn-lab.sh).
cases=" ${VMLAB_CASES:-rdma qdisc ecn} "
case $cases in *" rdma "*) rdma_cases ;; *" rocetos "*) rocetos_cases ;; esac
case $cases in *" qdisc "*) sh /qdisc-cases.sh ;; esac
case $cases in *" ecn "*) sh /ecn-lab.sh ;; esac
