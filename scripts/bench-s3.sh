#!/usr/bin/env bash
# S3 engines against awscli on loopback (issue 14), ratios from one run:
#   1. server-side merge of SIZE in 16 parts (`gcdcat merge s3://b/f.001`, UploadPartCopy)
#      vs `aws s3 cp` of every part down + `cat` + `aws s3 cp` up; goal >= 10x, client bytes
#      (from gcdcat's --json report) below 1 MiB; the parts come from gcdcat's split, so they
#      carry its crc32 records; a second row reads them instead (--no-stored-checksums);
#   2. local -> S3 split and upload (`gcdcat split f --size 64M --prefix s3://b/f.`) vs
#      `aws s3 cp f s3://b/f`; goal >= 1.0x;
#   3. peak RssAnon of gcdcat in each (from its report, sampled from /proc/self/status);
#   4. 1,000 parts of 1 KiB with their SFV (issue 24): the verified server-side merge vs
#      `aws s3 cp --recursive` of them (s3 -> s3), and the merge to a local file vs
#      `aws s3 cp --recursive` down + `cat`; goal >= 1.0x each; the merge to a local file of
#      the 16 parts too;
#   5. the gateway's ceiling for the 16 parts' copies: one upload of 16 UploadPartCopys in
#      parallel from botocore (scripts/s3-copy-ceiling.py), vs gcdcat's server-side merge with
#      --jobs 16 and --no-verify (the same requests); goal: within 1.1x.
# Rows 4 and 5 print the minimum of interleaved runs (RUNS, default 3), then all the runs.
# Every result is read back and compared (crc32 of the whole).
#   scripts/bench-s3.sh [--quick]   (SIZE 1 GiB, 128 MiB with --quick; GCDCAT=path; RUNS=1: best of;
#   PAIRED_RUNS=3: interleaved runs of rows 4 and 5, 2 with --quick)
# Uses GCDCAT_S3_ENDPOINT (and AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) when set; otherwise
# starts its own RGW with scripts/s3-up.sh (RGW port BENCH_S3_PORT, default 7499; MON_PORT
# default 6799) and stops it on exit.
set -uo pipefail
cd "$(dirname "$0")/.."
failed=0
SIZE=$((1 << 30))
[ "${1:-}" = "--quick" ] && SIZE=$((128 << 20))
RUNS=${RUNS:-1}
if [ -z "${GCDCAT:-}" ]; then
    swift build -c release --product gcdcat 2>&1 | tail -1
    GCDCAT="$(swift build -c release --show-bin-path)/gcdcat"
fi
G=$(realpath "$GCDCAT")
command -v aws >/dev/null || { echo "bench-s3: awscli is needed (pip install awscli)" >&2; exit 1; }
work=$(mktemp -d "$PWD/.build/gcdcat-s3.XXXXXX")
ceph=""
cleanup() {
    [ -n "$ceph" ] && scripts/s3-down.sh "$ceph" >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-TESTACCESSKEY}
export AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-TESTSECRETKEY0123456789}
export AWS_DEFAULT_REGION=${AWS_DEFAULT_REGION:-us-east-1}
if [ -z "${GCDCAT_S3_ENDPOINT:-}" ]; then
    port=${BENCH_S3_PORT:-7499}
    ceph="$work/ceph"
    # Room for every copy the rows make: RGW frees deleted data only hours later (its GC).
    MON_PORT=${MON_PORT:-6799} BLUESTORE_BYTES=${BLUESTORE_BYTES:-$((40 << 30))} scripts/s3-up.sh "$ceph" "$port" >"$work/s3-up.log" 2>&1 ||
        { cat "$work/s3-up.log" >&2; exit 1; }
    GCDCAT_S3_ENDPOINT="http://127.0.0.1:$port"
fi
EP=$GCDCAT_S3_ENDPOINT
AWS=(aws --endpoint-url "$EP")
now() { date +%s.%N; }
crc() { "$G" checksum "$1" | grep -v '^;' | awk '{print $NF}'; }
# json KEY FILE: a number from gcdcat's --json report (nested "s3" keys too).
json() { grep -o "\"$1\" : [0-9]*" "$2" | head -1 | awk '{print $3}'; }
# best LABEL COMMAND: the fastest of RUNS runs, in seconds.
best() {
    local label=$1 command=$2 best="" start end t
    for _ in $(seq "$RUNS"); do
        start=$(now)
        # A full OSD stalls requests instead of failing them: bound every command.
        timeout 900 bash -c "$command" >"$work/out.$label" 2>"$work/err.$label" || { echo "FAILED: $label" >&2; touch "$work/failed"; cat "$work/err.$label" >&2; }
        end=$(now)
        t=$(echo "$end $start" | awk '{printf "%.4f", $1 - $2}')
        best=$(echo "$t ${best:-$t}" | awk '{print ($1 < $2 ? $1 : $2)}')
    done
    echo "$best"
}

# interleaved LABEL_A COMMAND_A LABEL_B COMMAND_B: PAIRED_RUNS runs of each, A and B taking
# turns (timing here drifts: docs/notes/s3.md); prints "minA minB" and records every run.
interleaved() {
    local a="" b="" t
    for _ in $(seq "$PAIRED_RUNS"); do
        t=$(RUNS=1 best "$1" "$2"); a="$a $t"
        t=$(RUNS=1 best "$3" "$4"); b="$b $t"
    done
    echo "$1:$a" >>"$work/runs"
    echo "$3:$b" >>"$work/runs"
    echo "$(echo $a | tr ' ' '\n' | sort -g | head -1) $(echo $b | tr ' ' '\n' | sort -g | head -1)"
}
PAIRED_RUNS=${PAIRED_RUNS:-3}
[ "${1:-}" = "--quick" ] && PAIRED_RUNS=${PAIRED_RUNS_QUICK:-2}

mib=$((SIZE >> 20))
part=$((SIZE / 16))
echo "== $mib MiB in 16 parts, RGW $EP, best of $RUNS, load average $(cut -d' ' -f1-3 /proc/loadavg) =="
head -c "$SIZE" /dev/urandom >"$work/whole"
want=$(crc "$work/whole")
bucket="bench-$$-$RANDOM"
"${AWS[@]}" s3 mb "s3://$bucket" >/dev/null
"$G" split "$work/whole" --size "$part" --prefix "s3://$bucket/whole." -q --endpoint-url "$EP" --force ||
    { echo "bench-s3: split to S3 failed" >&2; exit 1; }

# 1. Server-side merge vs download + cat + upload.
t_merge=$(best merge "$G merge s3://$bucket/whole.001 -o s3://$bucket/joined --force -q --json --endpoint-url $EP")
cp "$work/out.merge" "$work/merge.json"
t_read=$(best read "$G merge s3://$bucket/whole.001 -o s3://$bucket/joined-read --no-stored-checksums --force -q --json --endpoint-url $EP")
cp "$work/out.read" "$work/read.json"
t_noverify=$(best noverify "$G merge s3://$bucket/whole.001 -o s3://$bucket/joined-nv --no-verify --force -q --json --endpoint-url $EP")
cp "$work/out.noverify" "$work/noverify.json"
t_aws=$(best awscat "rm -rf $work/dl && mkdir $work/dl && for i in \$(seq -w 1 16); do ${AWS[*]} s3 cp s3://$bucket/whole.0\$i $work/dl/p\$i || exit 1; done && cat $work/dl/p* > $work/dl/all && ${AWS[*]} s3 cp $work/dl/all s3://$bucket/joined-aws")
rm -rf "$work/dl"
"${AWS[@]}" s3 cp "s3://$bucket/joined" "$work/back" >/dev/null && [ "$(crc "$work/back")" = "$want" ] || { echo "MISMATCH: server-side merge" >&2; failed=1; }
rm -f "$work/back"

# 2. local -> S3: split and upload vs aws s3 cp.
t_split=$(best split "$G split $work/whole --size $part --prefix s3://$bucket/up. --force -q --json --endpoint-url $EP")
cp "$work/out.split" "$work/split.json"
t_cp=$(best cp "${AWS[*]} s3 cp $work/whole s3://$bucket/copied")
t_up=$(best upload "$G merge $work/whole --as-given -o s3://$bucket/uploaded --force -q --json --endpoint-url $EP")
cp "$work/out.upload" "$work/upload.json"
"$G" merge "s3://$bucket/up.001" -o "$work/back" -q --endpoint-url "$EP" && [ "$(crc "$work/back")" = "$want" ] ||
    { echo "MISMATCH: split to S3" >&2; failed=1; }

# 3. The same 16 parts merged to a local file vs aws s3 cp --recursive + cat.
read -r t_local t_awslocal <<<"$(interleaved local "rm -f $work/local && $G merge s3://$bucket/whole.001 -o $work/local -q --endpoint-url $EP" \
    awslocal "rm -rf $work/dl && ${AWS[*]} s3 cp --recursive --only-show-errors s3://$bucket/ $work/dl --exclude '*' --include 'whole.0*' && cat $work/dl/whole.0* > $work/dl/all")"
[ "$(crc "$work/local")" = "$want" ] || { echo "MISMATCH: merge to a local file" >&2; failed=1; }
rm -rf "$work/dl" "$work/local"

# 4. 1,000 parts of 1 KiB, with the SFV gcdcat's split writes, uploaded by gcdcat's split.
head -c $((1000 << 10)) /dev/urandom >"$work/tiny"
want_tiny=$(crc "$work/tiny")
"$G" split "$work/tiny" --size 1K --prefix "s3://$bucket/tiny/t." -q --endpoint-url "$EP" ||
    { echo "bench-s3: split of the tiny set to S3 failed" >&2; exit 1; }
read -r t_tiny t_awstiny <<<"$(interleaved tiny "$G merge s3://$bucket/tiny/t.001 -o s3://$bucket/tiny-joined --force -q --endpoint-url $EP" \
    awstiny "${AWS[*]} s3 cp --recursive --only-show-errors s3://$bucket/tiny/ s3://$bucket/tiny-copy/")"
"${AWS[@]}" s3 cp "s3://$bucket/tiny-joined" "$work/back" >/dev/null &&
    [ "$(crc "$work/back")" = "$want_tiny" ] || { echo "MISMATCH: server-side merge of 1,000 parts" >&2; failed=1; }
rm -f "$work/back"
read -r t_tinylocal t_awstinylocal <<<"$(interleaved tinylocal "rm -f $work/tl && $G merge s3://$bucket/tiny/t.001 -o $work/tl -q --endpoint-url $EP" \
    awstinylocal "rm -rf $work/dl && ${AWS[*]} s3 cp --recursive --only-show-errors s3://$bucket/tiny/ $work/dl && cat $work/dl/t.[0-9][0-9][0-9] $work/dl/t.1000 > $work/dl/all")"
[ "$(crc "$work/tl")" = "$want_tiny" ] || { echo "MISMATCH: merge of 1,000 parts to a local file" >&2; failed=1; }
rm -rf "$work/dl" "$work/tl"

# 5. The gateway's ceiling for the 16 copies vs gcdcat's copies (the same requests).
# The ceiling is the script's own time (python's start and botocore's import left out).
copies="" ceilings=""
for _ in $(seq "$PAIRED_RUNS"); do
    copies="$copies $(RUNS=1 best copies "$G merge s3://$bucket/whole.001 -o s3://$bucket/joined-16 --jobs 16 --no-verify --force -q --endpoint-url $EP")"
    python3 scripts/s3-copy-ceiling.py "$EP" "$bucket" whole. 16 ceiling-out >"$work/out.ceiling" ||
        { echo "FAILED: ceiling" >&2; failed=1; }
    ceilings="$ceilings $(tail -1 "$work/out.ceiling")"
done
[ "$("$G" checksum "s3://$bucket/joined-16" --endpoint-url "$EP" | grep -v '^;' | awk '{print $NF}')" = "$want" ] ||
    { echo "MISMATCH: server-side merge with --jobs 16" >&2; failed=1; }
echo "copies:$copies" >>"$work/runs"
echo "ceiling:$ceilings" >>"$work/runs"
t_copies=$(echo $copies | tr ' ' '\n' | sort -g | head -1)
t_ceiling=$(echo $ceilings | tr ' ' '\n' | sort -g | head -1)

ratio() { echo "$1 $2" | awk '{printf "%.2fx", $1 / $2}'; }
anon() { echo "$(( $(json peakRSSAnonBytes "$1") >> 20 )) MiB"; }
printf '%-44s %9s %9s %8s %14s %14s\n' "row" "gcdcat s" "other s" "ratio" "client bytes" "peak RssAnon"
printf '%-44s %9.3f %9.3f %8s %14s %14s\n' "server-side merge, verified, vs aws down+cat+up" "$t_merge" "$t_aws" \
    "$(ratio "$t_aws" "$t_merge")" "$(json clientBytes "$work/merge.json")" "$(anon "$work/merge.json")"
printf '%-44s %9.3f %9.3f %8s %14s %14s\n' "  the same, --no-stored-checksums (reads)" "$t_read" "$t_aws" \
    "$(ratio "$t_aws" "$t_read")" "$(json clientBytes "$work/read.json")" "$(anon "$work/read.json")"
printf '%-44s %9.3f %9.3f %8s %14s %14s\n' "server-side merge, --no-verify, vs the same" "$t_noverify" "$t_aws" \
    "$(ratio "$t_aws" "$t_noverify")" "$(json clientBytes "$work/noverify.json")" "$(anon "$work/noverify.json")"
printf '%-44s %9.3f %9.3f %8s %14s %14s\n' "split to S3 (16 parts) vs aws s3 cp" "$t_split" "$t_cp" \
    "$(ratio "$t_cp" "$t_split")" "$(json clientBytes "$work/split.json")" "$(anon "$work/split.json")"
printf '%-44s %9.3f %9.3f %8s %14s %14s\n' "merge local -> S3 (one object) vs aws s3 cp" "$t_up" "$t_cp" \
    "$(ratio "$t_cp" "$t_up")" "$(json clientBytes "$work/upload.json")" "$(anon "$work/upload.json")"
printf '%-44s %9.3f %9.3f %8s\n' "merge S3 -> local file vs aws cp --recursive+cat" "$t_local" "$t_awslocal" \
    "$(ratio "$t_awslocal" "$t_local")"
printf '%-44s %9.3f %9.3f %8s\n' "1,000 x 1 KiB merged on the server vs aws cp -r" "$t_tiny" "$t_awstiny" \
    "$(ratio "$t_awstiny" "$t_tiny")"
printf '%-44s %9.3f %9.3f %8s\n' "1,000 x 1 KiB merged to a file vs aws cp -r+cat" "$t_tinylocal" "$t_awstinylocal" \
    "$(ratio "$t_awstinylocal" "$t_tinylocal")"
printf '%-44s %9.3f %9.3f %8s\n' "16 copies: gcdcat --jobs 16 vs gateway ceiling" "$t_copies" "$t_ceiling" \
    "$(ratio "$t_copies" "$t_ceiling")"
echo "interleaved runs (seconds):"
sed 's/^/  /' "$work/runs"
echo "check of the verified server-side merge: $(json checkBytesRead "$work/merge.json") bytes read; part crc32s: $(json serverChecksums "$work/merge.json") the server's, $(json recordedChecksums "$work/merge.json") gcdcat's records, $(json readChecksums "$work/merge.json") read"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
# A failed or wrong run fails the script (CI runs it); `best` runs in a subshell, so it leaves a mark.
[ -e "$work/failed" ] && failed=1
exit "$failed"
