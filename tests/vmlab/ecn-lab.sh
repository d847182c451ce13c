#!/bin/sh
# The ECN story on a real Linux data plane (busybox sh, inside the lab guest, whose
# Debian kernel has sch_ets and sch_red). The seed's case in miniature: hosts send to
# one receiver through a Linux switch; its port toward the receiver is the
# bottleneck; too-low ECN thresholds make the switch mark too early and cost goodput.
# Nobody chooses the fix by hand: nettunectl doctor names the too-low thresholds with
# the marks it measured and proposes the port's bandwidth-delay product (its shaper's
# rate x the round trip its probes measured), and that proposal, applied, restores
# the goodput; from the seed's thresholds again, nettunectl tune finds the lowest
# thresholds that hold 95% of the ceiling by measured trials (each reverted), and its
# winner, applied, restores it too; a change back is caught by the bandwidth gate and
# rolled back. Every figure comes from this one run.
#
#   h1, h2 (10.1.N.2, tcp_ecn=1, cubic) ── swp1, swp2 ┐
#                                   leaf1 (forwards; nettune-agent serve, role switch)
#   rx (10.5.0.2: iperf3, probe-server) ──── swp5 ┤ ← bottleneck: the lab's htb class 1:1,
#                                                 │   nettune's ets tree goes under it
#   ref (10.6.0.2: iperf3) ────────────────── ref0 ┘ ← its twin, never managed: the ceiling
#   netem 60 ms on rx's and ref's egress (the ACK path)
#   h1, h2, rx: nettune-agent serve (role host) with a probe responder on the data path
#   (the fabric probe tune and doctor --probe measure with)
#   root namespace: nettunectl (mTLS) ── mgmt-NODE ── mgmt0 of each node (10.9.N.11)
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
# figures as "ECNLAB-FIGURE name value" lines. ECNLAB_TUNE_TRIALS (default 8) is
# tune's trial budget, ECNLAB_TUNE_RUNS (default 1) its runs per measurement: the
# tier's short search; bench/ecn_lab.sh runs the long one.
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
TUNE_TRIALS=${ECNLAB_TUNE_TRIALS:-8} TUNE_RUNS=${ECNLAB_TUNE_RUNS:-1}     # ECNLAB_TUNE=0: no tune search
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
mgmt_net() { case $1 in leaf1) echo 0 ;; rx) echo 5 ;; h*) echo "${1#h}" ;; esac; }

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
        # Management: the controller (root namespace of the guest, or its own) reaches each agent
        # on its mgmt0, a link of its own: 10.9.N.11 (N: leaf1 0, hN N, rx 5).
        for n in leaf1 $HOSTS rx; do
                m=$(mgmt_net $n)
                in_ctl $IP link add name mgmt-$n type veth peer name mgmt0 netns "$PFX$n" || return 1
                in_ctl $IP addr add 10.9.$m.1/24 dev mgmt-$n && in_ctl $IP link set mgmt-$n up || return 1
                ns $n $IP addr add 10.9.$m.11/24 dev mgmt0 && ns $n $IP link set mgmt0 up || return 1
        done
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
  "probe": { "listen": "10.9.0.11:18515", "allow": ["10.0.0.0/8"] },
  "drift": { "interval_s": 0 },
  "settle_ms": 500,
  "qdisc_parents": { "swp5": "1:1" } }
EOF
        nodes='{ "name": "leaf1", "url": "https://10.9.0.11:7440", "labels": { "role": "switch", "rack": "r1" } }'
        for n in $HOSTS rx; do
                host_agent $n
                nodes="$nodes, { \"name\": \"$n\", \"url\": \"https://10.9.$(mgmt_net $n).11:7440\", \"labels\": { \"role\": \"host\" } }"
        done
        cat > $W/inventory.json <<EOF
{ "tls": { "ca": "$PKI/ca.crt", "cert": "$PKI/controller.crt", "key": "$PKI/controller.key" },
  "nodes": [ $nodes ] }
EOF
        ns leaf1 $AGENT serve --config $W/leaf1/agent.json > $W/leaf1/agent.log 2>&1 &
        PIDS="$PIDS $!"
        for i in $(seq 100); do
                listening leaf1 | grep -q '10.9.0.11:7440' && listening rx | grep -q "$RX:18515" &&
                        listening rx | grep -q '10.9.5.11:7440' && listening h1 | grep -q '10.9.1.11:7440' &&
                        [ "$(listening ref | grep -c ':52[0-9][0-9] ')" = $FLOWS ] && return 0
                sleep 0.2
        done
        return 1
}

# host_agent NODE: nettune-agent serve (role host) with a probe responder on its data address.
host_agent() {
        case $1 in rx) a=$RX ;; *) a=10.1.${1#h}.2 ;; esac
        mkdir -p $W/$1/state
        cat > $W/$1/agent.json <<EOF
{ "listen": "10.9.$(mgmt_net $1).11:7440",
  "tls": { "cert": "$PKI/agent.crt", "key": "$PKI/agent.key", "client_ca": "$PKI/clients-ca.crt" },
  "state_dir": "$W/$1/state",
  "probe": { "listen": "$a:18516", "allow": ["10.0.0.0/8"] },
  "drift": { "interval_s": 0 } }
EOF
        ns $1 $AGENT serve --config $W/$1/agent.json > $W/$1/agent.log 2>&1 &
        PIDS="$PIDS $!"
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

# pair NAME [twin-first]: the managed port (into $got) and its twin (into $ceil), back
# to back, the twin first when asked; $r = got / ceil.
pair() {
        if [ "${2:-}" = twin-first ]; then
                ceil=$(incast $1-ceiling $REF)
                got=$(incast $1 $RX)
        else
                got=$(incast $1 $RX)
                ceil=$(incast $1-ceiling $REF)
        fi
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

# pair_median NAME: five pairs; the median pair's figures stand (into $got, $ceil, $r),
# every pair is printed. Each mark costs a cubic flow 30% of its window (beta 0.7), so
# the queue held near empty costs a fraction of the ceiling that swings with the
# emulated CPU's timing (single pairs measured 0.65-0.81 under too-low thresholds,
# 0.95-1.04 with no marking, and 0.82 once at the proposal's thresholds beside a busy
# host, in a run whose median of three then fell to 0.947); the median of five is the
# figure that counts. The pairs alternate which half runs first, so that a host growing
# busier or quieter during a pair weighs on both halves alike.
pair_median() {
        rs=""
        for try in 1 2 3 4 5; do
                case $try in 2|4) pair ${1}_pair$try twin-first ;; *) pair ${1}_pair$try ;; esac
                info "$2: $got Mbit/s, the ceiling $ceil: $r (pair $try)"
                rs="$rs$r $got $ceil
"
        done
        set -- $(printf '%s' "$rs" | sort -n | sed -n 3p)
        r=$1 got=$2 ceil=$3
}

# marked: the ECN marks of queue 0 on swp5, from the agent's own read of the qdisc stats.
marked() {
        agent state --interfaces swp5 2>/dev/null | sed -n 's/^  queue 0 ([a-z]*): marked \([0-9]*\),.*/\1/p' | head -1
}

thresholds() {
        agent state --interfaces swp5 2>/dev/null | sed -n 's/^  ecn: //p'
}

# queue0 KEY: that member of queue 0's ECN on swp5 (the agent's own read-back, its JSON).
queue0() {
        agent --output json state --interfaces swp5 2>/dev/null | tr -d ' \n' |
                sed -n "s/.*\"queue0\":{[^}]*\"$1\":\([0-9a-z]*\).*/\1/p"
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
        info "too-low thresholds, the median of five pairs: $got Mbit/s, the ceiling $ceil: $r; queue 0 of swp5 marked ${m0:-?} -> ${m1:-?}"
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
        if [ "${ECNLAB_TUNE:-1}" = 1 ]; then
                tune_story
        else
                info "nettunectl tune's search not run here (ECNLAB_TUNE=0; bench/ecn_lab.sh runs it)"
        fi

        say "(c) a change back to the too-low thresholds, gated: the agent's TCP probe across the bottleneck"
        kept_min=$(queue0 min_threshold_bytes)
        rollout c $POL/lab-switch-ecn-too-low-again.json
        figure regression_gate_baseline_mbps "${base:-0}"
        figure regression_gate_post_mbps "${post:-0}"
        after=$(thresholds)
        info "leaf1 swp5 now: $after"
        gate=$(agent history 2>/dev/null | sed -n 2p | grep -o 'gate\|readback\|error' | head -1)
        info "nettunectl exit $rc; leaf1's newest transaction restored by: ${gate:-nothing}"
        kept=0
        [ -n "$kept_min" ] && [ "$(queue0 min_threshold_bytes)" = "$kept_min" ] && kept=1
        [ $rc -eq 1 ] && [ "$gate" = gate ] && [ $kept -eq 1 ] && res "PASS ecn-regression-rolled-back" ||
                res "FAIL ecn-regression-rolled-back: nettunectl exit $rc (expected 1), restored by '${gate:-}' (expected gate), thresholds now $after (expected min ${kept_min:-?})"
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
# heavily while the incast runs), with the marks it measured; --probe measures the
# round trips (the fabric probe's all-to-all over the hosts: 60 ms through swp5), so
# the floor is swp5's bandwidth-delay product: its shaper's 20 Mbit/s x that round
# trip. Its proposal, applied (ungated, like the mistake), raises them to the floor,
# doctor is clean and the goodput is back: the median of five pairs, >= 0.95.
doctor_story() {
        say "(a') nettunectl doctor --probe while the incast runs: the seed's walk, automated"
        diagnose a --probe --propose $W/fix.json
        grep -q '^CRITICAL ecn_threshold_low: leaf1 queue 0 marks from 3000 bytes (max 15000)' $W/doctor-a.txt &&
                grep -q '^  ports: .*leaf1:swp5' $W/doctor-a.txt && grep -q 'ecn_marked_per_s=[1-9]' $W/doctor-a.txt &&
                [ $drc -eq 1 ] && res "PASS ecn-doctor-finds-the-seeds-case" ||
                res "FAIL ecn-doctor-finds-the-seeds-case: doctor exit $drc, see $W/doctor-a.txt"
        figure doctor_marks_per_s "$(sed -n 's/.*ecn_marked_per_s=\([0-9.]*\).*/\1/p' $W/doctor-a.txt | head -1)"
        floor=$(sed -n 's/^CRITICAL ecn_threshold_low: .*below the floor \([0-9]*\)-.*/\1/p' $W/doctor-a.txt | head -1)
        rtt=$(sed -n 's/.* x \([0-9.]*\) ms).*/\1/p' $W/doctor-a.txt | head -1)
        figure doctor_floor_bytes "${floor:-0}"
        figure doctor_rtt_ms "${rtt:-0}"
        grep -q 'below the floor [0-9]*-[0-9]* for its bandwidth-delay product (20 Mbit/s x ' $W/doctor-a.txt &&
                awk -v f="${floor:-0}" 'BEGIN { exit !(f >= 120000 && f <= 250000) }' &&
                res "PASS ecn-doctor-floor-is-the-bdp" ||
                res "FAIL ecn-doctor-floor-is-the-bdp: floor '${floor:-none}' (expected 20 Mbit/s x a measured ~60 ms round trip, 120-250 kB)"
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
        pair_median proposal "the proposal's thresholds"
        figure proposal_mbps "$got"
        figure proposal_ceiling_mbps "$ceil"
        figure proposal_ratio "$r"
        info "the proposal's thresholds: $got Mbit/s, the ceiling $ceil: $r"
        ge "$r" 0.95 && res "PASS ecn-doctor-proposal-restores-goodput" ||
                res "FAIL ecn-doctor-proposal-restores-goodput: the median pair, $got Mbit/s, is $r of the ceiling $ceil (expected >= 0.95)"
}

# From the seed's thresholds again, nettunectl tune finds what the fabric needs, nobody
# choosing a number: its trials (the incast from h1, h2 to rx through swp5, measured
# by the fabric probe, each with its ceiling measured right after it: --paired, as
# TCG rates drift) run on leaf1 alone, each pending and then reverted; its winner is
# written as a policy and rolled out with nettunectl apply; the goodput after it, the
# median of five pairs, is >= 0.95 of the ceiling.
tune_story() {
        say "(t) the seed's thresholds again; nettunectl tune ecn finds the thresholds by measured trials"
        rollout t0 $POL/lab-switch-ecn-too-low.json
        info "leaf1 swp5 now: $(thresholds)"
        t0=$(date +%s)
        ctl tune ecn --switch leaf1 --queue 0 --selector role=host --pattern incast --receiver rx --paired \
                --duration-ms 6000 --max-trials $TUNE_TRIALS --runs $TUNE_RUNS --out $W/tuned.json --plot $W/tune.svg \
                > $W/tune.txt 2> $W/tune.err
        trc=$?
        figure tune_seconds $(( $(date +%s) - t0 ))
        sed 's/^/VMLAB-INFO   | /' $W/tune.err $W/tune.txt
        tune_figures
        back="$(queue0 min_threshold_bytes)/$(queue0 max_threshold_bytes)/$(queue0 mark_probability_pct)"
        info "leaf1 swp5 after tune: min/max/probability $back"
        orig=0
        [ "$back" = 3000/15000/100 ] && orig=1
        [ $trc -eq 0 ] && [ "$held" = yes ] && [ "$ended" = true ] && [ "$lowest" = yes ] && [ $orig -eq 1 ] &&
                res "PASS ecn-tune-finds-thresholds" ||
                res "FAIL ecn-tune-finds-thresholds: tune exit $trc, chosen ${chosen:-none} (held ${held:-?}, the lowest that held: ${lowest:-?}), every trial ended: ${ended:-?}, leaf1 back at the seed's: $orig"
        if [ ! -s $W/tuned.json ]; then
                res "FAIL ecn-tune-restores-goodput: tune wrote no policy"
                return
        fi
        sed 's/^/VMLAB-INFO   | /' $W/tuned.json
        rollout tuned $W/tuned.json
        [ $rc -eq 0 ] || res "FAIL ecn-tune-policy-applied: nettunectl exit $rc"
        info "leaf1 swp5 now: $(thresholds)"
        pair_median tuned "the tuned thresholds"
        figure tuned_mbps "$got"
        figure tuned_ceiling_mbps "$ceil"
        figure tuned_ratio "$r"
        info "tune: $ntrials trials, chosen min_threshold_bytes $chosen, $got Mbit/s, the ceiling $ceil: $r"
        ge "$r" 0.95 && res "PASS ecn-tune-restores-goodput" ||
                res "FAIL ecn-tune-restores-goodput: the median pair, $got Mbit/s, is $r of the ceiling $ceil (expected >= 0.95)"
}

# tune_figures: tune's report ($W/tune.txt) into $chosen $ntrials $held $ended $lowest and
# figures. A trial's row: label, min, max, p%, the figure (number, unit), share, marks/s,
# cnps/s, pauses/s, drops/s, held, outcome.
tune_figures() {
        awk '$1 ~ /^[0-9]+$/ && NF >= 13 { o = $13; for (i = 14; i <= NF; i++) o = o "_" $i
                print "ECNLAB-FIGURE tune_trial", $1, $2, $7, $12, $8, o }' $W/tune.txt
        chosen=$(sed -n 's/^chosen: min_threshold_bytes \([0-9]*\) .*/\1/p' $W/tune.txt)
        ntrials=$(sed -n 's/^chosen: .*, after \([0-9]*\) trials*$/\1/p' $W/tune.txt)
        [ -n "$ntrials" ] || ntrials=$(awk '$1 ~ /^[0-9]+$/ && NF >= 13' $W/tune.txt | wc -l)
        ended=false
        grep -q 'every trial ended confirmed or reverted' $W/tune.txt && ended=true
        held=no lowest=no
        [ -n "$chosen" ] && held=yes
        low=$(awk '$1 ~ /^[0-9]+$/ && NF >= 13 && $12 == "yes" { print $2 }' $W/tune.txt | sort -n | head -1)
        [ -n "$chosen" ] && [ "$chosen" = "$low" ] && lowest=yes
        figure tune_trials "${ntrials:-0}"
        figure tune_chosen_bytes "${chosen:-0}"
        figure tune_ceiling "$(sed -n 's/^ceiling: \([0-9.]* [MG]bit\/s\).*/\1/p' $W/tune.txt | tr ' ' _)"
}

# Stop what the lab started (by PID): the servers hold the console's pipe otherwise.
cleanup() {
        for p in $PIDS; do kill $p 2>/dev/null; done
        for n in $HOSTS leaf1 rx ref $CTLNS; do $IP netns del "$PFX$n" 2>/dev/null; done
        [ -n "$CTLNS" ] || for n in leaf1 $HOSTS rx; do $IP link del mgmt-$n 2>/dev/null; done
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
for f in $W/leaf1/agent.log $W/h*/agent.log $W/rx/agent.log; do
        grep -q 'AddressSanitizer\|runtime error' $f && res "FAIL ecn-lab-sanitizer: $(grep -m1 'Sanitizer\|runtime error' $f)"
done
