/* mpi_hsumma.c — SUMMA and HSUMMA replays under mpiexec against a serial product.
 *
 * At P ranks: every s x t grid with s t = P, every group count I | s, J | t,
 * and per grid a rotating set of cases: non-divisible shapes (37 x 23 x 29),
 * k smaller than the grid, m, n or k zero; b in {1, 3, 4, 8} with B a
 * multiple of b or not; the checkerboard and block-cyclic (dist_block 1, 2,
 * 5) distributions; double and complex double mostly, float and complex
 * float sometimes; alpha and beta given, NULL, zero (beta zero with C full
 * of NaN, which must not leak into the result).  Every rank builds A, B and
 * the old C from a function of the global indices (small integers, so the
 * products are exact), takes its part by this file's own distribution
 * formulas (rank r = row*t + col, column-major, ld = local rows), replays a
 * plan that travelled through the codec as its own section, twice on fresh
 * C buffers and once split-phase, and compares with the triple-loop product
 * of the global matrices; A and B must come back untouched.  Automatic
 * groups (chosen at bind, or by the model at planning) and
 * relay_hsumma_autotune must give groups that divide the grid, agree on
 * every rank and still multiply correctly (autotuning a plan for another
 * rank count must fail everywhere); two executors alive at once must not
 * disturb each other, one replaying between the other's start and wait;
 * relay_hsumma_measure_network must measure something at 2 ranks or more;
 * and a plan for P + 1 ranks must fail relay_exec_create on every rank
 * with RELAY_ERR_MISMATCH.  Failures are counted over all ranks; rank 0
 * prints the summary and any failure makes the exit status nonzero. */
#include <complex.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "relay/hsumma.h"
#include "relay/relay.h"

static int rank, nranks, failed, passed;

/* Prints what went wrong on this rank and marks the case failed. */
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "rank %d: %s:%d: ", rank, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, " (%s)\n", relay_last_error());                \
            bad = 1;                                                       \
        }                                                                  \
    } while (0)

/* Whether every rank is fine (collective). */
static int all_ok(int ok)
{
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return ok;
}

/* ---- values ------------------------------------------------------------------ */

static int is_complex(relay_type t) { return t == RELAY_CFLOAT || t == RELAY_CDOUBLE; }
static size_t esize(relay_type t) { return t == RELAY_FLOAT ? 4 : t == RELAY_CDOUBLE ? 16 : 8; }

/* Element (i, j) of the matrix named by seed: integers in [-4, 4] (and an
 * imaginary part in [-3, 3] for complex types). */
static double complex value(uint64_t seed, int64_t i, int64_t j, int cplx)
{
    uint64_t h = seed * 0x9e3779b97f4a7c15ull ^ (uint64_t)i * 0xbf58476d1ce4e5b9ull ^ (uint64_t)j * 0x94d049bb133111ebull;
    h ^= h >> 31;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 29;
    double re = (double)(h % 9) - 4, im = cplx ? (double)((h >> 17) % 7) - 3 : 0;
    return re + im * I;
}

static void store(relay_type t, void *buf, int64_t k, double complex v)
{
    switch (t) {
    case RELAY_FLOAT: ((float *)buf)[k] = (float)creal(v); break;
    case RELAY_DOUBLE: ((double *)buf)[k] = creal(v); break;
    case RELAY_CFLOAT: ((float complex *)buf)[k] = (float complex)v; break;
    case RELAY_CDOUBLE: ((double complex *)buf)[k] = v; break;
    }
}

static double complex load(relay_type t, const void *buf, int64_t k)
{
    switch (t) {
    case RELAY_FLOAT: return ((const float *)buf)[k];
    case RELAY_DOUBLE: return ((const double *)buf)[k];
    case RELAY_CFLOAT: return ((const float complex *)buf)[k];
    default: return ((const double complex *)buf)[k];
    }
}

/* |re| + |im|: a norm, enough to scale a tolerance (and no libm). */
static double mag1(double complex z)
{
    double re = creal(z), im = cimag(z);
    return (re < 0 ? -re : re) + (im < 0 ? -im : im);
}

static const char *type_name(relay_type t)
{
    return t == RELAY_FLOAT ? "float" : t == RELAY_DOUBLE ? "double" : t == RELAY_CFLOAT ? "cfloat" : "cdouble";
}

/* ---- one case ------------------------------------------------------------------ */

/* alpha and beta of a case; has_alpha/has_beta 0 means pass NULL. */
typedef struct {
    int has_alpha, has_beta;
    double complex alpha, beta;
} scalars;

static const scalars combos[] = {
    {1, 1, 1, 0},          /* beta 0 given: C is NaN and must not be read */
    {1, 1, 2, -1},
    {0, 0, 0, 0},          /* NULL, NULL: 1 and 0 */
    {1, 1, -0.5, 3},
    {0, 1, 0, 2},          /* alpha NULL */
    {1, 0, 3, 0},          /* beta NULL */
    {1, 1, 0, 0.5},        /* alpha zero */
};
static const scalars combos_complex[] = {
    {1, 1, 1, 0},
    {1, 1, 1 + 2 * I, 0.5 - 1 * I},
    {0, 0, 0, 0},
    {1, 1, -2 * I, 3},
    {0, 1, 0, -1 + 1 * I},
    {1, 0, 0.5 + 0.5 * I, 0},
    {1, 1, 0, 2 * I},
};

/* What a case expects from the executor beyond the product. */
typedef struct {
    relay_hsumma_groups_from from;
    int want_rows, want_cols; /* groups the executor must run with (0: any that divide the grid) */
} expectation;

typedef struct {
    void *buf;
    int64_t elems;
} local_mat;

/* Allocates this rank's part of an rows x cols operand and fills it from
 * seed (or with NaN when nan); NULL when the part is empty. */
static local_mat make_local(const relay_hsumma_params *p, int64_t rows, int64_t cols, uint64_t seed, int nan)
{
    int s = p->grid_rows, t = p->grid_cols, pr = rank / t, pc = rank % t;
    int64_t lr = ref_hsumma_count(p, rows, s, pr), lc = ref_hsumma_count(p, cols, t, pc);
    local_mat m = {NULL, lr * lc};
    if (!m.elems) return m;
    m.buf = malloc((size_t)m.elems * esize(p->type));
    for (int64_t x = 0; x < m.elems; x++) store(p->type, m.buf, x, NAN + NAN * I);
    if (nan) return m;
    for (int64_t i = 0; i < rows; i++) {
        int oi;
        int64_t li;
        ref_hsumma_locate(p, rows, s, i, &oi, &li);
        if (oi != pr) continue;
        for (int64_t j = 0; j < cols; j++) {
            int oj;
            int64_t lj;
            ref_hsumma_locate(p, cols, t, j, &oj, &lj);
            if (oj == pc) store(p->type, m.buf, li + lj * lr, value(seed, i, j, is_complex(p->type)));
        }
    }
    return m;
}

/* Compares this rank's C with alpha A B + beta C0, computed from the global
 * matrices; returns the number of wrong elements (reports the first). */
static int64_t compare(const relay_hsumma_params *p, const void *C, const scalars *sc, uint64_t seed, const char *label)
{
    int s = p->grid_rows, t = p->grid_cols, pr = rank / t, pc = rank % t, cplx = is_complex(p->type);
    int64_t lr = ref_hsumma_count(p, p->m, s, pr), wrong = 0;
    double tol = (p->type == RELAY_FLOAT || p->type == RELAY_CFLOAT) ? 1e-4 : 1e-12;
    double complex alpha = sc->has_alpha ? sc->alpha : 1, beta = sc->has_beta ? sc->beta : 0;
    for (int64_t i = 0; i < p->m; i++) {
        int oi;
        int64_t li;
        ref_hsumma_locate(p, p->m, s, i, &oi, &li);
        if (oi != pr) continue;
        for (int64_t j = 0; j < p->n; j++) {
            int oj;
            int64_t lj;
            ref_hsumma_locate(p, p->n, t, j, &oj, &lj);
            if (oj != pc) continue;
            double complex sum = 0;
            double mag = 0;
            for (int64_t l = 0; l < p->k; l++) {
                double complex a = value(seed + 1, i, l, cplx), b = value(seed + 2, l, j, cplx);
                sum += a * b;
                mag += mag1(a) * mag1(b);
            }
            double complex want = alpha * sum;
            mag *= mag1(alpha);
            if (beta != 0) {
                double complex c0 = value(seed + 3, i, j, cplx);
                want += beta * c0;
                mag += mag1(beta) * mag1(c0);
            }
            double complex got = load(p->type, C, li + lj * lr);
            if (!(mag1(got - want) <= tol * (1 + mag))) {
                if (!wrong)
                    fprintf(stderr, "rank %d: %s: C(%lld, %lld) = %g%+gi, want %g%+gi\n", rank, label, (long long)i,
                            (long long)j, creal(got), cimag(got), creal(want), cimag(want));
                wrong++;
            }
        }
    }
    return wrong;
}

/* Replays a bound executor three times (run on C, run on a fresh C,
 * start/wait on another fresh C) and compares each result; returns whether
 * this rank saw everything right. */
static int replay_and_compare(relay_exec *e, const relay_hsumma_params *p, const scalars *sc, uint64_t seed,
        const char *label)
{
    int bad = 0;
    relay_type ty = p->type;
    size_t es = esize(ty);
    local_mat A = make_local(p, p->m, p->k, seed + 1, 0), B = make_local(p, p->k, p->n, seed + 2, 0);
    int reads_c = sc->has_beta && sc->beta != 0;
    void *A0 = A.elems ? malloc((size_t)A.elems * es) : NULL, *B0 = B.elems ? malloc((size_t)B.elems * es) : NULL;
    if (A.elems) memcpy(A0, A.buf, (size_t)A.elems * es);
    if (B.elems) memcpy(B0, B.buf, (size_t)B.elems * es);
    unsigned char alpha[16], beta[16];
    store(ty, alpha, 0, sc->alpha);
    store(ty, beta, 0, sc->beta);
    for (int r = 0; r < 3; r++) {
        local_mat C = make_local(p, p->m, p->n, seed + 3, !reads_c);
        void *d[1] = {C.buf};
        const void *s[2] = {A.buf, B.buf};
        const void *al = sc->has_alpha ? alpha : NULL, *be = sc->has_beta ? beta : NULL;
        relay_status st;
        if (r < 2) {
            st = relay_exec_run(e, d, s, al, be);
            CHECK(st == RELAY_OK, "%s: replay %d gave %s", label, r, relay_status_str(st));
        } else {
            st = relay_exec_start(e, d, s, al, be);
            CHECK(st == RELAY_OK, "%s: start gave %s", label, relay_status_str(st));
            if (st == RELAY_OK) {
                st = relay_exec_wait(e);
                CHECK(st == RELAY_OK, "%s: wait gave %s", label, relay_status_str(st));
            }
        }
        if (st == RELAY_OK) {
            char l2[400];
            snprintf(l2, sizeof l2, "%s, replay %d", label, r);
            int64_t wrong = compare(p, C.buf, sc, seed, l2);
            CHECK(wrong == 0, "%s: %lld of %lld local elements wrong", l2, (long long)wrong, (long long)C.elems);
        }
        CHECK(!A.elems || memcmp(A.buf, A0, (size_t)A.elems * es) == 0, "%s: replay %d changed A", label, r);
        CHECK(!B.elems || memcmp(B.buf, B0, (size_t)B.elems * es) == 0, "%s: replay %d changed B", label, r);
        free(C.buf);
    }
    free(A.buf);
    free(B.buf);
    free(A0);
    free(B0);
    return !bad;
}

/* Checks the groups the executor runs with; returns whether they are right. */
static int check_report(relay_exec *e, const relay_hsumma_params *p, const expectation *want, const char *label)
{
    int bad = 0;
    relay_hsumma_report rep;
    memset(&rep, 0, sizeof rep);
    CHECK(relay_exec_hsumma_report(e, &rep) == RELAY_OK, "%s: report", label);
    CHECK(rep.group_rows >= 1 && p->grid_rows % rep.group_rows == 0 && rep.group_cols >= 1 &&
          p->grid_cols % rep.group_cols == 0, "%s: executor groups %dx%d do not divide the grid", label,
          rep.group_rows, rep.group_cols);
    if (want->want_rows)
        CHECK(rep.group_rows == want->want_rows && rep.group_cols == want->want_cols,
              "%s: executor groups %dx%d, want %dx%d", label, rep.group_rows, rep.group_cols, want->want_rows,
              want->want_cols);
    if (want->from == RELAY_GROUPS_AT_BIND && nranks >= 2)
        CHECK(rep.measured.alpha > 0 && rep.measured.beta > 0, "%s: measured alpha %g beta %g at bind", label,
              rep.measured.alpha, rep.measured.beta);
    CHECK(rep.comm_seconds >= 0 && rep.compute_seconds >= 0, "%s: negative times in the report", label);
    int g[2] = {rep.group_rows, rep.group_cols}, gmin[2], gmax[2];
    MPI_Allreduce(g, gmin, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(g, gmax, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(gmin[0] == gmax[0] && gmin[1] == gmax[1], "%s: ranks run with different groups", label);
    return !bad;
}

/* Plans p (or takes `given`), ships the plan through the codec as this
 * rank's section, binds it, checks the executor's groups against `want`
 * and replays it. */
static void run_case(const relay_hsumma_params *p, const relay_plan *given, const scalars *sc, uint64_t seed,
        const expectation *want, const char *what)
{
    char label[320], dist[32] = "checkerboard";
    if (p->dist == RELAY_HSUMMA_BLOCK_CYCLIC) snprintf(dist, sizeof dist, "block-cyclic %lld", (long long)p->dist_block);
    snprintf(label, sizeof label, "%s: %lldx%lldx%lld on %dx%d, groups %dx%d, b %lld B %lld, %s, %s, alpha %s beta %s",
             what, (long long)p->m, (long long)p->n, (long long)p->k, p->grid_rows, p->grid_cols, p->group_rows,
             p->group_cols, (long long)p->inner_block, (long long)p->outer_block, dist, type_name(p->type),
             sc->has_alpha ? "given" : "NULL", sc->has_beta ? "given" : "NULL");
    int bad = 0;
    relay_plan *planned = NULL, *plan = NULL;
    relay_exec *e = NULL;
    void *buf = NULL;
    size_t len = 0;
    if (given) {
        CHECK(relay_plan_encode(given, &buf, &len) == RELAY_OK, "%s: encoding", label);
    } else {
        relay_status st = relay_plan_hsumma(&planned, p);
        CHECK(st == RELAY_OK, "%s: planning gave %s", label, relay_status_str(st));
        if (!bad) CHECK(relay_plan_encode(planned, &buf, &len) == RELAY_OK, "%s: encoding", label);
    }
    if (!bad) CHECK(relay_plan_decode(&plan, buf, len, rank) == RELAY_OK, "%s: decoding", label);
    free(buf);
    relay_plan_free(planned);
    relay_hsumma_info info;
    if (!bad) {
        CHECK(relay_plan_hsumma_info(plan, &info) == RELAY_OK, "%s: info", label);
        if (!bad)
            CHECK(info.groups_from == want->from, "%s: groups from %d, want %d", label, (int)info.groups_from,
                  (int)want->from);
    }
    if (all_ok(!bad)) {
        relay_status st = relay_exec_create(&e, plan, MPI_COMM_WORLD);
        CHECK(st == RELAY_OK, "%s: binding gave %s", label, relay_status_str(st));
        if (all_ok(!bad)) {
            if (!check_report(e, p, want, label)) bad = 1;
            if (!replay_and_compare(e, p, sc, seed, label)) bad = 1;
        }
    }
    if (e) relay_exec_free(e);
    relay_plan_free(plan);
    if (!all_ok(!bad))
        failed++;
    else
        passed++;
}

/* ---- the case tables ------------------------------------------------------------- */

static const int64_t shapes[][3] = {
    {37, 23, 29}, {5, 6, 7}, {1, 1, 1}, {2, 3, 1}, {16, 12, 20}, {0, 5, 6},  {64, 33, 17}, {3, 1, 40},
    {5, 0, 6},    {9, 9, 2}, {24, 40, 64}, {5, 6, 0}, {13, 7, 3}, {31, 2, 33},
};
#define NSHAPES ((int)(sizeof shapes / sizeof *shapes))
static const int64_t inner_blocks[] = {1, 3, 4, 8};
static const int64_t dist_blocks[] = {1, 2, 5};

/* Case number g on an s x t grid with gr x gc groups. */
static void make_case(int g, int s, int t, int gr, int gc, relay_hsumma_params *p, const scalars **sc)
{
    memset(p, 0, sizeof *p);
    const int64_t *sh = shapes[g % NSHAPES];
    p->m = sh[0];
    p->n = sh[1];
    p->k = sh[2];
    p->grid_rows = s;
    p->grid_cols = t;
    p->group_rows = gr;
    p->group_cols = gc;
    int64_t b = inner_blocks[g % 4];
    p->inner_block = b;
    switch ((g / 4) % 4) { /* B: a multiple of b or not */
    case 0: p->outer_block = b; break;
    case 1: p->outer_block = 2 * b; break;
    case 2: p->outer_block = b + 1; break;
    default: p->outer_block = 3 * b + 2; break;
    }
    if (g % 3 == 0) {
        p->dist = RELAY_HSUMMA_CHECKERBOARD;
        p->dist_block = 64;
    } else {
        p->dist = RELAY_HSUMMA_BLOCK_CYCLIC;
        p->dist_block = dist_blocks[(g / 3) % 3];
    }
    int ty = g % 11;
    p->type = ty == 4 ? RELAY_FLOAT : ty == 9 ? RELAY_CFLOAT : ty % 2 ? RELAY_CDOUBLE : RELAY_DOUBLE;
    p->network.bcast = RELAY_BCAST_VAN_DE_GEIJN;
    int c = (g / 2) % 7;
    *sc = is_complex(p->type) ? &combos_complex[c] : &combos[c];
}

static int divisors(int v, int *out)
{
    int n = 0;
    for (int d = 1; d <= v; d++)
        if (v % d == 0) out[n++] = d;
    return n;
}

static void grid_cases(void)
{
    int pairs = 0, ds[16], dt[16];
    for (int s = 1; s <= nranks; s++)
        if (nranks % s == 0) pairs += divisors(s, ds) * divisors(nranks / s, dt);
    int per_pair = (200 + pairs - 1) / pairs, g = 0;
    if (per_pair < 6) per_pair = 6;
    for (int s = 1; s <= nranks; s++) {
        if (nranks % s) continue;
        int t = nranks / s, ns = divisors(s, ds), nt = divisors(t, dt);
        for (int a = 0; a < ns; a++)
            for (int b = 0; b < nt; b++)
                for (int c = 0; c < per_pair; c++, g++) {
                    relay_hsumma_params p;
                    const scalars *sc;
                    make_case(g, s, t, ds[a], dt[b], &p, &sc);
                    expectation want = {RELAY_GROUPS_GIVEN, ds[a], dt[b]};
                    run_case(&p, NULL, sc, 100 + (uint64_t)g * 7, &want, "given groups");
                }
    }
}

/* Groups left to the library: at bind, by the model, by autotuning. */
static void automatic_cases(void)
{
    int g = 0;
    for (int s = 1; s <= nranks; s++) {
        if (nranks % s) continue;
        int t = nranks / s;
        for (int kind = 0; kind < 3; kind++, g++) {
            relay_hsumma_params p;
            const scalars *sc;
            make_case(g * 5 + 1, s, t, 0, 0, &p, &sc);
            p.m = 37;
            p.n = 23;
            p.k = 29;
            p.type = kind == 1 ? RELAY_CDOUBLE : RELAY_DOUBLE;
            sc = kind == 1 ? &combos_complex[1] : &combos[1];
            if (kind == 0) {
                expectation want = {RELAY_GROUPS_AT_BIND, 0, 0};
                run_case(&p, NULL, sc, 5000 + (uint64_t)g, &want, "groups at bind");
            } else if (kind == 1) {
                p.network.alpha = 1e-5;
                p.network.beta = 1e-9;
                int gr = 0, gc = 0;
                int bad = 0;
                CHECK(relay_hsumma_best_groups(&p, &p.network, &gr, &gc) == RELAY_OK, "best groups");
                if (bad) {
                    failed++;
                    continue;
                }
                expectation want = {RELAY_GROUPS_MODEL, gr, gc};
                run_case(&p, NULL, sc, 5000 + (uint64_t)g, &want, "groups by the model");
            } else {
                /* autotune from a plan with given groups and one with groups at bind */
                for (int from = 0; from < 2; from++) {
                    p.group_rows = from ? 0 : 1;
                    p.group_cols = from ? 0 : t;
                    relay_plan *base = NULL, *tuned = NULL;
                    int bad = 0;
                    CHECK(relay_plan_hsumma(&base, &p) == RELAY_OK, "autotune: planning");
                    relay_status st = bad ? RELAY_ERR_ARG : relay_hsumma_autotune(&tuned, base, MPI_COMM_WORLD, from ? 50 : 1);
                    CHECK(st == RELAY_OK, "autotune on %dx%d gave %s", s, t, relay_status_str(st));
                    relay_hsumma_info info;
                    memset(&info, 0, sizeof info);
                    if (!bad) {
                        CHECK(relay_plan_hsumma_info(tuned, &info) == RELAY_OK, "autotuned info");
                        CHECK(info.groups_from == RELAY_GROUPS_AUTOTUNE, "autotuned plan: groups from %d", (int)info.groups_from);
                        CHECK(info.params.group_rows >= 1 && s % info.params.group_rows == 0 &&
                              info.params.group_cols >= 1 && t % info.params.group_cols == 0,
                              "autotuned groups %dx%d on %dx%d", info.params.group_rows, info.params.group_cols, s, t);
                        CHECK(relay_plan_nranks(tuned) == nranks, "autotuned plan for %d ranks", relay_plan_nranks(tuned));
                    }
                    int gg[2] = {info.params.group_rows, info.params.group_cols}, gmin[2], gmax[2];
                    MPI_Allreduce(gg, gmin, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
                    MPI_Allreduce(gg, gmax, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
                    CHECK(gmin[0] == gmax[0] && gmin[1] == gmax[1], "autotune: ranks chose different groups");
                    relay_plan_free(base);
                    if (!all_ok(!bad)) {
                        failed++;
                        relay_plan_free(tuned);
                        continue;
                    }
                    p.group_rows = info.params.group_rows;
                    p.group_cols = info.params.group_cols;
                    expectation want = {RELAY_GROUPS_AUTOTUNE, info.params.group_rows, info.params.group_cols};
                    run_case(&p, tuned, sc, 6000 + (uint64_t)g, &want, "autotuned groups");
                    relay_plan_free(tuned);
                }
            }
        }
    }
}

/* Two executors alive at once on different groups: the second replays
 * while the first is between start and wait, and both must be right. */
static void interleaved_executors(void)
{
    int ds[16], dt[16], g = 0;
    for (int s = 1; s <= nranks; s++) {
        if (nranks % s) continue;
        int t = nranks / s, ns = divisors(s, ds), nt = divisors(t, dt);
        relay_hsumma_params p[2];
        const scalars *sc[2];
        relay_exec *e[2] = {NULL, NULL};
        relay_plan *plan[2] = {NULL, NULL};
        int bad = 0;
        for (int x = 0; x < 2; x++) {
            make_case(7000 + 13 * g + 5 * x, s, t, x ? ds[ns - 1] : 1, x ? dt[nt - 1] : 1, &p[x], &sc[x]);
            p[x].m = 20 + 3 * x;
            p[x].n = 17 - x;
            p[x].k = 19 + 4 * x;
            CHECK(relay_plan_hsumma(&plan[x], &p[x]) == RELAY_OK, "interleaved: planning %d", x);
        }
        if (!all_ok(!bad)) {
            failed++;
            relay_plan_free(plan[0]);
            relay_plan_free(plan[1]);
            continue;
        }
        for (int x = 0; x < 2; x++) {
            relay_status st = relay_exec_create(&e[x], plan[x], MPI_COMM_WORLD);
            CHECK(st == RELAY_OK, "interleaved: binding %d gave %s", x, relay_status_str(st));
            relay_plan_free(plan[x]);
        }
        if (all_ok(!bad)) {
            local_mat A[2], B[2], C[2];
            unsigned char al[2][16], be[2][16];
            for (int x = 0; x < 2; x++) {
                uint64_t seed = 9000 + 10 * (uint64_t)x;
                A[x] = make_local(&p[x], p[x].m, p[x].k, seed + 1, 0);
                B[x] = make_local(&p[x], p[x].k, p[x].n, seed + 2, 0);
                C[x] = make_local(&p[x], p[x].m, p[x].n, seed + 3, !(sc[x]->has_beta && sc[x]->beta != 0));
                store(p[x].type, al[x], 0, sc[x]->alpha);
                store(p[x].type, be[x], 0, sc[x]->beta);
            }
#define ARGS(x) (void *[]){C[x].buf}, (const void *[]){A[x].buf, B[x].buf}, sc[x]->has_alpha ? al[x] : NULL, \
                sc[x]->has_beta ? be[x] : NULL
            relay_status st = relay_exec_start(e[0], ARGS(0));
            CHECK(st == RELAY_OK, "interleaved: start gave %s", relay_status_str(st));
            st = relay_exec_run(e[1], ARGS(1));
            CHECK(st == RELAY_OK, "interleaved: run gave %s", relay_status_str(st));
            st = relay_exec_wait(e[0]);
            CHECK(st == RELAY_OK, "interleaved: wait gave %s", relay_status_str(st));
#undef ARGS
            for (int x = 0; x < 2; x++) {
                char label[96];
                snprintf(label, sizeof label, "interleaved executor %d on %dx%d", x, s, t);
                CHECK(compare(&p[x], C[x].buf, sc[x], 9000 + 10 * (uint64_t)x, label) == 0, "%s: wrong result", label);
                free(A[x].buf);
                free(B[x].buf);
                free(C[x].buf);
            }
        }
        for (int x = 0; x < 2; x++)
            if (e[x]) relay_exec_free(e[x]);
        if (all_ok(!bad))
            passed++;
        else
            failed++;
        g++;
    }
}

/* Autotuning a plan made for another rank count fails on every rank. */
static void autotune_wrong_size(void)
{
    int bad = 0;
    relay_hsumma_params p;
    relay_hsumma_params_init(&p, 9, 8, 7, 1, nranks + 1, RELAY_DOUBLE);
    p.inner_block = p.outer_block = 2;
    relay_plan *plan = NULL, *sentinel = (relay_plan *)&p, *out = sentinel;
    CHECK(relay_plan_hsumma(&plan, &p) == RELAY_OK, "planning for %d ranks", nranks + 1);
    if (all_ok(!bad)) {
        relay_status st = relay_hsumma_autotune(&out, plan, MPI_COMM_WORLD, 1);
        CHECK(st != RELAY_OK && out == sentinel, "autotuning a %d-rank plan on %d ranks gave %s", nranks + 1, nranks,
              relay_status_str(st));
        if (st == RELAY_OK && out != sentinel) relay_plan_free(out);
    }
    relay_plan_free(plan);
    if (all_ok(!bad))
        passed++;
    else
        failed++;
}

static void network_measurement(void)
{
    int bad = 0;
    relay_hsumma_network net;
    memset(&net, 0, sizeof net);
    relay_status st = relay_hsumma_measure_network(MPI_COMM_WORLD, &net);
    CHECK(st == RELAY_OK, "measuring the network gave %s", relay_status_str(st));
    if (nranks >= 2)
        CHECK(net.alpha > 0 && net.beta > 0 && isfinite(net.alpha) && isfinite(net.beta),
              "measured alpha %g beta %g", net.alpha, net.beta);
    else
        CHECK(net.alpha == 0 && net.beta == 0, "1 rank: measured alpha %g beta %g, want zeros", net.alpha, net.beta);
    double v[2] = {net.alpha, net.beta}, vmin[2], vmax[2];
    MPI_Allreduce(v, vmin, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(v, vmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK(vmin[0] == vmax[0] && vmin[1] == vmax[1], "ranks measured different networks");
    if (all_ok(!bad))
        passed++;
    else
        failed++;
}

/* A plan for another rank count fails everywhere, not on some ranks. */
static void wrong_size_fails_everywhere(void)
{
    int bad = 0;
    relay_hsumma_params p;
    relay_hsumma_params_init(&p, 9, 8, 7, nranks + 1, 1, RELAY_DOUBLE);
    p.group_rows = p.group_cols = 1;
    p.inner_block = p.outer_block = 2;
    relay_plan *plan = NULL;
    relay_exec *e = NULL;
    CHECK(relay_plan_hsumma(&plan, &p) == RELAY_OK, "planning for %d ranks", nranks + 1);
    if (all_ok(!bad)) {
        relay_status st = relay_exec_create(&e, plan, MPI_COMM_WORLD);
        CHECK(st == RELAY_ERR_MISMATCH && e == NULL, "a %d-rank HSUMMA plan on %d ranks gave status %s", nranks + 1,
              nranks, relay_status_str(st));
        if (st == RELAY_OK) relay_exec_free(e);
    }
    relay_plan_free(plan);
    if (all_ok(!bad))
        passed++;
    else
        failed++;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    double t0 = MPI_Wtime();
    grid_cases();
    automatic_cases();
    interleaved_executors();
    autotune_wrong_size();
    network_measurement();
    wrong_size_fails_everywhere();
    int f = failed;
    MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("mpi_hsumma: %d ranks, %d passed, %d failed, %.1f s\n", nranks, passed, f, MPI_Wtime() - t0);
    MPI_Finalize();
    return f ? 1 : 0;
}
