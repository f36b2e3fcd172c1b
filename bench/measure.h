/* measure.h — the two measurements the serial benchmarks take: a
 * monotonic clock and the process's peak resident memory.  Both are POSIX:
 * a file that includes this defines _POSIX_C_SOURCE before any include. */
#ifndef RELAY_BENCH_MEASURE_H
#define RELAY_BENCH_MEASURE_H

#include <sys/resource.h>
#include <time.h>

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

#endif
