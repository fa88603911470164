// Picks the region kernel once, at first use, from the CPU's features (CPUID and XGETBV: the OS
// must save the vector registers too) or from GCDCAT_GF16_KERNEL, and runs it.
#include "gf16_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define GF16_X86 1
#endif

static const char *const gf16_kernel_names[GF16_KERNEL_COUNT] = {"scalar", "avx2", "avx512", "gfni",
                                                                 "gfni512"};
static const char *const gf16_kernel_needs[GF16_KERNEL_COUNT] = {"nothing", "AVX2", "AVX-512BW",
                                                                 "GFNI", "GFNI and AVX-512BW/VL"};

#ifdef GF16_X86
static uint64_t gf16_xgetbv0(void) {
    uint32_t eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((uint64_t)edx << 32) | eax;
}
#endif

/// Asks the CPU (CPUID, XGETBV). Both trap to the hypervisor in a VM, costing microseconds, so
/// gf16_cpu_supports asks once and keeps the answers.
static int gf16_cpu_probe(gf16_kernel k) {
    if (k == GF16_KERNEL_SCALAR) return 1;
#ifdef GF16_X86
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    if (!(ecx & bit_OSXSAVE) || !(ecx & bit_AVX)) return 0;
    const uint64_t xcr0 = gf16_xgetbv0();
    if ((xcr0 & 0x6) != 0x6) return 0;  // XMM and YMM state
    if (__get_cpuid_max(0, NULL) < 7) return 0;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    const int avx2 = (ebx >> 5) & 1;
    switch (k) {
    case GF16_KERNEL_AVX2: return avx2;
    case GF16_KERNEL_AVX512:  // opmask, ZMM0-15 upper halves and ZMM16-31 state too
        return (xcr0 & 0xE6) == 0xE6 && ((ebx >> 16) & 1) && ((ebx >> 30) & 1);
    case GF16_KERNEL_GFNI: return avx2 && ((ecx >> 8) & 1);
    case GF16_KERNEL_GFNI512:  // AVX-512F, BW and VL, GFNI, and the OS saving the AVX-512 state
        return avx2 && (xcr0 & 0xE6) == 0xE6 && ((ebx >> 16) & 1) && ((ebx >> 30) & 1) && ((ebx >> 31) & 1) &&
               ((ecx >> 8) & 1);
    default: return 0;
    }
#else
    return 0;
#endif
}

static pthread_once_t gf16_cpu_once = PTHREAD_ONCE_INIT;
static int gf16_cpu_has[GF16_KERNEL_COUNT];

static void gf16_cpu_probe_all(void) {
    for (int k = 0; k < GF16_KERNEL_COUNT; k++) gf16_cpu_has[k] = gf16_cpu_probe((gf16_kernel)k);
}

int gf16_cpu_supports(gf16_kernel k) {
    if ((unsigned)k >= GF16_KERNEL_COUNT) return 0;
    pthread_once(&gf16_cpu_once, gf16_cpu_probe_all);
    return gf16_cpu_has[k];
}

int gf16_kernel_supported(gf16_kernel k) { return (unsigned)k < GF16_KERNEL_COUNT && gf16_cpu_supports(k); }

const char *gf16_kernel_name_of(gf16_kernel k) {
    return (unsigned)k < GF16_KERNEL_COUNT ? gf16_kernel_names[k] : NULL;
}

/// The fastest supported kernel for the PAR2 engine's call, gf16_muladd_matrix, as measured on
/// an AMD EPYC with AVX2, AVX-512 and GFNI (scripts/bench-gf16.sh, matrix rows, GB per
/// CPU-second; docs/bench/gf16.txt): gfni512 (40), whose matrix entry keeps the outputs in
/// registers over a batch of inputs; then gfni (30), then avx2 (27), whose matrix entry beat
/// the avx512 kernel's generic tiling (24): avx512 runs only when named.
static gf16_kernel gf16_kernel_best(void) {
    static const gf16_kernel order[] = {GF16_KERNEL_GFNI512, GF16_KERNEL_GFNI, GF16_KERNEL_AVX2};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (gf16_cpu_supports(order[i])) return order[i];
    return GF16_KERNEL_SCALAR;
}

gf16_kernel gf16_kernel_choose(const char *request, char *message, size_t message_size) {
    if (message && message_size > 0) message[0] = '\0';
    const gf16_kernel best = gf16_kernel_best();
    if (request == NULL || request[0] == '\0' || strcmp(request, "auto") == 0) return best;
    for (int k = 0; k < GF16_KERNEL_COUNT; k++) {
        if (strcmp(request, gf16_kernel_names[k]) != 0) continue;
        if (gf16_cpu_supports((gf16_kernel)k)) return (gf16_kernel)k;
        if (message && message_size > 0)
            snprintf(message, message_size, "GCDCAT_GF16_KERNEL=%s: this CPU lacks %s; using %s", request,
                     gf16_kernel_needs[k], gf16_kernel_names[best]);
        return best;
    }
    if (message && message_size > 0)
        snprintf(message, message_size,
                 "GCDCAT_GF16_KERNEL=%s: unknown kernel (scalar, avx2, avx512, gfni, gfni512 or auto); using %s", request,
                 gf16_kernel_names[best]);
    return best;
}

static const gf16_kernel_ops *gf16_ops_of(gf16_kernel k) {
    switch (k) {
    case GF16_KERNEL_AVX2: return &gf16_avx2_ops;
    case GF16_KERNEL_AVX512: return &gf16_avx512_ops;
    case GF16_KERNEL_GFNI: return &gf16_gfni_ops;
    case GF16_KERNEL_GFNI512: return &gf16_gfni512_ops;
    default: return &gf16_scalar_ops;
    }
}

static pthread_once_t gf16_selection_once = PTHREAD_ONCE_INIT;
static gf16_kernel gf16_selected = GF16_KERNEL_SCALAR;

static void gf16_select(void) {
    char message[192];
    gf16_selected = gf16_kernel_choose(getenv("GCDCAT_GF16_KERNEL"), message, sizeof message);
    if (message[0]) fprintf(stderr, "gcdcat: %s\n", message);
}

static const gf16_kernel_ops *gf16_selected_ops(void) {
    pthread_once(&gf16_selection_once, gf16_select);
    return gf16_ops_of(gf16_selected);
}

const char *gf16_kernel_name(void) {
    pthread_once(&gf16_selection_once, gf16_select);
    return gf16_kernel_names[gf16_selected];
}

void gf16_muladd(uint8_t *dst, const uint8_t *src, size_t len, uint16_t c) {
    gf16_selected_ops()->muladd(dst, src, len, c);
}

void gf16_muladd_multi(uint8_t *const *dst, const uint16_t *c, size_t ndst, const uint8_t *src, size_t len) {
    gf16_selected_ops()->muladd_multi(dst, c, ndst, src, len);
}

/// The tiling is the same for every kernel: each call of its multi entry takes one input's tile
/// into a group of output tiles that the previous call left in cache. A kernel with a matrix
/// entry of its own (AVX2) runs that instead.
static void gf16_matrix(const gf16_kernel_ops *ops, uint8_t *const *dst, size_t ndst, const uint8_t *const *src,
                        size_t nsrc, const uint16_t *c, size_t len) {
    if (ops->muladd_matrix && ops->muladd_matrix(dst, ndst, src, nsrc, c, len)) return;
    uint8_t *tiles[GF16_MATRIX_GROUP];
    uint16_t row[GF16_MATRIX_GROUP];
    for (size_t first = 0; first < ndst; first += GF16_MATRIX_GROUP) {
        const size_t n = ndst - first < GF16_MATRIX_GROUP ? ndst - first : GF16_MATRIX_GROUP;
        for (size_t offset = 0; offset < len; offset += GF16_MATRIX_TILE) {
            const size_t tile = len - offset < GF16_MATRIX_TILE ? len - offset : GF16_MATRIX_TILE;
            for (size_t j = 0; j < n; j++) tiles[j] = dst[first + j] + offset;
            for (size_t i = 0; i < nsrc; i++) {
                int any = 0;
                for (size_t j = 0; j < n; j++) any |= (row[j] = c[i * ndst + first + j]) != 0;
                if (any) ops->muladd_multi(tiles, row, n, src[i] + offset, tile);
            }
        }
    }
}

void gf16_muladd_matrix(uint8_t *const *dst, size_t ndst, const uint8_t *const *src, size_t nsrc, const uint16_t *c,
                        size_t len) {
    gf16_matrix(gf16_selected_ops(), dst, ndst, src, nsrc, c, len);
}

int gf16_muladd_matrix_with(gf16_kernel k, uint8_t *const *dst, size_t ndst, const uint8_t *const *src, size_t nsrc,
                            const uint16_t *c, size_t len) {
    if (!gf16_kernel_supported(k)) return -1;
    gf16_matrix(gf16_ops_of(k), dst, ndst, src, nsrc, c, len);
    return 0;
}

int gf16_muladd_with(gf16_kernel k, uint8_t *dst, const uint8_t *src, size_t len, uint16_t c) {
    if (!gf16_kernel_supported(k)) return -1;
    gf16_ops_of(k)->muladd(dst, src, len, c);
    return 0;
}

int gf16_muladd_multi_with(gf16_kernel k, uint8_t *const *dst, const uint16_t *c, size_t ndst, const uint8_t *src,
                           size_t len) {
    if (!gf16_kernel_supported(k)) return -1;
    gf16_ops_of(k)->muladd_multi(dst, c, ndst, src, len);
    return 0;
}
