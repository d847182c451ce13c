#!/usr/bin/env bash
# The first run on a fresh machine, as a new user does it: one build dependency is
# missing (removed with apt-get), a fresh clone of this commit runs `make demo`,
# which must install the package before it computes any compiler flag and pass on
# its first run. The package is put back whatever happens.
#
#   .ci/first-run.sh [PACKAGE]     default libssh2-1-dev; root on Debian 12
set -euo pipefail

pkg=${1:-libssh2-1-dev}
top=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$top" rev-parse HEAD)

if [ "$(id -u)" -ne 0 ]; then
        echo "first-run: must run as root (apt-get, network namespaces)" >&2
        exit 1
fi
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

work=$(mktemp -d /tmp/nettune-first-run.XXXXXX)
put_back() {
        local rc=$?
        if ! installed "$pkg"; then
                echo "first-run: putting $pkg back" >&2
                DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null ||
                        { echo "first-run: cannot reinstall $pkg" >&2; rc=1; }
        fi
        rm -rf "$work"
        exit "$rc"
}
trap put_back EXIT
trap 'exit 130' INT TERM

git clone -q --no-checkout "$top" "$work/nettune"
git -C "$work/nettune" checkout -q "$commit"
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "$pkg" >/dev/null
installed "$pkg" && { echo "first-run: $pkg is still installed" >&2; exit 1; }
echo "first-run: $pkg removed; make demo in a fresh clone of ${commit:0:12}"

# Its own namespace prefix and work directory: nothing shared with another demo.
export NETTUNE_DEMO_PREFIX=fr$(printf '%04x' $((RANDOM % 65536))) NETTUNE_DEMO_DIR=$work/demo NO_COLOR=1
start=$(date +%s)
rc=0
make -C "$work/nettune" demo > "$work/demo.log" 2>&1 || rc=$?
elapsed=$(( $(date +%s) - start ))
if [ "$rc" -ne 0 ]; then
        tail -n 40 "$work/demo.log" | sed 's/^/  /'
        echo "first-run: FAIL: make demo exited $rc after $elapsed s" >&2
        exit 1
fi
installed "$pkg" || { echo "first-run: FAIL: make demo passed but did not install $pkg" >&2; exit 1; }
grep -E '^  (PASS|FAIL) story|stories passed' "$work/demo.log" || true
echo "first-run: make demo passed on its first run in $elapsed s (it installed $pkg itself)"
