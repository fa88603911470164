#!/usr/bin/env bash
# Produces the README's performance figures and chart (takes about ten minutes here):
#   1. every strategy × high-water 64K/1M/2M/8M on 1 GiB in 4 parts, hot cache, 5 runs per
#      cell, plus split (vs GNU split) and checksum (vs rhash) rows   -> docs/bench/full.*
#   2. merge of 2 GiB in 4 parts at the default high-water             -> docs/bench/merge-2G.*
#   3. peak RssAnon of stream and offsets at 4 GiB, to compare with 1 GiB -> docs/bench/merge-4G.*
#   4. as root: the same merge with the page cache dropped before each run -> docs/bench/cold-1G.*
#   5. as root, where an XFS loop image with reflink mounts: the whole bench (verified merge,
#      split, checksum, verify) on it with --dir, 1 GiB in 16 parts  -> docs/bench/xfs-1G.*
# Every figure is a median of interleaved runs with cat (or split, rhash) from the same loop.
#
#   scripts/bench-full.sh [OUTDIR]    (default docs/bench; the chart goes to docs/bench.svg)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/bench}
mkdir -p "$out"
swift build -c release 2>&1 | tail -1
gcdcat="$(swift build -c release --show-bin-path)/gcdcat"

"$gcdcat" bench --size 1G --parts 4 --repeat 5 --json "$out/full.json" --svg docs/bench.svg | tee "$out/full.txt"
"$gcdcat" bench --merge-only --size 2G --parts 4 --repeat 5 --high-water 1M --json "$out/merge-2G.json" \
    | tee "$out/merge-2G.txt"
"$gcdcat" bench --merge-only --size 4G --parts 4 --repeat 1 --high-water 1M --strategies stream,offsets \
    --json "$out/merge-4G.json" | tee "$out/merge-4G.txt"
if [ "$(id -u)" = 0 ]; then
    "$gcdcat" bench --merge-only --cold --size 1G --parts 4 --repeat 3 --high-water 1M \
        --json "$out/cold-1G.json" | tee "$out/cold-1G.txt"
fi
if [ "$(id -u)" = 0 ] && command -v mkfs.xfs >/dev/null; then
    xfs=$(mktemp -d "$PWD/.build/bench-xfs.XXXXXX")
    trap 'mountpoint -q "$xfs/mnt" && umount "$xfs/mnt"; rm -rf "$xfs"' EXIT
    mkdir "$xfs/mnt"
    truncate -s 4G "$xfs/img"
    if mkfs.xfs -q -m reflink=1 "$xfs/img" && mount -o loop "$xfs/img" "$xfs/mnt"; then
        "$gcdcat" bench --size 1G --parts 16 --repeat 3 --high-water 1M --dir "$xfs/mnt" \
            --json "$out/xfs-1G.json" | tee "$out/xfs-1G.txt"
    else
        echo "skipped the XFS run: the loop image did not mount (needs root and loop devices)"
    fi
else
    echo "skipped the XFS run: needs root and mkfs.xfs (xfsprogs)"
fi
command -v rsvg-convert >/dev/null && rsvg-convert docs/bench.svg -o "$out/bench.png" || true
