#!/usr/bin/env bash
# The bash completion of both programs against their own tables: the subcommands
# `PROG --help` lists and the flags `PROG COMMAND --help` prints (both are made
# from the tables the programs parse with, common/cli.h). Both ways: every
# subcommand and flag is offered, nothing is offered that the program does not
# know, and after a flag that takes a value no flag is offered.
. "$NETTUNE_TOP/tests/lib/common.sh"
require_cmd bash

# the subcommands PROG --help lists
commands_of() { "$1" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }'; }
# "FLAG ARG?" for each flag of PROG CMD --help (its own and the common ones)
flags_of() {
        "$1" "$2" --help | awk '/^(options|common options):/ { on = 1; next } /^$/ { on = 0 }
                on && $1 ~ /^--/ { print $1, ($2 ~ /^[A-Z]|\|/ ? "value" : "switch") }'
}
# complete PROG WORD...: what the completion offers for the last word
complete_words() {
        local prog=$1 file; shift
        file=$NETTUNE_TOP/examples/bash-completion/$prog
        bash -c 'shopt -s extglob; compopt() { :; }; . "$1"; shift
                 COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
                 "$(complete -p "$1" | sed "s/.*-F \([^ ]*\) .*/\1/")"; printf "%s\n" "${COMPREPLY[@]}"' \
                _ "$file" "$prog" "$@"
}

for prog in nettune-agent nettunectl; do
        bin=$BUILD/$prog
        step "$prog: subcommands"
        commands_of "$bin" | sort >"$T/cmds"
        complete_words "$prog" "" | sort >"$T/offered"
        check "every subcommand is offered, and only those ($(tr '\n' ' ' <"$T/cmds"))" diff -u "$T/cmds" "$T/offered"
        check "the list has serve and, for nettunectl, store and state" \
                sh -c "grep -qx serve '$T/cmds' && { [ $prog = nettune-agent ] || grep -qx store '$T/cmds'; }"
        for c in $(cat "$T/cmds"); do
                flags_of "$bin" "$c" | sort -u >"$T/flags"
                [ -s "$T/flags" ] || fail "$prog $c --help lists no flag"
                awk '{ print $1 }' "$T/flags" >"$T/names"
                complete_words "$prog" "$c" "--" | sort -u >"$T/offered"
                missing=$(comm -23 "$T/names" "$T/offered" | tr '\n' ' ')
                extra=$(comm -13 "$T/names" "$T/offered" | tr '\n' ' ')
                check "$prog $c: every flag offered${missing:+ (missing: $missing)}" [ -z "$missing" ]
                check "$prog $c: no flag it does not take${extra:+ (extra: $extra)}" [ -z "$extra" ]
                while read -r flag kind; do
                        [ "$kind" = value ] || continue
                        complete_words "$prog" "$c" "$flag" "" >"$T/after"
                        grep -q '^--' "$T/after" && fail "$prog $c $flag: completion offers flags where the value goes"
                done <"$T/flags"
        done
        echo "ok: every value flag of $prog is followed by its value, not by flags"
done

# offers WANT WORD...: the completion of WORD... offers WANT
offers() { local want=$1; shift; complete_words "$@" >"$T/o"; grep -qx -- "$want" "$T/o"; }
step "the global options before the subcommand; --detach, --config, --store, store migrate"
check "a subcommand after --store SPEC" offers state nettunectl --store sqlite:x.db ""
check "a subcommand after --db and --output" offers apply nettunectl --db x.db --output json ""
check "apply --de completes --detach" offers --detach nettunectl apply --de
check "--co completes --config" offers --config nettunectl --co
check "--st completes --store" offers --store nettunectl --st
check "store completes migrate" offers migrate nettunectl store ""
check "the agent's serve takes --config" offers --config nettune-agent serve --co
check "the agent: a subcommand after --config FILE" offers serve nettune-agent --config agent.json se
