#!/usr/bin/env bash
# The examples and man pages match the programs: every example policy and profile
# validates (and a broken copy does not), the example agent and controller
# configurations and the inventory load (a broken copy of each is refused), the Grafana dashboard only
# queries metrics a live agent exports, the systemd units verify, and the man pages
# describe every subcommand and option that --help lists.
. "$NETTUNE_TOP/tests/lib/common.sh"
require_cmd python3 curl
[ -x "$AGENT" ] && [ -x "$CTL" ] || skip "'$AGENT' or '$CTL' is not built"
cd "$NETTUNE_TOP"

# Run in a namespace with only loopback when root: nothing can reach 192.0.2.x/10.x.
if [ "$(id -u)" -eq 0 ]; then
        ns=$(netns_add docs)
        isolated() { ip netns exec "$ns" "$@"; }
else
        isolated() { "$@"; }
fi
# rc_of CMD...: the exit status of CMD (stdout+stderr in $T/out).
rc_of() { local rc=0; "$@" >"$T/out" 2>&1 || rc=$?; echo "$rc"; }
# jedit IN OUT PYSTMT: a modified copy of a JSON file (d is the document).
jedit() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); exec(sys.argv[3]); json.dump(d, open(sys.argv[2], "w"))' "$@"; }

step "policies"
n=0
for f in examples/policies/*.json examples/policies/*.yaml policies/profiles/*.json policies/profiles/vendor/*.json; do
        expect_rc 0 "validate $f" "$AGENT" validate "$f"
        n=$((n + 1))
done
check "checked $n policies" [ "$n" -ge 8 ]
jedit examples/policies/lab-gpu-lossless.json "$T/bad-policy.json" 'd["spec"]["mtu"] = 9999'
expect_rc 2 "a policy with mtu 9999 is refused" "$AGENT" validate "$T/bad-policy.json"
sed 's/^  mtu: 9000$/  mtu: 9999/' examples/policies/roce-lossless.yaml >"$T/bad-policy.yaml"
rc=$(rc_of "$AGENT" validate "$T/bad-policy.yaml")
check "a YAML policy with mtu 9999 is refused (exit $rc)" [ "$rc" -eq 2 ]
check "naming the line, the column and the JSON path" grep -q "bad-policy.yaml:[0-9]*:[0-9]*: \$.spec.mtu: mtu 9999 out of range" "$T/out"
cat >"$T/same.py" <<'PY'
import json, sys, yaml
a = json.load(open(sys.argv[1]))
b = yaml.safe_load(open(sys.argv[2]))
b["spec"]["dscp_to_priority"] = {str(k): v for k, v in b["spec"]["dscp_to_priority"].items()}
a["verify"].pop("message_size", None); a["verify"].pop("min_gbps", None); a.pop("commit", None)   # the defaults
sys.exit(0 if a == b else "differ: %s" % [k for k in a if a[k] != b.get(k)])
PY
check "examples/policies/roce-lossless.yaml is the JSON profile" python3 "$T/same.py" \
        policies/profiles/roce-lossless.json examples/policies/roce-lossless.yaml

step "agent configuration"
cp examples/agent.json "$T/agent.json"
rc=$(rc_of isolated "$AGENT" --config "$T/agent.json" state --interfaces lo)
cat "$T/out"
check "examples/agent.json loads (exit $rc: 0, or 3 because its switch is unreachable here)" test "$rc" -eq 0 -o "$rc" -eq 3
check "state read lo with it" grep -q "^interface 'lo'" "$T/out"
jedit examples/agent.json "$T/bad-agent.json" 'd["probe"]["listn"] = d["probe"]["listen"]'
rc=$(rc_of "$AGENT" --config "$T/bad-agent.json" state --interfaces lo)
check "a config with an unknown key is refused (exit $rc)" [ "$rc" -eq 2 ]
check "naming the JSON path and the key" grep -q "probe: unknown key 'listn'" "$T/out"
cp examples/agent-switch.json "$T/agent-switch.json"
rc=$(rc_of isolated "$AGENT" --config "$T/agent-switch.json" state --interfaces lo --no-switches)
cat "$T/out"
check "examples/agent-switch.json loads (exit $rc)" [ "$rc" -eq 0 ]
check "in the switch role, ecn is a field of the ports (supported or said unsupported)" \
        grep -q "^  ecn: \|^  unsupported here:.*ecn" "$T/out"

step "inventory"
rc=$(rc_of "$CTL" --inventory examples/inventory.json --db "$T/ctl.db" plan examples/policies/lab-gpu-lossless.json)
check "without its certificate files the inventory is refused before any node is tried (exit $rc)" [ "$rc" -eq 2 ]
check "naming the TLS file" grep -q "examples/inventory.json: \$.tls.ca: cannot read" "$T/out"
. "$NETTUNE_TOP/tests/lib/certs.sh"
make_certs "$T/inv" >/dev/null || fail "cannot make test certificates"
cp examples/inventory.json "$T/inv/inventory.json"
rc=$(rc_of isolated "$CTL" --inventory "$T/inv/inventory.json" --db "$T/ctl.db" --timeout 2 plan examples/policies/lab-gpu-lossless.json)
cat "$T/out"
check "examples/inventory.json with certificates: the nodes are tried (exit $rc, 3: unreachable here)" [ "$rc" -eq 3 ]
check "the selector role=gpu picks the four gpu nodes" grep -q "^plan: 4 nodes selected" "$T/out"
jedit examples/inventory.json "$T/bad-inv.json" 'd["nodes"][1]["url"] = "http://10.0.0.2:7440"'
rc=$(rc_of "$CTL" --inventory "$T/bad-inv.json" --db "$T/ctl.db" plan examples/policies/mtu-9000.json)
check "an inventory with an http:// URL is refused (exit $rc)" [ "$rc" -eq 2 ]
check "naming the JSON path" grep -q 'nodes\[1\].url' "$T/out"

step "controller configuration"
rc=$(rc_of "$CTL" --config examples/controller.json --store "sqlite:$T/cfg.db" history)
check "examples/controller.json loads (exit $rc)" [ "$rc" -eq 0 ]
jedit examples/controller.json "$T/bad-controller.json" 'd["serve"]["lease_ttl_s"] = 1'
rc=$(rc_of "$CTL" --config "$T/bad-controller.json" history)
check "a lease TTL of 1 s is refused (exit $rc)" [ "$rc" -eq 2 ]
check "naming the JSON path" grep -q 'serve.lease_ttl_s' "$T/out"
jedit examples/controller.json "$T/bad-controller.json" 'd["store"] = "redis://x/y"'
rc=$(rc_of "$CTL" --config "$T/bad-controller.json" history)
check "an unknown kind of store is refused (exit $rc)" [ "$rc" -eq 2 ]

step "grafana dashboard"
port=$(free_port)
printf '{ "listen": "127.0.0.1:%s", "state_dir": "%s/state", "probe": { "listen": "127.0.0.1:%s" } }\n' \
        "$port" "$T" "$(free_port)" >"$T/serve.json"
bg "$AGENT" --config "$T/serve.json" serve --insecure-loopback
wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" || fail "agent did not serve /metrics"
curl -sf "http://127.0.0.1:$port/metrics" >"$T/metrics"
python3 - examples/grafana/nettune-agent-dashboard.json "$T/metrics" <<'PY' || fail "dashboard queries metrics the agent does not export"
import json, re, sys
d = json.load(open(sys.argv[1]))
exported = set(re.findall(r"^# TYPE (\S+)", open(sys.argv[2]).read(), re.M))
used = set()
for p in d["panels"]:
    assert p["targets"], "panel %r has no query" % p["title"]
    for t in p["targets"]:
        used |= set(re.findall(r"\bnettune_[a-z_]+", t["expr"]))
missing = used - exported
print("dashboard uses %d metrics: %s" % (len(used), ", ".join(sorted(used))))
sys.exit("not exported: %s" % ", ".join(sorted(missing)) if missing else 0)
PY
echo "ok: every metric of the dashboard is exported by the agent"

step "systemd units"
if command -v systemd-analyze >/dev/null; then
        mkdir -p "$T/units" "$T/man/man8"
        for m in docs/man/*.8; do ln -s "$NETTUNE_TOP/$m" "$T/man/man8/"; done
        for u in examples/systemd/*; do          # the units as make install writes them (BINDIR = $BUILD)
                sed "s|@bindir@|$BUILD|g" "$u" >"$T/units/$(basename "$u" .in)"
        done
        check "systemd-analyze verify" env MANPATH="$T/man" systemd-analyze verify "$T"/units/*
else
        echo "systemd-analyze is not installed: units not verified"
fi
check "agent unit runs serve --config" grep -q '^ExecStart=@bindir@/nettune-agent serve --config ' examples/systemd/nettune-agent.service.in
check "switch-role unit runs serve --config in the VRF, from @bindir@" \
        grep -q '^ExecStart=/usr/sbin/ip vrf exec mgmt @bindir@/nettune-agent serve --config ' examples/systemd/nettune-agent-switch.service.in
check "no unit names /usr/local" sh -c "! grep -l /usr/local examples/systemd/*"
check "controller unit runs serve --config" grep -q '^ExecStart=@bindir@/nettunectl --config .* serve$' examples/systemd/nettune-controller.service.in
check "drift unit uses options nettunectl has" sh -c "grep '^ExecStart=' examples/systemd/nettune-controller-drift.service.in | grep -o -- '--[a-z-]*' | while read -r o; do '$CTL' --help | grep -q -- \"\$o\" || exit 1; done"

step "man pages"
# options_of TEXT_FILE: the long options a help text names.
options_of() { grep -o -- '--[a-z][a-z-]*' "$1" | sort -u; }
man_text() { sed 's/\\-/-/g; s/\\f[BIRP]//g' "$1"; }
man_check() {   # man_check PROG MANPAGE HELPFILE...
        local prog=$1 page=$2 c o; shift 2
        [ -s "$page" ] || fail "$page is missing"
        man_text "$page" >"$T/man.txt"
        for c in $(sed -n '/^commands:/,/^$/p' "$T/help-$prog" | awk 'NR > 1 && NF {print $1}'); do
                grep -q "^\.SS $c\b\|^\.SS \"$c\b" "$page" || fail "$page has no section for '$prog $c'"
        done
        for o in $(cat "$@" | options_of /dev/stdin); do
                grep -q -- "$o" "$T/man.txt" || fail "$page does not mention '$o'"
        done
        if command -v groff >/dev/null; then
                groff -man -ww -z "$page" 2>"$T/groff.err"
                [ ! -s "$T/groff.err" ] || { cat "$T/groff.err"; fail "$page: groff warnings"; }
        fi
        echo "ok: $page covers every command and option of $prog --help"
}
"$AGENT" --help >"$T/help-agent"
for c in $(sed -n '/^commands:/,/^$/p' "$T/help-agent" | awk 'NR > 1 && NF {print $1}'); do
        "$AGENT" "$c" --help >"$T/help-agent-$c" 2>&1 || true
done
man_check agent docs/man/nettune-agent.8 "$T"/help-agent*
"$CTL" --help >"$T/help-ctl"
for c in $(sed -n '/^commands:/,/^$/p' "$T/help-ctl" | awk 'NR > 1 && NF {print $1}'); do
        "$CTL" "$c" --help >"$T/help-ctl-$c" 2>&1 || true
done
man_check ctl docs/man/nettunectl.8 "$T"/help-ctl*
