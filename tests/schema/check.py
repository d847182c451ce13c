#!/usr/bin/env python3
"""Schema helper for tests/schema/run.sh.

  check.py validate SCHEMA FILE...   one line per file: "FILE<TAB>accept" or "FILE<TAB>reject<TAB>why"
  check.py docs SCHEMA DOC           one line per schema leaf: "PATH<TAB>ok" or "PATH<TAB>mismatch<TAB>why"

Documents are loaded strictly, like the agent does: UTF-8 only, no duplicate keys,
no NaN/Infinity; a FILE ending in .yaml or .yml is YAML (one document, no
aliases, no duplicate keys), read with python3-yaml.
"""
import json
import re
import sys

import jsonschema

try:
    import yaml
except ImportError:     # YAML files are then refused as unreadable: run.sh skips them
    yaml = None


def yaml_load(text):
    """One document; aliases and duplicate keys refused, as the agent does."""
    for ev in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(ev, yaml.AliasEvent):
            raise ValueError("YAML alias")

    class Strict(yaml.SafeLoader):
        pass

    def mapping(loader, node, deep=False):
        seen = set()
        for k, _ in node.value:
            key = loader.construct_object(k, deep=deep)
            if key in seen:
                raise ValueError("duplicate key %r" % key)
            seen.add(key)
        return {str(loader.construct_object(k, deep=deep)): loader.construct_object(v, deep=deep)
                for k, v in node.value}

    Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return yaml.load(text, Loader=Strict)


def strict_load(path):
    with open(path, 'rb') as f:
        text = f.read().decode('utf-8')
    if path.endswith(('.yaml', '.yml')):
        if yaml is None:
            raise ValueError("python3-yaml is not installed")
        return yaml_load(text)

    def no_dups(pairs):
        seen = {}
        for k, v in pairs:
            if k in seen:
                raise ValueError("duplicate key %r" % k)
            seen[k] = v
        return seen

    def no_const(name):
        raise ValueError("invalid literal %s" % name)

    return json.loads(text, object_pairs_hook=no_dups, parse_constant=no_const)


def validate(schema_path, files):
    schema = strict_load(schema_path)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    for path in files:
        try:
            doc = strict_load(path)
        except (ValueError, UnicodeDecodeError) + ((yaml.YAMLError,) if yaml else ()) as e:
            print("%s\treject\tnot readable: %s" % (path, str(e).splitlines()[0]))
            continue
        err = jsonschema.exceptions.best_match(validator.iter_errors(doc))
        if err is None:
            print("%s\taccept" % path)
        else:
            where = "$" + "".join("[%d]" % p if isinstance(p, int) else ".%s" % p for p in err.absolute_path)
            print("%s\treject\t%s: %s" % (path, where, err.message.splitlines()[0][:160]))


def leaves(node, path):
    """(path, schema) for every documented member: scalars and arrays of scalars."""
    props = node.get("properties", {})
    for key, sub in props.items():
        p = path + [key]
        if sub.get("type") == "object" and "properties" in sub:
            yield from leaves(sub, p)
        else:
            yield ".".join(p), sub


def describe_range(s):
    if "minimum" in s and "maximum" in s:
        return "%s-%s" % (s["minimum"], s["maximum"])
    if "enum" in s:
        return ", ".join(str(x) for x in s["enum"])
    if "const" in s:
        return str(s["const"])
    return None


def docs(schema_path, doc_path):
    schema = strict_load(schema_path)
    rows = {}
    with open(doc_path, encoding='utf-8') as f:
        for line in f:
            m = re.match(r"^\|\s*`([^`]+)`\s*\|([^|]*)\|([^|]*)\|([^|]*)\|", line)
            if m:
                rows[m.group(1)] = [c.strip() for c in m.groups()[1:]]
    for path, s in leaves(schema, []):
        if path not in rows:
            print("%s\tmismatch\tnot documented in a table row" % path)
            continue
        _, rng, default = rows[path]
        want = describe_range(s)
        got = rng.replace("–", "-").replace("`", "").replace('"', "")
        if want is not None and want != got:
            print("%s\tmismatch\tdocumented range '%s', schema says '%s'" % (path, rng, want))
            continue
        if "default" in s:
            d = json.dumps(s["default"]).strip('"')
            if default.replace("`", "").replace('"', "") != d:
                print("%s\tmismatch\tdocumented default '%s', schema says '%s'" % (path, default, d))
                continue
        print("%s\tok" % path)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "validate":
        validate(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 4 and sys.argv[1] == "docs":
        docs(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
