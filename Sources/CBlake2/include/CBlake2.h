#ifndef GCDCAT_CBLAKE2_H
#define GCDCAT_CBLAKE2_H

#include <stddef.h>
#include <stdint.h>

/// BLAKE2b (RFC 7693), unkeyed, with any digest length of 1 to 64 bytes, as `b2sum -l BITS`
/// computes it. OpenSSL 3.0's libcrypto fixes BLAKE2b's length at 64 bytes (its "size"
/// parameter came in 3.2), and the length is part of BLAKE2b's parameter block, so a shorter
/// digest is not a prefix of the 64-byte one.
typedef struct {
    uint64_t h[8];
    uint64_t t[2];
    uint8_t buffer[128];
    size_t filled;
    size_t digest_length;
} gcdcat_blake2b_state;

/// Starts a digest of `digest_length` bytes (1...64); -1 for any other length, 0 when started.
int gcdcat_blake2b_init(gcdcat_blake2b_state *state, size_t digest_length);

void gcdcat_blake2b_update(gcdcat_blake2b_state *state, const void *bytes, size_t count);

/// Writes `state->digest_length` bytes to `digest`.
void gcdcat_blake2b_final(gcdcat_blake2b_state *state, uint8_t *digest);

#endif
