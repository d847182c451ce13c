#!/usr/bin/env bash
# PFC storms, seen by doctor and /metrics: a SONiC switch (switchsim behind a real sshd)
# and a ConnectX host (the mlx5 model behind the netlink and ethtool seams) with lossless
# priorities and nothing to contain a storm are watchdog_missing, with the ports and the
# NIC's 8000 ms; once a policy declares the watchdog and the stall timeout, they are not.
# A choppy pause stream makes the watchdog storm and restore again and again:
# watchdog_flapping. A storm on the switch's clock shows in /metrics as detected, then
# restored; the NIC's stall prevention stopping its pause shows as an error event.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/certs.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/tests/lib/doctor.sh"
. "$NETTUNE_TOP/tests/lib/nicmodel.sh"
. "$NETTUNE_TOP/tests/integration/agent-switch.inc"
require_root
require_sshd
require_cmd python3 openssl curl ss

AS_NS=$(netns_add dwd)
HOST_IF=ens1f0np0
as_switch leaf2 sonic Ethernet0,Ethernet4,Ethernet8
as_switches_up
nicmodel_start "mlx5:$HOST_IF:4"
make_certs "$T/certs" || fail "cannot make test certificates"
python3 - "$T/agent.json" "$T" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1])); t = sys.argv[2]
c.update({"listen": "127.0.0.1:7481", "sysfs_root": t + "/sys", "probe": {"listen": "127.0.0.1:18561"},
          "tls": {"cert": t + "/certs/agent.crt", "key": t + "/certs/agent.key", "client_ca": t + "/certs/clients-ca.crt"}})
json.dump(c, open(sys.argv[1], "w"))
EOF
export NETTUNE_NETLINK_SOCKET=$NM_SOCK NETTUNE_ETHTOOL_SOCKET=$NM_ETHTOOL
nm_ctl pfc "$HOST_IF" 0x18 >/dev/null          # the host already lossless on 3 and 4
nm_wait_settled
# SONiC's factory map (AZURE) makes DSCP 3 and 4 lossless: the fabric's RoCE DSCP here is 3.
diagnose() { doctor_expect "$1" "$2" A --output json doctor --interfaces "$HOST_IF" --window "${3:-2}" --roce-dscp 3; }

step "nothing contains a storm: the switch without a watchdog, the NIC at 8000 ms"
diagnose "watchdog_missing" "factory switch and NIC"
ports=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sorted(p for f in d['findings'] \
if f['code'] == 'watchdog_missing' for p in f['ports']))" "$T/d.json")
echo "watchdog_missing: $ports"
check "every lossless port of leaf2 and the host's NIC" python3 -c "import sys; p = eval(sys.argv[1]); \
sys.exit(0 if {'leaf2:Ethernet0', 'leaf2:Ethernet4', 'leaf2:Ethernet8'} < set(p) and len(p) == 4 and \
any(x.endswith(':$HOST_IF') for x in p) else 1)" "$ports"
check "the NIC's 8000 ms as evidence" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
sys.exit(0 if any(f['evidence'].get('nic_stall_timeout_ms') == 8000 for f in d['findings'] if f['code'] == 'watchdog_missing') else 1)" "$T/d.json"

step "declared: the watchdog on the switch, stall prevention on the NIC"
cat > "$T/p.json" <<EOF
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": {"name": "storms"},
  "targets": {"switches": ["leaf2"], "interfaces": ["$HOST_IF"]},
  "spec": { "pfc": { "priorities": [3, 4],
                     "watchdog": {"detection_ms": 200, "restoration_ms": 200, "action": "drop", "poll_interval_ms": 100},
                     "nic_stall_timeout_ms": "auto" } } }
EOF
expect_rc 0 "apply" A apply "$T/p.json"
nm_wait_settled
diagnose "" "contained"

step "a choppy pause stream: storm, restore, storm again (the switch's own clock)"
swsim leaf2 --traffic Ethernet0:pfc_rx.3=4000/0.6/0.6
diagnose "pause_storm watchdog_flapping" "Ethernet0 paused 0.6 s of every 1.2 s" 6
check "leaf2:Ethernet0 queue 3" [ "$(finding watchdog_flapping "['ports']")" = "['leaf2:Ethernet0']" ]
check "queue 3" [ "$(finding watchdog_flapping "['evidence']['queue']")" = 3.0 ]
echo "storms over the window: $(finding watchdog_flapping "['evidence']['storms_detected']")"
swsim leaf2 --traffic Ethernet0:pfc_rx.3=0

step "/metrics: a storm detected and restored, per port and priority"
API_URL=https://127.0.0.1:7481
serve_start "$AS_NS" "$T/agent.json"
swsim leaf2 --freeze-clock
metric() { grep "^$1{switch=\"leaf2\",port=\"Ethernet4\",priority=\"3\"} " "$T/body" | awk '{print $2}'; }
check "metrics: 200" [ "$(api "$AS_NS" /metrics)" = 200 ]
check "a watched queue, no storm yet" [ "$(metric nettune_pfc_watchdog_storms_detected_total)" = 0 ]
check "the switch was read" grep -q '^nettune_pfc_watchdog_read{switch="leaf2"} 1$' "$T/body"
swsim leaf2 --traffic Ethernet4:pfc_rx.3=5000
swsim leaf2 --advance 0.5
api "$AS_NS" /metrics >/dev/null
check "detected: 1" [ "$(metric nettune_pfc_watchdog_storms_detected_total)" = 1 ]
check "stormed now" [ "$(metric nettune_pfc_watchdog_stormed)" = 1 ]
swsim leaf2 --traffic Ethernet4:pfc_rx.3=0
swsim leaf2 --advance 0.5
api "$AS_NS" /metrics >/dev/null
check "restored: 1" [ "$(metric nettune_pfc_watchdog_storms_restored_total)" = 1 ]
check "not stormed" [ "$(metric nettune_pfc_watchdog_stormed)" = 0 ]

step "/metrics: the NIC stops its pause after 100 ms and counts it"
nm_ctl stall "$HOST_IF" on >/dev/null
nic_error() { api "$AS_NS" /metrics >/dev/null &&
        grep -q "^nettune_nic_pause_storm_events_total{interface=\"$HOST_IF\",level=\"error\"} 1$" "$T/body"; }
check "an error event: the pause stopped" wait_for 30 nic_error
nm_ctl stall "$HOST_IF" off >/dev/null
kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true
expect_rc 0 "rollback" A rollback
