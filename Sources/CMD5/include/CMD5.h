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

#endif
