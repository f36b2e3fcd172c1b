/* plan_cache.c — step 4 of a call (scalapack_internal.h): each BLACS
 * context's cache of bound executors, keyed by the call's key, most
 * recently used first and at most RELAY_SCALAPACK_CACHE_SIZE long.  Every
 * process of a context makes the same calls, so all hold the same list and
 * planning, binding and eviction (collective frees) happen together. */
#include <string.h>
#include <xxhash.h>

#include "error.h"
#include "exec_internal.h"
#include "scalapack_internal.h"

static relay_scalapack_cache_stats stats;

/* Lent to every first replay, whatever its context: calls run one at a
 * time, and one scratch of the largest one-off call stays warm where one
 * per context would each fault in pages of its own (exec_internal.h). */
static relay_internal_scratch first_replays;

static void entry_free(rl_cache_entry *e)
{
    relay_exec_free(e->exec);
    free(e->key);
    free(e);
}

/* Plans the transform a key describes and binds it over the context.  Each
 * process builds its own section alone (relay_plan_transform_rank): the
 * work of a call is that process's lattices, not every process's.  The
 * executor's first replay runs on the context's communicator (calls on a
 * context come one at a time, each complete before the next), and only if
 * the key comes again does it get a communicator and persistent requests
 * of its own: a call with new arguments costs one agreement and a
 * point-to-point exchange, as ScaLAPACK's own does. */
static relay_status plan_entry(rl_cache_entry *e, rl_blacs_context *cx)
{
    const int32_t *k = e->key;
    relay_layout *src = NULL, *dst = NULL;
    relay_plan *plan = NULL;
    relay_op op = (relay_op)k[RL_KEY_OP];
    int me;
    relay_status st = rl_scalapack_matrix_layout(&src, k + RL_KEY_HEAD, cx->nprocs);
    if (!st) st = rl_scalapack_matrix_layout(&dst, k + RL_KEY_HEAD + k[RL_KEY_SRC_LEN], cx->nprocs);
    if (!st && MPI_Comm_rank(cx->comm, &me) != MPI_SUCCESS) st = rl_fail(RELAY_ERR_MPI, "MPI_Comm_rank of a BLACS context");
    if (!st)
        st = relay_plan_transform_rank(&plan, me, cx->nprocs, 1, (const relay_layout *const *)&dst,
                                       (const relay_layout *const *)&src, &op, (relay_type)k[RL_KEY_TYPE], NULL);
    /* A process that failed to plan still joins the others' agreement. */
    st = st ? relay_internal_exec_join_failed(cx->comm, st)
            : relay_internal_exec_create(&e->exec, plan, cx->comm, RL_EXEC_BIND_ON_REPEAT, &first_replays);
    relay_plan_free(plan);
    relay_layout_free(src);
    relay_layout_free(dst);
    return st;
}

/* Drops the least recently used entry of a full cache (collective over the
 * context: every process holds the same list). */
static void evict_if_full(rl_blacs_context *cx)
{
    if (cx->nentries < RELAY_SCALAPACK_CACHE_SIZE) return;
    rl_cache_entry **last = &cx->entries;
    while ((*last)->next) last = &(*last)->next;
    entry_free(*last);
    *last = NULL;
    cx->nentries--;
    stats.entries--;
}

/* The cached entry of a key, moved to the front; NULL if none. */
static rl_cache_entry *cached(rl_blacs_context *cx, uint64_t hash, const int32_t *key, size_t len)
{
    for (rl_cache_entry **at = &cx->entries; *at; at = &(*at)->next) {
        rl_cache_entry *e = *at;
        if (e->hash != hash || e->key_len != len || memcmp(e->key, key, len * sizeof *key)) continue;
        *at = e->next;
        e->next = cx->entries;
        cx->entries = e;
        return e;
    }
    return NULL;
}

relay_status rl_scalapack_lookup(rl_blacs_context *cx, int32_t *key, size_t len, relay_exec **exec)
{
    uint64_t h = XXH3_64bits(key, len * sizeof *key);
    rl_cache_entry *e = cached(cx, h, key, len);
    if (e) {
        free(key);
        stats.hits++;
        *exec = e->exec;
        return RELAY_OK;
    }
    e = calloc(1, sizeof *e);
    if (!e) {
        free(key);
        return RL_NOMEM();
    }
    *e = (rl_cache_entry){NULL, h, len, key, NULL};
    relay_status st = plan_entry(e, cx);
    if (st) {
        free(key);
        free(e);
        return st;
    }
    evict_if_full(cx);
    e->next = cx->entries;
    cx->entries = e;
    cx->nentries++;
    stats.entries++;
    stats.misses++;
    *exec = e->exec;
    return RELAY_OK;
}

void rl_scalapack_drop_entries(rl_blacs_context *cx)
{
    for (rl_cache_entry *e = cx->entries, *next; e; e = next) {
        next = e->next;
        entry_free(e);
    }
    cx->entries = NULL;
    relay_internal_scratch_release(&first_replays); /* given back too: the next first replay takes it anew */
    stats.entries -= cx->nentries;
    cx->nentries = 0;
}

relay_status relay_scalapack_cache_get_stats(relay_scalapack_cache_stats *s)
{
    if (!s) return rl_fail(RELAY_ERR_ARG, "relay_scalapack_cache_get_stats: NULL argument");
    *s = stats;
    return RELAY_OK;
}
