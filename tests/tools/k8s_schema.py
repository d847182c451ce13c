#!/usr/bin/env python3
"""Keep the Kubernetes API definitions nettune's manifests need as a JSON schema.

  k8s_schema.py MODELS_DIR OUT.json

MODELS_DIR is kubernetes/client/models of the Kubernetes Python client (Debian
bookworm's python3-kubernetes 22.6.0-2: `apt-get download python3-kubernetes`,
`dpkg -x`), which OpenAPI Generator made from the Kubernetes API's OpenAPI document
"release-1.22" (each model file says so). Each model's openapi_types and
attribute_map give a definition's properties and their types, and a setter that
refuses None marks a required property; the closure of what the manifests' kinds
reference is written, each definition strict (no property the API does not have:
what the API server's strict field validation refuses). Descriptions are left out.
"""
import glob, json, os, re, sys

ROOTS = {"Namespace": "V1Namespace", "ConfigMap": "V1ConfigMap", "ServiceAccount": "V1ServiceAccount",
         "DaemonSet": "V1DaemonSet", "Deployment": "V1Deployment", "ClusterRole": "V1ClusterRole",
         "ClusterRoleBinding": "V1ClusterRoleBinding"}


def load_models(d):
    models = {}
    for f in glob.glob(os.path.join(d, "*.py")):
        src = open(f).read()
        m = re.search(r"^class (\w+)\(object\):", src, re.M)
        t = re.search(r"openapi_types = \{(.*?)\n    \}", src, re.S)
        a = re.search(r"attribute_map = \{(.*?)\n    \}", src, re.S)
        if not m or not t or not a:
            continue
        types = dict(re.findall(r"'(\w+)': '([^']+)'", t.group(1)))
        names = dict(re.findall(r"'(\w+)': '([^']+)'", a.group(1)))
        required = re.findall(r"Invalid value for `(\w+)`, must not be `None`", src)
        version = re.search(r"The version of the OpenAPI document: (\S+)", src)
        models[m.group(1)] = (types, names, set(required), version.group(1) if version else "")
    return models


def schema_of(t, refs):
    if t in ("str", "datetime", "date"):
        return {"type": "string"}
    if t == "int":
        return {"type": "integer"}
    if t == "float":
        return {"type": "number"}
    if t == "bool":
        return {"type": "boolean"}
    if t == "object":           # IntOrString, RawExtension: either shape
        return {}
    m = re.fullmatch(r"list\[(.+)\]", t)
    if m:
        return {"type": "array", "items": schema_of(m.group(1), refs)}
    m = re.fullmatch(r"dict\(str, (.+)\)", t)
    if m:
        return {"type": "object", "additionalProperties": schema_of(m.group(1), refs)}
    refs.append(t)
    return {"$ref": "#/definitions/" + t}


def main(models_dir, out):
    models = load_models(models_dir)
    defs, todo, versions = {}, list(ROOTS.values()), set()
    while todo:
        name = todo.pop()
        if name in defs:
            continue
        types, names, required, version = models[name]
        versions.add(version)
        refs = []
        props = {names[k]: schema_of(v, refs) for k, v in sorted(types.items())}
        d = {"type": "object", "properties": props, "additionalProperties": False}
        if required:
            d["required"] = sorted(names[k] for k in required)
        defs[name] = d
        todo.extend(refs)
    doc = {"$comment": "Kubernetes API definitions of OpenAPI document %s, the closure of %s: made by "
                       "tests/tools/k8s_schema.py from Debian bookworm's python3-kubernetes 22.6.0-2 "
                       "(kubernetes/client/models); see tests/data/kubernetes/README.md" %
                       (", ".join(sorted(versions)), ", ".join(sorted(ROOTS))),
           "kinds": {k: "#/definitions/" + v for k, v in sorted(ROOTS.items())},
           "definitions": dict(sorted(defs.items()))}
    with open(out, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    print("%s: %d definitions (%s)" % (out, len(defs), ", ".join(sorted(versions))))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
