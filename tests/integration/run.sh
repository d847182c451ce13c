#!/usr/bin/env bash
# Integration tier: every tests/integration/*.sh is one case. Exit 0 = pass,
# 77 = skipped (the reason is the script's last "SKIP: ..." line), else fail.
# Select with TESTS='host-*'. The cases named in tests/integration/LONG (minutes each)
# run only with LONG=1 (`make check-long`), keeping `make check` within its time.
#
# Cases run side by side, INTEGRATION_JOBS at a time (default 3 on two cores or more,
# else 1): they wait on agents, sshd and probes more than they compute. Each runs in a
# network namespace of its own (its loopback, its ports: a case's fixed 127.0.0.1:7450
# meets no other case's) and a mount namespace of its own (`ip netns exec`): the
# namespaces it makes are its own too, and the runner checks inside that view what it
# left behind. The cases of tests/integration/SERIAL run alone, in the machine's own
# namespaces, after the others: those that change the machine itself (a package
# installed), and those that compare rates measured at different moments (pairs
# alone against their median), which other cases' CPU would skew.
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
export BUILD NETTUNE_TOP=$PWD
logdir=$BUILD/test-logs/integration
mkdir -p "$logdir"
pattern=${TESTS:-*}
if [ -z "${INTEGRATION_JOBS:-}" ]; then
        if [ "$(nproc)" -ge 2 ]; then INTEGRATION_JOBS=3; else INTEGRATION_JOBS=1; fi
fi

listed() { grep -qx "$1" "tests/integration/$2" 2>/dev/null; }

# case_body NAME SCRIPT: the case itself, inside its namespaces; exit 99 when it left
# namespaces behind (deleted here, named in its log).
case_body() {
        local name=$1 t=$2 rc left ns
        ip link set lo up 2>/dev/null
        timeout -k 10 "${TEST_TIMEOUT:-600}" bash "$t" </dev/null   # no terminal: nothing asks
        rc=$?
        left=$(ip netns list 2>/dev/null | awk '{print $1}' | grep -- "$NT_ID" | grep -v "^$CASE_NS\$" || true)
        if [ -n "$left" ]; then
                echo "  leaked: network namespaces" $left
                for ns in $left; do ip netns del "$ns" 2>/dev/null; done
                [ $rc -eq 0 ] && rc=99
        fi
        return $rc
}

# run_case NAME SCRIPT SEQ: one case, its verdict line on stdout.
run_case() {
        local name=$1 t=$2 seq=$3 log=$logdir/$1.log rc leaked isolate=1
        NT_ID=$(printf '%04x' $(( (RANDOM * 7 + $$ + seq * 4099) % 65536 )))
        NT_TMP=$(mktemp -d "/tmp/nettune-$name.XXXXXX")
        CASE_NS=ntc-$name-$NT_ID
        CASE_NS=${CASE_NS:0:40}
        export NT_ID NT_TMP CASE_NS
        listed "$name" SERIAL && isolate=0
        if [ $isolate = 1 ] && ip netns add "$CASE_NS" 2>/dev/null; then
                ip netns exec "$CASE_NS" bash -c "$(declare -f case_body); case_body \"\$@\"" case "$name" "$t" >"$log" 2>&1
                rc=$?
                ip netns del "$CASE_NS" 2>/dev/null
        else
                case_body "$name" "$t" >"$log" 2>&1
                rc=$?
        fi
        # A test must stop what it started: anything still running from its temp dir is a leak.
        leaked=$(pgrep -f "$NT_TMP/" || true)
        if [ -n "$leaked" ]; then
                ps -o pid=,args= -p $(echo $leaked | tr ' ' ',') | sed 's/^/  leaked: /' >>"$log"
                kill $leaked 2>/dev/null
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
}

side=() alone=()
for t in tests/integration/$pattern.sh; do
        [ -e "$t" ] || continue
        name=$(basename "$t" .sh)
        [ "$name" = run ] && continue           # this runner
        if [ "${LONG:-0}" != 1 ] && listed "$name" LONG; then
                continue
        fi
        if listed "$name" SERIAL; then alone+=("$t"); else side+=("$t"); fi
done

# Side by side: at most INTEGRATION_JOBS cases at once; each prints its lines in one
# write when it ends (a case's verdict and its log's tail stay together).
seq=0
running=0
for t in "${side[@]}"; do
        if [ "$running" -ge "$INTEGRATION_JOBS" ]; then
                wait -n
                running=$((running - 1))
        fi
        seq=$((seq + 1))
        ( out=$(run_case "$(basename "$t" .sh)" "$t" $seq); printf '%s\n' "$out" ) &
        running=$((running + 1))
done
wait
for t in "${alone[@]}"; do
        seq=$((seq + 1))
        run_case "$(basename "$t" .sh)" "$t" $seq
done
