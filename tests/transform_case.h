/* transform_case.h — the transform case that the tests replaying transform
 * plans share (mpi_transform.c, test_device_walks.c, gpu_replays.c): pairs
 * of reference layouts with their ops, the element type, the scalars and
 * the plan's options; the plan made from it through relay's public API, A's
 * reference layouts under the plan's relabeling, what the serial reference
 * computes for each pair and the values a replay starts from, and the small
 * builders the tests' lists of cases use.  Public API and the reference
 * only (reference.h, ref_buffer.h). */
#ifndef RELAY_TESTS_TRANSFORM_CASE_H
#define RELAY_TESTS_TRANSFORM_CASE_H

#include <complex.h>
#include <stddef.h>
#include <stdint.h>

#include "ref_buffer.h"
#include "reference.h"
#include "relay/relay.h"

enum { CASE_MAX_PAIRS = 3 };

typedef struct {
    char name[96];
    int nranks;                     /* the ranks it is planned for */
    int count;                      /* transform pairs */
    int batched;                    /* planned with relay_plan_transform_batch */
    ref_layout dst[CASE_MAX_PAIRS], src[CASE_MAX_PAIRS];
    relay_op ops[CASE_MAX_PAIRS];
    relay_type type;
    double complex alpha, beta;
    int alpha_null, beta_null;      /* pass NULL: alpha means 1, beta means 0 */
    relay_relabel relabel;
    relay_schedule schedule;
    int64_t max_buffer_bytes;       /* the plan's memory cap, 0 for none */
} transform_case;

/* ---- a case ---- */

/* No pairs yet, no relabeling, schedule auto, no memory cap. */
void case_init(transform_case *tc, const char *name, int nranks, relay_type type, double complex alpha,
               double complex beta);
/* Adds A := op(B) with A in dst, B in src (the case owns both); batched
 * from the second pair on. */
void case_add_pair(transform_case *tc, ref_layout dst, ref_layout src, relay_op op);
/* Adds a pair of random layouts (ref_random_layout, up to tc->nranks
 * ranks) for an m x n A, drawn from rng: A's, then B's. */
void case_add_random_pair(transform_case *tc, ref_rng *rng, relay_op op, int64_t m, int64_t n);
void case_free(transform_case *tc);
/* Each pair's op and layouts, one line each, every line after `indent`. */
void case_print_pairs(const transform_case *tc, const char *indent);

/* ---- its plan ---- */

/* Plans the case on tc->nranks ranks with its options, relay's layouts
 * built from the reference layouts' recipes (and freed again).  On failure
 * *plan is NULL and why (why_size bytes) says what failed and why. */
relay_status case_plan(const transform_case *tc, relay_plan **plan, char *why, size_t why_size);
/* dst_ref[k]: A's layout of pair k with rank r's blocks moved to sigma[r]. */
void case_relabel_dst(const transform_case *tc, const int *sigma, ref_layout *dst_ref);
void case_free_dst(const transform_case *tc, ref_layout *dst_ref);

/* ---- what the reference says ---- */

/* Pair k replayed with these scalars (alpha_null makes alpha 1, beta_null
 * beta 0), B's values from seed and A's old ones from seed + 1. */
ref_transform case_pair_transform(const transform_case *tc, int k, double complex alpha, double complex beta,
                                  uint64_t seed);
/* alpha or beta as the plan's element type (ref_store writes one). */
typedef union {
    float f;
    double d;
    float complex cf;
    double complex cd;
} case_scalar;

/* B's values, and A's old ones (NaN where beta is 0: A must not be read);
 * gaps REF_GAP_VALUE in both. */
void case_fill(const ref_transform *t, ref_buffer *a, ref_buffer *b);

/* ---- building cases ---- */

extern const relay_type case_types[4];          /* float, double, cfloat, cdouble */
extern const relay_op case_ops[3];              /* N, T, C */
extern const char *const case_schedule_names[5];  /* by relay_schedule */

ref_layout case_block_cyclic(ref_bc_params p);
/* Block-cyclic with grid order R, source (0, 0) and the smallest lld. */
ref_layout case_bc(int64_t m, int64_t n, int64_t mb, int64_t nb, int nprow, int npcol, relay_order elem_order);
/* nprow x npcol = nranks with nprow the largest divisor not above sqrt(nranks). */
void case_grid_shape(int nranks, int *nprow, int *npcol);
/* Mostly 1..60, sometimes 100..200. */
int64_t case_random_extent(ref_rng *rng);
/* A small scalar, complex ones only for complex types. */
double complex case_random_scalar(ref_rng *rng, relay_type type);

#endif
