/* measure.h — the two measurements the benchmarks take: a monotonic
 * clock and the process's peak resident memory; the median of repeated
 * times; and the order in which rounds call their contestants
 * (rl_balanced_order, shared with relay_exec_tune).  Both measurements are
 * POSIX: a file that includes this defines _POSIX_C_SOURCE before any
 * include. */
#ifndef RELAY_BENCH_MEASURE_H
#define RELAY_BENCH_MEASURE_H

#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "balanced_order.h" /* rl_balanced_order: the order rounds call their contestants in */

static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline double peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

static inline int measure_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The median of t[0..n-1] (sorts t). */
static inline double median_of(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, measure_cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

#endif
