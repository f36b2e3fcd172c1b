/* mpi_index.c — index plans replayed (relay/index.h, executor/index/):
 * broadcast and sum, every type, items of 1 and 3 elements, checked
 * bitwise against the serial reference (index_reference.c) on each
 * rank's buffers, through each schedule an index plan replays with (p2p,
 * alltoallv, neighbor), from the planner's plan and from its file read
 * rank by rank (each rank its own section).  Cases: random lists
 * (duplicates, unsorted, an empty rank, items every rank holds) and a 2-D
 * block decomposition's halo given as indices.  Each executor replays
 * twice, the sum's second replay over the same values giving the same
 * bits.  Then bad arguments: NULL buffers on every rank and on one, alpha
 * or beta given: refused, and the executor replays right afterwards.
 * One mpiexec per rank count, the whole matrix inside. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_kind.h"
#include "index_reference.h"
#include "relay/relay.h"

static int rank, nranks, failures;

static void fail(const char *what, const char *how)
{
    if (failures++ < 20) fprintf(stderr, "rank %d: %s: %s\n", rank, what, how);
}

static const relay_type types[] = {RELAY_FLOAT, RELAY_DOUBLE, RELAY_CFLOAT, RELAY_CDOUBLE};
static const relay_schedule schedules[] = {RELAY_SCHED_P2P, RELAY_SCHED_ALLTOALLV, RELAY_SCHED_NEIGHBOR};

/* Every rank's owner and holder buffers, filled from seed alike on every
 * rank (each needs the others' for the reference). */
typedef struct {
    char **own, **hold;
} buffers;

static buffers buffers_of(const ref_index_case *c, int64_t k, relay_type t, uint64_t seed)
{
    buffers b = {calloc((size_t)nranks, sizeof(char *)), calloc((size_t)nranks, sizeof(char *))};
    size_t esz = relay_type_size(t);
    for (int r = 0; r < nranks; r++) {
        b.own[r] = malloc((size_t)(c->owners.count[r] * k) * esz + 1);
        b.hold[r] = malloc((size_t)(c->holders.count[r] * k) * esz + 1);
        ref_index_fill(b.own[r], c->owners.count[r] * k, t, &seed);
        ref_index_fill(b.hold[r], c->holders.count[r] * k, t, &seed);
    }
    return b;
}

static void buffers_free(buffers *b)
{
    for (int r = 0; r < nranks; r++) {
        free(b->own[r]);
        free(b->hold[r]);
    }
    free(b->own);
    free(b->hold);
}

/* This rank's view of one case: the buffer the move reads and the one it
 * writes, their sizes, and what the written one must hold after it. */
typedef struct {
    const ref_index_case *c;
    int64_t k;
    relay_type t;
    int sum;
    uint64_t seed;
} move_case;

static size_t bytes_of(const ref_lists *l, const move_case *m) { return (size_t)(l->count[rank] * m->k) * relay_type_size(m->t); }

/* One replay from fresh buffers: what it wrote against want, what it
 * read unchanged. */
static void replay_and_check(relay_exec *e, const move_case *m, const char *want, const char *what)
{
    buffers b = buffers_of(m->c, m->k, m->t, m->seed);
    const ref_lists *to = m->sum ? &m->c->owners : &m->c->holders, *from = m->sum ? &m->c->holders : &m->c->owners;
    char *dst = m->sum ? b.own[rank] : b.hold[rank], *src = m->sum ? b.hold[rank] : b.own[rank];
    char *src_before = malloc(bytes_of(from, m) + 1);
    memcpy(src_before, src, bytes_of(from, m));
    void *d[1] = {dst};
    const void *s[1] = {src};
    relay_status st = relay_exec_run(e, d, s, NULL, NULL);
    if (st) fail(what, relay_last_error());
    else if (memcmp(dst, want, bytes_of(to, m))) fail(what, "the written buffer differs from the reference");
    else if (memcmp(src, src_before, bytes_of(from, m))) fail(what, "the buffer read was changed");
    free(src_before);
    buffers_free(&b);
}

/* The reference's result for this rank's written buffer. */
static char *reference(const move_case *m)
{
    buffers b = buffers_of(m->c, m->k, m->t, m->seed);
    if (m->sum) ref_index_reduce_sum(&m->c->owners, &m->c->holders, m->k, m->t, b.own, b.hold);
    else ref_index_broadcast(&m->c->owners, &m->c->holders, m->k, m->t, b.own, b.hold);
    const ref_lists *to = m->sum ? &m->c->owners : &m->c->holders;
    char *want = malloc(bytes_of(to, m) + 1);
    memcpy(want, m->sum ? b.own[rank] : b.hold[rank], bytes_of(to, m));
    buffers_free(&b);
    return want;
}

/* The plan of m, bound with schedule `sched`, from the planner (or, with
 * from_file, from its bytes, this rank's section alone), replayed twice. */
static void check_move(const move_case *m, relay_schedule sched, int from_file, const char *name)
{
    char what[160];
    snprintf(what, sizeof what, "%s, %s, type %d, k %lld, %s%s", name, m->sum ? "sum" : "broadcast", (int)m->t,
             (long long)m->k, sched == RELAY_SCHED_P2P ? "p2p" : sched == RELAY_SCHED_ALLTOALLV ? "alltoallv" : "neighbor",
             from_file ? ", read from bytes" : "");
    relay_index_layout *o = ref_index_layout_of(&m->c->owners, m->k, 0), *h = ref_index_layout_of(&m->c->holders, m->k, 1);
    relay_plan *p = NULL, *q = NULL;
    relay_status st = o && h ? relay_plan_index(&p, nranks, o, h, m->sum ? RELAY_INDEX_REDUCE_SUM : RELAY_INDEX_BROADCAST, m->t)
                             : RELAY_ERR_ARG;
    if (!st && from_file) {
        void *buf;
        size_t len;
        st = relay_plan_encode(p, &buf, &len);
        if (!st) st = relay_plan_decode(&q, buf, len, rank);
        if (!st) free(buf);
    }
    relay_exec *e = NULL;
    relay_tuning_choice choice = {.schedule = sched};
    if (!st) st = rl_exec_create_choosing(&e, q ? q : p, MPI_COMM_WORLD, &choice);
    if (st) fail(what, relay_last_error());
    char *want = st ? NULL : reference(m);
    for (int replay = 0; !st && replay < 2; replay++) replay_and_check(e, m, want, what);
    free(want);
    relay_exec_free(e);
    relay_plan_free(p);
    relay_plan_free(q);
    relay_index_layout_free(o);
    relay_index_layout_free(h);
}

/* Both moves of c in every type, schedules and the file in turn. */
static void check_case(const ref_index_case *c, int64_t k, uint64_t seed, const char *name)
{
    for (int t = 0; t < 4; t++)
        for (int sum = 0; sum < 2; sum++) {
            int turn = (int)seed + 2 * t + sum;
            move_case m = {c, k, types[t], sum, seed * 31 + (uint64_t)(2 * t + sum)};
            check_move(&m, schedules[turn % 3], turn % 2, name);
        }
}

static void random_cases(void)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        ref_index_case c = ref_index_random_case(nranks, seed * 1000 + (uint64_t)nranks, seed % 2 == 0);
        char name[64];
        snprintf(name, sizeof name, "random lists (seed %llu)", (unsigned long long)seed);
        check_case(&c, seed % 2 ? 1 : 3, seed, name);
        ref_index_case_free(&c);
    }
}

/* nranks as a px x py mesh, px <= py, as square as it divides. */
static void mesh_of(int n, int *px, int *py)
{
    *px = 1;
    for (int a = 1; a * a <= n; a++)
        if (n % a == 0) *px = a;
    *py = n / *px;
}

static void halo_cases(void)
{
    int px, py;
    mesh_of(nranks, &px, &py);
    for (int64_t halo = 1; halo <= 2; halo++) {
        ref_index_case c = ref_index_halo_case(12, px, py, halo);
        char name[64];
        snprintf(name, sizeof name, "halo %lld of a 12 x 12 grid on %d x %d", (long long)halo, px, py);
        check_case(&c, halo == 1 ? 3 : 1, (uint64_t)(40 + halo), name);
        ref_index_case_free(&c);
    }
}

/* ---- refusals ------------------------------------------------------------ */

static void expect(relay_status st, relay_status want, const char *what)
{
    if (st != want) fail(what, st ? relay_last_error() : "accepted");
}

/* A sum over the halo case (every rank holds and owns items): NULL
 * buffers on every rank, then on rank 0 alone (the others complete over
 * its stand-in), alpha or beta given; then a replay that verifies. */
static void bad_arguments(void)
{
    int px, py;
    mesh_of(nranks, &px, &py);
    ref_index_case c = ref_index_halo_case(8, px, py, 1);
    move_case m = {&c, 2, RELAY_DOUBLE, 1, 77};
    relay_index_layout *o = ref_index_layout_of(&c.owners, 2, 0), *h = ref_index_layout_of(&c.holders, 2, 0);
    relay_plan *p = NULL;
    relay_exec *e = NULL;
    relay_status st = relay_plan_index(&p, nranks, o, h, RELAY_INDEX_REDUCE_SUM, RELAY_DOUBLE);
    if (!st) st = relay_exec_create(&e, p, MPI_COMM_WORLD);
    if (st) {
        fail("binding the refusals' plan", relay_last_error());
        return;
    }
    buffers b = buffers_of(&c, 2, RELAY_DOUBLE, 5);
    void *dst[1] = {b.own[rank]}, *none[1] = {NULL};
    const void *src[1] = {b.hold[rank]}, *no_src[1] = {NULL};
    double one = 1.0;
    expect(relay_exec_run(e, none, src, NULL, NULL), RELAY_ERR_ARG, "NULL dst on every rank");
    expect(relay_exec_run(e, dst, no_src, NULL, NULL), RELAY_ERR_ARG, "NULL src on every rank");
    expect(relay_exec_run(e, rank == 0 ? none : dst, src, NULL, NULL), rank == 0 ? RELAY_ERR_ARG : RELAY_OK,
           "NULL dst on rank 0 alone");
    expect(relay_exec_run(e, dst, src, &one, NULL), RELAY_ERR_ARG, "alpha given");
    expect(relay_exec_run(e, dst, src, NULL, &one), RELAY_ERR_ARG, "beta given");
    char *want = reference(&m);
    replay_and_check(e, &m, want, "a replay after the refusals");
    free(want);
    buffers_free(&b);
    relay_exec_free(e);
    relay_plan_free(p);
    relay_index_layout_free(o);
    relay_index_layout_free(h);
    ref_index_case_free(&c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    double t0 = MPI_Wtime();
    random_cases();
    halo_cases();
    bad_arguments();
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("mpi_index at %d ranks: %d failures, %.2f s\n", nranks, all, MPI_Wtime() - t0);
    MPI_Finalize();
    return all != 0;
}
