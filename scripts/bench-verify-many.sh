#!/usr/bin/env bash
# Issue 22's figure: verifying a list of many small files. Makes N files of a few bytes and
# their SHA256SUMS, then times gcdcat verify and sha256sum -c over them, and gcdcat checksum
# and sha256sum writing such a list (names fed by xargs to both alike), hot cache, interleaved
# rounds, and prints each one's wall time, CPU time (user + system: on a loaded machine the
# wall time is the scheduler's) and peak RSS (GNU time's %M), and gcdcat's ratios to
# coreutils: time over time (below 1 is faster) and RSS over RSS.
#
# --checksum adds the writing cells (xargs hands gcdcat checksum thousands of names; it takes
# long runs of names out before swift-argument-parser, whose parsing of N words is quadratic).
#
#   scripts/bench-verify-many.sh [--files 100000] [--repeat 3] [--gcdcat PATH] [--checksum]
set -euo pipefail
cd "$(dirname "$0")/.."
files=100000
repeat=3
G=
cells=1
while [ $# -gt 0 ]; do
    case $1 in
        --files) files=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --gcdcat) G=$(realpath "$2"); shift 2 ;;
        --checksum) cells=3; shift ;;
        *) echo "usage: $0 [--files N] [--repeat N] [--gcdcat PATH] [--checksum]" >&2; exit 64 ;;
    esac
done
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time): apt-get install time" >&2; exit 1; }
if [ -z "$G" ]; then
    swift build -c release --product gcdcat 2>&1 | tail -1
    G="$(swift build -c release --show-bin-path)/gcdcat"
fi
work=$(mktemp -d /tmp/gcdcat-bench-verify-many.XXXXXX)
trap 'rm -rf "$work"' EXIT
# N files of 1 to 64 bytes in one folder, named f0000001 …, and their list.
python3 - "$work" "$files" <<'PY'
import os, sys
folder, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    with open(os.path.join(folder, "f%07d" % i), "wb") as f:
        f.write(os.urandom(1 + i % 64))
PY
(cd "$work" && find . -maxdepth 1 -name 'f*' -printf '%f\n' | sort | xargs sha256sum >SHA256SUMS)
cat "$work"/f* >/dev/null 2>&1 || true  # hot

labels=("sha256sum -c" "gcdcat verify" "sha256sum" "gcdcat checksum")
commands=("sha256sum -c --quiet SHA256SUMS" "$G verify --quiet SHA256SUMS"
    "xargs -a names sha256sum" "xargs -a names $G checksum --algorithm sha256")
(cd "$work" && find . -maxdepth 1 -name 'f*' -printf '%f\n' | sort >names)
declare -A times cpus rss
for ((round = 0; round < repeat; round++)); do
    for index in $(seq 0 "$cells" | shuf); do
        (cd "$work" && /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" sh -c "${commands[$index]}" >/dev/null 2>&1) \
            || { echo "${labels[$index]} failed" >&2; exit 1; }
        read -r seconds user system kilobytes <"$work/time.txt"
        times[$index]+="$seconds "
        cpus[$index]+="$(echo "$user + $system" | bc -l) "
        rss[$index]+="$kilobytes "
    done
done

minimum() { tr ' ' '\n' | grep . | sort -g | head -1; }
printf '%-16s %10s %10s %14s\n' "cell" "min s" "min CPU s" "peak RSS MiB"
for index in $(seq 0 "$cells"); do
    t=$(echo "${times[$index]}" | minimum)
    c=$(echo "${cpus[$index]}" | minimum)
    m=$(echo "${rss[$index]}" | minimum)
    printf '%-16s %10.2f %10.2f %14.1f\n' "${labels[$index]}" "$t" "$c" "$(echo "$m / 1024" | bc -l)"
done
over() {  # $1 / $2 as "N.NNx", or "n/a" when $2 is 0 (a run too short for GNU time's 10 ms)
    if [ "$(echo "$2 == 0" | bc)" = 1 ]; then echo "n/a"; else printf '%.2fx' "$(echo "$1 / $2" | bc -l)"; fi
}
ratio() {  # $1 over $2: time, CPU time and peak RSS
    local ta tb ca cb ma mb
    ta=$(echo "${times[$1]}" | minimum); tb=$(echo "${times[$2]}" | minimum)
    ca=$(echo "${cpus[$1]}" | minimum); cb=$(echo "${cpus[$2]}" | minimum)
    ma=$(echo "${rss[$1]}" | minimum); mb=$(echo "${rss[$2]}" | minimum)
    echo "${labels[$1]} / ${labels[$2]}: time $(over "$ta" "$tb"), CPU time $(over "$ca" "$cb")," \
        "peak RSS $(over "$ma" "$mb")"
}
ratio 1 0
[ "$cells" = 1 ] || ratio 3 2
echo "bench-verify-many.sh: $files files of 1-64 bytes; $repeat interleaved rounds (minimum); $(nproc) cores"
