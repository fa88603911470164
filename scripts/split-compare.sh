#!/usr/bin/env bash
# Two gcdcat binaries' `split` against GNU split, on the same input into 4 parts by --size, hot
# cache. Each round runs the three in a shuffled order, with `sync` outside every timing, and
# checks that the parts joined are the input. gcdcat writes its manifest, as it does by default
# (with --no-manifest it still reads the input once, for the crc32s its parts' marks record).
# Prints min and median per splitter, each as a ratio to GNU split's from the same run (above 1:
# faster than GNU), and the change (new min / old min).
# The question it answers: did split get slower between two commits?
#
#   scripts/split-compare.sh OLD_GCDCAT NEW_GCDCAT [RUNS=7] [SIZE=512M]
#
# To build an old commit:  git worktree add /tmp/old REV && (cd /tmp/old && swift build -c release)
set -euo pipefail
old=$(realpath "${1:?usage: $0 OLD_GCDCAT NEW_GCDCAT [RUNS] [SIZE]}")
new=$(realpath "${2:?usage: $0 OLD_GCDCAT NEW_GCDCAT [RUNS] [SIZE]}")
runs=${3:-7}
size=$(numfmt --from=iec "${4:-512M}")
part=$(((size + 3) / 4))
work=$(mktemp -d /tmp/gcdcat-split-compare.XXXXXX)
trap 'rm -rf "$work"' EXIT

head -c "$size" /dev/urandom >"$work/in"
cat "$work/in" >/dev/null

labels=(gnu old new)
commands=(
    "split -b $part -d -a 3 $work/in $work/out/in."
    "$old split $work/in --size $part $work/out/in. -q"
    "$new split $work/in --size $part $work/out/in. -q"
)

declare -A times
for ((round = 0; round < runs; round++)); do
    for index in $(seq 0 2 | shuf); do
        rm -rf "$work/out"
        mkdir "$work/out"
        sync
        start=$(date +%s.%N)
        eval "${commands[$index]}" || { echo "FAILED: ${commands[$index]}" >&2; exit 1; }
        end=$(date +%s.%N)
        cat "$work"/out/in.[0-9]* | cmp -s "$work/in" - || { echo "WRONG PARTS: ${commands[$index]}" >&2; exit 1; }
        times[$index]+="$(echo "$end - $start" | bc) "
    done
done

stats() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[1], a[int((NR+1)/2)]}'; }
read -r gnu_min gnu_median < <(echo "${times[0]}" | stats)
printf 'GNU split: min %.3f s, median %.3f s (%s rounds, %s bytes, 4 parts)\n' "$gnu_min" "$gnu_median" "$runs" "$size"
printf '%-4s  %9s %9s %9s\n' who min "×GNU" median
for index in 1 2; do
    read -r min median < <(echo "${times[$index]}" | stats)
    printf '%-4s  %9.3f %9.2f %9.3f\n' "${labels[$index]}" "$min" "$(echo "$gnu_min / $min" | bc -l)" "$median"
done
read -r old_min _ < <(echo "${times[1]}" | stats)
read -r new_min _ < <(echo "${times[2]}" | stats)
printf 'new/old (min): %.2f\n' "$(echo "$new_min / $old_min" | bc -l)"
