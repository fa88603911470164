// BLAKE2b as RFC 7693 specifies it (sections 2 and 3), unkeyed. Checked against coreutils'
// b2sum for every length in Tests/GCDCatCoreTests/BLAKE2bTests.swift.
#include "CBlake2.h"

#include <string.h>

static const uint64_t blake2b_iv[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

static const uint8_t blake2b_sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

static inline uint64_t rotr64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

static inline uint64_t load64_le(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

#define G(a, b, c, d, x, y)                                                                        \
    do {                                                                                           \
        v[a] = v[a] + v[b] + (x);                                                                  \
        v[d] = rotr64(v[d] ^ v[a], 32);                                                            \
        v[c] = v[c] + v[d];                                                                        \
        v[b] = rotr64(v[b] ^ v[c], 24);                                                            \
        v[a] = v[a] + v[b] + (y);                                                                  \
        v[d] = rotr64(v[d] ^ v[a], 16);                                                            \
        v[c] = v[c] + v[d];                                                                        \
        v[b] = rotr64(v[b] ^ v[c], 63);                                                            \
    } while (0)

/// RFC 7693 section 3.2, F: compresses one 128-byte block; `last` marks the final block.
static void compress(gcdcat_blake2b_state *state, const uint8_t block[128], int last) {
    uint64_t m[16], v[16];
    for (int i = 0; i < 16; i++) m[i] = load64_le(block + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = state->h[i];
        v[i + 8] = blake2b_iv[i];
    }
    v[12] ^= state->t[0];
    v[13] ^= state->t[1];
    if (last) v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = blake2b_sigma[r];
        G(0, 4, 8, 12, m[s[0]], m[s[1]]);
        G(1, 5, 9, 13, m[s[2]], m[s[3]]);
        G(2, 6, 10, 14, m[s[4]], m[s[5]]);
        G(3, 7, 11, 15, m[s[6]], m[s[7]]);
        G(0, 5, 10, 15, m[s[8]], m[s[9]]);
        G(1, 6, 11, 12, m[s[10]], m[s[11]]);
        G(2, 7, 8, 13, m[s[12]], m[s[13]]);
        G(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++) state->h[i] ^= v[i] ^ v[i + 8];
}

static void count_bytes(gcdcat_blake2b_state *state, uint64_t count) {
    state->t[0] += count;
    if (state->t[0] < count) state->t[1]++;
}

int gcdcat_blake2b_init(gcdcat_blake2b_state *state, size_t digest_length) {
    if (digest_length < 1 || digest_length > 64) return -1;
    memset(state, 0, sizeof *state);
    for (int i = 0; i < 8; i++) state->h[i] = blake2b_iv[i];
    // Parameter block word 0: digest length, key length 0, fanout 1, depth 1.
    state->h[0] ^= 0x01010000ULL ^ (uint64_t)digest_length;
    state->digest_length = digest_length;
    return 0;
}

void gcdcat_blake2b_update(gcdcat_blake2b_state *state, const void *bytes, size_t count) {
    const uint8_t *in = bytes;
    // A full buffer is compressed only once more bytes follow: the last block must be
    // compressed with the final flag, even when it is full.
    if (count == 0) return;
    if (state->filled > 0) {
        size_t take = 128 - state->filled;
        if (take > count) take = count;
        memcpy(state->buffer + state->filled, in, take);
        state->filled += take;
        in += take;
        count -= take;
        if (count == 0) return;
        count_bytes(state, 128);
        compress(state, state->buffer, 0);
        state->filled = 0;
    }
    while (count > 128) {
        count_bytes(state, 128);
        compress(state, in, 0);
        in += 128;
        count -= 128;
    }
    memcpy(state->buffer, in, count);
    state->filled = count;
}

void gcdcat_blake2b_final(gcdcat_blake2b_state *state, uint8_t *digest) {
    count_bytes(state, state->filled);
    memset(state->buffer + state->filled, 0, 128 - state->filled);
    compress(state, state->buffer, 1);
    uint8_t full[64];
    for (int i = 0; i < 8; i++) {
        uint64_t word = state->h[i];
        for (int j = 0; j < 8; j++) full[8 * i + j] = (uint8_t)(word >> (8 * j));
    }
    memcpy(digest, full, state->digest_length);
}
