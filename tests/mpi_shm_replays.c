/* mpi_shm_replays.c — replays in a row through the shared-memory window
 * (RELAY_SHM=on, executor/shm/), checked element by element against the
 * serial reference.
 *
 * Random layouts, op N and T, planned p2p (the window's schedule) and
 * bound once; then REPLAYS replays with fresh B (and a fresh beta-scaled A)
 * each time, split into relay_exec_start and relay_exec_wait with work of a
 * rank-dependent length between, so that ranks drift and a sender that did
 * not wait for "empty" would overwrite a landing area its receiver has not
 * unpacked yet.  In one replay of each case the last rank's start is
 * refused (dst NULL): it replays a stand-in, the others skip checking that
 * replay (those that receive from it told, RELAY_ERR_PEER), and every
 * later replay must again be right.  Rank 0 prints
 * "mpi_shm_replays: N passed, M failed"; the exit status is non-zero on
 * failure.  Run under RELAY_SHM=off too, it checks the same replays staged. */
#include <complex.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "reference.h"
#include "relay/relay.h"

enum { CASES = 60, REPLAYS = 6, REFUSED_REPLAY = 2 };

typedef struct {
    int64_t size, n, *map;
    double *data;
} local;

static void local_init(local *b, const ref_layout *l, int rank)
{
    b->size = ref_local_elems(l, rank);
    b->map = ref_local_map(l, rank);
    b->n = l->n;
    b->data = malloc((size_t)(b->size + 1) * sizeof *b->data);
}

static void local_free(local *b)
{
    free(b->map);
    free(b->data);
}

/* Work between start and wait whose length depends on the rank and the
 * replay: the ranks' replays drift against each other. */
static double busy(int rank, int replay)
{
    volatile double s = 0;
    long n = 20000L * ((rank * 3 + replay) % 5);
    for (long i = 0; i < n; i++) s += (double)i * 1e-9;
    return s;
}

/* Replay `replay` of a case; returns the wrong elements on this rank. */
static long replay_once(relay_exec *e, const ref_transform *t, local *a, local *b, int rank, int nranks, int replay)
{
    for (int64_t k = 0; k < b->size; k++) b->data[k] = b->map[k] < 0 ? 0 : creal(ref_value(t->seed_b, b->map[k] / b->n, b->map[k] % b->n, 0));
    for (int64_t k = 0; k < a->size; k++) a->data[k] = a->map[k] < 0 ? -1 : creal(ref_value(t->seed_a, a->map[k] / a->n, a->map[k] % a->n, 0));
    double alpha = creal(t->alpha), beta = creal(t->beta);
    void *dst[1] = {a->data};
    const void *src[1] = {b->data};
    int refused = replay == REFUSED_REPLAY && rank == nranks - 1;
    relay_status s = relay_exec_start(e, refused ? NULL : dst, src, &alpha, &beta);
    if (refused) return s == RELAY_ERR_ARG ? 0 : 1;
    busy(rank, replay);
    if (s == RELAY_OK) s = relay_exec_wait(e);
    if (replay == REFUSED_REPLAY && s == RELAY_ERR_PEER) s = RELAY_OK; /* this rank receives from the refused one, told */
    if (s != RELAY_OK) {
        fprintf(stderr, "rank %d replay %d: %s\n", rank, replay, relay_last_error());
        return 1;
    }
    if (replay == REFUSED_REPLAY) return 0; /* NaN from the stand-in where the refused rank's elements belong */
    long wrong = 0;
    for (int64_t k = 0; k < a->size; k++) {
        double want = a->map[k] < 0 ? -1 : creal(ref_expected(t, a->map[k] / a->n, a->map[k] % a->n));
        wrong += a->data[k] != want;
    }
    return wrong;
}

static long run_case(int c, int rank, int nranks)
{
    ref_rng rng;
    ref_rng_seed(&rng, 0x5a4d000 + (uint64_t)c);
    relay_op op = c % 2 ? RELAY_OP_T : RELAY_OP_N;
    int64_t m = ref_rng_range(&rng, 1, 400), n = ref_rng_range(&rng, 1, 400);
    ref_layout dl, sl;
    ref_random_layout(&dl, &rng, m, n, nranks);
    ref_random_layout(&sl, &rng, op == RELAY_OP_N ? m : n, op == RELAY_OP_N ? n : m, nranks);
    relay_layout *d = NULL, *s = NULL;
    relay_plan *p = NULL;
    relay_exec *e = NULL;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = RELAY_SCHED_P2P;
    long wrong = ref_build_relay_layout(&dl, &d) || ref_build_relay_layout(&sl, &s) ||
                 relay_plan_transform(&p, nranks, d, s, op, RELAY_DOUBLE, &o) || relay_exec_create(&e, p, MPI_COMM_WORLD);
    if (wrong) fprintf(stderr, "case %d rank %d: %s\n", c, rank, relay_last_error());
    local a, b;
    local_init(&a, &dl, rank);
    local_init(&b, &sl, rank);
    for (int r = 0; !wrong && r < REPLAYS; r++) {
        ref_transform t = {op, RELAY_DOUBLE, r % 3 ? 1 : 2, r % 2 ? 0.5 : 0, r % 2, 1000u * (uint64_t)c + (uint64_t)r,
                           7 + 1000u * (uint64_t)c + (uint64_t)r};
        wrong += replay_once(e, &t, &a, &b, rank, nranks, r);
    }
    relay_exec_free(e);
    relay_plan_free(p);
    relay_layout_free(d);
    relay_layout_free(s);
    local_free(&a);
    local_free(&b);
    ref_layout_free(&dl);
    ref_layout_free(&sl);
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks, passed = 0, failed = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int c = 0; c < CASES; c++) {
        long mine = run_case(c, rank, nranks), all;
        MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (all && rank == 0 && failed < 8) printf("case %d (op %s): %ld wrong elements\n", c, c % 2 ? "T" : "N", all);
        all ? failed++ : passed++;
    }
    if (rank == 0) printf("mpi_shm_replays: %d passed, %d failed\n", passed, failed);
    MPI_Finalize();
    return failed != 0;
}
