#!/usr/bin/env bash
# The filesystem matrix: merges parts that sit on another filesystem than the output, where
# copy_file_range fails with EXDEV and every fallback runs, for every strategy at --jobs 1, 2
# and 4, and byte-compares each output with the original (cmp).
#   (a) tmpfs (/dev/shm) -> the disk   (b) the disk -> tmpfs
#   (c) an XFS loop image (reflink=1) -> the disk, and within XFS (root and xfsprogs needed);
#       there also a split with a manifest and a verified merge, which must clone (no extra disk)
#       where the parts are block-aligned and copy, saying why, where they are not
# Each runs a set of 3000 x 16 KiB parts (three times at --jobs 2 and 4) and 4 x 48 MiB parts.
# Prints one line per case, "ok", "FAILED" or "skipped <reason>", and exits non-zero on failure.
#
#   scripts/fs-matrix.sh            (builds release; GCDCAT=path to use another binary)
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -z "${GCDCAT:-}" ]; then
    swift build -c release 2>&1 | tail -1
    GCDCAT="$(swift build -c release --show-bin-path)/gcdcat"
fi
G=$GCDCAT
strategies=(auto stream offsets dispatchdata)

passed=0
failed=0
ok() { echo "ok      $*"; passed=$((passed + 1)); }
bad() { echo "FAILED  $*"; failed=$((failed + 1)); }
skip() { echo "skipped $*"; }

disk=$(mktemp -d "$PWD/.build/gcdcat-fsm.XXXXXX")
shm=""
xfs=""
cleanup() {
    if [ -n "$xfs" ]; then
        mountpoint -q "$xfs/mnt" 2>/dev/null && umount "$xfs/mnt"
        rm -rf "$xfs"
    fi
    [ -n "$shm" ] && rm -rf "$shm"
    rm -rf "$disk"
}
trap cleanup EXIT

# Makes the two part sets in $1: small/ (3000 x 16 KiB) and large/ (4 x 48 MiB), each beside
# its original, "whole".
make_sets() {
    mkdir -p "$1/small" "$1/large"
    head -c $((3000 * 16384)) /dev/urandom >"$1/small/whole"
    (cd "$1/small" && split -b 16384 -d -a 4 --numeric-suffixes=1 whole p.)
    head -c $((4 * 48 << 20)) /dev/urandom >"$1/large/whole"
    (cd "$1/large" && split -b $((48 << 20)) -d -a 3 --numeric-suffixes=1 whole p.)
}

# merge_case LABEL SRC_DIR OUT_DIR: every strategy and job count, byte-compared.
merge_case() {
    local label=$1 source=$2 target=$3 set strategy jobs round rounds first status
    for set in small large; do
        first=$([ $set = small ] && echo p.0001 || echo p.001)
        for strategy in "${strategies[@]}"; do
            for jobs in 1 2 4; do
                rounds=1
                [ $set = small ] && [ $jobs -gt 1 ] && rounds=3
                for round in $(seq $rounds); do
                    rm -f "$target/out"
                    "$G" merge "$source/$set/$first" -o "$target/out" --strategy $strategy --jobs $jobs -q \
                        2>"$disk/stderr"
                    status=$?
                    if [ $status != 0 ]; then
                        bad "$label $set $strategy --jobs $jobs (round $round): exit $status, $(head -c 300 "$disk/stderr")"
                    elif ! cmp -s "$source/$set/whole" "$target/out"; then
                        bad "$label $set $strategy --jobs $jobs (round $round): $(cmp "$source/$set/whole" "$target/out" 2>&1)"
                    else
                        ok "$label $set $strategy --jobs $jobs (round $round)"
                    fi
                done
            done
        done
    done
    rm -f "$target/out"
}

# verified_case DIR: split with a manifest, then a verified merge, inside DIR (a reflink XFS),
# at --jobs 1, 2 and 4: cksfv and cmp check the bytes; df (after sync) the disk used.
verified_case() {
    local dir=$1 jobs before after report
    mkdir -p "$dir/v"
    head -c $((96 << 20)) /dev/urandom >"$dir/v/whole"
    for jobs in 1 2 4; do
        rm -f "$dir"/v/w.* "$dir/v/out"
        sync
        before=$(df --output=used "$dir" | tail -1)
        if ! "$G" split --size 8M --jobs $jobs "$dir/v/whole" --prefix "$dir/v/w." -q 2>"$disk/stderr"; then
            bad "xfs split --jobs $jobs: $(head -c 300 "$disk/stderr")"
            continue
        fi
        report=$("$G" merge "$dir/v/w.001" -o "$dir/v/out" --jobs $jobs -q --report 2>&1)
        sync
        after=$(df --output=used "$dir" | tail -1)
        if ! (cd "$dir/v" && cksfv -q -f w.sfv) >/dev/null 2>&1 && command -v cksfv >/dev/null; then
            bad "xfs split --jobs $jobs: cksfv rejects the manifest"
        elif ! cat "$dir"/v/w.0* | cmp -s - "$dir/v/whole" || ! cmp -s "$dir/v/whole" "$dir/v/out"; then
            bad "xfs verified split+merge --jobs $jobs: bytes differ"
        elif ! grep -q "96.00 MiB cloned, 0 B copied" <<<"$report"; then
            bad "xfs verified merge --jobs $jobs: not cloned: $(grep -E 'strategy|moved' <<<"$report" | tr '\n' ' ')"
        elif [ $((after - before)) -gt $(((96 << 10) / 100)) ]; then
            bad "xfs verified split+merge --jobs $jobs: $((after - before)) KiB more disk used (1% is $(((96 << 10) / 100)))"
        else
            ok "xfs verified split+merge --jobs $jobs: cloned, $((after - before)) KiB more disk"
        fi
    done
    # Parts of 1000000 bytes: not block-aligned, so copied, and the report says so.
    rm -f "$dir"/v/w.* "$dir/v/out"
    "$G" split --size 1000000 "$dir/v/whole" --prefix "$dir/v/w." -q
    report=$("$G" merge "$dir/v/w.001" -o "$dir/v/out" -q --report 2>&1)
    if cmp -s "$dir/v/whole" "$dir/v/out" && grep -qE "not cloned|not block-aligned" <<<"$report"; then
        ok "xfs verified merge of unaligned parts: copied, and the report says why"
    else
        bad "xfs verified merge of unaligned parts: $(grep -E 'moved|note' <<<"$report" | tr '\n' ' ')"
    fi
    rm -rf "$dir/v"
}

make_sets "$disk/parts"
mkdir -p "$disk/outputs"
if shm=$(mktemp -d /dev/shm/gcdcat-fsm.XXXXXX 2>/dev/null); then
    make_sets "$shm/parts"
    merge_case "tmpfs->disk" "$shm/parts" "$disk/outputs"
    # The tmpfs parts are no longer needed: make room for outputs there.
    rm -rf "$shm/parts"
    merge_case "disk->tmpfs" "$disk/parts" "$shm"
else
    skip "tmpfs cases: /dev/shm is missing or not writable"
fi

if [ "$(id -u)" != 0 ]; then
    skip "XFS cases: mounting a loop image needs root"
elif ! command -v mkfs.xfs >/dev/null; then
    skip "XFS cases: mkfs.xfs is not installed (apt-get install xfsprogs)"
else
    xfs=$(mktemp -d "$PWD/.build/gcdcat-xfs.XXXXXX")
    mkdir "$xfs/mnt"
    if ! truncate -s 1G "$xfs/img" || ! mkfs.xfs -q -m reflink=1 "$xfs/img" 2>"$disk/stderr"; then
        skip "XFS cases: mkfs.xfs failed: $(head -c 200 "$disk/stderr")"
    elif ! mount -o loop "$xfs/img" "$xfs/mnt" 2>"$disk/stderr"; then
        skip "XFS cases: mount -o loop failed: $(head -c 200 "$disk/stderr")"
    else
        make_sets "$xfs/mnt/parts"
        merge_case "xfs->disk" "$xfs/mnt/parts" "$disk/outputs"
        merge_case "xfs->xfs" "$xfs/mnt/parts" "$xfs/mnt"
        rm -rf "$xfs/mnt/parts" "$xfs/mnt/out"
        verified_case "$xfs/mnt"
    fi
fi

echo
echo "fs-matrix: $passed passed, $failed failed"
[ "$failed" = 0 ]
