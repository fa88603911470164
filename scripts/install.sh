#!/usr/bin/env bash
# Installs gcdcat: what scripts/stage.sh builds (a static, stripped release binary, man pages
# for gcdcat and each subcommand, bash, zsh and fish completions). Records every file it
# writes, so --uninstall removes exactly those and nothing else.
#
#   scripts/install.sh [--prefix DIR]              (default /usr/local)
#   scripts/install.sh [--prefix DIR] --uninstall
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=/usr/local
uninstall=no
while [ $# -gt 0 ]; do
    case $1 in
        --prefix) prefix=${2:?--prefix needs a folder}; shift 2 ;;
        --prefix=*) prefix=${1#--prefix=}; shift ;;
        --uninstall) uninstall=yes; shift ;;
        -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown argument '$1' (see --help)" >&2; exit 64 ;;
    esac
done
record="$prefix/share/gcdcat/installed-files"
folders="$prefix/share/gcdcat/installed-folders"

if [ $uninstall = yes ]; then
    [ -f "$record" ] || { echo "install.sh: $record not found: nothing installed under $prefix" >&2; exit 1; }
    while IFS= read -r file; do
        rm -f -- "$file"
        echo "removed $file"
    done <"$record"
    rm -f -- "$record"
    # Only folders the install created, deepest first, and only if nothing else is in them.
    if [ -f "$folders" ]; then
        mapfile -t created <"$folders"
        rm -f -- "$folders"
        for ((i = ${#created[@]} - 1; i >= 0; i--)); do
            rmdir -- "${created[$i]}" 2>/dev/null && echo "removed ${created[$i]}/"
        done
    fi
    exit 0
fi

stage=$(mktemp -d /tmp/gcdcat-install.XXXXXX)
trap 'rm -rf "$stage"' EXIT
scripts/stage.sh "$stage"

installed=()
created=()
# Records every folder above FILE, up to and including the prefix, that does not exist yet.
note_folders() {
    local dir missing=()
    dir=$(dirname "$1")
    while [ ! -d "$dir" ]; do
        missing=("$dir" "${missing[@]}")
        [ "$dir" = "$prefix" ] && break
        dir=$(dirname "$dir")
    done
    created+=("${missing[@]}")
}
put() { # put SOURCE DEST MODE
    note_folders "$2"
    install -D -m "$3" "$1" "$2"
    installed+=("$2")
    echo "installed $2"
}
# Every staged file, with the staging folder's layout under the prefix.
while IFS= read -r -d '' file; do
    relative=${file#"$stage"/}
    mode=644
    [ "$relative" = bin/gcdcat ] && mode=755
    put "$file" "$prefix/$relative" "$mode"
done < <(find "$stage" -type f -print0 | sort -z)
note_folders "$record"
mkdir -p "$(dirname "$record")"
printf '%s\n' "${installed[@]}" >"$record"
printf '%s\n' "${created[@]}" >"$folders"
echo "install.sh: done; 'scripts/install.sh --prefix $prefix --uninstall' removes these ${#installed[@]} files" >&2
