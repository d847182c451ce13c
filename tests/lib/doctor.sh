# shellcheck shell=bash
# Helpers for the doctor's integration tests: source after common.sh and agent.sh.
#   doctor_expect "CODES" WHAT CMD...   CMD (a doctor with --output json) finds exactly CODES
#                                       (sorted, space separated; "" none) and exits 1 (0 with
#                                       none); the report stays in $T/d.json
#   finding CODE PYEXPR                 PYEXPR appended to the first finding of CODE in $T/d.json

doctor_expect() {
        local want=$1 what=$2 rc=0 got; shift 2
        "$@" >"$T/d.json" 2>"$T/d.err" || rc=$?
        got=$(jq_py "$T/d.json" '" ".join(sorted({f["code"] for f in d["findings"]}))')
        if [ "$got" != "$want" ]; then
                python3 -m json.tool "$T/d.json" | head -80
                cat "$T/d.err"
                fail "$what: doctor found '$got', expected '$want'"
        fi
        [ "$rc" -eq "$([ -n "$want" ] && echo 1 || echo 0)" ] || fail "$what: doctor exit $rc"
        echo "ok: $what: ${want:-no findings} (exit $rc)"
}

finding() { jq_py "$T/d.json" "[f for f in d['findings'] if f['code'] == '$1'][0]$2"; }
