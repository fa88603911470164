#!/usr/bin/env bash
# The quick benchmark CI runs: every merge strategy at two chunk sizes against cat (and split
# and checksum against GNU split and rhash), as a table; fails if any output is wrong.
#
#   scripts/bench.sh [extra gcdcat bench options]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release 2>&1 | tail -1
bin=$(swift build -c release --show-bin-path)
mkdir -p .build/bench
"$bin/gcdcat" bench --quick --json-file .build/bench/quick.json --svg .build/bench/quick.svg "$@"
echo "bench.sh: results in .build/bench/quick.json and .build/bench/quick.svg"
