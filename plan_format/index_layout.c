/* index_layout.c — index layouts: what each rank holds, kept as runs. */
#include <string.h>

#include "codec.h"
#include "error.h"
#include "index_plan.h"

relay_status relay_index_layout_create(relay_index_layout **out, int64_t n, int64_t item_elems, int nranks)
{
    if (!out) return rl_fail(RELAY_ERR_ARG, "relay_index_layout_create: NULL output argument");
    *out = NULL;
    if (n < 0 || item_elems < 1 || n > RL_INDEX_MAX_ELEMS / item_elems)
        return rl_fail(RELAY_ERR_ARG, "index layout: %lld items of %lld elements: need n >= 0, item_elems >= 1, at most 2^56 "
                       "elements", (long long)n, (long long)item_elems);
    if (nranks < 1 || nranks > RELAY_MAX_RANKS)
        return rl_fail(RELAY_ERR_ARG, "index layout: %d ranks, not 1 .. 2^24", nranks);
    relay_index_layout *l = calloc(1, sizeof *l);
    if (!l) return RL_NOMEM();
    l->n = n;
    l->item_elems = item_elems;
    l->nranks = nranks;
    l->held = rl_calloc((size_t)nranks, sizeof *l->held);
    l->nruns = rl_calloc((size_t)nranks, sizeof *l->nruns);
    l->runs = rl_calloc((size_t)nranks, sizeof *l->runs);
    if (!l->held || !l->nruns || !l->runs) {
        relay_index_layout_free(l);
        return RL_NOMEM();
    }
    *out = l;
    return RELAY_OK;
}

void relay_index_layout_free(relay_index_layout *l)
{
    if (!l) return;
    for (int r = 0; l->runs && r < l->nranks; r++) free(l->runs[r]);
    free(l->runs);
    free(l->nruns);
    free(l->held);
    free(l);
}

/* Refuses run i of rank unless it lies in the index space: its first and
 * last items bound all the others. */
static relay_status check_run(const relay_index_layout *l, int rank, int64_t i, const relay_index_run *run)
{
    if (run->length < 0)
        return rl_fail(RELAY_ERR_ARG, "index layout: rank %d's run %lld has length %lld", rank, (long long)i,
                       (long long)run->length);
    if (run->length == 0) return RELAY_OK;
    __int128 last = (__int128)run->start + (__int128)(run->length - 1) * run->stride;
    if (run->start < 0 || run->start >= l->n || last < 0 || last >= l->n)
        return rl_fail(RELAY_ERR_ARG, "index layout: rank %d's run %lld (start %lld, length %lld, stride %lld) reaches outside the "
                       "items 0 .. %lld", rank, (long long)i, (long long)run->start, (long long)run->length,
                       (long long)run->stride, (long long)l->n - 1);
    return RELAY_OK;
}

static relay_status check_rank(const relay_index_layout *l, int rank, const char *what)
{
    if (!l) return rl_fail(RELAY_ERR_ARG, "%s: NULL layout", what);
    if (rank < 0 || rank >= l->nranks)
        return rl_fail(RELAY_ERR_ARG, "%s: rank %d is not one of the layout's %d", what, rank, l->nranks);
    return RELAY_OK;
}

/* Rank's holding becomes runs (taken), held slots in all. */
static void hold(relay_index_layout *l, int rank, relay_index_run *runs, int64_t nruns, int64_t held)
{
    free(l->runs[rank]);
    l->runs[rank] = runs;
    l->nruns[rank] = nruns;
    l->held[rank] = held;
}

relay_status relay_index_layout_set_runs(relay_index_layout *l, int rank, int64_t nruns, const relay_index_run *runs)
{
    relay_status st = check_rank(l, rank, "relay_index_layout_set_runs");
    if (st) return st;
    if (nruns < 0 || (nruns > 0 && !runs)) return rl_fail(RELAY_ERR_ARG, "relay_index_layout_set_runs: %lld runs at NULL", (long long)nruns);
    int64_t held = 0, kept = 0;
    for (int64_t i = 0; i < nruns; i++) {
        if ((st = check_run(l, rank, i, &runs[i]))) return st;
        if (rl_add_overflows(held, runs[i].length, &held) || held > RL_INDEX_MAX_SLOTS)
            return rl_fail(RELAY_ERR_ARG, "index layout: rank %d holds more than 2^40 items", rank);
        kept += runs[i].length > 0;
    }
    relay_index_run *copy = rl_malloc_array((size_t)kept, sizeof *copy);
    if (!copy) return RL_NOMEM();
    kept = 0;
    for (int64_t i = 0; i < nruns; i++)
        if (runs[i].length > 0) copy[kept++] = runs[i].length == 1 ? (relay_index_run){runs[i].start, 1, 0} : runs[i];
    hold(l, rank, copy, kept, held);
    return RELAY_OK;
}

relay_status rl_index_runs_of_list(const int64_t *items, int64_t count, relay_index_run **out, int64_t *nruns)
{
    relay_index_run *runs = rl_malloc_array((size_t)count, sizeof *runs);
    if (!runs) return RL_NOMEM();
    int64_t n = 0;
    for (int64_t i = 0; i < count;) {
        int64_t len = 1, stride = i + 1 < count ? items[i + 1] - items[i] : 0;
        while (i + len < count && items[i + len] - items[i + len - 1] == stride) len++;
        runs[n++] = (relay_index_run){items[i], len, len > 1 ? stride : 0};
        i += len;
    }
    *out = runs;
    *nruns = n;
    return RELAY_OK;
}

relay_status relay_index_layout_set_list(relay_index_layout *l, int rank, int64_t count, const int64_t *items)
{
    relay_status st = check_rank(l, rank, "relay_index_layout_set_list");
    if (st) return st;
    if (count < 0 || count > RL_INDEX_MAX_SLOTS || (count > 0 && !items))
        return rl_fail(RELAY_ERR_ARG, "relay_index_layout_set_list: %lld items at %s (at most 2^40)", (long long)count,
                       items ? "an array" : "NULL");
    for (int64_t i = 0; i < count; i++)
        if (items[i] < 0 || items[i] >= l->n)
            return rl_fail(RELAY_ERR_ARG, "index layout: rank %d's item %lld is %lld, outside the items 0 .. %lld", rank,
                           (long long)i, (long long)items[i], (long long)l->n - 1);
    relay_index_run *runs;
    int64_t nruns;
    if ((st = rl_index_runs_of_list(items, count, &runs, &nruns))) return st;
    hold(l, rank, runs, nruns, count);
    return RELAY_OK;
}

int64_t relay_index_layout_items(const relay_index_layout *l) { return l ? l->n : -1; }
int64_t relay_index_layout_item_elems(const relay_index_layout *l) { return l ? l->item_elems : -1; }
int relay_index_layout_nranks(const relay_index_layout *l) { return l ? l->nranks : -1; }

int64_t relay_index_layout_held(const relay_index_layout *l, int rank)
{
    return l && rank >= 0 && rank < l->nranks ? l->held[rank] : -1;
}

int64_t relay_index_layout_nruns(const relay_index_layout *l, int rank)
{
    return l && rank >= 0 && rank < l->nranks ? l->nruns[rank] : -1;
}

relay_status relay_index_layout_run(const relay_index_layout *l, int rank, int64_t i, relay_index_run *run)
{
    relay_status st = check_rank(l, rank, "relay_index_layout_run");
    if (st) return st;
    if (!run || i < 0 || i >= l->nruns[rank])
        return rl_fail(RELAY_ERR_ARG, "relay_index_layout_run: run %lld of rank %d's %lld, or NULL output", (long long)i, rank,
                       (long long)l->nruns[rank]);
    *run = l->runs[rank][i];
    return RELAY_OK;
}
