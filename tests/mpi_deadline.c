/* mpi_deadline.c — a replay never hangs in silence (docs/api.md, "Deadlines
 * and refused peers"), checked on every rank against what an independent
 * reading of the layouts says:
 *   - a start refused on one rank (a NULL dst) is reported by every rank
 *     that receives from it (RELAY_ERR_PEER naming it), over p2p with
 *     staged and with direct messages, rounds and alltoallv; the others
 *     complete right; the next replay is right everywhere;
 *   - one rank skips the last replay: the others return RELAY_ERR_TIMEOUT
 *     within the deadline and a margin, naming that rank and the replay it
 *     is at (direct messages);
 *   - ranks 0 and 1 replay two executors in opposite orders (the deadline
 *     from RELAY_DEADLINE): every rank times out, the message naming the
 *     different orders;
 *   - one rank sleeps past the deadline before its start (rounds): the
 *     others time out naming it;
 * and after each, the executors freed (never waiting for a peer), a new
 * executor replays right.  Run at 2, 3 and 4 ranks. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_check.h"
#include "relay/relay.h"

static int rank, nranks;

/* Seconds: the deadline, and what a timeout may take beyond it (more under
 * the sanitizers, which slow the polls and the cancels). */
static const double deadline = 0.5;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
static const double margin = 3.0;
#else
static const double margin = 1.0;
#endif

typedef struct {
    relay_layout *a, *b;
    relay_plan *plan;
    double *abuf, *bbuf;
    int64_t m, n;
} fixture;

static double value(int64_t i, int64_t j) { return (double)(i * 1000 + j + 1); }

/* "small": B's rows cyclic over a P x 1 grid into A's columns cyclic over
 * 1 x P (every rank sends every rank short pieces, staged); "direct": two
 * 1 x P column-major layouts of long columns, P x P of them, cyclic one by
 * one in A and P by P in B (every rank sends every rank whole columns,
 * 32 KiB each, direct). */
static void fixture_init(fixture *f, int direct, relay_schedule schedule)
{
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = schedule;
    f->m = direct ? 4096 : 4 * nranks;
    f->n = direct ? nranks * nranks : 4 * nranks;
    relay_layout_block_cyclic(&f->a, f->m, f->n, f->m, 1, 1, nranks, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    if (direct) relay_layout_block_cyclic(&f->b, f->m, f->n, f->m, nranks, 1, nranks, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    else relay_layout_block_cyclic(&f->b, f->m, f->n, 1, f->n, nranks, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    relay_plan_transform(&f->plan, nranks, f->a, f->b, RELAY_OP_N, RELAY_DOUBLE, &o);
    f->abuf = calloc((size_t)relay_layout_local_elems(f->a, rank) + 1, sizeof(double));
    f->bbuf = calloc((size_t)relay_layout_local_elems(f->b, rank) + 1, sizeof(double));
    for (int64_t i = 0; i < f->m; i++)
        for (int64_t j = 0; j < f->n; j++) {
            int r;
            int64_t k;
            relay_layout_locate(f->b, i, j, &r, &k);
            if (r == rank) f->bbuf[k] = value(i, j);
        }
}

static void fixture_free(fixture *f)
{
    relay_plan_free(f->plan);
    relay_layout_free(f->a);
    relay_layout_free(f->b);
    free(f->abuf);
    free(f->bbuf);
}

/* Whether this rank's A is the serial reference's everywhere. */
static int a_right(const fixture *f)
{
    for (int64_t i = 0; i < f->m; i++)
        for (int64_t j = 0; j < f->n; j++) {
            int r;
            int64_t k;
            relay_layout_locate(f->a, i, j, &r, &k);
            if (r == rank && f->abuf[k] != value(i, j)) return 0;
        }
    return 1;
}

/* Whether this rank receives elements from rank `from`, by the layouts. */
static int receives_from(const fixture *f, int from)
{
    for (int64_t i = 0; i < f->m; i++)
        for (int64_t j = 0; j < f->n; j++) {
            int ra, rb;
            int64_t k;
            relay_layout_locate(f->a, i, j, &ra, &k);
            relay_layout_locate(f->b, i, j, &rb, &k);
            if (ra == rank && rb == from && from != rank) return 1;
        }
    return 0;
}

static relay_status run(relay_exec *e, fixture *f)
{
    void *dst[1] = {f->abuf};
    const void *src[1] = {f->bbuf};
    memset(f->abuf, 0, (size_t)relay_layout_local_elems(f->a, rank) * sizeof(double));
    return relay_exec_run(e, dst, src, NULL, NULL);
}

/* Whether the last error names `what` followed by rank r's number. */
static int names(const char *what, int r)
{
    char s[64];
    snprintf(s, sizeof s, what, r);
    return strstr(relay_last_error(), s) != NULL;
}

/* A new executor of f's plan replays right on every rank. */
static void replays_afresh(fixture *f, const char *what)
{
    relay_exec *e = NULL;
    relay_status st = relay_exec_create(&e, f->plan, MPI_COMM_WORLD);
    check(st == RELAY_OK && run(e, f) == RELAY_OK && a_right(f), what);
    relay_exec_free(e);
}

/* ---- a refused start, told to the peers --------------------------------- */

static void refused_start(int direct, relay_schedule schedule, const char *name)
{
    char what[160];
    fixture f;
    fixture_init(&f, direct, schedule);
    relay_exec *e = NULL;
    int bad = nranks - 1, packed = 1;
    relay_schedule replayed;
    check(relay_exec_create(&e, f.plan, MPI_COMM_WORLD) == RELAY_OK && relay_exec_schedule(e, &replayed, &packed) == RELAY_OK,
          "create");
    if (direct) {
        snprintf(what, sizeof what, "%s: some message travels direct", name);
        check(!packed, what);
    }
    snprintf(what, sizeof what, "%s: a replay before the refusal is right", name);
    check(run(e, &f) == RELAY_OK && a_right(&f), what);
    void *dst[1] = {rank == bad ? NULL : f.abuf};
    const void *src[1] = {f.bbuf};
    relay_status st = relay_exec_run(e, dst, src, NULL, NULL);
    int ok = rank == bad ? st == RELAY_ERR_ARG : receives_from(&f, bad) ? st == RELAY_ERR_PEER && names("rank %d ", bad)
                                                                          : st == RELAY_OK && a_right(&f);
    snprintf(what, sizeof what, "%s: rank %d's refused start reported by every rank that receives from it, naming it", name, bad);
    check(ok, what);
    snprintf(what, sizeof what, "%s: the replay after the refusal is right everywhere", name);
    check(run(e, &f) == RELAY_OK && a_right(&f), what);
    relay_exec_free(e);
    fixture_free(&f);
}

/* ---- deadlines ------------------------------------------------------------ */

/* A replay that times out here within the deadline and the margin, its
 * message holding `says` (and `names` followed by rank r, where not NULL);
 * what it did instead is printed. */
static int times_out(relay_exec *e, fixture *f, const char *says, const char *names_what, int r)
{
    double t0 = MPI_Wtime();
    relay_status st = run(e, f);
    double took = MPI_Wtime() - t0;
    int ok = st == RELAY_ERR_TIMEOUT && took >= deadline && took < deadline + margin && strstr(relay_last_error(), says) &&
             (!names_what || names(names_what, r));
    if (!ok) printf("  rank %d: %s after %.2f s: %s\n", rank, relay_status_str(st), took, relay_last_error());
    return ok;
}

/* The last rank skips the last of three replays. */
static void skipped_replay(void)
{
    fixture f;
    fixture_init(&f, 1, RELAY_SCHED_P2P);
    relay_exec *e = NULL;
    int skipper = nranks - 1, ok = 1;
    check(relay_exec_create(&e, f.plan, MPI_COMM_WORLD) == RELAY_OK && relay_exec_set_deadline(e, deadline) == RELAY_OK,
          "skip: create, deadline set");
    for (int r = 0; r < 2; r++) ok &= run(e, &f) == RELAY_OK && a_right(&f);
    check(ok, "skip: replays within the deadline are right");
    if (rank != skipper) {
        ok = times_out(e, &f, "replay 3 ", "rank %d (at replay 2", skipper);
        void *dst[1] = {f.abuf};
        const void *src[1] = {f.bbuf};
        ok &= relay_exec_run(e, dst, src, NULL, NULL) == RELAY_ERR_TIMEOUT; /* only freeing is left */
    }
    check(ok, "skip: the others time out in time, naming the skipping rank at replay 2, and stay timed out");
    relay_exec_free(e);
    replays_afresh(&f, "skip: a new executor replays right");
    fixture_free(&f);
}

/* Ranks 0 and 1 replay executors x and y in opposite orders; the deadline
 * comes from RELAY_DEADLINE. */
static void opposite_orders(void)
{
    fixture f;
    fixture_init(&f, 0, RELAY_SCHED_P2P);
    relay_exec *x = NULL, *y = NULL;
    char seconds[32];
    snprintf(seconds, sizeof seconds, "%g", deadline);
    setenv("RELAY_DEADLINE", seconds, 1);
    check(relay_exec_create(&x, f.plan, MPI_COMM_WORLD) == RELAY_OK && relay_exec_create(&y, f.plan, MPI_COMM_WORLD) == RELAY_OK,
          "orders: create two executors under RELAY_DEADLINE");
    unsetenv("RELAY_DEADLINE");
    check(times_out(rank == 1 ? y : x, &f, "different orders", NULL, 0), "orders: every rank times out in time, naming executors replayed in different orders");
    relay_exec_free(x);
    relay_exec_free(y);
    replays_afresh(&f, "orders: a new executor replays right");
    fixture_free(&f);
}

/* The last rank sleeps three deadlines before its second replay (rounds). */
static void sleeping_rank(void)
{
    fixture f;
    fixture_init(&f, 0, RELAY_SCHED_ROUNDS);
    relay_exec *e = NULL;
    int sleeper = nranks - 1;
    check(relay_exec_create(&e, f.plan, MPI_COMM_WORLD) == RELAY_OK && relay_exec_set_deadline(e, deadline) == RELAY_OK &&
              run(e, &f) == RELAY_OK && a_right(&f),
          "sleep: create, a replay within the deadline");
    int ok = 1;
    if (rank == sleeper) {
        usleep((useconds_t)(3 * deadline * 1e6));
        run(e, &f); /* its peers gave up: whatever it returns */
    } else {
        /* Under rounds a rank waits for one peer per step: the sleeper,
         * or a peer that waits for it. */
        ok = times_out(e, &f, "no message arrived from rank ", NULL, 0);
    }
    check(ok, "sleep: the others time out in time, naming a peer");
    relay_exec_free(e);
    replays_afresh(&f, "sleep: a new executor replays right");
    fixture_free(&f);
}

/* Arguments refused, on every rank alike. */
static void bad_deadlines(void)
{
    fixture f;
    fixture_init(&f, 0, RELAY_SCHED_P2P);
    relay_exec *e = NULL;
    check(relay_exec_create(&e, f.plan, MPI_COMM_WORLD) == RELAY_OK && relay_exec_set_deadline(e, -1) == RELAY_ERR_ARG &&
              relay_exec_set_deadline(NULL, 1) == RELAY_ERR_ARG && relay_exec_set_deadline(e, 0) == RELAY_OK,
          "a negative deadline and a NULL executor refused");
    relay_exec_free(e);
    setenv("RELAY_DEADLINE", "soon", 1);
    e = NULL;
    check(relay_exec_create(&e, f.plan, MPI_COMM_WORLD) == RELAY_ERR_ARG && !e && strstr(relay_last_error(), "RELAY_DEADLINE"),
          "RELAY_DEADLINE=soon refused at create");
    unsetenv("RELAY_DEADLINE");
    fixture_free(&f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    unsetenv("RELAY_DEADLINE");
    refused_start(0, RELAY_SCHED_P2P, "p2p staged");
    refused_start(1, RELAY_SCHED_P2P, "p2p direct");
    refused_start(0, RELAY_SCHED_ROUNDS, "rounds");
    refused_start(0, RELAY_SCHED_ALLTOALLV, "alltoallv");
    bad_deadlines();
    if (nranks > 1) {
        skipped_replay();
        opposite_orders();
        sleeping_rank();
    }
    int rc = check_summary("mpi_deadline");
    MPI_Finalize();
    return rc;
}
