/* dropin_stats.c — the drop-in's environment switches and its count of
 * where each routine's calls went (dropin.h).
 *
 *   RELAY_SCALAPACK=off     every call goes straight to ScaLAPACK's own
 *                           routine (also 0, no, false; anything else or
 *                           unset: relay serves the calls);
 *   RELAY_SCALAPACK_STATS=1 at MPI_Finalize, rank 0 of MPI_COMM_WORLD
 *                           prints its counts per routine on stderr
 *                           (=all: every process prints its own).
 * Both are read once, at the first call, and must be the same on every
 * process (mpiexec passes the environment to all): a process with the
 * drop-in off would run ScaLAPACK while its peers wait in relay. */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include <mpi.h>

#include "dropin.h"

typedef struct {
    long long calls, hits, misses, fallbacks, by_scalapack;
} routine_counts;

static routine_counts counts[RL_DROPIN_ROUTINES];

enum { STATS_NONE, STATS_RANK0, STATS_ALL };

static int said_no(const char *v)
{
    return v && (!strcasecmp(v, "off") || !strcasecmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false"));
}

int rl_dropin_enabled(void)
{
    static int enabled = -1;
    if (enabled < 0) enabled = !said_no(getenv("RELAY_SCALAPACK"));
    return enabled;
}

static int stats_wanted(void)
{
    const char *v = getenv("RELAY_SCALAPACK_STATS");
    if (!v || !*v || said_no(v)) return STATS_NONE;
    return strcasecmp(v, "all") ? STATS_RANK0 : STATS_ALL;
}

/* ---- the report at MPI_Finalize --------------------------------------------- */

static void print_line(int rank, const char *what, const routine_counts *c)
{
    fprintf(stderr, "relay drop-in, rank %d: %-9s %10lld %10lld %10lld %10lld %10lld\n", rank, what, c->calls, c->hits,
            c->misses, c->fallbacks, c->by_scalapack);
}

static void print_counts(int rank)
{
    routine_counts total = {0};
    fprintf(stderr, "relay drop-in, rank %d: %s; calls per routine: relay's cache hits and misses, refused by relay "
            "(then run by ScaLAPACK), run by ScaLAPACK alone (drop-in off, empty, alpha = 0, or ScaLAPACK's error)\n",
            rank, rl_dropin_enabled() ? "on" : "off (RELAY_SCALAPACK)");
    fprintf(stderr, "relay drop-in, rank %d: %-9s %10s %10s %10s %10s %10s\n", rank, "routine", "calls", "hits", "misses",
            "refused", "scalapack");
    for (int r = 0; r < RL_DROPIN_ROUTINES; r++) {
        const routine_counts *c = &counts[r];
        if (!c->calls) continue;
        print_line(rank, rl_dropin_name((rl_dropin_routine)r), c);
        total = (routine_counts){total.calls + c->calls, total.hits + c->hits, total.misses + c->misses,
                                 total.fallbacks + c->fallbacks, total.by_scalapack + c->by_scalapack};
    }
    print_line(rank, "total", &total);
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still
 * works (the hook relay_scalapack clears its cache with, context.c). */
static int print_at_finalize(MPI_Comm comm, int keyval, void *value, void *extra)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (stats_wanted() == STATS_ALL || rank == 0) print_counts(rank);
    return MPI_SUCCESS;
}

static void print_at_finalize_if_wanted(void)
{
    static int registered;
    int keyval;
    if (registered) return;
    registered = 1;
    if (stats_wanted() == STATS_NONE) return;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, print_at_finalize, &keyval, NULL) == MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL);
}

/* ---- counting ------------------------------------------------------------- */

void rl_dropin_count(rl_dropin_routine r, rl_dropin_outcome o, const relay_scalapack_cache_stats *before)
{
    routine_counts *c = &counts[r];
    print_at_finalize_if_wanted();
    c->calls++;
    if (o == RL_FALLBACK) c->fallbacks++;
    if (o == RL_BY_SCALAPACK) c->by_scalapack++;
    if (o == RL_BY_RELAY) {
        relay_scalapack_cache_stats now;
        relay_scalapack_cache_get_stats(&now);
        c->hits += now.hits - before->hits;
        c->misses += now.misses - before->misses;
    }
}
