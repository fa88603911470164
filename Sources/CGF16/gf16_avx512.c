// AVX-512BW kernel: the AVX2 kernel's split tables (see gf16_avx2.c) on 64-byte vectors, 128
// bytes a step, with vpternlogq folding three XORs into one instruction. packus, unpack and
// vpshufb all work within 128-bit lanes, so the lane bookkeeping is the AVX2 kernel's.
// Not run on the machine it was written on (no AVX-512): its tests enable themselves where the
// CPU has AVX-512BW.
#include "gf16_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512bw")))

typedef struct {
    __m512i lo[4], hi[4];
} avx512_tables;

typedef struct {
    __m512i digit[4];
} avx512_digits;

static AVX512 inline avx512_tables avx512_tables_load(const gf16_nibble_tables *t) {
    avx512_tables v;
    for (int i = 0; i < 4; i++) {
        v.lo[i] = _mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)t->lo[i]));
        v.hi[i] = _mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)t->hi[i]));
    }
    return v;
}

static AVX512 inline avx512_digits avx512_digits_load(const uint8_t *p) {
    const __m512i low_byte = _mm512_set1_epi16(0x00ff), digit = _mm512_set1_epi8(0x0f);
    __m512i a = _mm512_loadu_si512(p), b = _mm512_loadu_si512(p + 64);
    __m512i lows = _mm512_packus_epi16(_mm512_and_si512(a, low_byte), _mm512_and_si512(b, low_byte));
    __m512i highs = _mm512_packus_epi16(_mm512_srli_epi16(a, 8), _mm512_srli_epi16(b, 8));
    avx512_digits d;
    d.digit[0] = _mm512_and_si512(lows, digit);
    d.digit[1] = _mm512_and_si512(_mm512_srli_epi16(lows, 4), digit);
    d.digit[2] = _mm512_and_si512(highs, digit);
    d.digit[3] = _mm512_and_si512(_mm512_srli_epi16(highs, 4), digit);
    return d;
}

static AVX512 inline __m512i avx512_xor3(__m512i a, __m512i b, __m512i c) {
    return _mm512_ternarylogic_epi64(a, b, c, 0x96);
}

static AVX512 inline void avx512_product_xor(uint8_t *dst, const avx512_tables *t, const avx512_digits *d) {
    __m512i low = avx512_xor3(_mm512_shuffle_epi8(t->lo[0], d->digit[0]), _mm512_shuffle_epi8(t->lo[1], d->digit[1]),
                              _mm512_shuffle_epi8(t->lo[2], d->digit[2]));
    low = _mm512_xor_si512(low, _mm512_shuffle_epi8(t->lo[3], d->digit[3]));
    __m512i high = avx512_xor3(_mm512_shuffle_epi8(t->hi[0], d->digit[0]), _mm512_shuffle_epi8(t->hi[1], d->digit[1]),
                               _mm512_shuffle_epi8(t->hi[2], d->digit[2]));
    high = _mm512_xor_si512(high, _mm512_shuffle_epi8(t->hi[3], d->digit[3]));
    _mm512_storeu_si512(dst, _mm512_xor_si512(_mm512_loadu_si512(dst), _mm512_unpacklo_epi8(low, high)));
    _mm512_storeu_si512(dst + 64, _mm512_xor_si512(_mm512_loadu_si512(dst + 64), _mm512_unpackhi_epi8(low, high)));
}

static AVX512 void avx512_muladd(uint8_t *dst, const uint8_t *src, size_t len, uint16_t c) {
    if (c == 0) return;
    gf16_nibble_tables nt;
    gf16_nibble_tables_init(&nt, c);
    const avx512_tables t = avx512_tables_load(&nt);
    const size_t body = len & ~(size_t)127;
    for (size_t i = 0; i < body; i += 128) {
        const avx512_digits d = avx512_digits_load(src + i);
        avx512_product_xor(dst + i, &t, &d);
    }
    gf16_nibble_muladd(&nt, dst + body, src + body, (len - body) / 2);
}

static AVX512 void avx512_tile(uint8_t *const *dst, const gf16_nibble_tables *nt, const uint16_t *c, size_t n,
                               const uint8_t *src, size_t offset, size_t tile) {
    avx512_digits digits[GF16_TILE_BYTES / 128];
    for (size_t s = 0; s < tile / 128; s++) digits[s] = avx512_digits_load(src + offset + 128 * s);
    for (size_t j = 0; j < n; j++) {
        if (c[j] == 0) continue;
        const avx512_tables t = avx512_tables_load(&nt[j]);
        uint8_t *out = dst[j] + offset;
        for (size_t s = 0; s < tile / 128; s++) avx512_product_xor(out + 128 * s, &t, &digits[s]);
    }
}

static AVX512 void avx512_muladd_multi(uint8_t *const *dst, const uint16_t *c, size_t ndst, const uint8_t *src,
                                       size_t len) {
    const size_t body = len & ~(size_t)127;
    for (size_t first = 0; first < ndst; first += GF16_OUTPUT_BATCH) {
        const size_t n = ndst - first < GF16_OUTPUT_BATCH ? ndst - first : GF16_OUTPUT_BATCH;
        gf16_nibble_tables nt[GF16_OUTPUT_BATCH];
        for (size_t j = 0; j < n; j++) gf16_nibble_tables_init(&nt[j], c[first + j]);
        for (size_t offset = 0; offset < body; offset += GF16_TILE_BYTES) {
            const size_t tile = body - offset < GF16_TILE_BYTES ? body - offset : GF16_TILE_BYTES;
            avx512_tile(dst + first, nt, c + first, n, src, offset, tile);
        }
        for (size_t j = 0; j < n; j++) gf16_nibble_muladd(&nt[j], dst[first + j] + body, src + body, (len - body) / 2);
    }
}

const gf16_kernel_ops gf16_avx512_ops = {avx512_muladd, avx512_muladd_multi, NULL};

#else
// No x86 vector unit: gf16_cpu_supports says so, and this table is never used.
const gf16_kernel_ops gf16_avx512_ops = {0};
#endif
