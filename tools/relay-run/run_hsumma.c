/* run_hsumma.c — relay-run's fill functions and check for HSUMMA plans.
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

#include "hsumma_dist.h"
#include "run_hsumma.h"

static double complex a_value(int64_t i, int64_t l, int cplx)
{
    return (double)((7 * i + 13 * l) % 61 - 30) + (cplx ? I * (double)((3 * i + 5 * l) % 29 - 14) : 0);
}

static double complex b_value(int64_t l, int64_t j, int cplx)
{
    return (double)((5 * l + 11 * j) % 53 - 26) + (cplx ? I * (double)((2 * l + 7 * j) % 31 - 15) : 0);
}

static void store(void *buf, relay_type t, int64_t idx, double complex v)
{
    switch (t) {
    case RELAY_FLOAT: ((float *)buf)[idx] = (float)creal(v); break;
    case RELAY_DOUBLE: ((double *)buf)[idx] = creal(v); break;
    case RELAY_CFLOAT: ((float complex *)buf)[idx] = (float complex)v; break;
    case RELAY_CDOUBLE: ((double complex *)buf)[idx] = v; break;
    }
}

static double complex load(const void *buf, relay_type t, int64_t idx)
{
    switch (t) {
    case RELAY_FLOAT: return ((const float *)buf)[idx];
    case RELAY_DOUBLE: return ((const double *)buf)[idx];
    case RELAY_CFLOAT: return ((const float complex *)buf)[idx];
    default: return ((const double complex *)buf)[idx];
    }
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
            store(buf, t, r + c * rows, is_a ? a_value(gi, gj, cplx) : b_value(gi, gj, cplx));
        }
}

static void *alloc_elems(int64_t elems, relay_type t) { return malloc((size_t)(elems > 0 ? elems : 1) * relay_type_size(t)); }

int run_hsumma_buffers(const relay_plan *p, int rank, void **a, void **b, void **c)
{
    relay_hsumma_info info;
    rl_hsumma_dims d;
    relay_plan_hsumma_info(p, &info);
    rl_hsumma_dims_of(&info.params, &d);
    relay_type t = info.params.type;
    int row = rank / info.params.grid_cols, col = rank % info.params.grid_cols;
    int64_t nc = rl_hsumma_local_elems(&info.params, 2, rank);
    *a = alloc_elems(rl_hsumma_local_elems(&info.params, 0, rank), t);
    *b = alloc_elems(rl_hsumma_local_elems(&info.params, 1, rank), t);
    *c = alloc_elems(nc, t);
    if (!*a || !*b || !*c) return 0;
    fill(*a, t, &d.m, row, &d.ka, col, 1);
    fill(*b, t, &d.kb, row, &d.n, col, 0);
    for (int64_t x = 0; x < nc; x++) store(*c, t, x, NAN + I * NAN);
    return 1;
}

int64_t run_hsumma_check(const relay_plan *p, int rank, const void *c, int64_t *checked, char *first, size_t cap)
{
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
            double complex got = load(c, t, li + lj * rows);
            if (cabs(got - want) <= 4 * eps * (double)info.params.k * magnitude) continue; /* NaN fails too */
            if (wrong++ == 0)
                snprintf(first, cap, "C(%lld, %lld) holds %g%+gi instead of %g%+gi", (long long)i, (long long)j, creal(got),
                         cimag(got), creal(want), cimag(want));
        }
    *checked = rows * cols;
    return wrong;
}
