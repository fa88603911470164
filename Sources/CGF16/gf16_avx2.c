// AVX2 kernel: split tables on 4-bit digits, as GF-Complete's SPLIT 16 4 and ISA-L's ec tables.
// A step takes 64 bytes (32 words): their low and high bytes are packed into two vectors, each
// split into 4-bit digits, and vpshufb looks up the low and high product bytes of every digit
// in 16-entry tables (8 tables per constant, held in registers); unpacking interleaves the
// products back into little-endian words. The multi kernel prepares the digits of a tile once
// and runs every output over them, so an output costs 8 lookups, 2 unpacks and 8 XORs a step.
// The matrix entry folds two inputs into each output step, so the load, unpacks and store of
// the output are paid once per 16 lookups.
#include "gf16_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <stdlib.h>

#define AVX2 __attribute__((target("avx2")))

typedef struct {
    __m256i lo[4], hi[4];
} avx2_tables;

typedef struct {
    __m256i digit[4];  // low byte's low and high digit, then the high byte's
} avx2_digits;

/// c's 8 tables, built in registers: the 16 products c·(n << 4i) of digit position i are the
/// XOR of the basis values c·x^(4i+j) picked by the bits j of n. Each 16-byte table is repeated
/// in both 128-bit lanes, as vpshufb looks up within a lane.
static AVX2 inline avx2_tables avx2_tables_build(uint16_t c) {
    uint16_t b[16];
    gf16_basis(c, b);
    const __m256i n = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m256i low_byte = _mm256_set1_epi16(0x00ff), zero = _mm256_setzero_si256();
    avx2_tables t;
    for (int i = 0; i < 4; i++) {
        __m256i words = zero;
        for (int j = 0; j < 4; j++) {
            const __m256i bit = _mm256_set1_epi16((short)(1 << j));
            const __m256i has_bit = _mm256_cmpeq_epi16(_mm256_and_si256(n, bit), bit);
            words = _mm256_xor_si256(words, _mm256_and_si256(has_bit, _mm256_set1_epi16((short)b[4 * i + j])));
        }
        // packus leaves entries 0-7 in qword 0 and 8-15 in qword 2; 0x88 picks qwords 0,2,0,2.
        t.lo[i] = _mm256_permute4x64_epi64(_mm256_packus_epi16(_mm256_and_si256(words, low_byte), zero), 0x88);
        t.hi[i] = _mm256_permute4x64_epi64(_mm256_packus_epi16(_mm256_srli_epi16(words, 8), zero), 0x88);
    }
    return t;
}

/// The 4-bit digits of the 32 words at p. packus works within 128-bit lanes, and so does the
/// unpack in avx2_product_xor, so the lane order comes back as it was.
static AVX2 inline avx2_digits avx2_digits_load(const uint8_t *p) {
    const __m256i low_byte = _mm256_set1_epi16(0x00ff), digit = _mm256_set1_epi8(0x0f);
    __m256i a = _mm256_loadu_si256((const __m256i *)p), b = _mm256_loadu_si256((const __m256i *)(p + 32));
    __m256i lows = _mm256_packus_epi16(_mm256_and_si256(a, low_byte), _mm256_and_si256(b, low_byte));
    __m256i highs = _mm256_packus_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8));
    avx2_digits d;
    d.digit[0] = _mm256_and_si256(lows, digit);
    d.digit[1] = _mm256_and_si256(_mm256_srli_epi16(lows, 4), digit);
    d.digit[2] = _mm256_and_si256(highs, digit);
    d.digit[3] = _mm256_and_si256(_mm256_srli_epi16(highs, 4), digit);
    return d;
}

/// The low and high product bytes of c·(the words whose digits are d), as the lookups leave
/// them (unpacking interleaves them into words).
static AVX2 inline void avx2_product(const avx2_tables *t, const avx2_digits *d, __m256i *low, __m256i *high) {
    *low = _mm256_xor_si256(
        _mm256_xor_si256(_mm256_shuffle_epi8(t->lo[0], d->digit[0]), _mm256_shuffle_epi8(t->lo[1], d->digit[1])),
        _mm256_xor_si256(_mm256_shuffle_epi8(t->lo[2], d->digit[2]), _mm256_shuffle_epi8(t->lo[3], d->digit[3])));
    *high = _mm256_xor_si256(
        _mm256_xor_si256(_mm256_shuffle_epi8(t->hi[0], d->digit[0]), _mm256_shuffle_epi8(t->hi[1], d->digit[1])),
        _mm256_xor_si256(_mm256_shuffle_epi8(t->hi[2], d->digit[2]), _mm256_shuffle_epi8(t->hi[3], d->digit[3])));
}

/// dst[0..64) ^= c·(the words whose digits are d), with c's tables t.
static AVX2 inline void avx2_product_xor(uint8_t *dst, const avx2_tables *t, const avx2_digits *d) {
    __m256i low, high;
    avx2_product(t, d, &low, &high);
    __m256i *out = (__m256i *)dst;
    _mm256_storeu_si256(out, _mm256_xor_si256(_mm256_loadu_si256(out), _mm256_unpacklo_epi8(low, high)));
    _mm256_storeu_si256(out + 1, _mm256_xor_si256(_mm256_loadu_si256(out + 1), _mm256_unpackhi_epi8(low, high)));
}

static AVX2 void avx2_muladd(uint8_t *dst, const uint8_t *src, size_t len, uint16_t c) {
    if (c == 0) return;
    const avx2_tables t = avx2_tables_build(c);
    const size_t body = len & ~(size_t)63;
    for (size_t i = 0; i < body; i += 64) {
        const avx2_digits d = avx2_digits_load(src + i);
        avx2_product_xor(dst + i, &t, &d);
    }
    gf16_tail_muladd(dst + body, src + body, (len - body) / 2, c);
}

/// One tile of up to GF16_TILE_BYTES (a multiple of 64) into a batch of outputs.
static AVX2 void avx2_tile(uint8_t *const *dst, const avx2_tables *tables, const uint16_t *c, size_t n,
                           const uint8_t *src, size_t offset, size_t tile) {
    avx2_digits digits[GF16_TILE_BYTES / 64];
    for (size_t s = 0; s < tile / 64; s++) digits[s] = avx2_digits_load(src + offset + 64 * s);
    for (size_t j = 0; j < n; j++) {
        if (c[j] == 0) continue;
        const avx2_tables t = tables[j];
        uint8_t *out = dst[j] + offset;
        for (size_t s = 0; s < tile / 64; s++) avx2_product_xor(out + 64 * s, &t, &digits[s]);
    }
}

static AVX2 void avx2_muladd_multi(uint8_t *const *dst, const uint16_t *c, size_t ndst, const uint8_t *src,
                                   size_t len) {
    const size_t body = len & ~(size_t)63;
    for (size_t first = 0; first < ndst; first += GF16_OUTPUT_BATCH) {
        const size_t n = ndst - first < GF16_OUTPUT_BATCH ? ndst - first : GF16_OUTPUT_BATCH;
        avx2_tables tables[GF16_OUTPUT_BATCH];
        for (size_t j = 0; j < n; j++) tables[j] = avx2_tables_build(c[first + j]);
        for (size_t offset = 0; offset < body; offset += GF16_TILE_BYTES) {
            const size_t tile = body - offset < GF16_TILE_BYTES ? body - offset : GF16_TILE_BYTES;
            avx2_tile(dst + first, tables, c + first, n, src, offset, tile);
        }
        for (size_t j = 0; j < n; j++) gf16_tail_muladd(dst[first + j] + body, src + body, (len - body) / 2, c[first + j]);
    }
}

/// dst[0..64) ^= a·(the words whose digits are da) ^ b·(those whose digits are db): two inputs
/// folded into one load and store of the output step.
static AVX2 inline void avx2_product2_xor(uint8_t *dst, const avx2_tables *ta, const avx2_digits *da,
                                          const avx2_tables *tb, const avx2_digits *db) {
    __m256i low_a, high_a, low_b, high_b;
    avx2_product(ta, da, &low_a, &high_a);
    avx2_product(tb, db, &low_b, &high_b);
    const __m256i low = _mm256_xor_si256(low_a, low_b), high = _mm256_xor_si256(high_a, high_b);
    __m256i *out = (__m256i *)dst;
    _mm256_storeu_si256(out, _mm256_xor_si256(_mm256_loadu_si256(out), _mm256_unpacklo_epi8(low, high)));
    _mm256_storeu_si256(out + 1, _mm256_xor_si256(_mm256_loadu_si256(out + 1), _mm256_unpackhi_epi8(low, high)));
}

/// Whether input i has a non-zero coefficient for any of the n outputs.
static inline int avx2_input_used(const uint16_t *c, size_t ndst, size_t i, size_t n) {
    for (size_t j = 0; j < n; j++)
        if (c[i * ndst + j] != 0) return 1;
    return 0;
}

/// Up to GF16_MATRIX_INPUTS inputs, whose tables for the n outputs are `tables` (input-major,
/// a zero coefficient's all zero), through every tile of a group of n outputs, each tile in
/// cache while all of them pass. Inputs go two at a time: each output step is then loaded,
/// unpacked and stored once for two inputs' 16 lookups, not for 8, which ran 1.19x faster per
/// CPU-second than one input a pass with clang (scripts/bench-gf16.sh, matrix rows); three at
/// a time gained nothing more, as their 24 tables no longer fit in the 16 registers.
static AVX2 void avx2_matrix_chunk(uint8_t *const *dst, size_t n, const uint8_t *const *src, size_t ni,
                                   const uint16_t *c, size_t ndst, const avx2_tables *tables, size_t body) {
    avx2_digits digits[2][GF16_MATRIX_TILE / 64];
    for (size_t offset = 0; offset < body; offset += GF16_MATRIX_TILE) {
        const size_t steps = (body - offset < GF16_MATRIX_TILE ? body - offset : GF16_MATRIX_TILE) / 64;
        size_t i = 0;
        for (; i + 2 <= ni; i += 2) {
            const int used_a = avx2_input_used(c, ndst, i, n), used_b = avx2_input_used(c, ndst, i + 1, n);
            if (!used_a && !used_b) continue;
            for (size_t s = 0; s < steps; s++) {
                digits[0][s] = avx2_digits_load(src[i] + offset + 64 * s);
                digits[1][s] = avx2_digits_load(src[i + 1] + offset + 64 * s);
            }
            for (size_t j = 0; j < n; j++) {
                if ((c[i * ndst + j] | c[(i + 1) * ndst + j]) == 0) continue;
                const avx2_tables ta = tables[i * n + j], tb = tables[(i + 1) * n + j];
                uint8_t *out = dst[j] + offset;
                for (size_t s = 0; s < steps; s++)
                    avx2_product2_xor(out + 64 * s, &ta, &digits[0][s], &tb, &digits[1][s]);
            }
        }
        if (i < ni && avx2_input_used(c, ndst, i, n)) {  // an odd count's last input
            for (size_t s = 0; s < steps; s++) digits[0][s] = avx2_digits_load(src[i] + offset + 64 * s);
            for (size_t j = 0; j < n; j++) {
                if (c[i * ndst + j] == 0) continue;
                const avx2_tables t = tables[i * n + j];
                uint8_t *out = dst[j] + offset;
                for (size_t s = 0; s < steps; s++) avx2_product_xor(out + 64 * s, &t, &digits[0][s]);
            }
        }
    }
}

/// gf16_muladd_matrix with each constant's tables built once per call, in scratch memory: the
/// generic tiling builds them again for every 4 KiB tile, which cost a third of the time with
/// 16 inputs into 102 outputs (13.5 against 20.7 GB per CPU second, 1 MiB blocks).
static AVX2 int avx2_muladd_matrix(uint8_t *const *dst, size_t ndst, const uint8_t *const *src, size_t nsrc,
                                   const uint16_t *c, size_t len) {
    avx2_tables *tables = aligned_alloc(32, sizeof(avx2_tables) * GF16_MATRIX_INPUTS * GF16_MATRIX_GROUP);
    if (!tables) return 0;
    const size_t body = len & ~(size_t)63;
    // With no whole step (tiny blocks), building the constants' tables is all waste.
    for (size_t first = 0; body > 0 && first < ndst; first += GF16_MATRIX_GROUP) {
        const size_t n = ndst - first < GF16_MATRIX_GROUP ? ndst - first : GF16_MATRIX_GROUP;
        for (size_t i0 = 0; i0 < nsrc; i0 += GF16_MATRIX_INPUTS) {
            const size_t ni = nsrc - i0 < GF16_MATRIX_INPUTS ? nsrc - i0 : GF16_MATRIX_INPUTS;
            const uint16_t *row = c + i0 * ndst + first;
            for (size_t i = 0; i < ni; i++)
                for (size_t j = 0; j < n; j++)
                    tables[i * n + j] = avx2_tables_build(row[i * ndst + j]);  // zero: all-zero tables
            avx2_matrix_chunk(dst + first, n, src + i0, ni, row, ndst, tables, body);
        }
    }
    free(tables);
    if (body < len)
        for (size_t i = 0; i < nsrc; i++)
            for (size_t j = 0; j < ndst; j++) gf16_tail_muladd(dst[j] + body, src[i] + body, (len - body) / 2, c[i * ndst + j]);
    return 1;
}

const gf16_kernel_ops gf16_avx2_ops = {avx2_muladd, avx2_muladd_multi, avx2_muladd_matrix};

#else
// No x86 vector unit: gf16_cpu_supports says so, and this table is never used.
const gf16_kernel_ops gf16_avx2_ops = {0};
#endif
