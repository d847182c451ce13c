#!/usr/bin/env bash
# A Linux switch (mlxsw Spectrum-2 ports, the nicmodel's mlxsw; swp3 an 8-lane 400G port) in the
# agent's switch role: what mlxsw will really reserve after a change is checked at plan time against
# the calculator. In DCB headroom mode (no root qdisc) the lossless buffer is ETS's traffic class,
# sized from the PFC delay alone (2 MTU + 2 delay + MTU): PFC alone (every priority in class 0) and
# PFC with a class of its own (the __u16 delay holds 21,168 bytes at most, the calculator asks 63,488
# at 100G and 40 m) are refused with the way that works, nothing changed; doctor's
# headroom_insufficient finds the 15,120-byte buffer an older nettune left. In TC headroom mode (an
# offloaded root qdisc) spec.buffers maps the lossless priority to a buffer of its own, sized by the
# calculator (twice on an 8-lane port, which splits it over two buffers); apply, read back, drift and
# roll back with the model byte-for-byte where it began; what mlxsw cannot hold or would change is
# refused before anything is written.
#
# Why a model: no device in this machine's kernel or in the VM lab's guest implements
# dcbnl: the guest's Debian 6.1 kernel has CONFIG_MLXSW_CORE and CONFIG_NETDEVSIM unset,
# its dcbnl drivers are PCI NICs qemu does not emulate, and virtio, e1000, veth and
# dummy have none; so the dcbnl PFC and buffer path of a Linux switch has no real peer.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/tests/lib/nicmodel.sh"
require_root
require_cmd python3

ns=$(netns_add lh)
nicmodel_start mlxsw:swp1:11 mlxsw:swp2:12 mlxsw:swp3:13:x8
cat >"$T/a.json" <<JSON
{ "role": "switch", "state_dir": "$T/state", "sysfs_root": "$T/sys", "settle_ms": 10000, "flap_wait_ms": 1000,
  "rdma_wait_ms": 10000 }
JSON
A() { NETTUNE_NETLINK_SOCKET=$NM_SOCK NETTUNE_ETHTOOL_SOCKET=$NM_ETHTOOL ip netns exec "$ns" "$AGENT" --config "$T/a.json" "$@"; }
# The ports' ECN (their qdiscs: the model's kernel has sch_ets and sch_red) stays as it is:
# the lossless class's ECN rule is waived, as these policies are about headroom alone.
policy() {      # policy FILE SPEC [PORTS]
        cat >"$1" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "lossless-ports" },
  "targets": { "interfaces": ["${3:-swp[12]}"] }, "spec": $2, "checks": { "allow": ["ecn_queue_not_lossless"] } }
JSON
}
start=$T/start
nm_state >"$start"

step "DCB headroom mode, PFC alone: every priority shares ETS's buffer 0, refused with the way that works"
# mlxsw would size buffer 0 (every priority, prio_tc all 0) as 2 MTU + 2 delay + MTU: 15,120 bytes for a
# 40 m delay, where the calculator asks 63,488, and all traffic would be lossless.
policy "$T/cable.json" '{ "pfc": { "priorities": [3], "cable_length_m": 40 } }'
rc=0; A apply "$T/cable.json" 2>"$T/err" || rc=$?
check "exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "the reason and the way" grep -q "lossy priority 0 would share buffer 0 with PFC priority 3 on the port's ETS priority_to_tc (DCB headroom mode.*give the PFC priorities a traffic class of their own (spec.ets.priority_to_tc), or put the port in TC headroom mode (an offloaded root qdisc, spec.ecn) and declare spec.buffers; nothing was changed" "$T/err"
nm_state >"$T/now"
check "nothing was changed" cmp -s "$start" "$T/now"

step "DCB headroom mode with priority 3 in a class of its own: the __u16 delay cannot make 63,488 bytes"
policy "$T/ets.json" '{ "pfc": { "priorities": [3], "cable_length_m": 40 },
  "ets": { "priority_to_tc": [0, 0, 0, 3, 0, 0, 0, 0], "tc_tsa": ["ets", "strict", "strict", "strict", "strict", "strict", "strict", "strict"],
           "tc_bandwidth_pct": [100, 0, 0, 0, 0, 0, 0, 0] } }'
rc=0; A apply "$T/ets.json" 2>"$T/err" || rc=$?
check "exit 2 (got $rc)" [ "$rc" -eq 2 ]
# at most 65535 bits: 8192 bytes = 57 cells of 144; 2 x 11 + 2 x 57 + 11 = 147 cells = 21168 bytes
check "the reason, the numbers and the way" grep -q "in DCB headroom mode mlxsw sizes buffer 3 of lossless priorities 3 from the PFC delay alone .* and the 63488 bytes this port needs (spectrum2 at 100000 Mb/s, 40 m, mtu 1500) take .* bits of delay, more than a __u16 holds (at most 21168 bytes of buffer): put the port in TC headroom mode (an offloaded root qdisc, spec.ecn) and declare spec.buffers with priorities 3 in a buffer of at least 63488 bytes" "$T/err"
nm_state >"$T/now"
check "nothing was changed" cmp -s "$start" "$T/now"

step "doctor: the buffer an older nettune left (the bare round trip as the delay) is headroom_insufficient"
nm_ctl pfc swp1 8 >/dev/null && nm_ctl delay swp1 40405 >/dev/null
nm_state >"$T/now"
check "swp1's buffer 0 is the driver's 15120 bytes" grep -q "pfc en 0x08 delay 40405 bits (5051 bytes) .*buf_idx 0,0,0,0,0,0,0,0 lossless 0x01 size 15120," "$T/now"
rc=0; A --output json doctor --window 0.2 >"$T/d.json" 2>"$T/d.err" || rc=$?
check "doctor exits 1 (got $rc)" [ "$rc" -eq 1 ]
check "headroom_insufficient on swp1, buffer 0: 15120 bytes against 63488" python3 - "$T/d.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["findings"] if f["code"] == "headroom_insufficient"]
assert len(f) == 1, d["findings"]
ev = f[0]["evidence"]
assert (ev["buffer"], ev["configured_bytes"], ev["needed_bytes"], ev["cable_m"]) == (0, 15120, 63488, 40), ev
assert "swp1" in json.dumps(f[0]["ports"]), f[0]
PY
nm_ctl pfc swp1 0 >/dev/null && nm_ctl delay swp1 0 >/dev/null
nm_state >"$T/now"
check "swp1 back as it began" cmp -s "$start" "$T/now"

step "what a __u16 of bits cannot hold is refused with the longest cable that fits"
policy "$T/long.json" '{ "pfc": { "priorities": [3], "cable_length_m": 100 } }'
rc=0; A apply "$T/long.json" 2>"$T/err" || rc=$?
check "exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "the reason" grep -q "101011 bits of delay at 100000 Mb/s; mlxsw takes at most 65535 (struct ieee_pfc.delay is a __u16: 64 m at this speed)" "$T/err"
nm_state >"$T/now"
check "nothing was changed" cmp -s "$start" "$T/now"

step "TC headroom mode (a root qdisc offloaded): only the lossless priority in a lossless buffer"
nm_ctl qdisc swp1 root >/dev/null
nm_ctl qdisc swp2 root >/dev/null
nm_ctl qdisc swp3 root >/dev/null
nm_state >"$start"
check "every priority fills buffer 0, sized at 2 x MTU: PFC there would make all traffic lossless" \
        grep -q "headroom tc .* buf_idx 0,0,0,0,0,0,0,0 lossless 0x00 size 3168," "$start"
policy "$T/nobuf.json" '{ "pfc": { "priorities": [3], "cable_length_m": 40 } }'
rc=0; A apply "$T/nobuf.json" 2>"$T/err" || rc=$?
check "without spec.buffers: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "the reason and the way" grep -q "lossy priority 0 would share buffer 0 with PFC priority 3 on the port's buffer map in TC headroom mode (mlxsw_sp_dcbnl_getbuffer()).*declare spec.buffers with the PFC priorities in a buffer of their own; nothing was changed" "$T/err"
nm_state >"$T/now"
check "nothing was changed" cmp -s "$start" "$T/now"
policy "$T/buffers.json" '{ "pfc": { "priorities": [3], "cable_length_m": 40 },
  "buffers": { "prio_to_buffer": [0, 0, 0, 1, 0, 0, 0, 0], "buffer_size_bytes": [3168, 67680, 0, 0, 0, 0, 0, 0] } }'
expect_rc 0 "apply" A apply "$T/buffers.json"
nm_state >"$T/now"
check "priority 3 alone in lossless buffer 1, as sized" test "$(grep -c 'buf_idx 0,0,0,1,0,0,0,0 lossless 0x02 size 3168,67680,' "$T/now")" = 2
expect_rc 0 "no drift" A drift
expect_rc 0 "rollback" A rollback
nm_state >"$T/now"
cmp -s "$start" "$T/now" || { diff -u "$start" "$T/now"; fail "rollback: the model did not end where it began"; }
echo "ok: rollback: map, sizes, delay and PFC byte-for-byte where they began"

step "a lossless buffer below the calculator's headroom is refused with both numbers"
policy "$T/small.json" '{ "pfc": { "priorities": [3], "cable_length_m": 40 },
  "buffers": { "prio_to_buffer": [0, 0, 0, 1, 0, 0, 0, 0], "buffer_size_bytes": [3168, 43200, 0, 0, 0, 0, 0, 0] } }'
rc=0; A apply "$T/small.json" 2>"$T/err" || rc=$?
check "exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "both numbers" grep -q "buffer 1 holds lossless priorities 3, and mlxsw will reserve 43200 bytes for it, below the 63488 bytes of headroom this port needs (spectrum2 at 100000 Mb/s, 40 m, mtu 1500" "$T/err"
nm_state >"$T/now"
check "nothing was changed" cmp -s "$start" "$T/now"

step "an 8-lane port (swp3, 400G) splits a set size over two buffers: each half must hold the calculator's size"
# lanes from the port's link modes (400000baseCR8: ETHTOOL_GLINKSETTINGS); the calculator at 400G, 8 lanes,
# 10 m, mtu 1500 asks 124928 bytes, so each of the two buffers needs them: 249856 set (1736 cells, 249984).
policy "$T/x8-small.json" '{ "pfc": { "priorities": [3], "cable_length_m": 10 },
  "buffers": { "prio_to_buffer": [0, 0, 0, 1, 0, 0, 0, 0], "buffer_size_bytes": [6336, 124992, 0, 0, 0, 0, 0, 0] } }' swp3
rc=0; A apply "$T/x8-small.json" 2>"$T/err" || rc=$?
check "the calculator's size, not doubled: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "the reason" grep -q "interface 'swp3'.*buffer 1 holds lossless priorities 3, and mlxsw will reserve 124992 bytes for it split over two buffers of an 8-lane port (mlxsw_sp_port_headroom_8x_adjust()), below the 124928 bytes of headroom this port needs (spectrum2 at 400000 Mb/s, 10 m, mtu 1500.*at least 249856 bytes (an 8-lane port splits it in two)" "$T/err"
nm_state >"$T/now"
check "nothing was changed" cmp -s "$start" "$T/now"
policy "$T/x8.json" '{ "pfc": { "priorities": [3], "cable_length_m": 10 },
  "buffers": { "prio_to_buffer": [0, 0, 0, 1, 0, 0, 0, 0], "buffer_size_bytes": [6336, 249984, 0, 0, 0, 0, 0, 0] } }' swp3
expect_rc 0 "twice the calculator's size: apply" A apply "$T/x8.json"
nm_state >"$T/now"
check "priority 3 alone in lossless buffer 1, as set" grep -q "headroom tc cell 144 8x .*buf_idx 0,0,0,1,0,0,0,0 lossless 0x02 size 6336,249984," "$T/now"
expect_rc 0 "no drift" A drift
expect_rc 0 "rollback" A rollback
nm_state >"$T/now"
cmp -s "$start" "$T/now" || { diff -u "$start" "$T/now"; fail "rollback: the model did not end where it began"; }
echo "ok: rollback: the 8-lane port byte-for-byte where it began"
