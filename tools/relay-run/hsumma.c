/* hsumma.c — relay-run's fill functions and check for HSUMMA plans, and
 * its autotune and report.
 *
 *   A(i, l) = (7 i + 13 l) mod 61 - 30  +  i ((3 i + 5 l) mod 29 - 14)
 *   B(l, j) = (5 l + 11 j) mod 53 - 26  +  i ((2 l + 7 j) mod 31 - 15)
 * (imaginary parts for complex types only).  C starts as NaN and the replay
 * computes C := A B (alpha 1, beta 0, so C is never read).  Every element
 * of C this rank holds is compared with the sum over l computed here in
 * double precision, within k * 4 epsilon of the sum of the terms' magnitudes
 * (exact for doubles while that sum stays below 2^53). */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "hsumma_dist.h"
#include "run.h"

static double complex a_value(int64_t i, int64_t l, int cplx)
{
    return (double)((7 * i + 13 * l) % 61 - 30) + (cplx ? I * (double)((3 * i + 5 * l) % 29 - 14) : 0);
}

static double complex b_value(int64_t l, int64_t j, int cplx)
{
    return (double)((5 * l + 11 * j) % 53 - 26) + (cplx ? I * (double)((2 * l + 7 * j) % 31 - 15) : 0);
}

/* Fills a rows x cols column-major local part whose global indices come
 * from two distributed dimensions. */
static void fill(void *buf, relay_type t, const rl_dim *rd, int rpart, const rl_dim *cd, int cpart, int is_a)
{
    int cplx = t == RELAY_CFLOAT || t == RELAY_CDOUBLE;
    int64_t rows = rl_dim_local_len(rd, rpart), cols = rl_dim_local_len(cd, cpart);
    for (int64_t c = 0; c < cols; c++)
        for (int64_t r = 0; r < rows; r++) {
            int64_t gi = rl_dim_global(rd, rpart, r), gj = rl_dim_global(cd, cpart, c);
            run_store(buf, t, r + c * rows, is_a ? a_value(gi, gj, cplx) : b_value(gi, gj, cplx));
        }
}

/* The operands A and B in b[0] and b[1], C in a[0], all NaN. */
int prepare_hsumma(const relay_plan *p, int rank, run_buffers *buf, cli_error *e)
{
    relay_hsumma_info info;
    rl_hsumma_dims d;
    relay_plan_hsumma_info(p, &info);
    rl_hsumma_dims_of(&info.params, &d);
    relay_type t = info.params.type;
    int row = rank / info.params.grid_cols, col = rank % info.params.grid_cols;
    int64_t na = rl_hsumma_local_elems(&info.params, 0, rank), nb = rl_hsumma_local_elems(&info.params, 1, rank),
            nc = rl_hsumma_local_elems(&info.params, 2, rank);
    if (run_buffers_init(buf, 2, e)) return e->status;
    buf->b[0] = run_alloc(na, relay_type_size(t));
    buf->b[1] = run_alloc(nb, relay_type_size(t));
    buf->a[0] = run_alloc(nc, relay_type_size(t));
    if (!buf->b[0] || !buf->b[1] || !buf->a[0])
        return cli_fail(e, CLI_FAILED, "rank %d cannot allocate its parts of A, B and C: %lld, %lld and %lld elements of %zu bytes",
                        rank, (long long)na, (long long)nb, (long long)nc, relay_type_size(t));
    fill(buf->b[0], t, &d.m, row, &d.ka, col, 1);
    fill(buf->b[1], t, &d.kb, row, &d.n, col, 0);
    for (int64_t x = 0; x < nc; x++) run_store(buf->a[0], t, x, CMPLX(NAN, NAN));
    return CLI_OK;
}

int64_t check_hsumma(const relay_plan *p, int rank, const run_buffers *buf, int64_t *checked, char *first, size_t cap)
{
    const void *c = buf->a[0];
    relay_hsumma_info info;
    rl_hsumma_dims d;
    relay_plan_hsumma_info(p, &info);
    rl_hsumma_dims_of(&info.params, &d);
    relay_type t = info.params.type;
    int cplx = t == RELAY_CFLOAT || t == RELAY_CDOUBLE, row = rank / info.params.grid_cols, col = rank % info.params.grid_cols;
    double eps = t == RELAY_FLOAT || t == RELAY_CFLOAT ? FLT_EPSILON : DBL_EPSILON;
    int64_t rows = rl_dim_local_len(&d.m, row), cols = rl_dim_local_len(&d.n, col), wrong = 0;
    for (int64_t lj = 0; lj < cols; lj++)
        for (int64_t li = 0; li < rows; li++) {
            int64_t i = rl_dim_global(&d.m, row, li), j = rl_dim_global(&d.n, col, lj);
            double complex want = 0;
            double magnitude = 0;
            for (int64_t l = 0; l < info.params.k; l++) {
                double complex term = a_value(i, l, cplx) * b_value(l, j, cplx);
                want += term;
                magnitude += cabs(term);
            }
            double complex got = run_load(c, t, li + lj * rows);
            if (cabs(got - want) <= 4 * eps * (double)info.params.k * magnitude) continue; /* NaN fails too */
            if (wrong++ == 0)
                snprintf(first, cap, "C(%lld, %lld) holds %g%+gi instead of %g%+gi", (long long)i, (long long)j, creal(got),
                         cimag(got), creal(want), cimag(want));
        }
    *checked = rows * cols;
    return wrong;
}

/* ---- autotune and report ---------------------------------------------------- */

int autotune_hsumma(relay_plan **plan, const char *out, int rank, cli_error *e)
{
    relay_plan *tuned = NULL;
    relay_status st = relay_hsumma_autotune(&tuned, *plan, MPI_COMM_WORLD, 2);
    if (st) return cli_fail_relay(e, CLI_FAILED, st, "--tune");
    relay_plan_free(*plan);
    *plan = tuned;
    st = rank == 0 ? relay_plan_save(tuned, out) : RELAY_OK;
    return st ? cli_fail_relay(e, CLI_FAILED, st, "--tune: cannot write the tuned plan") : CLI_OK;
}

int report_hsumma(const relay_exec *x, relay_hsumma_report *report)
{
    if (relay_exec_hsumma_report(x, report) != RELAY_OK) return 0;
    double mine[2] = {report->comm_seconds, report->compute_seconds}, slowest[2];
    MPI_Allreduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    report->comm_seconds = slowest[0];
    report->compute_seconds = slowest[1];
    return 1;
}
