/* hsumma_check.c — whether HSUMMA parameters can be planned and replayed:
 * the shape (type, sizes, grid, groups, blocks, distribution, network) and
 * the counts that follow from it (every local size and panel within the
 * int counts of MPI and CBLAS, the statistics within int64, the steps of
 * one replay within a bound).  The planner checks what it is given, the
 * decoder what it reads, and the executor what it binds. */
#include <math.h>

#include "codec.h"
#include "error.h"
#include "hsumma_check.h"
#include "hsumma_dist.h"

enum {
    MAX_DIM_LOG = 40,          /* m, n, k, blocks: at most 2^40 */
    MAX_STEPS_LOG = 22         /* inner steps of one replay: at most 2^22 (walking ten times more to
                                  recompute a plan's statistics outlasts the fuzzer's limit per input
                                  under the sanitizers) */
};
#define MAX_DIM ((int64_t)1 << MAX_DIM_LOG)

static int bad_size(int64_t v) { return v < 0 || v > MAX_DIM; }

/* An upper bound on the inner steps of one replay, in floating point so it
 * cannot overflow: an outer step of width w has ceil(w / b) <= w / b + 1
 * inner steps, so there are at most ceil(k/b) + outer steps, and outer
 * steps are bounded by ceil(k/B) plus the owner changes along k in A's
 * columns and B's rows. */
static double step_bound(const relay_hsumma_params *p)
{
    double k = (double)p->k;
    double changes = p->dist == RELAY_HSUMMA_BLOCK_CYCLIC ? 2 * ceil(k / (double)p->dist_block)
                                                           : (double)p->grid_rows + p->grid_cols;
    return ceil(k / (double)p->inner_block) + ceil(k / (double)p->outer_block) + changes;
}

relay_status rl_hsumma_check_shape(const relay_hsumma_params *p, relay_status code)
{
    if (p->type < RELAY_FLOAT || p->type > RELAY_CDOUBLE) return rl_fail(code, "HSUMMA: element type %d is not one of s, d, c, z", (int)p->type);
    if (bad_size(p->m) || bad_size(p->n) || bad_size(p->k))
        return rl_fail(code, "HSUMMA: m, n, k = %lld, %lld, %lld must lie in [0, 2^%d]", (long long)p->m, (long long)p->n,
                       (long long)p->k, MAX_DIM_LOG);
    if (p->grid_rows < 1 || p->grid_cols < 1 || (int64_t)p->grid_rows * p->grid_cols > RELAY_MAX_RANKS)
        return rl_fail(code, "HSUMMA: a %d x %d grid is not a grid of 1 to %d ranks", p->grid_rows, p->grid_cols, RELAY_MAX_RANKS);
    if (p->group_rows || p->group_cols) {
        if (p->group_rows < 1 || p->group_cols < 1 || p->grid_rows % p->group_rows || p->grid_cols % p->group_cols)
            return rl_fail(code, "HSUMMA: %d x %d groups do not tile the %d x %d grid (group rows must divide grid rows and "
                                 "group columns grid columns; 0 x 0 chooses them)",
                           p->group_rows, p->group_cols, p->grid_rows, p->grid_cols);
    }
    if (p->inner_block < 1 || p->outer_block < p->inner_block || p->outer_block > MAX_DIM)
        return rl_fail(code, "HSUMMA: blocks b = %lld and B = %lld need 1 <= b <= B <= 2^%d", (long long)p->inner_block,
                       (long long)p->outer_block, MAX_DIM_LOG);
    if (p->dist != RELAY_HSUMMA_CHECKERBOARD && p->dist != RELAY_HSUMMA_BLOCK_CYCLIC)
        return rl_fail(code, "HSUMMA: distribution %d is neither checkerboard nor block-cyclic", (int)p->dist);
    if (p->dist == RELAY_HSUMMA_BLOCK_CYCLIC && (p->dist_block < 1 || p->dist_block > MAX_DIM))
        return rl_fail(code, "HSUMMA: block-cyclic block size %lld is not in [1, 2^%d]", (long long)p->dist_block, MAX_DIM_LOG);
    const relay_hsumma_network *net = &p->network;
    if (!isfinite(net->alpha) || !isfinite(net->beta) || net->alpha < 0 || net->beta < 0 ||
        (net->bcast != RELAY_BCAST_VAN_DE_GEIJN && net->bcast != RELAY_BCAST_BINOMIAL))
        return rl_fail(code, "HSUMMA: network parameters need alpha, beta >= 0 and a known broadcast model");
    return RELAY_OK;
}

/* Whether a * b fits an MPI or CBLAS int count. */
static int exceeds_int(int64_t a, int64_t b)
{
    int64_t v;
    return rl_mul_overflows(a, b, &v) || v > INT32_MAX;
}

/* The plan's statistics must fit int64: bytes_total is at most
 * k esz (m (t + 1) + n (s + 1)) (every panel once per receiver, plus the
 * owners' copies), which also bounds every rank's traffic and C's bytes. */
static int bytes_overflow(const relay_hsumma_params *p)
{
    int64_t a, b, v;
    return rl_mul_overflows(p->m, (int64_t)p->grid_cols + 1, &a) || rl_mul_overflows(p->n, (int64_t)p->grid_rows + 1, &b) ||
           rl_add_overflows(a, b, &v) || rl_add_overflows(v, p->m, &v) || rl_mul_overflows(v, p->k, &v) ||
           rl_mul_overflows(v, (int64_t)relay_type_size(p->type), &v) || rl_mul_overflows(p->m, p->n, &v) ||
           rl_mul_overflows(v, (int64_t)relay_type_size(p->type), &v);
}

/* Local sizes and panels must fit CBLAS's and MPI's int counts, and the
 * statistics int64. */
static relay_status check_counts(const relay_hsumma_params *p, relay_status code)
{
    rl_hsumma_dims d;
    rl_hsumma_dims_of(p, &d);
    int64_t mloc = rl_dim_max_local_len(&d.m), nloc = rl_dim_max_local_len(&d.n), width = rl_hsumma_max_width(p);
    int64_t ka = rl_dim_max_local_len(&d.ka), kb = rl_dim_max_local_len(&d.kb);
    if (mloc > INT32_MAX || nloc > INT32_MAX || ka > INT32_MAX || kb > INT32_MAX || exceeds_int(mloc, width) ||
        exceeds_int(nloc, width))
        return rl_fail(code, "HSUMMA: a rank's part (%lld x %lld of C) or an outer panel of %lld exceeds the int counts of "
                             "MPI and CBLAS; use more ranks or a smaller B", (long long)mloc, (long long)nloc, (long long)width);
    if (bytes_overflow(p)) return rl_fail(code, "HSUMMA: the matrices are too large to count their bytes in 64 bits");
    if (step_bound(p) > (double)((int64_t)1 << MAX_STEPS_LOG))
        return rl_fail(code, "HSUMMA: up to %.3g steps per replay (k/b + k/B + owner changes) exceed 2^%d; raise b, B or "
                             "the block-cyclic block",
                       step_bound(p), MAX_STEPS_LOG);
    return RELAY_OK;
}

relay_status rl_hsumma_check(const relay_hsumma_params *p, relay_status code)
{
    relay_status st = rl_hsumma_check_shape(p, code);
    return st ? st : check_counts(p, code);
}

