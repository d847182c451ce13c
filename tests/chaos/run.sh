#!/usr/bin/env bash
# make check-chaos: long randomized fault loops, not part of `make check` (CI's default
# run). Each tests/chaos/*.sh runs for CHAOS_SECONDS (default 300) of faults, plus its
# setup, under a time limit; exit 0 = pass, 77 = skipped, else fail. Select with
# TESTS='agent-*'; CHAOS_SEED fixes the random choices (each loop prints its seed).
# The figures each loop prints (FIGURE lines) go into bench/RESULTS.md, section
# "chaos" (OUT=FILE elsewhere; `make bench` keeps that section as it is).
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
export BUILD NETTUNE_TOP=$PWD CHAOS_SECONDS=${CHAOS_SECONDS:-300}
out=${OUT:-bench/RESULTS.md}
logdir=$BUILD/test-logs/chaos
mkdir -p "$logdir"
figures=$(mktemp)
trap 'rm -f "$figures"' EXIT
status=0
for t in tests/chaos/${TESTS:-*}.sh; do
        [ -e "$t" ] || continue
        name=$(basename "$t" .sh)
        [ "$name" = run ] && continue
        log=$logdir/$name.log
        NT_ID=$(printf '%04x' $(( (RANDOM * 7 + $$) % 65536 )))
        NT_TMP=$(mktemp -d "/tmp/nettune-$name.XXXXXX")
        export NT_ID NT_TMP
        timeout -k 10 $((CHAOS_SECONDS + 600)) bash "$t" >"$log" 2>&1
        rc=$?
        leaked=$(pgrep -f "$NT_TMP/" || true)
        if [ -n "$leaked" ]; then
                ps -o pid=,args= -p $(echo $leaked | tr ' ' ',') | sed 's/^/  leaked: /' >>"$log"
                kill $leaked 2>/dev/null
                [ $rc -eq 0 ] && rc=99
        fi
        left=$(ip netns list 2>/dev/null | awk '{print $1}' | grep -- "$NT_ID" || true)
        for ns in $left; do ip netns del "$ns" 2>/dev/null; done
        [ -z "$left" ] || { echo "  leaked: network namespaces $left" >>"$log"; [ $rc -eq 0 ] && rc=99; }
        rm -rf "$NT_TMP"
        case $rc in
        0)  echo "PASS $name"
            sed -n "s/^FIGURE /- \`$name\`: /p" "$log" >>"$figures" ;;
        77) echo "SKIP $name: $(grep -a '^SKIP: ' "$log" | tail -1 | cut -c7-)" ;;
        *)  echo "FAIL $name: exit $rc (log: $log)"; tail -n 20 "$log" | sed 's/^/  /'; status=1 ;;
        esac
done
[ -s "$figures" ] || exit $status
section=$(mktemp)
{
        echo "<!-- section chaos -->"
        echo "## Chaos (\`make check-chaos\`)"
        echo
        echo "Written by \`make check-chaos\` on $(date -u '+%Y-%m-%d %H:%M UTC'): $(nproc) cores, load"
        echo "$(cut -d' ' -f1-3 /proc/loadavg) at the end, commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown),"
        echo "\`CHAOS_SECONDS=$CHAOS_SECONDS\` of faults per loop (\`tests/chaos/\`; each prints its seed)."
        echo
        cat "$figures"
        echo "<!-- end chaos -->"
} > "$section"
if [ -f "$out" ] && grep -q '^<!-- section chaos -->$' "$out"; then
        awk -v f="$section" '/^<!-- section chaos -->$/ { while ((getline l < f) > 0) print l; skip = 1; next }
                             /^<!-- end chaos -->$/ { skip = 0; next } !skip' "$out" > "$out.new"
else
        { cat "$out" 2>/dev/null; echo; cat "$section"; } > "$out.new"
fi
mv "$out.new" "$out"
rm -f "$section"
echo "chaos: figures written to $out"
exit $status
