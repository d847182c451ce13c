#!/usr/bin/env bash
# Install every Debian package nettune's build, tests, demo and benchmarks need.
# Idempotent; a fast no-op when everything is present. Run as root on Debian 12.
#   .ci/deps.sh          install what is missing
#   .ci/deps.sh --check  exit 1 if anything is missing, install nothing
set -euo pipefail

packages=(
        # build
        build-essential pkg-config libmnl-dev libjansson-dev libcurl4-openssl-dev
        libssh2-1-dev libmicrohttpd-dev libgnutls28-dev libsqlite3-dev libibverbs-dev zlib1g-dev libssl-dev
        libyaml-dev
        # tests (stress-ng: make check-stressed; bsdutils: script(1) for the terminal tests)
        libcunit1-dev python3 python3-jsonschema python3-yaml iproute2 openssh-server openssh-client
        openssl curl sqlite3 iperf3 ethtool valgrind procps psmisc stress-ng bsdutils tcpdump
        librsvg2-bin
        # doctor: the LLDP path (tests/integration/doctor-lldp.sh runs lldpd on both ends)
        lldpd
        clang libclang-rt-14-dev
        # the controller's etcd store tier (tests start their own members)
        etcd-server etcd-client
        # the Debian package: make deb and its test
        debhelper dpkg-dev fakeroot lintian
        # .ci/first-run.sh: a fresh clone
        git
        # verbs probe and the Soft-RoCE VM lab
        rdma-core ibverbs-providers ibverbs-utils perftest
        qemu-system-x86 busybox-static kmod cpio zstd
)

# One dpkg-query for all of them: this runs before every `make check` and `make demo`.
declare -A installed=()
while read -r name status; do
        [ "$status" = "install ok installed" ] && installed[$name]=1
done < <(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null || true)
missing=()
for p in "${packages[@]}"; do
        [ -n "${installed[$p]:-}" ] || missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
        exit 0
fi
if [ "${1:-}" = "--check" ]; then
        echo "missing packages: ${missing[*]}" >&2
        exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
        echo "deps: missing packages: ${missing[*]}; run 'make deps' as root" >&2
        exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian's etcd-server enables and may start a service on the default ports; tests
# start their own members on free ports, so keep the packaged one off.
if command -v systemctl >/dev/null 2>&1; then
        systemctl disable --now etcd >/dev/null 2>&1 || true
fi
if command -v service >/dev/null 2>&1; then
        service etcd stop >/dev/null 2>&1 || true
fi
