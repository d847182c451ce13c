# Narration and bookkeeping for examples/demo/run.sh: source it, never run it.
#   banner TEXT            a story heading
#   say TEXT...            an explanation, one paragraph per argument
#   show LABEL CMD...      print "$ LABEL", run CMD, print its output trimmed to
#                          $SHOW_LINES lines; returns CMD's exit status; the full
#                          output stays in $DEMO_DIR/last.out (show_out: stdout only)
#   expect DESC CMD...     a verdict line: ok/FAILED; a failure marks the story failed
#   story_begin N TITLE / story_end N   record PASS or FAIL for story N
#   demo_bg NAME CMD...    start CMD in the background, its PID in $DEMO_DIR/pids
#   json FILE PYEXPR       a value from a JSON file (d is the document)

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
        C_BOLD=$'\e[1m' C_DIM=$'\e[2m' C_GREEN=$'\e[32m' C_RED=$'\e[31m' C_CYAN=$'\e[36m' C_OFF=$'\e[0m'
else
        C_BOLD="" C_DIM="" C_GREEN="" C_RED="" C_CYAN="" C_OFF=""
fi
SHOW_LINES=${SHOW_LINES:-14}

banner() {
        printf '\n%s==== %s ====%s\n' "$C_BOLD" "$*" "$C_OFF"
}

say() {
        local p
        for p in "$@"; do
                printf '%s\n' "$p" | fold -s -w 88 | sed 's/^/  /'
        done
}

# show LABEL CMD...: the command as a reader would type it, then its trimmed output
# (stdout and stderr). show_out: the same with stdout only (nettunectl's progress
# lines on stderr stay in $DEMO_DIR/last.err).
show() { _show 1 "$@"; }
show_out() { _show 0 "$@"; }

_show() {
        local both=$1 label=$2 rc=0 n; shift 2
        printf '%s$ %s%s\n' "$C_CYAN" "$label" "$C_OFF"
        if [ "$both" = 1 ]; then
                "$@" >"$DEMO_DIR/last.out" 2>&1 || rc=$?
        else
                "$@" >"$DEMO_DIR/last.out" 2>"$DEMO_DIR/last.err" || rc=$?
        fi
        n=$(wc -l <"$DEMO_DIR/last.out")
        head -n "$SHOW_LINES" "$DEMO_DIR/last.out" | cut -c1-160 | sed "s/^/    $C_DIM/; s/\$/$C_OFF/"
        [ "$n" -le "$SHOW_LINES" ] || printf '    %s... (%d more lines)%s\n' "$C_DIM" $((n - SHOW_LINES)) "$C_OFF"
        [ "$rc" -eq 0 ] || printf '    %s(exit %d)%s\n' "$C_DIM" "$rc" "$C_OFF"
        return $rc
}

STORY_FAILED=0
expect() {
        local what=$1; shift
        if "$@" >/dev/null 2>&1; then
                printf '  %sok%s      %s\n' "$C_GREEN" "$C_OFF" "$what"
        else
                printf '  %sFAILED%s  %s\n' "$C_RED" "$C_OFF" "$what"
                STORY_FAILED=1
        fi
}

declare -A STORY_TITLE=() STORY_RESULT=()
story_begin() {
        STORY_TITLE[$1]=$2
        STORY_FAILED=0
        banner "story $1: $2"
}

story_end() {
        if [ "$STORY_FAILED" -eq 0 ]; then
                STORY_RESULT[$1]=PASS
                printf '  %sverdict: story %s passed%s\n' "$C_GREEN$C_BOLD" "$1" "$C_OFF"
        else
                STORY_RESULT[$1]=FAIL
                printf '  %sverdict: story %s FAILED%s\n' "$C_RED$C_BOLD" "$1" "$C_OFF"
        fi
}

demo_bg() {
        local name=$1; shift
        "$@" &
        BG_PID=$!
        echo "$BG_PID $name" >>"$DEMO_DIR/pids"
}

json() {
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

# wait_until SECONDS CMD...: poll CMD every 0.2 s.
wait_until() {
        local end=$(($(date +%s) + $1)); shift
        until "$@" >/dev/null 2>&1; do
                [ "$(date +%s)" -lt "$end" ] || return 1
                sleep 0.2
        done
}

die() {
        printf '%sdemo: %s%s\n' "$C_RED" "$*" "$C_OFF" >&2
        exit 3
}
