#!/usr/bin/env bash
# Runs gcdcat's whole test suite. On a fresh machine (as root) it first installs the
# interop tools the tests compare against (7-Zip, cksfv, rhash, rsvg-convert) and the C
# libraries gcdcat links (zlib, ISA-L, libdeflate).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh p7zip-full=7z cksfv=cksfv rhash=rhash librsvg2-bin=rsvg-convert

swift build --build-tests
swift test --skip-build "$@"
