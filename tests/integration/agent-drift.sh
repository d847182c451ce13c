#!/usr/bin/env bash
# Drift: an MTU changed by hand after a commit is reported (CLI exit 1, API, metrics
# in report mode) and healed by the daemon in enforce mode.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3

ns=$(netns_add ad)
nsp=$(netns_add adp)
ifc=da$NT_ID
veth_pair "$ns" "$ifc" "$nsp" db$NT_ID
make_certs "$T/certs" || fail "cannot make test certificates"
policy_file "$T/p.json" jumbo "$ifc" 9000
agent_config "$T/report.json" "$T/state" "127.0.0.1:7470" "127.0.0.1:18545" '"drift": {"interval_s": 1, "mode": "report"}'
agent_config "$T/enforce.json" "$T/state" "127.0.0.1:7470" "127.0.0.1:18545" '"drift": {"interval_s": 1, "mode": "enforce"}'
A() { ip netns exec "$ns" "$AGENT" --config "$T/report.json" "$@"; }

step "nothing committed yet"
expect_rc 0 "drift before any commit" A drift

step "commit, then no drift"
expect_rc 0 "apply" A apply "$T/p.json"
expect_rc 0 "no drift right after the commit" A drift

step "MTU changed by hand"
ip -n "$ns" link set "$ifc" mtu 1400
rc=0; A drift >"$T/out" || rc=$?
check "drift exits 1 (got $rc)" [ "$rc" -eq 1 ]
check "drift names the field and both values" grep -q "$ifc mtu: 1400 (committed: 9000)" "$T/out"
rc=0; A --output json drift >"$T/d.json" || rc=$?
check "JSON drift lists one change" [ "$(jq_py "$T/d.json" 'len(d["changes"])')" = 1 ]

step "report mode: metrics and API, no change"
API_URL=https://127.0.0.1:7470
serve_start "$ns" "$T/report.json"
check "API drift: 200" [ "$(api "$ns" /v1/drift)" = 200 ]
check "API drift true" [ "$(jq_py "$T/body" 'd["drift"]')" = True ]
# The daemon's drift timer (1 s) sets the metric after its first check: wait for that
# check, however long the machine takes to get there.
drift_metric() { api "$ns" /metrics >/dev/null && grep -q '^nettune_drift_fields{field="mtu"} 1$' "$T/body"; }
check "metrics: drift on mtu" wait_for 60 drift_metric
check "report mode leaves the MTU alone" [ "$(mtu_of "$ns" "$ifc")" = 1400 ]
kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true

step "enforce mode heals it"
serve_start "$ns" "$T/enforce.json"
check "MTU back to 9000" wait_for 10 sh -c "[ \"\$(ip -n $ns -o link show $ifc | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')\" = 9000 ]"
expect_rc 0 "no drift after enforcement" A drift
A --output json history >"$T/h.json"
check "enforcement is a journaled transaction" [ "$(jq_py "$T/h.json" 'd[0]["state"]')" = committed ]
check "of kind enforce" [ "$(jq_py "$T/h.json" 'd[0]["kind"]')" = enforce ]
