#!/usr/bin/env bash
# nettune demo: a lab of network namespaces (five GPU nodes, one with a ConnectX
# port behind the NIC model, and a leaf-switch manager on a Linux bridge), an agent
# per node over mutual TLS, a simulated NVUE leaf switch behind a private sshd, and
# the operator stories driven with nettunectl: four of them, a fifth - ECN
# thresholds on a real Linux data plane (ecn-story.sh) - where this kernel has
# sch_ets and sch_red, else it says why and that `make demo-vm` runs it in the VM
# lab, and a sixth: doctor finds why the fabric is slow and proposes the fix. Ends
# with one PASS/FAIL line per story; exit 0 only if all passed.
#
#   examples/demo/run.sh           run it (root; `make demo` builds first)
#   examples/demo/run.sh --keep    leave the lab running afterwards to explore
#   examples/demo/run.sh --clean   remove what an earlier run left behind
#
# Environment: BUILD (default build), NETTUNE_DEMO_PREFIX (namespace prefix,
# default ntdemo), NETTUNE_DEMO_DIR (work directory, default /tmp/nettune-demo),
# NO_COLOR (plain output on a terminal too).
set -uo pipefail

DEMO_HOME=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$DEMO_HOME/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
AGENT=$BUILD/nettune-agent
CTL=$BUILD/nettunectl
SIM=$BUILD/switchsim
DEMO_PREFIX=${NETTUNE_DEMO_PREFIX:-ntdemo}
DEMO_DIR=${NETTUNE_DEMO_DIR:-/tmp/nettune-demo}
POLICIES=examples/policies

. "$DEMO_HOME/lib.sh"
. "$DEMO_HOME/lab.sh"
. "$DEMO_HOME/stories.sh"

usage() {
        sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

preflight() {
        local c
        [ "$(id -u)" -eq 0 ] || { echo "demo: needs root (network namespaces, a private sshd); nothing was changed" >&2; exit 2; }
        for c in ip tc openssl curl python3 ssh-keygen; do
                command -v "$c" >/dev/null 2>&1 || { echo "demo: '$c' is not installed; run 'make deps'" >&2; exit 2; }
        done
        [ -x /usr/sbin/sshd ] || { echo "demo: /usr/sbin/sshd is not installed; run 'make deps'" >&2; exit 2; }
        for c in "$AGENT" "$CTL" "$SIM" "$BUILD/nicmodel"; do
                [ -x "$c" ] || { echo "demo: '$c' is not built; run 'make demo' (or 'make test-bins')" >&2; exit 2; }
        done
        [ "${#DEMO_PREFIX}" -le 8 ] || { echo "demo: NETTUNE_DEMO_PREFIX '$DEMO_PREFIX' is longer than 8 characters" >&2; exit 2; }
}

KEEP=0
case ${1:-} in
--clean)
        lab_down
        echo "demo: removed namespaces '$DEMO_PREFIX-*', processes and '$DEMO_DIR'"
        exit 0 ;;
--keep) KEEP=1 ;;
--help|-h) usage; exit 0 ;;
"") ;;
*) echo "demo: unknown option '$1'; see '$0 --help'" >&2; exit 2 ;;
esac

preflight
cd "$TOP" || exit 2
if [ -e "$DEMO_DIR" ] || ip netns list 2>/dev/null | grep -q "^$DEMO_PREFIX-"; then
        echo "demo: removing what an earlier run left behind"
        lab_down
fi

# The lab and the stories run in a background job: the shell then waits with the
# `wait` builtin, which a trapped Ctrl-C always interrupts (a foreground child that
# catches SIGINT itself would otherwise hide it), and background jobs ignore SIGINT,
# so the agents keep running until lab_down stops them by PID.
main() {
        local start fails=0 i r
        start=$(date +%s)
        banner "the lab"
        say "Building a lab of network namespaces: five GPU nodes (gpu1..gpu5; gpu5's RoCE port is a ConnectX behaviour model) and fabric1, the agent that manages leaf switch leaf1, all on veth links into a Linux bridge in the namespace '$DEMO_PREFIX-hub' (198.18.0.0/24). Every node runs 'nettune-agent serve' with a certificate made just now by a throw-away CA; nettunectl, in the hub, presents a client certificate (mutual TLS)."
        lab_up
        say "Up: 6 agents, a probe-server on $PROBE_PEER, and leaf1 (simulated NVUE switch, build/switchsim) behind a private sshd on 127.0.0.1:$SSH_PORT inside fabric1's namespace."
        story_1
        story_2
        story_3
        story_4
        story_5
        story_6
        banner "summary"
        n=0
        for i in 1 2 3 4 5 6; do
                [ "$i" != 5 ] || [ -n "${STORY_RESULT[5]:-}" ] || continue
                n=$((n + 1))
                r=${STORY_RESULT[$i]:-FAIL}
                [ "$r" = PASS ] || fails=$((fails + 1))
                printf '  %-4s story %d: %s\n' "$r" "$i" "${STORY_TITLE[$i]:-not run}"
        done
        [ -z "${STORY5_SKIPPED:-}" ] || printf '  not run: story 5 (ECN on a Linux switch): %s\n' "$STORY5_SKIPPED"
        printf '  %d of %d stories passed in %d s\n' $((n - fails)) "$n" $(($(date +%s) - start))
        [ "$fails" -eq 0 ]
}

# kill_tree PID: TERM a process and, first, its descendants (by parent PID).
kill_tree() {
        local c
        for c in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$c"; done
        kill -TERM "$1" 2>/dev/null
}

on_exit() {
        local rc=$?
        if [ "$KEEP" = 1 ]; then
                echo "demo: the lab is still running (namespaces '$DEMO_PREFIX-*', files in $DEMO_DIR);"
                echo "      'make demo-clean' or '$0 --clean' removes it. Drive it, as root, from the hub:"
                echo "  C=\"ip netns exec $DEMO_PREFIX-hub $CTL --inventory $DEMO_DIR/inventory.json --db $DEMO_DIR/nettune.db\""
                echo "  \$C state --wide                  # every node's knobs, drift marked"
                echo "  \$C doctor --window 2 --probe     # the fabric's findings, every pair measured"
                echo "  \$C probe --pattern alltoall      # many-to-many bandwidth (the agents' responders allow the lab)"
                echo "  \$C plan examples/policies/lab-leaf-lossless.json   # what a change would do, across the cable too"
                echo "  \$C history; \$C status          # the rollouts the stories made"
                echo "  one node: ip netns exec $DEMO_PREFIX-gpu1 $AGENT --config $DEMO_DIR/gpu1/agent.json state"
                echo "  the switch: $SIM --dialect nvue --state $DEMO_DIR/leaf1/state.json -- nv show qos"
        else
                lab_down
        fi
        exit $rc
}

on_signal() {
        echo
        echo "demo: interrupted; stopping the lab"
        [ -n "${MAIN_PID:-}" ] && kill_tree "$MAIN_PID"
        KEEP=0
        exit 130
}

MAIN_PID=""
trap on_exit EXIT
trap on_signal INT TERM
main &
MAIN_PID=$!
wait "$MAIN_PID"
