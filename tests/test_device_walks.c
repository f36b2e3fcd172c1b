/* test_device_walks.c — the CUDA backend's index arithmetic, on the host,
 * without a GPU: the tables of device walks (executor/cuda/device_table.c)
 * and the per-element arithmetic the kernels run (device_walks.h), against
 * the serial reference (reference.c), never against relay's own replay.
 *
 * For each plan (hand-picked cases: 8x8 blocks transposed, a single element,
 * rectangles, ranks that hold nothing, bands of many tiles and tiles of many
 * bands, a batch; then random block-cyclic and grid layouts of 1 to 8 ranks,
 * random sizes and blocks, ops N/T/C, all four types, relabeling and
 * schedules, fixed seeds), every rank's part is prepared as the executor
 * prepares it (rl_exec_transform.prepare, no MPI call), its three tables
 * built (packing its sends, unpacking its receives, its local moves), and
 * the replay of all ranks emulated in this one process exactly as the
 * kernels run it: tile t of a table belongs to walk rl_dev_walk_of_tile,
 * starts at rl_dev_tile_origin, and each element (I, J) of it inside V moves
 * between the offsets rl_dev_row_offset + rl_dev_col_offset of the buffers
 * the walk names (plain copy when packing; alpha * op + beta * A, A not read
 * when beta is 0, when unpacking and moving locally).  Messages travel from
 * each sender's pack buffer into its receiver's as the sections list them.
 *
 * Checked: every offset inside its buffer; every element of A written
 * exactly once and equal to the reference (exactly: the values are small
 * integers), gaps of A never written, B and receive buffers never written,
 * every element of each packed message written exactly once and padding
 * never; tiles found by the kernels' search as by a linear scan, and none
 * starting outside its walk's V. */
/* First: device_walks.h names parameters I and J, which <complex.h>
 * (also included by transform.h) makes a macro. */
#include "device_table.h"
#include "device_walks.h"

#include <complex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "exec_kind.h"
#include "relay/relay.h"
#include "transform.h"
#include "transform_case.h"

enum { RANDOM_CASES = 2000, MAX_RANKS = 8, MAX_PAIRS = 2, MAX_NOTES = 4 };

/* A case (transform_case.h): pairs of reference layouts, op, type, scalars,
 * on tc->nranks emulated ranks.  The gaps of A's and B's buffers hold
 * REF_GAP_VALUE and must never be written. */
typedef transform_case walk_case;

/* ---- failures: counted per case, the first few described ------------- */

static void case_describe(const walk_case *tc);

static const walk_case *current_case;
static long case_failures;

/* The case is described before its first failure. */
static void note(const char *fmt, ...)
{
    if (case_failures == 0) case_describe(current_case);
    if (case_failures++ >= MAX_NOTES) return;
    va_list ap;
    va_start(ap, fmt);
    printf("    ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

/* ---- describing a case ---------------------------------------------- */

static void case_describe(const walk_case *tc)
{
    printf("  FAIL case \"%s\": %d ranks, %s, alpha %g%+gi, beta %g%+gi, relabel %d, schedule %d\n", tc->name,
           tc->nranks, ref_type_name(tc->type), creal(tc->alpha), cimag(tc->alpha), creal(tc->beta),
           cimag(tc->beta), (int)tc->relabel, (int)tc->schedule);
    case_print_pairs(tc, "    ");
}

/* ---- the emulated ranks ---------------------------------------------- */

/* A rank's buffer: of a matrix (map: the global element i*n + j of each
 * local index, -1 a gap) or a pack buffer (map NULL), and how often the
 * emulated kernels wrote each element. */
typedef struct {
    void *data;
    int64_t elems;
    int *writes;
    int64_t *map;
    int64_t n;
} emu_buffer;

typedef struct {
    rl_transform_exec *x;
    rl_dev_table tables[3]; /* indexed by rl_dev_phase */
    emu_buffer a[MAX_PAIRS], b[MAX_PAIRS], send, recv;
} emu_rank;

typedef struct {
    const walk_case *tc;
    relay_plan *plan;
    ref_layout dst_ref[MAX_PAIRS]; /* A's layouts with the plan's sigma applied */
    ref_transform t[MAX_PAIRS];
    emu_rank *ranks;
} emulation;

static void matrix_buffer(emu_buffer *eb, const ref_layout *l, int rank, relay_type type)
{
    eb->elems = ref_local_elems(l, rank);
    eb->map = ref_local_map(l, rank);
    eb->n = l->n;
    eb->data = malloc(ref_type_size(type) * (size_t)(eb->elems + 1));
    eb->writes = calloc((size_t)eb->elems + 1, sizeof *eb->writes);
}

/* A pack buffer of `bytes`, every byte 0xff (NaN in every type) until written. */
static void pack_buffer(emu_buffer *eb, int64_t bytes, size_t esz)
{
    eb->elems = bytes / (int64_t)esz;
    eb->map = NULL;
    eb->data = malloc((size_t)bytes + 1);
    memset(eb->data, 0xff, (size_t)bytes);
    eb->writes = calloc((size_t)eb->elems + 1, sizeof *eb->writes);
}

static void buffer_free(emu_buffer *eb)
{
    free(eb->data);
    free(eb->writes);
    free(eb->map);
}

/* B holds its values; A its old values, or NaN where beta is 0 (A must not
 * be read); gaps REF_GAP_VALUE in both (case_fill). */
static void fill_buffers(const ref_transform *t, emu_buffer *a, emu_buffer *b)
{
    ref_buffer av = {t->type, a->data, a->elems, a->n, a->map}, bv = {t->type, b->data, b->elems, b->n, b->map};
    case_fill(t, &av, &bv);
}

/* Rank r's part prepared as relay_exec_create prepares it, its three
 * tables, and its buffers. */
static void rank_init(emulation *em, int r)
{
    const walk_case *tc = em->tc;
    emu_rank *er = &em->ranks[r];
    static const relay_exec_options host = RELAY_EXEC_OPTIONS_INIT;
    rl_exec_setup setup = {.rank = r, .nranks = tc->nranks, .team = 1, .options = &host};
    void *state = NULL;
    relay_status st = rl_exec_transform.prepare(&state, em->plan, &setup);
    er->x = state;
    if (st) fail_msg("rank %d: prepare: %s: %s", r, relay_status_str(st), relay_last_error());
    const rl_transform_exec *x = er->x;
    assert_int_equal(rl_dev_table_build(&er->tables[RL_DEV_PACK], &x->set, RL_DEV_PACK), RELAY_OK);
    assert_int_equal(rl_dev_table_build(&er->tables[RL_DEV_UNPACK], &x->set, RL_DEV_UNPACK), RELAY_OK);
    assert_int_equal(rl_dev_table_build(&er->tables[RL_DEV_LOCAL], &x->set, RL_DEV_LOCAL), RELAY_OK);
    for (int k = 0; k < tc->count; k++) {
        matrix_buffer(&er->a[k], &em->dst_ref[k], r, tc->type);
        matrix_buffer(&er->b[k], &tc->src[k], r, tc->type);
        fill_buffers(&em->t[k], &er->a[k], &er->b[k]);
    }
    pack_buffer(&er->send, rl_msg_side_bytes(&x->set.send), x->esz);
    pack_buffer(&er->recv, rl_msg_side_bytes(&x->set.recv), x->esz);
}

static void rank_free(const walk_case *tc, emu_rank *er)
{
    for (int p = 0; p < 3; p++) rl_dev_table_free(&er->tables[p]);
    for (int k = 0; k < tc->count; k++) {
        buffer_free(&er->a[k]);
        buffer_free(&er->b[k]);
    }
    buffer_free(&er->send);
    buffer_free(&er->recv);
    rl_exec_transform.free(er->x);
}

/* ---- the kernels, emulated ------------------------------------------- */

static const char *const phase_names[] = {"pack", "unpack", "local"};

/* The buffer a walk's side names in a phase: B or A of its pair, or the
 * pack buffer (the send buffer when packing, the receive buffer when
 * unpacking, none for local moves). */
static emu_buffer *side_buffer(const emulation *em, emu_rank *er, rl_dev_phase phase, int32_t which, int32_t pair)
{
    if (pair < 0 || pair >= em->tc->count) return NULL;
    switch (which) {
    case RL_DEV_B: return &er->b[pair];
    case RL_DEV_A: return &er->a[pair];
    case RL_DEV_PACKED: return phase == RL_DEV_PACK ? &er->send : phase == RL_DEV_UNPACK ? &er->recv : NULL;
    default: return NULL;
    }
}

/* Element (vi, vj) of walk w's V, as a kernel thread moves it. */
static void move_element(const emulation *em, emu_rank *er, rl_dev_phase phase, const rl_dev_walk *w, int64_t vi,
                         int64_t vj)
{
    emu_buffer *from = side_buffer(em, er, phase, w->from_buf, w->pair);
    emu_buffer *to = side_buffer(em, er, phase, w->to_buf, w->pair);
    int64_t f = rl_dev_row_offset(&w->from, w->rows, vi) + rl_dev_col_offset(&w->from, w->cols, vj);
    int64_t d = rl_dev_row_offset(&w->to, w->rows, vi) + rl_dev_col_offset(&w->to, w->cols, vj);
    if (!from || !to || f < 0 || f >= from->elems || d < 0 || d >= to->elems) {
        note("rank %d %s: V(%lld, %lld) of a walk of pair %d moves %lld of buffer %d (%lld elements) to %lld of "
             "buffer %d (%lld elements)",
             er->x->rank, phase_names[phase], (long long)vi, (long long)vj, (int)w->pair, (long long)f, (int)w->from_buf,
             from ? (long long)from->elems : -1LL, (long long)d, (int)w->to_buf, to ? (long long)to->elems : -1LL);
        return;
    }
    relay_type type = em->tc->type;
    double complex v = ref_load(type, from->data, f);
    if (w->conj) v = conj(v);
    if (phase != RL_DEV_PACK) {
        const ref_transform *t = &em->t[w->pair];
        v = t->read_a ? t->alpha * v + t->beta * ref_load(type, to->data, d) : t->alpha * v;
    }
    ref_store(type, to->data, d, v);
    to->writes[d]++;
}

/* Every tile of a phase's table, as the launch's blocks run them. */
static void run_table(const emulation *em, emu_rank *er, rl_dev_phase phase)
{
    const rl_dev_table *tab = &er->tables[phase];
    if (tab->ntiles && !tab->nwalks) {
        note("rank %d %s: %lld tiles but no walks", er->x->rank, phase_names[phase], (long long)tab->ntiles);
        return;
    }
    int64_t scanned = 0; /* the walk of tile t by a linear scan */
    for (int64_t t = 0; t < tab->ntiles; t++) {
        while (scanned + 1 < tab->nwalks && tab->walks[scanned + 1].first_tile <= t) scanned++;
        int64_t wi = rl_dev_walk_of_tile(tab->walks, tab->nwalks, t);
        const rl_dev_walk *w = &tab->walks[wi];
        int64_t i0, j0;
        rl_dev_tile_origin(w, t - w->first_tile, &i0, &j0);
        if (wi != scanned || i0 < 0 || j0 < 0 || i0 >= w->vrows || j0 >= w->vcols)
            note("rank %d %s: tile %lld: walk %lld (a scan finds %lld), origin (%lld, %lld) in V of %lld x %lld",
                 er->x->rank, phase_names[phase], (long long)t, (long long)wi, (long long)scanned, (long long)i0,
                 (long long)j0, (long long)w->vrows, (long long)w->vcols);
        for (int64_t vi = i0; vi < i0 + RL_DEV_TILE && vi < w->vrows; vi++)
            for (int64_t vj = j0; vj < j0 + RL_DEV_TILE && vj < w->vcols; vj++) move_element(em, er, phase, w, vi, vj);
    }
}

/* Rank r's send message k lands in the receive from r of its peer. */
static void deliver(emulation *em, int r, int k)
{
    const emu_rank *er = &em->ranks[r];
    const rl_message *sent = &er->x->sec->send[k];
    emu_rank *eq = &em->ranks[sent->peer];
    const rl_section *sq = eq->x->sec;
    int m = 0;
    while (m < sq->nrecv && sq->recv[m].peer != r) m++;
    if (m == sq->nrecv || sq->recv[m].elems != sent->elems) {
        note("rank %d sends rank %lld %lld elements, which it does not expect", r, (long long)sent->peer,
             (long long)sent->elems);
        return;
    }
    /* the elements only: a message's control word, where it has one, is the transport's */
    size_t bytes = (size_t)sent->elems * eq->x->esz;
    memcpy((char *)eq->recv.data + eq->x->set.recv.byte_off[m] + eq->x->set.control,
           (const char *)er->send.data + er->x->set.send.byte_off[k] + er->x->set.control, bytes);
}

static void emulate_replay(emulation *em)
{
    int P = em->tc->nranks;
    for (int r = 0; r < P; r++) run_table(em, &em->ranks[r], RL_DEV_PACK);
    for (int r = 0; r < P; r++)
        for (int k = 0; k < em->ranks[r].x->sec->nsend; k++) deliver(em, r, k);
    for (int r = 0; r < P; r++) {
        run_table(em, &em->ranks[r], RL_DEV_UNPACK);
        run_table(em, &em->ranks[r], RL_DEV_LOCAL);
    }
}

/* ---- checking what the emulated kernels did -------------------------- */

static int same_value(double complex x, double complex y) { return creal(x) == creal(y) && cimag(x) == cimag(y); }

static void check_a(const emulation *em, int r, int k)
{
    const emu_buffer *a = &em->ranks[r].a[k];
    const ref_transform *t = &em->t[k];
    for (int64_t idx = 0; idx < a->elems; idx++) {
        int64_t g = a->map[idx];
        double complex want = g < 0 ? REF_GAP_VALUE : ref_expected(t, g / a->n, g % a->n);
        double complex got = ref_load(t->type, a->data, idx);
        if (a->writes[idx] != (g >= 0) || !same_value(want, got))
            note("rank %d pair %d: A(%lld, %lld) at local %lld written %d times: expected %g%+gi, got %g%+gi", r, k,
                 g < 0 ? -1LL : (long long)(g / a->n), g < 0 ? -1LL : (long long)(g % a->n), (long long)idx,
                 a->writes[idx], creal(want), cimag(want), creal(got), cimag(got));
    }
}

static void check_never_written(const emu_buffer *eb, int r, const char *what)
{
    for (int64_t idx = 0; idx < eb->elems; idx++)
        if (eb->writes[idx]) note("rank %d: %s written at %lld", r, what, (long long)idx);
}

/* Each element of each packed message written once; its control word and
 * padding never. */
static void check_packed(const emu_rank *er, int r)
{
    const rl_msg_side *ms = &er->x->set.send;
    int64_t esz = (int64_t)er->x->esz, idx = 0;
    for (int k = 0; k < ms->n; k++) {
        int64_t first = (ms->byte_off[k] + er->x->set.control) / esz, end = first + er->x->sec->send[k].elems;
        for (; idx < ms->byte_off[k + 1] / esz; idx++)
            if (er->send.writes[idx] != (idx >= first && idx < end))
                note("rank %d: message %d to rank %lld: element %lld of the pack buffer written %d times", r, k,
                     (long long)er->x->sec->send[k].peer, (long long)idx, er->send.writes[idx]);
    }
}

static void check_rank(const emulation *em, int r)
{
    const emu_rank *er = &em->ranks[r];
    for (int k = 0; k < em->tc->count; k++) {
        check_a(em, r, k);
        check_never_written(&er->b[k], r, "B");
    }
    check_never_written(&er->recv, r, "the receive buffer");
    check_packed(er, r);
}

/* ---- one case -------------------------------------------------------- */

static uint64_t case_seed;

static relay_plan *plan_case(const walk_case *tc)
{
    relay_plan *plan;
    char why[512];
    if (case_plan(tc, &plan, why, sizeof why)) fail_msg("case \"%s\": %s", tc->name, why);
    return plan;
}

/* A's reference layouts as the plan's sigma relabels them, and what the
 * reference computes for each pair. */
static void reference_of(emulation *em)
{
    const walk_case *tc = em->tc;
    int sigma[MAX_RANKS];
    assert_int_equal(relay_plan_relabeling(em->plan, sigma), RELAY_OK);
    case_relabel_dst(tc, sigma, em->dst_ref);
    for (int k = 0; k < tc->count; k++) {
        case_seed += 2;
        em->t[k] = case_pair_transform(tc, k, tc->alpha, tc->beta, case_seed);
    }
}

/* 1 if the case passes. */
static int run_case(const walk_case *tc)
{
    assert_true(tc->nranks >= 1 && tc->nranks <= MAX_RANKS && tc->count >= 1 && tc->count <= MAX_PAIRS);
    emulation em = {.tc = tc, .plan = plan_case(tc)};
    em.ranks = calloc((size_t)tc->nranks, sizeof *em.ranks);
    reference_of(&em);
    current_case = tc;
    case_failures = 0;
    for (int r = 0; r < tc->nranks; r++) rank_init(&em, r);
    emulate_replay(&em);
    for (int r = 0; r < tc->nranks; r++) check_rank(&em, r);
    if (case_failures) printf("    (%ld failures in all)\n", case_failures);
    for (int r = 0; r < tc->nranks; r++) rank_free(tc, &em.ranks[r]);
    case_free_dst(tc, em.dst_ref);
    free(em.ranks);
    relay_plan_free(em.plan);
    return case_failures == 0;
}

/* ---- hand-picked cases ----------------------------------------------- */

/* Block-cyclic with its first block on process (rsrc, csrc). */
static ref_layout bc_from(int64_t m, int64_t n, int64_t mb, int64_t nb, int nprow, int npcol, int rsrc, int csrc)
{
    return case_block_cyclic(
        (ref_bc_params){m, n, mb, nb, nprow, npcol, RELAY_COL_MAJOR, rsrc, csrc, 0, RELAY_COL_MAJOR});
}

static const relay_order COL = RELAY_COL_MAJOR, ROW = RELAY_ROW_MAJOR;

static void test_hand_picked(void **state)
{
    (void)state;
    walk_case tc;
    int failed = 0;

    case_init(&tc, "8x8 blocks transposed on 2 x 2", 4, RELAY_DOUBLE, 1, 0);
    case_add_pair(&tc, case_bc(64, 64, 8, 8, 2, 2, COL), case_bc(64, 64, 8, 8, 2, 2, COL), RELAY_OP_T);
    failed += !run_case(&tc);
    case_free(&tc);

    case_init(&tc, "8x8 blocks conjugate-transposed, one rank, row-major B", 1, RELAY_CFLOAT, CMPLX(1, 2), 0.5);
    case_add_pair(&tc, case_bc(64, 64, 8, 8, 1, 1, COL), case_bc(64, 64, 8, 8, 1, 1, ROW), RELAY_OP_C);
    failed += !run_case(&tc);
    case_free(&tc);

    case_init(&tc, "a single element, from rank 2 to rank 1 of 3", 3, RELAY_CDOUBLE, CMPLX(0, 1), 2);
    case_add_pair(&tc, bc_from(1, 1, 1, 1, 3, 1, 1, 0), bc_from(1, 1, 1, 1, 1, 3, 0, 2), RELAY_OP_C);
    failed += !run_case(&tc);
    case_free(&tc);

    case_init(&tc, "a single element on one rank", 1, RELAY_FLOAT, -1, 0);
    case_add_pair(&tc, case_bc(1, 1, 4, 4, 1, 1, ROW), case_bc(1, 1, 1, 1, 1, 1, COL), RELAY_OP_N);
    failed += !run_case(&tc);
    case_free(&tc);

    case_init(&tc, "rectangle: 1 x 100 row to 100 x 1 column", 4, RELAY_DOUBLE, 2, -1);
    case_add_pair(&tc, case_bc(100, 1, 9, 1, 4, 1, COL), case_bc(1, 100, 1, 7, 1, 4, ROW), RELAY_OP_T);
    failed += !run_case(&tc);
    case_free(&tc);

    case_init(&tc, "rectangle: 37 x 5 from 5 x 37, row-major A", 3, RELAY_CFLOAT, -1, CMPLX(1, -1));
    case_add_pair(&tc, case_bc(37, 5, 4, 2, 3, 1, ROW), case_bc(5, 37, 5, 3, 1, 3, COL), RELAY_OP_C);
    failed += !run_case(&tc);
    case_free(&tc);

    case_init(&tc, "empty ranks: A on 1 x 2, B on 3 x 1 of 8", 8, RELAY_FLOAT, 0.5, 0);
    case_add_pair(&tc, case_bc(45, 33, 6, 6, 1, 2, COL), case_bc(45, 33, 5, 4, 3, 1, ROW), RELAY_OP_N);
    failed += !run_case(&tc);
    case_free(&tc);

    /* Bands of many tiles (64 x 64 blocks, 50 x 40 blocks), and tiles of
     * many bands (1 x 1 and 3 x 3 blocks). */
    case_init(&tc, "large bands, conjugate transpose", 4, RELAY_CDOUBLE, CMPLX(-0.5, 1), CMPLX(0, -1));
    case_add_pair(&tc, case_bc(150, 130, 64, 64, 2, 2, COL), case_bc(130, 150, 50, 40, 2, 2, ROW), RELAY_OP_C);
    failed += !run_case(&tc);
    case_free(&tc);

    case_init(&tc, "1 x 1 blocks to 7 x 7, relabeled", 4, RELAY_DOUBLE, 1, 1);
    tc.relabel = RELAY_RELABEL_OPTIMAL;
    case_add_pair(&tc, case_bc(40, 40, 7, 7, 2, 2, ROW), case_bc(40, 40, 1, 1, 2, 2, COL), RELAY_OP_N);
    failed += !run_case(&tc);
    case_free(&tc);

    case_init(&tc, "batch: 3 x 3 blocks transposed, and a copy, rounds", 2, RELAY_FLOAT, 2, 0.5);
    tc.schedule = RELAY_SCHED_ROUNDS;
    case_add_pair(&tc, case_bc(70, 50, 32, 32, 1, 2, COL), case_bc(50, 70, 3, 3, 2, 1, ROW), RELAY_OP_T);
    case_add_pair(&tc, case_bc(33, 65, 5, 65, 2, 1, ROW), case_bc(33, 65, 33, 16, 1, 2, COL), RELAY_OP_N);
    failed += !run_case(&tc);
    case_free(&tc);

    assert_int_equal(failed, 0);
}

/* ---- random cases ---------------------------------------------------- */

static const relay_schedule some_schedules[] = {RELAY_SCHED_AUTO, RELAY_SCHED_P2P, RELAY_SCHED_ROUNDS,
                                                RELAY_SCHED_ALLTOALLV};

/* Random case `index`, from a generator seeded by the index only. */
static void random_case(walk_case *tc, int index)
{
    ref_rng rng;
    ref_rng_seed(&rng, 0xde71ce00 + (uint64_t)index);
    int P = (int)ref_rng_range(&rng, 1, MAX_RANKS);
    relay_type type = case_types[ref_rng_range(&rng, 0, 3)];
    char name[32];
    snprintf(name, sizeof name, "random %d", index);
    case_init(tc, name, P, type, case_random_scalar(&rng, type), case_random_scalar(&rng, type));
    if (ref_rng_percent(&rng, 15))
        tc->relabel = ref_rng_percent(&rng, 50) ? RELAY_RELABEL_GREEDY : RELAY_RELABEL_OPTIMAL;
    tc->schedule = some_schedules[ref_rng_range(&rng, 0, 3)];
    int count = ref_rng_percent(&rng, 15) ? MAX_PAIRS : 1;
    for (int k = 0; k < count; k++) {
        relay_op op = case_ops[ref_rng_range(&rng, 0, 2)];
        int64_t m = case_random_extent(&rng), n = case_random_extent(&rng);
        case_add_random_pair(tc, &rng, op, m, n);
    }
}

static void test_random(void **state)
{
    (void)state;
    int failed = 0;
    for (int c = 0; c < RANDOM_CASES; c++) {
        walk_case tc;
        random_case(&tc, c);
        failed += !run_case(&tc);
        case_free(&tc);
    }
    assert_int_equal(failed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_picked),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
