#!/usr/bin/env bash
# Verbs probe vs perftest's ib_write_bw: needs real verbs, so it runs the Soft-RoCE
# VM lab (tests/vmlab) and reads the two rates the guest measured in the same boot.
# Prints one markdown table row.
. "$(dirname "$0")/lib.sh"
out=$(BUILD=$BUILD VMLAB_CASES=rdma "$NETTUNE_TOP/tests/vmlab/run.sh" 2>&1)
line=$(printf '%s\n' "$out" | sed -n 's/^  verbs probe and ib_write_bw, the median of 3 alternating pairs: \([0-9.]*\) Gb\/s; ib_write_bw: \([0-9.]*\) Gb\/s; ratio \([0-9.]*\) (pairs: \([0-9. ]*\)) .* \([0-9?]*\) QP each.*/\1 \2 \3 \4/p' | tail -1)
if [ -z "$line" ]; then
        why=$(printf '%s\n' "$out" | grep -m1 '^SKIP\|^FAIL' || echo "no measurement")
        echo "| verbs probe vs ib_write_bw (Soft-RoCE VM lab) | - | - | - | not measured: $why |"
        goal "verbs probe / ib_write_bw (Soft-RoCE, same guest, same run)" "" ">=" 0.95 "x"
        exit 0
fi
set -- $line
qp=$(printf '%s\n' "$out" | sed -n 's/^  verbs probe and ib_write_bw, the median .* \([0-9?]*\) QP each.*/\1/p' | tail -1)
echo "| verbs probe vs ib_write_bw (Soft-RoCE, qemu TCG, 64 KiB WRITEs, 3 pairs alternating, median pair) | $1 Gb/s | $2 Gb/s | $3 | pairs ${*:4}; ${qp:-?} QP each side; TCG: function and relative rates only |"
goal "verbs probe / ib_write_bw (Soft-RoCE, same guest, same run)" "$3" ">=" 0.95 "x"
