// The driver of scripts/bench-gf16.sh: GB/s of multiply-add work (bytes of input times outputs,
// per second) of each CGF16 kernel this CPU runs, next to GF-Complete's region multiply-xor
// from the same run. Cells run interleaved, round by round; min, median and max are printed.
#define _POSIX_C_SOURCE 200809L
#include "gf16.h"

#include <gf_complete.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK (1u << 20)
#define MAX_OUTPUTS 102
#define MAX_CELLS 64

typedef struct {
    const char *what;
    int kernel;      // -1: GF-Complete
    size_t outputs;  // recovery blocks computed per input
    size_t slice;    // bytes per call; BLOCK: whole blocks
    int threads;
    double seconds[32];  // wall
    double cpu[32];      // CPU seconds of the process (all its threads)
} cell;

static gf_t oracle;
static uint8_t *inputs;  // `input_count` blocks
static uint8_t *outputs[MAX_OUTPUTS];
static uint16_t constants[MAX_OUTPUTS];
static uint16_t *matrix;  // input i's coefficient for output d at i * MAX_OUTPUTS + d
static size_t input_count = 16;

static double clock_seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/// Every input into every output over block bytes [begin, end), `slice` bytes a call, with the
/// input loop inside the slice loop so that `outputs` slices stay in cache.
static void run_range(const cell *c, size_t begin, size_t end) {
    for (size_t offset = begin; offset < end; offset += c->slice) {
        const size_t len = end - offset < c->slice ? end - offset : c->slice;
        if (strcmp(c->what, "matrix") == 0) {  // every input at once, as the PAR2 engine calls it
            uint8_t *dst[MAX_OUTPUTS];
            const uint8_t **src = malloc(input_count * sizeof *src);
            for (size_t d = 0; d < c->outputs; d++) dst[d] = outputs[d] + offset;
            for (size_t i = 0; i < input_count; i++) src[i] = inputs + i * BLOCK + offset;
            gf16_muladd_matrix_with((gf16_kernel)c->kernel, dst, c->outputs, src, input_count, matrix, len);
            free(src);
            continue;
        }
        for (size_t i = 0; i < input_count; i++) {
            const uint8_t *src = inputs + i * BLOCK + offset;
            if (c->kernel < 0) {
                for (size_t d = 0; d < c->outputs; d++)
                    oracle.multiply_region.w32(&oracle, (void *)src, outputs[d] + offset, constants[d], (int)len, 1);
            } else if (c->outputs == 1) {
                gf16_muladd_with((gf16_kernel)c->kernel, outputs[0] + offset, src, len, constants[0]);
            } else {
                uint8_t *dst[MAX_OUTPUTS];
                for (size_t d = 0; d < c->outputs; d++) dst[d] = outputs[d] + offset;
                gf16_muladd_multi_with((gf16_kernel)c->kernel, dst, constants, c->outputs, src, len);
            }
        }
    }
}

typedef struct {
    const cell *c;
    size_t begin, end;
} range;

static void *run_thread(void *arg) {
    const range *r = arg;
    run_range(r->c, r->begin, r->end);
    return NULL;
}

/// Threads split the block's bytes (each its own slices of every output), as the PAR2 engine does.
static void time_cell(cell *c, int round) {
    const double start = clock_seconds(CLOCK_MONOTONIC), start_cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    if (c->threads == 1) {
        run_range(c, 0, BLOCK);
    } else {
        pthread_t tid[8];
        range r[8];
        const size_t share = BLOCK / (size_t)c->threads;
        for (int t = 0; t < c->threads; t++) {
            r[t] = (range){c, share * (size_t)t, t == c->threads - 1 ? BLOCK : share * (size_t)(t + 1)};
            pthread_create(&tid[t], NULL, run_thread, &r[t]);
        }
        for (int t = 0; t < c->threads; t++) pthread_join(tid[t], NULL);
    }
    c->seconds[round] = clock_seconds(CLOCK_MONOTONIC) - start;
    c->cpu[round] = clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - start_cpu;
}

static int compare_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/// Each kernel's multi output, sliced, equals GF-Complete's before anything is timed.
static int check_kernels(void) {
    const size_t n = 7, len = 3 * 4096 + 130, stride = 3 * 4096 + 192;  // GF-Complete wants 16-byte alignment
    uint8_t *expected = aligned_alloc(64, n * stride), *actual = aligned_alloc(64, n * stride);
    int bad = 0;
    for (int k = 0; k < GF16_KERNEL_COUNT; k++) {
        if (!gf16_kernel_supported((gf16_kernel)k)) continue;
        memset(expected, 0, n * stride);
        memset(actual, 0, n * stride);
        uint8_t *dst[7];
        for (size_t d = 0; d < n; d++) {
            dst[d] = actual + d * stride;
            oracle.multiply_region.w32(&oracle, inputs, expected + d * stride, constants[d], (int)len, 1);
        }
        gf16_muladd_multi_with((gf16_kernel)k, dst, constants, n, inputs, len);
        if (memcmp(expected, actual, n * stride) != 0) {
            fprintf(stderr, "bench-gf16: kernel %s disagrees with GF-Complete\n", gf16_kernel_name_of((gf16_kernel)k));
            bad = 1;
        }
        // The matrix entry (the PAR2 engine's call): two inputs at unaligned starts into the
        // outputs, a length that leaves a short last tile and an odd tail.
        memset(expected, 0, n * stride);
        memset(actual, 0, n * stride);
        const size_t nsrc = input_count < 2 ? input_count : 2;
        for (size_t d = 0; d < n; d++)
            for (size_t i = 0; i < nsrc; i++)
                oracle.multiply_region.w32(&oracle, (void *)(inputs + i * BLOCK), expected + d * stride + 16,
                                           matrix[i * MAX_OUTPUTS + d], (int)len, 1);
        for (size_t d = 0; d < n; d++) dst[d] = actual + d * stride + 16;
        uint8_t *scratch = aligned_alloc(64, nsrc * stride);
        const uint8_t *shifted[2];
        for (size_t i = 0; i < nsrc; i++) {
            memcpy(scratch + i * stride + 2, inputs + i * BLOCK, len);
            shifted[i] = scratch + i * stride + 2;
        }
        uint16_t rows[2 * 7];
        for (size_t i = 0; i < nsrc; i++)
            for (size_t d = 0; d < n; d++) rows[i * n + d] = matrix[i * MAX_OUTPUTS + d];
        gf16_muladd_matrix_with((gf16_kernel)k, dst, n, shifted, nsrc, rows, len);
        free(scratch);
        if (memcmp(expected, actual, n * stride) != 0) {
            fprintf(stderr, "bench-gf16: kernel %s's matrix entry disagrees with GF-Complete\n",
                    gf16_kernel_name_of((gf16_kernel)k));
            bad = 1;
        }
    }
    free(expected);
    free(actual);
    return bad;
}

static void setup(void) {
    if (!gf_init_easy(&oracle, 16)) {
        fprintf(stderr, "bench-gf16: gf_init_easy failed\n");
        exit(1);
    }
    inputs = aligned_alloc(64, input_count * BLOCK);
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (size_t i = 0; i < input_count * BLOCK; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        inputs[i] = (uint8_t)x;
    }
    for (size_t d = 0; d < MAX_OUTPUTS; d++) {
        outputs[d] = aligned_alloc(64, BLOCK);
        memset(outputs[d], 0, BLOCK);
        constants[d] = gf16_pow(2, (uint32_t)(d * 7 + 1));  // PAR2's constants are powers of 2
    }
    matrix = malloc(input_count * MAX_OUTPUTS * sizeof *matrix);
    for (size_t i = 0; i < input_count; i++)
        for (size_t d = 0; d < MAX_OUTPUTS; d++) matrix[i * MAX_OUTPUTS + d] = gf16_pow(constants[d], (uint32_t)(i + 1));
}

static size_t add_cell(cell *cells, size_t n, const char *what, int kernel, size_t outputs_, size_t slice, int threads) {
    if (n >= MAX_CELLS) return n;
    cells[n] = (cell){.what = what, .kernel = kernel, .outputs = outputs_, .slice = slice, .threads = threads};
    return n + 1;
}

static size_t plan(cell *cells, size_t slice) {
    static const size_t counts[] = {4, 8, 16, 32, 64, 102};
    size_t n = add_cell(cells, 0, "muladd", -1, 1, BLOCK, 1);
    for (int k = 0; k < GF16_KERNEL_COUNT; k++) {
        if (!gf16_kernel_supported((gf16_kernel)k)) {
            printf("kernel %-6s  not run: this CPU lacks it\n", gf16_kernel_name_of((gf16_kernel)k));
            continue;
        }
        n = add_cell(cells, n, "muladd", k, 1, BLOCK, 1);
        if (k == GF16_KERNEL_SCALAR) {  // the reference; slow enough that a few cells tell its story
            n = add_cell(cells, n, "multi", k, 8, slice, 1);
            continue;
        }
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) n = add_cell(cells, n, "multi", k, counts[i], slice, 1);
        n = add_cell(cells, n, "multi", k, MAX_OUTPUTS, BLOCK, 1);
        n = add_cell(cells, n, "multi", k, MAX_OUTPUTS, slice, 2);
        // The engine's call: gf16_muladd_matrix on 128 KiB stretches (1 MiB blocks over 2 cores x 4).
        n = add_cell(cells, n, "matrix", k, MAX_OUTPUTS, 128 * 1024, 1);
        n = add_cell(cells, n, "matrix", k, MAX_OUTPUTS, 128 * 1024, 2);
    }
    return n;
}

static double minimum(const double *values, int rounds, double *median, double *maximum) {
    double sorted[32];
    memcpy(sorted, values, sizeof(double) * (size_t)rounds);
    qsort(sorted, (size_t)rounds, sizeof(double), compare_double);
    if (median) *median = sorted[rounds / 2];
    if (maximum) *maximum = sorted[rounds - 1];
    return sorted[0];
}

/// Rates from the minima: wall GB/s, and GB/s per CPU-second (per core busy), which a machine
/// shared with other work distorts least. Ratios are of the CPU-second rates.
static void report(const cell *c, int rounds, double reference) {
    double median, maximum;
    const double wall = minimum(c->seconds, rounds, &median, &maximum), cpu = minimum(c->cpu, rounds, NULL, NULL);
    const double work = (double)input_count * BLOCK * (double)c->outputs;
    char slice[32];
    if (c->slice == BLOCK)
        snprintf(slice, sizeof slice, "1 MiB");
    else
        snprintf(slice, sizeof slice, "%zu KiB", c->slice / 1024);
    printf("%-11s %-6s %3zu %7s %2d  %8.4f %8.4f %8.4f  %7.2f  %8.2f  %6.2fx\n",
           c->kernel < 0 ? "gf-complete" : gf16_kernel_name_of((gf16_kernel)c->kernel), c->what, c->outputs, slice,
           c->threads, wall, median, maximum, work / wall / 1e9, work / cpu / 1e9, work / cpu / 1e9 / reference);
}

int main(int argc, char **argv) {
    int rounds = 5;
    size_t slice = 4096;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--repeat") == 0) rounds = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--inputs") == 0) input_count = (size_t)atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--slice") == 0) slice = (size_t)atoi(argv[i + 1]);
    }
    if (rounds < 1 || rounds > 32 || input_count < 1 || slice < 64 || slice > BLOCK || slice % 64) {
        fprintf(stderr, "usage: bench-gf16 [--repeat 1..32] [--inputs N] [--slice BYTES, a multiple of 64]\n");
        return 64;
    }
    setup();
    if (check_kernels()) return 1;
    cell cells[MAX_CELLS];
    const size_t n = plan(cells, slice);
    printf("%zu inputs of 1 MiB into each output; GB/s = input bytes x outputs / min seconds (%d rounds)\n",
           input_count, rounds);
    for (int r = 0; r < rounds; r++)
        for (size_t i = 0; i < n; i++) time_cell(&cells[(i + (size_t)r) % n], r);
    printf("%-11s %-6s %3s %7s %2s  %8s %8s %8s  %7s  %8s  %7s\n", "kernel", "call", "out", "slice", "th", "min s",
           "median s", "max s", "GB/s", "GB/cpu-s", "vs gf-c");
    const double reference = (double)input_count * BLOCK / minimum(cells[0].cpu, rounds, NULL, NULL) / 1e9;
    for (size_t i = 0; i < n; i++) report(&cells[i], rounds, reference);
    return 0;
}
