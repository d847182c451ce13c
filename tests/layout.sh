#!/usr/bin/env bash
# The layout of the tree (docs/design.md, "The tree"), checked from the sources alone:
#
#   layout.includes   every #include "..." of a *.c or *.h names its file from the root
#                     of the tree (the Makefile has -I. only) and that file exists
#   layout.modules    every *.c and *.h outside tests/ lies in a module of the table below
#   layout.direction  an include from one module into another follows the table: each
#                     module names the modules it may include (its public header's
#                     "May call:" line), and the table itself has no loop, so
#                     dependencies point one way
#   layout.internal   a module's *_internal.h is included only by files of its own folder
#
# tests/ may include anything. One line per case (PASS/FAIL, as tests/check.sh reads
# them); each finding below its FAIL line as "  FILE:LINE: ...". Reads only the tree:
# tests/layout.sh [DIR] checks the tree at DIR (default: this one). Exit 1 on a finding.
set -uo pipefail

top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        files=$(git ls-files -co --exclude-standard -- '*.c' '*.h')
else
        files=$(find . -name build -prune -o -type f \( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||')
fi

# The checks are a python3 program (single-quoted: nothing in it is shell).
# shellcheck disable=SC2016
printf '%s\n' "$files" | python3 -c '
import os, re, sys

# Who may include whom, module by module: the "May call:" line of each public header.
# A module is a folder with one public header; drivers/ is driver.h and registry.c.
# Every module may include itself. "drivers/*" is every driver module.
DRIVERS = ["drivers", "drivers/host", "drivers/switch", "drivers/probe"]
ALLOWED = {
    "common":             [],
    "policies":           ["common"],
    "drivers":            ["policies", "common"],
    "drivers/host":       ["drivers", "policies", "common"],
    "drivers/switch":     ["drivers", "policies", "common"],
    "drivers/probe":      ["drivers", "drivers/host", "policies", "common"],   # nl.h routes, sysfs.h GIDs
    # agent: cmd -> api -> txn, doctor -> measure, plan -> journal, config -> http
    "agent/http":         ["policies", "common"],
    "agent/config":       ["agent/http", "drivers/*", "policies", "common"],   # config_tls.c: the TLS files
    "agent/journal":      ["drivers/*", "policies", "common"],
    "agent/plan":         ["agent/config", "drivers/*", "policies", "common"],
    "agent/measure":      ["drivers/probe", "common"],
    "agent/doctor":       ["agent/plan", "agent/journal", "agent/config", "drivers/*", "policies", "common"],
    # not drivers/host: the host handles of a request are flushed and closed through driver_io (drivers)
    "agent/txn":          ["agent/plan", "agent/journal", "agent/measure", "agent/config",
                           "drivers", "drivers/switch", "drivers/probe", "policies", "common"],
    "agent/api":          ["agent/txn", "agent/doctor", "agent/plan", "agent/journal", "agent/measure",
                           "agent/http", "agent/config", "drivers/*", "policies", "common"],
    "agent/cmd":          ["agent/api", "agent/txn", "agent/doctor", "agent/plan", "agent/journal",
                           "agent/measure", "agent/http", "agent/config", "drivers/*", "policies", "common"],
    # controller: cmd -> tune -> rollout -> fabric, store -> model -> fleet
    "controller/fleet":   ["policies", "common"],
    "controller/svg":     ["common"],
    "controller/model":   ["controller/fleet", "common"],
    "controller/store":   ["controller/model", "controller/fleet", "policies", "common"],
    "controller/fabric":  ["controller/fleet", "drivers/probe", "policies", "common"],
    "controller/rollout": ["controller/fabric", "controller/store", "controller/model", "controller/fleet",
                           "policies", "common"],
    "controller/tune":    ["controller/rollout", "controller/fabric", "controller/store", "controller/model",
                           "controller/fleet", "controller/svg", "policies", "common"],
    "controller/cmd":     ["controller/tune", "controller/rollout", "controller/fabric", "controller/store",
                           "controller/model", "controller/fleet", "controller/svg", "drivers/probe", "policies",
                           "common"],
}
# Includes that go against the table on purpose, each with its reason (FILE, INCLUDED).
EXCEPTIONS = {
    ("agent/doctor/doctor_collect.h", "agent/http/http.h"):
        "doctor_http.c answers GET /v1/doctor with the request and response of agent/http "
        "(route work, whose place is agent/api); it points down, so no loop",
}
# Headers the build writes ($(BUILD)/gen, on the include path of the unit runner only).
GENERATED = {"unit_suites.h"}

for m, deps in ALLOWED.items():
    ALLOWED[m] = set(d for dep in deps for d in (DRIVERS if dep == "drivers/*" else [dep]))

def module(path):
    parts = path.split("/")
    if parts[0] == "tests":
        return "tests"
    if parts[0] in ("agent", "controller", "drivers") and len(parts) > 2:
        return "/".join(parts[:2])
    return parts[0] if len(parts) > 1 else None

found = {k: [] for k in ("includes", "modules", "direction", "internal")}
files = [f for f in sys.stdin.read().split("\n") if f]
inc_re = re.compile(r"^\s*#\s*include\s*\"([^\"]+)\"")
for f in files:
    mf = module(f)
    if mf != "tests" and mf not in ALLOWED:
        found["modules"].append("%s: in no module of the table (folder %s): give it a row in tests/layout.sh "
                                "and docs/design.md" % (f, os.path.dirname(f) or "."))
    try:
        text = open(f, errors="replace").read().split("\n")
    except OSError as err:
        found["includes"].append("%s: cannot read: %s" % (f, err.strerror))
        continue
    for n, line in enumerate(text, 1):
        m = inc_re.match(line)
        if not m:
            continue
        inc, where = m.group(1), "%s:%d" % (f, n)
        if inc in GENERATED:
            continue
        if not os.path.isfile(inc):
            near = os.path.join(os.path.dirname(f), inc)
            hint = " (it is %s from the root)" % os.path.normpath(near) if os.path.isfile(near) else ""
            found["includes"].append("%s: includes \"%s\", no such file from the root of the tree%s"
                                     % (where, inc, hint))
            continue
        mi = module(inc)
        if mf == "tests":
            continue
        if inc.endswith("_internal.h") and os.path.dirname(inc) != os.path.dirname(f):
            found["internal"].append("%s: includes %s, internal to %s/" % (where, inc, os.path.dirname(inc)))
        if mf in ALLOWED and mi != mf and mi not in ALLOWED[mf] and (f, inc) not in EXCEPTIONS:
            found["direction"].append("%s: module %s includes %s (%s), not allowed" % (where, mf, mi, inc))

# The table itself must point one way: no module reaches itself through others.
def loop_from(start):
    stack, seen = [(start, [start])], set()
    while stack:
        node, path = stack.pop()
        for d in sorted(ALLOWED.get(node, ())):
            if d == start:
                return path + [d]
            if d not in seen:
                seen.add(d)
                stack.append((d, path + [d]))
    return None
for m in sorted(ALLOWED):
    loop = loop_from(m)
    if loop:
        found["direction"].append("tests/layout.sh: the table has a loop: " + " -> ".join(loop))
        break

rc = 0
for case in ("includes", "modules", "direction", "internal"):
    if found[case]:
        rc = 1
        print("FAIL layout.%s: %d finding%s" % (case, len(found[case]), "" if len(found[case]) == 1 else "s"))
        for x in found[case]:
            print("  " + x)
    else:
        print("PASS layout.%s" % case)
for (f, inc), why in sorted(EXCEPTIONS.items()):
    if os.path.isfile(f):
        print("  exception: %s includes %s: %s" % (f, inc, why))
sys.exit(rc)
'
