#!/usr/bin/env bash
# Integration tier: every tests/integration/*.sh is one case. Exit 0 = pass,
# 77 = skipped (the reason is the script's last "SKIP: ..." line), else fail.
# Select with TESTS='host-*'. The cases named in tests/integration/LONG (minutes each)
# run only with LONG=1 (`make check-long`), keeping `make check` within its time.
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
export BUILD NETTUNE_TOP=$PWD
logdir=$BUILD/test-logs/integration
mkdir -p "$logdir"
pattern=${TESTS:-*}
for t in tests/integration/$pattern.sh; do
        [ -e "$t" ] || continue
        name=$(basename "$t" .sh)
        [ "$name" = run ] && continue           # this runner
        if [ "${LONG:-0}" != 1 ] && grep -qx "$name" tests/integration/LONG 2>/dev/null; then
                continue
        fi
        log=$logdir/$name.log
        NT_ID=$(printf '%04x' $(( (RANDOM * 7 + $$) % 65536 )))
        NT_TMP=$(mktemp -d "/tmp/nettune-$name.XXXXXX")
        export NT_ID NT_TMP
        timeout -k 10 "${TEST_TIMEOUT:-600}" bash "$t" >"$log" 2>&1 </dev/null   # no terminal: nothing asks
        rc=$?
        # A test must stop what it started: anything still running from its temp dir is a leak.
        leaked=$(pgrep -f "$NT_TMP/" || true)
        if [ -n "$leaked" ]; then
                ps -o pid=,args= -p $(echo $leaked | tr ' ' ',') | sed 's/^/  leaked: /' >>"$log"
                kill $leaked 2>/dev/null
                [ $rc -eq 0 ] && rc=99
        fi
        left=$(ip netns list 2>/dev/null | awk '{print $1}' | grep -- "$NT_ID" || true)
        if [ -n "$left" ]; then
                echo "  leaked: network namespaces" $left >>"$log"
                for ns in $left; do ip netns del "$ns" 2>/dev/null; done
                [ $rc -eq 0 ] && rc=99
        fi
        rm -rf "$NT_TMP"
        case $rc in
        99) echo "FAIL $name: left processes or namespaces behind (log: $log)"; grep '^  leaked: ' "$log" | head -5 ;;
        0)  echo "PASS $name" ;;
        77) echo "SKIP $name: $(grep -a '^SKIP: ' "$log" | tail -1 | cut -c7-)" ;;
        124|137) echo "FAIL $name: timed out (log: $log)"; tail -n 20 "$log" | sed 's/^/  /' ;;
        *)  echo "FAIL $name: exit $rc (log: $log)"; tail -n 20 "$log" | sed 's/^/  /' ;;
        esac
done
