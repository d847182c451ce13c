#!/usr/bin/env bash
# A PFC storm contained, on the simulated switch of each dialect (build/switchsim, its
# storm machine: tests/switchsim/watchdog.c, after the vendors' documented behaviour).
# Three ports; every port's lossless queue 3 is offered 10,000 frames/s (the fabric's
# traffic); port 1's peer starts a sustained pause stream on priority 3 at a phase that
# moves across the poll grid (TRIALS starts), keeps it up 10 s, and stops.
#   detection:   the watchdog's stormed_at - the first pause frame (goal: <= detection + poll)
#   restoration: the queue's restored_at - the last pause frame (goal: <= restoration + poll)
#   fabric:      what ports 2 and 3 delivered of what they were offered, after the storm
#                was detected (goal >= 0.99), and over the whole storm; the same storm
#                without a watchdog is the peer (the storm spreads: nothing is delivered).
# The switch's clock is frozen (--freeze-clock): every figure is on its own clock, so the
# machine's load does not move them. Prints one table row per dialect.
. "$(dirname "$0")/lib.sh"
SIM=$BUILD/switchsim
[ -x "$SIM" ] || { echo "pfc_storm: $SIM is not built (make test-bins)" >&2; exit 1; }
TRIALS=${TRIALS:-5}
D=200 P=100 R=200 STORM_S=10

sim() { "$SIM" --dialect "$DIALECT" --state "$W/$DIALECT.json" "$@"; }
# dump EXPR: a Python expression over the state d; since(q, k, t): q[k] - t, 1e6 when q[k] is older than t (never).
dump() {
        sim --dump > "$W/d.json"
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); since=lambda q, k, t: q[k] - t if q.get(k, -1) >= t else 1e6; print($1)" "$W/d.json"
}

# The watchdog on every port, priority 3 lossless: detection 200 ms, poll 100 ms, restoration 200 ms, drop.
watchdog_on() {
        case $DIALECT in
        sonic)
                sim -- sudo config pfcwd interval $P >/dev/null
                sim -- sudo config pfcwd start --action drop --restoration-time $R "${PORTS[@]}" $D >/dev/null ;;
        nvue)   # restoration: one polling interval (fixed before Cumulus Linux 5.19)
                sim -- nv set qos pfc default-global switch-priority 3
                sim -- nv set interface "$(IFS=,; echo "${PORTS[*]}")" qos pfc-watchdog state enable
                sim -- nv set qos pfc-watchdog polling-interval $P
                sim -- nv set qos pfc-watchdog robustness $((D / P))
                sim -- nv config apply -y >/dev/null ;;
        eos)
                local script="configure session bench" p
                for p in "${PORTS[@]}"; do
                        script+=$'\n'"interface $p"$'\n'"priority-flow-control on"$'\n'"priority-flow-control priority 3 no-drop"
                        script+=$'\n'"priority-flow-control pause watchdog"$'\n'"priority-flow-control pause watchdog port action drop"
                        script+=$'\n'"priority-flow-control pause watchdog port timer timeout 0.$((D / 100)) polling-interval 0.$((P / 100)) recovery-time 0.$((R / 100))"
                        script+=$'\n'"exit"
                done
                sim -- "$script"$'\n'"commit" >/dev/null ;;
        esac
}

init() {
        rm -f "$W/$DIALECT.json"
        sim --init --ports "$(IFS=,; echo "${PORTS[*]}")"
        [ "$1" = on ] && watchdog_on
        [ "$1" = off ] && [ "$DIALECT" = nvue ] && sim -- nv set qos pfc default-global switch-priority 3 &&
                sim -- nv config apply -y >/dev/null
        sim --freeze-clock
        sim --traffic "${PORTS[0]}:tx_frames.3=10000,${PORTS[1]}:tx_frames.3=10000,${PORTS[2]}:tx_frames.3=10000"
        sim --advance 1
}

# What a port's queue 3 sent so far (traffic.c sim_counter: offered minus the blocked time), now.
sent() {
        sim --dump > "$W/d.json"
        python3 - "$W/d.json" "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); c = d["traffic"][sys.argv[2]]["counters"]["tx_frames.3"]
run = d["watchdog"]["t"] - c["t0"] - (d["watchdog"].get("blocked", {}).get(sys.argv[2], {}).get("3", 0) - c.get("b0", 0))
print(c["base"] + c["rate"] * max(run, 0))
EOF
}

# one_storm PHASE_MS: the figures of one storm that starts PHASE_MS after a poll of the
# switch's grid, "detect_ms restore_ms fabric_after fabric_whole". "After detection" is the
# window from detection + one poll (by then the storm is detected, goal or not) to the end.
one_storm() {
        local p1=${PORTS[0]} p2=${PORTS[1]} t0 t1 s0 sm s1 at rt wait_s
        wait_s=$(dump "round((($1 / 1000.0 - d['watchdog']['t']) % ($P / 1000.0)) + $P / 1000.0, 6)")
        sim --advance "$wait_s"
        t0=$(dump "d['watchdog']['t']")
        s0=$(sent "$p2")
        sim --traffic "$p1:pfc_rx.3=5000"
        sim --advance "$(python3 -c "print(($D + 2 * $P) / 1000)")"
        sm=$(sent "$p2")
        sim --advance "$(python3 -c "print($STORM_S - ($D + 2 * $P) / 1000)")"
        at=$(dump "since(d['watchdog']['queues']['$p1']['3'], 'stormed_at', $t0)")
        s1=$(sent "$p2")
        sim --traffic "$p1:pfc_rx.3=0"
        t1=$(dump "d['watchdog']['t']")
        sim --advance 2
        rt=$(dump "since(d['watchdog']['queues']['$p1']['3'], 'restored_at', $t1)")
        python3 - "$at" "$rt" "$s0" "$sm" "$s1" <<EOF2
import sys
at, rt, s0, sm, s1 = (float(x) for x in sys.argv[1:])
after = (s1 - sm) / (10000 * ($STORM_S - ($D + 2 * $P) / 1000))
whole = (s1 - s0) / (10000 * $STORM_S)
print(round(at * 1000), round(rt * 1000), round(after, 4), round(whole, 4))
EOF2
}

# range LIST...: "median [min-max]"
range() { printf '%s [%s-%s]' "$(median "$@")" "$(printf '%s\n' "$@" | sort -n | head -1)" "$(printf '%s\n' "$@" | sort -n | tail -1)"; }

row() {
        local det=() res=() after=() whole=() base rgoal=$R rname="$R ms"
        [ "$DIALECT" = nvue ] && rgoal=$P rname="one poll, $P ms (fixed before Cumulus Linux 5.19)"
        init on
        for k in $(seq 0 $((TRIALS - 1))); do
                read -r a b c d < <(one_storm "$(python3 -c "print($k * $P / $TRIALS + 0.1)")")
                det+=("$a"); res+=("$b"); after+=("$c"); whole+=("$d")
        done
        init off
        base=$(one_storm 0.1 | awk '{print $4}')
        printf '| pfc_storm, %s (detection %d ms, poll %d ms, restoration %s, drop; %d storms of %d s) | detected in %s ms, restored in %s ms; other ports delivered %s of offered after detection, %s over the storm | no watchdog: %s of offered over the storm | %s | switchsim storm machine on its own clock; ratio: delivered ÷ offered over the storm |\n' \
                "$DIALECT" $D $P "$rname" "$TRIALS" $STORM_S "$(range "${det[@]}")" "$(range "${res[@]}")" \
                "$(printf '%s\n' "${after[@]}" | sort -n | head -1)" "$(median "${whole[@]}")" "$base" "$(ratio "$(median "${whole[@]}")" 1)"
        printf '| %s | %s | %s | %s | %s | %s |\n' "$DIALECT" "$rname" "$(range "${det[@]}")" "$(range "${res[@]}")" \
                "$(printf '%s\n' "${after[@]}" | sort -n | head -1) / $(median "${whole[@]}")" "$base" >> "$W/section"
        goal "PFC storm detected ($DIALECT), latest of $TRIALS" "$(printf '%s\n' "${det[@]}" | sort -n | tail -1)" "<=" $((D + P)) ms
        goal "PFC storm restored ($DIALECT), latest of $TRIALS" "$(printf '%s\n' "${res[@]}" | sort -n | tail -1)" "<=" $((rgoal + P)) ms
        goal "fabric delivered after detection ($DIALECT), worst of $TRIALS" "$(printf '%s\n' "${after[@]}" | sort -n | head -1)" ">=" 0.99 "of offered"
}

: > "$W/section"
DIALECT=sonic; PORTS=(Ethernet0 Ethernet4 Ethernet8); row
DIALECT=nvue; PORTS=(swp1 swp2 swp3); row
DIALECT=eos; PORTS=(Ethernet1 Ethernet2 Ethernet3); row

if [ -n "${BENCH_SECTION:-}" ]; then
        cat > "$BENCH_SECTION" <<MD
## PFC storms contained (switch simulator)

Written by \`bench/pfc_storm.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown). The simulated switch of each
dialect (\`build/switchsim\`, configured through its own CLI as nettune configures it), three
ports whose lossless queue 3 is offered 10,000 frames/s each. Port 1's peer sends a sustained
pause stream on priority 3 for $STORM_S s, then stops; $TRIALS storms, each starting at another phase
of the watchdog's poll grid (0.1 ms to $((P - P / TRIALS)).1 ms after a poll). The switch's clock is
frozen between commands (\`switchsim --freeze-clock\`, \`--advance\`), so the figures are the storm
machine's (tests/switchsim/watchdog.c, after sonic-swss's pfc_detect/pfc_restore scripts),
independent of the machine's load. Detection: stormed_at − the first pause frame; restoration:
restored_at − the last pause frame; fabric: what ports 2 and 3 delivered ÷ what they were
offered, from detection + one poll to the end of the storm, and over the whole storm.
Goals: detection ≤ detection + poll ($((D + P)) ms), restoration ≤ restoration + poll, fabric ≥ 0.99.

| dialect | restoration configured | detected after (ms), median [min-max] | restored after (ms), median [min-max] | fabric after detection (worst) / over the storm (median) | fabric over the storm, no watchdog |
|---|---|---|---|---|---|
$(cat "$W/section")

Read: a storm is detected after two stormed polls (⌈200 / 100⌉) plus the part of the poll in
which it began, so the worst case is one poll over the detection time; restoration likewise
counts whole clean polls after the last pause frame. Without a watchdog the paused queue
backs up and PFC spreads upstream: the other ports' lossless traffic stops for the whole
storm; with it, they lose only the detection time (1 − 0.2..0.3 s of 10 s).
MD
fi
