#ifndef GCDCAT_CGFCOMPLETE_SHIM_H
#define GCDCAT_CGFCOMPLETE_SHIM_H
// GF-Complete (Debian's libgf-complete-dev), the tests' oracle for CGF16. Its w=16 default has
// PAR2's polynomial 0x1100B. Only the tests link it; these wrappers hide its function-pointer
// unions and its rule that a region's source and destination share their alignment.
#include <gf_complete.h>
#include <stdlib.h>
#include <string.h>

/// A w=16 field with GF-Complete's defaults (SPLIT 16 4 region multiply), or NULL.
static inline gf_t *gcdcat_oracle_create(void) {
    gf_t *gf = (gf_t *)calloc(1, sizeof(gf_t));
    if (gf != NULL && !gf_init_easy(gf, 16)) {
        free(gf);
        return NULL;
    }
    return gf;
}

static inline void gcdcat_oracle_destroy(gf_t *gf) {
    gf_free(gf, 0);
    free(gf);
}

static inline uint16_t gcdcat_oracle_mul(gf_t *gf, uint16_t a, uint16_t b) {
    return (uint16_t)gf->multiply.w32(gf, a, b);
}

/// dst ^= c·src over len bytes (even), through 64-byte aligned copies.
static inline int gcdcat_oracle_muladd(gf_t *gf, uint8_t *dst, const uint8_t *src, size_t len, uint16_t c) {
    if (len == 0) return 0;
    uint8_t *s = (uint8_t *)aligned_alloc(64, (len + 63) & ~(size_t)63);
    uint8_t *d = (uint8_t *)aligned_alloc(64, (len + 63) & ~(size_t)63);
    if (s == NULL || d == NULL) {
        free(s);
        free(d);
        return -1;
    }
    memcpy(s, src, len);
    memcpy(d, dst, len);
    gf->multiply_region.w32(gf, s, d, c, (int)len, 1);
    memcpy(dst, d, len);
    free(s);
    free(d);
    return 0;
}
#endif
