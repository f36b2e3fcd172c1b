/* nd_sums.c — the fixed order of a rank's partial sums (nd_sums.h). */
#include <string.h>

#include "error.h"
#include "nd_sums.h"

static int by_pair_then_piece(const void *a, const void *b)
{
    const rl_nd_transfer *x = ((const rl_nd_arrival *)a)->t, *y = ((const rl_nd_arrival *)b)->t;
    if (x->pair != y->pair) return x->pair < y->pair ? -1 : 1;
    if (x->partial != y->partial) return x->partial < y->partial ? -1 : 1;
    return (x->peer > y->peer) - (x->peer < y->peer);
}

/* The arrivals, sorted; `message` of each, for the index below. */
static relay_status collect(rl_nd_sums *s, const rl_nd_part *part, const rl_msgset *set, const int *summed)
{
    s->v = rl_malloc_array((size_t)(part->nrecv + part->nlocal), sizeof *s->v);
    if (!s->v) return RL_NOMEM();
    for (int i = 0; i < set->recv.n; i++) {
        char *packed = (char *)rl_msg_at(&set->recv, i) + set->control;
        for (int64_t j = set->recv.msg[i].first; j < set->recv.msg[i].first + set->recv.msg[i].count; j++)
            if (summed[part->recv[j].pair]) s->v[s->n++] = (rl_nd_arrival){&part->recv[j], packed, i};
    }
    for (int64_t j = 0; j < part->nlocal; j++)
        if (summed[part->local[j].pair]) s->v[s->n++] = (rl_nd_arrival){&part->local[j], NULL, -1};
    if (s->n) qsort(s->v, (size_t)s->n, sizeof *s->v, by_pair_then_piece);
    return RELAY_OK;
}

/* Per receive, its arrivals (their `landed` field held the message while
 * building; restart sets it). */
static relay_status index_messages(rl_nd_sums *s, int nrecv)
{
    s->of_first = rl_calloc((size_t)nrecv + 1, sizeof *s->of_first);
    s->of = rl_malloc_array((size_t)s->n, sizeof *s->of);
    int *fill = rl_malloc_array((size_t)nrecv + 1, sizeof *fill);
    relay_status st = s->of_first && s->of && fill ? RELAY_OK : RL_NOMEM();
    for (int64_t i = 0; !st && i < s->n; i++)
        if (s->v[i].landed >= 0) s->of_first[s->v[i].landed + 1]++;
    for (int r = 0; !st && r < nrecv; r++) s->of_first[r + 1] += s->of_first[r];
    if (!st) memcpy(fill, s->of_first, ((size_t)nrecv + 1) * sizeof *fill);
    for (int64_t i = 0; !st && i < s->n; i++)
        if (s->v[i].landed >= 0) s->of[fill[s->v[i].landed]++] = (int)i;
    free(fill);
    return st;
}

relay_status rl_nd_sums_build(rl_nd_sums *s, const rl_nd_part *part, const rl_msgset *set, const int *summed, int count)
{
    memset(s, 0, sizeof *s);
    relay_status st = collect(s, part, set, summed);
    if (!st) st = index_messages(s, set->recv.n);
    s->next = rl_calloc((size_t)count, sizeof *s->next);
    s->end = rl_calloc((size_t)count, sizeof *s->end);
    if (!st && (!s->next || !s->end)) st = RL_NOMEM();
    for (int64_t i = 0; !st && i < s->n; i++) s->end[s->v[i].t->pair] = i + 1;
    return st;
}

void rl_nd_sums_restart(rl_nd_sums *s, int count)
{
    for (int k = 0; k < count; k++) s->next[k] = 0;
    for (int64_t i = s->n - 1; i >= 0; i--) {
        s->v[i].landed = s->v[i].packed == NULL;
        s->next[s->v[i].t->pair] = i; /* ends at each pair's first */
    }
}

void rl_nd_sums_land(rl_nd_sums *s, int message)
{
    for (int j = s->of_first[message]; j < s->of_first[message + 1]; j++) s->v[s->of[j]].landed = 1;
}

const rl_nd_arrival *rl_nd_sums_next(rl_nd_sums *s, int k)
{
    if (s->next[k] >= s->end[k] || !s->v[s->next[k]].landed) return NULL;
    return &s->v[s->next[k]++];
}

void rl_nd_sums_free(rl_nd_sums *s)
{
    free(s->v);
    free(s->next);
    free(s->end);
    free(s->of_first);
    free(s->of);
    memset(s, 0, sizeof *s);
}
