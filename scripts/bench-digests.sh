#!/usr/bin/env bash
# Issue 12's figures: sha256 of one file against sha256sum, and verifying 8 files of a list
# (gcdcat verify --jobs, files in parallel) against sha256sum -c over them, which goes serially.
# Issue 22's: BLAKE2b-512 of one file against b2sum, SHA3-256 against rhash --sha3-256.
# Hot files; interleaved rounds; prints min, median and max (this VM's timing is bimodal:
# compare minima) and each cell's speed-up over its sha256sum cell's minimum.
#
#   scripts/bench-digests.sh [--size 1G] [--files 8] [--file-size 128M] [--repeat 3]
set -euo pipefail
cd "$(dirname "$0")/.."
size=1G
files=8
file_size=128M
repeat=3
while [ $# -gt 0 ]; do
    case $1 in
        --size) size=$2; shift 2 ;;
        --files) files=$2; shift 2 ;;
        --file-size) file_size=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        *) echo "usage: $0 [--size 1G] [--files 8] [--file-size 128M] [--repeat N]" >&2; exit 64 ;;
    esac
done
swift build -c release 2>&1 | tail -1
G="$(swift build -c release --show-bin-path)/gcdcat"
work=$(mktemp -d /tmp/gcdcat-bench-digests.XXXXXX)
trap 'rm -rf "$work"' EXIT
head -c "$(numfmt --from=iec "$size")" /dev/urandom >"$work/one"
for ((i = 1; i <= files; i++)); do head -c "$(numfmt --from=iec "$file_size")" /dev/urandom >"$work/f$i"; done
(cd "$work" && sha256sum f* >SUMS)
cat "$work"/one "$work"/f* >/dev/null  # hot

# Each cell: a label, a command, and the index of the sha256sum cell it is compared with.
labels=("sha256sum one" "gcdcat checksum sha256 one" "sha256sum -c SUMS" "gcdcat verify -j2 SUMS" "gcdcat verify -j1 SUMS"
    "b2sum one" "gcdcat checksum blake2b one" "rhash --sha3-256 one" "gcdcat checksum sha3-256 one")
commands=(
    "sha256sum $work/one"
    "$G checksum --algorithm sha256 $work/one"
    "sha256sum -c $work/SUMS"
    "$G verify --jobs 2 $work/SUMS"
    "$G verify --jobs 1 $work/SUMS"
    "b2sum $work/one"
    "$G checksum --algorithm blake2b $work/one"
    "rhash --sha3-256 $work/one"
    "$G checksum --algorithm sha3-256 $work/one"
)
# The cell each is compared with: sha256sum, b2sum or rhash doing the same work.
baseline=(0 0 2 2 2 5 5 7 7)

declare -A times
for ((round = 0; round < repeat; round++)); do
    for index in $(seq 0 $((${#labels[@]} - 1)) | shuf); do
        start=$(date +%s.%N)
        (cd "$work" && eval "${commands[$index]}") >/dev/null 2>&1
        end=$(date +%s.%N)
        times[$index]+="$(echo "$end - $start" | bc) "
    done
done

stats() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[1], a[int((NR+1)/2)], a[NR]}'; }
printf '%-30s %9s %9s %9s %10s\n' "cell" "min s" "median s" "max s" "vs its tool"
for index in $(seq 0 $((${#labels[@]} - 1))); do
    read -r min median max < <(echo "${times[$index]}" | stats)
    read -r base _ _ < <(echo "${times[${baseline[$index]}]}" | stats)
    printf '%-30s %9.3f %9.3f %9.3f %9.2fx\n' "${labels[$index]}" "$min" "$median" "$max" "$(echo "$base / $min" | bc -l)"
done
echo "bench-digests.sh: one file of $size; $files files of $file_size; $repeat interleaved rounds; $(nproc) cores"
