/* tune_pick.c — which of relay_exec_tune's timed choices a plan keeps: the
 * lowest median, the first (plain p2p) on a tie.  bench/tune_rules.c
 * measures how well that holds up after the tuning, against the untuned
 * default and, on its saved times, other rules: on a node of 4 ranks to 2
 * cores, whose replays swing several-fold, none of the rules tried (the
 * default unless another wins most rounds and its upper quartile, paired
 * ratios, the mean, the upper quartile) kept choices that replayed faster
 * afterwards (docs/benchmarks.md, "Tuning"). */
#include <stdlib.h>
#include <string.h>

#include "relay/exec.h"
#include "tune_pick.h"

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double sorted[RELAY_TUNE_MAX_REPLAYS];
    memcpy(sorted, v, sizeof *v * (size_t)n);
    qsort(sorted, (size_t)n, sizeof *sorted, by_value);
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

int rl_tune_pick(const double *times, int n, int replays, double *medians)
{
    int best = 0;
    for (int k = 0; k < n; k++) {
        medians[k] = median(times + k * replays, replays);
        if (medians[k] < medians[best]) best = k;
    }
    return best;
}
