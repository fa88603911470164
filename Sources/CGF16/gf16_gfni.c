// GFNI kernel: multiplying by a constant c is linear over GF(2), a 16x16 bit matrix, that is
// four 8x8 blocks (low/high input byte to low/high output byte). gf2p8affineqb applies an 8x8
// bit matrix to every byte, so with the words' low and high bytes packed apart (as in the AVX2
// kernel) a product is four affine transforms and two XORs:
//   low' = A_ll·low ^ A_lh·high,   high' = A_hl·low ^ A_hh·high.
// 256-bit vectors (GFNI with AVX2), so it runs on every CPU with GFNI, AVX-512 or not.
// Its region tests enable themselves where the CPU has GFNI; the matrices themselves are tested
// everywhere through gf16_affine_byte. gf16_gfni512.c runs the same transforms on AVX-512.
#include "gf16_internal.h"


/// The 8x8 matrix whose column k is column[k], in gf2p8affineqb's layout: byte 7 - i of the
/// qword is row i (output bit i is the parity of that byte AND the input byte). With the columns
/// as the bytes of a qword (bit i of byte k is entry (i, k)), that is the bit transpose (three
/// rounds of swaps of 2x2, 4x4 and 16x16-bit blocks) with the bytes reversed: the gfni512
/// matrix entry builds up to 1024 matrices a call, and the bit-by-bit loop this replaced cost
/// about 3% of that call's rate (scripts/bench-gf16.sh, matrix rows, 40.3 against 41.5 GB/s).
static uint64_t gf16_affine_matrix(const uint8_t column[8]) {
    uint64_t x = 0, t;
    for (int k = 0; k < 8; k++) x |= (uint64_t)column[k] << (8 * k);
    t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
    x ^= t ^ (t << 28);
    return __builtin_bswap64(x);
}

void gf16_gfni_matrices(uint16_t c, uint64_t m[4]) {
    uint16_t b[16];
    gf16_basis(c, b);
    uint8_t ll[8], lh[8], hl[8], hh[8];
    for (int k = 0; k < 8; k++) {
        ll[k] = (uint8_t)b[k];
        lh[k] = (uint8_t)b[8 + k];
        hl[k] = (uint8_t)(b[k] >> 8);
        hh[k] = (uint8_t)(b[8 + k] >> 8);
    }
    m[0] = gf16_affine_matrix(ll);
    m[1] = gf16_affine_matrix(lh);
    m[2] = gf16_affine_matrix(hl);
    m[3] = gf16_affine_matrix(hh);
}

uint8_t gf16_affine_byte(uint64_t matrix, uint8_t x) {
    uint8_t out = 0;
    for (int i = 0; i < 8; i++) {
        uint8_t row = (uint8_t)(matrix >> (8 * (7 - i)));
        out |= (uint8_t)((__builtin_popcount(row & x) & 1) << i);
    }
    return out;
}

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define GFNI __attribute__((target("gfni,avx2")))

typedef struct {
    __m256i m[4];
} gfni_matrices;

typedef struct {
    __m256i lows, highs;
} gfni_bytes;

static GFNI inline gfni_matrices gfni_matrices_load(uint16_t c) {
    uint64_t m[4];
    gf16_gfni_matrices(c, m);
    gfni_matrices v;
    for (int i = 0; i < 4; i++) v.m[i] = _mm256_set1_epi64x((long long)m[i]);
    return v;
}

/// The low and high bytes of the 32 words at p, packed apart (lane order as in gf16_avx2.c).
static GFNI inline gfni_bytes gfni_bytes_load(const uint8_t *p) {
    const __m256i low_byte = _mm256_set1_epi16(0x00ff);
    __m256i a = _mm256_loadu_si256((const __m256i *)p), b = _mm256_loadu_si256((const __m256i *)(p + 32));
    gfni_bytes v;
    v.lows = _mm256_packus_epi16(_mm256_and_si256(a, low_byte), _mm256_and_si256(b, low_byte));
    v.highs = _mm256_packus_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8));
    return v;
}

static GFNI inline void gfni_product_xor(uint8_t *dst, const gfni_matrices *t, const gfni_bytes *v) {
    __m256i low = _mm256_xor_si256(_mm256_gf2p8affine_epi64_epi8(v->lows, t->m[0], 0),
                                   _mm256_gf2p8affine_epi64_epi8(v->highs, t->m[1], 0));
    __m256i high = _mm256_xor_si256(_mm256_gf2p8affine_epi64_epi8(v->lows, t->m[2], 0),
                                    _mm256_gf2p8affine_epi64_epi8(v->highs, t->m[3], 0));
    __m256i *out = (__m256i *)dst;
    _mm256_storeu_si256(out, _mm256_xor_si256(_mm256_loadu_si256(out), _mm256_unpacklo_epi8(low, high)));
    _mm256_storeu_si256(out + 1, _mm256_xor_si256(_mm256_loadu_si256(out + 1), _mm256_unpackhi_epi8(low, high)));
}

GFNI void gf16_gfni_muladd(uint8_t *dst, const uint8_t *src, size_t len, uint16_t c) {
    if (c == 0) return;
    const gfni_matrices t = gfni_matrices_load(c);
    const size_t body = len & ~(size_t)63;
    for (size_t i = 0; i < body; i += 64) {
        const gfni_bytes v = gfni_bytes_load(src + i);
        gfni_product_xor(dst + i, &t, &v);
    }
    gf16_tail_muladd(dst + body, src + body, (len - body) / 2, c);
}

static GFNI void gfni_tile(uint8_t *const *dst, const gfni_matrices *t, const uint16_t *c, size_t n,
                           const uint8_t *src, size_t offset, size_t tile) {
    gfni_bytes bytes[GF16_TILE_BYTES / 64];
    for (size_t s = 0; s < tile / 64; s++) bytes[s] = gfni_bytes_load(src + offset + 64 * s);
    for (size_t j = 0; j < n; j++) {
        if (c[j] == 0) continue;
        const gfni_matrices m = t[j];
        uint8_t *out = dst[j] + offset;
        for (size_t s = 0; s < tile / 64; s++) gfni_product_xor(out + 64 * s, &m, &bytes[s]);
    }
}

GFNI void gf16_gfni_muladd_multi(uint8_t *const *dst, const uint16_t *c, size_t ndst, const uint8_t *src,
                                 size_t len) {
    const size_t body = len & ~(size_t)63;
    for (size_t first = 0; first < ndst; first += GF16_OUTPUT_BATCH) {
        const size_t n = ndst - first < GF16_OUTPUT_BATCH ? ndst - first : GF16_OUTPUT_BATCH;
        gfni_matrices t[GF16_OUTPUT_BATCH];
        for (size_t j = 0; j < n; j++) t[j] = gfni_matrices_load(c[first + j]);
        for (size_t offset = 0; offset < body; offset += GF16_TILE_BYTES) {
            const size_t tile = body - offset < GF16_TILE_BYTES ? body - offset : GF16_TILE_BYTES;
            gfni_tile(dst + first, t, c + first, n, src, offset, tile);
        }
        for (size_t j = 0; j < n; j++) gf16_tail_muladd(dst[first + j] + body, src + body, (len - body) / 2, c[first + j]);
    }
}

const gf16_kernel_ops gf16_gfni_ops = {gf16_gfni_muladd, gf16_gfni_muladd_multi, NULL};

#else
// No x86 vector unit: gf16_cpu_supports says so, and this table is never used.
const gf16_kernel_ops gf16_gfni_ops = {0};
void gf16_gfni_muladd(uint8_t *dst, const uint8_t *src, size_t len, uint16_t c) {
    (void)dst, (void)src, (void)len, (void)c;
}
void gf16_gfni_muladd_multi(uint8_t *const *dst, const uint16_t *c, size_t ndst, const uint8_t *src, size_t len) {
    (void)dst, (void)c, (void)ndst, (void)src, (void)len;
}
#endif
