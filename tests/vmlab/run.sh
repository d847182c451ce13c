#!/usr/bin/env bash
# vmlab tier: boot a throw-away Debian kernel under qemu TCG and run there what this
# machine's kernel cannot: real verbs over Soft-RoCE (rdma_rxe: nettune's verbs probe
# against probe-server and perftest's ib_write_bw, an MTU policy the gate rolls back
# and one that commits, spec.roce_tos on the wire of an rdma_cm connection), the qdisc
# driver against a kernel with sch_ets and sch_red (qdisc-cases.sh), and the ECN story
# on a Linux switch (ecn-lab.sh).
# Prints PASS/FAIL/SKIP lines for tests/check.sh; the ECN story's figures go to
# $VMLAB_CACHE/ecn-figures.txt. VMLAB_CASES picks cases ("rdma qdisc ecn";
# "rocetos" runs the roce_tos case of "rdma" alone); ECNLAB_TUNE=1 adds nettunectl
# tune's search to the ECN story (not in the tier: each trial is a measurement under
# TCG, and its winner lies by construction at the edge of the target share, which
# single pairs under TCG miss by +-15%; bench/ecn_lab.sh runs it), ECNLAB_TUNE_TRIALS
# and ECNLAB_TUNE_RUNS (default 8 and 1) its budget and runs per measurement
# (bench/ecn_lab.sh: 12 and 3).
# Guest build cache: $VMLAB_CACHE (default $BUILD/vmlab; never committed). The guest
# runs non-sanitized programs: $BUILD's when they are, else plain copies built into
# $BUILD/plain. With --prepare: those builds and the guest's, nothing booted.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
cache=${VMLAB_CACHE:-$BUILD/vmlab}
case $cache in /*) ;; *) cache=$PWD/$cache ;; esac

command -v qemu-system-x86_64 >/dev/null 2>&1 || { echo "SKIP vmlab: qemu-system-x86_64 is not installed (make deps)"; exit 0; }
mkdir -p "$cache"

agent=$BUILD/nettune-agent ctl=$BUILD/nettunectl
if [ ! -x "$agent" ] || [ ! -x "$ctl" ] || ldd "$agent" "$ctl" 2>/dev/null | grep -q 'libasan\|libubsan'; then
        agent=$BUILD/plain/nettune-agent ctl=$BUILD/plain/nettunectl  # shared with agent-valgrind.sh
        if ! make -s BUILD="$BUILD/plain" SANITIZE= "$agent" "$ctl" >"$cache/build.log" 2>&1; then
                echo "FAIL vmlab-build: cannot build plain nettune-agent/nettunectl for the guest (see $cache/build.log)"
                tail -5 "$cache/build.log" | sed 's/^/  /'
                exit 0
        fi
fi

out=$(tests/vmlab/build-guest.sh "$cache" "$agent" "$ctl" 2>"$cache/build-guest.err")
rc=$?
case $rc in
0) ;;
77) echo "SKIP vmlab: $(printf '%s\n' "$out" | sed -n 's/^SKIP: //p' | tail -1)"; exit 0 ;;
*) echo "FAIL vmlab-build: guest build failed (exit $rc)"; tail -5 "$cache/build-guest.err" | sed 's/^/  /'; exit 0 ;;
esac
read -r kernel initrd <<<"$(printf '%s\n' "$out" | tail -1)"
# --prepare: the builds only (tests/check.sh makes them before it boots the guest beside other tiers).
[ "${1:-}" = --prepare ] && exit 0

console=$cache/console.log
echo "  host load before boot: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (TCG rates suffer under load)"
start=$(date +%s)
timeout -k 5 "${VMLAB_TIMEOUT:-1500}" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -m 1024 -smp 2 \
        -nographic -no-reboot -kernel "$kernel" -initrd "$initrd" \
        -append "console=ttyS0 quiet panic=-1 VMLAB_ITER=${VMLAB_ITER:-800} VMLAB_CASES=\"${VMLAB_CASES:-rdma qdisc ecn}\" ECNLAB_TUNE=${ECNLAB_TUNE:-0} ECNLAB_TUNE_TRIALS=${ECNLAB_TUNE_TRIALS:-8} ECNLAB_TUNE_RUNS=${ECNLAB_TUNE_RUNS:-1}" \
        </dev/null >"$console" 2>&1
qrc=$?
echo "  guest ran $(( $(date +%s) - start )) s (qemu exit $qrc), console: $console"

tr -d '\r' < "$console" | sed -n 's/^VMLAB-INFO /  /p'
tr -d '\r' < "$console" | sed -n 's/^ECNLAB-FIGURE //p' > "$cache/ecn-figures.txt"
results=$(tr -d '\r' < "$console" | sed -n 's/^VMLAB-RESULT \(PASS\|FAIL\|SKIP\) \([^:]*\)\(.*\)$/\1 vmlab.\2\3/p')
if [ -z "$results" ]; then
        if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
                echo "FAIL vmlab-boot: guest timed out after ${VMLAB_TIMEOUT:-1500} s with no results"
        else
                echo "FAIL vmlab-boot: guest reported no results (qemu exit $qrc)"
        fi
        tail -15 "$console" | sed 's/^/  /'
        exit 0
fi
printf '%s\n' "$results"
if ! grep -q '^VMLAB: guest done' <(tr -d '\r' < "$console"); then
        echo "FAIL vmlab-guest: guest did not finish its cases (qemu exit $qrc)"
fi
exit 0
