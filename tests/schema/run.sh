#!/usr/bin/env bash
# Schema tier: policies/schema.json (JSON Schema 2020-12, for editors) must agree
# with `nettune-agent validate` and with docs/policy-reference.md:
#   - every profile and example policy (JSON or YAML) passes both the schema and the agent;
#   - every valid golden policy passes the schema;
#   - every invalid golden case is rejected by the schema too, unless the case
#     holds a `schema-accepts` marker (a rule the schema cannot state), and then
#     the schema must accept it, so the marker stays honest;
#   - every schema member has a row in the reference with the same range/default.
# Prints PASS/FAIL/SKIP per case.
set -uo pipefail

cd "$(dirname "$0")/../.."
top=$PWD
build=${BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
agent=$build/nettune-agent
schema=$top/policies/schema.json
check=$top/tests/schema/check.py
data=$top/tests/data/policies

if ! python3 -c 'import jsonschema' 2>/dev/null; then
        echo "SKIP schema: python3-jsonschema not installed"
        exit 0
fi
if [ ! -x "$agent" ]; then
        echo "FAIL schema: $agent not built"
        exit 1
fi
failed=0
work=$(mktemp -d /tmp/nettune-schema.XXXXXX)
trap 'rm -rf "$work"' EXIT

# verdict FILE: "accept" or "reject<TAB>why", from one batch run of check.py
declare -A verdict
load_verdicts() {
        local file v why
        while IFS=$'\t' read -r file v why; do
                verdict[$file]="$v${why:+: $why}"
        done < <(python3 "$check" validate "$schema" "$@")
}

files=("$top"/policies/profiles/*.json "$top"/policies/profiles/vendor/*.json "$top"/examples/policies/*.json "$data"/valid/*.json)
if python3 -c 'import yaml' 2>/dev/null; then
        files+=("$top"/examples/policies/*.yaml "$data"/valid/*.yaml)
else
        echo "SKIP schema/yaml: python3-yaml not installed (the YAML documents are not checked)"
fi
invalid=()
for dir in "$data"/invalid/*/; do
        dir=${dir%/}
        if [ -f "$dir/policy.json" ]; then
                invalid+=("$dir/policy.json")
        elif [ -f "$dir/policy.yaml" ]; then
                python3 -c 'import yaml' 2>/dev/null && invalid+=("$dir/policy.yaml")
        elif [ -x "$dir/generate" ]; then
                mkdir -p "$work/$(basename "$dir")"
                "$dir/generate" > "$work/$(basename "$dir")/policy.json"
                invalid+=("$work/$(basename "$dir")/policy.json")
        fi
done
if ! load_verdicts "${files[@]}" "${invalid[@]}"; then
        echo "FAIL schema/meta: policies/schema.json is not a valid JSON Schema"
        exit 1
fi
echo "PASS schema/meta"

for f in "${files[@]}"; do
        name=${f#"$top"/}
        v=${verdict[$f]:-missing}
        if [ "$v" != accept ]; then
                echo "FAIL $name: schema: $v"
                failed=1
                continue
        fi
        case $name in tests/*) echo "PASS $name"; continue ;; esac
        if out=$("$agent" validate "$f" 2>&1); then
                echo "PASS $name"
        else
                echo "FAIL $name: nettune-agent validate: $out"
                failed=1
        fi
done

for f in "${invalid[@]}"; do
        name=$(basename "$(dirname "$f")")
        dir=$data/invalid/$name
        v=${verdict[$f]:-missing}
        if [ -f "$dir/schema-accepts" ]; then
                if [ "$v" = accept ]; then
                        echo "PASS invalid/$name (schema cannot express it; validator rejects)"
                else
                        echo "FAIL invalid/$name: marked schema-accepts but the schema rejects it ($v); drop the marker"
                        failed=1
                fi
        elif [ "${v%%:*}" = reject ]; then
                echo "PASS invalid/$name"
        else
                echo "FAIL invalid/$name: the schema accepts it; tighten policies/schema.json or add a schema-accepts marker"
                failed=1
        fi
done

while IFS=$'\t' read -r path v why; do
        if [ "$v" = ok ]; then
                echo "PASS docs/$path"
        else
                echo "FAIL docs/$path: $why"
                failed=1
        fi
done < <(python3 "$check" docs "$schema" "$top/docs/policy-reference.md")
exit $failed
