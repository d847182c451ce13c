#!/usr/bin/env bash
# kill -9 at every transaction step (NETTUNE_CRASH_AT, test-only) and restart:
# the interface ends exactly in the old or the new state, never mixed, and the
# journal says which. The restore path is crashed too (a failing gate makes the
# transaction restore; the crash hits while restoring).
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd ss python3 sqlite3

ns=$(netns_add ax)
nsp=$(netns_add axp)
ifc=xa$NT_ID
veth_pair "$ns" "$ifc" "$nsp" xb$NT_ID 10.204.0.1/24 10.204.0.2/24
bg ip netns exec "$nsp" "$AGENT" probe-server --listen 10.204.0.2:18515 --allow 10.204.0.0/24
wait_for 10 sh -c "ip netns exec '$nsp' ss -ltnH 'sport = :18515' | grep -q LISTEN" || fail "probe-server did not start"
policy_file "$T/p.json" jumbo "$ifc" 9000
# min_gbps far above veth: the gate always fails, so the transaction restores.
policy_file "$T/gated.json" gated "$ifc" 9000 \
        '{"probe":"tcp","peer":"10.204.0.2:18515","duration_ms":200,"runs":1,"settle_ms":0,"min_gbps":100000}'

crash_case() {  # crash_case STEP POLICY EXPECTED_STATE EXPECTED_MTU
        local stepname=$1 pol=$2 want_state=$3 want_mtu=$4 rc=0 tx state mtu
        local cfg=$T/$stepname.json
        echo "{ \"state_dir\": \"$T/state-$stepname\" }" >"$cfg"
        ip -n "$ns" link set "$ifc" mtu 1500
        NETTUNE_CRASH_AT=$stepname ip netns exec "$ns" "$AGENT" --config "$cfg" apply "$pol" >/dev/null 2>&1 || rc=$?
        check "$stepname: the agent was killed (exit $rc)" [ "$rc" -eq 137 ]
        mtu=$(mtu_of "$ns" "$ifc")
        echo "after the crash at $stepname the MTU is $mtu"
        # Any command that takes the lock recovers first; confirm also reports the outcome.
        ip netns exec "$ns" "$AGENT" --config "$cfg" confirm 1 >/dev/null 2>&1 || true
        ip netns exec "$ns" "$AGENT" --config "$cfg" --output json history >"$T/h.json"
        state=$(jq_py "$T/h.json" 'd[0]["state"]')
        mtu=$(mtu_of "$ns" "$ifc")
        check "$stepname: journal says $want_state (got $state)" [ "$state" = "$want_state" ]
        check "$stepname: MTU is $want_mtu (got $mtu)" [ "$mtu" = "$want_mtu" ]
        case $state in
        committed)   [ "$mtu" = 9000 ] || fail "$stepname: committed but MTU $mtu" ;;
        rolled_back) [ "$mtu" = 1500 ] || fail "$stepname: rolled back but MTU $mtu" ;;
        *)           fail "$stepname: journal left in state $state" ;;
        esac
}

step "crash on the way forward"
for s in planned snapshotted applying applied-drivers applied verifying; do
        crash_case "$s" "$T/p.json" rolled_back 1500
done
crash_case committed "$T/p.json" committed 9000

step "crash on the way back"
crash_case restoring "$T/gated.json" rolled_back 1500
crash_case rolled_back "$T/gated.json" rolled_back 1500

step "crash while pending confirmation, deadline passed"
cfg=$T/pend.json
echo "{ \"state_dir\": \"$T/state-pend\" }" >"$cfg"
rc=0; NETTUNE_CRASH_AT=pending_confirm ip netns exec "$ns" "$AGENT" --config "$cfg" apply --confirm-timeout 600 "$T/p.json" >/dev/null 2>&1 || rc=$?
check "killed while pending (exit $rc)" [ "$rc" -eq 137 ]
check "the change stays while pending" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
expire_confirm "$T/state-pend"
ip netns exec "$ns" "$AGENT" --config "$cfg" confirm 1 >/dev/null 2>&1 || true
ip netns exec "$ns" "$AGENT" --config "$cfg" --output json history >"$T/h.json"
check "journal: rolled back by confirm-timeout" [ "$(jq_py "$T/h.json" 'd[0]["restored_by"]')" = confirm-timeout ]
check "MTU 1500" [ "$(mtu_of "$ns" "$ifc")" = 1500 ]
check "the watchdog left with its transaction" wait_for 60 sh -c "! pgrep -f '$cfg confirm-watchdo[g]' >/dev/null"
