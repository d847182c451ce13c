#!/usr/bin/env bash
# nettunectl tune ecn against real agents (serve, mutual TLS): three hosts (role gpu) on
# a bridge and a fabric node whose agent manages leaf1 (switchsim, NVUE, behind a
# private sshd in its namespace), whose queue 3 carries the seed's too-low thresholds.
# This kernel has no RED, so leaf1's thresholds shape no traffic here (the VM lab's ECN
# story is where they do): the response the search meets is the hosts' real incast
# against a target they reach or cannot. What is proven here is the machinery: every
# trial is a rollout of kind tune on leaf1's agent alone, left pending, measured with
# the fabric probe and the counters doctor reads (leaf1's simulated marks), and
# cancelled, so leaf1 is back at its thresholds after every trial; the hosts are never
# touched; the winner is a valid policy and the plot draws every trial; a kill -9 of
# tune mid-trial leaves the trial to the agent's confirm timer, which puts leaf1's
# original thresholds back; Ctrl-C and SIGHUP cancel the trial in progress; a best
# value below doctor's floor is no winner (exit 3); bad input changes nothing.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
fleet_require
require_sshd
require_cmd python3 sqlite3

N=4
fleet_certs "$N"
fleet_hub
for ((i = 1; i <= N; i++)); do fleet_node "$i"; done
fleet_inventory "$N"
fleet_leaf1 4 swp1,swp2,swp3
for ((i = 1; i <= N; i++)); do fleet_start_agent "$i" 2>>"$T/agents.log"; done
for ((i = 1; i <= N; i++)); do wait_for 20 agent_up "$i" || fail "agent $i did not come up (see $T/agents.log)"; done

# q3 KEY: leaf1's applied queue 3 setting, as the simulated switch holds it.
q3() { json_get "$LEAF/state.json" "d['nvue']['applied']['qos']['congestion-control']['default-global']['traffic-class']['3']['$1']"; }
thresholds() { echo "$(q3 min-threshold)/$(q3 max-threshold)/$(q3 probability)"; }
host_txs() { agent_history "$1" "$T/h$1.json" && json_get "$T/h$1.json" 'len(d["transactions"])'; }

step "the seed's mistake on leaf1: queue 3 marks from 3000 bytes"
cat >"$T/too-low.json" <<'JSON'
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "too-low" },
  "selector": { "role": "fabric" }, "targets": { "switches": ["leaf1"] },
  "spec": { "ecn": { "queues": [3], "min_threshold_bytes": 3000, "max_threshold_bytes": 15000,
                     "mark_probability_pct": 100 } },
  "verify": { "probe": "none" } }
JSON
expect_rc 0 "apply the too-low thresholds" ctl --quiet apply "$T/too-low.json"
check "leaf1 queue 3: 3000/15000/100" [ "$(thresholds)" = 3000/15000/100 ]
"$SIM" --dialect nvue --state "$LEAF/state.json" --traffic swp1:ecn_marked.3=500,swp2:ecn_marked.3=250 >/dev/null

step "tune: thresholds that already hold the target are bisected down, every trial reverted, and no winner below doctor's floor"
# --target-pct 10 and a gate allowing 95%: the hosts' incast holds them whatever leaf1 says (its
# thresholds shape nothing here) and however a busy machine moves a 1 s measurement.
rc=0; ctl --output json tune ecn --switch leaf1 --queue 3 --selector role=gpu --pattern incast --receiver node003 \
        --target-pct 10 --max-regression-pct 95 --max-trials 3 --runs 1 --duration-ms 1000 \
        --out "$T/tuned.json" --plot "$T/tune.svg" \
        >"$T/tune.json" 2>"$T/tune.err" || rc=$?
cat "$T/tune.err"
json_get "$T/tune.json" '"\n".join("  %s %s: %s (%s)" % (t["trial"], t["min_threshold_bytes"], t["share"], t["outcome"]) for t in [d["ceiling"], d["baseline"]] + d["trials"])'
# leaf1's ports run at 100 Gb/s and the hosts' flows measure a round trip: doctor's floor is
# far above 1500 bytes, so the lowest value that held is no winner (the issue's run wrote
# 3000/30000, 50 times below what doctor calls critical).
check "exit 3: no winner (got $rc)" [ "$rc" -eq 3 ]
check "it says why: the best value is below doctor's floor" \
        [ "$(json_get "$T/tune.json" 'd["no_winner"], d["chosen"], "below doctor" in d["end"], d["floor_min_bytes"] > 1500')" = \
          "(True, None, True, True)" ]
check "no policy written" [ ! -e "$T/tuned.json" ]
check "the ceiling was a trial with marking off, reverted" \
        [ "$(json_get "$T/tune.json" 'd["ceiling"]["marking_off"], d["ceiling"]["outcome"]')" = "(True, 'reverted')" ]
check "the baseline is the seed's thresholds and holds" \
        [ "$(json_get "$T/tune.json" 'd["baseline"]["min_threshold_bytes"], d["baseline"]["held"]')" = "(3000, True)" ]
check "trials below the seed's, down to the floor (1500) and it again, each held and reverted" \
        [ "$(json_get "$T/tune.json" '[(t["min_threshold_bytes"], t["held"], t["outcome"], t["phase"]) for t in d["trials"]]')" = \
          "[(2000, True, 'reverted', 'bisect'), (1500, True, 'reverted', 'bisect'), (1500, True, 'reverted', 'verify')]" ]
check "every trial ended confirmed or reverted" [ "$(json_get "$T/tune.json" 'd["all_ended"]')" = True ]
check "max kept at 10 x min, probability 10%" \
        [ "$(json_get "$T/tune.json" 'all(t["max_threshold_bytes"] == 10 * t["min_threshold_bytes"] and t["mark_probability_pct"] == 10 for t in d["trials"])')" = True ]
check "leaf1's marks were read while the trials ran" \
        [ "$(json_get "$T/tune.json" 'all(t["per_s"]["marks"] is not None for t in d["trials"])')" = True ]
check "leaf1 is back at 3000/15000/100" [ "$(thresholds)" = 3000/15000/100 ]
check "the hosts were never touched (no transaction on node001-003)" \
        [ "$(host_txs 1)$(host_txs 2)$(host_txs 3)" = 000 ]
ctl history >"$T/history.txt"
cat "$T/history.txt"
check "history lists the ceiling and the trials as rollouts of kind tune, halted" [ "$(grep -c '^[0-9]* *tune *halted' "$T/history.txt")" -eq 4 ]
check "the plot draws the baseline, the trials and the target, and no chosen one" python3 - "$T/tune.svg" "$T/tune.json" <<'PY'
import json, re, sys
svg, run = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
pts = re.findall(r'class="share[^"]*" data-trial="([^"]+)" data-value="(\d+)"', svg)
want = [("baseline", str(run["baseline"]["value"]))] + [(t["trial"], str(t["value"])) for t in run["trials"]]
sys.exit(0 if sorted(pts) == sorted(want) and 'class="target" data-share="0.100"' in svg
         and 'class="chosen"' not in svg else 1)
PY

# From here leaf1's ports run at 1 Mb/s: doctor's floor (the rate x the flows' round trip)
# falls below the search's 1500 bytes and a value that holds is a winner again.
"$SIM" --dialect nvue --state "$LEAF/state.json" --traffic swp1:speed=1M,swp2:speed=1M,swp3:speed=1M >/dev/null

step "nothing holds: every trial reverted, exit 1, no policy written"
rc=0; ctl tune ecn --switch leaf1 --queue 3 --selector role=gpu --pattern incast --receiver node003 \
        --target-pct 150 --max-trials 2 --runs 1 --duration-ms 500 --ceiling 100 --out "$T/none.json" \
        >"$T/none.txt" 2>&1 || rc=$?
cat "$T/none.txt"
check "exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "no policy written" [ ! -e "$T/none.json" ]
check "says nothing held" grep -q "^chosen: nothing" "$T/none.txt"
check "leaf1 still at 3000/15000/100" [ "$(thresholds)" = 3000/15000/100 ]

step "kill -9 of tune mid-trial: the agent's confirm timer puts leaf1 back"
# ip netns exec execs nettunectl in place: $! is tune itself.
ip netns exec "$HUB" "$CTL" --inventory "$T/inventory.json" --db "$T/ctl.db" --quiet tune ecn --switch leaf1 \
        --queue 3 --selector role=gpu --pattern incast --receiver node003 --target-pct 50 --runs 2 --duration-ms 5000 \
        --confirm-timeout 60 --ceiling 100 >"$T/killed.txt" 2>&1 &
tune_pid=$!
trial_on() { [ "$(q3 min-threshold)" != 3000 ]; }
wait_for 90 trial_on || { kill -9 $tune_pid; fail "no trial reached leaf1: $(cat "$T/killed.txt")"; }
echo "leaf1 mid-trial: $(thresholds)"
check "it is tune that runs ($(cat /proc/$tune_pid/comm))" [ "$(cat /proc/$tune_pid/comm)" = nettunectl ]
kill -9 $tune_pid
wait $tune_pid 2>/dev/null || true
check "tune is gone" [ ! -e /proc/$tune_pid ]
pending_one() { [ "$(pending_count 4)" = 1 ]; }
wait_for 30 pending_one || fail "the trial is not pending on node004's agent"
echo "ok: the trial is pending on node004's agent, nobody will confirm it"
back() { [ "$(thresholds)" = 3000/15000/100 ] && [ "$(pending_count 4)" = 0 ]; }
wait_for 120 back || fail "leaf1 did not come back: $(thresholds), pending $(pending_count 4)"
echo "ok: leaf1 read back after the confirm timer: $(thresholds)"
# the journal says how once the restore was read back (the switch is back first)
restored_by() { agent_history 4 "$T/h4.json" && json_get "$T/h4.json" 'd["transactions"][0]["restored_by"]'; }
by_timer() { [ "$(restored_by)" = confirm-timeout ]; }
wait_for 30 by_timer || fail "restored by '$(restored_by)', expected the agent's confirm timeout"
echo "ok: restored by the agent's confirm timeout"
check "the hosts were never touched" [ "$(host_txs 1)$(host_txs 2)$(host_txs 3)" = 000 ]

step "Ctrl-C mid-trial: tune cancels the trial in progress and stops; leaf1 is back at once"
# A confirm timeout of 600 s: what puts leaf1 back here is tune's cancel, not the agent's timer.
ip netns exec "$HUB" "$CTL" --inventory "$T/inventory.json" --db "$T/ctl.db" tune ecn --switch leaf1 \
        --queue 3 --selector role=gpu --pattern incast --receiver node003 --target-pct 50 --runs 1 --duration-ms 4000 \
        --confirm-timeout 600 --ceiling 100 >"$T/int.txt" 2>&1 &
tune_pid=$!
wait_for 90 trial_on || { kill -9 $tune_pid; fail "no trial reached leaf1: $(cat "$T/int.txt")"; }
echo "leaf1 mid-trial: $(thresholds)"
kill -INT $tune_pid
rc=0; wait $tune_pid || rc=$?
cat "$T/int.txt"
check "exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "says it was interrupted, nothing kept" grep -q 'interrupted after .*nothing of it was kept' "$T/int.txt"
seed_back() { [ "$(thresholds)" = 3000/15000/100 ] && [ "$(pending_count 4)" = 0 ]; }
wait_for 20 seed_back || fail "leaf1 is not back: $(thresholds), pending $(pending_count 4)"
echo "ok: leaf1 back at $(thresholds), nothing pending on node004"
by_cancel() { [ "$(restored_by)" = cancelled ]; }
wait_for 30 by_cancel || fail "restored by '$(restored_by)', expected tune's cancel"
echo "ok: restored by tune's cancel, not a timer"

step "SIGHUP mid-trial (an SSH session that drops): the same as Ctrl-C, the trial cancelled at once"
ip netns exec "$HUB" "$CTL" --inventory "$T/inventory.json" --db "$T/ctl.db" tune ecn --switch leaf1 \
        --queue 3 --selector role=gpu --pattern incast --receiver node003 --target-pct 50 --runs 1 --duration-ms 4000 \
        --confirm-timeout 600 --ceiling 100 >"$T/hup.txt" 2>&1 &
tune_pid=$!
wait_for 90 trial_on || { kill -9 $tune_pid; fail "no trial reached leaf1: $(cat "$T/hup.txt")"; }
echo "leaf1 mid-trial: $(thresholds)"
kill -HUP $tune_pid
rc=0; wait $tune_pid || rc=$?
cat "$T/hup.txt"
check "exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "says it was interrupted, nothing kept" grep -q 'interrupted after .*nothing of it was kept' "$T/hup.txt"
wait_for 20 seed_back || fail "leaf1 is not back: $(thresholds), pending $(pending_count 4)"
wait_for 30 by_cancel || fail "restored by '$(restored_by)', expected tune's cancel"
echo "ok: leaf1 back at $(thresholds), restored by tune's cancel, not a timer"

step "bad input changes nothing"
expect_rc 2 "a queue out of range" ctl tune ecn --switch leaf1 --queue 8 --selector role=gpu
expect_rc 2 "an unknown switch" ctl tune ecn --switch leaf9 --queue 3 --selector role=gpu
expect_rc 2 "no --queue" ctl tune ecn --switch leaf1 --selector role=gpu
expect_rc 2 "dcqcn without --param" ctl tune dcqcn --interfaces 'nt*' --selector role=gpu
expect_rc 2 "dcqcn on hosts without DCQCN knobs" ctl tune dcqcn --param rp_ai_rate --interfaces 'nt*' --selector role=gpu
check "leaf1 still at 3000/15000/100" [ "$(thresholds)" = 3000/15000/100 ]

step "tune dcqcn: one parameter of the canary host's NIC (an mlx5 debugfs layout), every trial reverted"
# node001 and node002 get the cc_params of a ConnectX under their sysfs/debugfs roots
# (tests/lib/nicmodel.sh's firmware defaults); their data path stays the veth.
. "$NETTUNE_TOP/tests/lib/nicmodel.sh"
for i in 1 2; do
        pci=0000:1$i:00.0
        mkdir -p "$T/sys$i/devices/pci0000:00/$pci" "$T/sys$i/class/net/nt0" "$T/debug$i"
        ln -s "../../../devices/pci0000:00/$pci" "$T/sys$i/class/net/nt0/device"
        echo 10000 >"$T/sys$i/class/net/nt0/speed"
        NM_SYS=$T/sys$i NM_DEBUG=$T/debug$i cc_params_tree nt0
        python3 - "$T/n$i/agent.json" "$T/sys$i" "$T/debug$i" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["sysfs_root"] = sys.argv[2]; c["debugfs_root"] = sys.argv[3]
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
        eval "kill \$AGENT_PID_$i; wait \$AGENT_PID_$i 2>/dev/null" || true
        fleet_start_agent "$i" 2>>"$T/agents.log"
done
for i in 1 2; do wait_for 20 agent_up "$i" || fail "agent $i did not come back"; done
cc() { find "$T/debug$1" -type f | sort | while read -r f; do echo "${f##*/} $(cat "$f")"; done; }
cc 1 >"$T/cc1.start"
cc 2 >"$T/cc2.start"
rc=0; ctl --output json tune dcqcn --param rp_ai_rate --interfaces nt0 --selector role=gpu --canary 1 \
        --pattern incast --receiver node003 --target-pct 10 --max-regression-pct 95 --max-trials 3 --runs 1 \
        --duration-ms 1000 --out "$T/dcqcn.json" >"$T/dcqcn-tune.json" 2>"$T/dcqcn.err" || rc=$?
cat "$T/dcqcn.err"
check "exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "the scope is the canary, node001" [ "$(json_get "$T/dcqcn-tune.json" 'd["scope"]')" = "['node001']" ]
check "the ceiling is the port rate (10 Gb/s)" [ "$(json_get "$T/dcqcn-tune.json" 'd["ceiling_gbps"]')" = 10.0 ]
check "the baseline is the firmware's rp_ai_rate 5 and holds" \
        [ "$(json_get "$T/dcqcn-tune.json" 'd["baseline"]["value"], d["baseline"]["held"]')" = "(5, True)" ]
check "trials below it, every one reverted, the winner tried again" \
        [ "$(json_get "$T/dcqcn-tune.json" '[(t["value"], t["outcome"], t["phase"]) for t in d["trials"]]')" = \
          "[(2, 'reverted', 'bisect'), (1, 'reverted', 'bisect'), (1, 'reverted', 'verify')]" ]
check "node001's cc_params are byte-for-byte where they began" cmp -s "$T/cc1.start" <(cc 1)
check "node002 (in the pattern, not the canary) was never touched" cmp -s "$T/cc2.start" <(cc 2)
check "no transaction on node002" [ "$(host_txs 2)" = 0 ]
check "the winner: host_ecn.dcqcn.rp_ai_rate 1 for the selector's hosts" \
        [ "$(json_get "$T/dcqcn.json" 'd["spec"]["host_ecn"]["dcqcn"], d["selector"], d["targets"]')" = \
          "({'rp_ai_rate': 1}, {'role': 'gpu'}, {'interfaces': ['nt0']})" ]
expect_rc 0 "it is a valid policy" "$AGENT" validate "$T/dcqcn.json"

step "--keep: the winner stays on leaf1 alone (confirmed), --out carries it to the rest"
rc=0; ctl --output json tune ecn --switch leaf1 --queue 3 --selector role=gpu --pattern incast --receiver node003 \
        --target-pct 10 --max-regression-pct 95 --max-trials 1 --runs 1 --duration-ms 1000 --ceiling 10 --keep \
        --out "$T/kept.json" >"$T/keep.json" 2>&1 || rc=$?
check "exit 0 (got $rc)" [ "$rc" -eq 0 ]
last=$(json_get "$T/keep.json" 'd["trials"][-1]["trial"], d["trials"][-1]["outcome"]')
value=$(json_get "$T/keep.json" 'd["trials"][-1]["value"]')
check "the last trial is the winner again, kept: confirmed ($last)" [ "$last" = "('keep', 'confirmed')" ]
check "leaf1 carries it: $(thresholds)" [ "$(q3 min-threshold)/$(q3 probability)" = "$value/10" ]
check "and the policy for the rest of the fleet names it" \
        [ "$(json_get "$T/kept.json" 'd["spec"]["ecn"]["min_threshold_bytes"]')" = "$value" ]

step "a rollback after tune names what it undoes: bare is refused; --policy takes the kept winner's layer back"
rc=0; ctl --quiet tune ecn --switch leaf1 --queue 3 --selector role=gpu --pattern incast --receiver node003 \
        --target-pct 10 --max-regression-pct 95 --max-trials 1 --runs 1 --duration-ms 1000 --ceiling 10 \
        >"$T/last.txt" 2>&1 || rc=$?
check "exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "the newest rollout is a tune trial, halted" \
        [ "$(ctl_db 'SELECT kind, state FROM rollouts ORDER BY id DESC LIMIT 1')" = "tune|halted" ]
rc=0; ctl --yes rollback --selector role=fabric >"$T/bare.txt" 2>&1 || rc=$?
cat "$T/bare.txt"
check "bare: exit 2, nothing changed (got $rc)" [ "$rc" -eq 2 ]
check "bare: the trial is listed among the newest rollouts" grep -qE "^  [0-9]+ +tune +halted" "$T/bare.txt"
expect_rc 0 "intent of the fabric node" ctl_to "$T/intent.json" --output json intent --selector role=fabric
kept=$(json_get "$T/intent.json" 'max(d["nodes"][0]["layers"], key=lambda l: l["revision"])["policy"]')
rc=0; ctl --yes rollback --policy "$kept" --selector role=fabric >"$T/rollback.txt" 2>&1 || rc=$?
cat "$T/rollback.txt"
check "rollback --policy $kept: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "leaf1 is back before the kept winner: $(thresholds)" [ "$(thresholds)" = 3000/15000/100 ]

step "a scope node that does not answer stops tune before anything changes (exit 3, named)"
before=$(ctl_db 'SELECT count(*) FROM rollouts')
kill "$(agent_pid 4)"
gone() { ! agent_up 4; }
wait_for 20 gone || fail "node004's agent did not stop"
rc=0; ctl tune ecn --switch leaf1 --queue 3 --selector role=gpu --pattern incast --receiver node003 \
        --target-pct 10 --max-trials 1 --runs 1 --duration-ms 1000 --ceiling 10 >"$T/pf.txt" 2>&1 || rc=$?
cat "$T/pf.txt"
check "exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "names the node" grep -q "node004.*nothing was changed" "$T/pf.txt"
check "no rollout was recorded" [ "$(ctl_db 'SELECT count(*) FROM rollouts')" = "$before" ]
check "leaf1 untouched: $(thresholds)" [ "$(thresholds)" = 3000/15000/100 ]
