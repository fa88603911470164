#!/usr/bin/env bash
# Builds what an installation of gcdcat holds into a staging folder, laid out under a prefix:
# a release binary with the Swift runtime linked in statically (it runs once copied anywhere,
# with no Swift toolchain), stripped; man pages for gcdcat and each subcommand, made from the
# binary's own help; bash, zsh and fish completions. install.sh and package-deb.sh both take
# their files from here, so the two can never ship different things.
#
#   scripts/stage.sh DIR [ZSH_FOLDER]   (writes DIR/bin, DIR/share/man/man1, DIR/share/…;
#                                        ZSH_FOLDER defaults to share/zsh/site-functions)
set -euo pipefail
cd "$(dirname "$0")/.."
stage=${1:?usage: scripts/stage.sh DIR [ZSH_FOLDER]}
zsh_folder=${2:-share/zsh/site-functions}

scripts/deps.sh
echo "stage.sh: building a static release binary (about a minute)" >&2
swift build -c release --static-swift-stdlib --scratch-path .build/static 2>&1 | tail -1 >&2
built="$(swift build -c release --static-swift-stdlib --scratch-path .build/static --show-bin-path)/gcdcat"

mkdir -p "$stage/bin" "$stage/share/man/man1" "$stage/share/bash-completion/completions" \
    "$stage/$zsh_folder" "$stage/share/fish/vendor_completions.d"
install -m 755 "$built" "$stage/bin/gcdcat"
strip --strip-unneeded "$stage/bin/gcdcat"
scripts/make-man.py "$stage/bin/gcdcat" "$stage/share/man/man1" >/dev/null
chmod 644 "$stage"/share/man/man1/*.1
"$stage/bin/gcdcat" --generate-completion-script bash >"$stage/share/bash-completion/completions/gcdcat"
"$stage/bin/gcdcat" --generate-completion-script zsh >"$stage/$zsh_folder/_gcdcat"
"$stage/bin/gcdcat" --generate-completion-script fish >"$stage/share/fish/vendor_completions.d/gcdcat.fish"
