/* matmul.c — C := alpha A B + beta C with the operands in the application's
 * own layouts: redistribute into the SUMMA layout, multiply with HSUMMA,
 * redistribute C back, from four plans built once and replayed each step.
 *
 * The application keeps A (m x k) in 16 x 16 blocks over a 1 x P grid, B
 * (k x n) in 8 x 24 blocks over a P x 1 grid, and C (m x n) in 32 x 32
 * blocks over a near-square grid numbered column-major.  The product runs
 * on the near-square grid in block-checkerboard layout with groups chosen
 * at bind (the cost model on a ping-pong measurement).  C's transform back
 * applies beta: C_app := 1 * C_summa + beta * C_app, with C_summa =
 * alpha A B.  Every element of C is checked against a serial product of
 * the fill formulas, over several replays with fresh inputs.
 *
 *   mpiexec -n 4 relay-matmul [m n k [replays]] */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "relay/relay.h"

static int near_square_rows(int p)
{
    int r = 1;
    for (int d = 1; d * d <= p; d++)
        if (p % d == 0) r = d;
    return r;
}

static double a_value(int64_t i, int64_t l, int step) { return (double)((3 * i + 5 * l + step) % 23) - 11; }
static double b_value(int64_t l, int64_t j, int step) { return (double)((7 * l + 2 * j + step) % 19) - 9; }
static double c_start(int64_t i, int64_t j) { return (double)((i + 4 * j) % 13) - 6; }

/* Fills this rank's part of an rows x cols matrix in layout l from f. */
static void fill(const relay_layout *l, int rank, double *x, int64_t rows, int64_t cols, double (*f)(int64_t, int64_t, int),
                 int step)
{
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            int owner;
            int64_t idx;
            relay_layout_locate(l, i, j, &owner, &idx);
            if (owner == rank) x[idx] = f ? f(i, j, step) : c_start(i, j);
        }
}

/* Elements of this rank's C that differ from alpha A B + beta C0. */
static int64_t count_wrong(const relay_layout *lc, int rank, const double *c, int64_t m, int64_t n, int64_t k, int step,
                           double alpha, double beta)
{
    int64_t wrong = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            int owner;
            int64_t idx;
            relay_layout_locate(lc, i, j, &owner, &idx);
            if (owner != rank) continue;
            double sum = 0;
            for (int64_t l = 0; l < k; l++) sum += a_value(i, l, step) * b_value(l, j, step);
            wrong += c[idx] != alpha * sum + beta * c_start(i, j);
        }
    return wrong;
}

static double *alloc_part(const relay_layout *l, int rank)
{
    int64_t n = relay_layout_local_elems(l, rank);
    return malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int64_t m = argc > 3 ? atoll(argv[1]) : 300, n = argc > 3 ? atoll(argv[2]) : 200, k = argc > 3 ? atoll(argv[3]) : 250;
    int replays = argc > 4 ? atoi(argv[4]) : 3;
    int s = near_square_rows(P), t = P / s;

    /* The application's layouts. */
    relay_layout *app_a, *app_b, *app_c;
    CHECK(relay_layout_block_cyclic(&app_a, m, k, 16, 16, 1, P, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR));
    CHECK(relay_layout_block_cyclic(&app_b, k, n, 8, 24, P, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR));
    CHECK(relay_layout_block_cyclic(&app_c, m, n, 32, 32, s, t, RELAY_COL_MAJOR, 0, 0, 0, RELAY_COL_MAJOR));

    /* Plan once: the product, then the moves into and out of its layout. */
    relay_hsumma_params hp;
    relay_plan *product, *in_a, *in_b, *out_c;
    relay_layout *summa_a, *summa_b, *summa_c;
    CHECK(relay_hsumma_params_init(&hp, m, n, k, s, t, RELAY_DOUBLE));
    hp.inner_block = 16;
    hp.outer_block = 32;
    CHECK(relay_plan_hsumma(&product, &hp));
    CHECK(relay_plan_hsumma_layout(product, 0, &summa_a));
    CHECK(relay_plan_hsumma_layout(product, 1, &summa_b));
    CHECK(relay_plan_hsumma_layout(product, 2, &summa_c));
    CHECK(relay_plan_transform(&in_a, P, summa_a, app_a, RELAY_OP_N, RELAY_DOUBLE, NULL));
    CHECK(relay_plan_transform(&in_b, P, summa_b, app_b, RELAY_OP_N, RELAY_DOUBLE, NULL));
    CHECK(relay_plan_transform(&out_c, P, app_c, summa_c, RELAY_OP_N, RELAY_DOUBLE, NULL));

    relay_exec *x_product, *x_a, *x_b, *x_c;
    CHECK(relay_exec_create(&x_product, product, MPI_COMM_WORLD));
    CHECK(relay_exec_create(&x_a, in_a, MPI_COMM_WORLD));
    CHECK(relay_exec_create(&x_b, in_b, MPI_COMM_WORLD));
    CHECK(relay_exec_create(&x_c, out_c, MPI_COMM_WORLD));
    relay_hsumma_report report;
    CHECK(relay_exec_hsumma_report(x_product, &report));

    double *a = alloc_part(app_a, rank), *b = alloc_part(app_b, rank), *c = alloc_part(app_c, rank);
    double *sa = alloc_part(summa_a, rank), *sb = alloc_part(summa_b, rank), *sc = alloc_part(summa_c, rank);
    double alpha = 0.5, beta = -2.0, one = 1.0, t_in = 0, t_mul = 0, t_out = 0;
    int64_t wrong = 0;
    for (int step = 0; step < replays; step++) {
        fill(app_a, rank, a, m, k, a_value, step);
        fill(app_b, rank, b, k, n, b_value, step);
        fill(app_c, rank, c, m, n, NULL, step);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        CHECK(relay_exec_run(x_a, (void *[]){sa}, (const void *[]){a}, NULL, NULL));
        CHECK(relay_exec_run(x_b, (void *[]){sb}, (const void *[]){b}, NULL, NULL));
        double t1 = MPI_Wtime();
        CHECK(relay_exec_run(x_product, (void *[]){sc}, (const void *[]){sa, sb}, &alpha, NULL));
        double t2 = MPI_Wtime();
        CHECK(relay_exec_run(x_c, (void *[]){c}, (const void *[]){sc}, &one, &beta));
        double t3 = MPI_Wtime();
        t_in += t1 - t0;
        t_mul += t2 - t1;
        t_out += t3 - t2;
        wrong += count_wrong(app_c, rank, c, m, n, k, step, alpha, beta);
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("C (%lldx%lld) := %.1f A B %+.1f C, k = %lld, on %d ranks: A and B in, %dx%d SUMMA grid in %dx%d groups, C out\n"
               "%d replays: %.4f s redistributing in, %.4f s multiplying, %.4f s redistributing out (rank 0); "
               "verified: %s (%lld wrong elements)\n",
               (long long)m, (long long)n, alpha, beta, (long long)k, P, s, t, report.group_rows, report.group_cols, replays,
               t_in, t_mul, t_out, wrong ? "NO" : "yes", (long long)wrong);
    free(a);
    free(b);
    free(c);
    free(sa);
    free(sb);
    free(sc);
    relay_exec_free(x_product);
    relay_exec_free(x_a);
    relay_exec_free(x_b);
    relay_exec_free(x_c);
    relay_plan_free(product);
    relay_plan_free(in_a);
    relay_plan_free(in_b);
    relay_plan_free(out_c);
    relay_layout_free(summa_a);
    relay_layout_free(summa_b);
    relay_layout_free(summa_c);
    relay_layout_free(app_a);
    relay_layout_free(app_b);
    relay_layout_free(app_c);
    MPI_Finalize();
    return wrong ? 1 : 0;
}
