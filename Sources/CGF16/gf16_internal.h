#ifndef GCDCAT_GF16_INTERNAL_H
#define GCDCAT_GF16_INTERNAL_H

#include "gf16.h"

/// The low 16 bits of the generator polynomial x^16 + x^12 + x^3 + x + 1.
#define GF16_POLY_LOW 0x100Bu

/// The multi kernels prepare this many input bytes at a time into a scratch buffer on the
/// stack, then run every output over it: the prepared tile stays in L1 while each output's
/// slice streams through.
#define GF16_TILE_BYTES 4096u

/// Outputs whose tables are built per pass of the multi kernels (128 bytes each for the
/// split-table kernels: 4 KiB of stack).
#define GF16_OUTPUT_BATCH 32u

/// gf16_muladd_matrix's output tile: GF16_MATRIX_GROUP outputs of GF16_MATRIX_TILE bytes each
/// (256 KiB) are what every input of a batch is multiplied into before the next tile.
#define GF16_MATRIX_TILE 4096u
#define GF16_MATRIX_GROUP 64u

/// gf16_muladd_matrix's kernels with a matrix entry of their own build each constant's tables
/// once per GF16_MATRIX_INPUTS inputs and GF16_MATRIX_GROUP outputs (AVX2: 256 bytes each, so
/// 256 KiB of scratch), not once per tile.
#define GF16_MATRIX_INPUTS 16u

typedef struct {
    void (*muladd)(uint8_t *dst, const uint8_t *src, size_t len, uint16_t c);
    void (*muladd_multi)(uint8_t *const *dst, const uint16_t *c, size_t ndst, const uint8_t *src, size_t len);
    /// gf16_muladd_matrix itself, or NULL for the generic tiling over muladd_multi. Returns 0,
    /// dst untouched, when it cannot have its scratch memory (the caller then tiles generically).
    int (*muladd_matrix)(uint8_t *const *dst, size_t ndst, const uint8_t *const *src, size_t nsrc,
                         const uint16_t *c, size_t len);
} gf16_kernel_ops;

extern const gf16_kernel_ops gf16_scalar_ops;
extern const gf16_kernel_ops gf16_avx2_ops;
extern const gf16_kernel_ops gf16_avx512_ops;
extern const gf16_kernel_ops gf16_gfni_ops;
extern const gf16_kernel_ops gf16_gfni512_ops;

/// The gfni kernel's single-output and multi entries, which gfni512 shares.
void gf16_gfni_muladd(uint8_t *dst, const uint8_t *src, size_t len, uint16_t c);
void gf16_gfni_muladd_multi(uint8_t *const *dst, const uint16_t *c, size_t ndst, const uint8_t *src, size_t len);

/// b[k] = c·x^k for k < 16: the columns of the bit matrix of "multiply by c", from which
/// every table of a constant is built by linearity (c·(u ^ v) = c·u ^ c·v).
void gf16_basis(uint16_t c, uint16_t b[16]);

/// The products of c with each 4-bit digit of a word, as vpshufb tables: entry n of lo[i]
/// (hi[i]) is the low (high) byte of c·(n << 4i).
typedef struct {
    _Alignas(16) uint8_t lo[4][16];
    _Alignas(16) uint8_t hi[4][16];
} gf16_nibble_tables;

void gf16_nibble_tables_init(gf16_nibble_tables *t, uint16_t c);

/// dst ^= c·src over `words` little-endian words, with the tables of c: the vector kernels'
/// tails (shorter than one vector step).
static inline void gf16_nibble_muladd(const gf16_nibble_tables *t, uint8_t *dst, const uint8_t *src, size_t words) {
    for (size_t i = 0; i < words; i++) {
        uint8_t l = src[2 * i], h = src[2 * i + 1];
        dst[2 * i] ^= t->lo[0][l & 15] ^ t->lo[1][l >> 4] ^ t->lo[2][h & 15] ^ t->lo[3][h >> 4];
        dst[2 * i + 1] ^= t->hi[0][l & 15] ^ t->hi[1][l >> 4] ^ t->hi[2][h & 15] ^ t->hi[3][h >> 4];
    }
}

/// Up to this many words, a tail is multiplied word by word through the log and exp tables:
/// building a constant's nibble tables costs more than that. Repairs of tiny blocks (4 bytes)
/// are all tails, one per input and output: the tables' builds took most of such a repair.
#define GF16_LOG_TAIL_WORDS 16

/// dst ^= c·src over `words` little-endian words: every vector kernel's tail (shorter than one
/// vector step).
void gf16_tail_muladd(uint8_t *dst, const uint8_t *src, size_t words, uint16_t c);

/// 1 if the CPU and OS support the instructions of kernel k (CPUID and XGETBV).
int gf16_cpu_supports(gf16_kernel k);

#endif
