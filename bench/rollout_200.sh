#!/usr/bin/env bash
# Benchmark: an MTU rollout to 200 real agents (one netns each, mTLS, verify.probe
# none) by nettunectl (canary 1, waves of 25%, --parallel 32), against pushing the
# same kind of change node by node (--parallel 1, the same waves). Reports wall time,
# controller CPU time and peak RSS (/usr/bin/time -v) as one markdown table row:
# | benchmark | nettune | peer | ratio | notes |
# N=200 by default; NODES=50 for a quicker run.
. "$(cd "$(dirname "$0")/.." && pwd)/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
[ -x /usr/bin/time ] || skip "/usr/bin/time is not installed"
N=${NODES:-200}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'; }

fleet_up "$N" 2>>"$T/agents.log" >&2
policy "$T/p1.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
policy "$T/p2.json" mtu-4000 4000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'

# run LABEL POLICY PARALLEL: sets WALL_MS CPU_S RSS_KB; fails unless all N committed.
run() {
        local t0 t1
        t0=$(date +%s%N)
        local rc=0
        ip netns exec "$HUB" /usr/bin/time -v -o "$T/$1.time" "$CTL" --inventory "$T/inventory.json" \
                --db "$T/ctl.db" --quiet --output json --parallel "$3" \
                apply "$2" --canary 1 --wave-size 25% --confirm-timeout 120 > "$T/$1.json" || rc=$?
        if [ "$rc" != 0 ]; then
                # what the rollout said, and its first nodes that did not commit
                python3 - "$T/$1.json" >&2 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
def walk(x):
    if isinstance(x, dict):
        if "state" in x and "name" in x and x.get("state") != "committed":
            bad.append((x.get("name"), x.get("state"), x.get("error")))
        for v in x.values():
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(d)
print("rollout:", d.get("state"), d.get("message"), d.get("summary"), "; not committed:", bad[:3])
PY
                fail "$1: rollout exited $rc"
        fi
        t1=$(date +%s%N)
        WALL_MS=$(( (t1 - t0) / 1000000 ))
        CPU_S=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$T/$1.time")
        RSS_KB=$(awk -F': ' '/Maximum resident/ {print $2}' "$T/$1.time")
        [ "$(json_get "$T/$1.json" 'd["summary"]["committed"]')" = "$N" ] || fail "$1: not all $N committed"
}

run fleet "$T/p1.json" 32
f_wall=$WALL_MS f_cpu=$CPU_S f_rss=$RSS_KB
run serial "$T/p2.json" 1
s_wall=$WALL_MS s_cpu=$CPU_S s_rss=$RSS_KB
agents_rss=$(ps -o rss= -p "$(IFS=,; echo "${_nt_pids[*]}")" | awk '{s += $1} END {printf "%.0f", s / 1024}')

echo "| rollout_$N (wall) | $(awk -v m="$f_wall" 'BEGIN {printf "%.2f s", m / 1000}') | $(awk -v m="$s_wall" 'BEGIN {printf "%.2f s", m / 1000}') (--parallel 1) | $(ratio "$f_wall" "$s_wall") | controller cpu $f_cpu s vs $s_cpu s, peak rss $((f_rss / 1024)) MiB vs $((s_rss / 1024)) MiB; $N agents $agents_rss MiB rss in all; 5 waves, probe none |"
