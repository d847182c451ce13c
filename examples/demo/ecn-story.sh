#!/usr/bin/env bash
# The ECN story on a real Linux data plane (tests/vmlab/ecn-lab.sh): hosts, a Linux
# switch running nettune-agent in the switch role, a receiver behind the switch's
# bottleneck port; too-low ECN thresholds cost goodput, doctor's proposal (the port's
# bandwidth-delay product) and nettunectl tune's winner (found by measured trials)
# restore it, the gate rolls a change back. It needs a kernel with sch_ets and sch_red
# (every Debian kernel); this script asks the agent itself whether this one has them.
#
#   examples/demo/ecn-story.sh           run it here (root), or say why it cannot
#   examples/demo/ecn-story.sh --check   only the verdict: exit 0 (can), 77 (cannot)
#   make demo-vm                          the same story in the VM lab's Debian guest
#
# Environment: BUILD (default build), NETTUNE_DEMO_PREFIX (default ntdemo),
# NETTUNE_DEMO_DIR (default /tmp/nettune-demo). Exit 0 when every check passed.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
AGENT=$BUILD/nettune-agent CTL=$BUILD/nettunectl
DIR=${NETTUNE_DEMO_DIR:-/tmp/nettune-demo}/ecn
PFX=${NETTUNE_DEMO_PREFIX:-ntdemo}-e

# What the agent in the switch role finds it cannot manage on a port of this kernel
# (read-only: loaded modules, modules.builtin/.dep, /proc/config.gz).
kernel_can() {
        local cfg out
        mkdir -p "$DIR/check"
        cfg=$DIR/check/agent.json
        printf '{ "role": "switch", "state_dir": "%s/check" }\n' "$DIR" >"$cfg"
        out=$("$AGENT" --config "$cfg" state --interfaces lo --no-switches 2>&1)
        rm -rf "$DIR/check"
        case $out in
        *"unsupported here:"*ecn*) return 1 ;;
        *"ecn:"*) return 0 ;;
        esac
        return 1
}

why_not() {
        local c
        c=$(zcat /proc/config.gz 2>/dev/null | grep -E '^(# )?CONFIG_NET_SCH_(ETS|RED)[ =]' | tr '\n' ';' | sed 's/;$//; s/;/, /g')
        echo "this kernel ($(uname -r)) has no sch_ets/sch_red qdiscs${c:+ ($c)}"
}

# One CA, the agents' certificate (SAN: every management address, 10.9.N.11), the controller's.
pki() {
        . "$TOP/tests/lib/certs.sh"
        make_certs "$DIR/pki" 10.9.0.11 10.9.1.11 10.9.2.11 10.9.3.11 10.9.4.11 10.9.5.11 >"$DIR/pki.log" 2>&1
}

# The lab's lines, as a reader wants them: narration plain, verdicts marked.
narrate() {
        sed -u -n 's/^VMLAB-INFO == \(.*\)/\n== \1/p; s/^VMLAB-INFO \(.*\)/  \1/p;
                   s/^VMLAB-RESULT PASS \(.*\)/  ok      \1/p; s/^VMLAB-RESULT FAIL \(.*\)/  FAILED  \1/p'
}

for c in "$AGENT" "$CTL"; do
        [ -x "$c" ] || { echo "ecn-story: '$c' is not built (make)" >&2; exit 2; }
done
if ! kernel_can; then
        echo "ecn-story: $(why_not); the story needs them. Run it in the VM lab's Debian guest: make demo-vm"
        exit 77
fi
[ "${1:-}" = --check ] && exit 0
[ "$(id -u)" -eq 0 ] || { echo "ecn-story: needs root (network namespaces)" >&2; exit 2; }
for c in iperf3 openssl curl; do
        command -v $c >/dev/null 2>&1 || { echo "ecn-story: '$c' is not installed; run 'make deps'" >&2; exit 2; }
done
rm -rf "$DIR" && mkdir -p "$DIR"
pki || { echo "ecn-story: cannot make certificates (see $DIR/pki.log)" >&2; exit 3; }
ECNLAB_AGENT=$AGENT ECNLAB_CTL=$CTL ECNLAB_PKI=$DIR/pki ECNLAB_POLICIES=$TOP/examples/policies \
        ECNLAB_DIR=$DIR/lab ECNLAB_NS_PREFIX=$PFX ECNLAB_CTL_NS=ctl \
        sh "$TOP/tests/vmlab/ecn-lab.sh" >"$DIR/story.out" 2>&1
narrate <"$DIR/story.out"
grep '^ECNLAB-FIGURE ' "$DIR/story.out" | sed 's/^ECNLAB-FIGURE /  figure /'
! grep -q '^VMLAB-RESULT FAIL' "$DIR/story.out" && grep -q '^VMLAB-RESULT PASS ecn-regression-rolled-back' "$DIR/story.out"
