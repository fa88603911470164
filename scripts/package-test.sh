#!/usr/bin/env bash
# Checks scripts/package-deb.sh end to end: the .deb passes lintian without errors, `dpkg -i`
# installs it (as root), the installed gcdcat runs with an empty environment and round-trips a
# file, its man page and bash completion are where man and bash look, and `dpkg -r` removes
# every file it installed. Skips, saying why, where dpkg cannot install (not root).
#
#   scripts/package-test.sh
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0
failed=0
ok() { echo "ok      $*"; passed=$((passed + 1)); }
bad() { echo "FAILED  $*"; failed=$((failed + 1)); }
if [ "$(id -u)" != 0 ]; then
    echo "package-test.sh: skipped: dpkg -i needs root"
    exit 0
fi
if dpkg -s gcdcat >/dev/null 2>&1; then
    echo "package-test.sh: a gcdcat package is already installed; not touching it" >&2
    exit 1
fi
work=$(mktemp -d /tmp/gcdcat-package-test.XXXXXX)
trap 'dpkg -r gcdcat >/dev/null 2>&1; rm -rf "$work"' EXIT

if deb=$(scripts/package-deb.sh "$work" 2>"$work/build.log"); then
    ok "package-deb.sh built $(basename "$deb") ($(du -h "$deb" | cut -f1)), lintian: no errors"
else
    cat "$work/build.log"
    bad "package-deb.sh failed"
    echo "$passed passed, $failed failed"
    exit 1
fi
size=$(dpkg-deb -f "$deb" Installed-Size)
ok "Installed-Size ${size} KiB; Depends: $(dpkg-deb -f "$deb" Depends)"

if dpkg -i "$deb" >"$work/install.log" 2>&1; then ok "dpkg -i"; else cat "$work/install.log"; bad "dpkg -i"; fi
mapfile -t files < <(dpkg -L gcdcat | while read -r f; do [ -f "$f" ] && echo "$f"; done)
version=$(env -i /usr/bin/gcdcat --version 2>&1) && ok "env -i /usr/bin/gcdcat --version: $version" \
    || bad "env -i /usr/bin/gcdcat --version: $version"
head -c 3000000 /dev/urandom >"$work/data"
if (cd "$work" && /usr/bin/gcdcat split data --size 1M -q && mv data data.orig \
    && /usr/bin/gcdcat data.001 -q && cmp data data.orig); then
    ok "installed gcdcat splits and merges byte-identically"
else
    bad "installed gcdcat round trip"
fi
man -w gcdcat-merge >/dev/null 2>&1 && ok "man -w gcdcat-merge: $(man -w gcdcat-merge)" || bad "man gcdcat-merge not found"
[ -f /usr/share/bash-completion/completions/gcdcat ] && ok "bash completion installed" \
    || bad "no bash completion"

if dpkg -r gcdcat >"$work/remove.log" 2>&1; then ok "dpkg -r"; else cat "$work/remove.log"; bad "dpkg -r"; fi
left=0
for f in "${files[@]}"; do [ -e "$f" ] && { echo "left behind: $f"; left=$((left + 1)); }; done
[ ${#files[@]} -gt 0 ] && [ $left = 0 ] && ok "dpkg -r removed all ${#files[@]} files" || bad "$left of ${#files[@]} files left"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
