#!/usr/bin/env bash
# Verified merge and split with a manifest at the speed of the unverified ones (issue 11):
#   1. hot, on the build folder's disk: a 1 GiB, 16-part set made by `gcdcat split --size 64M`;
#      verified merge vs --no-verify vs `cksfv -f NAME.sfv && cat parts > out`, a verified merge
#      followed by a read-back checksum of the output, and $BEFORE's verified merge if given;
#      `gcdcat verify` of the set vs `cksfv -f`, and `gcdcat checksum` of the whole vs `rhash --crc32`;
#   2. on an XFS loop image (mkfs.xfs -m reflink=1, as root; skipped with a reason where
#      that fails): verified merge and split with manifest vs `cat parts > /dev/null`, the extra
#      disk (df after sync) and cmp of the outputs.
# Interleaved rounds; prints min / median / max seconds of each command.
#   scripts/bench-cow.sh   (GCDCAT=path, BEFORE=path of an older gcdcat, RUNS=5)
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -z "${GCDCAT:-}" ]; then
    swift build -c release --product gcdcat 2>&1 | tail -1
    GCDCAT="$(swift build -c release --show-bin-path)/gcdcat"
fi
G=$(realpath "$GCDCAT")
RUNS=${RUNS:-5}
work=$(mktemp -d "$PWD/.build/gcdcat-cow.XXXXXX")
xfs=""
cleanup() {
    if [ -n "$xfs" ]; then
        mountpoint -q "$xfs/mnt" 2>/dev/null && umount "$xfs/mnt"
        rm -rf "$xfs"
    fi
    rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s.%N; }
# bench LABEL=COMMAND ...: RUNS interleaved rounds, then one stats line per label.
bench() {
    local spec label command start end round
    for round in $(seq "$RUNS"); do
        for spec in "$@"; do
            label=${spec%%=*}
            command=${spec#*=}
            sync  # the previous command's dirty pages are written back outside every timing
            start=$(now)
            (eval "$command") >/dev/null 2>&1 || echo "FAILED: $command" >&2
            end=$(now)
            echo "$end $start" | awk '{printf "%.4f\n", $1 - $2}' >>"$work/t.$label"
        done
    done
    for spec in "$@"; do
        label=${spec%%=*}
        sort -n "$work/t.$label" | awk -v l="$label" '{v[NR]=$1} END {printf "%-22s min %.3f  median %.3f  max %.3f s\n", l, v[1], v[int((NR+1)/2)], v[NR]}'
        rm -f "$work/t.$label"
    done
}
# Used KiB once it stops changing: XFS frees a deleted file's blocks in the background.
used_kib() {
    local last=-1 now
    while :; do
        sync
        now=$(df --output=used "$1" | tail -1)
        [ "$now" = "$last" ] && break
        last=$now
        sleep 1
    done
    echo "$now"
}

echo "== 1 GiB, 16 x 64 MiB, hot, on $(df --output=fstype "$work" | tail -1) =="
head -c $((1 << 30)) /dev/urandom >"$work/whole"
(cd "$work" && "$G" split --size 64M whole -q)
cat "$work"/whole.0* >/dev/null
cases=(
    "verified=rm -f $work/out; $G merge $work/whole.001 -o $work/out -q"
    "no-verify=rm -f $work/out; $G merge $work/whole.001 -o $work/out -q --no-verify"
    "verified+readback=rm -f $work/out; $G merge $work/whole.001 -o $work/out -q && $G checksum $work/out"
    "cksfv+cat=rm -f $work/out; cd $work && cksfv -q -f whole.sfv && cat whole.0* > out"
    "verify=$G verify $work/whole.sfv"
    "cksfv-f=cd $work && cksfv -q -f whole.sfv"
    "checksum=$G checksum $work/whole"
    "rhash-crc32=rhash --crc32 $work/whole"
)
[ -n "${BEFORE:-}" ] && cases+=("before-verified=rm -f $work/out; $BEFORE merge $work/whole.001 -o $work/out -q")
bench "${cases[@]}"
rm -f "$work/out"
$G merge "$work/whole.001" -o "$work/out" -q && cmp "$work/whole" "$work/out" && echo "verified merge output: identical"
rm -f "$work/out"

echo "== the same set on an XFS loop image (reflink=1) =="
if [ "$(id -u)" != 0 ]; then
    echo "skipped: mounting a loop image needs root"
elif ! command -v mkfs.xfs >/dev/null; then
    echo "skipped: mkfs.xfs is not installed (apt-get install xfsprogs)"
else
    xfs=$(mktemp -d "$PWD/.build/gcdcat-cowxfs.XXXXXX")
    mkdir "$xfs/mnt"
    if ! truncate -s 6G "$xfs/img" || ! mkfs.xfs -q -m reflink=1 "$xfs/img" 2>"$work/err" \
        || ! mount -o loop "$xfs/img" "$xfs/mnt" 2>"$work/err"; then
        echo "skipped: cannot make or mount the image: $(head -c 200 "$work/err")"
    else
        m=$xfs/mnt
        cp "$work"/whole "$work"/whole.0* "$work"/whole.sfv "$m/"
        mkdir "$m/s"
        cat "$m"/whole.0* >/dev/null
        cases=(
            "xfs-verified=rm -f $m/out; $G merge $m/whole.001 -o $m/out -q"
            "xfs-no-verify=rm -f $m/out; $G merge $m/whole.001 -o $m/out -q --no-verify"
            "xfs-verified+readback=rm -f $m/out; $G merge $m/whole.001 -o $m/out -q && $G checksum $m/out"
            "xfs-split-manifest=rm -f $m/s/*; $G split --size 64M $m/whole --prefix $m/s/whole. -q"
            "xfs-cat-parts-null=cat $m/whole.0* > /dev/null"
        )
        [ -n "${BEFORE:-}" ] && cases+=(
            "xfs-before-verified=rm -f $m/out; $BEFORE merge $m/whole.001 -o $m/out -q"
            "xfs-before-split=rm -f $m/s/*; $BEFORE split --size 64M $m/whole --prefix $m/s/whole. -q"
        )
        bench "${cases[@]}"
        rm -f "$m/out" "$m"/s/*
        before=$(used_kib "$m")
        $G merge "$m/whole.001" -o "$m/out" -q --report 2>&1 | grep -E "strategy|moved"
        after=$(used_kib "$m")
        echo "xfs verified merge: extra disk $((after - before)) KiB of $((1 << 20)) KiB"
        cmp "$m/whole" "$m/out" && echo "xfs verified merge output: identical"
        before=$(used_kib "$m")
        $G split --size 64M "$m/whole" --prefix "$m/s/whole." -q
        after=$(used_kib "$m")
        echo "xfs split with manifest: extra disk $((after - before)) KiB of $((1 << 20)) KiB"
        cat "$m"/s/whole.0* | cmp - "$m/whole" && (cd "$m/s" && cksfv -q -f whole.sfv) \
            && echo "xfs split parts: identical, manifest verifies (cksfv)"
    fi
fi
