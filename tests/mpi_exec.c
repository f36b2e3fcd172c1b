/* mpi_exec.c — the executor's behaviour under MPI, beyond correct data:
 * collective failure without hangs (plans that differ, wrong communicator
 * size), split-phase misuse, isolation from the application's messages,
 * independence from the plan's lifetime, sends staggered by rank (watched
 * through MPI's profiling interface), no communicator leak across 100,000
 * create/free cycles (RELAY_TEST_EXEC_CYCLES another count), and the internal executors of relay_scalapack's plan
 * cache (exec_internal.h): bound on repeat, first replays in a scratch they
 * share, and a rank that failed to plan failing with the others; and a
 * plan whose sections disagree across ranks (one rank's section drops a
 * message, each section valid alone) refused by every rank at create; a
 * start refused on one rank only (a NULL buffer) completing everywhere,
 * NaN where that rank's elements belong, the ranks that receive them told
 * (RELAY_ERR_PEER); an executor freed during a
 * replay; a plan piece larger than any memory refused at once; an MPI
 * error inside a replay (made through PMPI) returned as RELAY_ERR_MPI;
 * RELAY_PULL: a bad value refused by every rank at create, and a slab
 * transpose read from the peers' B (each receiver makes a persistent empty
 * "read" reply per message) under RELAY_PULL=on wherever this test can
 * read its peers' memory itself, never under off, with the same result.
 * Run at 1, 2, 3, 4 and 8 ranks (ctest also runs it with RELAY_PULL=all). */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "exec_internal.h"
#include "plan_internal.h"
#include "mpi_check.h"
#include "relay/relay.h"

#ifdef __linux__
#include <sys/uio.h>
#include <unistd.h>
#endif

static int rank, nranks;

/* ---- the order in which relay starts its sends, seen through PMPI -------- */

enum { MAX_WATCHED = 64 };
static MPI_Request watched_req[MAX_WATCHED];
static int watched_dest[MAX_WATCHED], nwatched, started_dest[MAX_WATCHED], nstarted, watching;
static int empty_send_inits; /* the "read" replies of pulled messages, one per message its receiver reads */

int MPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    int rc = PMPI_Send_init(buf, count, type, dest, tag, comm, req);
    empty_send_inits += count == 0;
    /* Empty messages are replies ("read", from a rank that pulled a
     * message), started when a message lands, not sends of data. */
    if (watching && count > 0 && nwatched < MAX_WATCHED) {
        watched_req[nwatched] = *req;
        watched_dest[nwatched++] = dest;
    }
    return rc;
}

/* A destination joins the order when it differs from the last one: a direct
 * message goes out as several MPI_Isend, one per piece. */
static void started(int dest)
{
    if (nstarted < MAX_WATCHED && (nstarted == 0 || started_dest[nstarted - 1] != dest)) started_dest[nstarted++] = dest;
}

int MPI_Start(MPI_Request *req)
{
    for (int k = 0; watching && k < nwatched; k++)
        if (watched_req[k] == *req) started(watched_dest[k]);
    return PMPI_Start(req);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    if (watching) started(dest);
    return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

/* ---- an MPI error, made by PMPI where a replay completes ---------------- */

/* Armed, the next MPI_Wait or MPI_Waitall on this rank completes its
 * requests and then reports MPI_ERR_OTHER, as an MPI whose error handler
 * returns would (the executor's communicator has MPI_ERRORS_RETURN). */
static int fail_next_wait, failed_wait;

static int reported(int rc)
{
    if (rc != MPI_SUCCESS || !fail_next_wait) return rc;
    fail_next_wait = 0;
    failed_wait = 1;
    return MPI_ERR_OTHER;
}

int MPI_Wait(MPI_Request *req, MPI_Status *status) { return reported(PMPI_Wait(req, status)); }

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    return reported(PMPI_Waitall(count, reqs, statuses));
}

/* A 2-D block-cyclic layout over every rank: 1 x P grid, mb x nb blocks. */
static relay_layout *row_of_blocks(int64_t m, int64_t n, int64_t mb, int64_t nb)
{
    relay_layout *l = NULL;
    relay_layout_block_cyclic(&l, m, n, mb, nb, 1, nranks, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    return l;
}

typedef struct {
    relay_layout *a, *b;
    relay_plan *plan;
    double *abuf, *bbuf;
} fixture;

static double value(int64_t i, int64_t j) { return (double)(i * 1000 + j); }

/* The fixture of a plan made with options o (NULL: the defaults). */
static void fixture_init_with(fixture *f, int64_t m, int64_t n, const relay_plan_options *o)
{
    f->a = row_of_blocks(m, n, 3, 5);
    f->b = row_of_blocks(m, n, 4, 2);
    relay_plan_transform(&f->plan, nranks, f->a, f->b, RELAY_OP_N, RELAY_DOUBLE, o);
    f->abuf = calloc((size_t)relay_layout_local_elems(f->a, rank) + 1, sizeof(double));
    f->bbuf = calloc((size_t)relay_layout_local_elems(f->b, rank) + 1, sizeof(double));
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            int r;
            int64_t k;
            relay_layout_locate(f->b, i, j, &r, &k);
            if (r == rank) f->bbuf[k] = value(i, j);
        }
}

static void fixture_init(fixture *f, int64_t m, int64_t n) { fixture_init_with(f, m, n, NULL); }

static int fixture_result_ok(const fixture *f)
{
    for (int64_t i = 0; i < relay_layout_rows(f->a); i++)
        for (int64_t j = 0; j < relay_layout_cols(f->a); j++) {
            int r;
            int64_t k;
            relay_layout_locate(f->a, i, j, &r, &k);
            if (r == rank && f->abuf[k] != value(i, j)) return 0;
        }
    return 1;
}

static void fixture_free(fixture *f)
{
    relay_plan_free(f->plan);
    relay_layout_free(f->a);
    relay_layout_free(f->b);
    free(f->abuf);
    free(f->bbuf);
}

static void test_different_plans_fail_everywhere(void)
{
    if (nranks < 2) return;
    relay_layout *a = row_of_blocks(40, 30, rank % 2 ? 3 : 4, 5), *b = row_of_blocks(40, 30, 4, 2);
    relay_plan *p;
    relay_exec *e = NULL;
    relay_plan_transform(&p, nranks, a, b, RELAY_OP_N, RELAY_DOUBLE, NULL);
    relay_status st = relay_exec_create(&e, p, MPI_COMM_WORLD);
    check(st == RELAY_ERR_MISMATCH && e == NULL, "ranks holding different plans all get RELAY_ERR_MISMATCH");
    check(strstr(relay_last_error(), "fingerprint") != NULL, "the mismatch message names the fingerprints");
    relay_plan_free(p);
    relay_layout_free(a);
    relay_layout_free(b);
}

static void test_wrong_size_fails_everywhere(void)
{
    relay_layout *a = row_of_blocks(20, 20, 3, 3);
    relay_plan *p;
    relay_exec *e = NULL;
    relay_plan_transform(&p, nranks + 1, a, a, RELAY_OP_N, RELAY_DOUBLE, NULL);
    relay_status st = relay_exec_create(&e, p, MPI_COMM_WORLD);
    check(st == RELAY_ERR_MISMATCH && e == NULL, "a plan for P+1 ranks fails with RELAY_ERR_MISMATCH on every rank");
    relay_plan_free(p);
    relay_layout_free(a);
}

static void test_split_phase_and_misuse(void)
{
    fixture f;
    relay_exec *e;
    fixture_init(&f, 50, 37);
    check(relay_exec_create(&e, f.plan, MPI_COMM_WORLD) == RELAY_OK, "create");
    void *dst[1] = {f.abuf};
    const void *src[1] = {f.bbuf};
    check(relay_exec_wait(e) == RELAY_ERR_ARG, "wait without start is an argument error");
    check(relay_exec_start(e, dst, src, NULL, NULL) == RELAY_OK, "start");
    check(relay_exec_start(e, dst, src, NULL, NULL) == RELAY_ERR_ARG, "a second start while in flight is refused");
    check(relay_exec_wait(e) == RELAY_OK, "wait");
    check(fixture_result_ok(&f), "split-phase replay delivers every element");
    int local_elems = relay_layout_local_elems(f.a, rank) > 0;
    void *null_dst[1] = {NULL};
    relay_status st = relay_exec_run(e, null_dst, src, NULL, NULL);
    check(!local_elems || st == RELAY_ERR_ARG, "a NULL buffer where the rank holds data is refused");
    check(relay_exec_run(e, NULL, src, NULL, NULL) == RELAY_ERR_ARG, "a NULL buffer array is refused");
    relay_exec_free(e);
    fixture_free(&f);
}

/* relay talks on its own communicator: a wildcard receive the application
 * posted on the user's communicator must not catch relay's messages. */
static void test_application_messages_are_isolated(void)
{
    fixture f;
    relay_exec *e;
    fixture_init(&f, 64, 64);
    relay_exec_create(&e, f.plan, MPI_COMM_WORLD);
    double app = -1;
    MPI_Request req;
    MPI_Irecv(&app, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
    check(relay_exec_run(e, (void *const[]){f.abuf}, (const void *const[]){f.bbuf}, NULL, NULL) == RELAY_OK, "run");
    int done = 0;
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    check(!done, "no relay message matched the application's wildcard receive");
    double mine = 42;
    MPI_Send(&mine, 1, MPI_DOUBLE, rank, 0, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check(app == 42 && fixture_result_ok(&f), "application message and relay data both arrive intact");
    relay_exec_free(e);
    fixture_free(&f);
}

/* The executor keeps what it needs: the plan may go first. */
static void test_plan_freed_before_replay(void)
{
    fixture f;
    relay_exec *e;
    fixture_init(&f, 33, 45);
    relay_exec_create(&e, f.plan, MPI_COMM_WORLD);
    relay_plan_free(f.plan);
    f.plan = NULL;
    for (int r = 0; r < 3; r++) {
        memset(f.abuf, 0, (size_t)relay_layout_local_elems(f.a, rank) * sizeof(double));
        relay_exec_run(e, (void *const[]){f.abuf}, (const void *const[]){f.bbuf}, NULL, NULL);
    }
    check(fixture_result_ok(&f), "replays after the plan was freed are correct");
    relay_exec_free(e);
    fixture_free(&f);
}

/* Every rank sends to every other; rank r must start with r+1 and go round,
 * so that no rank is everybody's first destination (the communicator is
 * WORLD's duplicate, so ranks keep their numbers). */
static void test_sends_are_staggered(void)
{
    relay_layout *a, *b;
    relay_plan *p;
    relay_exec *e;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = RELAY_SCHED_P2P;
    relay_layout_block_cyclic(&b, 8 * nranks, 8 * nranks, 1, 8, nranks, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    relay_layout_block_cyclic(&a, 8 * nranks, 8 * nranks, 8, 1, 1, nranks, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    relay_plan_transform(&p, nranks, a, b, RELAY_OP_N, RELAY_DOUBLE, &o);
    double *abuf = calloc((size_t)relay_layout_local_elems(a, rank), sizeof *abuf);
    double *bbuf = calloc((size_t)relay_layout_local_elems(b, rank), sizeof *bbuf);
    watching = 1;
    nwatched = nstarted = 0;
    int created = relay_exec_create(&e, p, MPI_COMM_WORLD) == RELAY_OK;
    nstarted = 0; /* binding talks too */
    int ok = created && relay_exec_run(e, (void *const[]){abuf}, (const void *const[]){bbuf}, NULL, NULL) == RELAY_OK;
    watching = 0;
    ok = ok && nstarted == nranks - 1;
    for (int k = 0; ok && k < nstarted; k++) ok = started_dest[k] == (rank + 1 + k) % nranks;
    check(ok, "rank r starts its sends with rank r+1 and wraps around");
    if (created) relay_exec_free(e);
    relay_plan_free(p);
    relay_layout_free(a);
    relay_layout_free(b);
    free(abuf);
    free(bbuf);
}

/* The Fortran handle of a fresh duplicate of MPI_COMM_WORLD: an index into
 * the MPI library's table of communicators, which grows if any leak. */
static int next_communicator_slot(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int slot = (int)MPI_Comm_c2f(c);
    MPI_Comm_free(&c);
    return slot;
}

/* Each executor duplicates the communicator and frees it again: after
 * 100,000 executors the next communicator takes the same table slot as
 * before the loop, and replays in between stay correct.
 * RELAY_TEST_EXEC_CYCLES sets another count: ctest runs 100,000 once and
 * 2,500 in every other run, still past any table of communicators a leak
 * could fill unseen (MPICH's holds 2,048).  Under
 * RELAY_SHM=on, whose binding also splits the communicator by node and
 * allocates a shared-memory window each time, 2,000, and the slots are
 * taken in the middle, after two cycles in a row: with windows MPICH's
 * table of communicators alternates between two states from one executor
 * to the next (its next slot alternates, whatever the number of
 * executors), a leak would move it on and on. */
static void test_no_communicator_leak(void)
{
    fixture f;
    fixture_init(&f, 16, 16);
    const char *shm = getenv("RELAY_SHM");
    int windows = shm && !strcmp(shm, "on");
    const char *asked = getenv("RELAY_TEST_EXEC_CYCLES");
    int ok = 1, cycles = windows ? 2000 : asked && atoi(asked) >= 10 ? atoi(asked) : 100000;
    int before = next_communicator_slot(), or_before = before;
    for (int k = 0; k < cycles && ok; k++) {
        relay_exec *e;
        if (windows && k == cycles / 2) before = next_communicator_slot();
        if (windows && k == cycles / 2 + 1) or_before = next_communicator_slot();
        ok = relay_exec_create(&e, f.plan, MPI_COMM_WORLD) == RELAY_OK;
        if (ok && k % (windows ? cycles : cycles / 10) == 0) ok = relay_exec_run(e, (void *const[]){f.abuf}, (const void *const[]){f.bbuf}, NULL, NULL) == RELAY_OK;
        if (ok) relay_exec_free(e);
    }
    check(ok && fixture_result_ok(&f), "executors created, replayed and freed many times");
    int after = next_communicator_slot();
    check(after == before || after == or_before, "no communicator leaked over the create/free cycles");
    fixture_free(&f);
}

/* Two executors bound on repeat lend their first replays one scratch: the
 * first replay packs into it (when the rank exchanges anything), later ones
 * run bound; every replay delivers every element, into zeroed buffers. */
static void test_first_replays_share_a_scratch(void)
{
    fixture f, g;
    fixture_init(&f, 41, 29);
    fixture_init(&g, 29, 41);
    relay_internal_scratch scratch = {NULL, 0};
    relay_exec *e = NULL, *x = NULL;
    int ok = relay_internal_exec_create(&e, f.plan, MPI_COMM_WORLD, RL_EXEC_BIND_ON_REPEAT, &scratch) == RELAY_OK &&
             relay_internal_exec_create(&x, g.plan, MPI_COMM_WORLD, RL_EXEC_BIND_ON_REPEAT, &scratch) == RELAY_OK;
    check(ok, "executors bound on repeat are created");
    int results = 1;
    for (int r = 0; ok && r < 3; r++)
        for (fixture *h = &f; h; h = h == &f ? &g : NULL) {
            memset(h->abuf, 0, (size_t)relay_layout_local_elems(h->a, rank) * sizeof(double));
            ok = relay_exec_run(h == &f ? e : x, (void *const[]){h->abuf}, (const void *const[]){h->bbuf}, NULL, NULL) == RELAY_OK;
            results = results && fixture_result_ok(h);
            if (r == 0 && h == &f) check(nranks == 1 || scratch.bytes > 0, "a first replay that exchanges messages stages them in the scratch");
        }
    check(ok && results, "first replays from the scratch and bound replays after them deliver every element");
    /* A larger plan's first replay grows the scratch (a new allocation):
     * the bound executors' buffers must not have been in it. */
    fixture big;
    fixture_init(&big, 90, 70);
    relay_exec *y = NULL;
    ok = ok && relay_internal_exec_create(&y, big.plan, MPI_COMM_WORLD, RL_EXEC_BIND_ON_REPEAT, &scratch) == RELAY_OK &&
         relay_exec_run(y, (void *const[]){big.abuf}, (const void *const[]){big.bbuf}, NULL, NULL) == RELAY_OK;
    memset(f.abuf, 0, (size_t)relay_layout_local_elems(f.a, rank) * sizeof(double));
    ok = ok && relay_exec_run(e, (void *const[]){f.abuf}, (const void *const[]){f.bbuf}, NULL, NULL) == RELAY_OK;
    check(ok && fixture_result_ok(&big) && fixture_result_ok(&f),
          "a bound executor replays right after a larger first replay grew the scratch");
    relay_exec_free(y);
    fixture_free(&big);
    relay_exec_free(e);
    relay_exec_free(x);
    relay_internal_scratch_release(&scratch);
    check(scratch.buf == NULL && scratch.bytes == 0, "a released scratch holds nothing");
    fixture_free(&f);
    fixture_free(&g);
}

/* A rank whose plan could not be made joins the agreement its peers run
 * while creating their executors: everyone fails, nobody waits. */
static void test_failed_planning_fails_everywhere(void)
{
    fixture f;
    fixture_init(&f, 20, 20);
    relay_exec *e = NULL;
    relay_status st;
    if (rank == nranks - 1) {
        relay_internal_fail(RELAY_ERR_NOMEM, "planning this rank's section: out of memory (simulated)");
        st = relay_internal_exec_join_failed(MPI_COMM_WORLD, RELAY_ERR_NOMEM);
        check(st == RELAY_ERR_NOMEM && strstr(relay_last_error(), "simulated"), "the failing rank keeps its own status and message");
    } else {
        st = relay_internal_exec_create(&e, f.plan, MPI_COMM_WORLD, RL_EXEC_BIND_ON_REPEAT, NULL);
        check(st == RELAY_ERR_MISMATCH && e == NULL && strstr(relay_last_error(), "another rank"),
              "the other ranks fail with RELAY_ERR_MISMATCH naming another rank");
    }
    fixture_free(&f);
}

/* Rank 0's section forgets its last send: valid alone, but its peer's
 * section still expects the message, which would never come. */
static void test_disagreeing_sections_are_refused(void)
{
    if (nranks < 2) return;
    fixture f;
    fixture_init(&f, 40, 40);
    rl_section *s = f.plan->sections[0];
    int peer = -1;
    if (rank == 0 && s->nsend > 0) {
        peer = (int)s->send[s->nsend - 1].peer;
        s->nsend_spans = s->send[s->nsend - 1].first;
        s->nsend--;
    }
    MPI_Bcast(&peer, 1, MPI_INT, 0, MPI_COMM_WORLD);
    relay_exec *e = NULL;
    relay_status st = relay_exec_create(&e, f.plan, MPI_COMM_WORLD);
    check(peer >= 0, "rank 0 sends something to drop");
    check(st == RELAY_ERR_MISMATCH && e == NULL, "sections that disagree fail relay_exec_create everywhere");
    check(rank != peer || strstr(relay_last_error(), "rank 0's says it sends") != NULL,
          "the rank left waiting names the rank whose section disagrees");
    fixture_free(&f);
}

/* Whether every element of A this rank holds is B's, or NaN where B's
 * element lives on rank `refused`; *from, whether there is such an element. */
static int result_ok_but_from(const fixture *f, int refused, int *from)
{
    *from = 0;
    for (int64_t i = 0; i < relay_layout_rows(f->a); i++)
        for (int64_t j = 0; j < relay_layout_cols(f->a); j++) {
            int r, q;
            int64_t k, kb;
            relay_layout_locate(f->a, i, j, &r, &k);
            relay_layout_locate(f->b, i, j, &q, &kb);
            *from |= r == rank && q == refused;
            if (r == rank && (q == refused ? !isnan(f->abuf[k]) : f->abuf[k] != value(i, j))) return 0;
        }
    return 1;
}

/* The last rank passes a NULL destination: it is refused, yet replays NaN
 * in its stead, so the others complete, those that receive from it told
 * (twice: the executor stays usable). */
static void test_refused_start_on_one_rank(void)
{
    fixture f;
    fixture_init(&f, 30, 44);
    relay_exec *e = NULL;
    int refused = nranks - 1, ok = relay_exec_create(&e, f.plan, MPI_COMM_WORLD) == RELAY_OK;
    for (int r = 0; ok && r < 2; r++) {
        memset(f.abuf, 0, (size_t)relay_layout_local_elems(f.a, rank) * sizeof(double));
        relay_status st = relay_exec_run(e, (void *const[]){rank == refused ? NULL : f.abuf}, (const void *const[]){f.bbuf}, NULL, NULL);
        int holds = relay_layout_local_elems(f.a, rank) > 0;
        if (rank == refused)
            check(!holds || (st == RELAY_ERR_ARG && strstr(relay_last_error(), "dst[0] is NULL")),
                  "the rank with a NULL buffer is refused, with the reason");
        else {
            int from, right = result_ok_but_from(&f, refused, &from);
            check(right && st == (from ? RELAY_ERR_PEER : RELAY_OK),
                  "the others complete: their elements from the refused rank are NaN (RELAY_ERR_PEER), the rest correct");
        }
    }
    relay_exec_free(e);
    fixture_free(&f);
}

/* relay_exec_free completes a replay still in flight before it frees. */
static void test_free_during_replay(void)
{
    fixture f;
    fixture_init(&f, 36, 20);
    relay_exec *e = NULL;
    int ok = relay_exec_create(&e, f.plan, MPI_COMM_WORLD) == RELAY_OK &&
             relay_exec_start(e, (void *const[]){f.abuf}, (const void *const[]){f.bbuf}, NULL, NULL) == RELAY_OK;
    relay_exec_free(e);
    check(ok && fixture_result_ok(&f), "an executor freed during a replay completes it first");
    fixture_free(&f);
}

/* An MPI call of a replay fails on the last rank (every rank: all) once
 * its requests completed: relay returns RELAY_ERR_MPI with MPI's own error
 * string there; the other ranks complete with the right result; every
 * rank frees its executor, and MPI serves a new one. */
static void test_mpi_error_comes_back(relay_schedule schedule, int all)
{
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = schedule;
    fixture f;
    fixture_init_with(&f, 40, 33, &o);
    relay_exec *e = NULL;
    relay_status st = relay_exec_create(&e, f.plan, MPI_COMM_WORLD);
    check(st == RELAY_OK, "an executor is made");
    char mpi_says[MPI_MAX_ERROR_STRING];
    int len, any_failed;
    MPI_Error_string(MPI_ERR_OTHER, mpi_says, &len);
    failed_wait = 0;
    fail_next_wait = all || rank == nranks - 1;
    st = st ? st : relay_exec_run(e, (void *const[]){f.abuf}, (const void *const[]){f.bbuf}, NULL, NULL);
    fail_next_wait = 0;
    MPI_Allreduce(&failed_wait, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    check(any_failed || nranks == 1, "the replay waits on MPI (more than one rank)");
    if (failed_wait)
        check(st == RELAY_ERR_MPI && strstr(relay_last_error(), "completing the replay failed") && strstr(relay_last_error(), mpi_says),
              "the rank whose MPI failed gets RELAY_ERR_MPI with MPI's error string");
    else
        check(st == RELAY_OK && fixture_result_ok(&f), "the other ranks complete with the right result");
    relay_exec_free(e);
    memset(f.abuf, 0, (size_t)relay_layout_local_elems(f.a, rank) * sizeof(double));
    st = relay_exec_create(&e, f.plan, MPI_COMM_WORLD);
    if (!st) st = relay_exec_run(e, (void *const[]){f.abuf}, (const void *const[]){f.bbuf}, NULL, NULL);
    check(st == RELAY_OK && fixture_result_ok(&f), "a new executor replays correctly afterwards");
    relay_exec_free(e);
    fixture_free(&f);
}

/* A valid one-rank transpose of 2^59 elements (4 EiB): no buffer can hold
 * it, and relay_exec_create must say so at once, not walk its 2^44 tiles
 * (which took hours) before the allocation fails. */
static void test_piece_beyond_memory_is_refused_at_once(void)
{
    relay_layout *a = NULL, *b = NULL;
    relay_plan *p = NULL;
    relay_exec *e = NULL;
    int64_t m = (int64_t)1 << 30, n = (int64_t)1 << 29;
    relay_status st = relay_layout_block_cyclic(&a, m, n, m, n, 1, 1, RELAY_ROW_MAJOR, 0, 0, m, RELAY_COL_MAJOR);
    if (!st) st = relay_layout_block_cyclic(&b, n, m, n, m, 1, 1, RELAY_ROW_MAJOR, 0, 0, n, RELAY_COL_MAJOR);
    if (!st) st = relay_plan_transform(&p, 1, a, b, RELAY_OP_T, RELAY_DOUBLE, NULL);
    check(st == RELAY_OK, "a one-rank plan of 2^59 elements is made");
    if (!st) st = relay_exec_create(&e, p, MPI_COMM_SELF);
    check(st == RELAY_ERR_NOMEM && e == NULL && strstr(relay_last_error(), "tiles of this rank's pieces"),
          "relay_exec_create refuses it with RELAY_ERR_NOMEM and the reason");
    relay_plan_free(p);
    relay_layout_free(a);
    relay_layout_free(b);
}

/* ---- pulled messages (RELAY_PULL, executor/transform_pull.c) ------------ */

/* Sets RELAY_PULL (NULL: unsets it); returns a copy of what it was. */
/* Sets (NULL: unsets) an environment variable; returns its old value. */
static char *set_env(const char *name, const char *value)
{
    const char *was = getenv(name);
    char *copy = was ? strdup(was) : NULL;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
    return copy;
}

static void restore_env(const char *name, char *was)
{
    free(set_env(name, was));
    free(was);
}

static char *set_pull(const char *value) { return set_env("RELAY_PULL", value); }

static void restore_pull(char *was) { restore_env("RELAY_PULL", was); }

static void test_bad_pull_setting_fails_everywhere(void)
{
    fixture f;
    fixture_init(&f, 20, 30);
    char *was = set_pull(rank == nranks - 1 ? "sideways" : "on");
    relay_exec *e = NULL;
    relay_status st = relay_exec_create(&e, f.plan, MPI_COMM_WORLD);
    int named = strstr(relay_last_error(), "RELAY_PULL=sideways") != NULL;
    restore_pull(was);
    check(st != RELAY_OK && !e, "a bad RELAY_PULL on one rank fails relay_exec_create on every rank");
    check(rank != nranks - 1 || (st == RELAY_ERR_ARG && named), "the rank with the bad value says which");
    fixture_free(&f);
}

/* Whether every rank reads its neighbour's memory with process_vm_readv,
 * as this test itself checks it (after relay, which asks Yama for leave). */
static int neighbours_readable(void)
{
    int ok = 0;
#ifdef __linux__
    static volatile uint64_t cookie;
    cookie = 0x5eed0000u + (uint64_t)rank;
    uint64_t mine[2] = {(uint64_t)getpid(), (uint64_t)(uintptr_t)&cookie}, theirs[2], seen = 0;
    int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
    MPI_Sendrecv(mine, 2, MPI_UINT64_T, prev, 7, theirs, 2, MPI_UINT64_T, next, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    struct iovec local = {&seen, sizeof seen}, remote = {(void *)(uintptr_t)theirs[1], sizeof seen};
    ok = process_vm_readv((pid_t)theirs[0], &local, 1, &remote, 1, 0) == (ssize_t)sizeof seen && seen == 0x5eed0000u + (uint64_t)next;
    MPI_Barrier(MPI_COMM_WORLD); /* cookie stays until every rank has read it */
#endif
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

/* A slab transpose: A = B^T, both 1 x P slabs; each remote run of B is
 * 512 doubles, a page, so RELAY_PULL=on reads it from the peer.  Returns
 * whether both replays were right; *replies: the empty sends (the "read"
 * replies of pulled messages) its executor made on this rank. */
static int slab_transpose_with(const char *pull, int *replies)
{
    int64_t m = 16 * nranks, n = 512 * nranks;
    relay_layout *a = NULL, *b = NULL;
    relay_plan *p = NULL;
    relay_exec *e = NULL;
    relay_layout_block_cyclic(&a, m, n, m, 512, 1, nranks, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    relay_layout_block_cyclic(&b, n, m, n, 16, 1, nranks, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    relay_status st = relay_plan_transform(&p, nranks, a, b, RELAY_OP_T, RELAY_DOUBLE, NULL);
    double *abuf = calloc((size_t)relay_layout_local_elems(a, rank) + 1, sizeof *abuf);
    double *bbuf = calloc((size_t)relay_layout_local_elems(b, rank) + 1, sizeof *bbuf);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < m; j++) {
            int r;
            int64_t k;
            relay_layout_locate(b, i, j, &r, &k);
            if (r == rank) bbuf[k] = value(i, j);
        }
    char *was = set_pull(pull), *shm_was = set_env("RELAY_SHM", NULL); /* its "full" and "empty" are empty sends too */
    empty_send_inits = 0;
    if (!st) st = relay_exec_create(&e, p, MPI_COMM_WORLD);
    *replies = empty_send_inits;
    restore_pull(was);
    restore_env("RELAY_SHM", shm_was);
    for (int replay = 0; !st && replay < 2; replay++)
        st = relay_exec_run(e, (void *const[]){abuf}, (const void *const[]){bbuf}, NULL, NULL);
    int ok = st == RELAY_OK;
    for (int64_t i = 0; ok && i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            int r;
            int64_t k;
            relay_layout_locate(a, i, j, &r, &k);
            if (r == rank && abuf[k] != value(j, i)) ok = 0;
        }
    relay_exec_free(e);
    relay_plan_free(p);
    relay_layout_free(a);
    relay_layout_free(b);
    free(abuf);
    free(bbuf);
    return ok;
}

static void test_slab_transpose_is_pulled(void)
{
    int staged_replies, pulled_replies, all_pulled;
    int ok = slab_transpose_with("off", &staged_replies) && slab_transpose_with("on", &pulled_replies);
    int readable = nranks > 1 && neighbours_readable();
    MPI_Allreduce(&pulled_replies, &all_pulled, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(ok, "a slab transpose is right through MPI and read from the peers");
    check(staged_replies == 0, "RELAY_PULL=off reads nothing from the peers");
    check(readable ? pulled_replies == nranks - 1 : all_pulled == 0,
          "RELAY_PULL=on: where ranks can read each other, each reads its message from every peer, else none");
}

/* relay_exec_time and relay_exec_timings: rows per message, replays
 * counted only while timing, the sums restarted, misuse refused. */
static void test_timings(void)
{
    fixture f;
    relay_exec *e = NULL;
    fixture_init(&f, 50, 37);
    void *dst[1] = {f.abuf};
    const void *src[1] = {f.bbuf};
    relay_plan_stats stats;
    relay_plan_get_stats(f.plan, &stats);
    check(relay_exec_create(&e, f.plan, MPI_COMM_WORLD) == RELAY_OK, "timings: create");
    int count = 0, ok = 1;
    int64_t replays = -1, sent = 0, moved = 0;
    check(relay_exec_timings(e, &replays, NULL, &count) == RELAY_OK && replays == 0, "timings before timing: none");
    relay_exec_run(e, dst, src, NULL, NULL); /* untimed */
    check(relay_exec_time(e, 1) == RELAY_OK, "relay_exec_time starts");
    for (int k = 0; k < 3; k++) ok = ok && relay_exec_run(e, dst, src, NULL, NULL) == RELAY_OK;
    check(relay_exec_start(e, dst, src, NULL, NULL) == RELAY_OK && relay_exec_time(e, 0) == RELAY_ERR_ARG &&
              relay_exec_wait(e) == RELAY_OK,
          "timing cannot change while a replay is in flight");
    check(relay_exec_time(e, 0) == RELAY_OK && relay_exec_run(e, dst, src, NULL, NULL) == RELAY_OK, "timing stops");
    relay_exec_timing *rows = calloc((size_t)count + 1, sizeof *rows);
    check(relay_exec_timings(e, &replays, rows, &count) == RELAY_OK && replays == 4, "four replays timed, not six");
    for (int i = 0; i < count; i++) {
        sent += rows[i].kind == RELAY_TIMING_SEND ? rows[i].bytes : 0;
        moved += rows[i].kind != RELAY_TIMING_COMPLETION ? rows[i].bytes : 0;
        ok = ok && rows[i].pack_s >= 0 && rows[i].wait_s >= 0 && rows[i].unpack_s >= 0;
        ok = ok && (rows[i].kind == RELAY_TIMING_SEND || rows[i].pack_s == 0);
    }
    int64_t totals[2] = {sent, moved};
    MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    check(ok && fixture_result_ok(&f), "timed replays are right and their seconds are sums of phases");
    check(totals[0] == stats.bytes_remote && totals[1] == stats.bytes_remote + stats.bytes_total,
          "the rows' bytes add up to the plan's: sent once, received once, local copies once");
    check(relay_exec_time(e, 1) == RELAY_OK && relay_exec_timings(e, &replays, rows, &count) == RELAY_OK &&
              replays == 0 && rows[0].pack_s + rows[0].wait_s + rows[0].unpack_s == 0,
          "starting again restarts the sums");
    int small = 0;
    check(count < 1 || (relay_exec_timings(e, &replays, rows, &small) == RELAY_OK && small == count),
          "a capacity of 0 asks for the count");
    free(rows);
    relay_exec_free(e);
    fixture_free(&f);
    relay_bmmc perm;
    relay_plan *bp = NULL;
    relay_bmmc_identity(&perm, 4);
    int p = 0;
    while ((2 << p) <= nranks && p < 4) p++;
    relay_plan_bmmc(&bp, &perm, p, 4 - p, 8);
    relay_exec *be = NULL;
    int same = (1 << p) == nranks;
    if (same) relay_exec_create(&be, bp, MPI_COMM_WORLD);
    check(!same || relay_exec_time(be, 1) == RELAY_ERR_UNSUPPORTED, "a BMMC executor is not timed per message");
    relay_exec_free(be);
    relay_plan_free(bp);
}

/* Memory kinds without a GPU, as every CI machine runs them (the device
 * replays themselves are gpu_replays.c's, on a GPU): host memory is always
 * there and binds as relay_exec_create does; CUDA memory where the backend
 * or a device is missing is refused on every rank, naming why; ranks that
 * ask for different kinds are refused on every rank; an unknown kind is an
 * argument error everywhere. */
static void test_memory_kinds(void)
{
    relay_layout *a = row_of_blocks(20, 20, 3, 3);
    relay_plan *p;
    relay_exec *e = NULL;
    relay_plan_transform(&p, nranks, a, a, RELAY_OP_N, RELAY_DOUBLE, NULL);
    int host = 0, cuda = 0;
    check(relay_memory_supported(RELAY_MEMORY_HOST, &host) == RELAY_OK && host == 1, "host memory is always supported");
    check(relay_memory_supported(RELAY_MEMORY_CUDA, &cuda) == RELAY_OK, "asking about CUDA memory succeeds");
    MPI_Allreduce(MPI_IN_PLACE, &cuda, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    relay_exec_options o = RELAY_EXEC_OPTIONS_INIT, got;
    o.transport = rank % 2 ? RELAY_TRANSPORT_STAGED : RELAY_TRANSPORT_AUTO; /* ignored for host memory */
    check(relay_exec_create_with(&e, p, MPI_COMM_WORLD, &o) == RELAY_OK, "host options bind, whatever transport each rank names");
    check(relay_exec_options_get(e, &got) == RELAY_OK && got.memory == RELAY_MEMORY_HOST && got.transport == RELAY_TRANSPORT_AUTO,
          "a host executor reports host memory");
    relay_exec_free(e);
    e = NULL;
    check(relay_exec_create_with(&e, p, MPI_COMM_WORLD, NULL) == RELAY_OK, "NULL options bind host memory");
    relay_exec_free(e);
    e = NULL;
    o.memory = RELAY_MEMORY_CUDA;
    o.transport = RELAY_TRANSPORT_AUTO;
    if (!cuda) {
        relay_status st = relay_exec_create_with(&e, p, MPI_COMM_WORLD, &o);
        check(st == RELAY_ERR_UNSUPPORTED && e == NULL, "CUDA memory without a backend or GPU is unsupported on every rank");
        check(strstr(relay_last_error(), "CUDA") != NULL, "... and the message says why");
    }
    o.memory = rank == 0 ? RELAY_MEMORY_CUDA : RELAY_MEMORY_HOST;
    if (nranks > 1) {
        relay_status st = relay_exec_create_with(&e, p, MPI_COMM_WORLD, &o);
        check(st != RELAY_OK && e == NULL, "ranks asking for different memory kinds fail together");
        check(rank == 0 || st == RELAY_ERR_MISMATCH, "... the host ranks with RELAY_ERR_MISMATCH");
    }
    o.memory = (relay_memory)7;
    check(relay_exec_create_with(&e, p, MPI_COMM_WORLD, &o) == RELAY_ERR_ARG && e == NULL, "an unknown memory kind is refused");
    relay_plan_free(p);
    relay_layout_free(a);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    test_different_plans_fail_everywhere();
    test_wrong_size_fails_everywhere();
    test_split_phase_and_misuse();
    test_application_messages_are_isolated();
    test_plan_freed_before_replay();
    if (nranks <= MAX_WATCHED) test_sends_are_staggered();
    test_no_communicator_leak();
    test_first_replays_share_a_scratch();
    test_failed_planning_fails_everywhere();
    test_disagreeing_sections_are_refused();
    test_refused_start_on_one_rank();
    test_free_during_replay();
    test_piece_beyond_memory_is_refused_at_once();
    test_mpi_error_comes_back(RELAY_SCHED_P2P, 0);
    test_mpi_error_comes_back(RELAY_SCHED_ALLTOALLV, 1);
    test_mpi_error_comes_back(RELAY_SCHED_NEIGHBOR, 1);
    test_bad_pull_setting_fails_everywhere();
    test_slab_transpose_is_pulled();
    test_timings();
    test_memory_kinds();
    int status = check_summary("mpi_exec");
    MPI_Finalize();
    return status;
}
