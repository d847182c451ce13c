#!/usr/bin/env bash
# Build the lab guest into CACHE: Debian's stock kernel (downloaded once, unpacked,
# never installed on the host) and a busybox initramfs with the module closure of
# rdma_rxe, veth and the qdiscs the ECN lab uses (htb, tbf, netem, ets, red), 9p for
# a shared host folder, the rxe verbs provider, iproute2's ip/tc/rdma, perftest's
# ib_write_bw, iperf3, nettune-agent and nettunectl, each with its ldd closure, the
# ECN lab (ecn-lab.sh, the example policies, a throw-away mTLS PKI).
#   build-guest.sh CACHE AGENT [CTL]      prints "KERNEL INITRAMFS" on success
# CACHE must be absolute. Exit 77 with "SKIP: reason" when something is missing here.
set -euo pipefail
cache=$1 agent=$2 ctl=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
case $cache in /*) ;; *) echo "build-guest.sh: CACHE '$cache' must be an absolute path" >&2; exit 2 ;; esac
skip() { echo "SKIP: $*"; exit 77; }

for c in busybox cpio zstd modprobe depmod dpkg apt-get apt-cache ldd openssl curl; do
        command -v "$c" >/dev/null 2>&1 || skip "'$c' is not installed (make deps)"
done
busybox=$(command -v busybox)
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' || ldd "$busybox" 2>&1 | grep -q 'not a dynamic' ||
        skip "busybox is not the static build (install busybox-static)"
for f in /usr/bin/ib_write_bw /usr/bin/rdma /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so \
         /etc/libibverbs.d/rxe.driver /usr/bin/iperf3; do
        [ -e "$f" ] || skip "'$f' is missing (install perftest, rdma-core, ibverbs-providers)"
done

# ---- kernel: the package linux-image-amd64 depends on, unpacked once ----
mkdir -p "$cache"
kroot=$cache/kernel
if [ ! -e "$kroot/.done" ]; then
        pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/.*Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -1)
        [ -n "$pkg" ] || skip "apt-cache names no linux-image-*-amd64 package (run apt-get update)"
        rm -rf "$kroot" "$cache/deb" && mkdir -p "$cache/deb"
        (cd "$cache/deb" && timeout 300 apt-get download "$pkg" >/dev/null 2>&1) ||
                skip "cannot download '$pkg' (no package mirror reachable)"
        dpkg -x "$cache"/deb/"$pkg"_*.deb "$kroot"
        rm -rf "$cache/deb"
        touch "$kroot/.done"
fi
kver=$(ls "$kroot/lib/modules" | head -1)
vmlinuz=$kroot/boot/vmlinuz-$kver
[ -e "$vmlinuz" ] || skip "no vmlinuz in the unpacked kernel package"
[ -e "$kroot/lib/modules/$kver/modules.dep" ] || depmod -b "$kroot" "$kver"

# ---- initramfs tree ----
root=$cache/initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,etc/libibverbs.d,lib/modules,usr/bin,usr/sbin,host,lab/policies}
cp "$busybox" "$root/bin/busybox"

# The module closure in load order (modprobe prints insmod lines, dependencies first).
modprobe -a -d "$kroot" -S "$kver" --show-depends \
        crc32_generic rdma_rxe ib_uverbs rdma_ucm configfs veth sch_tbf sch_htb sch_netem sch_ets sch_red \
        virtio_pci 9p 9pnet_virtio 2>/dev/null |
        awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++' > "$cache/modules.list"
[ -s "$cache/modules.list" ] || skip "modprobe found no rdma_rxe in kernel $kver"
: > "$root/modules.order"
while read -r m; do
        cp "$m" "$root/lib/modules/"
        echo "/lib/modules/$(basename "$m")" >> "$root/modules.order"
done < "$cache/modules.list"

# Binaries and their shared-library closure.
copy_with_libs() {      # copy_with_libs SRC DEST-IN-ROOT
        mkdir -p "$root/$(dirname "$2")"
        cp -L "$1" "$root/$2"
        ldd "$1" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' | while read -r lib; do
                [ -e "$root$lib" ] || { mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"; }
        done
}
copy_with_libs /usr/sbin/ip /usr/bin/ip
copy_with_libs /usr/sbin/tc /usr/sbin/tc
copy_with_libs /usr/bin/rdma /usr/bin/rdma
copy_with_libs /usr/bin/ib_write_bw /usr/bin/ib_write_bw
copy_with_libs /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so \
        /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
copy_with_libs "$agent" /usr/bin/nettune-agent
copy_with_libs /usr/bin/iperf3 /usr/bin/iperf3
[ ! -x /usr/bin/tcpdump ] || copy_with_libs /usr/bin/tcpdump /usr/bin/tcpdump
[ -z "$ctl" ] || copy_with_libs "$ctl" /usr/bin/nettunectl
copy_with_libs "$(command -v curl)" /usr/bin/curl
! command -v strace >/dev/null 2>&1 || copy_with_libs "$(command -v strace)" /usr/bin/strace
cp /etc/libibverbs.d/rxe.driver "$root/etc/libibverbs.d/"
[ -e "$root/lib64/ld-linux-x86-64.so.2" ] || { mkdir -p "$root/lib64"; cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"; }
cp "$here/init" "$root/init"
cp "$here/guest.sh" "$here/ecn-lab.sh" "$here/qdisc-cases.sh" "$here/case-probe-class.sh" "$here/case-roce-tos.sh" "$root/"
chmod 0755 "$root/init" "$root/guest.sh" "$root/ecn-lab.sh" "$root/qdisc-cases.sh"
cp "$top"/examples/policies/lab-switch-ecn-*.json "$root/lab/policies/"
echo "root:x:0:0:root:/:/bin/sh" > "$root/etc/passwd"
printf '127.0.0.1 localhost\n' > "$root/etc/hosts"

# The ECN lab's PKI (tests/lib/certs.sh): one CA, the switch agent's server certificate
# (SAN: its management address), the controller's client certificate.
. "$top/tests/lib/certs.sh"
make_certs "$root/lab/pki" 10.9.0.11 >"$cache/pki.log" 2>&1 ||
        { echo "build-guest.sh: cannot make the lab's certificates (see $cache/pki.log)" >&2; exit 1; }

(cd "$root" && find . -print0 | cpio --null -o -H newc 2>/dev/null | zstd -3 -q -f -o "$cache/initramfs.cpio.zst")
echo "$vmlinuz $cache/initramfs.cpio.zst"
