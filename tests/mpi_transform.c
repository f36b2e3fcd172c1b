/* mpi_transform.c — replays relay transform plans under MPI and checks every
 * local element of A on every rank against the serial reference.
 *
 * Every rank builds the same plans (hand-picked cases, then random cases whose
 * seed depends only on the case number), binds them to MPI_COMM_WORLD and
 * replays each over freshly allocated buffers filled with new values, with
 * relay_exec_run and with relay_exec_start + relay_exec_wait.  Checked: each
 * element of A (gaps between blocks must stay untouched, NaN in A must not
 * leak when beta is 0), B left unchanged, relay_plan_buffer_elems against the
 * reference buffer sizes, and the relabeling being a permutation.  Cases run
 * with every relabeling mode and schedule (the plan must carry the schedule
 * asked for), some under a memory cap.  Resize cases (ReSHAPE) move block-cyclic matrices between
 * every pair of the paper's Table 1 grids (and the 1-D ones) whose larger
 * grid has exactly the communicator's ranks, expanding and shrinking.
 * Rank 0 prints the first failures and a last line
 * "mpi_transform: N passed, M failed"; the exit status is non-zero on failure. */
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay/relay.h"
#include "transform_case.h"

/* MAX_PAIRS: the most pairs of a random case, and the stride of the values' seeds. */
enum { MAX_PAIRS = CASE_MAX_PAIRS, REPLAYS = 4, RANDOM_CASES = 800, MAX_REPORTS = 8, MAX_HAND_PICKED = 64 };

/* ---- describing a case ----------------------------------------------------------- */

/* The scalars of one replay: the case's, swapped from replay 2 on, so that an
 * executor holding on to the first replay's scalars is caught. */
static void replay_scalars(const transform_case *tc, int replay, double complex *alpha,
                           double complex *beta)
{
    int swap = replay >= 2;
    *alpha = swap ? tc->beta : tc->alpha;
    *beta = swap ? tc->alpha : tc->beta;
}

static ref_layout bc_layout(int64_t m, int64_t n, int64_t mb, int64_t nb, int nprow, int npcol,
                            relay_order grid_order, int rsrc, int csrc, int64_t lld,
                            relay_order elem_order)
{
    return case_block_cyclic((ref_bc_params){m, n, mb, nb, nprow, npcol, grid_order, rsrc, csrc, lld, elem_order});
}


static ref_layout random_grid(uint64_t seed, int64_t m, int64_t n, int nranks, int explicit_offsets)
{
    ref_rng rng;
    ref_rng_seed(&rng, seed);
    ref_layout l;
    ref_random_grid(&l, &rng, m, n, nranks, explicit_offsets);
    return l;
}

/* A 1 x n matrix cut every 7 columns, blocks dealt round-robin over nranks. */
static ref_layout row_vector_grid(int64_t n, int nranks)
{
    int nbc = (int)((n + 6) / 7);
    int64_t *cols = malloc(sizeof *cols * (size_t)(nbc + 1));
    int *owners = malloc(sizeof *owners * (size_t)nbc);
    for (int b = 0; b <= nbc; b++)
        cols[b] = b * 7 < n ? b * 7 : n;
    for (int b = 0; b < nbc; b++)
        owners[b] = b % nranks;
    const int64_t rows[] = {0, 1};
    ref_layout l;
    ref_layout_grid(&l, nranks, 1, n, 1, rows, nbc, cols, owners, NULL, NULL, RELAY_ROW_MAJOR);
    free(cols);
    free(owners);
    return l;
}

/* ---- the cases ------------------------------------------------------------------- */

static const relay_schedule all_schedules[] = {RELAY_SCHED_AUTO, RELAY_SCHED_P2P, RELAY_SCHED_ROUNDS,
                                               RELAY_SCHED_ALLTOALLV, RELAY_SCHED_NEIGHBOR};

/* Every element type with every op on a 23 x 31 matrix from a random grid. */
static int add_type_op_cases(transform_case *cases, int P, int pr, int pc)
{
    int n = 0;
    for (int t = 0; t < 4; t++) {
        for (int o = 0; o < 3; o++) {
            transform_case *tc = &cases[n++];
            char name[64];
            snprintf(name, sizeof name, "all types and ops: %s op %s",
                     ref_type_name(case_types[t]), ref_op_name(case_ops[o]));
            case_init(tc, name, P, case_types[t], ref_type_is_complex(case_types[t]) ? CMPLX(-1, 2) : -1,
                      2);
            int transposed = case_ops[o] != RELAY_OP_N;
            case_add_pair(tc, bc_layout(23, 31, 4, 3, pr, pc, RELAY_COL_MAJOR, pr - 1, 0, 0,
                                        RELAY_COL_MAJOR),
                          random_grid(100 + (uint64_t)n, transposed ? 31 : 23, transposed ? 23 : 31,
                                      P, 1),
                          case_ops[o]);
        }
    }
    return n;
}

/* The hand-picked cases for nranks = P; returns how many were written. */
static int hand_picked_cases(transform_case *cases, int P)
{
    const relay_order COL = RELAY_COL_MAJOR, ROW = RELAY_ROW_MAJOR;
    int pr, pc, n = 0;
    case_grid_shape(P, &pr, &pc);
    int fewer = P > 1 ? P - 1 : 1, half = P > 1 ? P / 2 : 1;
    transform_case *tc;

    tc = &cases[n++];
    case_init(tc, "bc 32 -> 128, 300 x 257, alpha NULL, beta NULL", P, RELAY_DOUBLE, 0, 0);
    tc->alpha_null = tc->beta_null = 1;
    case_add_pair(tc, bc_layout(300, 257, 128, 128, pc, pr, COL, 0, 0, 0, COL),
                  case_bc(300, 257, 32, 32, pr, pc, COL), RELAY_OP_N);

    tc = &cases[n++];
    case_init(tc, "bc 32 -> 128 transpose", P, RELAY_FLOAT, 2, -1);
    case_add_pair(tc, case_bc(300, 257, 128, 128, pr, pc, COL),
                  case_bc(257, 300, 32, 32, pr, pc, COL), RELAY_OP_T);

    /* Slabs: on two ranks each remote run of B is 4.8 KB, so a replay reads
     * the peer's B itself where the system lets it (RELAY_PULL=on). */
    tc = &cases[n++];
    case_init(tc, "slab conjugate transpose, 1 x P slabs of 600 x 600", P, RELAY_CDOUBLE, CMPLX(0.5, -1), CMPLX(2, 1));
    case_add_pair(tc, case_bc(600, 600, 600, (600 + P - 1) / P, 1, P, COL),
                  case_bc(600, 600, 600, (600 + P - 1) / P, 1, P, COL), RELAY_OP_C);

    tc = &cases[n++];
    case_init(tc, "bc 32 -> 128 conjugate transpose", P, RELAY_CDOUBLE, CMPLX(1, 2), 0.5);
    case_add_pair(tc, case_bc(300, 257, 128, 128, pr, pc, COL),
                  case_bc(257, 300, 32, 32, pc, pr, COL), RELAY_OP_C);

    tc = &cases[n++];
    case_init(tc, "conjugate transpose, non-divisible", P, RELAY_CFLOAT, -1, CMPLX(1, -1));
    case_add_pair(tc, bc_layout(61, 37, 7, 5, pr, pc, COL, pr - 1, pc - 1, 0, ROW),
                  case_bc(37, 61, 6, 4, pc, pr, COL), RELAY_OP_C);

    tc = &cases[n++];
    case_init(tc, "row-major -> col-major, beta 0 over NaN", P, RELAY_DOUBLE, 1, 0);
    case_add_pair(tc, case_bc(300, 257, 32, 32, pr, pc, COL),
                  case_bc(300, 257, 32, 32, pr, pc, ROW), RELAY_OP_N);

    tc = &cases[n++];
    case_init(tc, "non-divisible, sources, grid order C, explicit lld", P, RELAY_CDOUBLE, 0.5, 2);
    case_add_pair(tc, bc_layout(61, 37, 7, 5, pr, pc, COL, pr - 1, pc - 1, 70, COL),
                  bc_layout(61, 37, 4, 9, pc, pr, ROW, pc - 1, 0, 0, ROW), RELAY_OP_N);

    tc = &cases[n++];
    case_init(tc, "1 x n, beta NULL over NaN", P, RELAY_FLOAT, -1, 0);
    tc->beta_null = 1;
    case_add_pair(tc, bc_layout(1, 200, 1, 16, 1, P, ROW, 0, P - 1, 0, ROW),
                  row_vector_grid(200, P), RELAY_OP_N);

    tc = &cases[n++];
    case_init(tc, "m x 1 from 1 x n (transpose)", P, RELAY_DOUBLE, 2, 0.5);
    case_add_pair(tc, bc_layout(200, 1, 16, 1, P, 1, COL, 0, 0, 0, COL), row_vector_grid(200, P),
                  RELAY_OP_T);

    tc = &cases[n++];
    case_init(tc, "gather onto rank 0", P, RELAY_DOUBLE, 1, 1);
    case_add_pair(tc, case_bc(50, 40, 8, 8, 1, 1, COL), case_bc(50, 40, 5, 5, pr, pc, ROW),
                  RELAY_OP_N);

    tc = &cases[n++];
    case_init(tc, "scatter from rank 0, conjugate transpose", P, RELAY_CFLOAT, CMPLX(0, 1), 0);
    case_add_pair(tc, case_bc(50, 40, 5, 5, pr, pc, COL), case_bc(40, 50, 64, 64, 1, 1, COL),
                  RELAY_OP_C);

    tc = &cases[n++];
    case_init(tc, "layouts with fewer ranks than the communicator", P, RELAY_DOUBLE, -1, 2);
    case_add_pair(tc, case_bc(45, 33, 6, 6, 1, half, COL), case_bc(45, 33, 5, 4, fewer, 1, ROW),
                  RELAY_OP_N);

    tc = &cases[n++];
    case_init(tc, "random grids on fewer ranks, transpose", P, RELAY_FLOAT, 0.5, -1);
    case_add_pair(tc, random_grid(7, 40, 30, fewer, 0), random_grid(8, 30, 40, half, 1), RELAY_OP_T);

    tc = &cases[n++];
    case_init(tc, "alpha 0, beta 1: A unchanged, then swapped", P, RELAY_DOUBLE, 0, 1);
    case_add_pair(tc, case_bc(30, 20, 4, 4, pr, pc, COL), case_bc(20, 30, 3, 7, pc, pr, ROW),
                  RELAY_OP_T);

    tc = &cases[n++];
    case_init(tc, "alpha 0, beta 0 over NaN: A zero, then swapped", P, RELAY_CDOUBLE, 0, 0);
    case_add_pair(tc, case_bc(30, 20, 4, 4, pr, pc, COL), random_grid(9, 30, 20, P, 1),
                  RELAY_OP_N);

    tc = &cases[n++];
    case_init(tc, "mb > m", P, RELAY_FLOAT, 2, 1);
    case_add_pair(tc, bc_layout(5, 4, 8, 8, pr, pc, ROW, pr - 1, pc - 1, 0, COL),
                  case_bc(5, 4, 1, 1, pc, pr, ROW), RELAY_OP_N);

    tc = &cases[n++];
    case_init(tc, "relabel greedy, bc 32 -> 128", P, RELAY_DOUBLE, 1, -1);
    tc->relabel = RELAY_RELABEL_GREEDY;
    case_add_pair(tc, case_bc(300, 257, 128, 128, pc, pr, COL),
                  case_bc(300, 257, 32, 32, pr, pc, COL), RELAY_OP_N);

    tc = &cases[n++];
    case_init(tc, "relabel optimal, random grids", P, RELAY_CFLOAT, CMPLX(1, 2), CMPLX(0, -1));
    tc->relabel = RELAY_RELABEL_OPTIMAL;
    case_add_pair(tc, random_grid(10, 37, 41, P, 1), random_grid(11, 41, 37, P, 0), RELAY_OP_C);

    for (int sched = 1; sched < 5; sched++) {
        char name[64];
        snprintf(name, sizeof name, "schedule %s, bc 32 -> 128 transpose", case_schedule_names[sched]);
        tc = &cases[n++];
        case_init(tc, name, P, RELAY_CDOUBLE, CMPLX(0, 1), 2);
        tc->schedule = all_schedules[sched];
        case_add_pair(tc, case_bc(300, 257, 128, 128, pc, pr, COL),
                      bc_layout(257, 300, 32, 32, pr, pc, COL, pr - 1, pc - 1, 0, ROW), RELAY_OP_T);
    }

    /* Whole columns (rows) on 1 x P (P x 1) grids: contiguous in both
     * buffers, so p2p sends them piece by piece from B into A (direct;
     * alpha 1, beta 0 in the first replays), or into the receive buffer
     * and then unpacked when alpha != 1 or beta != 0 (the second case). */
    tc = &cases[n++];
    case_init(tc, "direct: column blocks 32 -> 128 on 1 x P", P, RELAY_DOUBLE, 1, 0);
    tc->schedule = RELAY_SCHED_P2P;
    case_add_pair(tc, case_bc(150, 700, 150, 128, 1, P, COL), case_bc(150, 700, 150, 32, 1, P, COL), RELAY_OP_N);
    tc = &cases[n++];
    case_init(tc, "direct: row blocks on P x 1, row-major", P, RELAY_CFLOAT, 2, 0.5);
    tc->schedule = RELAY_SCHED_P2P;
    case_add_pair(tc, case_bc(500, 90, 64, 90, P, 1, ROW), case_bc(500, 90, 16, 90, P, 1, ROW), RELAY_OP_N);

    /* 8 x 8 blocks to 128 x 128 on a grid of several process rows: a
     * rank's lattices are phases of one pattern (pieces 128 P rows apart,
     * the next lattice 8 rows on in B), which the executor moves together
     * (transform_pack.c), copied and transposed; 1000 rows leave some
     * later phases a band fewer. */
    tc = &cases[n++];
    case_init(tc, "phases: bc 8 -> 128, 1000 x 300", P, RELAY_DOUBLE, 2, -1);
    case_add_pair(tc, case_bc(1000, 300, 128, 128, pc, pr, COL), case_bc(1000, 300, 8, 8, pc, pr, COL), RELAY_OP_N);
    tc = &cases[n++];
    case_init(tc, "phases: bc 8 -> 128 transpose, 1000 x 300", P, RELAY_CDOUBLE, CMPLX(1, -1), 0.5);
    case_add_pair(tc, case_bc(1000, 300, 128, 128, pc, pr, COL), case_bc(300, 1000, 8, 8, pr, pc, COL), RELAY_OP_T);

    /* Small source blocks (b = 1, 3 and 7 to 128; 1 x 1 blocks to a custom
     * layout), op N and T: messages of many small pieces. */
    static const int64_t small_blocks[] = {1, 3, 7};
    for (int s = 0; s < 3; s++) {
        for (int t = 0; t < 2; t++) {
            char name[64];
            int64_t b = small_blocks[s], m = 260, k = 300;
            snprintf(name, sizeof name, "small blocks %lld -> 128, op %s", (long long)b, t ? "T" : "N");
            tc = &cases[n++];
            case_init(tc, name, P, RELAY_DOUBLE, 2, -1);
            case_add_pair(tc, case_bc(m, k, 128, 128, pr, pc, COL),
                          bc_layout(t ? k : m, t ? m : k, b, b, pc, pr, ROW, 0, pr - 1, 0, COL),
                          t ? RELAY_OP_T : RELAY_OP_N);
        }
    }
    tc = &cases[n++];
    case_init(tc, "1 x 1 blocks to a custom layout", P, RELAY_CFLOAT, CMPLX(1, -1), 0.5);
    case_add_pair(tc, random_grid(17, 90, 70, P, 1), case_bc(90, 70, 1, 1, pr, pc, COL), RELAY_OP_N);

    tc = &cases[n++];
    case_init(tc, "batch of 3: N, T, C", P, RELAY_CFLOAT, CMPLX(1, 2), -1);
    case_add_pair(tc, case_bc(300, 257, 128, 128, pr, pc, COL),
                  case_bc(300, 257, 32, 32, pc, pr, ROW), RELAY_OP_N);
    case_add_pair(tc, random_grid(12, 40, 50, P, 0), case_bc(50, 40, 6, 5, pr, pc, COL),
                  RELAY_OP_T);
    case_add_pair(tc, bc_layout(1, 200, 1, 16, 1, P, ROW, 0, 0, 0, ROW),
                  random_grid(13, 200, 1, fewer, 1), RELAY_OP_C);

    tc = &cases[n++];
    case_init(tc, "batch of 3, alpha NULL, beta NULL", P, RELAY_DOUBLE, 0, 0);
    tc->alpha_null = tc->beta_null = 1;
    case_add_pair(tc, random_grid(14, 17, 23, P, 1), random_grid(15, 23, 17, P, 1), RELAY_OP_T);
    case_add_pair(tc, case_bc(64, 64, 8, 8, pr, pc, ROW), case_bc(64, 64, 16, 16, pc, pr, COL),
                  RELAY_OP_C);
    case_add_pair(tc, case_bc(9, 1, 2, 1, pr, pc, COL), random_grid(16, 9, 1, half, 0),
                  RELAY_OP_N);

    return n + add_type_op_cases(cases + n, P, pr, pc);
}

/* ---- resizing (ReSHAPE): block-cyclic from one grid to another ------------------ */

/* The grids of the ReSHAPE paper's Table 1 up to 8 ranks (nearly-square and
 * skewed) and the one-dimensional ones. */
static const int resize_grids[][2] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 3}, {3, 1}, {2, 3}, {3, 2},
                                      {1, 4}, {4, 1}, {1, 6}, {6, 1}, {2, 4}, {4, 2}, {1, 8}, {8, 1}};
enum { RESIZE_GRIDS = sizeof resize_grids / sizeof *resize_grids };

/* Resize case `index` at P ranks: every ordered pair of grids whose larger
 * one has exactly P ranks (expansions and shrinks, within one communicator
 * of max(P, Q) ranks), a matrix whose size is not a multiple of its blocks
 * nor holds whole superblocks, each schedule in turn.  Returns 0 past the
 * last case. */
static int resize_case(transform_case *tc, int index, int P)
{
    int k = 0;
    for (int s = 0; s < RESIZE_GRIDS; s++)
        for (int d = 0; d < RESIZE_GRIDS; d++) {
            int sp = resize_grids[s][0] * resize_grids[s][1], dp = resize_grids[d][0] * resize_grids[d][1];
            if (s == d || (sp > dp ? sp : dp) != P || k++ != index) continue;
            char name[96];
            snprintf(name, sizeof name, "resize %dx%d -> %dx%d", resize_grids[s][0], resize_grids[s][1],
                     resize_grids[d][0], resize_grids[d][1]);
            case_init(tc, name, P, index % 2 ? RELAY_DOUBLE : RELAY_CFLOAT, 1, 0);
            tc->schedule = all_schedules[1 + index % 4];
            int64_t m = 61 + index % 7, n = 47 + index % 5;
            case_add_pair(tc, case_bc(m, n, 4, 3, resize_grids[d][0], resize_grids[d][1], RELAY_COL_MAJOR),
                          case_bc(m, n, 4, 3, resize_grids[s][0], resize_grids[s][1], RELAY_COL_MAJOR), RELAY_OP_N);
            return 1;
        }
    return 0;
}

/* Random case `index`, drawn from a generator seeded by the index only, so
 * that every rank builds the same case. */
static void random_case(transform_case *tc, int index, int P)
{
    ref_rng rng;
    ref_rng_seed(&rng, 0x7e57000 + (uint64_t)index);
    relay_type type = case_types[ref_rng_range(&rng, 0, 3)];
    char name[32];
    snprintf(name, sizeof name, "random %d", index);
    case_init(tc, name, P, type, case_random_scalar(&rng, type), case_random_scalar(&rng, type));
    tc->alpha_null = ref_rng_percent(&rng, 10);
    tc->beta_null = ref_rng_percent(&rng, 15);
    if (ref_rng_percent(&rng, 15))
        tc->relabel = ref_rng_percent(&rng, 50) ? RELAY_RELABEL_GREEDY : RELAY_RELABEL_OPTIMAL;
    if (ref_rng_percent(&rng, 30))
        tc->schedule = all_schedules[ref_rng_range(&rng, 1, 4)];
    int count = ref_rng_percent(&rng, 20) ? (int)ref_rng_range(&rng, 2, MAX_PAIRS) : 1;
    for (int k = 0; k < count; k++) {
        relay_op op = case_ops[ref_rng_range(&rng, 0, 2)];
        int64_t m = case_random_extent(&rng), n = case_random_extent(&rng);
        case_add_random_pair(tc, &rng, op, m, n);
    }
    tc->batched = count > 1 || ref_rng_percent(&rng, 10);
    /* A memory cap (rounds, or auto which it makes rounds), from one
     * element, which cuts pieces into single elements, up. */
    if (ref_rng_percent(&rng, 15)) {
        static const int64_t caps[] = {1, 3, 17, 64, 500};
        tc->max_buffer_bytes = caps[ref_rng_range(&rng, 0, 4)] * (int64_t)ref_type_size(type);
        tc->schedule = ref_rng_percent(&rng, 50) ? RELAY_SCHED_ROUNDS : RELAY_SCHED_AUTO;
    }
}

/* ---- what one rank found in one case --------------------------------------------- */

typedef struct {
    long long failures;
    char first[1024];       /* the first failure this rank saw */
} case_result;

static void note_failure(case_result *res, const char *fmt, ...)
{
    if (res->failures++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(res->first, sizeof res->first, fmt, ap);
        va_end(ap);
    }
}

/* 1 on every rank if ok is true on every rank. */
static int all_ranks_ok(int ok)
{
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* ---- planning -------------------------------------------------------------------- */

typedef struct {
    relay_plan *plan;
    ref_layout dst_ref[MAX_PAIRS];  /* the destinations with the plan's sigma applied */
    int have_dst_ref;
} planned_case;

static void planned_free(const transform_case *tc, planned_case *pc)
{
    if (pc->have_dst_ref)
        case_free_dst(tc, pc->dst_ref);
    if (pc->plan)
        relay_plan_free(pc->plan);
}

/* The plan, its memory cap and schedule as asked, its pairs and ranks. */
static int make_plan(const transform_case *tc, planned_case *pc, case_result *res)
{
    char why[512];
    relay_status s = case_plan(tc, &pc->plan, why, sizeof why);
    if (s == RELAY_OK && (tc->max_buffer_bytes ? relay_plan_max_buffer_bytes(pc->plan) != tc->max_buffer_bytes ||
                                                     relay_plan_schedule(pc->plan) != RELAY_SCHED_ROUNDS
                                               : relay_plan_max_buffer_bytes(pc->plan) != 0))
        note_failure(res, "the plan's memory cap is %lld bytes (schedule %d), not the %lld asked for (in rounds)",
                     (long long)relay_plan_max_buffer_bytes(pc->plan), (int)relay_plan_schedule(pc->plan),
                     (long long)tc->max_buffer_bytes);
    if (s == RELAY_OK && tc->schedule != RELAY_SCHED_AUTO && relay_plan_schedule(pc->plan) != tc->schedule)
        note_failure(res, "the plan's schedule is %d, not the %s asked for", (int)relay_plan_schedule(pc->plan),
                     case_schedule_names[tc->schedule]);
    if (s != RELAY_OK) {
        note_failure(res, "%s", why);
        return 0;
    }
    if (relay_plan_count(pc->plan) != tc->count || relay_plan_nranks(pc->plan) != tc->nranks) {
        note_failure(res, "plan has %d pairs on %d ranks, expected %d on %d",
                     relay_plan_count(pc->plan), relay_plan_nranks(pc->plan), tc->count, tc->nranks);
        return 0;
    }
    return 1;
}

/* Reads sigma, checks it is a permutation (the identity without relabeling)
 * and builds the reference destinations it implies. */
static int relabel_destinations(const transform_case *tc, planned_case *pc, case_result *res)
{
    int P = tc->nranks;
    int *sigma = malloc(sizeof *sigma * (size_t)P), *seen = calloc((size_t)P, sizeof *seen);
    relay_status s = relay_plan_relabeling(pc->plan, sigma);
    int ok = s == RELAY_OK;
    if (!ok)
        note_failure(res, "relay_plan_relabeling: %s: %s", relay_status_str(s), relay_last_error());
    for (int r = 0; ok && r < P; r++) {
        ok = sigma[r] >= 0 && sigma[r] < P && !seen[sigma[r]]++
             && (tc->relabel != RELAY_RELABEL_NONE || sigma[r] == r);
        if (!ok)
            note_failure(res, "relabeling: sigma[%d] = %d is not a permutation%s", r, sigma[r],
                         tc->relabel == RELAY_RELABEL_NONE ? " (expected the identity)" : "");
    }
    if (ok)
        case_relabel_dst(tc, sigma, pc->dst_ref);
    pc->have_dst_ref = ok;
    free(sigma);
    free(seen);
    return ok;
}

/* relay_plan_buffer_elems against the reference sizes, every pair, side and rank. */
static int buffer_sizes_agree(const transform_case *tc, const planned_case *pc, case_result *res)
{
    for (int k = 0; k < tc->count; k++) {
        for (int is_dst = 0; is_dst <= 1; is_dst++) {
            const ref_layout *r = is_dst ? &pc->dst_ref[k] : &tc->src[k];
            for (int rank = 0; rank < tc->nranks; rank++) {
                int64_t want = ref_local_elems(r, rank);
                int64_t got = relay_plan_buffer_elems(pc->plan, is_dst, k, rank);
                if (got != want) {
                    note_failure(res, "relay_plan_buffer_elems(%s, pair %d, rank %d) = %lld, "
                                 "expected %lld for %s", is_dst ? "dst" : "src", k, rank,
                                 (long long)got, (long long)want, r->desc);
                    return 0;
                }
            }
        }
    }
    return 1;
}

static int plan_case(const transform_case *tc, planned_case *pc, case_result *res)
{
    return make_plan(tc, pc, res) && relabel_destinations(tc, pc, res) && buffer_sizes_agree(tc, pc, res);
}

/* ---- one replay ------------------------------------------------------------------ */

/* A rank's buffer of one matrix: its elements (ref_buffer, with which global
 * element each local index holds) inside a larger allocation. */
typedef struct {
    void *allocation;
    ref_buffer v;           /* v.data shifted into the allocation by the replay number */
} local_buffer;

/* Each replay's buffer starts `shift` elements into its allocation, so that its
 * address differs from the previous replay's even if malloc reuses the memory. */
static void buffer_init(local_buffer *b, const ref_layout *l, int rank, relay_type type, int shift)
{
    size_t elem = ref_type_size(type);
    b->v.type = type;
    b->v.size = ref_local_elems(l, rank);
    b->v.map = ref_local_map(l, rank);
    b->v.n = l->n;
    b->allocation = malloc(elem * (size_t)(b->v.size + shift + 1));
    b->v.data = (char *)b->allocation + elem * (size_t)shift;
}

static void buffer_free(local_buffer *b)
{
    free(b->allocation);
    free(b->v.map);
}

/* Seed of B's values of pair k in one replay (A's: the next): distinct everywhere. */
static uint64_t value_seed(int number, int replay, int k)
{
    return (((uint64_t)number * REPLAYS + (uint64_t)replay) * MAX_PAIRS + (uint64_t)k) * 2 + 1;
}

/* What the reference computes: alpha NULL means 1, beta NULL means 0. */
static ref_transform pair_transform(const transform_case *tc, int number, int replay, int k)
{
    double complex alpha, beta;
    replay_scalars(tc, replay, &alpha, &beta);
    return case_pair_transform(tc, k, alpha, beta, value_seed(number, replay, k));
}

static int same_value(double complex x, double complex y)
{
    return creal(x) == creal(y) && cimag(x) == cimag(y);
}

static void check_a(const transform_case *tc, int k, int replay, int rank,
                    const ref_transform *t, const ref_buffer *a, case_result *res)
{
    for (int64_t idx = 0; idx < a->size; idx++) {
        int64_t g = a->map[idx];
        double complex want = g < 0 ? REF_GAP_VALUE : ref_expected(t, g / a->n, g % a->n);
        double complex got = ref_load(t->type, a->data, idx);
        if (same_value(want, got))
            continue;
        char where[96];
        if (g < 0)
            snprintf(where, sizeof where, "the gap at local %lld", (long long)idx);
        else
            snprintf(where, sizeof where, "A(%lld, %lld) at local %lld", (long long)(g / a->n),
                     (long long)(g % a->n), (long long)idx);
        note_failure(res, "pair %d replay %d rank %d: %s: expected %g%+gi, got %g%+gi "
                     "(alpha %s%g%+gi, beta %s%g%+gi)", k, replay, rank, where, creal(want),
                     cimag(want), creal(got), cimag(got), tc->alpha_null ? "NULL = " : "",
                     creal(t->alpha), cimag(t->alpha), tc->beta_null ? "NULL = " : "",
                     creal(t->beta), cimag(t->beta));
    }
}

static void check_b_unchanged(const ref_transform *t, int k, int replay, int rank,
                              const ref_buffer *b, case_result *res)
{
    if (!ref_buffer_holds(b, t->seed_b))
        note_failure(res, "pair %d replay %d rank %d: B changed", k, replay, rank);
}

/* Replays on fresh buffers with fresh values; odd replays use start + wait,
 * even replays pass NULL for empty buffers. */
static void replay_once(relay_exec *exec, const transform_case *tc, const planned_case *pc,
                        int number, int replay, int rank, case_result *res)
{
    local_buffer a[MAX_PAIRS], b[MAX_PAIRS];
    ref_transform t[MAX_PAIRS];
    void *dst[MAX_PAIRS];
    const void *src[MAX_PAIRS];
    int split_phase = replay % 2;
    for (int k = 0; k < tc->count; k++) {
        t[k] = pair_transform(tc, number, replay, k);
        buffer_init(&a[k], &pc->dst_ref[k], rank, tc->type, replay);
        buffer_init(&b[k], &tc->src[k], rank, tc->type, replay);
        case_fill(&t[k], &a[k].v, &b[k].v);
        dst[k] = a[k].v.size || split_phase ? a[k].v.data : NULL;
        src[k] = b[k].v.size || split_phase ? b[k].v.data : NULL;
    }
    double complex alpha_value, beta_value;
    replay_scalars(tc, replay, &alpha_value, &beta_value);
    case_scalar alpha, beta;
    ref_store(tc->type, &alpha, 0, alpha_value);
    ref_store(tc->type, &beta, 0, beta_value);
    const void *alpha_arg = tc->alpha_null ? NULL : &alpha;
    const void *beta_arg = tc->beta_null ? NULL : &beta;
    relay_status s = split_phase ? relay_exec_start(exec, dst, src, alpha_arg, beta_arg)
                                 : relay_exec_run(exec, dst, src, alpha_arg, beta_arg);
    if (s == RELAY_OK && split_phase)
        s = relay_exec_wait(exec);
    if (s != RELAY_OK)
        note_failure(res, "replay %d rank %d: %s: %s: %s", replay, rank,
                     split_phase ? "relay_exec_start/wait" : "relay_exec_run",
                     relay_status_str(s), relay_last_error());
    for (int k = 0; k < tc->count; k++) {
        if (s == RELAY_OK) {
            check_a(tc, k, replay, rank, &t[k], &a[k].v, res);
            check_b_unchanged(&t[k], k, replay, rank, &b[k].v, res);
        }
        buffer_free(&a[k]);
        buffer_free(&b[k]);
    }
}

/* ---- running cases and reporting -------------------------------------------------- */

typedef struct {
    int rank, size;
    int passed, failed;
} test_run;

/* Rank 0 prints the first failure of the lowest rank that saw one. */
static void report_failure(const test_run *run, int number, const transform_case *tc,
                           const case_result *res)
{
    int mine = res->failures ? run->rank : INT_MAX, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    char text[sizeof res->first];
    if (first == run->rank)
        memcpy(text, res->first, sizeof text);
    if (first != 0 && first == run->rank)
        MPI_Send(text, (int)sizeof text, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    if (first != 0 && run->rank == 0)
        MPI_Recv(text, (int)sizeof text, MPI_CHAR, first, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (run->rank == 0) {
        printf("FAIL case %d (%s, %d pair%s%s, %s, relabel %d, schedule %s, cap %lld bytes) at %d ranks:\n"
               "  %s\n", number, tc->name, tc->count, tc->count > 1 ? "s" : "",
               tc->batched ? ", batched" : "", ref_type_name(tc->type), (int)tc->relabel,
               case_schedule_names[tc->schedule], (long long)tc->max_buffer_bytes, run->size, text);
        case_print_pairs(tc, "  ");
        fflush(stdout);
    }
}

static void run_case(test_run *run, int number, const transform_case *tc)
{
    case_result res = {0};
    planned_case pc = {0};
    if (all_ranks_ok(plan_case(tc, &pc, &res))) {
        relay_exec *exec = NULL;
        relay_status s = relay_exec_create(&exec, pc.plan, MPI_COMM_WORLD);
        if (s != RELAY_OK)
            note_failure(&res, "relay_exec_create: %s: %s", relay_status_str(s), relay_last_error());
        relay_plan_free(pc.plan);   /* the executor keeps what it needs */
        pc.plan = NULL;
        if (all_ranks_ok(s == RELAY_OK))
            for (int replay = 0; replay < REPLAYS; replay++)
                replay_once(exec, tc, &pc, number, replay, run->rank, &res);
        if (s == RELAY_OK)
            relay_exec_free(exec);
    }
    planned_free(tc, &pc);
    long long total;
    MPI_Allreduce(&res.failures, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (total == 0) {
        run->passed++;
        return;
    }
    if (run->failed++ < MAX_REPORTS)
        report_failure(run, number, tc, &res);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    test_run run = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &run.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &run.size);

    transform_case *hand = malloc(sizeof *hand * MAX_HAND_PICKED);
    int hand_count = hand_picked_cases(hand, run.size);
    for (int c = 0; c < hand_count; c++) {
        run_case(&run, c, &hand[c]);
        case_free(&hand[c]);
    }
    free(hand);
    for (int c = 0; c < RANDOM_CASES; c++) {
        transform_case tc;
        random_case(&tc, c, run.size);
        run_case(&run, MAX_HAND_PICKED + c, &tc);
        case_free(&tc);
    }
    transform_case resize;
    for (int c = 0; resize_case(&resize, c, run.size); c++) {
        run_case(&run, MAX_HAND_PICKED + RANDOM_CASES + c, &resize);
        case_free(&resize);
    }

    if (run.rank == 0)
        printf("mpi_transform: %d passed, %d failed\n", run.passed, run.failed);
    MPI_Finalize();
    return run.failed ? 1 : 0;
}
