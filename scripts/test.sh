#!/usr/bin/env bash
# Runs gcdcat's whole test suite. On a fresh machine (as root) it first installs the
# interop tools the tests compare against (7-Zip, cksfv, rhash, par2, rsvg-convert; GF-Complete for CGF16), the C
# libraries gcdcat links (zlib, ISA-L, libdeflate, OpenSSL, libcurl) and Ceph for the S3 tests.
#
# The S3 tests run against a one-node Ceph RGW started here (scripts/s3-up.sh) on a free port
# pair under a temp folder, stopped on exit. Where Ceph cannot be installed or started, one line
# says so and the other tests still run. With GCDCAT_S3_ENDPOINT already set, that server is
# used instead; GCDCAT_S3_PORT and GCDCAT_S3_MON_PORT choose the ports of the one started here.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh p7zip-full=7z cksfv=cksfv rhash=rhash par2=par2 librsvg2-bin=rsvg-convert libgf-complete-dev=/usr/include/gf_complete.h

s3_skip=""
if [ -z "${GCDCAT_S3_ENDPOINT:-}" ]; then
    if ! scripts/deps.sh ceph-mon=ceph-mon ceph-osd=ceph-osd radosgw=radosgw ceph-common=ceph 2>/dev/null; then
        s3_skip="Ceph (ceph-mon ceph-osd radosgw ceph-common) is not installed and cannot be (needs root and apt)"
    else
        s3_dir=$(mktemp -d /tmp/gcdcat-s3.XXXXXX)
        trap 'scripts/s3-down.sh "$s3_dir/ceph"; rm -rf "$s3_dir"' EXIT
        port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
        # GCDCAT_S3_PORT / GCDCAT_S3_MON_PORT pin the ports (machines shared by several users).
        port=${GCDCAT_S3_PORT:-}
        while [ -z "$port" ]; do
            port=$((20000 + RANDOM % 40000))
            port_free "$port" && port_free "$((port + 1))" || port=""
        done
        if MON_PORT=${GCDCAT_S3_MON_PORT:-$((port + 1))} scripts/s3-up.sh "$s3_dir/ceph" "$port" >"$s3_dir/up.log" 2>&1
        then
            export GCDCAT_S3_ENDPOINT="http://127.0.0.1:$port"
            export AWS_ACCESS_KEY_ID=TESTACCESSKEY AWS_SECRET_ACCESS_KEY=TESTSECRETKEY0123456789
            echo "test.sh: S3 tests use a Ceph RGW on $GCDCAT_S3_ENDPOINT" >&2
        else
            s3_skip="Ceph did not start: $(tail -1 "$s3_dir/up.log")"
        fi
    fi
fi
[ -n "$s3_skip" ] && echo "test.sh: skipping the S3 tests: $s3_skip" >&2

swift build --build-tests
swift test --skip-build "$@"
