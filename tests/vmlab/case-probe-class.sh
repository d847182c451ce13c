# Sourced by guest.sh (busybox sh, after setup and the probe-server start): the verbs
# probe rides the DSCP and priority it is given, proven on the wire (tcpdump of
# RoCEv2, UDP 4791, on the peer's end of the veth), and measurements on different
# paths are never compared. Prints VMLAB-RESULT/VMLAB-INFO lines like guest.sh.
TCPDUMP=/usr/bin/tcpdump

# roce_tos PCAP SRC DST: "good total" of RoCEv2 packets SRC -> DST, good = IP DSCP 26
roce_tos() {
        $TCPDUMP -Z root -r "$1" -nn -v "udp port 4791 and src host $2 and dst host $3" 2>/dev/null |
                awk '/^[0-9]/ { n++; if ($0 ~ /tos 0x6[89ab][,)]/) g++ } END { printf "%d %d\n", g, n }'
}

# all_of WHAT "GOOD TOTAL" MIN: every one of at least MIN packets is good
all_of() {
        set -- "$1" $2 "$3"
        info "$1: $2 of $3 RoCEv2 packets with DSCP 26"
        [ "$3" -ge "$4" ] && [ "$2" -eq "$3" ]
}

jfield() {      # jfield FILE KEY: the first "KEY": VALUE of our pretty-printed JSON
        sed -n "s/^ *\"$2\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$1" | head -1
}

# captured PCAP PROBE-ARGS...: our verbs probe while tcpdump records RoCEv2 on vb; the probe's status
captured() {
        pcap=$1; shift
        $TCPDUMP -Z root -i vb -nn -U -s 96 -w "$pcap" udp port 4791 2>/tmp/tcpdump.log &
        tpid=$!
        i=0
        while ! grep -q "listening on" /tmp/tcpdump.log && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        probe "$@"
        prc=$?
        sleep 1
        kill -INT $tpid; wait $tpid
        return $prc
}

case_probe_class() {
        [ -x $TCPDUMP ] || { res "SKIP verbs-probe-dscp-on-wire: tcpdump is not in the guest"; return; }
        # the control: without a DSCP none of the packets carries 26, so the check below can fail
        captured /tmp/roce0.pcap /tmp/class0.json --runs 1
        set -- $(roce_tos /tmp/roce0.pcap $A $B)
        info "without --dscp: $1 of $2 RoCEv2 packets with DSCP 26"
        [ "$2" -ge 50 ] && [ "$1" -eq 0 ] || res "FAIL verbs-probe-dscp-control: $1 of $2 packets with DSCP 26 without --dscp"
        captured /tmp/roce.pcap /tmp/class.json --dscp 26 --priority 3 --runs 1
        prc=$?
        if [ $prc -ne 0 ]; then
                res "FAIL verbs-probe-dscp-on-wire: probe failed: $(tail -1 /tmp/probe.err)"
        else
                all_of "requester A->B" "$(roce_tos /tmp/roce.pcap $A $B)" 50 &&
                        all_of "responder B->A (ACKs)" "$(roce_tos /tmp/roce.pcap $B $A)" 5 &&
                        res "PASS verbs-probe-dscp-on-wire" ||
                        res "FAIL verbs-probe-dscp-on-wire: a RoCEv2 packet without DSCP 26 (or too few captured)"
        fi
        # what the probe says it ran on, and what the device reports for its QP (ibv_query_qp)
        info "path: device $(jfield /tmp/class.json device), gid_index $(jfield /tmp/class.json gid_index), dscp $(jfield /tmp/class.json dscp), priority $(jfield /tmp/class.json priority)"
        grep -q '"dscp": 26' /tmp/class.json && grep -q '"priority": 3' /tmp/class.json &&
                grep -q '"gid": "::ffff:10.77.0.1"' /tmp/class.json &&
                res "PASS verbs-probe-path-reported" || res "FAIL verbs-probe-path-reported: $(tr -d '\n ' < /tmp/class.json | cut -c1-300)"

        # a baseline measured over tcp never gates a verbs measurement
        $AGENT probe --peer $B:$PORT --mode tcp --duration-ms 300 --runs 1 --output json > /tmp/tcpbase.json 2>/tmp/probe.err
        probe /tmp/mix.json --runs 1 --baseline /tmp/tcpbase.json
        mrc=$?
        info "verbs against a tcp baseline: exit $mrc, verdict $(jfield /tmp/mix.json verdict)"
        [ $mrc -eq 1 ] && [ "$(jfield /tmp/mix.json verdict)" = probe_mismatch ] &&
                res "PASS mode-mismatch-fails-gate" || res "FAIL mode-mismatch-fails-gate: exit $mrc, $(tail -1 /tmp/probe.err)"

        # a transaction pins auto once: with the RDMA device gone after the change, the
        # post-change probe fails as verbs (gate: post_probe_failed); it never falls back to tcp
        cat > /tmp/pin.json <<EOP
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "vmlab-pin", "overrides": ["vmlab-mtu"] },
  "targets": { "interfaces": ["va", "vb"] },
  "spec": { "mtu": 4200 },
  "verify": { "probe": "auto", "peer": "$B:$PORT", "dscp": 26, "duration_ms": 300, "message_size": $SIZE,
              "max_regression_pct": 90, "settle_ms": 0, "runs": 1 } }
EOP
        set_mtu 9000
        $AGENT --config /tmp/agent.json plan /tmp/pin.json > /tmp/pin.plan 2>&1
        grep '^probe:' /tmp/pin.plan | sed 's/^/VMLAB-INFO /'
        NETTUNE_TEST_HOOK_AFTER_APPLY="$RDMA link delete rxe0" \
                $AGENT --yes --config /tmp/agent.json --output json apply /tmp/pin.json > /tmp/pin.out 2>/tmp/pin.err
        arc=$?
        $RDMA link add rxe0 type rxe netdev va 2>/dev/null
        # the first "mode" after "post" is its own (keys sorted: "load" {...} comes before it, "path" after)
        post_mode=$(sed -n '/"post": {/,/"mode"/p' /tmp/pin.out | sed -n 's/^ *"mode": "\([a-z]*\)",*$/\1/p' | head -1)
        info "apply with rxe0 gone after the change: exit $arc, post mode '$post_mode', verdict $(jfield /tmp/pin.out verdict), mtu va=$(mtu va)"
        grep -q '^probe: verbs via va (rxe0 GID' /tmp/pin.plan && [ $arc -eq 1 ] && [ "$post_mode" = verbs ] &&
                [ "$(jfield /tmp/pin.out verdict)" = post_probe_failed ] && [ "$(mtu va)" = 9000 ] &&
                res "PASS auto-pinned-across-phases" || res "FAIL auto-pinned-across-phases: exit $arc, post '$post_mode', $(tail -1 /tmp/pin.err)"
}
