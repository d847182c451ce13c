#!/usr/bin/env bash
# `make deb`: the Debian package of this tree with Debian's own tooling.
#   1. copy the source (git's tracked and untracked-but-not-ignored files, or the
#      whole tree without build directories) to $BUILD/deb/stage/nettune-VERSION;
#   2. dpkg-buildpackage -b -us -uc there (debian/rules: debhelper, compat 13);
#   3. lintian on the result: errors fail the build, the rest is listed.
# The package lands in $BUILD/deb/nettune_VERSION_ARCH.deb. A package built from
# the same source (same content hash) is reused: "up to date". Needs debhelper,
# dpkg-dev, fakeroot and lintian (make deps).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
out=$build/deb

for c in dpkg-buildpackage dpkg-parsechangelog dh fakeroot lintian; do
        command -v "$c" >/dev/null || { echo "deb: '$c' is not installed; run 'make deps' (debhelper, dpkg-dev, fakeroot, lintian)" >&2; exit 2; }
done
version=$(cat VERSION)
changelog=$(dpkg-parsechangelog -S Version)
if [ "$changelog" != "$version" ]; then
        echo "deb: debian/changelog is at $changelog but VERSION says $version; add a changelog entry (dch -v $version)" >&2
        exit 2
fi
arch=$(dpkg --print-architecture)
deb=$out/nettune_${version}_$arch.deb

# The source, as the developer sees it.
stage=$out/stage
src=$stage/nettune-$version
rm -rf "$stage"
mkdir -p "$src"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$top" ls-files -z --cached --others --exclude-standard |
                tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$src"
else
        tar --exclude=./build --exclude='./build-*' -cf - . | tar -xf - -C "$src"
fi
id=$(cd "$src" && tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - . | sha256sum | cut -d' ' -f1)
if [ -s "$deb" ] && [ "$(cat "$out/source-id" 2>/dev/null)" = "$id" ]; then
        rm -rf "$stage"
        echo "deb: $deb is up to date (source $id)"
        exit 0
fi
rm -f "$out"/nettune_* "$out"/nettune-dbgsym_* "$out/source-id" "$out/lintian.txt"

echo "deb: dpkg-buildpackage -b -us -uc in $src"
# The package's make sees none of the caller's make settings (BUILD, SANITIZE, ...;
# MAKEFLAGS carries command-line variables): debian/rules sets what it needs.
if ! (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD -u SANITIZE -u WERROR -u V -u CC \
        -u PREFIX -u DESTDIR -u BINDIR -u MANDIR -u SYSTEMD_UNITDIR -u BASHCOMPDIR \
        dpkg-buildpackage -b -us -uc -jauto) >"$out/build.log" 2>&1; then
        tail -n 30 "$out/build.log" | sed 's/^/  /'
        echo "deb: dpkg-buildpackage failed (log: $out/build.log)" >&2
        exit 1
fi
mv "$stage"/nettune_"$version"_* "$stage"/nettune-dbgsym_"$version"_* "$out"/ 2>/dev/null || true
rm -rf "$stage"
[ -s "$deb" ] || { echo "deb: dpkg-buildpackage made no $deb" >&2; exit 1; }

# lintian: the package and its .changes. Errors fail; warnings and info are shown.
changes=$out/nettune_${version}_$arch.changes
rc=0
lintian --pedantic --display-info --show-overrides --fail-on error "$changes" 2>&1 |
        grep -v 'running with root privileges is not recommended' >"$out/lintian.txt" || true
lintian --fail-on error "$changes" >/dev/null 2>&1 || rc=$?
sed 's/^/  lintian: /' "$out/lintian.txt"
count() { grep -c "^$1: " "$out/lintian.txt" || true; }
echo "deb: lintian: $(count E) errors, $(count W) warnings, $(count I) info, $(count P) pedantic, $(count O) overridden (debian/nettune.lintian-overrides)"
if [ "$rc" -ne 0 ]; then
        echo "deb: lintian found errors (exit $rc); see $out/lintian.txt" >&2
        exit 1
fi
echo "$id" >"$out/source-id"
echo "deb: $deb"
