#!/usr/bin/env bash
# The switch role on this machine's real kernel, veth links in a namespace this test
# makes. A host-role agent never routes `ecn` to its interfaces: a host policy that
# carries `ecn` for its switches plans only its host fields and installs no qdisc. A
# switch-role agent routes `ecn` to its ports, and where the kernel has no
# sch_ets/sch_red (this one: found read-only) it refuses with the clear error, exit 2,
# nothing changed. Where the kernel has them the qdisc driver is tested in the VM tier
# (tests/vmlab/qdisc-cases.sh).
. "$NETTUNE_TOP/tests/lib/common.sh"
require_root
require_cmd ip tc
[ -x "$AGENT" ] || skip "agent not built ($AGENT)"

ns=$(netns_add swr)
a=sA$NT_ID b=sB$NT_ID
veth_pair "$ns" "$a" "$ns" "$b"
run() { ip netns exec "$ns" "$AGENT" "$@"; }
qdiscs() { ip netns exec "$ns" tc qdisc show dev "$a"; }
mtu_of() { ip -n "$ns" -o link show "$1" | sed -n 's/.* mtu \([0-9]*\) .*/\1/p'; }
printf '{ "state_dir": "%s/host" }\n' "$T" > "$T/host.json"
printf '{ "role": "switch", "state_dir": "%s/switch" }\n' "$T" > "$T/switch.json"
cat > "$T/policy.json" <<EOF
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "switch-role" },
  "targets": { "interfaces": ["$a"] },
  "spec": { "mtu": 9000,
            "ecn": { "queues": [3], "min_threshold_bytes": 150000, "max_threshold_bytes": 1500000 } },
  "verify": { "probe": "none" } }
EOF
before=$(qdiscs)

step "host role: ecn belongs to the switches, not to this interface"
run --config "$T/host.json" plan "$T/policy.json" > "$T/plan.txt" 2>&1
cat "$T/plan.txt"
check "plan shows only the mtu" grep -q "^1 change planned" "$T/plan.txt"
check "plan shows no ecn entry" sh -c "! grep -v '^note: ' '$T/plan.txt' | grep -q ecn"
check "plan says why ecn is left alone" grep -q "^note: ecn is a switch-port field" "$T/plan.txt"
expect_rc 0 "apply (host role)" run --config "$T/host.json" apply "$T/policy.json"
check "no qdisc was installed" test "$(qdiscs)" = "$before"
ip -n "$ns" link set "$a" mtu 1500

step "switch role: ecn goes to the port, and this kernel cannot do it"
rc=0
run --config "$T/switch.json" state --interfaces "$a" > "$T/state.txt" 2>&1 || rc=$?
cat "$T/state.txt"
check "state exits 0 ($rc)" [ "$rc" -eq 0 ]
if grep -q "^  ecn:" "$T/state.txt"; then
        skip "this kernel has sch_ets and sch_red: the refusal cannot be shown here (the VM tier tests the driver)"
fi
check "state lists ecn and ets as unsupported here" grep -q "^  unsupported here:.*ets.*ecn" "$T/state.txt"
rc=0
run --config "$T/switch.json" plan "$T/policy.json" > "$T/plan.txt" 2>&1 || rc=$?
cat "$T/plan.txt"
check "plan refuses: exit 2 ($rc)" [ "$rc" -eq 2 ]
check "naming the tc qdiscs and the field" \
        grep -q "interface '$a' (driver veth) does not support the tc qdiscs ets and red (kernel sch_ets, sch_red) (needed for ecn)" "$T/plan.txt"
rc=0
run --config "$T/switch.json" apply "$T/policy.json" > "$T/apply.txt" 2>&1 || rc=$?
cat "$T/apply.txt"
check "apply refuses: exit 2 ($rc)" [ "$rc" -eq 2 ]
check "nothing changed: mtu 1500" test "$(mtu_of "$a")" = 1500
check "nothing changed: qdiscs as before" test "$(qdiscs)" = "$before"
