#!/usr/bin/env bash
# Checks scripts/install.sh end to end, into a temporary prefix: the binary runs with an empty
# environment and needs no Swift toolchain, the man pages pass mandoc's and groff's linters, the
# completions offer file names, and --uninstall leaves the prefix exactly as it was.
#
#   scripts/install-test.sh
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh mandoc=mandoc groff=groff bash-completion=/usr/share/bash-completion/bash_completion
prefix=$(mktemp -d /tmp/gcdcat-prefix.XXXXXX)
work=$(mktemp -d /tmp/gcdcat-install-test.XXXXXX)
trap 'rm -rf "$prefix" "$work"' EXIT
passed=0
failed=0
ok() { echo "ok      $*"; passed=$((passed + 1)); }
bad() { echo "FAILED  $*"; failed=$((failed + 1)); }

touch "$prefix/unrelated"  # must survive the uninstall, with the folders that existed before
mkdir -p "$prefix/bin" "$prefix/share/man/man1"
if ! scripts/install.sh --prefix "$prefix" >"$work/install.log" 2>&1; then
    cat "$work/install.log"
    bad "install.sh exited non-zero"
    echo "$passed passed, $failed failed"
    exit 1
fi
G="$prefix/bin/gcdcat"

version=$(env -i "$G" --version 2>&1) && [ -n "$version" ] && ok "env -i gcdcat --version: $version" \
    || bad "env -i gcdcat --version failed: $version"
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
if readelf -d "$G" | grep -E 'RUNPATH|RPATH' | grep -q "$toolchain"; then
    bad "RUNPATH points into the toolchain: $(readelf -d "$G" | grep -E 'RUNPATH|RPATH')"
else
    ok "no RUNPATH into the toolchain ($toolchain)"
fi
if ldd "$G" | grep -q 'libswift\|libFoundation\|libdispatch'; then
    bad "links Swift runtime libraries dynamically: $(ldd "$G" | grep -o 'lib[A-Za-z_]*swift[^ ]*' | head -3)"
else
    ok "no dynamic Swift runtime: $(ldd "$G" | awk '{print $1}' | tr '\n' ' ')"
fi
# The S3 client's HTTP is libcurl: Debian's libcurl4 is a runtime dependency.
ldd "$G" | grep -q 'libcurl\.so\.4' && ok "libcurl.so.4 linked (the S3 client's HTTP)" \
    || bad "libcurl.so.4 is not linked: the S3 client needs it"
file "$G" | grep -q 'not stripped' && bad "binary is not stripped" || ok "binary is stripped"

pages=("$prefix"/share/man/man1/*.1)
[ ${#pages[@]} -eq 9 ] && ok "9 man pages: $(cd "$prefix/share/man/man1" && echo *.1)" \
    || bad "expected 9 man pages (gcdcat and its 8 commands), found ${#pages[@]}"
for page in "${pages[@]}"; do
    lint=$(mandoc -T lint -W warning "$page" 2>&1; groff -man -ww -z "$page" 2>&1)
    [ -z "$lint" ] && ok "$(basename "$page") lints clean" || bad "$(basename "$page"): $lint"
    LC_ALL=C grep -qP '[^\x00-\x7F]' "$page" && bad "$(basename "$page") has raw non-ASCII bytes"
done
# merge's help has no non-ASCII since its strategy list lost the arrows; split's keeps "…". grotty
# options replace col -b, which drops multibyte characters outside a UTF-8 locale; the text is
# joined first, so a line break inside "001, 002, …" cannot fail the check.
groff -man -Tutf8 -P-cbou "$prefix/share/man/man1/gcdcat-split.1" 2>/dev/null | tr -s ' \n' '  ' | grep -q '001, 002, …' \
    && ok "gcdcat-split(1) renders … (non-ASCII kept)" || bad "gcdcat-split(1) lost its non-ASCII characters"

# Completions: bash offers file names for merge's parts and -o, split's and checksum's inputs,
# and manifests for verify.
mkdir -p "$work/set" && touch "$work/set/movie.zip.001" "$work/set/movie.zip.002" "$work/set/movie.zip.sfv"
complete_bash() { # complete_bash WORDS... : prints COMPREPLY for the last word
    (
        cd "$work/set" || exit 1
        # As installed: verify's list-first completion runs gcdcat, found on PATH.
        PATH="$prefix/bin:$PATH"
        source /usr/share/bash-completion/bash_completion 2>/dev/null
        source "$prefix/share/bash-completion/completions/gcdcat"
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE="${COMP_WORDS[*]}"
        COMP_POINT=${#COMP_LINE}
        _gcdcat gcdcat "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf '%s\n' "${COMPREPLY[@]}"
    )
}
out=$(complete_bash gcdcat merge movie)
echo "$out" | grep -q 'movie.zip.001' && ok "bash completes part names after 'gcdcat merge'" \
    || bad "bash offered no part names after 'gcdcat merge': $out"
out=$(complete_bash gcdcat merge movie.zip.001 -o mov)
echo "$out" | grep -q 'movie.zip' && ok "bash completes the -o file name" || bad "bash offered nothing for -o: $out"
out=$(complete_bash gcdcat verify mov)
[ "$(echo "$out" | head -1)" = movie.zip.sfv ] && ok "bash offers the manifest first for verify" \
    || bad "verify completion did not offer movie.zip.sfv first: $(echo "$out" | tr '\n' ' ')"
# Every file after 'gcdcat verify', checksum lists first, those with no extension too.
touch "$work/set/SHA256SUMS" "$work/set/B2SUMS"
out=$(complete_bash gcdcat verify '')
[ "$(echo "$out" | head -3 | tr '\n' ' ')" = "B2SUMS SHA256SUMS movie.zip.sfv " ] \
    && echo "$out" | grep -qx 'movie.zip.001' && ok "bash offers every file for verify, lists first" \
    || bad "verify completion did not offer B2SUMS, SHA256SUMS, movie.zip.sfv first, then the rest: $(echo "$out" | tr '\n' ' ')"
rm "$work/set/SHA256SUMS" "$work/set/B2SUMS"
for command in split checksum; do
    out=$(complete_bash gcdcat $command movie)
    echo "$out" | grep -q 'movie.zip.001' && ok "bash completes file names after 'gcdcat $command'" \
        || bad "bash offered no file names after 'gcdcat $command': $out"
done
# merge is the default command: after 'gcdcat' come subcommands and files, after a file merge's.
out=$(complete_bash gcdcat '')
echo "$out" | grep -qx 'merge' && echo "$out" | grep -qx 'movie.zip.001' \
    && ok "bash offers subcommands and files after 'gcdcat'" \
    || bad "bash after 'gcdcat' did not offer both merge and movie.zip.001: $(echo "$out" | tr '\n' ' ')"
out=$(complete_bash gcdcat movie.zip.001 --str)
echo "$out" | grep -qx -- '--strategy' && ok "bash completes merge's options after 'gcdcat FILE'" \
    || bad "bash after 'gcdcat movie.zip.001' did not offer --strategy: $(echo "$out" | tr '\n' ' ')"
out=$(complete_bash gcdcat movie.zip.001 mov)
echo "$out" | grep -qx 'movie.zip.002' && ok "bash completes more parts after 'gcdcat FILE'" \
    || bad "bash after 'gcdcat movie.zip.001' offered no parts: $(echo "$out" | tr '\n' ' ')"
grep -q '_gcdcat_merge && ret=0' "$prefix/share/zsh/site-functions/_gcdcat" \
    && ok "zsh hands the words after 'gcdcat FILE' to merge" || bad "zsh completion lacks the default command"
grep -q "not __fish_seen_subcommand_from merge" "$prefix/share/fish/vendor_completions.d/gcdcat.fish" \
    && ok "fish offers files before any subcommand" || bad "fish completion lacks the default command"
grep -q '_files' "$prefix/share/zsh/site-functions/_gcdcat" && ok "zsh completion uses _files" \
    || bad "zsh completion never completes files"
grep -q '__fish_complete_path\|-F\|--force-files' "$prefix/share/fish/vendor_completions.d/gcdcat.fish" \
    && ok "fish completion completes files" || bad "fish completion never completes files"

scripts/install.sh --prefix "$prefix" --uninstall >"$work/uninstall.log" 2>&1 || bad "uninstall exited non-zero"
left=$(cd "$prefix" && find . -mindepth 1 | sort | tr '\n' ' ')
[ "$left" = "./bin ./share ./share/man ./share/man/man1 ./unrelated " ] \
    && ok "--uninstall removed exactly what was installed, and kept the folders that were there" \
    || bad "after --uninstall the prefix holds: $left"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
