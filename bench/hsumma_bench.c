/* hsumma_bench.c — SUMMA against HSUMMA over every grouping, in one job,
 * and the cost model's predictions.
 *
 *   mpiexec -n P hsumma_bench [n] [b] [R]
 *       an n x n x n double product on the most nearly square s x t grid
 *       of P ranks, inner and outer block b (the paper's b = B), every
 *       I x J grouping the grid allows (1x1 and s x t are SUMMA).  The
 *       groupings' replays are interleaved round robin, R rounds, so that
 *       the machine's drift hits all alike.  Per grouping: the median over
 *       the rounds of the slowest rank's broadcast time (communication) and
 *       replay time (total), their ratio to SUMMA, and the model's
 *       communication time with alpha and beta measured here by ping-pong.
 *   hsumma_bench --model
 *       the model's SUMMA and HSUMMA communication times against G for the
 *       paper's BlueGene/P (p = 16384, n = 65536, b = 256, alpha = 3e-6 s,
 *       beta = 1e-9 s per element) and exascale (p = 2^20, n = 2^22, b = 256,
 *       alpha = 500 ns, 100 GB/s) cases, with condition (10).
 * Prints markdown tables (docs/benchmarks.md holds the latest). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay/relay.h"

static int rank, nranks;

static void die(const char *what)
{
    fprintf(stderr, "hsumma_bench: %s: %s\n", what, relay_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- the model tables ---------------------------------------------------- */

typedef struct {
    const char *name;
    int side;            /* sqrt(p) */
    int64_t n, b;
    double alpha, beta;  /* beta per byte of a double */
} platform;

static void model_table(const platform *pf)
{
    relay_hsumma_params p;
    relay_hsumma_network net = {pf->alpha, pf->beta, RELAY_BCAST_VAN_DE_GEIJN};
    relay_hsumma_params_init(&p, pf->n, pf->n, pf->n, pf->side, pf->side, RELAY_DOUBLE);
    p.inner_block = p.outer_block = pf->b;
    double P = (double)pf->side * pf->side, ratio = pf->alpha / (pf->beta * 8), bound = 2.0 * (double)pf->n * (double)pf->b / P;
    int bi, bj;
    double summa, best;
    if (relay_hsumma_best_groups(&p, &net, &bi, &bj) || relay_hsumma_model(&p, 1, 1, &net, &summa, NULL, NULL) ||
        relay_hsumma_model(&p, bi, bj, &net, &best, NULL, NULL))
        die("the model");
    printf("\n%s: p = %.0f (%d x %d), n = %lld, b = B = %lld, alpha = %.3g s, beta = %.3g s per element\n", pf->name, P,
           pf->side, pf->side, (long long)pf->n, (long long)pf->b, pf->alpha, pf->beta * 8);
    printf("condition (10): alpha/beta = %.0f %s 2nb/p = %.0f, so the model's minimum is %s; best %d x %d groups "
           "(G = %lld): %.3f s against SUMMA's %.3f s (%.2fx)\n\n",
           ratio, ratio > bound ? ">" : "<=", bound, ratio > bound ? "inside (1, p), at G = sqrt(p)" : "at G = 1 or p", bi, bj,
           (long long)bi * bj, best, summa, summa / best);
    printf("| G | groups | latency s | bandwidth s | communication s | vs SUMMA |\n|---|---|---|---|---|---|\n");
    for (int g = 1; g <= pf->side; g *= 2) {
        double t, lat, bw;
        relay_hsumma_model(&p, g, g, &net, &t, &lat, &bw);
        printf("| %lld | %dx%d | %.3f | %.3f | %.3f | %.2fx |\n", (long long)g * g, g, g, lat, bw, t, summa / t);
        if (g * 2 <= pf->side && g * 2 * g <= pf->side * pf->side) {
            relay_hsumma_model(&p, g, 2 * g, &net, &t, &lat, &bw);
            printf("| %lld | %dx%d | %.3f | %.3f | %.3f | %.2fx |\n", (long long)g * 2 * g, g, 2 * g, lat, bw, t, summa / t);
        }
    }
}

static void model_tables(void)
{
    /* The paper's beta multiplies element counts (section IV); relay's is per byte. */
    platform bgp = {"BlueGene/P (paper section V-B)", 128, 65536, 256, 3e-6, 1e-9 / 8};
    platform exa = {"Exascale (paper section V-C)", 1024, (int64_t)1 << 22, 256, 500e-9, 1.0 / 100e9};
    model_table(&bgp);
    model_table(&exa);
}

/* ---- the measured sweep ---------------------------------------------------- */

typedef struct {
    int I, J;
    relay_exec *e;
    double *comm, *total;
} candidate;

/* The most nearly square s x t = P with s <= t. */
static void grid_of(int P, int *s, int *t)
{
    *s = 1;
    for (int d = 1; d * d <= P; d++)
        if (P % d == 0) *s = d;
    *t = P / *s;
}

static void fill(double *x, int64_t n, unsigned seed)
{
    for (int64_t i = 0; i < n; i++) x[i] = (double)((i * 7 + seed) % 17) - 8;
}

static double max_over_ranks(double v)
{
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return v;
}

static void sweep(int64_t n, int64_t b, int reps)
{
    int s, t;
    grid_of(nranks, &s, &t);
    relay_hsumma_params p;
    relay_hsumma_params_init(&p, n, n, n, s, t, RELAY_DOUBLE);
    p.inner_block = p.outer_block = b;
    relay_hsumma_network net;
    if (relay_hsumma_measure_network(MPI_COMM_WORLD, &net)) die("measuring the network");
    candidate c[64];
    int nc = 0;
    for (int I = 1; I <= s; I++)
        for (int J = 1; J <= t && nc < 64; J++) {
            if (s % I || t % J) continue;
            relay_plan *plan;
            p.group_rows = I;
            p.group_cols = J;
            c[nc] = (candidate){I, J, NULL, calloc((size_t)reps, sizeof(double)), calloc((size_t)reps, sizeof(double))};
            if (relay_plan_hsumma(&plan, &p) || relay_exec_create(&c[nc].e, plan, MPI_COMM_WORLD)) die("planning");
            relay_plan_free(plan);
            nc++;
        }
    relay_plan *probe; /* the operands' sizes do not depend on the groups */
    p.group_rows = p.group_cols = 1;
    if (relay_plan_hsumma(&probe, &p)) die("planning");
    int64_t ea = relay_plan_buffer_elems(probe, 0, 0, rank), eb = relay_plan_buffer_elems(probe, 0, 1, rank),
            ec = relay_plan_buffer_elems(probe, 1, 0, rank);
    relay_plan_free(probe);
    double *A = malloc((size_t)(ea + 1) * 8), *B = malloc((size_t)(eb + 1) * 8), *C = malloc((size_t)(ec + 1) * 8);
    fill(A, ea, 1);
    fill(B, eb, 2);
    for (int r = -1; r < reps; r++) /* round -1 warms up */
        for (int k = 0; k < nc; k++) {
            relay_hsumma_report rep;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (relay_exec_run(c[k].e, (void *[]){C}, (const void *[]){A, B}, NULL, NULL)) die("replay");
            double total = max_over_ranks(MPI_Wtime() - t0);
            relay_exec_hsumma_report(c[k].e, &rep);
            double comm = max_over_ranks(rep.comm_seconds);
            if (r >= 0) {
                c[k].total[r] = total;
                c[k].comm[r] = comm;
            }
        }
    if (rank == 0) {
        printf("\nP = %d (%d x %d grid, oversubscribed on this machine), n = %lld, b = B = %lld, %d rounds; "
               "ping-pong alpha = %.3g s, beta = %.3g s/byte\n\n",
               nranks, s, t, (long long)n, (long long)b, reps, net.alpha, net.beta);
        printf("| P (grid) | groups | G | comm s (median) | total s (median) | comm vs SUMMA | total vs SUMMA "
               "| model comm s |\n|---|---|---|---|---|---|---|---|\n");
    }
    double summa_comm = 0, summa_total = 0;
    for (int k = 0; k < nc; k++) {
        double cm = median(c[k].comm, reps), tm = median(c[k].total, reps), model;
        relay_hsumma_model(&p, c[k].I, c[k].J, &net, &model, NULL, NULL);
        if (k == 0) {
            summa_comm = cm;
            summa_total = tm;
        }
        int summa = (c[k].I == 1 && c[k].J == 1) || (c[k].I == s && c[k].J == t);
        if (rank == 0)
            printf("| %d (%dx%d) | %dx%d%s | %d | %.4f | %.4f | %.2fx | %.2fx | %.4f |\n", nranks, s, t, c[k].I, c[k].J,
                   summa ? " (SUMMA)" : "", c[k].I * c[k].J, cm, tm, summa_comm / cm, summa_total / tm, model);
        relay_exec_free(c[k].e);
        free(c[k].comm);
        free(c[k].total);
    }
    int bi, bj;
    relay_hsumma_best_groups(&p, &net, &bi, &bj);
    if (rank == 0) printf("\nmodel's choice with the measured network: %d x %d groups\n", bi, bj);
    free(A);
    free(B);
    free(C);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc > 1 && strcmp(argv[1], "--model") == 0) {
        if (rank == 0) model_tables();
    } else {
        int64_t n = argc > 1 ? atoll(argv[1]) : 2048, b = argc > 2 ? atoll(argv[2]) : 64;
        int reps = argc > 3 ? atoi(argv[3]) : 5;
        sweep(n, b, reps);
    }
    MPI_Finalize();
    return 0;
}
