#!/usr/bin/env bash
# Golden tier: every tests/data/policies/invalid/<case>/policy.json (or policy.yaml)
# must be rejected by `nettune-agent validate` with exit code 2 and exactly the line
# in <case>/expected on stderr; every tests/data/policies/valid/*.json and *.yaml
# must pass.
# A case directory may hold an executable `generate` instead of policy.json
# (for documents too big to keep in git); its stdout becomes policy.json.
# The agent configuration likewise: every tests/data/config/invalid/<case>/
# (agent.json, the files it names, expected) must be refused by
# `nettune-agent --config agent.json validate` with exit 2 and exactly the line
# in expected (file names resolved against the case directory read "./NAME");
# every tests/data/config/valid/<case>/agent.json must pass.
# Doctor reports: every tests/data/doctor/<case>/facts.json judged offline
# (`nettune-agent doctor --facts`) must print exactly expected.txt (text),
# expected.json (--output json) and, where the case has one, write
# expected-proposal.json (--propose), with the exit code in expected.rc.
# Prints PASS/FAIL per case.
set -uo pipefail

cd "$(dirname "$0")/../.."
top=$PWD
build=${BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
agent=$build/nettune-agent
data=$top/tests/data/policies

if [ ! -x "$agent" ]; then
        echo "FAIL golden: $agent not built (run 'make BUILD=${BUILD:-build}')"
        exit 1
fi
work=$(mktemp -d /tmp/nettune-golden.XXXXXX)
trap 'rm -rf "$work"' EXIT

failed=0
fail() {
        echo "FAIL $1: $2"
        failed=1
}

run_invalid() {
        local dir=$1 name=$2 rc got want file=policy.json
        mkdir -p "$work/$name"
        if [ -x "$dir/generate" ]; then
                "$dir/generate" > "$work/$name/policy.json"
        elif [ -f "$dir/policy.yaml" ]; then
                file=policy.yaml
                cp "$dir/policy.yaml" "$work/$name/$file"
        else
                cp "$dir/policy.json" "$work/$name/policy.json"
        fi
        got=$(cd "$work/$name" && "$agent" validate "$file" 2>&1 >/dev/null)
        rc=$?
        want=$(cat "$dir/expected")
        if [ "$rc" -ne 2 ]; then
                fail "invalid/$name" "exit code $rc, expected 2 (stderr: $got)"
        elif [ "$got" != "$want" ]; then
                fail "invalid/$name" "stderr '$got', expected '$want'"
        else
                echo "PASS invalid/$name"
        fi
        rm -rf "${work:?}/$name"
}

for dir in "$data"/invalid/*/; do
        dir=${dir%/}
        name=$(basename "$dir")
        if [ ! -f "$dir/expected" ] || { [ ! -f "$dir/policy.json" ] && [ ! -f "$dir/policy.yaml" ] &&
                                         [ ! -x "$dir/generate" ]; }; then
                fail "invalid/$name" "case needs policy.json (or policy.yaml, or generate) and expected"
                continue
        fi
        run_invalid "$dir" "$name"
done

for f in "$data"/valid/*.json "$data"/valid/*.yaml; do
        name=$(basename "$f")
        out=$(cd "$data/valid" && "$agent" validate "$name" 2>&1)
        rc=$?
        if [ "$rc" -ne 0 ] || [ "$out" != "$name: ok" ]; then
                fail "valid/$name" "exit code $rc: $out"
        else
                echo "PASS valid/$name"
        fi
done
# Agent configurations: each case directory is copied whole (agent.json and the files it names).
cfg=$top/tests/data/config
for dir in "$cfg"/invalid/*/; do
        [ -d "$dir" ] || continue
        dir=${dir%/}
        name=$(basename "$dir")
        if [ ! -f "$dir/agent.json" ] || [ ! -f "$dir/expected" ]; then
                fail "config/invalid/$name" "case needs agent.json and expected"
                continue
        fi
        mkdir -p "$work/cfg-$name" && cp -r "$dir"/. "$work/cfg-$name/"
        got=$(cd "$work/cfg-$name" && "$agent" --config agent.json validate 2>&1 >/dev/null)
        rc=$?
        got=${got//"$work/cfg-$name/"/./}      # file names resolved against the case directory
        want=$(cat "$dir/expected")
        if [ "$rc" -ne 2 ]; then
                fail "config/invalid/$name" "exit code $rc, expected 2 (stderr: $got)"
        elif [ "$got" != "$want" ]; then
                fail "config/invalid/$name" "stderr '$got', expected '$want'"
        else
                echo "PASS config/invalid/$name"
        fi
done
for dir in "$cfg"/valid/*/; do
        [ -d "$dir" ] || continue
        dir=${dir%/}
        name=$(basename "$dir")
        out=$(cd "$dir" && "$agent" --config agent.json validate 2>&1)
        rc=$?
        if [ "$rc" -ne 0 ] || [ "$out" != "agent.json: ok" ]; then
                fail "config/valid/$name" "exit code $rc: $out"
        else
                echo "PASS config/valid/$name"
        fi
done

# run_doctor DIR NAME: the report of DIR/facts.json in both shapes, and its proposal.
run_doctor() {
        local dir=$1 name=$2 rc want_rc
        want_rc=$(cat "$dir/expected.rc")
        "$agent" doctor --facts "$dir/facts.json" --propose "$work/proposal.json" >"$work/out.txt" 2>&1
        rc=$?
        "$agent" --output json doctor --facts "$dir/facts.json" | sed "s|$work/proposal.json|PROPOSAL|" \
                >"$work/out.json" 2>&1
        sed -i "s|$work/proposal.json|PROPOSAL|" "$work/out.txt"
        if [ "$rc" != "$want_rc" ]; then
                fail "doctor/$name" "exit code $rc, expected $want_rc"
        elif ! diff -u "$dir/expected.txt" "$work/out.txt" >"$work/diff"; then
                fail "doctor/$name" "text report differs: $(head -20 "$work/diff")"
        elif ! diff -u "$dir/expected.json" "$work/out.json" >"$work/diff"; then
                fail "doctor/$name" "JSON report differs: $(head -20 "$work/diff")"
        elif [ -f "$dir/expected-proposal.json" ] && ! diff -u "$dir/expected-proposal.json" "$work/proposal.json" >"$work/diff"; then
                fail "doctor/$name" "proposal differs: $(head -20 "$work/diff")"
        else
                echo "PASS doctor/$name"
        fi
        rm -f "$work/proposal.json"
}

for dir in "$top"/tests/data/doctor/*/; do
        [ -d "$dir" ] || continue
        run_doctor "${dir%/}" "$(basename "$dir")"
done
exit $failed
