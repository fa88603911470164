#!/usr/bin/env bash
# GF(2^16) multiply-add kernels (Sources/CGF16, PAR2's region math): compiles a small C driver
# against them with clang -O2 (the compiler SwiftPM builds them with: the AVX2 matrix kernel's
# two-inputs-a-pass loop runs 1.15x faster than one input a pass under clang, but slower under
# gcc, which spills its 16 tables; CC=... overrides) and prints the GB/s of multiply-add work (input bytes x outputs per
# second) of every kernel this CPU runs, for gf16_muladd over whole 1 MiB blocks and
# gf16_muladd_multi into 4 … 102 outputs (PAR2's 10% of 1 GiB in 1 MiB blocks), next to
# GF-Complete's region multiply-xor from the same run. Cells run interleaved; min, median and
# max of the rounds are printed, the rate and the ratio from the minimum. The driver first
# checks every kernel's output against GF-Complete and exits 1 on a difference.
#
# The multi cells feed every input through one slice of the outputs before the next slice
# (--slice, 4096 bytes by default: 102 slices stay in L2), as a PAR2 engine should call it;
# the 1 MiB-slice row shows what happens when it does not. "th 2" splits the block's bytes
# between two threads: the kernels are single-threaded; the caller uses the cores. The matrix
# rows are the PAR2 engine's own call: gf16_muladd_matrix with every input at once, on 128 KiB
# stretches of the blocks.
#
#   scripts/bench-gf16.sh [--repeat 5] [--inputs 16] [--slice 4096]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh libgf-complete-dev=/usr/include/gf_complete.h
work=$(mktemp -d /tmp/gcdcat-bench-gf16.XXXXXX)
trap 'rm -rf "$work"' EXIT
${CC:-$(command -v clang || echo cc)} -O2 -std=c11 -Wall -Wextra -I Sources/CGF16/include Sources/CGF16/*.c scripts/bench-gf16.c \
    -lgf_complete -lpthread -o "$work/bench-gf16"
grep -m1 'model name' /proc/cpuinfo || true
echo "cores: $(nproc); load average: $(cut -d" " -f1-3 /proc/loadavg)"
"$work/bench-gf16" "$@"
