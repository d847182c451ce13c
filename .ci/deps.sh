#!/usr/bin/env bash
# Install every Debian package nettune's build, tests, demo and benchmarks need.
# Idempotent; a fast no-op when everything is present. Run as root on Debian 12.
#   .ci/deps.sh          install what is missing
#   .ci/deps.sh --check  exit 1 if anything is missing, install nothing
set -euo pipefail

packages=(
        # build
        build-essential pkg-config libmnl-dev libjansson-dev libcurl4-openssl-dev
        libssh2-1-dev libmicrohttpd-dev libgnutls28-dev libsqlite3-dev libibverbs-dev libssl-dev
        # tests
        libcunit1-dev python3 python3-jsonschema iproute2 openssh-server openssh-client
        openssl curl sqlite3 iperf3 ethtool valgrind procps psmisc
        clang libclang-rt-14-dev
        # verbs probe and the Soft-RoCE VM lab
        rdma-core ibverbs-providers ibverbs-utils perftest
        qemu-system-x86 busybox-static kmod cpio zstd
)

missing=()
for p in "${packages[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
                missing+=("$p")
        fi
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
