#!/usr/bin/env bash
# nettunectl inventory --from-kubernetes: recorded `kubectl get nodes -o json` outputs
# (tests/data/kubernetes/nodes, each with its source) become inventories that load as
# a hand-written one does; the odd ones (no InternalIP, IPv6 only, dual stack, 5,000
# nodes) are handled, nodes without the agent's label are left out by name, and broken
# ones are refused naming the node, with nothing written.
. "$NETTUNE_TOP/tests/lib/common.sh"
require_cmd python3
D=$NETTUNE_TOP/tests/data/kubernetes/nodes
INV() { "$CTL" inventory "$@"; }
# edit IN OUT PYSTMT: a changed copy of a node list (d: the document, n: its first node)
edit() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n=d["items"][0]; exec(sys.argv[3]); json.dump(d, open(sys.argv[2], "w"))' "$@"; }
# loads FILE: the inventory loads as --inventory does (nettunectl's own reader)
loads() { python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"tls", "nodes"} and d["nodes"], d
PY
}
# agent FILE OUT: every node of FILE labelled nettune.io/agent=true
agent() { edit "$1" "$2" 'for x in d["items"]: x["metadata"]["labels"]["nettune.io/agent"] = "true"'; }

step "the recorded outputs"
agent "$D/eks-1.16.json" "$T/eks.json"
INV --from-kubernetes "$T/eks.json" --label-prefix kubernetes.io/ --label-prefix nettune.io/ --out "$T/eks-inv.json" >"$T/out"
check "written and said so" grep -q "inventory: 1 nodes written to '$T/eks-inv.json'" "$T/out"
check "EKS: name, InternalIP URL, the labels of both prefixes" python3 - "$T/eks-inv.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tls"] == {"ca": "ca.crt", "cert": "controller.crt", "key": "controller.key"}, d
(n,) = d["nodes"]
assert n["name"] == "ip-10-0-105-29.us-east-2.compute.internal" and n["url"] == "https://10.0.105.29:7440", n
assert n["labels"] == {"kubernetes.io/arch": "amd64", "kubernetes.io/hostname": "ip-10-0-105-29.us-east-2.compute.internal",
                       "kubernetes.io/os": "linux", "nettune.io/agent": "true"}, n
PY
. "$NETTUNE_TOP/tests/lib/certs.sh"
make_certs "$T/inv" >/dev/null || fail "cannot make test certificates"
cp "$T/eks-inv.json" "$T/inv/inventory.json"
rc=0; "$CTL" --inventory "$T/inv/inventory.json" --timeout 1 state --selector nettune.io/agent=true >"$T/state.txt" 2>&1 || rc=$?
cat "$T/state.txt"
check "nettunectl reads it as its inventory: the node is asked (exit $rc, 3: unreachable from this namespace)" [ "$rc" -eq 3 ]
check "by its name" grep -q "ip-10-0-105-29.us-east-2.compute.internal" "$T/state.txt"
agent "$D/doks-1.18.json" "$T/doks.json"
INV --from-kubernetes - --all-labels --url-template 'https://{name}.nodes.example:8443' <"$T/doks.json" >"$T/doks-inv.json"
check "DOKS from stdin: the InternalIP after the Hostname; a template with {name}; every label" python3 - "$T/doks-inv.json" <<'PY'
import json, sys
(n,) = json.load(open(sys.argv[1]))["nodes"]
assert n["url"] == "https://pool-un5t2n2gp-8b870.nodes.example:8443", n
assert len(n["labels"]) == 15 and n["labels"]["doks.digitalocean.com/node-pool"] == "pool-un5t2n2gp", n
PY
INV --from-kubernetes "$T/doks.json" --address-type ExternalIP >"$T/ext.json"
check "--address-type ExternalIP" grep -q '"url": "https://167.99.121.123:7440"' "$T/ext.json"
INV --from-kubernetes "$T/doks.json" --agent-label nettune.io/agent=true >"$T/v.json"
check "--agent-label KEY=VALUE selects by value" grep -q pool-un5t2n2gp-8b870 "$T/v.json"

step "nodes without the agent's label are left out, by name"
python3 - "$D/eks-1.16.json" "$D/doks-1.18.json" "$T/two.json" <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
a["items"][0]["metadata"]["labels"]["nettune.io/agent"] = "true"
a["items"].append(b["items"][0])
json.dump(a, open(sys.argv[3], "w"))
PY
INV --from-kubernetes "$T/two.json" >"$T/two-inv.json" 2>"$T/err"
check "one node in the inventory" [ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["nodes"]))' "$T/two-inv.json")" = 1 ]
check "the other named" grep -q "1 node of 2 left out (no label 'nettune.io/agent'): 'pool-un5t2n2gp-8b870'" "$T/err"
rc=0; INV --from-kubernetes "$D/doks-1.18.json" >"$T/none.json" 2>"$T/err" || rc=$?
check "none labelled: exit $rc, the label named" [ "$rc" -eq 2 ] && grep -q "none of its 1 nodes carries the agent's label 'nettune.io/agent'" "$T/err"

step "odd ones"
edit "$T/doks.json" "$T/noip.json" 'n["status"]["addresses"] = [a for a in n["status"]["addresses"] if a["type"] != "InternalIP"]'
rc=0; INV --from-kubernetes "$T/noip.json" >"$T/o" 2>"$T/err" || rc=$?
check "no InternalIP: refused (exit $rc), nothing printed" [ "$rc" -eq 2 ] && [ ! -s "$T/o" ]
check "naming the node and the types it has" grep -q "\$.items\[0\] (node 'pool-un5t2n2gp-8b870'): no InternalIP address (it has: Hostname, ExternalIP); choose another with --address-type" "$T/err"
INV --from-kubernetes "$T/noip.json" --address-type Hostname --url-template 'https://{address}:7440' >"$T/h.json"
check "--address-type Hostname takes the name" grep -q '"url": "https://pool-un5t2n2gp-8b870:7440"' "$T/h.json"
edit "$T/eks.json" "$T/v6.json" 'n["status"]["addresses"] = [{"type": "InternalIP", "address": "fd00:10:0:105::29"}, {"type": "Hostname", "address": n["metadata"]["name"]}]'
INV --from-kubernetes "$T/v6.json" >"$T/v6-inv.json"
check "IPv6 only: the address in brackets" grep -q '"url": "https://\[fd00:10:0:105::29\]:7440"' "$T/v6-inv.json"
edit "$T/eks.json" "$T/ds.json" 'n["status"]["addresses"] = [{"type": "Hostname", "address": "k8s-linuxpool1-34450317-0"}, {"type": "InternalIP", "address": "10.0.0.5"}, {"type": "InternalIP", "address": "fe80::5054:ff:fe12:3456"}]'
INV --from-kubernetes "$T/ds.json" >"$T/ds-inv.json"
check "dual stack: the first InternalIP" grep -q '"url": "https://10.0.0.5:7440"' "$T/ds-inv.json"
python3 - "$T/eks.json" "$T/big.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1])); n = d["items"][0]; d["items"] = []
for i in range(5000):
    x = copy.deepcopy(n)
    name = "gpu%04d.cluster.example" % i
    x["metadata"]["name"] = name
    x["metadata"]["labels"]["kubernetes.io/hostname"] = name
    x["metadata"]["labels"]["nettune.io/rack"] = "r%02d" % (i // 64)
    x["status"]["addresses"][0]["address"] = "10.%d.%d.%d" % (i >> 16, (i >> 8) & 255, i & 255)
    if i % 10 == 9:
        del x["metadata"]["labels"]["nettune.io/agent"]     # every tenth runs no agent
    d["items"].append(x)
json.dump(d, open(sys.argv[2], "w"))
PY
INV --from-kubernetes "$T/big.json" --label-prefix nettune.io/ --out "$T/big-inv.json" >/dev/null 2>"$T/err"
check "5,000 nodes: 4,500 with the agent, every one its own address and rack" python3 - "$T/big-inv.json" <<'PY'
import json, sys
nodes = json.load(open(sys.argv[1]))["nodes"]
assert len(nodes) == 4500 and len({n["url"] for n in nodes}) == 4500, len(nodes)
assert nodes[-1] == {"name": "gpu4998.cluster.example", "url": "https://10.0.19.134:7440",
                     "labels": {"nettune.io/agent": "true", "nettune.io/rack": "r78"}}, nodes[-1]
PY
check "the 500 left out counted, the first named" grep -q "500 nodes of 5000 left out (no label 'nettune.io/agent'): 'gpu0009.cluster.example'" "$T/err"

step "broken ones: refused naming the node, nothing written"
# refused CASE PYSTMT WANT [FLAGS...]: the edited EKS list is refused with WANT in the message
refused() {
        local name=$1 stmt=$2 want=$3 rc=0; shift 3
        edit "$T/eks.json" "$T/$name.json" "$stmt"
        rm -f "$T/$name-inv.json"
        INV --from-kubernetes "$T/$name.json" --out "$T/$name-inv.json" "$@" >/dev/null 2>"$T/err" || rc=$?
        check "$name: exit $rc, nothing written" [ "$rc" -eq 2 ] && [ ! -e "$T/$name-inv.json" ]
        check "$name: '$want'" grep -qF -- "$want" "$T/err"
}
refused no-name 'del n["metadata"]["name"]' "\$.items[0]: the node has no metadata.name"
refused no-addresses 'del n["status"]["addresses"]' "(node 'ip-10-0-105-29.us-east-2.compute.internal'): status.addresses is missing"
refused long-name 'n["metadata"]["name"] = "n" * 70' "\$.items[0] (node '$(printf 'n%.0s' {1..70})'), as the inventory's \$.nodes[0].name"
refused duplicate 'd["items"].append(json.loads(json.dumps(n)))' "\$.items[1] (node 'ip-10-0-105-29.us-east-2.compute.internal'), as the inventory's \$.nodes[1].name: duplicate node name"
refused too-many-labels 'n["metadata"]["labels"].update({"x%d" % i: "y" for i in range(40)})' \
        "(node 'ip-10-0-105-29.us-east-2.compute.internal'), as the inventory's \$.nodes[0].labels: expected at most 32 labels" --all-labels
refused not-nodes 'd["kind"] = "PodList"' "expected the output of 'kubectl get nodes -o json' (kind List or NodeList with 'items'), found kind 'PodList'"
refused a-pod 'n["kind"] = "Pod"' "(node 'ip-10-0-105-29.us-east-2.compute.internal'): kind 'Pod' is not a Node"
printf '{"kind": "List", "items": [' >"$T/trunc.json"
rc=0; INV --from-kubernetes "$T/trunc.json" >/dev/null 2>"$T/err" || rc=$?
check "truncated JSON: exit $rc, FILE:LINE:COL" [ "$rc" -eq 2 ] && grep -q "trunc.json:1:" "$T/err"
