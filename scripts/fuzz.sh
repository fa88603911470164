#!/usr/bin/env bash
# Builds the libFuzzer target for the SFV, size and numeric-flag parsers and runs it for a fixed time.
#
#   scripts/fuzz.sh [SECONDS]      (default 60)
#
# libFuzzer links GCDCatCore's sources straight into the fuzzer (SwiftPM builds no sanitized
# library for it); the corpus starts from the committed manifests in Fixtures/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=.build/fuzz
mkdir -p "$build/modules" "$build/corpus"
cat > "$build/modules/module.modulemap" <<MAP
module CSystemShim {
    header "$PWD/Sources/CSystemShim/include/CSystemShim.h"
    export *
}
module CBlake2 {
    header "$PWD/Sources/CBlake2/include/CBlake2.h"
    export *
}
module CGF16 {
    header "$PWD/Sources/CGF16/include/gf16.h"
    export *
}
module CMD5 {
    header "$PWD/Sources/CMD5/include/CMD5.h"
    export *
}
MAP
clang -c -O1 -fsanitize=fuzzer-no-link,address -I Sources/CSystemShim/include \
    Sources/CSystemShim/shim.c -o "$build/shim.o"
objects=("$build/shim.o")
for source in Sources/CBlake2/*.c Sources/CGF16/*.c Sources/CMD5/*.c; do
    object="$build/$(basename "$source" .c).o"
    clang -c -O2 -fsanitize=address -I "$(dirname "$source")/include" "$source" -o "$object"
    objects+=("$object")
done
# The core's layers (GCDCatSystem, GCDCatS3) are compiled into the fuzzer's one module with the
# core; their imports are met by empty modules of those names.
: > "$build/empty.swift"
for layer in GCDCatSystem GCDCatS3; do
    swiftc -emit-module -parse-as-library -module-name "$layer" -swift-version 6 "$build/empty.swift" \
        -o "$build/modules/$layer.swiftmodule"
done
swiftc -O -sanitize=fuzzer,address -use-ld=lld -parse-as-library -module-name GCDCatFuzz -package-name gcdcat \
    -swift-version 6 -I "$build/modules" -I Sources/CZlib -I Sources/CIsal -I Sources/CDeflate -I Sources/COpenSSL \
    -I Sources/CCurl $(find Sources/GCDCatSystem Sources/GCDCatS3 Sources/GCDCatCore -name '*.swift') \
    Fuzz/ParserFuzzer.swift "${objects[@]}" -lz -lisal -ldeflate -lcrypto -lcurl -o "$build/parser-fuzzer"
cp Fixtures/cksfv-set/*.sfv "$build/corpus/"
# Seeds for the flag fuzzer: size, high-water, parts, suffix length, start, input size.
printf '1M 64K 3 4 1 1000000' > "$build/corpus/flags-plain"
printf '1 1 50000 32 999999999999 1125899906842623' > "$build/corpus/flags-bounds"
printf '9223372036854775807 1G -1 9223372036854775807 9223372036854775807 7' > "$build/corpus/flags-hostile"
"$build/parser-fuzzer" -max_total_time="$seconds" -max_len=4096 -timeout=5 "$build/corpus"
