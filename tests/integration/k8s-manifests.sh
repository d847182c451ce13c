#!/usr/bin/env bash
# The Kubernetes manifests of examples/kubernetes/ against the Kubernetes API's
# definitions of a named release (tests/data/kubernetes/openapi-release-1.22.json,
# its source in the README beside it): every document validates, a misspelled or a
# missing required field is refused; the agent runs as the DaemonSet it should be
# (hostNetwork, privileged with NET_ADMIN, /sys, configfs and debugfs from the host,
# mTLS from a Secret, agent.json with probe.allow from a ConfigMap, a liveness probe of
# `nettune-agent health`), the controller as serve replicas on etcd whose RBAC reads
# nodes and nothing else; the configurations the manifests carry load in the programs,
# and `nettune-agent health` tells a serving agent from a stopped one. No API server
# runs here (docs/operations.md, "Kubernetes").
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/integration/ctl-fleet.inc"
require_cmd python3
python3 -c 'import jsonschema, yaml' 2>/dev/null || skip "python3-jsonschema and python3-yaml are needed"
K=$NETTUNE_TOP/examples/kubernetes
SCHEMA=$NETTUNE_TOP/tests/data/kubernetes/openapi-release-1.22.json

# validate FILE...: every document of every file against its kind's definition
validate() { python3 - "$SCHEMA" "$@" <<'PY'
import json, sys, yaml, jsonschema
schema = json.load(open(sys.argv[1]))
bad = 0
for f in sys.argv[2:]:
    for i, doc in enumerate(yaml.safe_load_all(open(f))):
        if doc is None:
            continue
        ref = schema["kinds"].get(doc.get("kind"))
        if not ref:
            print("%s: document %d: kind %r is not in the schema" % (f, i, doc.get("kind"))); bad += 1; continue
        v = jsonschema.Draft4Validator({"$ref": ref, "definitions": schema["definitions"]})
        for e in sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            print("%s: %s %s: $.%s: %s" % (f, doc["kind"], doc["metadata"].get("name"),
                                           ".".join(str(p) for p in e.absolute_path), e.message)); bad += 1
sys.exit(1 if bad else 0)
PY
}

step "the manifests against the API of release-1.22"
check "namespace.yaml, agent.yaml, controller.yaml validate" validate "$K/namespace.yaml" "$K/agent.yaml" "$K/controller.yaml"
python3 - "$K/agent.yaml" "$T/typo.yaml" "$T/noname.yaml" <<'PY'
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
ds = docs[1]
ds["spec"]["template"]["spec"]["hostNetwrk"] = ds["spec"]["template"]["spec"].pop("hostNetwork")
yaml.safe_dump_all(docs, open(sys.argv[2], "w"))
docs = list(yaml.safe_load_all(open(sys.argv[1])))
del docs[1]["spec"]["template"]["spec"]["containers"][0]["name"]
yaml.safe_dump_all(docs, open(sys.argv[3], "w"))
PY
rc=0; validate "$T/typo.yaml" >"$T/out" || rc=$?
check "a misspelled field is refused (exit $rc)" [ "$rc" -eq 1 ]
check "naming it" grep -q "DaemonSet nettune-agent: \$.spec.template.spec: Additional properties are not allowed ('hostNetwrk' was unexpected)" "$T/out"
rc=0; validate "$T/noname.yaml" >"$T/out" || rc=$?
check "a container without its required name is refused (exit $rc)" [ "$rc" -eq 1 ] && grep -q "'name' is a required property" "$T/out"

step "what the DaemonSet and the controller are"
check "agent: hostNetwork, privileged, NET_ADMIN, the host's /sys, configfs, debugfs; TLS from a Secret; agent.json with probe.allow from a ConfigMap; liveness by nettune-agent health" python3 - "$K/agent.yaml" <<'PY'
import json, sys, yaml
cm, ds = list(yaml.safe_load_all(open(sys.argv[1])))
pod = ds["spec"]["template"]["spec"]
(c,) = pod["containers"]
assert pod["hostNetwork"] is True and c["securityContext"]["privileged"] is True
assert "NET_ADMIN" in c["securityContext"]["capabilities"]["add"]
vols = {v["name"]: v for v in pod["volumes"]}
mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
for path in ("/sys", "/sys/kernel/config", "/sys/kernel/debug"):
    assert vols[mounts[path]]["hostPath"]["path"] == path, path
assert vols[mounts["/etc/nettune/tls"]]["secret"]["secretName"] == "nettune-agent-tls"
assert vols[mounts["/etc/nettune/agent.json"]]["configMap"]["name"] == cm["metadata"]["name"]
cfg = json.loads(cm["data"]["agent.json"])
assert cfg["probe"]["allow"] and cfg["tls"]["cert"].startswith("/etc/nettune/tls/"), cfg
assert cfg["sysfs_root"] == "/sys" and cfg["configfs_root"] == "/sys/kernel/config" and cfg["debugfs_root"] == "/sys/kernel/debug"
assert c["livenessProbe"]["exec"]["command"] == ["nettune-agent", "--config", "/etc/nettune/agent.json", "health"]
assert c["command"] == ["nettune-agent", "serve", "--config", "/etc/nettune/agent.json"]
assert pod["nodeSelector"] == {"nettune.io/agent": "true"}
PY
check "controller: serve replicas on etcd; its RBAC reads nodes and nothing else" python3 - "$K/controller.yaml" <<'PY'
import json, sys, yaml
docs = {d["kind"]: d for d in yaml.safe_load_all(open(sys.argv[1]))}
dep, role, bind = docs["Deployment"], docs["ClusterRole"], docs["ClusterRoleBinding"]
assert dep["spec"]["replicas"] >= 2
(c,) = dep["spec"]["template"]["spec"]["containers"]
assert c["command"][-1] == "serve" and c["command"][:3] == ["nettunectl", "--config", "/etc/nettune/controller.json"]
cfg = json.loads(docs["ConfigMap"]["data"]["controller.json"])
assert cfg["store"].startswith("etcd://"), cfg
assert role["rules"] == [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]}], role
assert bind["roleRef"]["name"] == role["metadata"]["name"]
assert bind["subjects"] == [{"kind": "ServiceAccount", "name": dep["spec"]["template"]["spec"]["serviceAccountName"],
                             "namespace": dep["metadata"]["namespace"]}]
inv = dep["spec"]["template"]["spec"]["initContainers"][1]["command"]
assert inv[:3] == ["nettunectl", "inventory", "--from-kubernetes"], inv
PY

step "the configurations they carry load"
python3 - "$K/agent.yaml" "$K/controller.yaml" "$T" <<'PY'
import sys, yaml
a = list(yaml.safe_load_all(open(sys.argv[1])))[0]["data"]["agent.json"]
c = [d for d in yaml.safe_load_all(open(sys.argv[2])) if d["kind"] == "ConfigMap"][0]["data"]["controller.json"]
open(sys.argv[3] + "/agent.json", "w").write(a.replace("0.0.0.0:7440", "127.0.0.1:7440"))
open(sys.argv[3] + "/controller.json", "w").write(c)
PY
rc=0; "$AGENT" --config "$T/agent.json" health --timeout 2 >"$T/out" 2>&1 || rc=$?
check "agent.json loads (health: exit $rc, 3: nothing serves here; 2 would be a bad configuration)" [ "$rc" -eq 3 ]
check "and says where it asked" grep -q "the API at '127.0.0.1:7440' (asked at 127.0.0.1) does not accept connections" "$T/out"
rc=0; "$CTL" --config "$T/controller.json" --timeout 2 history >"$T/out" 2>&1 || rc=$?
check "controller.json loads (exit $rc, 3: no etcd here)" [ "$rc" -eq 3 ] && grep -q "etcd" "$T/out"

step "nettune-agent health against a real agent"
fleet_require
fleet_certs 1
fleet_hub
fleet_node 1
fleet_start_agent 1 2>>"$T/agents.log"
wait_for 20 agent_up 1 || fail "the agent did not come up (see $T/agents.log)"
rc=0; ip netns exec "$(node_ns 1)" "$AGENT" --config "$T/n1/agent.json" health >"$T/out" 2>&1 || rc=$?
check "serving: exit $rc" [ "$rc" -eq 0 ] && grep -q "^ok: the API at '.*' accepts connections" "$T/out"
kill "$AGENT_PID_1" && wait "$AGENT_PID_1" 2>/dev/null || true
rc=0; ip netns exec "$(node_ns 1)" "$AGENT" --config "$T/n1/agent.json" health --timeout 2 >"$T/out" 2>&1 || rc=$?
check "stopped: exit $rc" [ "$rc" -eq 3 ] && grep -q "does not accept connections" "$T/out"
