#!/usr/bin/env bash
# `nettune-agent validate` of 1 MiB documents of every shape a client may send (a long
# YAML list, a wide YAML mapping, a list of mappings, a flow list, JSON's list and
# mapping), each against the same document an eighth the size, and against PyYAML's
# safe_load of the 1 MiB YAML (the C loader where it is built) as the peer. Validation
# fails at the unknown member once the document is read: the time is the reading.
# Goals: every 1 MiB document within 1 s; 8x the size costs at most 12x the time (linear).
. "$(dirname "$0")/lib.sh"
REPS=${REPS:-5}
python3 - "$W" <<'EOF'
import sys
w = sys.argv[1]
yhead = "apiVersion: nettune/v1\nkind: Policy\nmetadata:\n  name: x\nspec:\n  junk:\n"
jhead = '{"apiVersion":"nettune/v1","kind":"Policy","metadata":{"name":"x"},"spec":{"junk":'
shapes = {
    "list.yaml": (yhead, "  - {i}\n", ""),
    "map.yaml": (yhead, "    k{i}: 1\n", ""),
    "objs.yaml": (yhead, "  - {{a: {i}, b: 2}}\n", ""),
    "flow.yaml": ("junk: [", "{i}, ", "0]\n"),
    "list.json": (jhead + "[", "{i},", "0]}}"),
    "map.json": (jhead + "{", '"k{i}":1,', '"z":0}}}'),
}
for size, tag in ((1 << 20, "big"), (1 << 17, "small")):
    for name, (head, item, tail) in shapes.items():
        parts, n, i = [head], len(head) + len(tail), 0
        while True:
            s = item.format(i=i)
            if n + len(s) > size:
                break
            parts.append(s); n += len(s); i += 1
        parts.append(tail)
        open(f"{w}/{tag}-{name}", "w").write("".join(parts))
EOF
# t FILE: the median wall time of REPS validations, in microseconds (exit 2 expected).
t() {
        local v=() s r
        for r in $(seq "$REPS"); do
                s=$(now_us)
                "$AGENT" validate "$1" > /dev/null 2>&1 && { echo "bench: $1 validated, expected exit 2" >&2; exit 1; }
                v+=($(( $(now_us) - s )))
        done
        stats "${v[@]}" | cut -d' ' -f1
}
py() {
        local v=() s r
        for r in $(seq "$REPS"); do
                s=$(now_us)
                python3 -c 'import sys, yaml; yaml.load(open(sys.argv[1]), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))' "$1"
                v+=($(( $(now_us) - s )))
        done
        stats "${v[@]}" | cut -d' ' -f1
}
worst=0 worst_name="" growth=0 growth_name="" notes=""
for f in list.yaml map.yaml objs.yaml flow.yaml list.json map.json; do
        big=$(t "$W/big-$f") small=$(t "$W/small-$f")
        g=$(ratio "$big" "$small")
        notes="$notes$f $(ms "$big") ms (x$g of 128 KiB); "
        [ "${big%.*}" -gt "$worst" ] && worst=${big%.*} worst_name=$f
        awk -v a="$g" -v b="$growth" 'BEGIN { exit !(a > b) }' && growth=$g growth_name=$f
done
peer=$(py "$W/big-list.yaml")
mine=$(t "$W/big-list.yaml")
printf '| policy_validate, 1 MiB documents of six shapes (median of %d each) | slowest %s ms (%s) | PyYAML safe_load of the 1 MiB list: %s ms | %s | %s1 MiB ÷ 128 KiB at most x%s (%s); ratio: the 1 MiB YAML list, nettune ÷ PyYAML |\n' \
        "$REPS" "$(ms "$worst")" "$worst_name" "$(ms "$peer")" "$(ratio "$mine" "$peer")" "$notes" "$growth" "$growth_name"
goal "policy_validate: slowest 1 MiB document" "$(ms "$worst")" "<=" 1000 "ms"
goal "policy_validate: 8x the size ÷ the time of 1x, worst shape" "$growth" "<=" 12 "x"
