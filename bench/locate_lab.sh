#!/usr/bin/env bash
# Benchmark: nettunectl locate on a lab of real agents in racks (`make bench-locate`):
# N agents (64, then 200 with SIZES) in RACKS racks of bridges joined to a spine by
# their uplinks, the agents' API on a management network of their own
# (tests/integration/ctl-racks.inc). One fault at a time, injected with tc tbf (no
# netem on this kernel: a delay cannot be injected here): a node's link toward it, and
# a rack's uplink toward the rack, throttled (NODE_RATE, UPLINK_RATE); locate must name
# exactly that element within 10 s of wall time. Then CLEAN runs of the clean lab,
# where it must name nothing. Figures: time to name, pairs probed, bytes sent, false
# positives. Its section of bench/RESULTS.md only (no table row); heavy, so selected
# only, like ctl_scale.
. "$(cd "$(dirname "$0")/.." && pwd)/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-racks.inc"
. "$NETTUNE_TOP/bench/stats.sh"
fleet_require
require_cmd tc python3
SIZES=${SIZES:-"64:8 200:10"} CLEAN=${CLEAN:-20} NAME_WITHIN_S=10
# a node's link carries its own three or four pairs, an uplink a whole rack's pairs across
NODE_RATE=${NODE_RATE:-5mbit} UPLINK_RATE=${UPLINK_RATE:-50mbit}
FLEET_PROBE_EXTRA='"allow": ["10.88.0.0/16"], "max_clients": 8'
rows=$T/rows.md
: > "$rows"

# run_locate FILE: locate as JSON into FILE; its exit code into $rc, its wall time (s) into $wall.
run_locate() {
        local t0 t1
        t0=$(now_us)
        rc=0
        ctl --quiet --output json locate > "$1" 2> "$1.err" || rc=$?
        t1=$(now_us)
        wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e6 }')
}
# named FILE: the suspects "kind:name" of a locate's JSON, comma-separated.
named() { json_get "$1" '",".join(s["kind"] + ":" + s["name"] for s in d["suspects"])'; }

lab() {
        local n=${1%:*} racks=${1#*:} fault want got ok=0 faults=0 fp=0 i pid ns
        local -a times=() pairs=() bytes=() clean_times=()
        echo "bench: locate_lab: $n agents in $racks racks" >&2
        racks_up "$n" "$racks" 2>>"$T/agents.log" >&2
        # one node per rack for a few racks, then two uplinks
        for fault in "node 3" "node $((racks + 5))" "node $((n - 1))" "uplink 1" "uplink $((racks - 2))"; do
                set -- $fault
                if [ "$1" = node ]; then
                        throttle_node "$2" "$NODE_RATE"
                        want=$(printf 'node:node%03d' "$2")
                else
                        throttle_uplink "$2" "$UPLINK_RATE"
                        want="uplink:r$2"
                fi
                run_locate "$T/fault.json"
                got=$(named "$T/fault.json" 2>/dev/null)
                faults=$((faults + 1))
                if [ "$rc" = 1 ] && [ "$got" = "$want" ] && awk -v w="$wall" -v l="$NAME_WITHIN_S" 'BEGIN { exit !(w <= l) }'; then
                        ok=$((ok + 1))
                fi
                echo "bench: locate_lab: $n agents, $fault throttled: named '$got' (expected '$want'), exit $rc, $wall s" >&2
                times+=("$wall")
                pairs+=("$(json_get "$T/fault.json" 'd["pairs_probed"]' 2>/dev/null || echo 0)")
                bytes+=("$(json_get "$T/fault.json" 'd["bytes_sent"] / 1e6' 2>/dev/null || echo 0)")
                clear_faults
        done
        for ((i = 1; i <= CLEAN; i++)); do
                run_locate "$T/clean.json"
                got=$(named "$T/clean.json" 2>/dev/null)
                [ "$rc" = 0 ] && [ -z "$got" ] || { fp=$((fp + 1)); echo "bench: locate_lab: clean run $i named '$got' (exit $rc)" >&2; }
                clean_times+=("$wall")
        done
        set -- $(stats "${times[@]}")
        local tm=$1 tmax=$5
        set -- $(stats "${clean_times[@]}")
        local cm=$1
        set -- $(stats "${pairs[@]}")
        local pm=$1
        set -- $(stats "${bytes[@]}")
        local bm=$1
        echo "| $n | $racks | $ok of $faults | $tm s (max $tmax) | $pm | $(printf '%.0f' "$bm") MB | $fp of $CLEAN | $cm s |" >> "$rows"
        goal "locate_lab $n agents: faults named exactly" "$ok" ">=" "$faults" "of $faults"
        goal "locate_lab $n agents: slowest time to name" "$tmax" "<=" "$NAME_WITHIN_S" "s"
        goal "locate_lab $n agents: false positives on the clean lab" "$fp" "<=" 0 "of $CLEAN runs"
        # the next size starts from nothing
        for pid in "${_nt_pids[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null; done
        for pid in "${_nt_pids[@]:-}"; do [ -n "$pid" ] && wait "$pid" 2>/dev/null; done
        _nt_pids=()
        for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -- "-$NT_ID\$"); do ip netns del "$ns"; done
        _nt_netns=()
        FAULTS=""
}

for size in $SIZES; do
        lab "$size"
done

if [ -n "${BENCH_SECTION:-}" ]; then
        cat > "$BENCH_SECTION" <<MD
## Locate: the bad link among a fleet

Written by \`bench/locate_lab.sh\` (\`make bench-locate\`) on $(date -u '+%Y-%m-%d %H:%M UTC') (load $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores):
real agents (one netns each, mTLS) in racks of Linux bridges joined to a spine bridge by
one uplink each, their API on a management network of its own, TCP pairs over veth.
One fault at a time, a tbf: the links toward three nodes in turn ($NODE_RATE), then two
racks' uplinks toward the rack ($UPLINK_RATE, shared by the rack's pairs across); \`nettunectl locate\` (defaults: 1 s pairs, 50% below the
peers' median, a second round before naming) must name exactly the throttled element,
within $NAME_WITHIN_S s of wall time. Then $CLEAN runs on the clean lab, where it must name
nothing. Times: the whole \`nettunectl locate\` command, median (and the slowest).

| agents | racks | faults named exactly | time to name | pairs probed | bytes sent | false positives (clean runs) | time, clean lab |
|---|---|---|---|---|---|---|---|
$(cat "$rows")

Read: every node sends three flows at once (one inside its rack, one to each
neighbouring rack) whatever the fleet's size, so a round costs the same at 64 agents as
at 200 and the time to name is two rounds; a clean lab needs one. A suspect is named
only when its pairs were slow in both rounds, which is what keeps a busy machine's
noise from being called a fault.
MD
fi
