#!/usr/bin/env bash
# Controller: the operator's rollout verbs on 6 real agents (one netns each, mTLS):
# apply --selector with set-based requirements changes exactly the nodes they select
# (a malformed one changes nothing), and --reason is recorded with the OS user, the
# client certificate's CN and the sha256 of the document the agents got (status,
# history).
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
N=6

step "fleet of $N agents (racks r1 r2 r3 r0 r1 r2)"
fleet_up $N
policy "$T/mtu.json" mtu-9000 9000 '{ "role": "gpu" }' '{ "probe": "none" }'

step "a malformed selector: refused, nothing changed"
expect_rc 2 "unclosed set" ctl --yes apply "$T/mtu.json" --selector 'rack in (r1,r2' 2> "$T/bad.err"
check "the error names the selector" grep -q "selector 'rack in (r1,r2'.*expected ',' or ')'" "$T/bad.err"
expect_rc 2 "a selector no node meets" ctl --yes apply "$T/mtu.json" --selector 'rack in (r7)' 2> "$T/none.err"
check "the error says so" grep -q "matches no node" "$T/none.err"
for ((i = 1; i <= N; i++)); do
        [ "$(node_mtu $i)" = 1500 ] || fail "node $i has mtu $(node_mtu $i) after a refused apply"
done
check "no rollout recorded" [ "$(ctl_db 'select count(*) from rollouts')" = 0 ]

# on_tty ANSWER OUT CMD...: CMD on a terminal; ANSWER typed at its [y/N]; all it wrote into OUT; its exit code.
on_tty() {
        python3 - "$@" <<'PY'
import os, pty, sys
answer, out, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
got, sent = b"", False
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    got += chunk
    if not sent and b"[y/N]" in got:
        os.write(fd, answer.encode() + b"\n")
        sent = True
open(out, "wb").write(got.replace(b"\r\n", b"\n"))
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
PY
}

step "on a terminal: what changes where, before the question; 'n' changes nothing"
expect_rc 2 "answered n" on_tty n "$T/tty.txt" ip netns exec "$HUB" "$CTL" --inventory "$T/inventory.json" \
        --db "$T/ctl.db" apply "$T/mtu.json" --selector 'rack in (r1,r2)' --wave-size 100%
check "the changes, grouped, before the question" python3 -c '
import sys
t = open(sys.argv[1]).read()
want = "node001, node002, node005, node006 (4 nodes):\n  nt0 mtu: 1500 -> 9000\nroll \x27mtu-9000\x27 out to 4 nodes"
sys.exit(want not in t)' "$T/tty.txt"
check "not confirmed" grep -q "not confirmed; nothing was changed" "$T/tty.txt"
for ((i = 1; i <= N; i++)); do
        [ "$(node_mtu $i)" = 1500 ] || fail "node $i has mtu $(node_mtu $i) after 'n'"
done
check "no rollout recorded" [ "$(ctl_db 'select count(*) from rollouts')" = 0 ]

step "apply --selector 'rack in (r1,r2)' --selector 'rack!=r2' --reason"
expect_rc 0 "rollout commits" ctl_to "$T/apply.json" --output json --yes apply "$T/mtu.json" \
        --selector 'rack in (r1,r2)' --selector 'rack!=r2' --reason 'NET-1234: jumbo frames for the r1 pod' \
        --wave-size 100%
check "two nodes in the rollout" [ "$(json_get "$T/apply.json" '",".join(n["name"] for n in d["nodes"])')" = \
        node001,node005 ]
for ((i = 1; i <= N; i++)); do
        want=1500; [ $i = 1 ] || [ $i = 5 ] && want=9000
        [ "$(node_mtu $i)" = $want ] || fail "node $i has mtu $(node_mtu $i), expected $want"
done
echo "ok: node001 and node005 at mtu 9000, the other four untouched at 1500"
id=$(json_get "$T/apply.json" 'd["id"]')

step "who, why and what: status and history"
expect_rc 0 "status" ctl_to "$T/status.json" --output json status "$id"
check "the reason" [ "$(json_get "$T/status.json" 'd["reason"]')" = 'NET-1234: jumbo frames for the r1 pod' ]
check "the OS user" [ "$(json_get "$T/status.json" 'd["user"]')" = "$(id -un)${SUDO_USER:+ (sudo: $SUDO_USER)}" ]
check "the certificate's CN" [ "$(json_get "$T/status.json" 'd["cert_cn"]')" = controller ]
check "the document's hash" [ "$(json_get "$T/status.json" 'd["policy_sha256"]')" = \
        "sha256:$(sha256sum < "$T/mtu.json" | cut -d' ' -f1)" ]
check "the selector" [ "$(json_get "$T/status.json" 'd["selector"]')" = 'rack in (r1,r2); rack!=r2' ]
ctl status "$id" > "$T/status.txt"
check "status text: who and why" grep -q "^  by $(id -un).* (certificate 'controller'): NET-1234: jumbo frames" \
        "$T/status.txt"
ctl history > "$T/history.txt"
check "history: the reason on the rollout's line" grep -q "^$id .*mtu-9000.*\[$(id -un).*: NET-1234: jumbo" \
        "$T/history.txt"
expect_rc 0 "history json" ctl_to "$T/history.json" --output json history
check "history json: reason" [ "$(json_get "$T/history.json" 'd[0]["reason"]')" = \
        'NET-1234: jumbo frames for the r1 pod' ]

step "diff between two rollouts' documents"
policy "$T/mtu4k.json" mtu-4000 4000 '{ "role": "gpu" }' '{ "probe": "none" }'
expect_rc 0 "a second rollout" ctl --yes apply "$T/mtu4k.json" --selector rack=r1 --wave-size 100% --reason 'back off'
check "node001 at mtu 4000" [ "$(node_mtu 1)" = 4000 ]
expect_rc 1 "diff: they differ" ctl_to "$T/diff.txt" diff "$id" 2
check "the header names each side, who and why" grep -q "^--- rollout $id (apply 'mtu-9000') sha256:[0-9a-f]\{64\} by .*: NET-1234" \
        "$T/diff.txt"
check "spec.mtu" grep -qx "  spec.mtu: 9000 -> 4000" "$T/diff.txt"
check "metadata.name" grep -qx '  metadata.name: "mtu-9000" -> "mtu-4000"' "$T/diff.txt"
# the fleet cases' policies override one another (ctl-fleet.inc): their metadata.overrides differ too
check "nothing else but the overrides" [ "$(grep '^  ' "$T/diff.txt" | grep -vc '^  metadata\.overrides')" = 2 ]
expect_rc 1 "diff json" ctl_to "$T/diff.json" --output json diff "$id" 2
check "json: the changes" [ "$(json_get "$T/diff.json" '[(c["path"], c["from"], c["to"]) for c in d["changes"] if not c["path"].startswith("metadata.overrides")]')" = \
        "[('metadata.name', '\"mtu-9000\"', '\"mtu-4000\"'), ('spec.mtu', '9000', '4000')]" ]
check "json: the reason of each" [ "$(json_get "$T/diff.json" 'd["to"]["reason"]')" = 'back off' ]
expect_rc 0 "a rollout against itself" ctl diff 2 2
expect_rc 2 "no such rollout" ctl diff 2 99

step "--promote manual and --wave-interval: each later wave waits for a person; pause holds it even then"
policy "$T/mtu6k.json" mtu-6000 6000 '{ "role": "gpu" }' '{ "probe": "none" }'
bg ctl --yes --output json apply "$T/mtu6k.json" --selector 'rack in (r2,r3)' --canary 1 --wave-size 1 \
        --promote manual --wave-interval 2 --confirm-timeout 600 > "$T/held.json" 2> "$T/held.err"
apply_pid=$BG_PID
# status_says ID TEXT: the rollout's status names TEXT
status_says() { ctl status "$1" | grep -qF -- "$2"; }
wait_for 60 mtu_is 2 6000 || fail "the canary node002 did not change (see $T/held.err)"
hid=$(ctl_db 'select max(id) from rollouts')
wait_for 60 status_says "$hid" "wave 2 waits for 'nettunectl promote $hid'" || fail "status does not say wave 2 waits"
echo "ok: status: wave 2 waits for 'nettunectl promote $hid'"
check "node003 (wave 2) untouched while it waits" [ "$(node_mtu 3)" = 1500 ]
check "the soak was said before it" grep -q "soaking [12] s before wave 2/3" "$T/held.err"
expect_rc 0 "pause" ctl pause "$hid"
expect_rc 2 "pause twice" ctl pause "$hid"
expect_rc 0 "promote while paused" ctl promote "$hid"
wait_for 30 status_says "$hid" "paused by $(id -un)" || fail "status does not say paused"
echo "ok: status: paused by $(id -un)"
check "still untouched: paused, whatever was promoted" [ "$(node_mtu 3)" = 1500 ]
expect_rc 0 "resume" ctl resume "$hid"
wait_for 60 mtu_is 3 6000 || fail "wave 2 did not start after resume"
echo "ok: wave 2 (node003) applied once resumed"
wait_for 60 status_says "$hid" "wave 3 waits for 'nettunectl promote $hid'" || fail "wave 3 does not wait"
check "node006 (wave 3) untouched while it waits" [ "$(node_mtu 6)" = 1500 ]
expect_rc 0 "promote wave 3" ctl promote "$hid"
rc=0; wait "$apply_pid" || rc=$?
check "the rollout completes (exit $rc)" [ "$rc" = 0 ]
check "node006 at 6000" [ "$(node_mtu 6)" = 6000 ]
check "recorded: the soak and the promotion" [ "$(ctl_db "select opts from rollouts where id = $hid" |
        python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["wave_interval_s"], o["promote"])')" = "2 manual" ]
expect_rc 2 "promote a finished rollout" ctl promote "$hid"
expect_rc 2 "--promote sometimes" ctl --yes apply "$T/mtu6k.json" --promote sometimes

step "drift --heal: each drifted node's intent again, as a rollout, without serve"
ip -n "$(node_ns 5)" link set nt0 mtu 1500
ip -n "$(node_ns 3)" link set nt0 mtu 1400
expect_rc 0 "drift --heal heals both" ctl_to "$T/heal.txt" --yes drift --heal
check "node005 back at 4000 (the policy of rollout 2, the newest that committed it)" [ "$(node_mtu 5)" = 4000 ]
check "node003 back at 6000 (rollout $hid's policy)" [ "$(node_mtu 3)" = 6000 ]
check "two enforce rollouts recorded, each with the heal's reason" [ "$(ctl_db "select count(*) from rollouts where
        kind = 'enforce' and opts like '%drift --heal%'")" = 2 ]
check "the report names them" grep -q "^rollout [0-9]* (enforce 'mtu-6000'): completed" "$T/heal.txt"
check "untouched: node004 (never drifted)" [ "$(node_mtu 4)" = 1500 ]
expect_rc 0 "in sync afterwards" ctl drift

step "--output json: an error is one JSON object on stdout, with the same exit code; times in RFC 3339 UTC"
expect_rc 2 "no such rollout" ctl_to "$T/err1.json" --output json status 99
check "error.code invalid, the message" [ "$(json_get "$T/err1.json" 'd["error"]["code"], d["error"]["message"]')" = \
        "('invalid', '$T/ctl.db: no rollout 99')" ]
python3 - "$T/mtu.json" "$T/nope.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["targets"]["interfaces"] = ["nope0"]; json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 2 "a policy the agents refuse" ctl_to "$T/err2.json" --output json --yes apply "$T/nope.json" \
        --selector rack=r3
check "one object: error with code, path and target" [ "$(json_get "$T/err2.json" \
        '(sorted(d), d["error"]["code"], d["error"]["path"], d["error"]["target"])')" = \
        "(['error'], 'invalid', '\$.targets.interfaces[0]', '$T/nope.json')" ]
check "the message names the node" grep -q 'node node003 refuses the policy' "$T/err2.json"
check "node003 untouched" [ "$(node_mtu 3)" = 6000 ]
expect_rc 0 "status json" ctl_to "$T/st.json" --output json status "$id"
check "created_at and every wave's started_at in RFC 3339 UTC" python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
ts = [d["created_at"], d["updated_at"]] + [w["started_at"] for w in d["waves"]]
sys.exit(not all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", t) for t in ts))' "$T/st.json"

step "every agent note reaches plan and apply, each once with the nodes that say it"
# a layer over the case's MTU layers (node003 holds mtu-6000): it overrides them, or the
# plan refuses it as field_owned, as apply would
cat > "$T/ecn.json" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy",
  "metadata": { "name": "mtu-ecn", "overrides": ["mtu-9000", "mtu-4000", "mtu-6000"] },
  "selector": { "role": "gpu" }, "targets": { "interfaces": ["nt0"] },
  "spec": { "mtu": 9000, "host_ecn": { "priorities": [3], "reaction_point": true, "notification_point": true,
                                       "optional": true } },
  "verify": { "probe": "none" } }
JSON
expect_rc 0 "plan json" ctl_to "$T/notes-plan.json" --output json plan "$T/ecn.json" --selector 'rack in (r0,r3)'
check "each node's notes" [ "$(json_get "$T/notes-plan.json" \
        'all(any("host_ecn is optional and left out here" in x for x in n["notes"]) for n in d["nodes"])')" = True ]
check "the fleet's: the note once, with both nodes" [ "$(json_get "$T/notes-plan.json" \
        '[(g["nodes"]) for g in d["notes"] if "host_ecn is optional" in g["note"]]')" = "[['node003', 'node004']]" ]
ctl plan "$T/ecn.json" --selector 'rack in (r0,r3)' > "$T/notes-plan.txt"
check "plan text: one line for both" grep -q "^note (2 nodes: node003, node004): .*host_ecn is optional and left out here" \
        "$T/notes-plan.txt"
expect_rc 0 "apply json" ctl_to "$T/notes-apply.json" --output json --yes apply "$T/ecn.json" --selector rack=r0 \
        --wave-size 100%
check "apply json: the note with node004" [ "$(json_get "$T/notes-apply.json" \
        '[g["nodes"] for g in d["notes"] if "host_ecn is optional" in g["note"]]')" = "[['node004']]" ]
check "node004 at 9000" [ "$(node_mtu 4)" = 9000 ]

step "rollback --no-gate --reason: the agents restore without their gate; who and why recorded"
expect_rc 2 "--no-gate without --reason" ctl --yes rollback --policy mtu-ecn --no-gate --selector rack=r0
check "node004 untouched" [ "$(node_mtu 4)" = 9000 ]
expect_rc 0 "rollback --no-gate" ctl_to "$T/nogate.json" --output json --yes rollback --policy mtu-ecn --no-gate \
        --reason 'INC-42: the fabric is on fire' --selector rack=r0
check "node004 back at 1500" [ "$(node_mtu 4)" = 1500 ]
nid=$(json_get "$T/nogate.json" 'd["id"]')
expect_rc 0 "status" ctl_to "$T/nogate-st.json" --output json status "$nid"
check "the reason" [ "$(json_get "$T/nogate-st.json" 'd["reason"]')" = 'INC-42: the fabric is on fire' ]
check "the OS user" [ "$(json_get "$T/nogate-st.json" 'd["user"]')" = "$(id -un)${SUDO_USER:+ (sudo: $SUDO_USER)}" ]
check "the certificate's CN" [ "$(json_get "$T/nogate-st.json" 'd["cert_cn"]')" = controller ]
check "recorded as a rollback without the gate" [ "$(ctl_db "select args from rollouts where id = $nid" |
        python3 -c 'import json,sys; print(json.load(sys.stdin).get("no_gate"))')" = True ]
check "the agent was asked without its gate, by the controller's certificate" \
        grep -q "rollback without its gate (no_gate) asked by '.*controller" "$T/agents.log"

step "SIGHUP (its SSH session dropped) stops apply as Ctrl-C does: the rollout halts, its change rolled back"
policy "$T/mtu7k.json" mtu-7000 7000 '{ "role": "gpu" }' '{ "probe": "none" }'
# nettunectl itself gets the signal, as from its terminal (ip netns exec execs it: $! is its PID)
ip netns exec "$HUB" "$CTL" --inventory "$T/inventory.json" --db "$T/ctl.db" --yes apply "$T/mtu7k.json" \
        --selector rack=r1 --canary 1 --wave-size 1 --promote manual --rollback-on-halt all --confirm-timeout 600 \
        > "$T/hup.txt" 2>&1 &
hup_pid=$!
canary_on() { [ "$(node_mtu 1)" = 7000 ] || [ "$(node_mtu 5)" = 7000 ]; }
wait_for 60 canary_on || { kill -9 "$hup_pid"; fail "the canary did not change (see $T/hup.txt)"; }
hupid=$(ctl_db 'select max(id) from rollouts')
wait_for 60 status_says "$hupid" "wave 2 waits for 'nettunectl promote $hupid'" ||
        { kill -9 "$hup_pid"; fail "wave 2 does not wait"; }
kill -HUP "$hup_pid"
rc=0; wait "$hup_pid" || rc=$?
cat "$T/hup.txt"
check "exit 1: halted and rolled back (got $rc)" [ "$rc" = 1 ]
check "the record says why" status_says "$hupid" "halted by the signal SIGHUP nettunectl received"
check "node001 and node005 back at 4000" [ "$(node_mtu 1) $(node_mtu 5)" = "4000 4000" ]
