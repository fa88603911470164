#!/usr/bin/env bash
# Two gcdcat binaries, every merge strategy × high-water, on the same 1 GiB set in 4 parts
# (made by GNU split, so neither binary finds a manifest to verify against), hot cache.
# Each round runs every cell with both binaries and `cat` in a shuffled order, with `sync`
# outside every timing. Prints min and median per cell and binary, each as a ratio to cat's
# from the same run, and the change (new min / old min). The question it answers: did a
# strategy get slower between two commits?
#
#   scripts/bench-compare.sh OLD_GCDCAT NEW_GCDCAT [RUNS=7] [SIZE=1G]
#   (env STRATEGIES="offsets" HIGH_WATER="1M 8M" narrows the cells)
#
# To build an old commit:  git worktree add /tmp/old REV && (cd /tmp/old && swift build -c release)
set -euo pipefail
old=$(realpath "${1:?usage: $0 OLD_GCDCAT NEW_GCDCAT [RUNS] [SIZE]}")
new=$(realpath "${2:?usage: $0 OLD_GCDCAT NEW_GCDCAT [RUNS] [SIZE]}")
runs=${3:-7}
size=${4:-1G}
work=$(mktemp -d /tmp/gcdcat-compare.XXXXXX)
trap 'rm -rf "$work"' EXIT

head -c "$(numfmt --from=iec "$size")" /dev/urandom >"$work/whole"
(cd "$work" && split -n 4 -d -a 3 --numeric-suffixes=1 whole whole.)
cat "$work"/whole.0* >/dev/null

labels=(cat)
commands=("cat $work/whole.0* > $work/out")
for strategy in ${STRATEGIES:-auto stream offsets dispatchdata}; do
    for hw in ${HIGH_WATER:-64K 1M 2M 8M}; do
        for side in old new; do
            binary=$old
            [ "$side" = new ] && binary=$new
            labels+=("$strategy $hw $side")
            commands+=("$binary merge $work/whole.001 -o $work/out -q --strategy $strategy --high-water $hw 2>/dev/null")
        done
    done
done

declare -A times
for ((round = 0; round < runs; round++)); do
    for index in $(seq 0 $((${#labels[@]} - 1)) | shuf); do
        rm -f "$work/out"
        sync
        start=$(date +%s.%N)
        eval "${commands[$index]}" || { echo "FAILED: ${commands[$index]}" >&2; exit 1; }
        end=$(date +%s.%N)
        cmp -s "$work/whole" "$work/out" || { echo "WRONG OUTPUT: ${commands[$index]}" >&2; exit 1; }
        times[$index]+="$(echo "$end - $start" | bc) "
    done
done

stats() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[1], a[int((NR+1)/2)]}'; }
read -r cat_min cat_median < <(echo "${times[0]}" | stats)
printf 'cat: min %.3f s, median %.3f s (%s rounds, %s, 4 parts)\n' "$cat_min" "$cat_median" "$runs" "$size"
printf '%-13s %4s  %9s %9s %9s  %9s %9s %9s  %8s\n' strategy hw "old min" "×cat" "old med" \
    "new min" "×cat" "new med" "new/old"
for ((index = 1; index < ${#labels[@]}; index += 2)); do
    read -r omin omed < <(echo "${times[$index]}" | stats)
    read -r nmin nmed < <(echo "${times[$((index + 1))]}" | stats)
    read -r strategy hw _ <<<"${labels[$index]}"
    printf '%-13s %4s  %9.3f %9.2f %9.3f  %9.3f %9.2f %9.3f  %8.2f\n' "$strategy" "$hw" \
        "$omin" "$(echo "$cat_min / $omin" | bc -l)" "$omed" \
        "$nmin" "$(echo "$cat_min / $nmin" | bc -l)" "$nmed" "$(echo "$nmin / $omin" | bc -l)"
done
