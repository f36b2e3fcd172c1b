/* relay/hsumma.h — SUMMA and hierarchical SUMMA (HSUMMA, Quintin et al.):
 * C := alpha * A * B + beta * C on an s x t process grid, planned once.
 *
 * A is m x k, B is k x n, C is m x n.  Rank r sits at grid row r / t and
 * grid column r % t (row-major, BLACS order 'R').  Every matrix is cut the
 * same way along its two dimensions, rows over the s grid rows and columns
 * over the t grid columns:
 *   RELAY_HSUMMA_CHECKERBOARD  one contiguous block per rank (the paper's
 *                              block-checkerboard): a dimension of length L
 *                              over q parts gives part i the indices from
 *                              i*(L/q) + min(i, L%q), the first L%q parts
 *                              one more than the others;
 *   RELAY_HSUMMA_BLOCK_CYCLIC  ScaLAPACK's block-cyclic distribution with
 *                              square blocks of dist_block, first block on
 *                              grid row 0 and column 0 (the paper's future
 *                              work).
 * Each rank stores its part of A, B and C column-major with the leading
 * dimension equal to its local row count (ScaLAPACK's numroc), as
 * relay_plan_hsumma_layout describes for use with relay_plan_transform.
 *
 * The k dimension is consumed in steps.  An outer step takes at most B
 * (outer_block) columns of A and rows of B that one grid column of A and
 * one grid row of B hold; it is broadcast first between groups.  It is then
 * consumed in inner steps of at most b (inner_block), broadcast inside each
 * group and multiplied into C with one CBLAS gemm.  The grid is arranged in
 * I x J groups (group_rows x group_cols) of (s/I) x (t/J) ranks.  I = J = 1
 * and I = s, J = t are both plain SUMMA.
 *
 * relay_exec_create (relay/exec.h) binds an HSUMMA plan like any plan; it
 * builds the four communicators of Algorithm 1 (between-group row and
 * column, in-group row and column).  exec.h also has the network
 * measurement, the autotuner and an executor's report, which need MPI.
 * A replay is
 *     relay_exec_run(e, (void *[]){C}, (const void *[]){A, B}, &alpha, &beta)
 * with alpha and beta of the plan's type (NULL: 1 and 0; beta 0 never reads
 * C).  A, B and C must not overlap. */
#ifndef RELAY_HSUMMA_H
#define RELAY_HSUMMA_H

#include <stdint.h>

#include "relay/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { RELAY_HSUMMA_CHECKERBOARD, RELAY_HSUMMA_BLOCK_CYCLIC } relay_hsumma_dist;

/* Where a plan's groups came from. */
typedef enum {
    RELAY_GROUPS_GIVEN,     /* the caller named I x J */
    RELAY_GROUPS_MODEL,     /* the cost model, with network parameters given at planning */
    RELAY_GROUPS_AT_BIND,   /* not fixed: relay_exec_create measures the network and applies the model */
    RELAY_GROUPS_AUTOTUNE   /* timed by relay_hsumma_autotune */
} relay_hsumma_groups_from;

/* Broadcast cost models of section IV: T(m, q) = L(q) alpha + m W(q) beta. */
typedef enum {
    RELAY_BCAST_VAN_DE_GEIJN,  /* L = log2 q + q - 1, W = 2 (q-1)/q (Table II) */
    RELAY_BCAST_BINOMIAL       /* L = W = log2 q (Table I) */
} relay_bcast_model;

/* Hockney's parameters: latency (seconds) and reciprocal bandwidth (seconds
 * per byte), and the broadcast model. */
typedef struct {
    double alpha;
    double beta;
    relay_bcast_model bcast;
} relay_hsumma_network;

typedef struct {
    int64_t m, n, k;              /* C is m x n, A m x k, B k x n; any may be 0 */
    int grid_rows, grid_cols;     /* s x t = the plan's rank count */
    int group_rows, group_cols;   /* I x J, I dividing s and J dividing t; 0 x 0: automatic */
    int64_t inner_block;          /* b >= 1 */
    int64_t outer_block;          /* B >= b */
    relay_hsumma_dist dist;
    int64_t dist_block;           /* block-cyclic only: the distribution's block size */
    relay_type type;
    /* Automatic groups: with network.alpha > 0 and network.beta > 0 the
     * planner applies the cost model now; otherwise relay_exec_create
     * measures alpha and beta by ping-pong and applies it at bind. */
    relay_hsumma_network network;
} relay_hsumma_params;

/* Fills p for an m x n x k product of type t on an s x t grid: automatic
 * groups chosen at bind, b = B = 64, checkerboard, dist_block 64,
 * Van de Geijn broadcasts. */
RELAY_API relay_status relay_hsumma_params_init(relay_hsumma_params *p, int64_t m, int64_t n, int64_t k,
        int grid_rows, int grid_cols, relay_type type);

/* Plans C := alpha A B + beta C on grid_rows * grid_cols ranks.  Bad shapes
 * (a group count that does not divide the grid, b > B, negative sizes, a
 * panel above MPI's int count) fail with RELAY_ERR_ARG and a message. */
RELAY_API relay_status relay_plan_hsumma(relay_plan **out, const relay_hsumma_params *params);

/* The parameters of an HSUMMA plan, with its groups as planned (0 x 0 when
 * chosen at bind) and where they came from; step counts of one replay. */
typedef struct {
    relay_hsumma_params params;
    relay_hsumma_groups_from groups_from;
    int64_t outer_steps, inner_steps;
} relay_hsumma_info;
RELAY_API relay_status relay_plan_hsumma_info(const relay_plan *p, relay_hsumma_info *info);

/* The layout of one operand (0 = A, 1 = B, 2 = C) over the plan's ranks,
 * for relay_plan_transform into or out of the SUMMA distribution.  Free it
 * with relay_layout_free. */
RELAY_API relay_status relay_plan_hsumma_layout(const relay_plan *p, int which, relay_layout **out);

/* The model's communication time of one replay with I x J groups (section
 * IV generalised to s x t grids, m x n x k and outer and inner blocks; for
 * square grids, b = B and square groups it is Table I or II exactly):
 * per outer step, A's panel broadcast over J ranks and B's over I; per
 * inner step, over t/J and s/I ranks; message sizes are the average local
 * panel.  latency and bandwidth may be NULL. */
RELAY_API relay_status relay_hsumma_model(const relay_hsumma_params *p, int group_rows, int group_cols,
        const relay_hsumma_network *net, double *seconds, double *latency, double *bandwidth);
/* The I x J that minimises the model (ties go to fewer groups, so SUMMA
 * wins when nothing beats it). */
RELAY_API relay_status relay_hsumma_best_groups(const relay_hsumma_params *p, const relay_hsumma_network *net,
        int *group_rows, int *group_cols);

#ifdef __cplusplus
}
#endif
#endif
