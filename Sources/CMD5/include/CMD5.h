#ifndef GCDCAT_MD5_H
#define GCDCAT_MD5_H

// MD5 (RFC 1321), as PAR2 uses it for packet, file and block hashes. The state lives in the
// caller's memory, so starting a digest allocates nothing and cannot fail.

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t h[4];
    uint64_t length;  ///< bytes given so far
    uint8_t buffer[64];
} gcdcat_md5_state;

void gcdcat_md5_init(gcdcat_md5_state *s);
void gcdcat_md5_update(gcdcat_md5_state *s, const void *data, size_t len);
/// Writes the digest; the state must be initialized again before reuse.
void gcdcat_md5_final(gcdcat_md5_state *s, uint8_t digest[16]);

/// The code that runs gcdcat_md5_update_lanes's whole blocks.
typedef enum {
    GCDCAT_MD5_KERNEL_SCALAR = 0,  ///< one stream at a time (the reference)
    GCDCAT_MD5_KERNEL_AVX2 = 1,    ///< eight streams at once, a 32-bit lane each
    GCDCAT_MD5_KERNEL_COUNT = 2
} gcdcat_md5_kernel;

/// Updates n distinct streams at once, stream i with len[i] bytes at data[i]: the same result
/// as n calls of gcdcat_md5_update, but whole 64-byte blocks of up to eight streams run
/// together on the AVX2 kernel, where one stream alone leaves most of the core idle (MD5's
/// steps depend on each other). Give streams equal lengths for the most lanes at once. The
/// kernel is picked once, at first use, from the CPU, or by GCDCAT_MD5_KERNEL
/// (scalar|avx2|auto; a name the CPU cannot run prints one line to stderr and is not used).
void gcdcat_md5_update_lanes(gcdcat_md5_state *const *s, const void *const *data, const size_t *len, size_t n);

/// The kernel gcdcat_md5_update_lanes runs ("scalar" or "avx2").
const char *gcdcat_md5_kernel_name(void);

/// The name of kernel k; NULL if out of range.
const char *gcdcat_md5_kernel_name_of(gcdcat_md5_kernel k);

/// 1 if this CPU can run kernel k, else 0.
int gcdcat_md5_kernel_supported(gcdcat_md5_kernel k);

/// gcdcat_md5_update_lanes on kernel k, for tests and benchmarks; -1 (nothing updated) when
/// the CPU cannot run it.
int gcdcat_md5_update_lanes_with(gcdcat_md5_kernel k, gcdcat_md5_state *const *s, const void *const *data,
                                 const size_t *len, size_t n);

#endif
