#!/usr/bin/env bash
# vmlab tier: boot a throw-away Debian kernel under qemu TCG with Soft-RoCE (rdma_rxe)
# and run real verbs there: nettune's verbs probe against probe-server and against
# perftest's ib_write_bw, and (when the agent has `apply`) a policy that lowers the
# MTU and must be rolled back by the gate, and one that must commit.
# Prints PASS/FAIL/SKIP lines for tests/check.sh. Guest build cache: $VMLAB_CACHE
# (default $BUILD/vmlab; never committed). The guest runs a non-sanitized agent:
# $BUILD/nettune-agent when it is one, else a plain copy built into $BUILD/plain.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
cache=${VMLAB_CACHE:-$BUILD/vmlab}
case $cache in /*) ;; *) cache=$PWD/$cache ;; esac

command -v qemu-system-x86_64 >/dev/null 2>&1 || { echo "SKIP vmlab: qemu-system-x86_64 is not installed (make deps)"; exit 0; }
mkdir -p "$cache"

agent=$BUILD/nettune-agent
if [ ! -x "$agent" ] || ldd "$agent" 2>/dev/null | grep -q 'libasan\|libubsan'; then
        agent=$BUILD/plain/nettune-agent       # shared with tests/integration/agent-valgrind.sh
        if ! make -s BUILD="$BUILD/plain" SANITIZE= "$agent" >"$cache/build.log" 2>&1; then
                echo "FAIL vmlab-build: cannot build a plain nettune-agent for the guest (see $cache/build.log)"
                tail -5 "$cache/build.log" | sed 's/^/  /'
                exit 0
        fi
fi

out=$(tests/vmlab/build-guest.sh "$cache" "$agent" 2>"$cache/build-guest.err")
rc=$?
case $rc in
0) ;;
77) echo "SKIP vmlab: $(printf '%s\n' "$out" | sed -n 's/^SKIP: //p' | tail -1)"; exit 0 ;;
*) echo "FAIL vmlab-build: guest build failed (exit $rc)"; tail -5 "$cache/build-guest.err" | sed 's/^/  /'; exit 0 ;;
esac
read -r kernel initrd <<<"$(printf '%s\n' "$out" | tail -1)"

console=$cache/console.log
echo "  host load before boot: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (TCG rates suffer under load)"
start=$(date +%s)
timeout -k 5 "${VMLAB_TIMEOUT:-420}" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -m 1024 -smp 2 \
        -nographic -no-reboot -kernel "$kernel" -initrd "$initrd" \
        -append "console=ttyS0 quiet panic=-1 VMLAB_ITER=${VMLAB_ITER:-800}" </dev/null >"$console" 2>&1
qrc=$?
echo "  guest ran $(( $(date +%s) - start )) s (qemu exit $qrc), console: $console"

tr -d '\r' < "$console" | sed -n 's/^VMLAB-INFO /  /p'
results=$(tr -d '\r' < "$console" | sed -n 's/^VMLAB-RESULT \(PASS\|FAIL\|SKIP\) \([^:]*\)\(.*\)$/\1 vmlab.\2\3/p')
if [ -z "$results" ]; then
        if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
                echo "FAIL vmlab-boot: guest timed out after ${VMLAB_TIMEOUT:-420} s with no results"
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
