/* resize.c — an iterative solver that grows and shrinks while it runs
 * (ReSHAPE, Sudarsan and Ribbens), redistributing its block-cyclic matrix with cached
 * relay plans at every resize.
 *
 * The job holds 8 ranks; the solver runs on a changing subset of them:
 * 4 (2x2) -> 8 (2x4) -> 6 (2x3) -> 4 (2x2), twice round, so the second
 * round replays the plans the first one made.  Its state is an n x n
 * matrix A, 2-D block-cyclic (nb x nb blocks) on the active grid, and a
 * vector x replicated on every rank.  One iteration is a time step
 *   A := s_k * A + t_k  (element-wise),  y := A x,  x := y / |y|,
 * the product summed over the active ranks' local blocks (MPI_Allreduce).
 * Inactive ranks own nothing and still take part in the collectives.
 *
 * After every resize each rank checks every element it now owns against
 * the closed form of A after k steps, and after every product it checks y
 * against a serial product: any wrong element fails the run.  Printed per
 * resize: the grids, whether the plan came from the cache, its schedule
 * and steps, and the redistribution time (maximum over ranks).
 *
 *   mpiexec -n 8 relay-resize [n] [nb] [iterations per phase] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "relay/relay.h"


enum { RANKS = 8, PHASES = 8, MAX_PLANS = 8 };
static const int phase_grid[PHASES][2] = {{2, 2}, {2, 4}, {2, 3}, {2, 2}, {2, 4}, {2, 3}, {2, 2}, {2, 4}};

/* ---- the solver's state -------------------------------------------------- */

typedef struct {
    int64_t n, nb;
    int rank;
    relay_layout *layout;    /* A's layout on the active grid, over RANKS ranks */
    double *a;               /* this rank's blocks of A */
    double *x, *y;           /* replicated */
    int steps;               /* time steps A has taken */
} solver;

static double a0(int64_t i, int64_t j) { return 1.0 / (double)(1 + i + 2 * j) + (i == j); }
static double step_scale(int k) { return 1.0 + 1.0 / (k + 2); }
static double step_shift(int k) { return 0.001 * (k % 3); }

/* A(i, j) after `steps` time steps, in the order the solver applies them. */
static double a_after(int64_t i, int64_t j, int steps)
{
    double v = a0(i, j);
    for (int k = 0; k < steps; k++) v = step_scale(k) * v + step_shift(k);
    return v;
}

static relay_layout *grid_layout(const solver *s, int pr, int pc)
{
    relay_layout *l;
    CHECK(relay_layout_block_cyclic(&l, s->n, s->n, s->nb, s->nb, pr, pc, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR));
    return l;
}

/* Calls fn(i, j, offset) for every element this rank owns. */
#define FOR_OWNED(s, body)                                                      \
    for (int64_t j = 0; j < (s)->n; j++)                                        \
        for (int64_t i = 0; i < (s)->n; i++) {                                  \
            int owner_;                                                         \
            int64_t off;                                                        \
            relay_layout_locate((s)->layout, i, j, &owner_, &off);              \
            if (owner_ != (s)->rank) continue;                                  \
            body;                                                               \
        }

static void time_step(solver *s)
{
    double sc = step_scale(s->steps), sh = step_shift(s->steps);
    int64_t local = relay_layout_local_elems(s->layout, s->rank);
    for (int64_t k = 0; k < local; k++) s->a[k] = sc * s->a[k] + sh;
    s->steps++;
    memset(s->y, 0, (size_t)s->n * sizeof *s->y);
    FOR_OWNED(s, s->y[i] += s->a[off] * s->x[j]);
    MPI_Allreduce(MPI_IN_PLACE, s->y, (int)s->n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

/* y against the serial product with the closed-form A; then x := y / |y|. */
static int64_t check_product_and_normalise(solver *s)
{
    int64_t wrong = 0;
    double norm = 0;
    for (int64_t i = 0; i < s->n; i++) {
        double ref = 0;
        for (int64_t j = 0; j < s->n; j++) ref += a_after(i, j, s->steps) * s->x[j];
        wrong += fabs(ref - s->y[i]) > 1e-9 * (1 + fabs(ref));
        norm += s->y[i] * s->y[i];
    }
    for (int64_t i = 0; i < s->n; i++) s->x[i] = s->y[i] / sqrt(norm);
    return wrong;
}

static int64_t check_matrix(const solver *s)
{
    int64_t wrong = 0;
    FOR_OWNED(s, wrong += s->a[off] != a_after(i, j, s->steps));
    return wrong;
}

/* ---- resizing with cached plans -------------------------------------------- */

typedef struct {
    int from[2], to[2];
    int rounds;              /* communication steps of the plan */
    relay_exec *exec;
} cached_plan;

static cached_plan cache[MAX_PLANS];
static int ncached;

/* The bound plan of a resize: from the cache, or planned (rounds schedule:
 * ReSHAPE's steps) and bound now. */
static const cached_plan *plan_for(const solver *s, const int from[2], const int to[2], int *was_cached)
{
    for (int k = 0; k < ncached; k++)
        if (!memcmp(cache[k].from, from, sizeof cache[k].from) && !memcmp(cache[k].to, to, sizeof cache[k].to)) {
            *was_cached = 1;
            return &cache[k];
        }
    relay_layout *src = grid_layout(s, from[0], from[1]), *dst = grid_layout(s, to[0], to[1]);
    relay_plan *plan;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = RELAY_SCHED_ROUNDS;
    CHECK(relay_plan_transform(&plan, RANKS, dst, src, RELAY_OP_N, RELAY_DOUBLE, &o));
    cached_plan *c = &cache[ncached++];
    memcpy(c->from, from, sizeof c->from);
    memcpy(c->to, to, sizeof c->to);
    c->rounds = relay_plan_rounds(plan);
    CHECK(relay_exec_create(&c->exec, plan, MPI_COMM_WORLD));
    relay_plan_free(plan);
    relay_layout_free(src);
    relay_layout_free(dst);
    *was_cached = 0;
    return c;
}

static double *alloc_elems(int64_t n) { return calloc((size_t)(n > 0 ? n : 1), sizeof(double)); }

/* Moves A to the new grid; returns the slowest rank's time. */
static double resize(solver *s, const int from[2], const int to[2], int *was_cached, int *rounds)
{
    const cached_plan *c = plan_for(s, from, to, was_cached);
    relay_exec *e = c->exec;
    *rounds = c->rounds;
    relay_layout *next = grid_layout(s, to[0], to[1]);
    double *a = alloc_elems(relay_layout_local_elems(next, s->rank));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    CHECK(relay_exec_run(e, (void *const[]){a}, (const void *const[]){s->a}, NULL, NULL));
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    free(s->a);
    relay_layout_free(s->layout);
    s->a = a;
    s->layout = next;
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    solver s = {argc > 1 ? atoll(argv[1]) : 600, argc > 2 ? atoll(argv[2]) : 16, 0, NULL, NULL, NULL, NULL, 0};
    int iterations = argc > 3 ? atoi(argv[3]) : 3, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != RANKS || s.n < 1 || s.nb < 1 || iterations < 1) {
        if (s.rank == 0) fprintf(stderr, "usage: mpiexec -n %d relay-resize [n] [nb] [iterations per phase]\n", RANKS);
        MPI_Finalize();
        return 2;
    }
    s.layout = grid_layout(&s, phase_grid[0][0], phase_grid[0][1]);
    s.a = alloc_elems(relay_layout_local_elems(s.layout, s.rank));
    s.x = malloc((size_t)s.n * sizeof *s.x);
    s.y = malloc((size_t)s.n * sizeof *s.y);
    for (int64_t i = 0; i < s.n; i++) s.x[i] = 1.0 / sqrt((double)s.n);
    FOR_OWNED(&s, s.a[off] = a0(i, j));

    int64_t wrong = 0;
    int rounds = 0;
    for (int phase = 0; phase < PHASES; phase++) {
        if (phase > 0) {
            int cached;
            double t = resize(&s, phase_grid[phase - 1], phase_grid[phase], &cached, &rounds);
            int64_t bad = check_matrix(&s);
            MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
            wrong += bad;
            if (s.rank == 0)
                printf("resize %dx%d -> %dx%d: %s plan, %d steps, %.3f ms, %lld wrong elements\n", phase_grid[phase - 1][0],
                       phase_grid[phase - 1][1], phase_grid[phase][0], phase_grid[phase][1], cached ? "cached" : "new ",
                       rounds, 1e3 * t, (long long)bad);
        }
        for (int it = 0; it < iterations; it++) {
            time_step(&s);
            wrong += check_product_and_normalise(&s);
        }
    }
    if (s.rank == 0) printf("relay-resize: %d resizes of a %lld x %lld matrix on 8 ranks, state %s\n", PHASES - 1, (long long)s.n,
                            (long long)s.n, wrong ? "WRONG" : "verified");
    for (int k = 0; k < ncached; k++) relay_exec_free(cache[k].exec);
    relay_layout_free(s.layout);
    free(s.a);
    free(s.x);
    free(s.y);
    MPI_Finalize();
    return wrong ? 1 : 0;
}
