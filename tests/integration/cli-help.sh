#!/usr/bin/env bash
# Help touches nothing: every subcommand of both programs answers --help (and -h,
# and --help after other arguments) with exit 0 and its usage on stdout, in an
# empty directory that stays empty: no ./nettune.db, no inventory read, no
# journal or state directory of the agent's configuration made, no store opened.
# Also what a mistyped subcommand or flag gets: exit 2 and the closest name.
. "$NETTUNE_TOP/tests/lib/common.sh"

mkdir -p "$T/empty"
cd "$T/empty"
echo "{ \"state_dir\": \"$T/state\" }" >"$T/agent.json"
commands_of() { "$1" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }'; }
untouched() { [ -z "$(ls -A "$T/empty")" ] && [ ! -e "$T/state" ]; }

for prog in "$AGENT" "$CTL"; do
        name=$(basename "$prog")
        step "$name: every subcommand's --help"
        for c in $(commands_of "$prog"); do
                for form in "$c --help" "$c -h" "$c x --help" "--config $T/agent.json $c --help"; do
                        rc=0; $prog $form >"$T/out" 2>"$T/err" || rc=$?
                        [ "$rc" -eq 0 ] || fail "$name $form: exit $rc: $(cat "$T/err")"
                        grep -q "^usage: $name .*$c" "$T/out" || fail "$name $form: no usage line: $(head -3 "$T/out")"
                        grep -q "^exit codes: " "$T/out" || fail "$name $form: no exit codes"
                        untouched || fail "$name $form created $(ls -A "$T/empty") $(ls -d "$T/state" 2>/dev/null)"
                done
                echo "ok: $name $c --help: exit 0, nothing created"
        done
        check "$name --help lists serve" sh -c "$prog --help | grep -q '^  serve '"
done
check "nettunectl lists state and store" sh -c "'$CTL' --help | grep -q '^  state ' && '$CTL' --help | grep -q '^  store '"
check "nettunectl --inventory MISSING drift --help: exit 0" "$CTL" --inventory "$T/missing.json" drift --help
check "nettunectl --store etcd://... status --help: no store opened" "$CTL" --store etcd://127.0.0.1:1/x status --help

step "mistyped subcommands and flags"
# expect_typo WANT CMD...: exit 2, the suggestion on stderr, nothing created
expect_typo() {
        local want=$1 rc=0; shift
        "$@" >"$T/out" 2>"$T/err" || rc=$?
        [ "$rc" -eq 2 ] || fail "$*: exit $rc, expected 2"
        grep -q "did you mean '$want'" "$T/err" || fail "$*: no 'did you mean $want': $(cat "$T/err")"
        untouched || fail "$* created something"
        echo "ok: $* -> did you mean '$want'"
}
expect_typo apply "$AGENT" --config "$T/agent.json" aply x.json
expect_typo --interfaces "$AGENT" --config "$T/agent.json" state --interfacs x
expect_typo --limit "$AGENT" --config "$T/agent.json" history --limt 3
expect_typo drift "$CTL" drfit
expect_typo --selector "$CTL" drift --selecter role=gpu
expect_typo --label "$CTL" state --lable role=gpu
expect_typo --rollout "$CTL" rollback --rolout 3
expect_typo --detach "$CTL" apply x.json --detatch
expect_typo migrate "$CTL" store migarte
rc=0; "$CTL" frobnicate 2>"$T/err" || rc=$?
check "a word close to nothing: exit 2 without a guess" sh -c "[ $rc -eq 2 ] && ! grep -q 'did you mean' '$T/err'"
