#!/usr/bin/env bash
# Compares the checksum backends inside one gcdcat binary (GCDCAT_CHECKSUM_BACKEND), on a hot
# file, with 1 and 2 threads, for crc32 and adler32, against `cat FILE > /dev/null` (the cost
# of reading the bytes at all) and `rhash --crc32` from the same run. Prints min, median and
# max of interleaved runs (this VM's timing is bimodal: compare minima), GB/s, and the ratio
# of cat's minimum to each cell's minimum (above 1: faster than cat reads the file).
#
#   scripts/bench-checksum.sh [--size 1G] [--repeat 5]
set -euo pipefail
cd "$(dirname "$0")/.."
size=1G
repeat=5
while [ $# -gt 0 ]; do
    case $1 in
        --size) size=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        *) echo "usage: $0 [--size 1G] [--repeat N]" >&2; exit 64 ;;
    esac
done
swift build -c release 2>&1 | tail -1
G="$(swift build -c release --show-bin-path)/gcdcat"
work=$(mktemp -d /tmp/gcdcat-bench-checksum.XXXXXX)
trap 'rm -rf "$work"' EXIT
head -c "$(numfmt --from=iec "$size")" /dev/urandom >"$work/data"
bytes=$(stat -c %s "$work/data")
cat "$work/data" >/dev/null  # hot

# Every cell: a label and a command; each round runs all cells in a shuffled order.
labels=("cat")
commands=("cat $work/data")
if command -v rhash >/dev/null; then
    labels+=("rhash --crc32")
    commands+=("rhash --crc32 $work/data")
fi
for algorithm in crc32 adler32; do
    for backend in zlib isal libdeflate; do
        for jobs in 1 2; do
            labels+=("$algorithm $backend j$jobs")
            commands+=("env GCDCAT_CHECKSUM_BACKEND=$backend $G checksum --algorithm $algorithm --format simple --jobs $jobs $work/data")
        done
    done
done

declare -A times
for ((round = 0; round < repeat; round++)); do
    for index in $(seq 0 $((${#labels[@]} - 1)) | shuf); do
        start=$(date +%s.%N)
        eval "${commands[$index]}" >/dev/null
        end=$(date +%s.%N)
        times[$index]+="$(echo "$end - $start" | bc) "
    done
done

stats() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[1], a[int((NR+1)/2)], a[NR]}'; }
read -r cat_min _ _ < <(echo "${times[0]}" | stats)
printf '%-22s %9s %9s %9s %8s %8s\n' "cell" "min s" "median s" "max s" "GB/s" "cat/cell"
for index in $(seq 0 $((${#labels[@]} - 1))); do
    read -r min median max < <(echo "${times[$index]}" | stats)
    printf '%-22s %9.3f %9.3f %9.3f %8.2f %8.2f\n' "${labels[$index]}" "$min" "$median" "$max" \
        "$(echo "$bytes / $min / 1000000000" | bc -l)" "$(echo "$cat_min / $min" | bc -l)"
done
echo "bench-checksum.sh: $(numfmt --to=iec "$bytes") hot, $repeat interleaved rounds, $(nproc) cores"
