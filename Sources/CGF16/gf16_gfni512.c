// GFNI kernel on AVX-512 (gfni512): the gfni kernel's four 8x8 affine transforms per constant
// (see gf16_gfni.c) on 64-byte vectors, with a matrix entry of its own. The split layout (a
// vector of the words' low bytes, one of their high bytes) costs two packs to enter and two
// unpacks to leave; the matrix entry pays them once per input tile and once per output tile
// and batch, not once per product: each 1 KiB tile of up to GF16_MATRIX_INPUTS inputs is split
// once into scratch memory (16 KiB: it stays in L1), and each output tile is split into 16
// registers, takes every input's product (four vgf2p8affineqb, the matrices broadcast from
// memory, and two vpternlogq that fold the XORs into the accumulator), and is joined and stored
// once. The single-output and multi entries are the gfni kernel's.
#include "gf16_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <stdlib.h>

#define GFNI512 __attribute__((target("gfni,avx512f,avx512bw,avx512vl")))

/// Input bytes per tile: 8 steps of 128 bytes (64 words), the output's 16 accumulators.
#define GFNI512_STEPS 8u
#define GFNI512_TILE (128u * GFNI512_STEPS)

/// The low and high bytes of the 64 words at p. packus works within 128-bit lanes, and so do
/// the unpacks of gfni512_join_xor, so the lane order comes back as it was.
static GFNI512 inline void gfni512_split(const uint8_t *p, __m512i *lows, __m512i *highs) {
    const __m512i low_byte = _mm512_set1_epi16(0x00ff);
    const __m512i a = _mm512_loadu_si512(p), b = _mm512_loadu_si512(p + 64);
    *lows = _mm512_packus_epi16(_mm512_and_si512(a, low_byte), _mm512_and_si512(b, low_byte));
    *highs = _mm512_packus_epi16(_mm512_srli_epi16(a, 8), _mm512_srli_epi16(b, 8));
}

static GFNI512 inline void gfni512_join_store(uint8_t *p, __m512i low, __m512i high) {
    _mm512_storeu_si512(p, _mm512_unpacklo_epi8(low, high));
    _mm512_storeu_si512(p + 64, _mm512_unpackhi_epi8(low, high));
}

/// `steps` 128-byte steps of one output tile at `out` += the products of the inputs listed in
/// `used` (their split tiles in `split`, GFNI512_STEPS steps each, and their matrices in `m`).
/// Always inlined with a constant `steps`, so that the accumulators live in registers.
static GFNI512 __attribute__((always_inline)) inline void gfni512_output_tile(uint8_t *out, const __m512i *split,
                                                                            const uint64_t (*m)[4],
                                                                            const uint8_t *used, size_t nused,
                                                                            const unsigned steps) {
    __m512i low[GFNI512_STEPS], high[GFNI512_STEPS];
    for (unsigned s = 0; s < steps; s++) gfni512_split(out + 128 * s, &low[s], &high[s]);
    for (size_t u = 0; u < nused; u++) {
        const size_t i = used[u];
        const __m512i m0 = _mm512_set1_epi64((long long)m[i][0]), m1 = _mm512_set1_epi64((long long)m[i][1]);
        const __m512i m2 = _mm512_set1_epi64((long long)m[i][2]), m3 = _mm512_set1_epi64((long long)m[i][3]);
        const __m512i *in = split + 2 * GFNI512_STEPS * i;
        for (unsigned s = 0; s < steps; s++) {
            const __m512i lo = in[2 * s], hi = in[2 * s + 1];
            low[s] = _mm512_ternarylogic_epi64(low[s], _mm512_gf2p8affine_epi64_epi8(lo, m0, 0),
                                               _mm512_gf2p8affine_epi64_epi8(hi, m1, 0), 0x96);
            high[s] = _mm512_ternarylogic_epi64(high[s], _mm512_gf2p8affine_epi64_epi8(lo, m2, 0),
                                                _mm512_gf2p8affine_epi64_epi8(hi, m3, 0), 0x96);
        }
    }
    for (unsigned s = 0; s < steps; s++) gfni512_join_store(out + 128 * s, low[s], high[s]);
}

/// Up to GF16_MATRIX_INPUTS inputs into a group of n outputs over [0, body), body a multiple of
/// 128. `m` holds the matrices output-major (m[j * ni + i]), `split` the scratch for the tiles.
static GFNI512 void gfni512_matrix_chunk(uint8_t *const *dst, size_t n, const uint8_t *const *src, size_t ni,
                                         const uint16_t *c, size_t ndst, const uint64_t (*m)[4], size_t body,
                                         __m512i *split) {
    uint8_t input_used[GF16_MATRIX_INPUTS] = {0};
    for (size_t i = 0; i < ni; i++)
        for (size_t j = 0; j < n && !input_used[i]; j++) input_used[i] = c[i * ndst + j] != 0;
    for (size_t offset = 0; offset < body; offset += GFNI512_TILE) {
        const unsigned steps = (unsigned)((body - offset < GFNI512_TILE ? body - offset : GFNI512_TILE) / 128);
        for (size_t i = 0; i < ni; i++) {
            if (!input_used[i]) continue;
            __m512i *in = split + 2 * GFNI512_STEPS * i;
            for (unsigned s = 0; s < steps; s++) gfni512_split(src[i] + offset + 128 * s, &in[2 * s], &in[2 * s + 1]);
        }
        for (size_t j = 0; j < n; j++) {
            uint8_t used[GF16_MATRIX_INPUTS];
            size_t nused = 0;
            for (size_t i = 0; i < ni; i++)
                if (c[i * ndst + j] != 0) used[nused++] = (uint8_t)i;
            if (nused == 0) continue;
            uint8_t *out = dst[j] + offset;
            if (steps == GFNI512_STEPS) {
                gfni512_output_tile(out, split, m + j * ni, used, nused, GFNI512_STEPS);
            } else {  // the last, short tile: a step at a time
                // Each input's split step s sits at split + 2 * (GFNI512_STEPS * i + s).
                for (unsigned s = 0; s < steps; s++)
                    gfni512_output_tile(out + 128 * s, split + 2 * s, m + j * ni, used, nused, 1);
            }
        }
    }
}

static GFNI512 int gfni512_muladd_matrix(uint8_t *const *dst, size_t ndst, const uint8_t *const *src, size_t nsrc,
                                         const uint16_t *c, size_t len) {
    const size_t matrices_bytes = sizeof(uint64_t[4]) * GF16_MATRIX_INPUTS * GF16_MATRIX_GROUP;
    const size_t split_bytes = sizeof(__m512i) * 2 * GFNI512_STEPS * GF16_MATRIX_INPUTS;
    uint8_t *scratch = aligned_alloc(64, matrices_bytes + split_bytes);
    if (!scratch) return 0;
    uint64_t(*m)[4] = (uint64_t(*)[4])scratch;
    __m512i *split = (__m512i *)(scratch + matrices_bytes);
    const size_t body = len & ~(size_t)127;
    // With no whole step (tiny blocks), building the constants' tables is all waste.
    for (size_t first = 0; body > 0 && first < ndst; first += GF16_MATRIX_GROUP) {
        const size_t n = ndst - first < GF16_MATRIX_GROUP ? ndst - first : GF16_MATRIX_GROUP;
        for (size_t i0 = 0; i0 < nsrc; i0 += GF16_MATRIX_INPUTS) {
            const size_t ni = nsrc - i0 < GF16_MATRIX_INPUTS ? nsrc - i0 : GF16_MATRIX_INPUTS;
            const uint16_t *row = c + i0 * ndst + first;
            for (size_t j = 0; j < n; j++)
                for (size_t i = 0; i < ni; i++) {
                    const uint16_t k = row[i * ndst + j];
                    if (k != 0) gf16_gfni_matrices(k, m[j * ni + i]);
                }
            gfni512_matrix_chunk(dst + first, n, src + i0, ni, row, ndst, (const uint64_t(*)[4])m, body, split);
        }
    }
    free(scratch);
    if (body < len)
        for (size_t i = 0; i < nsrc; i++)
            for (size_t j = 0; j < ndst; j++)
                gf16_tail_muladd(dst[j] + body, src[i] + body, (len - body) / 2, c[i * ndst + j]);
    return 1;
}

const gf16_kernel_ops gf16_gfni512_ops = {gf16_gfni_muladd, gf16_gfni_muladd_multi, gfni512_muladd_matrix};

#else
// No x86 vector unit: gf16_cpu_supports says so, and this table is never used.
const gf16_kernel_ops gf16_gfni512_ops = {0};
#endif
