# Sourced by guest.sh (busybox sh, after setup): spec.roce_tos end to end on Soft-RoCE.
# An rdma_cm connection with no ToS of its own (perftest's ib_write_bw -R without -T)
# is captured on the wire (tcpdump of RoCEv2, UDP 4791, on the peer's end of the veth):
# before the policy it carries DSCP 0, with the policy applied (roce_tos 104 on va,
# the connecting side's interface: rdma_cm configfs default_roce_tos of rxe0/1) the
# policy's DSCP 26 in both directions (the accepting side answers with the REQ's
# traffic class), and after the rollback DSCP 0 again. Prints VMLAB-RESULT/VMLAB-INFO.
TCPDUMP=/usr/bin/tcpdump
CFS=/sys/kernel/config
# The case keeps a journal of its own: its rollback is gated by the revision before it
# (txn_rollback), and after the rdma cases that is an MTU policy whose verbs probe
# needs the probe server they have stopped.
TOSCFG=/tmp/tos-agent.json

# dscp_counts PCAP SRC DST: "N_TOTAL D:N D:N ..." of the RoCEv2 packets SRC -> DST, by IP DSCP
# The connection's own packets: the CM's MADs travel on QP1 (the BTH's destination QP,
# UDP payload bytes 5-7), with the GSI QP's traffic class, not the connection's ToS.
dscp_counts() {
        $TCPDUMP -Z root -r "$1" -nn -v "udp port 4791 and src host $2 and dst host $3 and (udp[12:4] & 0xffffff) != 1" 2>/dev/null |
                awk 'function hex(s,  i, c, v) { v = 0; for (i = 1; i <= length(s); i++) {
                                c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c } return v }
                     /^[0-9]/ && match($0, /tos 0x[0-9a-f]+/) {
                        d = int(hex(substr($0, RSTART + 6, RLENGTH - 6)) / 4); n[d]++; t++ }
                     END { printf "%d", t; for (d in n) printf " %d:%d", d, n[d]; printf "\n" }'
}

# only DSCP MIN "COUNTS": at least MIN packets, every one with DSCP D
only() {
        d=$1 min=$2
        set -- $3
        total=$1
        shift
        [ "$total" -ge "$min" ] && [ "$#" -eq 1 ] && [ "$1" = "$d:$total" ]
}

# rdma_cm_run PCAP: one ib_write_bw -R pair (rxe0 on va connects to B) while tcpdump records vb.
# The server listens through rdma_cm (no TCP socket to wait for): the client tries again until it is up.
rdma_cm_run() {
        $TCPDUMP -Z root -i vb -nn -U -s 96 -w "$1" udp port 4791 2>/tmp/tcpdump.log &
        tpid=$!
        until_ok 100 grep -q "listening on" /tmp/tcpdump.log
        ib_write_bw -R -s $SIZE -n 200 -F --report_gbits -p 18610 > /tmp/cms.out 2>&1 &
        srv=$!
        n=0 crc=1
        while [ $crc -ne 0 ] && [ $n -lt 20 ]; do
                sleep 0.5
                ib_write_bw -R -s $SIZE -n 200 -F --report_gbits -p 18610 $B > /tmp/cmc.out 2>&1
                crc=$?
                n=$((n + 1))
        done
        [ $crc -eq 0 ] || kill $srv 2>/dev/null
        wait $srv
        sleep 1
        kill -INT $tpid; wait $tpid
        info "ib_write_bw -R: client exit $crc after $n tries: $(awk -v s=$SIZE '$1 == s && NF >= 5 { print $4 " Gb/s" }' /tmp/cmc.out)"
        return $crc
}

default_tos() { cat $CFS/rdma_cm/rxe0/ports/1/default_roce_tos 2>/dev/null || echo "?"; }

# wire WHAT PCAP DSCP: both directions of the capture carry DSCP only
wire() {
        ab=$(dscp_counts "$2" $A $B)
        ba=$(dscp_counts "$2" $B $A)
        info "$1: RoCEv2 A->B by DSCP: $ab; B->A: $ba (total DSCP:count...)"
        only "$3" 50 "$ab" && only "$3" 5 "$ba"
}

case_roce_tos() {
        [ -x $TCPDUMP ] || { res "SKIP roce-tos-on-wire: tcpdump is not in the guest"; return; }
        grep -q " $CFS configfs" /proc/mounts || mount -t configfs none $CFS 2>/tmp/cfs.err ||
                { res "FAIL roce-tos-configfs: cannot mount configfs: $(cat /tmp/cfs.err)"; return; }
        [ -d $CFS/rdma_cm ] || { res "FAIL roce-tos-configfs: no $CFS/rdma_cm (rdma_cm not loaded?)"; return; }
        mkdir -p /tmp/state-tos
        printf '{ "state_dir": "/tmp/state-tos" }\n' > $TOSCFG
        cat > /tmp/tos.json <<EOP
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "vmlab-roce-tos" },
  "targets": { "interfaces": ["va"] }, "spec": { "roce_tos": 104 }, "verify": { "probe": "none" } }
EOP
        $AGENT --config $TOSCFG plan /tmp/tos.json > /tmp/tos.plan 2>&1
        info "plan: $(tr '\n' ' ' < /tmp/tos.plan)"
        before=$(default_tos)

        # the control: without the policy the connection rides DSCP 0, so the check below can fail
        rdma_cm_run /tmp/cm0.pcap || { res "FAIL roce-tos-rdma-cm: ib_write_bw -R failed: $(tail -2 /tmp/cmc.out | tr '\n' ' ')"; return; }
        wire "before the policy (default_roce_tos $before)" /tmp/cm0.pcap 0 &&
                res "PASS roce-tos-control-dscp0" || res "FAIL roce-tos-control-dscp0: not every packet with DSCP 0"

        timeout 180 $AGENT --config $TOSCFG apply /tmp/tos.json > /tmp/tos.out 2>&1
        arc=$?
        info "apply roce_tos 104: exit $arc, rdma_cm default_roce_tos of rxe0/1 now $(default_tos), of rxe1/1 $(cat $CFS/rdma_cm/rxe1/ports/1/default_roce_tos 2>/dev/null || echo 'not made')"
        tail -3 /tmp/tos.out | sed 's/^/VMLAB-INFO   /'
        [ $arc -eq 0 ] && [ "$(default_tos)" = 104 ] && res "PASS roce-tos-applied" ||
                res "FAIL roce-tos-applied: exit $arc, default_roce_tos $(default_tos)"
        $AGENT --config $TOSCFG --output json state --interfaces va > /tmp/tos.state 2>&1
        grep -q '"roce_tos": 104' /tmp/tos.state && grep -q '"rxe0/1"' /tmp/tos.state &&
                res "PASS roce-tos-state" || res "FAIL roce-tos-state: $(tr -d '\n ' < /tmp/tos.state | cut -c1-300)"

        rdma_cm_run /tmp/cm1.pcap || { res "FAIL roce-tos-rdma-cm: ib_write_bw -R failed with the policy: $(tail -2 /tmp/cmc.out | tr '\n' ' ')"; return; }
        wire "with roce_tos 104" /tmp/cm1.pcap 26 &&
                res "PASS roce-tos-on-wire" || res "FAIL roce-tos-on-wire: a RoCEv2 packet without DSCP 26 (or too few)"

        timeout 180 $AGENT --config $TOSCFG rollback > /tmp/tos.rb 2>&1
        rrc=$?
        info "rollback: exit $rrc, default_roce_tos of rxe0/1 now $(default_tos)"
        tail -3 /tmp/tos.rb | sed 's/^/VMLAB-INFO   /'
        rdma_cm_run /tmp/cm2.pcap || { res "FAIL roce-tos-rdma-cm: ib_write_bw -R failed after the rollback"; return; }
        [ $rrc -eq 0 ] && [ "$(default_tos)" = "$before" ] && wire "after the rollback" /tmp/cm2.pcap 0 &&
                res "PASS roce-tos-rolled-back-on-wire" || res "FAIL roce-tos-rolled-back-on-wire: exit $rrc, default_roce_tos $(default_tos)"
}
