#!/usr/bin/env bash
# The merge benchmark behind the README's figures: 4 parts to 1 GiB and to 2 GiB, hot cache,
# fresh output files, medians of 5 interleaved runs, ratios against cat from the same run.
# Adds a cold-cache run when run as root.
#
#   scripts/bench-merge.sh [OUTDIR]    (default docs/bench)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/bench}
mkdir -p "$out"
swift build -c release 2>&1 | tail -1
gcdcat="$(swift build -c release --show-bin-path)/gcdcat"
for size in 1G 2G; do
    "$gcdcat" bench --merge-only --size "$size" --parts 4 --repeat 5 --high-water 1M \
        --json "$out/merge-$size-hot.json" | tee "$out/merge-$size-hot.txt"
done
if [ "$(id -u)" = 0 ]; then
    "$gcdcat" bench --merge-only --size 1G --parts 4 --repeat 3 --high-water 1M --cold \
        --strategies auto,stream,offsets --json "$out/merge-1G-cold.json" | tee "$out/merge-1G-cold.txt"
fi
