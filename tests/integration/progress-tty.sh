#!/usr/bin/env bash
# Progress on a terminal, plain or nothing elsewhere. The programs run under
# script(1), which gives their stderr a pseudo-terminal, with stdout redirected to a
# file: on the terminal a live status line (carriage return + erase to end of line)
# follows nettune-agent's probe runs (`probe`, and the baseline and post probes of
# `apply`) and nettunectl's waves, nodes and fleet queries as they finish; stdout
# keeps the data only. Without a terminal, with --output json or with --quiet, no
# escape code is written anywhere. A change asks first on a terminal (y/N on stderr,
# the answer on stdin) unless --yes, and never without a terminal.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_cmd script tc ss python3

# on_tty OUT ERR CMD...: CMD with stderr on a pseudo-terminal (what it shows lands in
# ERR; the terminal writes "\r\n" for "\n") and stdout into OUT. Returns CMD's status.
on_tty() {
        local out=$1 err=$2 cmd; shift 2
        cmd="$(printf '%q ' "$@") > $(printf '%q' "$out")"
        SHELL=/bin/bash script -q -e -c "$cmd" /dev/null > "$err" < /dev/null
}
# answer_tty ANSWER OUT ERR CMD...: the same with ANSWER typed on the terminal.
answer_tty() {
        local answer=$1 out=$2 err=$3 cmd; shift 3
        cmd="$(printf '%q ' "$@") > $(printf '%q' "$out")"
        printf '%s\n' "$answer" | SHELL=/bin/bash script -q -e -c "$cmd" /dev/null > "$err"
}
no_escapes() { ! grep -q $'\033' "$@"; }
# shows FILE TEXT: the terminal output in FILE has a status line drawn in place with TEXT.
shows() { grep -qF $'\r\033[K'"$2" "$1"; }

ns=$(netns_add pt)
nsp=$(netns_add ptp)
ifc=ta$NT_ID
veth_pair "$ns" "$ifc" "$nsp" tb$NT_ID 10.207.0.1/24 10.207.0.2/24
bg ip netns exec "$nsp" "$AGENT" probe-server --listen 10.207.0.2:18515 --allow 10.207.0.0/24
wait_for 30 sh -c "ip netns exec '$nsp' ss -ltnH 'sport = :18515' | grep -q LISTEN" || fail "probe-server did not start"
echo "{ \"state_dir\": \"$T/state\" }" >"$T/agent.json"
A=(ip netns exec "$ns" "$AGENT" --config "$T/agent.json")
PEER=10.207.0.2:18515
PROBE=(probe --peer "$PEER" --mode tcp --runs 3 --duration-ms 200)

step "agent probe on a terminal: each run as it ends, the result on stdout"
on_tty "$T/p.out" "$T/p.tty" "${A[@]}" "${PROBE[@]}" || fail "probe under script failed: $(cat "$T/p.tty")"
cat -v "$T/p.tty"
check "the line starts with 0 of 3 runs" shows "$T/p.tty" "probe: $PEER (tcp): 0/3 runs done"
check "run 2 ends with its rate" grep -qE $'\r\033\\[Kprobe: [^\r]*: 2/3 runs done, run 2: [0-9.]+ Gb/s' "$T/p.tty"
check "the last line has the median" grep -qE $'\r\033\\[Kprobe: [^\r]*: 3/3 runs done, median [0-9.]+ Gb/s\r' "$T/p.tty"
check "stdout has the result" grep -q "^tcp probe to $PEER via $ifc: .* Gb/s (median of 3 runs" "$T/p.out"
check "stdout has no escape codes" no_escapes "$T/p.out"

step "agent probe without a terminal, and with --output json on one: no escape codes"
"${A[@]}" "${PROBE[@]}" >"$T/q.out" 2>"$T/q.err" || fail "probe failed: $(cat "$T/q.err")"
check "stderr without a terminal has no escape codes" no_escapes "$T/q.err"
check "stderr without a terminal has no progress" sh -c "! grep -q 'runs done' '$T/q.err'"
on_tty "$T/j.out" "$T/j.tty" "${A[@]}" --output json "${PROBE[@]}" || fail "probe --output json failed"
check "--output json on a terminal: no escape codes" no_escapes "$T/j.tty" "$T/j.out"
check "--output json: stdout is one JSON document" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/j.out"

# One layer (metadata.name "mtu"): each apply is a new revision of it, replacing the MTU.
mtu_policy() {
        cat >"$1" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "mtu" },
  "targets": { "interfaces": ["$ifc"] }, "spec": { "mtu": $2 },
  "verify": { "probe": "tcp", "peer": "$PEER", "duration_ms": 200, "runs": 2, "settle_ms": 0,
              "max_regression_pct": 90 } }
JSON
}
mtu_policy "$T/p9000.json" 9000
mtu_policy "$T/p4000.json" 4000
step "agent apply on a terminal asks first: 'n' changes nothing, no terminal asks nothing"
rc=0; answer_tty n "$T/n.out" "$T/n.tty" "${A[@]}" apply "$T/p9000.json" || rc=$?
cat -v "$T/n.tty"
check "the question is asked on the terminal" grep -q "apply '$T/p9000.json' to this node .*\[y/N\]" "$T/n.tty"
check "'n': exit 2, not confirmed (got $rc)" [ "$rc" -eq 2 ] && grep -q "not confirmed; nothing was changed" "$T/n.tty"
check "'n': the MTU is untouched" [ "$(ip netns exec "$ns" cat /sys/class/net/$ifc/mtu)" = 1500 ]
check "'n': nothing was journalled" [ "$("${A[@]}" --output json history | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" = 0 ]
"${A[@]}" apply "$T/p4000.json" >"$T/s.out" 2>"$T/s.err" </dev/null || fail "apply without a terminal failed: $(cat "$T/s.err")"
check "no terminal: no question, applied" sh -c "! grep -q 'y/N' '$T/s.err'" && \
        [ "$(ip netns exec "$ns" cat /sys/class/net/$ifc/mtu)" = 4000 ]
rc=0; answer_tty y "$T/y.out" "$T/y.tty" "${A[@]}" rollback || rc=$?
check "'y' to rollback: rolled back (exit $rc)" [ "$rc" -eq 0 ] && [ "$(ip netns exec "$ns" cat /sys/class/net/$ifc/mtu)" = 1500 ]

step "agent apply on a terminal: the baseline and post probes of the transaction"
on_tty "$T/a.out" "$T/a.tty" "${A[@]}" --yes apply "$T/p9000.json" || fail "apply under script failed: $(cat -v "$T/a.tty")"
cat -v "$T/a.tty"
check "baseline runs shown" grep -qE $'\r\033\\[Kbaseline probe: [^\r]*: 2/2 runs done, median' "$T/a.tty"
check "post runs shown" grep -qE $'\r\033\\[Kpost probe: [^\r]*: 2/2 runs done, median' "$T/a.tty"
check "stdout: committed" grep -q "^transaction [0-9]*: committed" "$T/a.out"
check "stdout has no escape codes" no_escapes "$T/a.out"
"${A[@]}" apply "$T/p4000.json" >"$T/b.out" 2>"$T/b.err" || fail "apply failed: $(cat "$T/b.err")"
check "apply without a terminal: no escape codes on stderr" no_escapes "$T/b.err" "$T/b.out"

step "nettunectl on a terminal: waves, nodes, confirmations, fleet queries"
N=3
fleet_up $N
CTL_CMD=(ip netns exec "$HUB" "$CTL" --inventory "$T/inventory.json" --db "$T/ctl.db")
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
policy "$T/mtu2.json" mtu-4000 4000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
policy "$T/mtu3.json" mtu-5000 5000 '{ "role": "gpu" }' '{ "probe": "none", "settle_ms": 0 }'
# each rollout's policy wins over the MTU of the ones before it (metadata.overrides)
python3 - "$T/mtu2.json" "$T/mtu3.json" <<'PY'
import json, sys
for f, over in zip(sys.argv[1:], (["mtu-9000"], ["mtu-9000", "mtu-4000"])):
    d = json.load(open(f))
    d["metadata"]["overrides"] = over
    json.dump(d, open(f, "w"))
PY
rc=0; answer_tty n "$T/cn.out" "$T/cn.tty" "${CTL_CMD[@]}" apply "$T/mtu.json" --canary 1 --wave-size 100% || rc=$?
cat -v "$T/cn.tty"
check "nettunectl apply asks first" grep -q "roll 'mtu-9000' out to 3 nodes in 2 waves? \[y/N\]" "$T/cn.tty"
check "'n': exit 2, no rollout recorded (got $rc)" [ "$rc" -eq 2 ] && \
        [ "$("${CTL_CMD[@]}" --output json history | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" = 0 ]
check "'n': every node at its old MTU" [ "$(node_mtu 1)$(node_mtu 2)$(node_mtu 3)" = 150015001500 ]
on_tty "$T/c.out" "$T/c.tty" "${CTL_CMD[@]}" --yes apply "$T/mtu.json" --canary 1 --wave-size 100% --confirm-timeout 600 ||
        fail "nettunectl apply under script failed: $(cat -v "$T/c.tty")"
cat -v "$T/c.tty"
check "wave 1: its node as it answers" shows "$T/c.tty" "apply: wave 1/2: 1/1 node done"
check "wave 2: both nodes" shows "$T/c.tty" "apply: wave 2/2: 2/2 nodes done"
check "confirmations of wave 2" shows "$T/c.tty" "confirm: wave 2/2: 2/2 nodes done"
check "stdout: the report, no escape codes" grep -q "^rollout [0-9]* (apply 'mtu-9000'): completed" "$T/c.out"
check "stdout has no escape codes" no_escapes "$T/c.out"
on_tty "$T/d.out" "$T/d.tty" "${CTL_CMD[@]}" drift || fail "nettunectl drift under script failed: $(cat -v "$T/d.tty")"
check "drift: the nodes as they answer" shows "$T/d.tty" "drift: 3/3 nodes done"

step "nettunectl without a terminal: one plain line per node; --output json and --quiet: nothing"
ctl apply "$T/mtu2.json" --canary 1 --wave-size 100% --confirm-timeout 600 >"$T/e.out" 2>"$T/e.err" ||
        fail "nettunectl apply failed: $(cat "$T/e.err")"
cat "$T/e.err"
check "a line per wave" grep -qx "apply: wave 2/2: 2 nodes" "$T/e.err"
check "a line per node" grep -qx "apply: node002: pending" "$T/e.err"
check "a line per confirmation" grep -qx "confirm: node003: committed" "$T/e.err"
check "no escape codes" no_escapes "$T/e.err" "$T/e.out"
on_tty "$T/f.out" "$T/f.tty" "${CTL_CMD[@]}" --yes --output json apply "$T/mtu3.json" --wave-size 100% --confirm-timeout 600 ||
        fail "nettunectl --output json apply failed: $(cat -v "$T/f.tty")"
check "--output json on a terminal: no escape codes" no_escapes "$T/f.tty" "$T/f.out"
check "--output json: the report is JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/f.out"
on_tty "$T/g.out" "$T/g.tty" "${CTL_CMD[@]}" --quiet drift || fail "nettunectl --quiet drift failed: $(cat -v "$T/g.tty")"
check "--quiet on a terminal: no escape codes" no_escapes "$T/g.tty"

step "nettunectl rollback on a terminal asks first: 'n' changes nothing"
before="$(node_mtu 1)$(node_mtu 2)$(node_mtu 3)"
rc=0; answer_tty n "$T/rn.out" "$T/rn.tty" "${CTL_CMD[@]}" rollback --to 1 || rc=$?
cat -v "$T/rn.tty"
check "the question names the nodes" grep -q "roll back 3 nodes (node001, node002, node003), each to its committed revision --to names? \[y/N\]" "$T/rn.tty"
check "'n': exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "'n': every node as it was ($before)" [ "$(node_mtu 1)$(node_mtu 2)$(node_mtu 3)" = "$before" ]
