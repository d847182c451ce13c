#!/usr/bin/env bash
# kill -9 (NETTUNE_CRASH_AT, test-only) at the steps of a transaction over a veth
# interface and an nvue switch behind a private sshd, then restart (a command that
# takes the lock recovers first): the switch and the interface end exactly in the
# old or the new state, never mixed, and the journal says which and how the switch
# was restored. A timed change the dead agent left pending on the switch is
# aborted natively (vendor-abort) instead of waiting for the switch's timer.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/tests/integration/agent-switch.inc"
require_root
require_sshd
require_cmd ss python3

as_setup 208
as_switch leaf1 nvue swp1,swp2
as_switches_up
policy_mixed "$T/p.json" jumbo 9000 150000
# min_gbps far above veth: the gate always fails, so the transaction restores.
policy_mixed "$T/gated.json" gated 9000 150000 \
        "{\"probe\":\"tcp\",\"peer\":\"$AS_PEER:18515\",\"duration_ms\":200,\"runs\":1,\"settle_ms\":0,\"min_gbps\":100000}"

reset() {       # the switch and the interface in their old state, a fresh journal
        swsim leaf1 --init --ports swp1,swp2
        ip -n "$AS_NS" link set "$AS_IF" mtu 1500
        rm -rf "$T/state"
}
leaf_state() { A --output json state --switches leaf1 >"$T/ls.json" &&
               jq_py "$T/ls.json" 'd["switches"][0]["state"]'; }

step "the old and the new state, as the agent reads them"
reset
old=$(leaf_state)
old_tree=$(swtree leaf1)
expect_rc 0 "apply once without a crash" A apply "$T/p.json"
new=$(leaf_state)
check "old and new differ" [ "$old" != "$new" ]

crash_case() {  # crash_case STEP POLICY EXPECTED_STATE EXPECTED_SWITCH_METHOD
        local s=$1 pol=$2 want=$3 method=$4 rc=0 state live mtu got
        reset
        NETTUNE_CRASH_AT=$s A apply "$pol" >/dev/null 2>&1 || rc=$?
        check "$s: the agent was killed (exit $rc)" [ "$rc" -eq 137 ]
        echo "after the crash at $s: switch confirm $(swdump leaf1 'd["nvue"]["confirm"] is not None'), mtu $(mtu_of "$AS_NS" "$AS_IF")"
        A confirm 1 >/dev/null 2>&1 || true
        A --output json history >"$T/h.json"
        state=$(jq_py "$T/h.json" 'd[0]["state"]')
        live=$(leaf_state)
        mtu=$(mtu_of "$AS_NS" "$AS_IF")
        check "$s: journal says $want (got $state)" [ "$state" = "$want" ]
        case $state in
        committed)   check "$s: switch new" [ "$live" = "$new" ]; check "$s: interface new" [ "$mtu" = 9000 ] ;;
        rolled_back) check "$s: switch old" [ "$live" = "$old" ]; check "$s: interface old" [ "$mtu" = 1500 ] ;;
        *)           fail "$s: journal left in state $state" ;;
        esac
        check "$s: no confirmation left pending on the switch" [ "$(swdump leaf1 'd["nvue"]["confirm"]')" = None ]
        got=$(jq_py "$T/h.json" "[r['method'] for r in d[0].get('restores', []) if r['target'] == 'leaf1']")
        check "$s: journal says leaf1 was restored by $method (got $got)" [ "$got" = "$method" ]
        if [ "$method" = "['vendor-abort']" ]; then
                check "$s: the vendor abort left the exact old configuration" [ "$(swtree leaf1)" = "$old_tree" ]
        fi
}

step "crash on the way forward"
crash_case planned "$T/p.json" rolled_back "[]"
crash_case snapshotted "$T/p.json" rolled_back "['none']"
crash_case applying "$T/p.json" rolled_back "['none']"
crash_case applied-drivers "$T/p.json" rolled_back "['vendor-abort']"
crash_case applied "$T/p.json" rolled_back "['vendor-abort']"
crash_case verifying "$T/p.json" rolled_back "['vendor-abort']"
crash_case committed "$T/p.json" committed "[]"

step "crash on the way back (the gate failed)"
crash_case restoring "$T/gated.json" rolled_back "['vendor-abort']"
crash_case rolled_back "$T/gated.json" rolled_back "['vendor-abort']"

step "killed between its edits on the switch: the revision it staged is detached, not left for the next apply"
reset
echo '{"slow_ms": 8000, "slow_match": "max-threshold"}' >"$T/leaf1/state.json.faults"
ip netns exec "$AS_NS" "$AGENT" --config "$T/agent.json" apply "$T/p.json" >/dev/null 2>&1 &     # $! is the agent
pid=$!
staged() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if any('min-threshold' in c for c in d['log']) else 1)" "$T/leaf1/state.json" 2>/dev/null; }
wait_for 60 staged || fail "the agent never reached its first edit"
kill -9 "$pid"; wait "$pid" 2>/dev/null || true
flock "$T/leaf1/state.json.lock" true          # the slow edit finishes (or dies with its session)
rm -f "$T/leaf1/state.json.faults"
check "a revision of the dead agent is open" [ "$(swdump leaf1 '[r["id"] for r in d["nvue"]["revisions"] if r["state"] == "pending"]')" != "[]" ]
A confirm 1 >/dev/null 2>&1 || true             # any command that takes the lock recovers first
A --output json history >"$T/h.json"
check "journal: rolled back" [ "$(jq_py "$T/h.json" 'd[0]["state"]')" = rolled_back ]
check "no revision is left open" [ "$(swdump leaf1 '[r["id"] for r in d["nvue"]["revisions"] if r["state"] == "pending"]')" = "[]" ]
check "its edits are gone" [ "$(swdump leaf1 'd["nvue"]["pending"]')" = None ]
check "the switch is exactly as before" [ "$(swtree leaf1)" = "$old_tree" ]
