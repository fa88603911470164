#!/usr/bin/env bash
# Upload concurrency (docs/notes/s3.md, "Upload concurrency"): interleaved runs of `aws s3 cp`
# of FILE, then OLD gcdcat at its default --jobs, then NEW gcdcat's split (--size 64M) and
# merge local -> S3 of FILE at each --jobs in JOBS. Wall seconds, one line per command.
#   scripts/bench-s3-jobs.sh NEW OLD ENDPOINT FILE "2 4 8 10" [RUNS]
# Needs awscli and the RGW's keys (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, test keys by default).
set -uo pipefail
NEW=$1; OLD=$2; EP=$3; F=$4; JOBS=$5; RUNS=${6:-2}
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-TESTACCESSKEY}
export AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-TESTSECRETKEY0123456789}
export AWS_DEFAULT_REGION=${AWS_DEFAULT_REGION:-us-east-1}
b=jobs-$$-$RANDOM
err=$(mktemp)
trap 'rm -f "$err"' EXIT
aws --endpoint-url "$EP" s3 mb "s3://$b" >/dev/null || exit 1
t() {
    local s e
    s=$(date +%s.%N)
    "$@" >/dev/null 2>"$err" || { echo "FAILED: $*" >&2; cat "$err" >&2; }
    e=$(date +%s.%N)
    echo "$e $s" | awk '{printf "%.2f", $1 - $2}'
}
for r in $(seq "$RUNS"); do
    echo "run $r, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "  aws s3 cp: $(t aws --endpoint-url "$EP" s3 cp "$F" "s3://$b/cp")"
    echo "  old (default --jobs): split $(t "$OLD" split "$F" --size 64M --prefix "s3://$b/o." --force -q --endpoint-url "$EP")" \
        " upload $(t "$OLD" merge "$F" --as-given -o "s3://$b/ou" --force -q --endpoint-url "$EP")"
    for j in $JOBS; do
        s=$(t "$NEW" split "$F" --size 64M --prefix "s3://$b/s$j." --force -q --jobs "$j" --endpoint-url "$EP")
        u=$(t "$NEW" merge "$F" --as-given -o "s3://$b/u$j" --force -q --jobs "$j" --endpoint-url "$EP")
        echo "  --jobs $j: split $s  upload $u"
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
