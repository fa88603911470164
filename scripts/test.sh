#!/usr/bin/env bash
# Runs gcdcat's whole test suite. On a fresh machine (as root) it first installs the
# interop tools the tests compare against: 7-Zip, cksfv, rhash; and zlib's headers.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v 7z >/dev/null || need+=(p7zip-full)
command -v cksfv >/dev/null || need+=(cksfv)
command -v rhash >/dev/null || need+=(rhash)
command -v rsvg-convert >/dev/null || need+=(librsvg2-bin)
[ -f /usr/include/zlib.h ] || need+=(zlib1g-dev)
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "test.sh: installing ${need[*]}" >&2
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    else
        echo "test.sh: missing ${need[*]}; install them (apt-get install ${need[*]}) or run as root" >&2
        exit 1
    fi
fi

swift build --build-tests
swift test --skip-build "$@"
