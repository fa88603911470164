// Eight MD5 streams at once on AVX2: lane l of each vector holds stream l's 32-bit word, so one
// instruction does a step for eight streams. MD5's 64 steps depend on each other, so a single
// stream leaves most of a core idle (~5 cycles a byte); eight independent ones fill it.
#include "md5_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

typedef __m256i v8;

#define ADD(x, y) _mm256_add_epi32(x, y)
#define XOR(x, y) _mm256_xor_si256(x, y)
#define AND(x, y) _mm256_and_si256(x, y)
#define OR(x, y) _mm256_or_si256(x, y)
#define ROTL(x, s) OR(_mm256_slli_epi32(x, s), _mm256_srli_epi32(x, 32 - (s)))
#define F8(x, y, z) XOR(z, AND(x, XOR(y, z)))
#define G8(x, y, z) XOR(y, AND(z, XOR(x, y)))
#define H8(x, y, z) XOR(XOR(x, y), z)
#define I8(x, y, z) XOR(y, OR(x, XOR(z, ones)))
#define STEP8(f, a, b, c, d, x, t, s)                                   \
    do {                                                                \
        a = ADD(a, ADD(f(b, c, d), ADD(x, _mm256_set1_epi32((int)(t))))); \
        a = ADD(b, ROTL(a, s));                                         \
    } while (0)

/// Rows r[0..7] (eight words of lane 0..7) become columns: r[i] holds word i of every lane.
static AVX2 inline void transpose8(v8 r[8]) {
    const v8 t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    const v8 t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    const v8 t4 = _mm256_unpacklo_epi32(r[4], r[5]), t5 = _mm256_unpackhi_epi32(r[4], r[5]);
    const v8 t6 = _mm256_unpacklo_epi32(r[6], r[7]), t7 = _mm256_unpackhi_epi32(r[6], r[7]);
    const v8 u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
    const v8 u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
    const v8 u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
    const v8 u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
    r[0] = _mm256_permute2x128_si256(u0, u4, 0x20), r[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
    r[1] = _mm256_permute2x128_si256(u1, u5, 0x20), r[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
    r[2] = _mm256_permute2x128_si256(u2, u6, 0x20), r[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
    r[3] = _mm256_permute2x128_si256(u3, u7, 0x20), r[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

AVX2 void md5_blocks_x8_avx2(uint32_t *const h[8], const uint8_t *const p[8], size_t blocks) {
    const v8 ones = _mm256_set1_epi32(-1);
    v8 a = _mm256_setr_epi32((int)h[0][0], (int)h[1][0], (int)h[2][0], (int)h[3][0], (int)h[4][0], (int)h[5][0],
                             (int)h[6][0], (int)h[7][0]);
    v8 b = _mm256_setr_epi32((int)h[0][1], (int)h[1][1], (int)h[2][1], (int)h[3][1], (int)h[4][1], (int)h[5][1],
                             (int)h[6][1], (int)h[7][1]);
    v8 c = _mm256_setr_epi32((int)h[0][2], (int)h[1][2], (int)h[2][2], (int)h[3][2], (int)h[4][2], (int)h[5][2],
                             (int)h[6][2], (int)h[7][2]);
    v8 d = _mm256_setr_epi32((int)h[0][3], (int)h[1][3], (int)h[2][3], (int)h[3][3], (int)h[4][3], (int)h[5][3],
                             (int)h[6][3], (int)h[7][3]);
    for (size_t offset = 0; offset < blocks * 64; offset += 64) {
        v8 x[16];
        for (int l = 0; l < 8; l++) {
            x[l] = _mm256_loadu_si256((const v8 *)(p[l] + offset));
            x[8 + l] = _mm256_loadu_si256((const v8 *)(p[l] + offset + 32));
        }
        transpose8(x);
        transpose8(x + 8);
        const v8 a0 = a, b0 = b, c0 = c, d0 = d;
        STEP8(F8, a, b, c, d, x[0], 0xd76aa478, 7);
        STEP8(F8, d, a, b, c, x[1], 0xe8c7b756, 12);
        STEP8(F8, c, d, a, b, x[2], 0x242070db, 17);
        STEP8(F8, b, c, d, a, x[3], 0xc1bdceee, 22);
        STEP8(F8, a, b, c, d, x[4], 0xf57c0faf, 7);
        STEP8(F8, d, a, b, c, x[5], 0x4787c62a, 12);
        STEP8(F8, c, d, a, b, x[6], 0xa8304613, 17);
        STEP8(F8, b, c, d, a, x[7], 0xfd469501, 22);
        STEP8(F8, a, b, c, d, x[8], 0x698098d8, 7);
        STEP8(F8, d, a, b, c, x[9], 0x8b44f7af, 12);
        STEP8(F8, c, d, a, b, x[10], 0xffff5bb1, 17);
        STEP8(F8, b, c, d, a, x[11], 0x895cd7be, 22);
        STEP8(F8, a, b, c, d, x[12], 0x6b901122, 7);
        STEP8(F8, d, a, b, c, x[13], 0xfd987193, 12);
        STEP8(F8, c, d, a, b, x[14], 0xa679438e, 17);
        STEP8(F8, b, c, d, a, x[15], 0x49b40821, 22);
        STEP8(G8, a, b, c, d, x[1], 0xf61e2562, 5);
        STEP8(G8, d, a, b, c, x[6], 0xc040b340, 9);
        STEP8(G8, c, d, a, b, x[11], 0x265e5a51, 14);
        STEP8(G8, b, c, d, a, x[0], 0xe9b6c7aa, 20);
        STEP8(G8, a, b, c, d, x[5], 0xd62f105d, 5);
        STEP8(G8, d, a, b, c, x[10], 0x02441453, 9);
        STEP8(G8, c, d, a, b, x[15], 0xd8a1e681, 14);
        STEP8(G8, b, c, d, a, x[4], 0xe7d3fbc8, 20);
        STEP8(G8, a, b, c, d, x[9], 0x21e1cde6, 5);
        STEP8(G8, d, a, b, c, x[14], 0xc33707d6, 9);
        STEP8(G8, c, d, a, b, x[3], 0xf4d50d87, 14);
        STEP8(G8, b, c, d, a, x[8], 0x455a14ed, 20);
        STEP8(G8, a, b, c, d, x[13], 0xa9e3e905, 5);
        STEP8(G8, d, a, b, c, x[2], 0xfcefa3f8, 9);
        STEP8(G8, c, d, a, b, x[7], 0x676f02d9, 14);
        STEP8(G8, b, c, d, a, x[12], 0x8d2a4c8a, 20);
        STEP8(H8, a, b, c, d, x[5], 0xfffa3942, 4);
        STEP8(H8, d, a, b, c, x[8], 0x8771f681, 11);
        STEP8(H8, c, d, a, b, x[11], 0x6d9d6122, 16);
        STEP8(H8, b, c, d, a, x[14], 0xfde5380c, 23);
        STEP8(H8, a, b, c, d, x[1], 0xa4beea44, 4);
        STEP8(H8, d, a, b, c, x[4], 0x4bdecfa9, 11);
        STEP8(H8, c, d, a, b, x[7], 0xf6bb4b60, 16);
        STEP8(H8, b, c, d, a, x[10], 0xbebfbc70, 23);
        STEP8(H8, a, b, c, d, x[13], 0x289b7ec6, 4);
        STEP8(H8, d, a, b, c, x[0], 0xeaa127fa, 11);
        STEP8(H8, c, d, a, b, x[3], 0xd4ef3085, 16);
        STEP8(H8, b, c, d, a, x[6], 0x04881d05, 23);
        STEP8(H8, a, b, c, d, x[9], 0xd9d4d039, 4);
        STEP8(H8, d, a, b, c, x[12], 0xe6db99e5, 11);
        STEP8(H8, c, d, a, b, x[15], 0x1fa27cf8, 16);
        STEP8(H8, b, c, d, a, x[2], 0xc4ac5665, 23);
        STEP8(I8, a, b, c, d, x[0], 0xf4292244, 6);
        STEP8(I8, d, a, b, c, x[7], 0x432aff97, 10);
        STEP8(I8, c, d, a, b, x[14], 0xab9423a7, 15);
        STEP8(I8, b, c, d, a, x[5], 0xfc93a039, 21);
        STEP8(I8, a, b, c, d, x[12], 0x655b59c3, 6);
        STEP8(I8, d, a, b, c, x[3], 0x8f0ccc92, 10);
        STEP8(I8, c, d, a, b, x[10], 0xffeff47d, 15);
        STEP8(I8, b, c, d, a, x[1], 0x85845dd1, 21);
        STEP8(I8, a, b, c, d, x[8], 0x6fa87e4f, 6);
        STEP8(I8, d, a, b, c, x[15], 0xfe2ce6e0, 10);
        STEP8(I8, c, d, a, b, x[6], 0xa3014314, 15);
        STEP8(I8, b, c, d, a, x[13], 0x4e0811a1, 21);
        STEP8(I8, a, b, c, d, x[4], 0xf7537e82, 6);
        STEP8(I8, d, a, b, c, x[11], 0xbd3af235, 10);
        STEP8(I8, c, d, a, b, x[2], 0x2ad7d2bb, 15);
        STEP8(I8, b, c, d, a, x[9], 0xeb86d391, 21);
        a = ADD(a, a0), b = ADD(b, b0), c = ADD(c, c0), d = ADD(d, d0);
    }
    uint32_t out[4][8];
    _mm256_storeu_si256((v8 *)out[0], a);
    _mm256_storeu_si256((v8 *)out[1], b);
    _mm256_storeu_si256((v8 *)out[2], c);
    _mm256_storeu_si256((v8 *)out[3], d);
    for (int l = 0; l < 8; l++)
        for (int w = 0; w < 4; w++) h[l][w] = out[w][l];
}

#else
void md5_blocks_x8_avx2(uint32_t *const h[8], const uint8_t *const p[8], size_t blocks) {
    (void)h, (void)p, (void)blocks;
}
#endif
