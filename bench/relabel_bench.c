/* relabel_bench.c — process relabeling (COSTA section 7.2 and solver cost).
 *
 *   relabel_bench fig3            the paper's Figure 3: communication-volume
 *                                 reduction of greedy and optimal relabeling
 *   relabel_bench solver N KIND   time of the LAP solvers on N ranks, KIND
 *                                 sparse (the gains of a real redistribution)
 *                                 or dense (uniform random gains)
 *
 * Figure 3: a 10^5 x 10^5 double matrix on a 10 x 10 grid, numbered
 * row-major initially and column-major finally; target blocks 10^4 x 10^4,
 * initial blocks b x b for b from 1 to 10^4.  Only the volumes and sigma are
 * computed (the sections of b = 1 would hold 10^10 pieces). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lap.h"
#include "measure.h"
#include "planner_internal.h"
#include "relabel.h"
#include "volumes.h"

static void die(const char *what)
{
    fprintf(stderr, "relabel_bench: %s: %s\n", what, relay_last_error());
    exit(1);
}

/* A plan header (layouts, no sections) for one pair. */
static relay_plan *header_for(int nranks, relay_layout *a, relay_layout *b)
{
    relay_plan *p = rl_plan_alloc(nranks, 1);
    const relay_layout *as[1] = {a}, *bs[1] = {b};
    relay_op op = RELAY_OP_N;
    if (!p) die("allocating a plan");
    p->type = RELAY_DOUBLE;
    if (rl_plan_copy_layouts(p, as, bs, &op)) die("copying layouts");
    return p;
}

static double reduction(const rl_relabel_result *r)
{
    return r->remote_identity ? 100.0 * (double)(r->remote_identity - r->remote) / (double)r->remote_identity : 0.0;
}

static void figure3(void)
{
    const int64_t sizes[] = {1, 10, 100, 1000, 2000, 2500, 5000, 10000};
    printf("| initial block | remote bytes, identity | greedy reduction %% | optimal reduction %% | optimal s |\n"
           "|---|---|---|---|---|\n");
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        relay_layout *a, *b;
        if (relay_layout_block_cyclic(&b, 100000, 100000, sizes[k], sizes[k], 10, 10, RELAY_ROW_MAJOR, 0, 0, 0,
                                      RELAY_COL_MAJOR) ||
            relay_layout_block_cyclic(&a, 100000, 100000, 10000, 10000, 10, 10, RELAY_COL_MAJOR, 0, 0, 0, RELAY_COL_MAJOR))
            die("layouts");
        relay_plan *p = header_for(100, a, b);
        relay_plan_options o;
        rl_relabel_result greedy, optimal;
        int32_t sigma[100];
        rl_volumes v;
        relay_plan_options_init(&o);
        o.relabel = RELAY_RELABEL_OPTIMAL;
        double t0 = now();
        if (rl_volumes_compute(&v, p) || rl_relabel(&v, &o, sigma, &optimal)) die("optimal");
        double optimal_s = now() - t0;
        o.relabel = RELAY_RELABEL_GREEDY;
        if (rl_relabel(&v, &o, sigma, &greedy)) die("greedy");
        rl_volumes_free(&v);
        printf("| %lld | %lld | %.1f | %.1f | %.3f |\n", (long long)sizes[k], (long long)optimal.remote_identity,
               reduction(&greedy), reduction(&optimal), optimal_s);
        relay_plan_free(p);
        relay_layout_free(a);
        relay_layout_free(b);
    }
}

/* Gains of a real redistribution on n ranks: 32 -> 128 blocks of a
 * 100,000^2 matrix, near-square grid re-shaped and renumbered. */
static void sparse_gains(int n, rl_volumes *v)
{
    int pr = 1;
    for (int d = 1; d * d <= n; d++)
        if (n % d == 0) pr = d;
    relay_layout *a, *b;
    if (relay_layout_block_cyclic(&b, 100000, 100000, 32, 32, pr, n / pr, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR) ||
        relay_layout_block_cyclic(&a, 100000, 100000, 128, 128, n / pr, pr, RELAY_COL_MAJOR, 0, 0, 0, RELAY_COL_MAJOR))
        die("layouts");
    relay_plan *p = header_for(n, a, b);
    if (rl_volumes_compute(v, p)) die("volumes");
    relay_plan_free(p);
    relay_layout_free(a);
    relay_layout_free(b);
}

static void dense_gains(int n, rl_volumes *v)
{
    uint64_t s = 12345;
    v->n = n;
    v->start = malloc(((size_t)n + 1) * sizeof *v->start);
    v->from = malloc((size_t)n * n * sizeof *v->from);
    v->bytes = malloc((size_t)n * n * sizeof *v->bytes);
    if (!v->start || !v->from || !v->bytes) die("allocating dense gains");
    for (int x = 0; x <= n; x++) v->start[x] = (int64_t)x * n;
    for (int64_t e = 0; e < (int64_t)n * n; e++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v->from[e] = (int32_t)(e % n);
        v->bytes[e] = 1 + (int64_t)(s >> 33) % 1000000;
    }
}

static void solver(int n, const char *kind)
{
    rl_volumes v;
    memset(&v, 0, sizeof v);
    if (strcmp(kind, "dense") == 0) dense_gains(n, &v);
    else sparse_gains(n, &v);
    rl_gain_matrix g = {n, v.start, v.from, v.bytes};
    int32_t *opt = malloc((size_t)n * sizeof *opt), *gr = malloc((size_t)n * sizeof *gr);
    double t0 = now();
    if (rl_lap_optimal(&g, opt)) die("optimal");
    double t1 = now();
    if (rl_lap_greedy(&g, gr)) die("greedy");
    double t2 = now();
    int64_t go = rl_lap_gain(&g, opt), gg = rl_lap_gain(&g, gr);
    printf("| %d | %s | %lld | %.3f | %.3f | %.4f | %.0f |\n", n, kind, (long long)v.start[n], t1 - t0, t2 - t1,
           go ? (double)gg / (double)go : 1.0, peak_rss_mib());
    free(opt);
    free(gr);
    rl_volumes_free(&v);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "fig3") == 0) figure3();
    else if (argc == 4 && strcmp(argv[1], "solver") == 0) solver(atoi(argv[2]), argv[3]);
    else {
        fprintf(stderr, "usage: relabel_bench fig3 | relabel_bench solver N sparse|dense\n");
        return 2;
    }
    return 0;
}
