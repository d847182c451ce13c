#!/bin/sh
# Capture iproute2's tc requests and the kernel's replies for the qdisc driver's tests,
# in the lab guest (Debian's kernel has sch_ets and sch_red) or on any host whose kernel
# has them:   capture.sh OUTDIR
# Each NN-*.trace is one tc command under strace on a veth pair (va, vb) in a fresh
# network namespace; the hex dumps are the exact netlink bytes (nltrace.c reads them).
set -u
out=$1
IP=/usr/bin/ip TC=/usr/sbin/tc
ST="strace -f -e trace=sendmsg,sendto,recvmsg -e write=all -e read=all -xx -s 8192"
N=tccap
mkdir -p /run/netns "$out"
$IP netns add $N
$IP -n $N link add name va type veth peer name vb
$IP -n $N link set va up
$IP -n $N link set vb up
cap() {         # cap NAME CMD...: CMD runs in the namespace
        f=$out/$1.trace
        shift
        {
                echo "# cmd: ip netns exec $N $*"
                echo "# tracer: $ST"
                echo "# netns $N, veth pair va<->vb (ifindex va=$($IP -n $N -o link show va | cut -d: -f1)), kernel $(uname -r), $($TC -V | head -1)"
                $IP netns exec $N $ST "$@" > /tmp/cap.out 2>&1
                rc=$?
                # the netlink lines (decoded part cut short) and their hex dumps
                sed -n '/sendto\|sendmsg\|recvmsg\|^ |\|bytes in buffer/p' /tmp/cap.out | cut -c1-160
                echo "# --- exit status: $rc"
        } > "$f"
}
cap 01-ets-replace-strict8 $TC qdisc replace dev va root handle 4e54: ets bands 8 strict 8 priomap 7 6 5 4 3 2 1 0 7 7 7 7 7 7 7 7
cap 02-red-replace-low $TC qdisc replace dev va parent 4e54:8 handle 4e60: red limit 65536 min 3000 max 15000 avpkt 1000 probability 0.5 bandwidth 200mbit ecn
cap 03-red-replace-high $TC qdisc replace dev va parent 4e54:5 handle 4e63: red limit 6000000 min 150000 max 1500000 avpkt 1000 probability 0.1 bandwidth 200mbit ecn
cap 04-red-change $TC qdisc change dev va parent 4e54:8 handle 4e60: red limit 6000000 min 150000 max 1500000 avpkt 1000 probability 0.1 bandwidth 200mbit ecn
cap 05-qdisc-show $TC -s -d qdisc show dev va
cap 06-ets-replace-quanta $TC qdisc replace dev vb root handle 4e54: ets bands 8 strict 4 quanta 30000 10000 10000 50000 priomap 7 6 5 4 3 2 1 0 7 7 7 7 7 7 7 7
cap 07-ets-change-strict8 $TC qdisc change dev vb root handle 4e54: ets bands 8 strict 8 priomap 7 6 5 4 3 2 1 0 7 7 7 7 7 7 7 7
cap 08-red-del $TC qdisc del dev va parent 4e54:5 handle 4e63:
cap 09-ets-del $TC qdisc del dev vb root handle 4e54:
$IP netns exec $N $TC qdisc replace dev vb root handle 1: htb default 1
cap 10-qdisc-show-foreign $TC -s qdisc show
$IP netns del $N
