#!/bin/sh
# The ECN story on a real Linux data plane (busybox sh, inside the lab guest, whose
# Debian kernel has sch_ets and sch_red). The seed's case in miniature: hosts send to
# one receiver through a Linux switch; its port toward the receiver is the
# bottleneck; too-low ECN thresholds make the switch mark too early and cost goodput;
# nettune's fleet-wide change raises them; a change back is caught by the bandwidth
# gate and rolled back; nettunectl doctor names the too-low thresholds with the marks
# it measured while the incast ran, and its proposal, applied, leaves it clean. Every
# figure comes from this one run.
#
#   h1, h2 (10.1.N.2, tcp_ecn=1, cubic) ── swp1, swp2 ┐
#                                   leaf1 (forwards; nettune-agent serve, role switch)
#   rx (10.5.0.2: iperf3, probe-server) ──── swp5 ┤ ← bottleneck: the lab's htb class 1:1,
#                                                 │   nettune's ets tree goes under it
#   ref (10.6.0.2: iperf3) ────────────────── ref0 ┘ ← its twin, never managed: the ceiling
#   netem 60 ms on rx's and ref's egress (the ACK path)
#   root namespace: nettunectl (mTLS) ── mgmt0 10.9.0.11
#
# 20 Mbit/s and 60 ms make the bandwidth-delay product (150 kB) ten times the
# too-low thresholds, as in the seed's fabric, at a rate the emulated CPU sustains
# even on a busy host (at 200 Mbit/s TCG itself is the bottleneck there). TCG rates
# follow the host's load, so every figure is a pair measured back to back: the
# managed port, then its twin (the ceiling: the same bottleneck with no marking
# qdisc). Two senders (ECNLAB_FLOWS, 1-4): with four, cubic flows desynchronise and
# fill in for each other, and too-low thresholds cost little at this scale.
#
# The line-rate emulation (htb, netem) is the lab's own: nettune's agent is told
# (qdisc_parents) to attach under the htb class and never touches it.
# Prints "VMLAB-RESULT PASS|FAIL name[: why]", "VMLAB-INFO text" and the story's
# figures as "ECNLAB-FIGURE name value" lines.
#
# Natively (a host kernel with sch_ets and sch_red; examples/demo/ecn-story.sh) the same
# script runs with ECNLAB_AGENT, ECNLAB_CTL, ECNLAB_PKI, ECNLAB_POLICIES, ECNLAB_DIR, a
# namespace prefix ECNLAB_NS_PREFIX and the controller in its own namespace ECNLAB_CTL_NS.
IP=/usr/bin/ip TC=/usr/sbin/tc
AGENT=${ECNLAB_AGENT:-/usr/bin/nettune-agent} CTL=${ECNLAB_CTL:-/usr/bin/nettunectl}
PKI=${ECNLAB_PKI:-/lab/pki} POL=${ECNLAB_POLICIES:-/lab/policies} W=${ECNLAB_DIR:-/tmp/ecn}
PFX=${ECNLAB_NS_PREFIX:-} CTLNS=${ECNLAB_CTL_NS:-}
RATE=${ECNLAB_RATE:-20mbit} BURST=${ECNLAB_BURST:-25k} DELAY=${ECNLAB_DELAY:-60ms} MTU=${ECNLAB_MTU:-1500} SECS=${ECNLAB_SECS:-8}
FLOWS=${ECNLAB_FLOWS:-2} CC=${ECNLAB_CC:-cubic}
RX=10.5.0.2 REF=10.6.0.2

res() { echo "VMLAB-RESULT $*"; }
info() { echo "VMLAB-INFO $*"; }
say() { echo "VMLAB-INFO"; echo "VMLAB-INFO == $*"; }
figure() { echo "ECNLAB-FIGURE $1 $2"; }
ns() { n=$1; shift; $IP netns exec "$PFX$n" "$@"; }
in_ctl() { if [ -n "$CTLNS" ]; then ns "$CTLNS" "$@"; else "$@"; fi; }
listening() { ns "$1" ss -ltn 2>/dev/null || ns "$1" netstat -ltn 2>/dev/null; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "0" }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
ctl() { in_ctl $CTL --yes --inventory $W/inventory.json --db $W/ctl.db "$@"; }
agent() { ns leaf1 $AGENT --config $W/leaf1/agent.json "$@"; }

link() {        # link NS_A IF_A NS_B IF_B: a veth pair with the fabric's jumbo MTU
        $IP link add name "$2" netns "$PFX$1" mtu $MTU type veth peer name "$4" netns "$PFX$3" mtu $MTU || return 1
        ns "$1" $IP link set "$2" up && ns "$3" $IP link set "$4" up
}

sysctl_ns() { ns "$1" sh -c "echo $3 > /proc/sys/net/$2"; }

setup() {
        for n in $HOSTS leaf1 rx ref $CTLNS; do
                $IP netns add "$PFX$n" && ns $n $IP link set lo up || return 1
        done
        for i in $(seq $FLOWS); do
                link h$i eth0 leaf1 swp$i || return 1
                ns h$i $IP addr add 10.1.$i.2/24 dev eth0 && ns h$i $IP route add default via 10.1.$i.1 || return 1
                ns leaf1 $IP addr add 10.1.$i.1/24 dev swp$i || return 1
                sysctl_ns h$i ipv4/tcp_ecn 1
                sysctl_ns h$i ipv4/tcp_congestion_control $CC
        done
        link leaf1 swp5 rx eth0 && link leaf1 ref0 ref eth0 || return 1
        ns leaf1 $IP addr add 10.5.0.1/24 dev swp5 && ns rx $IP addr add $RX/24 dev eth0 || return 1
        ns leaf1 $IP addr add 10.6.0.1/24 dev ref0 && ns ref $IP addr add $REF/24 dev eth0 || return 1
        ns rx $IP route add 10.1.0.0/16 via 10.5.0.1 && ns ref $IP route add 10.1.0.0/16 via 10.6.0.1 || return 1
        sysctl_ns leaf1 ipv4/ip_forward 1
        sysctl_ns leaf1 ipv4/tcp_ecn 1          # the agent's TCP probe crosses the bottleneck too
        # Management: the controller (root namespace of the guest, or its own) reaches the agent on mgmt0.
        in_ctl $IP link add name mgmt-leaf1 type veth peer name mgmt0 netns "${PFX}leaf1" || return 1
        in_ctl $IP addr add 10.9.0.1/24 dev mgmt-leaf1 && in_ctl $IP link set mgmt-leaf1 up || return 1
        ns leaf1 $IP addr add 10.9.0.11/24 dev mgmt0 && ns leaf1 $IP link set mgmt0 up || return 1
        # The lab's line rate and delay: htb on swp5 and ref0 (nettune attaches under swp5's
        # class 1:1), netem on the receivers. burst: 10 ms of the rate: a late timer on a busy
        # host does not cost capacity, a sender that backs off for an RTT (60 ms and more) does.
        for p in swp5 ref0; do
                ns leaf1 $TC qdisc add dev $p root handle 1: htb default 1 || return 1
                ns leaf1 $TC class add dev $p parent 1: classid 1:1 htb rate $RATE ceil $RATE \
                        burst $BURST cburst $BURST || return 1
        done
        ns rx $TC qdisc add dev eth0 root netem delay $DELAY && ns ref $TC qdisc add dev eth0 root netem delay $DELAY ||
                return 1
}

start_servers() {
        for p in $(seq 5201 $((5200 + FLOWS))); do
                for n in rx ref; do
                        ns $n iperf3 -s -p $p > $W/iperf3-$n-$p.log 2>&1 &
                        PIDS="$PIDS $!"
                done
        done
        ns rx $AGENT probe-server --listen $RX:18515 --allow 10.5.0.0/24 > $W/probe-server.log 2>&1 &
        PIDS="$PIDS $!"
        mkdir -p $W/leaf1/state
        cat > $W/leaf1/agent.json <<EOF
{ "role": "switch",
  "listen": "10.9.0.11:7440",
  "tls": { "cert": "$PKI/agent.crt", "key": "$PKI/agent.key", "client_ca": "$PKI/clients-ca.crt" },
  "state_dir": "$W/leaf1/state",
  "probe": { "listen": "10.9.0.11:18515" },
  "drift": { "interval_s": 0 },
  "settle_ms": 500,
  "qdisc_parents": { "swp5": "1:1" } }
EOF
        cat > $W/inventory.json <<EOF
{ "tls": { "ca": "$PKI/ca.crt", "cert": "$PKI/controller.crt", "key": "$PKI/controller.key" },
  "nodes": [ { "name": "leaf1", "url": "https://10.9.0.11:7440", "labels": { "role": "switch", "rack": "r1" } } ] }
EOF
        ns leaf1 $AGENT serve --config $W/leaf1/agent.json > $W/leaf1/agent.log 2>&1 &
        PIDS="$PIDS $!"
        for i in $(seq 50); do
                listening leaf1 | grep -q '10.9.0.11:7440' && listening rx | grep -q "$RX:18515" &&
                        [ "$(listening ref | grep -c ':52[0-9][0-9] ')" = $FLOWS ] && return 0
                sleep 0.2
        done
        return 1
}

# incast NAME DEST: FLOWS flows from h1.. -> DEST at once for SECS s (the first second
# omitted); prints the sum of what the receiver got, Mbit/s.
incast() {
        for i in $(seq $FLOWS); do
                ns h$i iperf3 -c $2 -p 520$i -t $SECS -O 1 -f m > $W/incast-$1-h$i.txt 2>&1 &
        done
        wait
        total=0
        for i in $(seq $FLOWS); do
                m=$(awk '/receiver/ { for (k = 1; k < NF; k++) if ($(k + 1) == "Mbits/sec") v = $k } END { print v + 0 }' \
                        $W/incast-$1-h$i.txt)
                total=$(awk -v a="$total" -v b="$m" 'BEGIN { printf "%.1f", a + b }')
        done
        echo "$total"
}

# pair NAME: the managed port (into $got), then its twin (into $ceil), back to back; $r = got / ceil.
pair() {
        got=$(incast $1 $RX)
        ceil=$(incast $1-ceiling $REF)
        r=$(ratio "$got" "$ceil")
        figure ${1}_mbps "$got"
        figure ${1}_ceiling_mbps "$ceil"
        figure ${1}_ratio "$r"
}

# pair_reaches NAME: up to three pairs until one reaches 0.90 of its ceiling (the
# restored goodput is there if any pair shows it: a busy host only ever takes rate
# away from the emulated CPU, in either half of a pair); every pair is printed,
# the last one's figures stand.
pair_reaches() {
        for try in 1 2 3; do
                pair $1
                info "$2: $got Mbit/s, the ceiling $ceil: $r (pair $try)"
                figure ${1}_pairs "$try"
                ge "$r" 0.90 && return 0
        done
        return 1
}

# pair_median NAME: three pairs; the median pair's figures stand (into $got, $ceil, $r),
# every pair is printed. Each mark costs a cubic flow 30% of its window (beta 0.7), so
# the queue held near empty costs a fraction of the ceiling that swings with the
# emulated CPU's timing (single pairs measured 0.65-0.81 under too-low thresholds,
# 0.95-1.04 with no marking); the median of three is the figure that counts.
pair_median() {
        rs=""
        for try in 1 2 3; do
                pair ${1}_pair$try
                info "$2: $got Mbit/s, the ceiling $ceil: $r (pair $try)"
                rs="$rs$r $got $ceil
"
        done
        set -- $(printf '%s' "$rs" | sort -n | sed -n 2p)
        r=$1 got=$2 ceil=$3
}

# marked: the ECN marks of queue 0 on swp5, from the agent's own read of the qdisc stats.
marked() {
        agent state --interfaces swp5 2>/dev/null | sed -n 's/^  queue 0 ([a-z]*): marked \([0-9]*\),.*/\1/p' | head -1
}

thresholds() {
        agent state --interfaces swp5 2>/dev/null | sed -n 's/^  ecn: //p'
}

# rollout NAME POLICY: nettunectl apply (exit code into $rc, output shown); the gate's
# baseline and post-change probe of leaf1 into $base and $post (Mbit/s, "" when none ran).
rollout() {
        ctl --parallel 1 apply "$2" --canary 1 --wave-size 100% --confirm-timeout 60 > $W/$1.out 2>&1
        rc=$?
        sed 's/^/VMLAB-INFO   | /' $W/$1.out
        ctl --output json status > $W/$1.json 2>/dev/null
        base=$(gbps_mbps baseline_gbps $W/$1.json)
        post=$(gbps_mbps post_gbps $W/$1.json)
        [ -z "$base$post" ] || info "leaf1's gate: baseline ${base:-none} Mbit/s, after the change ${post:-none} Mbit/s"
}

gbps_mbps() {   # gbps_mbps KEY FILE: the first "KEY": number of a JSON file, times 1000
        sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" "$2" | head -1 | awk 'NF { printf "%.1f", $1 * 1000 }'
}

story() {
        say "the bottleneck: $RATE (htb), $DELAY, $FLOWS ECN $CC flows for $SECS s; no marking qdisc yet"
        pair start
        info "no marking qdisc: $got Mbit/s on swp5, $ceil Mbit/s on its twin (the ceiling): $r"
        ge "$got" 1 && ge "$ceil" 1 && res "PASS ecn-ceiling" ||
                { res "FAIL ecn-ceiling: the incast moved no data ($got / $ceil Mbit/s)"; return 1; }

        say "(a) the seed's mistake: ECN thresholds too low (min 3 kB, max 15 kB, 100%) rolled out, ungated"
        rollout a $POL/lab-switch-ecn-too-low.json
        [ $rc -eq 0 ] || { res "FAIL ecn-too-low-applied: nettunectl exit $rc"; sed 's/^/VMLAB-INFO   agent: /' $W/leaf1/agent.log | tail -20; return 1; }
        info "leaf1 swp5 now: $(thresholds)"
        m0=$(marked)
        pair_median too_low "too-low thresholds"
        m1=$(marked)
        figure too_low_mbps "$got"
        figure too_low_ceiling_mbps "$ceil"
        figure too_low_ratio "$r"
        info "too-low thresholds, the median of three pairs: $got Mbit/s, the ceiling $ceil: $r; queue 0 of swp5 marked ${m0:-?} -> ${m1:-?}"
        figure too_low_marks $(( ${m1:-0} - ${m0:-0} ))
        metric=$(in_ctl curl -s --max-time 20 --cacert $PKI/ca.crt --cert $PKI/controller.crt \
                --key $PKI/controller.key https://10.9.0.11:7440/metrics |
                sed -n 's/^nettune_queue_ecn_marked_total{interface="swp5",queue="0"} //p')
        info "leaf1's /metrics: nettune_queue_ecn_marked_total{interface=\"swp5\",queue=\"0\"} ${metric:-missing}"
        [ "${metric:-0}" -ge "${m1:-1}" ] 2>/dev/null && res "PASS ecn-marks-in-metrics" ||
                res "FAIL ecn-marks-in-metrics: /metrics says '${metric:-nothing}', the agent's state said ${m1:-nothing}"
        le "$r" 0.85 && res "PASS ecn-too-low-costs-goodput" ||
                res "FAIL ecn-too-low-costs-goodput: the median pair, $got Mbit/s, is $r of the ceiling $ceil (expected <= 0.85)"
        [ "${m1:-0}" -gt $(( ${m0:-0} + 50 )) ] && res "PASS ecn-marks-climb" ||
                res "FAIL ecn-marks-climb: queue 0 marks ${m0:-none} -> ${m1:-none}"
        doctor_story

        say "(b) the fix, fleet-wide: nettunectl apply of the raised thresholds (min 150 kB, max 1.5 MB, 10%), gated"
        rollout b $POL/lab-switch-ecn-raised.json
        figure raise_gate_baseline_mbps "${base:-0}"
        figure raise_gate_post_mbps "${post:-0}"
        [ $rc -eq 0 ] && res "PASS ecn-raise-rolled-out" || res "FAIL ecn-raise-rolled-out: nettunectl exit $rc"
        info "leaf1 swp5 now: $(thresholds)"
        pair_reaches raised "raised thresholds" && res "PASS ecn-raise-restores-goodput" ||
                res "FAIL ecn-raise-restores-goodput: $got Mbit/s is $r of the ceiling $ceil (expected >= 0.90)"

        say "(c) a change back to the too-low thresholds, gated: the agent's TCP probe across the bottleneck"
        rollout c $POL/lab-switch-ecn-too-low-again.json
        figure regression_gate_baseline_mbps "${base:-0}"
        figure regression_gate_post_mbps "${post:-0}"
        after=$(thresholds)
        info "leaf1 swp5 now: $after"
        gate=$(agent history 2>/dev/null | sed -n 2p | grep -o 'gate\|readback\|error' | head -1)
        info "nettunectl exit $rc; leaf1's newest transaction restored by: ${gate:-nothing}"
        case $after in
        *'"min_threshold_bytes":150000'*) kept=1 ;;
        *) kept=0 ;;
        esac
        [ $rc -eq 1 ] && [ "$gate" = gate ] && [ $kept -eq 1 ] && res "PASS ecn-regression-rolled-back" ||
                res "FAIL ecn-regression-rolled-back: nettunectl exit $rc (expected 1), restored by '${gate:-}' (expected gate), thresholds now $after"
        pair_reaches after_rollback "after the rollback" && res "PASS ecn-goodput-after-rollback" ||
                res "FAIL ecn-goodput-after-rollback: $got Mbit/s is $r of the ceiling $ceil (expected >= 0.90)"
}

# diagnose NAME: nettunectl doctor over a 4 s window while the senders burst (text into
# $W/doctor-NAME.txt, exit code into $drc), extra options after NAME. The incast comes
# in 2 s bursts, as a collective's traffic does, until doctor answers: every window,
# whenever the agent opens it, holds flow starts, where too-low thresholds mark hardest
# (a started flow settles into a mark every few seconds at this RTT; a window that
# opened after the flows started would see only that).
diagnose() {
        name=$1
        shift
        ctl doctor --window 4 "$@" > $W/doctor-$name.txt 2>&1 &
        dpid=$!
        b=0
        while kill -0 $dpid 2>/dev/null; do
                b=$((b + 1))
                ignored=$(SECS=2; incast doctor-$name-$b $RX)   # a subshell: incast's wait is for its own flows only
        done
        wait $dpid
        drc=$?
        info "doctor $name: $b bursts of 2 s while it ran"
        sed 's/^/VMLAB-INFO   | /' $W/doctor-$name.txt
}

# The seed's case diagnosed: doctor names the too-low thresholds, critical (they mark
# heavily while the incast runs), with the marks it measured; its proposal, applied
# (ungated, like the mistake), raises them to the floor for the port's speed, and
# doctor is clean. The goodput under the floor is a figure, not a verdict: the floor
# assumes a data centre's round trip at the port's speed, this lab's bottleneck is a
# 20 Mbit/s htb class behind 60 ms.
doctor_story() {
        say "(a') nettunectl doctor while the incast runs: the seed's walk, automated"
        diagnose a --propose $W/fix.json
        grep -q '^CRITICAL ecn_threshold_low: leaf1 queue 0 marks from 3000 bytes (max 15000)' $W/doctor-a.txt &&
                grep -q '^  ports: .*leaf1:swp5' $W/doctor-a.txt && grep -q 'ecn_marked_per_s=[1-9]' $W/doctor-a.txt &&
                [ $drc -eq 1 ] && res "PASS ecn-doctor-finds-the-seeds-case" ||
                res "FAIL ecn-doctor-finds-the-seeds-case: doctor exit $drc, see $W/doctor-a.txt"
        figure doctor_marks_per_s "$(sed -n 's/.*ecn_marked_per_s=\([0-9.]*\).*/\1/p' $W/doctor-a.txt | head -1)"
        if [ ! -s $W/fix.json ]; then
                res "FAIL ecn-doctor-proposal: no proposal was written"
                return
        fi
        sed 's/^/VMLAB-INFO   | /' $W/fix.json
        rollout p $W/fix.json
        [ $rc -eq 0 ] && res "PASS ecn-doctor-proposal-applied" || res "FAIL ecn-doctor-proposal-applied: nettunectl exit $rc"
        info "leaf1 swp5 now: $(thresholds)"
        diagnose p
        [ $drc -eq 0 ] && res "PASS ecn-doctor-clean-after-proposal" ||
                res "FAIL ecn-doctor-clean-after-proposal: doctor exit $drc, see $W/doctor-p.txt"
        pair proposal
        info "the proposal's thresholds: $got Mbit/s, the ceiling $ceil: $r"
}

# Stop what the lab started (by PID): the servers hold the console's pipe otherwise.
cleanup() {
        for p in $PIDS; do kill $p 2>/dev/null; done
        for n in $HOSTS leaf1 rx ref $CTLNS; do $IP netns del "$PFX$n" 2>/dev/null; done
        [ -n "$CTLNS" ] || $IP link del mgmt-leaf1 2>/dev/null
}

# ECNLAB_LIB=1: only define the functions (sourced by experiments).
[ -n "${ECNLAB_LIB:-}" ] && return 0
case $FLOWS in 1|2|3|4) ;; *) res "FAIL ecn-lab-setup: ECNLAB_FLOWS '$FLOWS' is not 1-4"; exit 0 ;; esac
PIDS="" HOSTS=$(for i in $(seq $FLOWS); do printf 'h%d ' $i; done)
mkdir -p $W /run/netns
trap cleanup EXIT
if ! setup > $W/setup.log 2>&1; then
        res "FAIL ecn-lab-setup: $(tail -2 $W/setup.log | tr '\n' ' ')"
        exit 0
fi
if ! start_servers; then
        res "FAIL ecn-lab-setup: the agent or the receiver did not come up: $(tail -2 $W/leaf1/agent.log | tr '\n' ' ')"
        exit 0
fi
res "PASS ecn-lab-setup"
story
for f in $W/leaf1/agent.log; do
        grep -q 'AddressSanitizer\|runtime error' $f && res "FAIL ecn-lab-sanitizer: $(grep -m1 'Sanitizer\|runtime error' $f)"
done
