#!/usr/bin/env bash
# `make demo-vm`: the ECN story (tests/vmlab/ecn-lab.sh) in the VM lab's Debian guest,
# whose kernel has sch_ets and sch_red: builds the guest (downloading Debian's kernel
# package once), boots it under qemu and prints the story with its figures.
# Exit 0 when every check passed, 77 when the VM lab cannot run here (the reason is printed).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp /tmp/nettune-demo-vm.XXXXXX)
trap 'rm -f "$out"' EXIT
VMLAB_CASES=ecn tests/vmlab/run.sh | tee "$out"
figures=${VMLAB_CACHE:-${BUILD:-build}/vmlab}/ecn-figures.txt
[ -s "$figures" ] && sed 's/^/  figure /' "$figures"
grep -q '^SKIP ' "$out" && exit 77
! grep -q '^FAIL ' "$out" && grep -q '^PASS vmlab.ecn-regression-rolled-back' "$out"
