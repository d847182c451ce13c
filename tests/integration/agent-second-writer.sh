#!/usr/bin/env bash
# A second writer: serve in enforce mode restores a field another writer keeps setting;
# after the third restore within the window it stops fighting that field and says so in
# drift (CLI and API) and /metrics, until a person acts.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
require_root
require_cmd openssl curl ss python3

ns=$(netns_add sw)
nsp=$(netns_add swp)
ifc=wa$NT_ID
veth_pair "$ns" "$ifc" "$nsp" wb$NT_ID
make_certs "$T/certs" || fail "cannot make test certificates"
policy_file "$T/p.json" jumbo "$ifc" 9000
agent_config "$T/enforce.json" "$T/state" "127.0.0.1:7471" "127.0.0.1:18546" '"drift": {"interval_s": 1, "mode": "enforce"}'
A() { ip netns exec "$ns" "$AGENT" --config "$T/enforce.json" "$@"; }
enforcements() { A --output json history >"$T/h.json" && jq_py "$T/h.json" "len([t for t in d if t['kind'] == 'enforce' and t['state'] == 'committed'])"; }

expect_rc 0 "apply" A apply "$T/p.json"
API_URL=https://127.0.0.1:7471
serve_start "$ns" "$T/enforce.json"

step "another writer sets the MTU again after each restore"
# The other writer: whenever the MTU is back at 9000, it writes 1400 (and once 1300).
bg sh -c "n=0; while :; do m=\$(ip -n $ns -o link show $ifc | sed -n 's/.* mtu \([0-9]*\) .*/\1/p');
        if [ \"\$m\" = 9000 ]; then n=\$((n+1)); if [ \$n = 2 ]; then v=1300; else v=1400; fi;
        ip -n $ns link set $ifc mtu \$v; fi; sleep 0.2; done"
writer=$BG_PID
finding() { api "$ns" /v1/drift >/dev/null && [ "$(jq_py "$T/body" 'len(d.get("second_writers", []))')" = 1 ]; }
check "drift (API) reports the second writer" wait_for 120 finding
check "the finding names field, target and times" \
        [ "$(jq_py "$T/body" 'd["second_writers"][0]["code"] + " " + d["second_writers"][0]["field"] + " " + d["second_writers"][0]["target"] + " " + str(d["second_writers"][0]["times"] >= 3)')" = "second_writer mtu $ifc True" ]
check "and the values it saw" [ "$(jq_py "$T/body" 'sorted(d["second_writers"][0]["values_seen"])')" = "[1300, 1400]" ]
n=$(enforcements)
check "three restores were made ($n)" [ "$n" -ge 3 ]
kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null || true

step "no longer fought"
ip -n "$ns" link set "$ifc" mtu 1200
# two drift intervals and more: enforcement would have run by now; it leaves the field alone
sleep 3
check "the MTU stays as the other writer left it" [ "$(mtu_of "$ns" "$ifc")" = 1200 ]
check "no enforcement after the finding" [ "$(enforcements)" = "$n" ]
rc=0; A drift >"$T/d.txt" || rc=$?
check "CLI drift exits 1 (got $rc)" [ "$rc" -eq 1 ]
check "CLI drift names the second writer" grep -q "second_writer: $ifc mtu was restored" "$T/d.txt"
metric() { api "$ns" /metrics >/dev/null && grep -q "^nettune_second_writer{target=\"$ifc\",field=\"mtu\"} [0-9]" "$T/body"; }
check "/metrics reports it" metric
api "$ns" '/v1/doctor?window_s=0.2' >/dev/null
check "GET /v1/doctor carries it in the node's facts" \
        [ "$(jq_py "$T/body" 'd["second_writers"][0]["target"] + " " + d["second_writers"][0]["field"]')" = "$ifc mtu" ]
rc=0; A --output json doctor --window 0.2 >"$T/doc.json" || rc=$?
check "doctor: exit 1, the finding second_writer naming the target and field (got $rc)" \
        [ "$rc/$(jq_py "$T/doc.json" '[(f["code"], "'"$ifc"' mtu" in f["evidence"]) for f in d["findings"] if f["code"] == "second_writer"]')" = "1/[('second_writer', True)]" ]

step "a person acts: the policy applied again, the finding goes"
kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true
expect_rc 0 "apply again" A apply "$T/p.json"
check "MTU 9000" [ "$(mtu_of "$ns" "$ifc")" = 9000 ]
A --output json drift >"$T/d.json" || true
check "no second writer any more" [ "$(jq_py "$T/d.json" 'len(d["second_writers"])')" = 0 ]
