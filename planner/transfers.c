/* transfers.c — the transfers of one replay as a graph (rl_transfers,
 * planner_internal.h): built from the volumes between ranks and the
 * relabeling, searched by sender and receiver.  The rounds schedule
 * (schedule.c) gives each transfer its step, by ReSHAPE's table
 * (reshape.c) or by colouring; both read the graph from here. */
#include <string.h>

#include "error.h"
#include "planner_internal.h"

void rl_transfers_free(rl_transfers *t)
{
    free(t->start);
    free(t->to);
    free(t->step);
    memset(t, 0, sizeof *t);
}

int64_t rl_transfer_find(const rl_transfers *t, int y, int x)
{
    int64_t lo = t->start[y], hi = t->start[y + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (t->to[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo < t->start[y + 1] && t->to[lo] == x ? lo : -1;
}

static int by_rank(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Volumes are rows by logical receiver x; a transfer goes from each of
 * their senders to sigma[x].  Transposed to rows by sender, sorted. */
relay_status rl_transfers_build(rl_transfers *t, const rl_volumes *v, const int32_t *sigma)
{
    int n = v->n;
    t->n = n;
    t->start = rl_calloc((size_t)n + 1, sizeof *t->start);
    int64_t total = v->start[n], *cursor = rl_malloc_array((size_t)n, sizeof *cursor);
    t->to = rl_malloc_array((size_t)total, sizeof *t->to);
    t->step = rl_malloc_array((size_t)total, sizeof *t->step);
    if (!t->start || !cursor || !t->to || !t->step) {
        free(cursor);
        return RL_NOMEM();
    }
    for (int64_t e = 0; e < total; e++) t->start[v->from[e] + 1]++;
    for (int y = 0; y < n; y++) t->start[y + 1] += t->start[y];
    memcpy(cursor, t->start, (size_t)n * sizeof *cursor);
    for (int x = 0; x < n; x++)
        for (int64_t e = v->start[x]; e < v->start[x + 1]; e++) t->to[cursor[v->from[e]]++] = sigma[x];
    for (int y = 0; y < n; y++)
        qsort(t->to + t->start[y], (size_t)(t->start[y + 1] - t->start[y]), sizeof *t->to, by_rank);
    for (int64_t e = 0; e < total; e++) t->step[e] = -1;
    free(cursor);
    return RELAY_OK;
}
