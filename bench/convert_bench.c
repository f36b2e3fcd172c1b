/* convert_bench.c — the element conversions alone (elements/), against a
 * memcpy of the source's bytes: float32 -> bfloat16 above all (what a
 * converting replay adds to a float32 one), and the other loops beside it.
 *
 *   convert_bench [-n ELEMENTS] [-r R] [-t THREADS]
 *
 * Each of THREADS threads (1 by default) converts its own slice of n
 * elements (2^25 by default: 128 MiB of float32, past the caches), first
 * touched by the thread that converts it; each time is the median of R
 * passes (9) after one warm-up, with the SIMD loops the CPU has and with
 * the portable ones.  GB/s counts bytes read plus bytes written; "x memcpy"
 * is the time over a memcpy of the source's bytes (which moves twice
 * float32 -> bfloat16's written bytes).  Prints one markdown row per case. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elements.h"
#include "measure.h"

typedef struct {
    rl_elem from, to;
} pair;

static const pair pairs[] = {
    {RL_ELEM_FLOAT, RL_ELEM_BFLOAT16}, {RL_ELEM_BFLOAT16, RL_ELEM_FLOAT}, {RL_ELEM_FLOAT, RL_ELEM_FLOAT16},
    {RL_ELEM_FLOAT16, RL_ELEM_FLOAT},  {RL_ELEM_DOUBLE, RL_ELEM_FLOAT},   {RL_ELEM_FLOAT, RL_ELEM_E4M3FN},
    {RL_ELEM_DOUBLE, RL_ELEM_BFLOAT16}, {RL_ELEM_INT64, RL_ELEM_INT32},
};

/* One pass: each thread its slice; to == from is a memcpy of the source's bytes. */
static double pass(pair p, char *dst, const char *src, int64_t n, int threads)
{
    size_t in = rl_elem_info_of(p.from)->size, out = rl_elem_info_of(p.to)->size;
    double t0 = now();
#pragma omp parallel num_threads(threads)
    {
        int64_t k = omp_get_thread_num(), lo = n * k / threads, hi = n * (k + 1) / threads;
        if (p.from == p.to) memcpy(dst + lo * (int64_t)in, src + lo * (int64_t)in, (size_t)(hi - lo) * in);
        else rl_elem_convert(p.to, dst + lo * (int64_t)out, p.from, src + lo * (int64_t)in, hi - lo);
    }
    return now() - t0;
}

static double median_pass(pair p, char *dst, const char *src, int64_t n, int threads, int reps)
{
    double *t = malloc((size_t)reps * sizeof *t);
    pass(p, dst, src, n, threads);
    for (int r = 0; r < reps; r++) t[r] = pass(p, dst, src, n, threads);
    double m = median_of(t, reps);
    free(t);
    return m;
}

/* Source values in range for every type (small integers, as floats too). */
static void fill(char *src, rl_elem t, int64_t n, int threads)
{
    size_t size = rl_elem_info_of(t)->size;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        int64_t v = (i * 7919) % 200 - 100;
        double d = (double)v * 0.37;
        float f = (float)d;
        if (t == RL_ELEM_FLOAT) memcpy(src + i * 4, &f, 4);
        else if (t == RL_ELEM_DOUBLE) memcpy(src + i * 8, &d, 8);
        else if (t == RL_ELEM_INT64) memcpy(src + i * 8, &v, 8);
        else memset(src + i * (int64_t)size, (int)(i & 0x3f), size);
    }
}

int main(int argc, char **argv)
{
    int64_t n = INT64_C(1) << 25;
    int reps = 9, threads = 1, opt;
    while ((opt = getopt(argc, argv, "n:r:t:")) != -1) {
        if (opt == 'n') n = atoll(optarg);
        else if (opt == 'r') reps = atoi(optarg);
        else if (opt == 't') threads = atoi(optarg);
        else {
            fprintf(stderr, "usage: convert_bench [-n ELEMENTS] [-r R] [-t THREADS]\n");
            return 2;
        }
    }
    if (n < threads || reps < 1 || threads < 1) {
        fprintf(stderr, "convert_bench: need n >= threads >= 1 and r >= 1\n");
        return 2;
    }
    char *src = malloc((size_t)n * 8), *dst = malloc((size_t)n * 8);
    if (!src || !dst) {
        fprintf(stderr, "convert_bench: out of memory\n");
        return 1;
    }
    printf("| from | to | loops | threads | elements | median s | GB/s (read + written) | memcpy of the source s | x memcpy |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
        pair p = pairs[k], copy = {p.from, p.from};
        fill(src, p.from, n, threads);
        double bytes = (double)n * (double)(rl_elem_info_of(p.from)->size + rl_elem_info_of(p.to)->size);
        double base = median_pass(copy, dst, src, n, threads, reps);
        for (int simd = rl_elem_simd_available(); simd >= 0; simd--) {
            rl_elem_use_simd(simd);
            double t = median_pass(p, dst, src, n, threads, reps);
            printf("| %s | %s | %s | %d | %lld | %.4f | %.1f | %.4f | %.2f |\n", rl_elem_info_of(p.from)->name,
                   rl_elem_info_of(p.to)->name, simd ? "simd" : "portable", threads, (long long)n, t, bytes / t * 1e-9,
                   base, t / base);
        }
        rl_elem_use_simd(1);
    }
    free(src);
    free(dst);
    return 0;
}
