// Scalar field arithmetic: log/exp tables for gf16_mul/inv/pow (the Reed-Solomon matrix math),
// and the per-constant tables the region kernels are built from.
#include "gf16_internal.h"

#include <pthread.h>
#include <string.h>

// exp has 2·65535 entries so that exp[log a + log b] needs no reduction mod 65535.
static uint16_t gf16_log[65536];
static uint16_t gf16_exp[2 * 65535];
static pthread_once_t gf16_tables_once = PTHREAD_ONCE_INIT;

static void gf16_tables_build(void) {
    uint32_t x = 1;
    for (uint32_t i = 0; i < 65535; i++) {
        gf16_exp[i] = gf16_exp[i + 65535] = (uint16_t)x;
        gf16_log[x] = (uint16_t)i;
        x <<= 1;  // x is the generator: PAR2 2.0 and GF-Complete both use it
        if (x & 0x10000u) x ^= 0x10000u | GF16_POLY_LOW;
    }
}

static inline void gf16_tables_ready(void) { pthread_once(&gf16_tables_once, gf16_tables_build); }

uint16_t gf16_mul(uint16_t a, uint16_t b) {
    if (a == 0 || b == 0) return 0;
    gf16_tables_ready();
    return gf16_exp[(uint32_t)gf16_log[a] + gf16_log[b]];
}

uint16_t gf16_inv(uint16_t a) {
    if (a == 0) return 0;
    gf16_tables_ready();
    return gf16_exp[(65535u - gf16_log[a]) % 65535u];
}

uint16_t gf16_pow(uint16_t a, uint32_t e) {
    if (e == 0) return 1;
    if (a == 0) return 0;
    gf16_tables_ready();
    return gf16_exp[(uint32_t)(((uint64_t)gf16_log[a] * e) % 65535u)];
}

void gf16_basis(uint16_t c, uint16_t b[16]) {
    if (c == 0) {
        memset(b, 0, 16 * sizeof b[0]);
        return;
    }
    // c·x^k = x^(log c + k): sixteen consecutive entries of exp, one load for the kernels'
    // per-call table builds (a doubling chain cost more than the products of a 4 KiB slice).
    gf16_tables_ready();
    memcpy(b, &gf16_exp[gf16_log[c]], 16 * sizeof b[0]);
}

void gf16_tail_muladd(uint8_t *dst, const uint8_t *src, size_t words, uint16_t c) {
    if (words == 0 || c == 0) return;
    if (words > GF16_LOG_TAIL_WORDS) {
        gf16_nibble_tables nt;
        gf16_nibble_tables_init(&nt, c);
        gf16_nibble_muladd(&nt, dst, src, words);
        return;
    }
    gf16_tables_ready();
    const uint32_t log_c = gf16_log[c];
    for (size_t i = 0; i < words; i++) {
        const uint16_t word = (uint16_t)(src[2 * i] | src[2 * i + 1] << 8);
        if (word == 0) continue;
        const uint16_t p = gf16_exp[log_c + gf16_log[word]];
        dst[2 * i] ^= (uint8_t)p;
        dst[2 * i + 1] ^= (uint8_t)(p >> 8);
    }
}

void gf16_nibble_tables_init(gf16_nibble_tables *t, uint16_t c) {
    uint16_t b[16];
    gf16_basis(c, b);
    for (int i = 0; i < 4; i++) {
        uint16_t p[16];
        p[0] = 0;
        for (int j = 0; j < 4; j++)
            for (int m = 0; m < (1 << j); m++) p[(1 << j) + m] = p[m] ^ b[4 * i + j];
        for (int n = 0; n < 16; n++) {
            t->lo[i][n] = (uint8_t)p[n];
            t->hi[i][n] = (uint8_t)(p[n] >> 8);
        }
    }
}
