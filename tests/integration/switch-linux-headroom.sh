#!/usr/bin/env bash
# A Linux switch (mlxsw Spectrum-2 ports, the nicmodel's mlxsw) in the agent's switch
# role: pfc.cable_length_m becomes the PFC delay in bits (the cable's round trip at the
# port speed), read back as metres; with a root qdisc offloaded (TC headroom mode, where
# every priority fills buffer 0 and the delay sizes nothing) spec.buffers maps the
# lossless priority to a buffer of its own, sized by the calculator; apply, read back,
# drift and roll back with the model byte-for-byte where it began; what mlxsw cannot
# hold or would change is refused before anything is written.
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
nicmodel_start mlxsw:swp1:11 mlxsw:swp2:12
cat >"$T/a.json" <<JSON
{ "role": "switch", "state_dir": "$T/state", "sysfs_root": "$T/sys", "settle_ms": 10000, "flap_wait_ms": 1000,
  "rdma_wait_ms": 10000 }
JSON
A() { NETTUNE_NETLINK_SOCKET=$NM_SOCK ip netns exec "$ns" "$AGENT" --config "$T/a.json" "$@"; }
policy() {      # policy FILE SPEC
        cat >"$1" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "lossless-ports" },
  "targets": { "interfaces": ["swp*"] }, "spec": $2 }
JSON
}
start=$T/start
nm_state >"$start"

step "DCB headroom mode: the cable length is the PFC delay in bits"
policy "$T/cable.json" '{ "pfc": { "priorities": [3], "cable_length_m": 40 } }'
expect_rc 0 "apply" A apply "$T/cable.json"
nm_state >"$T/now"
# 2 * 40 m * 100 Gb/s / 1.98e8 m/s = 40404.04 bits -> 40405
check "both ports hold 40405 bits" test "$(grep -c 'pfc en 0x08 delay 40405 bits (5051 bytes)' "$T/now")" = 2
check "buffer 0 (every priority) sized by the driver: 2 MTU + 2 delay + MTU in cells" \
        grep -q "buf_idx 0,0,0,0,0,0,0,0 lossless 0x01 size 15120," "$T/now"
A --output json state >"$T/state.json"
check "state reads 40 m back, and the raw delay" python3 - "$T/state.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for i in d["interfaces"]:
    s = i.get("state", i)
    assert s["pfc"]["cable_length_m"] == 40, s
    assert s["dcb_device"]["pfc_delay"] == 40405, s
PY
expect_rc 0 "no drift" A drift
expect_rc 0 "rollback" A rollback
nm_state >"$T/now"
cmp -s "$start" "$T/now" || { diff -u "$start" "$T/now"; fail "rollback: the model did not end where it began"; }
echo "ok: rollback: the model is byte-for-byte where it began"

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
nm_state >"$start"
check "every priority fills buffer 0, sized at 2 x MTU: PFC there would make all traffic lossless" \
        grep -q "headroom tc .* buf_idx 0,0,0,0,0,0,0,0 lossless 0x00 size 3168," "$start"
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
check "both numbers" grep -q "buffer 1 of 43200 bytes holds lossless priority 3, below the 63488 bytes of headroom this port needs (spectrum2 at 100000 Mb/s, 40 m, mtu 1500" "$T/err"
nm_state >"$T/now"
check "nothing was changed" cmp -s "$start" "$T/now"
