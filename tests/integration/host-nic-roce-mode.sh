#!/usr/bin/env bash
# Who rides the class on a ConnectX (mlx5 model) with rdma_cm's configfs: a policy that
# sets roce_tos for a DSCP-trusting host and no nccl gets the plan's note that NCCL
# will not follow it; with nccl.ib_tc "auto" NCCL's file is planned to the same
# traffic class; and on a port rdma_cm keeps on RoCE v1 (cma_configfs.c
# default_roce_mode "IB/RoCE v1": no IP header, no DSCP) roce_tos is refused, exit 2,
# naming the port, with nothing touched (rdma_cm's value, NCCL's file, the model).
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/agent.sh"
. "$NETTUNE_TOP/tests/lib/nicmodel.sh"
require_root
require_cmd python3

ns=$(netns_add nmr)
nicmodel_start mlx5:ens1f0np0:4
dev=$(ls "$T/sys/class/infiniband" | head -1)
[ -n "$dev" ] || fail "the model shows no RDMA device"
cm=$T/cfg/rdma_cm/$dev/ports/1
mkdir -p "$cm"
echo 0 >"$cm/default_roce_tos"
echo "RoCE v2" >"$cm/default_roce_mode"        # cma.c cma_add_one(): RoCE v2 where the device has it
nccl_conf_start "$T/nccl.conf"
cat >"$T/a.json" <<JSON
{ "state_dir": "$T/state", "sysfs_root": "$T/sys", "configfs_root": "$T/cfg", "nccl_conf": "$T/nccl.conf" }
JSON
A() { NETTUNE_NETLINK_SOCKET=$NM_SOCK NETTUNE_ETHTOOL_SOCKET=$NM_ETHTOOL ip netns exec "$ns" "$AGENT" --config "$T/a.json" "$@"; }
policy() {      # policy FILE EXTRA-SPEC-JSON
        cat >"$1" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "class" },
  "checks": { "allow": ["host_ecn_priority_mismatch"] },
  "targets": { "interfaces": ["ens1f0np0"] },
  "spec": { "trust": "dscp", "dscp_to_priority": { "26": 3 }, "pfc": { "priorities": [3] }, "roce_tos": 106 $2 } }
JSON
}
nm_wait_settled
nm_state >"$T/start"
cp "$T/nccl.conf" "$T/nccl.start"

step "roce_tos without nccl: the plan says NCCL will not follow it"
policy "$T/tos.json" ""
A plan "$T/tos.json" >"$T/plan.txt"
cat "$T/plan.txt"
check "roce_tos is planned on the port" grep -q "roce_tos.$dev/1: 0 -> 106" "$T/plan.txt"
check "the note names NCCL_IB_TC and nccl.ib_tc" \
        grep -q "^note: NCCL will not follow roce_tos 106: it builds its RoCE connections with verbs, not rdma_cm, .*declare nccl.ib_tc" "$T/plan.txt"

step "nccl.ib_tc auto: NCCL's file planned to the same class, no note"
policy "$T/nccl.json" ', "nccl": { "ib_tc": "auto", "ib_sl": 3 }'
A plan "$T/nccl.json" >"$T/plan2.txt"
cat "$T/plan2.txt"
check "NCCL_IB_TC planned from its first line (0) to 106" grep -q "nccl.ib_tc: 0 -> 106" "$T/plan2.txt"
check "NCCL_IB_SL planned from unset to 3" grep -q "nccl.ib_sl: unset -> 3" "$T/plan2.txt"
check "no NCCL note" sh -c "! grep -q 'NCCL will not follow' '$T/plan2.txt'"
A --output json state --interfaces ens1f0np0 >"$T/state.json"
check "state shows the port's RoCE mode and NCCL's file" python3 - "$T/state.json" "$dev" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["interfaces"][0]["state"]
assert s["roce_ports"][sys.argv[2] + "/1"]["default_roce_mode"] == "RoCE v2", s
assert s["nccl"]["ib_tc"] == 0 and s["nccl"]["file"]["lines"]["NCCL_IB_TC"] == "NCCL_IB_TC=0", s["nccl"]
PY

step "apply and roll back: NCCL's file byte for byte"
expect_rc 0 "apply" A apply "$T/nccl.json"
check "rdma_cm's default ToS is 106" grep -qx 106 "$cm/default_roce_tos"
check "NCCL's file sets 106 and SL 3, the rest kept" cmp -s "$T/nccl.conf" \
        <(printf '# site NCCL settings\nNCCL_DEBUG=WARN\nNCCL_IB_TC=106\n#NCCL_IB_SL=1\nNCCL_IB_TC=96\nNCCL_SOCKET_IFNAME==ens1f0\nNCCL_IB_SL=3\n')
expect_rc 0 "rollback" A rollback
check "NCCL's file is back byte for byte (no final newline either)" cmp "$T/nccl.start" "$T/nccl.conf"
check "its mode too" test "$(stat -c %a "$T/nccl.conf")" = 640
check "rdma_cm's default ToS is 0 again" grep -qx 0 "$cm/default_roce_tos"

step "a port on RoCE v1: roce_tos refused, naming the port, nothing touched"
echo "IB/RoCE v1" >"$cm/default_roce_mode"
rc=0; A apply "$T/nccl.json" >"$T/v1.out" 2>"$T/v1.err" || rc=$?
cat "$T/v1.err"
check "apply exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "the error names the port and RoCE v1" \
        grep -q "interface 'ens1f0np0': RDMA port $dev/1 is on RoCE v1 (rdma_cm default_roce_mode 'IB/RoCE v1')" "$T/v1.err"
check "rdma_cm's default ToS untouched" grep -qx 0 "$cm/default_roce_tos"
check "NCCL's file untouched" cmp "$T/nccl.start" "$T/nccl.conf"
nm_state >"$T/now"
check "the model untouched" cmp "$T/start" "$T/now"
expect_rc 2 "plan refuses it too" A plan "$T/tos.json"
