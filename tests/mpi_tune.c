/* mpi_tune.c — choosing how a transform plan is replayed (relay/exec.h's
 * relay_exec_tune, relay/plan.h's tuning).
 *
 * Each case draws, from a generator seeded by its number, random layouts,
 * op, type, relabeling and schedule (a few cases are hand-picked so that
 * messages have long contiguous runs), plans them, and tunes the plan on
 * MPI_COMM_WORLD.  Checked:
 *   - the tuning times p2p, alltoallv and neighbor, rounds exactly when the
 *     plan was made with rounds, p2p with every message packed exactly when
 *     some message travels direct, p2p through the shared-memory window
 *     only where a node holds more than one rank (and always for a
 *     transpose that crosses ranks there: none of its messages is direct,
 *     unless RELAY_SHM=off); its best is the fastest; it names this
 *     job's ranks per node (counted here by processor name); every rank
 *     holds the same; the fingerprint is unchanged;
 *   - a plan file keeps it (encoded, decoded for this rank only);
 *   - with each timed choice made the best in turn, relay_exec_create
 *     replays that choice (relay_exec_schedule) and A is what the serial
 *     reference says, with random alpha and beta, B and A's gaps untouched;
 *   - in a job of another shape the executor replays the plan's own
 *     schedule;
 *   - ranks whose plans are tuned to different choices fail together
 *     with RELAY_ERR_MISMATCH;
 *   - refusals: tunings a plan cannot carry (the plan unchanged), a replay
 *     count out of range, an HSUMMA or BMMC plan;
 *   - an N-D plan to a replicated destination: direct and forwarding timed,
 *     kept by a plan file, and each replayed right when made the best. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "mpi_check.h"
#include "ref_buffer.h"
#include "relay/relay.h"

enum { CASES = 24, HAND_PICKED = 2, TUNE_REPLAYS = 3 };
static const relay_type all_types[] = {RELAY_FLOAT, RELAY_DOUBLE, RELAY_CFLOAT, RELAY_CDOUBLE};
static const relay_op all_ops[] = {RELAY_OP_N, RELAY_OP_T, RELAY_OP_C};

typedef struct {
    int number;
    relay_type type;
    relay_op op;
    ref_layout dst, src;
    relay_plan_options o;
} tune_case;

/* Column blocks of whole 2048-row columns, 1 x P block-cyclic with nb
 * columns per block: every message of a redistribution between two
 * such layouts is runs of at least 16 KiB of doubles, which p2p sends
 * direct. */
static void column_blocks(ref_layout *out, int P, int64_t nb)
{
    ref_bc_params bc = {.m = 2048, .n = 48, .mb = 2048, .nb = nb, .nprow = 1, .npcol = P,
                        .grid_order = RELAY_ROW_MAJOR, .elem_order = RELAY_COL_MAJOR};
    ref_layout_block_cyclic(out, &bc);
}

static void make_case(tune_case *c, int number, int P)
{
    ref_rng rng;
    ref_rng_seed(&rng, 0x70e5c4ed + (uint64_t)number);
    c->number = number;
    relay_plan_options_init(&c->o);
    if (number < HAND_PICKED) {
        c->type = RELAY_DOUBLE;
        c->op = RELAY_OP_N;
        column_blocks(&c->dst, P, 3);
        column_blocks(&c->src, P, 4);
        c->o.schedule = number ? RELAY_SCHED_ROUNDS : RELAY_SCHED_P2P;
        return;
    }
    c->type = all_types[ref_rng_range(&rng, 0, 3)];
    c->op = all_ops[ref_rng_range(&rng, 0, ref_type_is_complex(c->type) ? 2 : 1)];
    int64_t m = ref_rng_range(&rng, 1, 60), n = ref_rng_range(&rng, 1, 60);
    ref_random_layout(&c->dst, &rng, m, n, P);
    ref_random_layout(&c->src, &rng, c->op == RELAY_OP_N ? m : n, c->op == RELAY_OP_N ? n : m, P);
    c->o.relabel = (relay_relabel)ref_rng_range(&rng, 0, 2);
    c->o.schedule = (relay_schedule)ref_rng_range(&rng, 0, 4);
}

static void case_free(tune_case *c)
{
    ref_layout_free(&c->dst);
    ref_layout_free(&c->src);
}

/* ---- the job's shape, counted independently ---------------------------------- */

/* The fewest and most ranks of the job on one node, by processor name. */
static void node_counts(int *fewest, int *most)
{
    int n, len;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    char name[MPI_MAX_PROCESSOR_NAME] = {0}, *names = calloc((size_t)n, MPI_MAX_PROCESSOR_NAME);
    MPI_Get_processor_name(name, &len);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
    int mine = 0;
    for (int r = 0; r < n; r++) mine += strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME, name) == 0;
    free(names);
    MPI_Allreduce(&mine, fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
}

/* ---- the tuning's content --------------------------------------------------- */

static int times_choice(const relay_tuning *t, relay_schedule s, int packed)
{
    for (int i = 0; i < t->ntimed; i++)
        if (t->choices[i].schedule == s && t->choices[i].packed == packed && !t->choices[i].window) return 1;
    return 0;
}

static int times_window(const relay_tuning *t)
{
    int n = 0;
    for (int i = 0; i < t->ntimed; i++) n += t->choices[i].window && t->choices[i].schedule == RELAY_SCHED_P2P && !t->choices[i].packed;
    return n;
}

/* Whether the plan's transpose moves elements between ranks: then no
 * message travels direct, and on one node every one can go through the
 * window. */
static int crossing_transpose(const tune_case *c, const relay_plan *p)
{
    relay_plan_stats st = {0};
    return c->op != RELAY_OP_N && relay_plan_get_stats(p, &st) == RELAY_OK && st.bytes_remote > 0;
}

static int best_is_fastest(const relay_tuning *t)
{
    for (int i = 0; i < t->ntimed; i++)
        if (t->choices[i].seconds < t->choices[t->best].seconds) return 0;
    return t->ntimed > 0;
}

/* Whether two tunings hold the same fields (not bytes: the struct has
 * padding). */
static int same_tuning(const relay_tuning *x, const relay_tuning *y)
{
    int same = x->ntimed == y->ntimed && x->best == y->best && x->ranks_per_node_min == y->ranks_per_node_min &&
               x->ranks_per_node_max == y->ranks_per_node_max && x->replays == y->replays;
    for (int i = 0; same && i < x->ntimed; i++)
        same = x->choices[i].schedule == y->choices[i].schedule && x->choices[i].packed == y->choices[i].packed &&
               x->choices[i].window == y->choices[i].window && x->choices[i].seconds == y->choices[i].seconds;
    return same;
}

/* Whether every rank holds the same tuning as rank 0. */
static int same_everywhere(const relay_tuning *t)
{
    relay_tuning root = *t;
    MPI_Bcast(&root, (int)sizeof root, MPI_BYTE, 0, MPI_COMM_WORLD);
    return same_tuning(&root, t);
}

/* Whether some message of the plan on some rank travels direct under
 * unpacked p2p: asked of an executor bound to replay so. */
static int some_direct(const relay_plan *p)
{
    relay_tuning t = {.ntimed = 1, .ranks_per_node_min = 1, .ranks_per_node_max = 1, .replays = 1,
                      .choices = {{RELAY_SCHED_P2P, 0, 0}}};
    int fewest, most, direct = 0, any;
    node_counts(&fewest, &most);
    t.ranks_per_node_min = fewest;
    t.ranks_per_node_max = most;
    relay_plan *q = ref_plan_reloaded(p, -1);
    relay_exec *e = NULL;
    relay_schedule s;
    int packed = 1;
    if (q && !relay_plan_set_tuning(q, &t) && !relay_exec_create(&e, q, MPI_COMM_WORLD)) relay_exec_schedule(e, &s, &packed);
    direct = !packed;
    relay_exec_free(e);
    relay_plan_free(q);
    MPI_Allreduce(&direct, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    return any;
}

static void check_tuning(const tune_case *c, const relay_plan *p, uint64_t fingerprint, const relay_tuning *t)
{
    int fewest, most;
    node_counts(&fewest, &most);
    check(t->ntimed >= 3 && times_choice(t, RELAY_SCHED_P2P, 0) && times_choice(t, RELAY_SCHED_ALLTOALLV, 0) &&
              times_choice(t, RELAY_SCHED_NEIGHBOR, 0),
          "the tuning times p2p, alltoallv and neighbor");
    check(times_choice(t, RELAY_SCHED_ROUNDS, 0) == (relay_plan_schedule(p) == RELAY_SCHED_ROUNDS),
          "the tuning times rounds exactly when the plan was made with rounds");
    check(times_choice(t, RELAY_SCHED_P2P, 1) == some_direct(p),
          "the tuning times p2p all packed exactly when some message travels direct");
    if (c->number == 0 && most > 1) check(times_choice(t, RELAY_SCHED_P2P, 1), "whole columns of 16 KiB travel direct");
    const char *shm = getenv("RELAY_SHM");
    int window_off = shm && !strcmp(shm, "off");
    check(times_window(t) <= (most > 1 && !window_off), "the window is timed at most once, and only where a node holds two ranks");
    if (most > 1 && !window_off && crossing_transpose(c, p))
        check(times_window(t) == 1, "a transpose between ranks of one node is timed through the window");
    check(best_is_fastest(t), "the best choice is the fastest");
    check(t->ranks_per_node_min == fewest && t->ranks_per_node_max == most && t->replays == TUNE_REPLAYS,
          "the tuning names the job's ranks per node and its replays");
    check(same_everywhere(t), "every rank holds the same tuning");
    check(relay_plan_fingerprint(p) == fingerprint, "tuning leaves the fingerprint alone");
}

/* ---- replays ---------------------------------------------------------------- */

/* Replays q (bound as it chooses) over fresh buffers with alpha and beta
 * drawn by the case and replay: A (as the plan delivers it, relabeled)
 * must be the reference's, B and the gaps untouched. */
static int replay_matches(const tune_case *c, const relay_plan *q, relay_exec *e, int replay, int rank)
{
    ref_buffer a, b;
    ref_layout dst;
    int *sigma = malloc(sizeof *sigma * (size_t)relay_plan_nranks(q));
    relay_plan_relabeling(q, sigma);
    ref_layout_relabeled(&dst, &c->dst, sigma, relay_plan_nranks(q));
    free(sigma);
    ref_buffer_make(&a, &dst, rank, c->type);
    ref_layout_free(&dst);
    ref_buffer_make(&b, &c->src, rank, c->type);
    uint64_t seed_b = 1000 * (uint64_t)c->number + 2 * (uint64_t)replay + 1, seed_a = seed_b + 1;
    static const double complex alphas[] = {1, -2, 0.5, CMPLX(1, -1)}, betas[] = {0, 1, -1, CMPLX(0, 2)};
    int cx = ref_type_is_complex(c->type);
    double complex alpha = alphas[(c->number + replay) % (cx ? 4 : 3)], beta = betas[(c->number + 2 * replay) % (cx ? 4 : 3)];
    ref_buffer_fill(&a, beta != 0 ? seed_a : 0);
    ref_buffer_fill(&b, seed_b);
    unsigned char alpha_bytes[16], beta_bytes[16];
    ref_store(c->type, alpha_bytes, 0, alpha);
    ref_store(c->type, beta_bytes, 0, beta);
    int fits = relay_plan_buffer_elems(q, 1, 0, rank) <= a.size && relay_plan_buffer_elems(q, 0, 0, rank) <= b.size, all_fit;
    MPI_Allreduce(&fits, &all_fit, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD); /* a wrong plan fails the check, not the heap */
    int ok = all_fit && relay_exec_run(e, (void *[]){a.data}, (const void *[]){b.data}, alpha_bytes, beta_bytes) == RELAY_OK;
    ref_transform want = {.op = c->op, .type = c->type, .alpha = alpha, .beta = beta, .read_a = beta != 0,
                          .seed_b = seed_b, .seed_a = seed_a};
    ok = ok && ref_buffer_is(&a, &want) && ref_buffer_holds(&b, seed_b);
    ref_buffer_free(&a);
    ref_buffer_free(&b);
    return ok;
}

/* With choice i the best, the executor replays it, correctly. */
static void check_choice(const tune_case *c, relay_plan *q, relay_tuning t, int i, int rank)
{
    t.best = i;
    relay_exec *e = NULL;
    relay_schedule s = RELAY_SCHED_AUTO;
    int packed = -1;
    int ok = relay_plan_set_tuning(q, &t) == RELAY_OK && relay_exec_create(&e, q, MPI_COMM_WORLD) == RELAY_OK &&
             relay_exec_schedule(e, &s, &packed) == RELAY_OK;
    check(ok && s == t.choices[i].schedule && (!t.choices[i].packed || packed == 1), "the executor replays the tuned choice");
    for (int replay = 0; replay < 2; replay++)
        check(ok && replay_matches(c, q, e, replay, rank), "the tuned choice's replay matches the serial reference");
    relay_exec_free(e);
}

/* In a job of another shape, the plan's own schedule, though the tuning's
 * best is another. */
static void check_other_shape(relay_plan *q, relay_tuning t)
{
    t.ranks_per_node_min = t.ranks_per_node_max = t.ranks_per_node_max > 1 ? 1 : 2;
    while (t.choices[t.best].schedule == relay_plan_schedule(q)) t.best = (t.best + 1) % t.ntimed;
    relay_exec *e = NULL;
    relay_schedule s = RELAY_SCHED_AUTO;
    int packed;
    int ok = relay_plan_set_tuning(q, &t) == RELAY_OK && relay_exec_create(&e, q, MPI_COMM_WORLD) == RELAY_OK &&
             relay_exec_schedule(e, &s, &packed) == RELAY_OK;
    check(ok && s == relay_plan_schedule(q), "a job of another shape replays the plan's own schedule");
    relay_exec_free(e);
}

/* Rank 0 tuned to choice 0, the others to choice 1: all fail together. */
static void check_disagreement(relay_plan *q, relay_tuning t, int rank)
{
    t.best = rank == 0 ? 0 : 1;
    relay_exec *e = NULL;
    int set = relay_plan_set_tuning(q, &t) == RELAY_OK;
    relay_status st = relay_exec_create(&e, q, MPI_COMM_WORLD);
    check(set && st == RELAY_ERR_MISMATCH && e == NULL, "ranks tuned to different choices fail together with a mismatch");
}

static void run_case(int number, int rank, int nranks)
{
    tune_case c;
    make_case(&c, number, nranks);
    relay_plan *p = ref_plan_of(nranks, &c.dst, &c.src, NULL, c.op, c.type, &c.o);
    check(p != NULL, "planning a case");
    if (!p) return;
    uint64_t fingerprint = relay_plan_fingerprint(p);
    relay_tuning t = {0}, kept = {0};
    check(relay_exec_tune(p, MPI_COMM_WORLD, TUNE_REPLAYS) == RELAY_OK && relay_plan_tuning(p, &t) == RELAY_OK,
          "tuning a plan");
    check_tuning(&c, p, fingerprint, &t);
    relay_plan *q = ref_plan_reloaded(p, rank);
    check(q && relay_plan_tuning(q, &kept) == RELAY_OK && same_tuning(&kept, &t), "a plan file keeps the tuning");
    for (int i = 0; q && i < t.ntimed; i++) check_choice(&c, q, t, i, rank);
    if (q && t.ntimed && nranks > 1) check_other_shape(q, t);
    if (q && t.ntimed > 1 && nranks > 1 && number % 4 == 0) check_disagreement(q, t, rank);
    relay_plan_free(q);
    relay_plan_free(p);
    case_free(&c);
}

/* ---- refusals ------------------------------------------------------------------ */

/* Each flaw refused with RELAY_ERR_ARG, the plan's tuning unchanged. */
static void check_flaws(int nranks)
{
    tune_case c;
    make_case(&c, HAND_PICKED, nranks);
    c.o.schedule = RELAY_SCHED_P2P;
    relay_plan *p = ref_plan_of(nranks, &c.dst, &c.src, NULL, c.op, c.type, &c.o);
    relay_tuning good = {.ntimed = 2, .best = 1, .ranks_per_node_min = 1, .ranks_per_node_max = nranks, .replays = 5,
                         .choices = {{RELAY_SCHED_P2P, 0, 2e-3}, {RELAY_SCHED_NEIGHBOR, 0, 1e-3}}};
    check(p && relay_plan_set_tuning(p, &good) == RELAY_OK, "a tuning the plan can carry is kept");
    relay_tuning bad[6];
    for (int k = 0; k < 6; k++) bad[k] = good;
    bad[0].choices[1].schedule = RELAY_SCHED_ROUNDS;   /* the plan has no steps */
    bad[1].best = 2;                                   /* not a choice */
    bad[2].choices[0].seconds = -1;                    /* not a time */
    bad[3].choices[1] = bad[3].choices[0];             /* timed twice */
    bad[4].ranks_per_node_max = nranks + 1;            /* beyond the ranks */
    bad[5].choices[1].packed = 1;                      /* packed neighbor */
    for (int k = 0; p && k < 6; k++) {
        relay_tuning now;
        int refused = relay_plan_set_tuning(p, &bad[k]) == RELAY_ERR_ARG;
        relay_plan_tuning(p, &now);
        check(refused && same_tuning(&now, &good), "a tuning the plan cannot carry is refused, the plan unchanged");
    }
    relay_tuning none;
    check(p && relay_plan_set_tuning(p, NULL) == RELAY_OK && relay_plan_tuning(p, &none) == RELAY_OK && none.ntimed == 0,
          "a tuning is removed");
    check(relay_exec_tune(p, MPI_COMM_WORLD, 0) == RELAY_ERR_ARG, "relay_exec_tune refuses 0 replays on every rank");
    relay_plan_free(p);
    case_free(&c);
}

/* An N-D replay timed: one row per message and two per rank, their bytes
 * what the executor says it moves, the replay counted. */
static void check_nd_timings(relay_exec *e)
{
    relay_exec_memory m = {0};
    relay_exec_timing rows[64];
    int64_t replays = 0, bytes = 0;
    int count = 64, kinds_ok = 1;
    check(e && relay_exec_time(e, 1) == RELAY_OK && relay_exec_run(e, (void *[]){NULL}, (const void *[]){NULL}, NULL, NULL) != RELAY_ERR_MPI,
          "N-D: a timed replay");
    check(relay_exec_timings(e, &replays, rows, &count) == RELAY_OK && relay_exec_get_memory(e, &m) == RELAY_OK && count <= 64,
          "N-D: the timings");
    for (int r = 0; r < count && count <= 64; r++) {
        bytes += rows[r].bytes;
        kinds_ok &= rows[r].pack_s >= 0 && rows[r].wait_s >= 0 && rows[r].unpack_s >= 0;
    }
    check(kinds_ok && bytes == m.remote_bytes && count >= 2 && rows[count - 1].kind == RELAY_TIMING_COMPLETION &&
              rows[count - 2].kind == RELAY_TIMING_LOCAL,
          "N-D: a row per message, their bytes those moved, then the local and completion rows");
    relay_exec_time(e, 0);
}

/* An N-D plan whose destination is replicated: the tuning times its
 * replicas receiving directly and forwarding, a file keeps both, and an
 * executor made to replay each moves every element right.  B: n x n in
 * row halves on the job's first ranks; A: row halves replicated along a
 * mesh dimension of all the job's ranks (1 x P, 2 x P/2). */
static void check_nd(int rank, int nranks)
{
    enum { N = 48 };
    int64_t shape[2] = {N, N};
    int halves = nranks >= 2 ? 2 : 1, mesh[2] = {halves, nranks / halves}, *ranks = malloc((size_t)nranks * sizeof *ranks);
    for (int r = 0; r < nranks; r++) ranks[r] = nranks - 1 - r; /* A's replicas on other ranks than B's halves */
    relay_placement rows = {RELAY_SHARD, 0, 0, NULL}, to[2] = {rows, {RELAY_REPLICATE, 0, 0, NULL}};
    relay_nd_desc from = {2, shape, 1, &halves, ranks + nranks - halves, &rows, RELAY_ROW_MAJOR, NULL},
                  into = {2, shape, 2, mesh, ranks, to, RELAY_COL_MAJOR, NULL};
    relay_nd_layout *A = NULL, *B = NULL;
    relay_plan *p = NULL, *q = NULL;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.replicas = RELAY_REPLICAS_DIRECT;
    check(!relay_nd_layout_create(&B, &from) && !relay_nd_layout_create(&A, &into) && !relay_plan_nd(&p, nranks, A, B, RELAY_OP_N, NULL, RELAY_DOUBLE, &o),
          "N-D: planning a move to a replicated destination");
    relay_tuning t = {0};
    check(p && relay_exec_tune(p, MPI_COMM_WORLD, TUNE_REPLAYS) == RELAY_OK && relay_plan_tuning(p, &t) == RELAY_OK,
          "N-D: relay_exec_tune");
    int replicated = nranks / halves > 1;
    check(t.ntimed == 1 + replicated && t.choices[0].forward == 0 && (!replicated || t.choices[1].forward == 1) && best_is_fastest(&t),
          "N-D: the tuning times direct replicas and, where they are replicated, forwarding");
    void *bytes = NULL;
    size_t len = 0;
    check(p && relay_plan_encode(p, &bytes, &len) == RELAY_OK && relay_plan_decode(&q, bytes, len, rank) == RELAY_OK,
          "N-D: a tuned plan encoded and decoded");
    relay_tuning kept = {0};
    if (q) relay_plan_tuning(q, &kept);
    check(same_tuning(&t, &kept), "N-D: a plan file keeps the tuning");
    int64_t na = q ? relay_plan_buffer_elems(q, 1, 0, rank) : 0, nb = q ? relay_plan_buffer_elems(q, 0, 0, rank) : 0;
    double *a = calloc((size_t)na + 1, sizeof *a), *b = calloc((size_t)nb + 1, sizeof *b);
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < N; j++) {
            int64_t at[2] = {i, j}, pos;
            int held;
            if (B && !relay_nd_layout_locate(B, rank, at, &held, &pos) && held) b[pos] = (double)(i * N + j);
        }
    for (int i = 0; q && i < t.ntimed; i++) {
        relay_tuning forced = t;
        forced.best = i;
        relay_exec *e = NULL;
        relay_schedule s;
        int packed, wrong = 0;
        check(relay_plan_set_tuning(q, &forced) == RELAY_OK && relay_exec_create(&e, q, MPI_COMM_WORLD) == RELAY_OK &&
                  relay_exec_schedule(e, &s, &packed) == RELAY_OK && s == RELAY_SCHED_P2P &&
                  relay_exec_run(e, (void *[]){a}, (const void *[]){b}, NULL, NULL) == RELAY_OK,
              "N-D: replaying each timed choice");
        for (int64_t x = 0; x < N; x++)
            for (int64_t y = 0; y < N; y++) {
                int64_t at[2] = {x, y}, pos;
                int held;
                if (!relay_nd_layout_locate(A, rank, at, &held, &pos) && held) wrong += a[pos] != (double)(x * N + y);
            }
        check(wrong == 0, "N-D: each choice delivers every element to every replica");
        check_nd_timings(e);
        relay_exec_free(e);
    }
    free(a), free(b), free(bytes), free(ranks);
    relay_plan_free(p), relay_plan_free(q);
    relay_nd_layout_free(A), relay_nd_layout_free(B);
}

static void check_other_kinds(int nranks)
{
    relay_hsumma_params hp;
    relay_plan *h = NULL, *b = NULL;
    relay_bmmc perm;
    int bits = 0;
    while (1 << (bits + 1) <= nranks) bits++;
    check(relay_hsumma_params_init(&hp, 8, 8, 8, 1, nranks, RELAY_DOUBLE) == RELAY_OK && relay_plan_hsumma(&h, &hp) == RELAY_OK &&
              relay_bmmc_bit_reversal(&perm, 6) == RELAY_OK && relay_plan_bmmc(&b, &perm, bits, 6 - bits, 8) == RELAY_OK,
          "planning an HSUMMA and a BMMC plan");
    check(relay_exec_tune(h, MPI_COMM_WORLD, 1) == RELAY_ERR_UNSUPPORTED, "an HSUMMA plan is not tuned here");
    check(relay_exec_tune(b, MPI_COMM_WORLD, 1) == RELAY_ERR_UNSUPPORTED, "a BMMC plan is not tuned");
    relay_tuning t = {.ntimed = 1, .ranks_per_node_min = 1, .ranks_per_node_max = 1, .replays = 1,
                      .choices = {{RELAY_SCHED_P2P, 0, 0}}};
    check(h && b && relay_plan_set_tuning(h, &t) == RELAY_ERR_ARG && relay_plan_set_tuning(b, &t) == RELAY_ERR_ARG,
          "HSUMMA and BMMC plans carry no tuning");
    relay_plan_free(h);
    relay_plan_free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int number = 0; number < CASES; number++) run_case(number, rank, nranks);
    check_flaws(nranks);
    check_other_kinds(nranks);
    check_nd(rank, nranks);
    int status = check_summary("mpi_tune");
    MPI_Finalize();
    return status;
}
