// The reference kernel: two 256-entry tables per constant (c·b and c·(b << 8) for each byte b),
// so a word costs two lookups. Plain C, no alignment needs; the vector kernels are tested
// against GF-Complete and against this.
#include "gf16_internal.h"

typedef struct {
    uint16_t low[256];
    uint16_t high[256];
} gf16_byte_tables;

static void gf16_byte_tables_init(gf16_byte_tables *t, uint16_t c) {
    uint16_t b[16];
    gf16_basis(c, b);
    t->low[0] = t->high[0] = 0;
    for (int j = 0; j < 8; j++)
        for (int m = 0; m < (1 << j); m++) {
            t->low[(1 << j) + m] = t->low[m] ^ b[j];
            t->high[(1 << j) + m] = t->high[m] ^ b[8 + j];
        }
}

static void scalar_muladd(uint8_t *dst, const uint8_t *src, size_t len, uint16_t c) {
    if (c == 0) return;
    gf16_byte_tables t;
    gf16_byte_tables_init(&t, c);
    for (size_t i = 0; i + 1 < len; i += 2) {
        uint16_t p = t.low[src[i]] ^ t.high[src[i + 1]];
        dst[i] ^= (uint8_t)p;
        dst[i + 1] ^= (uint8_t)(p >> 8);
    }
}

static void scalar_muladd_multi(uint8_t *const *dst, const uint16_t *c, size_t ndst, const uint8_t *src,
                                size_t len) {
    for (size_t d = 0; d < ndst; d++) scalar_muladd(dst[d], src, len, c[d]);
}

const gf16_kernel_ops gf16_scalar_ops = {scalar_muladd, scalar_muladd_multi, NULL};
