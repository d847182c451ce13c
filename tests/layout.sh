#!/usr/bin/env bash
# The layout of the tree (docs/design.md, "The tree"), checked from the sources alone:
#
#   layout.includes   every #include "..." of a *.c or *.h names its file from the root
#                     of the tree (the Makefile has -I. only) and that file exists
#   layout.modules    every *.c and *.h outside tests/ lies in a module of the table below
#   layout.direction  an include from one module into another follows the one table of
#                     dependencies there is: each module's "May call:" line (in a header
#                     of its folder: its public header) names the modules it may include,
#                     and the table has no loop, so dependencies point one way; a module
#                     without such a line is a finding of layout.modules
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

# A module is a folder (drivers/ itself is driver.h and registry.c). Who may include
# whom is read from the headers of each module, nowhere else: the sentence after
# "May call:" lists modules and files ("agent/plan", "drivers/driver.h",
# "drivers/host (nl.h routes)"), each standing for its module; a folder written with
# its slash ("drivers/", "policies/") is every module in it, and words that name no
# folder of the tree (a library, a file of the module itself) are for the reader.
# Every module may include itself.
# Includes that go against the table on purpose, each with its reason (FILE, INCLUDED).
EXCEPTIONS = {}
# Headers the build writes ($(BUILD)/gen, on the include path of the unit runner only).
GENERATED = {"unit_suites.h"}

def module(path):
    parts = path.split("/")
    if parts[0] == "tests":
        return "tests"
    if parts[0] in ("agent", "controller", "drivers", "policies") and len(parts) > 2:
        return "/".join(parts[:2])
    return parts[0] if len(parts) > 1 else None

files = [f for f in sys.stdin.read().split("\n") if f]
MODULES = set(module(f) for f in files) - {None, "tests"}

may_re = re.compile(r"May call:(.*?)\.(?:\s|$)", re.S)
def may_call(text):
    """The modules a "May call:" sentence names (None: the text has no such sentence)."""
    lines = [re.sub(r"^\s*(/?\*+/?|//)\s?", "", l) for l in text.split("\n")]
    m = may_re.search(" ".join(lines))
    if not m:
        return None
    body = m.group(1)
    while re.search(r"\([^()]*\)", body):
        body = re.sub(r"\([^()]*\)", " ", body)
    names = set()
    for item in re.split(r",|\band\b", body):
        words = item.split()
        if not words:
            continue
        w = words[0]
        if "." in os.path.basename(w):
            names.add(module(w))
            continue
        folder = w.rstrip("/")
        names.add(folder)
        if w.endswith("/"):
            names.update(m for m in MODULES if m.startswith(folder + "/"))
    names &= MODULES
    return names

ALLOWED = {}
for f in files:
    mf = module(f)
    if f.endswith(".h") and mf in MODULES and os.path.dirname(f) == mf:
        try:
            names = may_call(open(f, errors="replace").read())
        except OSError:
            names = None
        if names is not None:
            ALLOWED.setdefault(mf, set()).update(names - {mf})

found = {k: [] for k in ("includes", "modules", "direction", "internal")}
for m in sorted(MODULES - set(ALLOWED)):
    found["modules"].append("%s/: no header of the module says what it may include: give its public header "
                            "a \"May call:\" line (and the module a row in docs/design.md)" % m)
inc_re = re.compile(r"^\s*#\s*include\s*\"([^\"]+)\"")
for f in files:
    mf = module(f)
    if mf is None:
        found["modules"].append("%s: in no module: every file of the tree lies in the folder of a module" % f)
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
