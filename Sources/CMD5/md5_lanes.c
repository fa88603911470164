// Several MD5 streams updated together: their whole blocks go eight at a time through the AVX2
// kernel where the CPU has it (picked once, or forced by GCDCAT_MD5_KERNEL), else one by one.
#include "md5_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define MD5_X86 1
#endif

static const char *const md5_kernel_names[GCDCAT_MD5_KERNEL_COUNT] = {"scalar", "avx2"};

/// AVX2, with the OS saving the YMM registers (CPUID and XGETBV, as CGF16 asks).
static int md5_cpu_has_avx2(void) {
#ifdef MD5_X86
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    if (!(ecx & bit_OSXSAVE) || !(ecx & bit_AVX)) return 0;
    uint32_t xcr0_lo, xcr0_hi;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    if ((xcr0_lo & 0x6) != 0x6) return 0;
    if (__get_cpuid_max(0, NULL) < 7) return 0;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    return (ebx >> 5) & 1;
#else
    return 0;
#endif
}

static pthread_once_t md5_probe_once = PTHREAD_ONCE_INIT;
static int md5_avx2_supported;
static void md5_probe(void) { md5_avx2_supported = md5_cpu_has_avx2(); }

int gcdcat_md5_kernel_supported(gcdcat_md5_kernel k) {
    if (k == GCDCAT_MD5_KERNEL_SCALAR) return 1;
    if (k != GCDCAT_MD5_KERNEL_AVX2) return 0;
    pthread_once(&md5_probe_once, md5_probe);
    return md5_avx2_supported;
}

const char *gcdcat_md5_kernel_name_of(gcdcat_md5_kernel k) {
    return (unsigned)k < GCDCAT_MD5_KERNEL_COUNT ? md5_kernel_names[k] : NULL;
}

static pthread_once_t md5_select_once = PTHREAD_ONCE_INIT;
static gcdcat_md5_kernel md5_selected = GCDCAT_MD5_KERNEL_SCALAR;

static void md5_select(void) {
    const gcdcat_md5_kernel best =
        gcdcat_md5_kernel_supported(GCDCAT_MD5_KERNEL_AVX2) ? GCDCAT_MD5_KERNEL_AVX2 : GCDCAT_MD5_KERNEL_SCALAR;
    const char *request = getenv("GCDCAT_MD5_KERNEL");
    md5_selected = best;
    if (request == NULL || request[0] == '\0' || strcmp(request, "auto") == 0) return;
    for (int k = 0; k < GCDCAT_MD5_KERNEL_COUNT; k++) {
        if (strcmp(request, md5_kernel_names[k]) != 0) continue;
        if (gcdcat_md5_kernel_supported((gcdcat_md5_kernel)k))
            md5_selected = (gcdcat_md5_kernel)k;
        else
            fprintf(stderr, "gcdcat: GCDCAT_MD5_KERNEL=%s: this CPU lacks it; using %s\n", request,
                    md5_kernel_names[best]);
        return;
    }
    fprintf(stderr, "gcdcat: GCDCAT_MD5_KERNEL=%s: unknown kernel (scalar, avx2 or auto); using %s\n", request,
            md5_kernel_names[best]);
}

const char *gcdcat_md5_kernel_name(void) {
    pthread_once(&md5_select_once, md5_select);
    return md5_kernel_names[md5_selected];
}

/// Up to eight streams: each one's held bytes are topped up to a block first, then whole blocks
/// of every stream that has some run together (a stream out of blocks rides along on another's
/// pointer, its result dropped), and what is left of a stream goes one by one.
static void md5_update_group(int avx2, gcdcat_md5_state *const *s, const void *const *data, const size_t *len,
                             size_t n) {
    const uint8_t *p[8];
    size_t left[8];
    for (size_t i = 0; i < n; i++) {
        p[i] = data[i], left[i] = len[i];
        const size_t held = (size_t)(s[i]->length & 63);
        if (held == 0 || left[i] == 0) continue;
        // Not enough to fill the held block: the plain update keeps it.
        if (held + left[i] < 64) {
            gcdcat_md5_update(s[i], p[i], left[i]);
            left[i] = 0;
            continue;
        }
        const size_t take = 64 - held;
        gcdcat_md5_update(s[i], p[i], take);
        p[i] += take, left[i] -= take;
    }
    while (avx2) {
        size_t active = 0, blocks = SIZE_MAX, first = 0;
        for (size_t i = 0; i < n; i++) {
            if (left[i] < 64) continue;
            if (active++ == 0) first = i;
            if (left[i] / 64 < blocks) blocks = left[i] / 64;
        }
        if (active < 2) break;
        uint32_t scratch[8][4];
        uint32_t *h[8];
        const uint8_t *q[8];
        for (size_t l = 0; l < 8; l++) {
            const int live = l < n && left[l] >= 64;
            h[l] = live ? s[l]->h : scratch[l];
            q[l] = live ? p[l] : p[first];
            if (!live) memcpy(scratch[l], s[first]->h, sizeof scratch[l]);
        }
        md5_blocks_x8_avx2(h, q, blocks);
        for (size_t l = 0; l < n; l++) {
            if (left[l] < 64) continue;
            p[l] += blocks * 64, left[l] -= blocks * 64;
            s[l]->length += blocks * 64;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (left[i] > 0) gcdcat_md5_update(s[i], p[i], left[i]);
}

static void md5_update_lanes(int avx2, gcdcat_md5_state *const *s, const void *const *data, const size_t *len,
                             size_t n) {
    for (size_t first = 0; first < n; first += 8)
        md5_update_group(avx2, s + first, data + first, len + first, n - first < 8 ? n - first : 8);
}

void gcdcat_md5_update_lanes(gcdcat_md5_state *const *s, const void *const *data, const size_t *len, size_t n) {
    pthread_once(&md5_select_once, md5_select);
    md5_update_lanes(md5_selected == GCDCAT_MD5_KERNEL_AVX2, s, data, len, n);
}

int gcdcat_md5_update_lanes_with(gcdcat_md5_kernel k, gcdcat_md5_state *const *s, const void *const *data,
                                 const size_t *len, size_t n) {
    if (!gcdcat_md5_kernel_supported(k)) return -1;
    md5_update_lanes(k == GCDCAT_MD5_KERNEL_AVX2, s, data, len, n);
    return 0;
}
