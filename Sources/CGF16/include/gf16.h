#ifndef GCDCAT_GF16_H
#define GCDCAT_GF16_H

// Arithmetic in GF(2^16) with the generator polynomial 0x1100B (x^16 + x^12 + x^3 + x + 1),
// the field of PAR2 2.0 and of GF-Complete's default for w=16, and the region multiply-add
// that Reed-Solomon encoding and repair spend their time in.
//
// Regions are plain byte buffers holding little-endian 16-bit words, as PAR2 stores blocks:
// no hidden layout, no conversion step. Lengths are in bytes and should be even; an odd final
// byte is left untouched. Any alignment is correct; the vector kernels run fastest when `dst`
// and `src` are 32-byte aligned (64 for avx512). Every function is single-threaded and
// reentrant: a caller that wants several cores (the PAR2 engine does) gives each thread its
// own outputs or its own slice of the blocks.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// a·b in GF(2^16).
uint16_t gf16_mul(uint16_t a, uint16_t b);

/// The multiplicative inverse of a; 0 for a == 0 (which has none).
uint16_t gf16_inv(uint16_t a);

/// a to the power e; gf16_pow(a, 0) == 1 for every a, including 0.
uint16_t gf16_pow(uint16_t a, uint32_t e);

/// dst ^= c·src over `len` bytes (len / 2 words).
void gf16_muladd(uint8_t *dst, const uint8_t *src, size_t len, uint16_t c);

/// dst[i] ^= c[i]·src for i < ndst, over `len` bytes each: the input is loaded once per tile
/// and multiplied into all ndst outputs. The outputs must not overlap each other or `src`.
/// For throughput with many outputs (PAR2 makes ~100 recovery blocks), call it on slices of
/// the blocks, feeding every input block through one slice before moving to the next, so the
/// ndst output slices stay in cache: with 102 outputs, 4-16 KiB slices ran 2.6x faster than
/// whole 1 MiB blocks, and 2 KiB slices lose to the per-call setup (scripts/bench-gf16.sh).
/// A multiple of 64 bytes (128 for avx512) keeps every call on the vector path.
void gf16_muladd_multi(uint8_t *const *dst, const uint16_t *c, size_t ndst, const uint8_t *src, size_t len);

/// dst[j] ^= sum over i < nsrc of c[i * ndst + j]·src[i], for j < ndst, over `len` bytes each:
/// every input of a batch goes through one tile of the outputs (GF16_MATRIX_TILE bytes of up to
/// GF16_MATRIX_GROUP outputs, 256 KiB, which stays in L2) before the next tile, so the outputs
/// cross the memory bus once per batch instead of once per input. This is the loop a PAR2
/// encoder or repairer wants: feed it as many inputs at once as it can hold. Row i of `c` holds
/// input i's coefficients for every output. Outputs must not overlap each other or the inputs.
void gf16_muladd_matrix(uint8_t *const *dst, size_t ndst, const uint8_t *const *src, size_t nsrc, const uint16_t *c,
                        size_t len);

/// The kernels. The one gf16_muladd runs is picked once, at first use: the fastest this CPU
/// supports, or the one named by the environment variable GCDCAT_GF16_KERNEL
/// (scalar|avx2|avx512|gfni|gfni512|auto). A name the CPU cannot run, or an unknown name, prints one
/// line to stderr and falls back to the fastest supported kernel.
typedef enum {
    GF16_KERNEL_SCALAR = 0,  ///< 256-entry split tables; the reference
    GF16_KERNEL_AVX2 = 1,    ///< vpshufb on 4-bit split tables (32 bytes a step)
    GF16_KERNEL_AVX512 = 2,  ///< the same on AVX-512BW (64 bytes a step)
    GF16_KERNEL_GFNI = 3,    ///< gf2p8affineqb: four 8x8 bit matrices per constant (GFNI + AVX2)
    GF16_KERNEL_GFNI512 = 4, ///< the same on AVX-512, with a matrix entry that keeps outputs in registers
    GF16_KERNEL_COUNT = 5
} gf16_kernel;

/// The name of the kernel that gf16_muladd and gf16_muladd_multi run ("avx2", …).
const char *gf16_kernel_name(void);

/// The name of kernel k ("scalar", "avx2", "avx512", "gfni", "gfni512"); NULL if k is out of range.
const char *gf16_kernel_name_of(gf16_kernel k);

/// 1 if this CPU and OS can run kernel k, else 0.
int gf16_kernel_supported(gf16_kernel k);

/// What a GCDCAT_GF16_KERNEL value selects (NULL, "" and "auto" mean the fastest supported).
/// When the value cannot be honoured, writes a one-line reason to `message` (if non-NULL and
/// message_size > 0), else writes an empty string. The first-use selection calls this.
gf16_kernel gf16_kernel_choose(const char *request, char *message, size_t message_size);

/// Runs one named kernel, for tests and benchmarks. Returns 0, or -1 (dst untouched) when the
/// CPU cannot run it or k is out of range.
int gf16_muladd_with(gf16_kernel k, uint8_t *dst, const uint8_t *src, size_t len, uint16_t c);
int gf16_muladd_multi_with(gf16_kernel k, uint8_t *const *dst, const uint16_t *c, size_t ndst, const uint8_t *src,
                           size_t len);
int gf16_muladd_matrix_with(gf16_kernel k, uint8_t *const *dst, size_t ndst, const uint8_t *const *src, size_t nsrc,
                            const uint16_t *c, size_t len);

/// The four 8x8 bit matrices, in gf2p8affineqb's operand layout, that the gfni kernel uses to
/// multiply by c: m[0] maps the low input byte to the low output byte, m[1] high to low,
/// m[2] low to high, m[3] high to high.
void gf16_gfni_matrices(uint16_t c, uint64_t m[4]);

/// gf2p8affineqb's effect on one byte (with a zero constant), computed in plain C, so tests
/// can check the gfni matrices on any CPU.
uint8_t gf16_affine_byte(uint64_t matrix, uint8_t x);

#ifdef __cplusplus
}
#endif

#endif
