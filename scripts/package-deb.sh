#!/usr/bin/env bash
# Builds a Debian package of gcdcat from what scripts/stage.sh makes: /usr/bin/gcdcat (static
# Swift runtime, stripped), gzipped man pages, bash/zsh/fish completions, the copyright file
# and a changelog. Depends is computed by dpkg-shlibdeps from the binary's own libraries
# (libc, libcurl, libcrypto, ISA-L, libdeflate, zlib, libstdc++), so it is never out of date.
# Then lintian checks it; any lintian error fails the script.
#
#   scripts/package-deb.sh [OUTDIR]        (default: the repository's root; prints the .deb's path)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${1:-$root}
scripts/deps.sh dpkg-dev=dpkg-shlibdeps fakeroot=fakeroot lintian=lintian

version=$(sed -n 's/^let gcdcatVersion = "\(.*\)"$/\1/p' Sources/gcdcat/GCDCat.swift)
[ -n "$version" ] || { echo "package-deb.sh: no gcdcatVersion in Sources/gcdcat/GCDCat.swift" >&2; exit 1; }
arch=$(dpkg --print-architecture)
work=$(mktemp -d /tmp/gcdcat-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
pkg="$work/gcdcat_${version}_$arch"
scripts/stage.sh "$pkg/usr" share/zsh/vendor-completions

# Debian policy: man pages and changelogs gzipped with -9n (no timestamp), docs under
# /usr/share/doc/PACKAGE, files root-owned (fakeroot below) with 0755 folders.
gzip -9n "$pkg"/usr/share/man/man1/*.1
# bash-completion sources its files; Debian wants no #! line in them.
sed -i '1{/^#!/d}' "$pkg/usr/share/bash-completion/completions/gcdcat"
doc="$pkg/usr/share/doc/gcdcat"
mkdir -p "$doc"
cat >"$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: gcdcat
Comment: Built from the gcdcat repository by scripts/package-deb.sh.

Files: *
Copyright: 2025-$(date +%Y) gcdcat maintainers
License: unspecified
 The gcdcat repository does not yet state a license.
COPYRIGHT
date=$(git log -1 --format=%aD 2>/dev/null || date -R)
{
    echo "gcdcat ($version) unstable; urgency=medium"
    echo
    echo "  * Built from commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
    echo
    echo " -- gcdcat maintainers <maintainers@gcdcat.invalid>  $date"
} | gzip -9n >"$doc/changelog.gz"
find "$pkg" -type d -exec chmod 755 {} +

# Depends from the binary's libraries: dpkg-shlibdeps wants a debian/control beside it.
mkdir -p "$work/src/debian"
printf 'Source: gcdcat\n\nPackage: gcdcat\nArchitecture: any\n' >"$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O "$pkg/usr/bin/gcdcat" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "package-deb.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
installed_kib=$(du -sk "$pkg/usr" | cut -f1)
mkdir -p "$pkg/DEBIAN"
cat >"$pkg/DEBIAN/control" <<CONTROL
Package: gcdcat
Version: $version
Architecture: $arch
Maintainer: gcdcat maintainers <maintainers@gcdcat.invalid>
Installed-Size: $installed_kib
Depends: $depends
Section: utils
Priority: optional
Description: rejoin, split and verify split files, fast and safely
 gcdcat rejoins split files (movie.zip.001, .002, ...) into one file, splits
 big files into parts, and verifies them with SFV manifests and md5/sha/BLAKE2
 checksum lists. A missing or corrupt part is a loud error and no partial
 output is ever left behind. Its merge offers several strategies built on
 Grand Central Dispatch and a benchmark comparing them with cat.
CONTROL

mkdir -p "$out"
deb="$out/gcdcat_${version}_$arch.deb"
fakeroot dpkg-deb --build -Zxz "$pkg" "$deb" >/dev/null
echo "package-deb.sh: lintian $(lintian --version | cut -d' ' -f2)" >&2
lintian --tag-display-limit 0 "$deb" >"$work/lintian.txt" 2>&1 || true
cat "$work/lintian.txt" >&2
if grep -q '^E:' "$work/lintian.txt"; then
    echo "package-deb.sh: lintian reported errors" >&2
    exit 1
fi
echo "$deb"
