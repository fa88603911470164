#ifndef GCDCAT_MD5_INTERNAL_H
#define GCDCAT_MD5_INTERNAL_H

#include "CMD5.h"

/// The 64 steps over `blocks` 64-byte blocks of one stream (md5.c).
void md5_blocks(uint32_t h[4], const uint8_t *p, size_t blocks);

/// The same over `blocks` blocks of each of eight streams at once: stream l's state is h[l],
/// its data p[l] (md5_avx2.c; call only where the CPU has AVX2).
void md5_blocks_x8_avx2(uint32_t *const h[8], const uint8_t *const p[8], size_t blocks);

#endif
