#!/usr/bin/env bash
# Tries to break gcdcat: interruptions, full disks, thousands of parts under a small descriptor
# limit, offsets past 4 GiB, parts that change mid-merge, awkward names, symlinks, modes.
# Prints one line per case, "ok" or "FAILED" with what happened, and exits non-zero on any
# failure. Needs root for the small-filesystem case (it says so and skips it otherwise).
#
#   scripts/faults.sh
set -uo pipefail
cd "$(dirname "$0")/.."
swift build -c release 2>&1 | tail -1
G="$(swift build -c release --show-bin-path)/gcdcat"
strategies=(auto stream offsets dispatchdata)

work=$(mktemp -d /tmp/gcdcat-faults.XXXXXX)
big=""
cleanup() {
    mountpoint -q "$work/small" 2>/dev/null && umount "$work/small"
    rm -rf "$work"
    [ -n "$big" ] && rm -rf "$big"
}
trap cleanup EXIT

passed=0
failed=0
ok() { echo "ok      $*"; passed=$((passed + 1)); }
bad() { echo "FAILED  $*"; failed=$((failed + 1)); }
skip() { echo "skipped $*"; }
# Files gcdcat would leave behind by mistake: temporary outputs.
temps() { find "$1" -name '.*.gcdcat-*' 2>/dev/null | head -3; }
# True while process $1 holds an unfinished output in folder $2: an unnamed (O_TMPFILE) file,
# which /proc shows as "DIR/#INODE (deleted)", or a named temporary.
holds() { ls -l "/proc/$1/fd" 2>/dev/null | grep -q -e "$2/#" -e "$2/\..*\.gcdcat-"; }

# Runs "$@" in the background in $dir, waits for a temporary file, sends $sig, and checks the
# exit status and that $dir holds exactly what it held before. Every signal starts at its default
# (env --default-signal): gcdcat keeps a signal ignored when it starts ignored, and a background
# job of this script starts with SIGINT and SIGQUIT ignored.
interrupt() {
    local label=$1 sig=$2 want=$3 dir=$4
    shift 4
    local before after status
    before=$(ls -A "$dir")
    (cd "$dir" && exec env --default-signal "$@") 2>"$work/stderr" &
    local pid=$!
    local seen=no
    for _ in $(seq 1 1000); do
        if [ -n "$(temps "$dir")" ] || holds "$pid" "$dir"; then seen=yes; break; fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.005
    done
    kill -s "$sig" "$pid" 2>/dev/null
    wait "$pid"
    status=$?
    after=$(ls -A "$dir")
    if [ "$seen" != yes ]; then
        bad "$label: no temporary file appeared before the process ended (exit $status)"
    elif [ "$status" != "$want" ]; then
        bad "$label: exit $status, expected $want ($(tail -c 200 "$work/stderr"))"
    elif [ "$before" != "$after" ]; then
        bad "$label: files left behind: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')"
    else
        ok "$label: exit $status, nothing left behind"
    fi
}

echo "== data: 4 parts of 512 MiB of random bytes, and their 2 GiB concatenation"
mkdir -p "$work/m"
for i in 1 2 3 4; do head -c 536870912 /dev/urandom > "$work/m/data.00$i"; done
cat "$work/m"/data.00* > "$work/whole.bin"

echo "== interruption"
for s in "${strategies[@]}"; do
    interrupt "SIGINT during merge --strategy $s" INT 130 "$work/m" "$G" merge data.001 --strategy "$s" --fsync -q
    interrupt "SIGTERM during merge --strategy $s" TERM 143 "$work/m" "$G" merge data.001 --strategy "$s" --fsync -q
done
mkdir -p "$work/s" && mv "$work/whole.bin" "$work/s/whole.bin"
interrupt "SIGINT during split of 2 GiB" INT 130 "$work/s" "$G" split whole.bin --size 256M --fsync -q
interrupt "SIGTERM during split of 2 GiB" TERM 143 "$work/s" "$G" split whole.bin --size 256M --fsync -q
interrupt "SIGINT during split of 2 GiB from stdin" INT 130 "$work/s" sh -c "exec \"$G\" split - --size 256M --fsync -q < whole.bin"

before=$(ls -d /tmp/gcdcat-bench-* 2>/dev/null)
env --default-signal "$G" bench --size 512M --merge-only --repeat 3 >/dev/null 2>"$work/stderr" &
pid=$!
for _ in $(seq 1 2000); do
    grep -q "round 1/3" "$work/stderr" 2>/dev/null && break
    sleep 0.01
done
kill -INT $pid
wait $pid
status=$?
after=$(ls -d /tmp/gcdcat-bench-* 2>/dev/null)
if [ $status = 130 ] && [ "$before" = "$after" ]; then
    ok "SIGINT during bench: exit 130, its generated data removed"
else
    bad "SIGINT during bench: exit $status, left: $(comm -13 <(echo "$before") <(echo "$after"))"
fi

echo "== full disk"
mkdir -p "$work/f" && head -c 3000000 /dev/urandom > "$work/f/p.001" && head -c 1000 /dev/urandom > "$work/f/p.002"
for s in "${strategies[@]}"; do
    out=$("$G" merge "$work/f/p.001" -o /dev/full --strategy "$s" -q 2>&1)
    status=$?
    if [ $status = 1 ] && [[ "$out" == *"No space left on device"* ]] && [ -c /dev/full ] && [ -z "$(temps "$work/f")" ]; then
        ok "merge --strategy $s -o /dev/full: exit 1, '$out'"
    else
        bad "merge --strategy $s -o /dev/full: exit $status, '$out'"
    fi
done
ln -s /dev/full "$work/f/cut.003"
out=$("$G" split "$work/f/p.001" --parts 4 --prefix "$work/f/cut." -q 2>&1)
status=$?
if [ $status = 1 ] && [[ "$out" == *"No space left on device"* ]] && [ "$(ls -A "$work/f" | tr '\n' ' ')" = "cut.003 p.001 p.002 " ]; then
    ok "split with a part on /dev/full: exit 1, the other parts removed"
else
    bad "split with a part on /dev/full: exit $status, '$out', left: $(ls -A "$work/f" | tr '\n' ' ')"
fi
mkdir -p "$work/small"
if mount -t tmpfs -o size=8m tmpfs "$work/small" 2>"$work/mount.err"; then
    head -c 6000000 /dev/urandom > "$work/f/six"
    for s in "${strategies[@]}"; do
        out=$("$G" merge "$work/f/six" "$work/f/six" -o "$work/small/out" --allow-duplicates --strategy "$s" -q 2>&1)
        status=$?
        if [ $status = 1 ] && [[ "$out" == *"No space left on device"* ]] && [ -z "$(ls -A "$work/small")" ]; then
            ok "merge of 12 MB into an 8 MiB tmpfs (--strategy $s): '$out', nothing left"
        else
            bad "merge into a full tmpfs (--strategy $s): exit $status, '$out', left: $(ls -A "$work/small")"
        fi
    done
    # 3 MB already there leaves about 5 MiB: the first 2.9 MB part fits, the next does not.
    head -c 3000000 /dev/urandom > "$work/small/filler"
    out=$("$G" split "$work/f/six" --size 2900000 --prefix "$work/small/six." -q 2>&1)
    status=$?
    if [ $status = 1 ] && [[ "$out" == *"No space left on device"* ]] && [ "$(ls -A "$work/small")" = filler ]; then
        ok "split filling a tmpfs mid-way: '$out', every part removed"
    else
        bad "split filling a tmpfs: exit $status, '$out', left: $(ls -A "$work/small" | tr '\n' ' ')"
    fi
    umount "$work/small"
else
    skip "small filesystem: cannot mount a tmpfs here ($(cat "$work/mount.err")); /dev/full covers ENOSPC"
fi

echo "== 2000 parts under ulimit -n 256"
mkdir -p "$work/many" && head -c 2000000 /dev/urandom > "$work/many/f"
if (ulimit -n 256 && cd "$work/many" && "$G" split f --parts 2000 -q) && [ -f "$work/many/f.2000" ] && [ -f "$work/many/f.999" ]; then
    ok "split into 2000 parts under ulimit -n 256: f.001 … f.999, f.1000 … f.2000"
else
    bad "split into 2000 parts under ulimit -n 256"
fi
mv "$work/many/f" "$work/many.orig"
for s in "${strategies[@]}"; do
    rm -f "$work/many/f"
    if (ulimit -n 256 && cd "$work/many" && "$G" merge f.001 --strategy "$s" -q) && cmp -s "$work/many/f" "$work/many.orig"; then
        ok "merge of 2000 parts (verified by their manifest) under ulimit -n 256 --strategy $s: byte-identical"
    else
        bad "merge of 2000 parts under ulimit -n 256 --strategy $s"
    fi
done

echo "== offsets past 4 GiB (sparse parts)"
big=$(mktemp -d /dev/shm/gcdcat-faults.XXXXXX 2>/dev/null || mktemp -d "$work/big.XXXXXX")
marker() { printf '%s' "$2" | dd of="$1" bs=1 seek="$3" conv=notrunc status=none; }
at() { dd if="$1" bs=1 skip="$2" count="$3" status=none; }
truncate -s 3G "$big/b.001" && marker "$big/b.001" A $((3 * 1024 ** 3 - 1))
truncate -s 2G "$big/b.002" && marker "$big/b.002" B 0 && marker "$big/b.002" C $((2 * 1024 ** 3 - 1))
printf 'DEFGH' > "$big/b.003"
# Sizes no one split writes (3 GiB, 2 GiB, 5 bytes): --as-given joins them as they are.
for s in auto offsets; do
    rm -f "$big/b"
    if "$G" merge "$big/b.001" --as-given --strategy "$s" -q \
        && [ "$(stat -c %s "$big/b")" = $((5 * 1024 ** 3 + 5)) ] \
        && [ "$(at "$big/b" $((3 * 1024 ** 3 - 1)) 2)" = AB ] \
        && [ "$(at "$big/b" $((5 * 1024 ** 3 - 1)) 6)" = CDEFGH ]; then
        ok "merge past 4 GiB --strategy $s: markers at 3 GiB-1, 3 GiB, 5 GiB-1 and 5 GiB exact"
    else
        bad "merge past 4 GiB --strategy $s"
    fi
done
rm -f "$big"/b.00*
if "$G" split "$big/b" --parts 3 --prefix "$big/s." --no-manifest -q \
    && [ "$(stat -c %s "$big/s.001")" = 1789569708 ] && [ "$(stat -c %s "$big/s.003")" = 1789569709 ] \
    && [ "$(at "$big/s.002" $((3 * 1024 ** 3 - 1 - 1789569708)) 2)" = AB ] \
    && [ "$(at "$big/s.003" $((1789569709 - 6)) 6)" = CDEFGH ]; then
    ok "split --parts 3 of a sparse 5 GiB file: GNU's layout (the last part takes the remainder), markers where they belong"
else
    bad "split --parts 3 of a sparse 5 GiB file"
fi
rm -rf "$big"
big=""

echo "== a part that changes during the merge"
mkdir -p "$work/c"
for s in "${strategies[@]}"; do
    for change in shrink grow; do
        rm -f "$work/c"/*
        for i in 1 2 3; do head -c 67108864 /dev/urandom > "$work/c/c.00$i"; done
        cat "$work/c"/c.00* > "$work/c.expected"
        (cd "$work/c" && exec "$G" merge c.001 -o out --strategy "$s" --high-water 4K --jobs 1 -q) 2>"$work/stderr" &
        pid=$!
        for _ in $(seq 1 1000); do holds "$pid" "$work/c" && break; sleep 0.002; done
        if [ $change = shrink ]; then truncate -s 1000 "$work/c/c.002"; else head -c 5000 /dev/urandom >> "$work/c/c.002"; fi
        wait $pid
        status=$?
        if [ $status = 1 ] && [ ! -e "$work/c/out" ] && [ -z "$(temps "$work/c")" ]; then
            ok "part ${change}s during merge --strategy $s: clean error: $(tail -c 150 "$work/stderr")"
        elif [ $status = 0 ] && cmp -s "$work/c/out" "$work/c.expected"; then
            ok "part ${change}s during merge --strategy $s: finished with exactly the promised bytes"
        else
            bad "part ${change}s during merge --strategy $s: exit $status ($(tail -c 200 "$work/stderr"))"
        fi
    done
done

echo "== awkward names"
mkdir -p "$work/n"
head -c 100000 /dev/urandom > "$work/n/my movie ü.zip"
if (cd "$work/n" && "$G" split "my movie ü.zip" --size 30000 -q && mv "my movie ü.zip" orig \
    && "$G" merge "my movie ü.zip.001" -q && cmp -s orig "my movie ü.zip" && "$G" verify "my movie ü.zip.sfv" >/dev/null 2>&1); then
    ok "spaces and unicode: split, merge (verified) and verify"
else
    bad "spaces and unicode in names"
fi
head -c 5000 /dev/urandom > "$work/n/-dash"
if (cd "$work/n" && "$G" split --size 2000 -q -- -dash && "$G" merge -o ./-joined -- -dash.001 && cmp -s -- -dash -joined); then
    ok "a leading '-': split -- -dash, merge -- -dash.001"
else
    bad "a leading '-' in names"
fi

echo "== symlinks, temporary files, modes"
mkdir -p "$work/l" && head -c 1000 /dev/urandom > "$work/l/p.001" && head -c 10 /dev/urandom > "$work/l/p.002"
cp "$work/l/p.001" "$work/p.001.copy"
ln -s p.002 "$work/l/link"
out=$("$G" merge "$work/l/p.001" -o "$work/l/link" --force 2>&1)
status=$?
if [ $status = 1 ] && [[ "$out" == *"is the input file"* ]] && cmp -s "$work/l/p.001" "$work/p.001.copy" && [ -L "$work/l/link" ]; then
    ok "an output that is a symlink to an input is refused: '$out'"
else
    bad "symlink to an input as output: exit $status, '$out'"
fi
if command -v strace >/dev/null; then
    strace -f -e trace=openat,linkat "$G" merge "$work/l/p.001" -o "$work/l/traced" -q 2>"$work/trace"
    if grep -q 'O_TMPFILE' "$work/trace" && grep -q "linkat(AT_FDCWD, \"/proc/self/fd/[0-9]*\", AT_FDCWD, \"$work/l/traced\"" "$work/trace"; then
        ok "the output is created unnamed (O_TMPFILE) and linked into place"
    else
        bad "the output is not created with O_TMPFILE and linkat"
    fi
else
    skip "O_EXCL check: strace is not installed"
fi
for mask in 022 027 000; do
    rm -f "$work/l/moded"
    (umask $mask && "$G" merge "$work/l/p.001" -o "$work/l/moded" -q)
    want=$(printf '%o' $((0666 & ~0$mask)))
    got=$(stat -c %a "$work/l/moded")
    [ "$got" = "$want" ] && ok "umask $mask gives mode $got" || bad "umask $mask gave mode $got, expected $want"
done

echo "== more bad input"
printf 'p.001 00000000\np.001 00000001\n' > "$work/l/dup.sfv"
out=$("$G" verify "$work/l/dup.sfv" 2>&1); status=$?
[ $status = 1 ] && [[ "$out" == *"listed twice"* ]] && ok "a manifest listing a part twice: '$out'" || bad "manifest listing a part twice: exit $status, '$out'"
# Beside p.001, that list would stop the merges below (it gives p.001 two values).
rm -f "$work/l/dup.sfv"
# --as-given: p.002 lies beside, and a list stopping at p.001 is refused for that before the
# duplicate would be seen; here the duplicate check alone is under test.
out=$("$G" merge "$work/l/p.001" "$work/l/p.001" -o "$work/l/twice" --as-given 2>&1); status=$?
[ $status = 1 ] && [[ "$out" == *"same file as"* ]] && [ ! -e "$work/l/twice" ] && ok "a part given twice: '$out'" || bad "part given twice: exit $status, '$out'"
"$G" merge "$work/l/p.001" "$work/l/p.001" -o "$work/l/twice" --as-given --allow-duplicates -q && [ "$(stat -c %s "$work/l/twice")" = 2000 ] \
    && ok "a part given twice with --allow-duplicates" || bad "--allow-duplicates"
mkdir -p /dev/shm/gcdcat-other.$$
# A lone file, not a numbered part: a lone p.002 is now refused as "not the first part".
cp "$work/l/p.002" "$work/l/single"
if "$G" merge "$work/l/single" -o /dev/shm/gcdcat-other.$$/out -q && cmp -s "$work/l/single" /dev/shm/gcdcat-other.$$/out \
    && [ -z "$(temps "$work/l")" ] && [ -z "$(temps /dev/shm/gcdcat-other.$$)" ]; then
    ok "an output on another filesystem (tmpfs) than the parts: renamed within its own folder"
else
    bad "output on another filesystem"
fi
rm -rf /dev/shm/gcdcat-other.$$
mkfifo "$work/l/fifo"
# --as-given: a file that is no part of the set is refused as a stray before it is opened.
out=$("$G" merge "$work/l/p.001" "$work/l/fifo" -o "$work/l/x" --as-given 2>&1); status=$?
[ $status = 1 ] && [[ "$out" == *"not a regular file (a FIFO)"* ]] && ok "a FIFO part is refused up front: '$out'" || bad "FIFO part: exit $status, '$out'"
out=$("$G" merge /proc/self/status -o "$work/l/x" 2>&1); status=$?
if [ $status = 1 ] && [ ! -e "$work/l/x" ]; then ok "a /proc file as a part: '$out'"; else bad "/proc part: exit $status, '$out'"; fi

# ---------------------------------------------------------------------------------------------
# Robustness (issue 10): one signal policy, SIGKILL, checked standard output.
# ---------------------------------------------------------------------------------------------
echo "== robust: catchable signals at random moments, 50 runs"
r="$work/robust"
mkdir -p "$r/m" "$r/s/o"
head -c 1000000 /dev/urandom > "$r/m/a.001" && truncate -s 3G "$r/m/a.002"
head -c 200000 /dev/urandom > "$r/s/in"
signals=(INT TERM HUP PIPE QUIT ALRM)
leaks=0
for run in $(seq 0 49); do
    sig=${signals[$((run % 6))]}
    want=$((128 + $(kill -l "$sig")))
    delay=$(printf '0.%02d' $((10 + RANDOM % 60)))
    case $((run % 3)) in
        0) dir="$r/m"; (cd "$dir" && exec env --default-signal "$G" merge a.001 --strategy stream --high-water 4K -q) 2>/dev/null & ;;
        1) dir="$r/s"; (cd "$dir" && exec env --default-signal "$G" split in --size 10 --prefix o/p. -q) 2>/dev/null & ;;
        2) dir="$r/s"; (cd "$dir" && exec env --default-signal "$G" split - --size 10 --prefix o/q. -q < in) 2>/dev/null & ;;
    esac
    pid=$!
    before=$(ls -A "$dir")
    sleep "$delay"
    kill -s "$sig" $pid 2>/dev/null
    wait $pid
    status=$?
    if [ $status = 0 ]; then rm -rf "$r/m/a" "$r/s/o"/*; fi
    if { [ $status != "$want" ] && [ $status != 0 ]; } || [ "$(ls -A "$dir")" != "$before" ] || [ -n "$(ls -A "$r/s/o")" ]; then
        bad "SIG$sig after ${delay}s (run $run): exit $status (want $want); left: $(ls -A "$dir" "$r/s/o" | tr '\n' ' ' | head -c 200)"
        leaks=$((leaks + 1))
        rm -rf "$r/m/a" "$r/s/o"/*
    fi
done
[ $leaks = 0 ] && ok "50 signals (INT TERM HUP PIPE QUIT ALRM) at 0.10-0.69 s into merge, split and stdin split: 128+N, nothing left"

echo "== robust: nohup (SIGHUP ignored at start) keeps a merge going through a hangup"
mkdir -p "$r/n"
head -c 1000000 /dev/urandom > "$r/n/n.001" && truncate -s 160M "$r/n/n.002"
(cd "$r/n" && exec nohup "$G" merge n.001 -o out --strategy stream --high-water 4K -q) >/dev/null 2>"$work/stderr" &
pid=$!
for _ in $(seq 1 500); do holds $pid "$r/n" && break; sleep 0.01; done
kill -HUP $pid 2>/dev/null && sent=yes || sent=no
wait $pid
status=$?
if [ $sent = yes ] && [ $status = 0 ] && cat "$r/n/n.001" "$r/n/n.002" | cmp -s - "$r/n/out"; then
    ok "nohup merge: SIGHUP mid-merge ignored, exit 0, output byte-identical"
else
    bad "nohup merge: signal sent while running: $sent, exit $status ($(tail -c 200 "$work/stderr"))"
fi
rm -rf "$r/n"

echo "== robust: SIGKILL mid-merge"
(cd "$r/m" && exec "$G" merge a.001 --strategy stream --high-water 4K -q) 2>/dev/null &
pid=$!
for _ in $(seq 1 500); do holds $pid "$r/m" && break; sleep 0.01; done
unnamed=$(ls -l /proc/$pid/fd 2>/dev/null | grep -c "$r/m/#")
kill -KILL $pid
wait $pid
status=$?
if [ $status = 137 ] && [ "$unnamed" = 1 ] && [ "$(ls -A "$r/m" | tr '\n' ' ')" = "a.001 a.002 " ]; then
    ok "SIGKILL mid-merge: the output was unnamed (O_TMPFILE), nothing left behind"
else
    bad "SIGKILL mid-merge: exit $status, unnamed outputs seen: $unnamed, left: $(ls -A "$r/m" | tr '\n' ' ')"
fi

echo "== robust: standard output on a full disk"
mkdir -p "$r/j" && head -c 1000 /dev/urandom > "$r/j/p.001" && head -c 1000 /dev/urandom > "$r/j/p.002"
for command in "checksum p.001" "merge p.001 -o /dev/null --json -q --force" "split p.001 --size 300 --prefix s. --json -q"; do
    out=$(cd "$r/j" && "$G" $command 2>&1 >/dev/full)
    status=$?
    rm -f "$r/j"/s.*
    if [ $status = 1 ] && [[ "$out" == *"standard output: write: No space left on device"* ]]; then
        ok "gcdcat $command > /dev/full: exit 1, '$out'"
    else
        bad "gcdcat $command > /dev/full: exit $status, '$out'"
    fi
done

echo "== robust: a stdin line split onto a nearly full disk"
mkdir -p "$r/tiny"
if mount -t tmpfs -o size=256k tmpfs "$r/tiny" 2>"$work/mount.err"; then
    { echo "id,name,value"; for i in $(seq 1 40000); do echo "$i,row$i,$((i * 7))"; done; } > "$r/rows.csv"
    out=$("$G" split - --size 20K --line-boundary --header-lines 1 --prefix "$r/tiny/x." -q < "$r/rows.csv" 2>&1)
    status=$?
    if [ $status = 1 ] && [[ "$out" == *"No space left on device"* ]] && [ -z "$(ls -A "$r/tiny")" ]; then
        ok "stdin split with a header onto a full tmpfs: '$out', nothing left"
    else
        bad "stdin split with a header onto a full tmpfs: exit $status, '$out', left: $(ls -A "$r/tiny" | head -c 200)"
    fi
    umount "$r/tiny"
else
    skip "full-disk stdin split: cannot mount a tmpfs here ($(cat "$work/mount.err"))"
fi

echo "== under a memory limit (ulimit -v): a clean error or a correct output, never a trap or a hang"
mkdir -p "$work/mem"
head -c 300000000 /dev/urandom >"$work/mem/whole"
(cd "$work/mem" && split -b 100000000 -d -a 3 --numeric-suffixes=1 whole w.)
# memlimit LABEL KB MUST_FAIL ARGS...: runs a merge of w.001.. into out under ulimit -v KB.
memlimit() {
    local label=$1 kb=$2 must_fail=$3 status out
    shift 3
    rm -f "$work/mem/out"
    out=$( (ulimit -v "$kb" && cd "$work/mem" && exec timeout 60 "$G" merge w.001 -o out -q "$@") 2>&1)
    status=$?
    out=$(printf '%s\n' "$out" | grep -v 'warning:')
    if [ -n "$(temps "$work/mem")" ]; then
        bad "$label: a temporary file was left: $(temps "$work/mem")"
    elif [ $status = 1 ] && [[ "$out" =~ ^gcdcat:\ [^\ ]+:\ (mmap|malloc):\ Cannot\ allocate\ memory$ ]] \
        && [ ! -e "$work/mem/out" ]; then
        ok "$label: exit 1, '$out'"
    elif [ $status = 0 ] && [ "$must_fail" = no ] && cmp -s "$work/mem/whole" "$work/mem/out"; then
        ok "$label: fits, output identical"
    else
        bad "$label: exit $status (124 is a hang, 134 a trap), '$out'"
    fi
}
memlimit "stream --high-water 64M under ulimit -v 400000" 400000 yes --strategy stream --high-water 64M
memlimit "offsets --high-water 64M --jobs 8 under ulimit -v 400000" 400000 no --strategy offsets --high-water 64M --jobs 8
# Near the limit libdispatch can fail to start a thread and retry for ever; the up-front check
# and the stall watchdog turn that into a clean error (see StallWatchdog).
for kb in 450000 520000 560000 800000 1000000 1000000; do
    memlimit "dispatchdata, 300 MB under ulimit -v $kb" "$kb" no --strategy dispatchdata
done
for strategy in auto stream offsets; do
    memlimit "$strategy, 300 MB under ulimit -v 800000" 800000 no --strategy $strategy
done
rm -rf "$work/mem"

echo
echo "faults: $passed passed, $failed failed"
GCDCAT="$G" scripts/fs-matrix.sh || failed=$((failed + 1))
[ "$failed" = 0 ]
