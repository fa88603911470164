#!/usr/bin/env bash
# Checks docs/json-schema with an independent validator (Python's jsonschema, draft 2020-12):
# every command's --json output from the built binary, in success and in failure, against
# its schema, and each exit status against the error object's exitStatus.
# Usage: scripts/check-json-schema.sh [path/to/gcdcat]   (default: .build/debug/gcdcat)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
gcdcat=$(realpath "${1:-.build/debug/gcdcat}")
python3 -c 'import jsonschema' 2>/dev/null || { echo "needs Python's jsonschema: pip install jsonschema" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
head -c 5000 /dev/urandom > data.bin
"$gcdcat" split data.bin --size 2000 -q
head -c 100 /dev/urandom > "$(printf 'p\351.bin')"   # a Latin-1 name

failures=0
# check SCHEMA STATUS ARGS...: runs gcdcat ARGS, expects exit STATUS, validates standard output.
check() {
    local schema=$1 status=$2
    shift 2
    local got=0
    "$gcdcat" "$@" > out.json 2> err.txt || got=$?
    if [ "$got" != "$status" ]; then
        echo "FAIL ($schema): gcdcat $* exited $got, not $status: $(cat err.txt)" >&2
        failures=$((failures + 1))
        return
    fi
    if python3 - "$root/docs/json-schema/$schema.json" out.json "$status" <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
document = json.load(open(sys.argv[2], encoding="utf-8"))
errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(document), key=str)
for error in errors:
    print(f"  {'/'.join(map(str, error.absolute_path)) or '/'}: {error.message}", file=sys.stderr)
if "error" in document and document["error"]["exitStatus"] != int(sys.argv[3]):
    print("  error.exitStatus differs from the exit status", file=sys.stderr)
    sys.exit(1)
sys.exit(1 if errors else 0)
PY
    then
        echo "ok   ($schema, exit $status): gcdcat $*"
    else
        echo "FAIL ($schema): gcdcat $*" >&2
        failures=$((failures + 1))
    fi
}

check merge 0 merge data.bin.001 -o out --json
check error 1 merge data.bin.001 -o out --json
check error 1 merge gone.001 --json
check error 64 merge --json --verify --no-verify data.bin.001
"$gcdcat" split data.bin --size 2500 --prefix other.bin. -q && mkdir sets
check merge-sets 0 merge data.bin.001 other.bin.001 -o sets/ --json -q
check merge-sets 1 merge data.bin.001 other.bin.001 --json -q   # data.bin exists
check split 0 split data.bin --size 1500 --prefix s. --json -q
check error 1 split gone.bin --size 1K --json
check error 64 split data.bin --json --size 1K --parts 2
check checksum 0 checksum --json data.bin.001 "$(printf 'p\351.bin')"
check checksum 1 checksum --json --algorithm sha256 data.bin gone
check error 64 checksum --json --format gnu data.bin
check verify 0 verify --json data.bin.sfv
printf 'x' >> data.bin.002
check verify 2 verify --json data.bin.sfv
rm data.bin.003
check verify 1 verify --json data.bin.sfv
check error 64 verify --json --status data.bin.sfv
# A b2sum list whose name names no algorithm: sha512 is assumed, no file confirms it: UNCONFIRMED.
b2sum data.bin.001 > digests.txt
check verify 1 verify --json digests.txt
check checksum 0 checksum --json --algorithm blake2b data.bin.001
check bench 0 bench --size 1M --parts 2 --repeat 1 --high-water 64K --json
check error 64 bench --json --parts 0
check error 1 bench --size 1M --merge-only --json --dir missing/folder
check error 64 uploads s3://bkt/p/ --older-than 5x --json
check protect 0 protect data.bin -o data.par2 --par2 20% --json -q
check verify-par2 0 verify data.par2 --json
check verify-par2 0 verify data.par2 data.vol*.par2 --json   # the volumes: a note, verified once
printf 'X' | dd of=data.bin bs=1 seek=100 conv=notrunc status=none
check verify-par2 2 verify data.par2 --json
check repair 0 repair data.par2 --json
# gcdcat uploads against a live S3 endpoint (the RGW scripts/test.sh starts), when one is named:
# an upload left under the prefix, listed and spared by --older-than, then aborted.
if [ -n "${GCDCAT_S3_ENDPOINT:-}" ]; then
    export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-TESTACCESSKEY}
    export AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-TESTSECRETKEY0123456789}
    bucket=schema-$$-$RANDOM
    sign=(--silent --show-error --fail --aws-sigv4 "aws:amz:us-east-1:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY"
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD")
    curl "${sign[@]}" -X PUT "$GCDCAT_S3_ENDPOINT/$bucket" -o /dev/null
    curl "${sign[@]}" -X POST "$GCDCAT_S3_ENDPOINT/$bucket/p/left?uploads=" -o /dev/null
    s3=(--endpoint-url "$GCDCAT_S3_ENDPOINT")
    check uploads 0 uploads "s3://$bucket/p/" --json "${s3[@]}"
    check uploads 0 uploads "s3://$bucket/p/" --json --older-than 1h "${s3[@]}"
    check uploads 0 uploads "s3://$bucket/p/" --json --abort "${s3[@]}"
    check error 1 uploads "s3://$bucket-missing/p/" --json "${s3[@]}"
    curl "${sign[@]}" -X DELETE "$GCDCAT_S3_ENDPOINT/$bucket" -o /dev/null
fi

# The validator must be able to say no: an unknown error code is rejected.
sed 's/"code" : "[a-zA-Z]*"/"code" : "nope"/' out.json > bad.json
if python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
    "$root/docs/json-schema/error.json" bad.json 2>/dev/null; then
    echo "FAIL: an error object with code \"nope\" passed the schema" >&2
    failures=$((failures + 1))
fi

if [ "$failures" -gt 0 ]; then
    echo "$failures JSON schema check(s) failed" >&2
    exit 1
fi
echo "every --json output validates against docs/json-schema (jsonschema $(python3 -c 'import importlib.metadata as m; print(m.version("jsonschema"))'))"
