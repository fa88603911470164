#!/usr/bin/env bash
# Re-creates Fixtures/ with the real tools whose output gcdcat must read:
# coreutils split (a set with an uneven last part) and cksfv (its SFV manifest).
# The committed fixtures came from this script; the data is deterministic (seq).
set -euo pipefail
cd "$(dirname "$0")/../Fixtures"
rm -rf cksfv-set && mkdir cksfv-set && cd cksfv-set
seq 1 4000 > data.txt
split -b 6000 -d -a 3 --numeric-suffixes=1 data.txt data.txt.
cksfv -b data.txt.0* > data.txt.sfv
mv data.txt expected.txt
cd ..
# Hand-written manifests for the parser's edge cases.
printf '; CRLF, tabs and lowercase\r\ndata.txt.001\t%s\r\n' \
    "$(grep '^data.txt.001' cksfv-set/data.txt.sfv | awk '{print tolower($2)}')" > cksfv-set/crlf.sfv
printf 'data.txt.001 %s\n/etc/passwd 00000000\n../outside 00000000\n' \
    "$(grep '^data.txt.001' cksfv-set/data.txt.sfv | awk '{print $2}')" > cksfv-set/hostile.sfv
printf 'data.txt.001 %s\nthis line has no crc\n' \
    "$(grep '^data.txt.001' cksfv-set/data.txt.sfv | awk '{print $2}')" > cksfv-set/malformed.sfv
# A cksfv manifest listing Latin-1 names (p\xe9.001, p\xe9.002), as old archives have them. Only
# the manifest is kept: the tests recreate the two tiny parts under their byte names.
rm -rf cksfv-latin1 && mkdir cksfv-latin1 && cd cksfv-latin1
printf 'abc' > "$(printf 'p\351.001')"
printf 'de' > "$(printf 'p\351.002')"
cksfv -b p*.00? > latin1.sfv
rm -f p*.00?
