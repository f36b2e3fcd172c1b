/* plan_cache.c — step 4 of a call (scalapack_internal.h): the cache of
 * bound executors, keyed by the call's key, one list over every context,
 * most recently used first.
 *
 * Two caps bound it.  Each context keeps at most RELAY_SCALAPACK_CACHE_SIZE
 * plans: every process of a grid makes the same calls, so all hold the
 * same list and evict (a collective free) together.  The process keeps at
 * most its limit (relay_scalapack_cache_set_limit, RELAY_SCALAPACK_CACHE_PLANS,
 * 64 by default) over all contexts: past it, the plans of the context
 * whose plan was least recently used are freed at once, by this process
 * alone, and the context marked pruned, so that its next call drops its
 * plans on all its processes before any of them counts a hit (scalapack.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "error.h"
#include "exec_internal.h"
#include "scalapack_internal.h"

enum { DEFAULT_PROCESS_LIMIT = 64 };

static relay_scalapack_cache_stats stats;
static rl_cache_entry *entries;   /* every context's, most recently used first */
static int process_limit;         /* 0 until set or read from the environment */

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
            : relay_internal_exec_create(&e->exec, plan, cx->comm, RL_EXEC_BIND_ON_REPEAT | RL_EXEC_SHARED_LANDINGS,
                                                 &first_replays);
    relay_plan_free(plan);
    relay_layout_free(src);
    relay_layout_free(dst);
    return st;
}

/* ---- the list -------------------------------------------------------------- */

static void unlink_entry(rl_cache_entry *e)
{
    for (rl_cache_entry **at = &entries; *at; at = &(*at)->next)
        if (*at == e) {
            *at = e->next;
            return;
        }
}

static void push_front(rl_cache_entry *e)
{
    e->next = entries;
    entries = e;
}

static void drop(rl_cache_entry *e)
{
    unlink_entry(e);
    e->cx->nentries--;
    stats.entries--;
    entry_free(e);
}

/* The least recently used entry of cx (NULL: of any context) other than
 * spare; NULL if none. */
static rl_cache_entry *least_recent(const rl_blacs_context *cx, const rl_cache_entry *spare)
{
    rl_cache_entry *last = NULL;
    for (rl_cache_entry *e = entries; e; e = e->next)
        if ((!cx || e->cx == cx) && e != spare) last = e;
    return last;
}

/* The cached entry of a key in cx, moved to the front; NULL if none. */
static rl_cache_entry *cached(const rl_blacs_context *cx, uint64_t hash, const int32_t *key, size_t len)
{
    for (rl_cache_entry *e = entries; e; e = e->next) {
        if (e->cx != cx || e->hash != hash || e->key_len != len || memcmp(e->key, key, len * sizeof *key)) continue;
        unlink_entry(e);
        push_front(e);
        return e;
    }
    return NULL;
}

/* ---- the two caps ------------------------------------------------------------ */

/* The per-process limit: set, or RELAY_SCALAPACK_CACHE_PLANS if that is a
 * positive integer, or the default.  Whatever each process reads, the
 * calls stay collective: only when a plan is freed depends on it. */
static int limit(void)
{
    if (process_limit) return process_limit;
    const char *v = getenv("RELAY_SCALAPACK_CACHE_PLANS");
    char *end = NULL;
    errno = 0;
    long n = v ? strtol(v, &end, 10) : 0;
    process_limit = v && *v && !*end && !errno && n >= 1 && n <= 1 << 30 ? (int)n : DEFAULT_PROCESS_LIMIT;
    return process_limit;
}

/* Makes room in a full context (on every process of it together). */
static void evict_if_context_full(rl_blacs_context *cx)
{
    if (cx->nentries >= RELAY_SCALAPACK_CACHE_SIZE) drop(least_recent(cx, NULL));
}

/* Frees cx's plans but spare. */
static void drop_plans_of(const rl_blacs_context *cx, const rl_cache_entry *spare)
{
    for (rl_cache_entry *e; (e = least_recent(cx, spare));) drop(e);
}

/* The least recently used entry of a context other than cx; NULL if none. */
static rl_cache_entry *least_recent_elsewhere(const rl_blacs_context *cx)
{
    rl_cache_entry *last = NULL;
    for (rl_cache_entry *e = entries; e; e = e->next)
        if (e->cx != cx) last = e;
    return last;
}

/* Past the per-process limit, frees the plans of the context whose plan
 * was least recently used (they all go at its next call anyway: it is
 * marked pruned), of another context than spare's (the plan the current
 * call replays) while there is one, and never spare. */
static void prune_to_limit(const rl_cache_entry *spare)
{
    while (stats.entries > limit()) {
        const rl_blacs_context *current = spare ? spare->cx : NULL;
        rl_cache_entry *e = least_recent_elsewhere(current);
        if (!e) e = least_recent(current, spare);
        if (!e) return;
        e->cx->pruned = 1;
        drop_plans_of(e->cx, spare);
    }
}

relay_status relay_scalapack_cache_set_limit(int plans)
{
    if (plans < 1) return rl_fail(RELAY_ERR_ARG, "relay_scalapack_cache_set_limit: %d plans; at least 1", plans);
    process_limit = plans;
    prune_to_limit(NULL);
    return RELAY_OK;
}

/* ---- lookups --------------------------------------------------------------------- */

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
    *e = (rl_cache_entry){NULL, cx, h, len, key, NULL};
    relay_status st = plan_entry(e, cx);
    if (st) {
        free(key);
        free(e);
        return st;
    }
    evict_if_context_full(cx);
    push_front(e);
    cx->nentries++;
    stats.entries++;
    stats.misses++;
    prune_to_limit(e);
    *exec = e->exec;
    return RELAY_OK;
}

void rl_scalapack_drop_entries(rl_blacs_context *cx)
{
    drop_plans_of(cx, NULL);
    cx->pruned = 0;
    relay_internal_scratch_release(&first_replays); /* given back too: the next first replay takes it anew */
}

void rl_scalapack_plan_stats(relay_scalapack_cache_stats *s) { *s = stats; }
