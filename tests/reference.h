/* reference.h — the independent serial reference the relay tests check against.
 *
 * Nothing here calls relay to compute an answer: layouts are described by the
 * tests' own struct (splits, owners, per-block offsets and leading dimensions),
 * block-cyclic layouts come from ScaLAPACK's definitions (numroc, indxg2p,
 * indxg2l, 0-based), and the expected result of A := alpha*op(B) + beta*A is
 * computed element by element from value functions of the global indices.
 * The values are small integers, so every expected value is exact in float.
 *
 * The one bridge to relay is ref_build_relay_layout, which hands a reference
 * layout's recipe to relay's public constructors so the library and the
 * reference describe the same matrix. */
#ifndef RELAY_TESTS_REFERENCE_H
#define RELAY_TESTS_REFERENCE_H

#include <complex.h>
#include <stdint.h>
#include "relay/hsumma.h"
#include "relay/layout.h"

/* ---- ScaLAPACK index arithmetic (0-based process and global indices) ---- */

/* Rows (or columns) of an n-long dimension cut in blocks of nb that process
 * iproc of nprocs holds when process isrc holds the first block. */
int64_t ref_numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs);
/* The process holding global index g. */
int ref_indxg2p(int64_t g, int64_t nb, int isrc, int nprocs);
/* The local index of global index g on the process holding it. */
int64_t ref_indxg2l(int64_t g, int64_t nb, int nprocs);
/* The rank of process (pr, pc): grid order R is pr*npcol + pc, C is pc*nprow + pr. */
int ref_grid_rank(relay_order grid_order, int nprow, int npcol, int pr, int pc);

/* ---- the SUMMA distributions (relay/hsumma.h's contract) ---- */

/* Owner (0..q-1) and local index of global index g of a dimension of L cut
 * over q parts as p says: balanced contiguous parts (the first L mod q one
 * longer) or ScaLAPACK block-cyclic with p->dist_block from part 0. */
void ref_hsumma_locate(const relay_hsumma_params *p, int64_t L, int q, int64_t g, int *owner, int64_t *local);
/* Indices of that dimension part i holds. */
int64_t ref_hsumma_count(const relay_hsumma_params *p, int64_t L, int q, int i);

/* ---- reference layouts ---- */

typedef enum { REF_BLOCK_CYCLIC, REF_GRID_PACKED, REF_GRID_EXPLICIT } ref_layout_kind;

/* The arguments of a ScaLAPACK block-cyclic layout (lld 0: smallest per rank). */
typedef struct {
    int64_t m, n, mb, nb;
    int nprow, npcol;
    relay_order grid_order;
    int rsrc, csrc;
    int64_t lld;
    relay_order elem_order;
} ref_bc_params;

typedef struct {
    ref_layout_kind kind;
    ref_bc_params bc;           /* the recipe of a REF_BLOCK_CYCLIC layout */
    int nranks;
    int64_t m, n;
    int nbr, nbc;
    int64_t *row_splits;        /* nbr+1 */
    int64_t *col_splits;        /* nbc+1 */
    int *owners;                /* nbr*nbc, row-major over blocks */
    int64_t *offsets;           /* nbr*nbc, always filled (packed ones computed) */
    int64_t *lds;               /* nbr*nbc */
    relay_order order;          /* element order inside blocks */
    char desc[160];             /* one line naming the layout, for messages */
} ref_layout;

/* A ScaLAPACK layout; p must be valid (checked by the caller's choice of values). */
void ref_layout_block_cyclic(ref_layout *out, const ref_bc_params *p);
/* An explicit grid; offsets and lds both NULL means packed, both given means
 * REF_GRID_EXPLICIT.  Arrays are copied. */
void ref_layout_grid(ref_layout *out, int nranks, int64_t m, int64_t n,
        int nbr, const int64_t *row_splits, int nbc, const int64_t *col_splits,
        const int *owners, const int64_t *offsets, const int64_t *lds, relay_order order);
/* The same layout on nranks ranks, with rank r's blocks moved to sigma[r];
 * the result is an explicit grid. */
void ref_layout_relabeled(ref_layout *out, const ref_layout *l, const int *sigma, int nranks);
void ref_layout_free(ref_layout *l);

/* Where global element (i, j) lives. */
void ref_locate(const ref_layout *l, int64_t i, int64_t j, int *rank, int64_t *index);
/* Elements rank's buffer must hold: the last element its blocks touch, plus one. */
int64_t ref_local_elems(const ref_layout *l, int rank);
/* For every local index k of rank's buffer, the global element stored there
 * as i*n + j, or -1 for a gap.  Returns a malloc'ed array of ref_local_elems. */
int64_t *ref_local_map(const ref_layout *l, int rank);

/* Builds relay's layout from the reference layout's recipe (public API only). */
relay_status ref_build_relay_layout(const ref_layout *l, relay_layout **out);
/* Passes p, valid or not, to relay_layout_block_cyclic. */
relay_status ref_build_relay_block_cyclic(const ref_bc_params *p, relay_layout **out);

/* ---- seeded pseudo-random numbers (splitmix64) ---- */

typedef struct { uint64_t state; } ref_rng;
void ref_rng_seed(ref_rng *r, uint64_t seed);
uint64_t ref_rng_next(ref_rng *r);
int64_t ref_rng_range(ref_rng *r, int64_t lo, int64_t hi);  /* uniform in [lo, hi] */
int ref_rng_percent(ref_rng *r, int percent);                /* true with that chance */
void ref_rng_shuffle(ref_rng *r, int *a, int count);          /* a random permutation of a */

/* ---- random layouts (always valid) ---- */

/* Cut points 0 = s[0] < ... < s[*nblocks] = extent: sometimes one block,
 * sometimes single rows, usually random sizes.  Malloc'ed. */
int64_t *ref_random_splits(ref_rng *r, int64_t extent, int *nblocks);
/* Block-cyclic parameters of an m x n matrix on at most max_ranks ranks. */
void ref_random_bc_params(ref_rng *r, int64_t m, int64_t n, int max_ranks, ref_bc_params *p);
/* A grid on nranks ranks, random owners (some ranks may own nothing);
 * explicit: random non-packed offsets and lds (padding, gaps, shuffled order). */
void ref_random_grid(ref_layout *out, ref_rng *r, int64_t m, int64_t n, int nranks,
        int explicit_offsets);
/* Any of the above on 1..max_ranks ranks. */
void ref_random_layout(ref_layout *out, ref_rng *r, int64_t m, int64_t n, int max_ranks);

/* ---- element values and the serial transform ---- */

size_t ref_type_size(relay_type t);
int ref_type_is_complex(relay_type t);
const char *ref_type_name(relay_type t);
const char *ref_op_name(relay_op op);
/* Stores v (its real part for real types) as element k of buf of type t. */
void ref_store(relay_type t, void *buf, int64_t k, double complex v);
double complex ref_load(relay_type t, const void *buf, int64_t k);

/* The value of global element (i, j) of a matrix seeded by seed: small
 * integers, with an imaginary part when is_complex. */
double complex ref_value(uint64_t seed, int64_t i, int64_t j, int is_complex);

/* What A := alpha*op(B) + beta*A puts in A(i, j) when B's values are seeded
 * by seed_b and A's old values by seed_a.  read_a 0 means beta is zero and
 * A's old value must not matter. */
typedef struct {
    relay_op op;
    relay_type type;
    double complex alpha, beta;
    int read_a;
    uint64_t seed_b, seed_a;
} ref_transform;
double complex ref_expected(const ref_transform *t, int64_t i, int64_t j);

/* ---- BMMC permutations ---- */

/* y = A x XOR c over GF(2), computed row by row (bit i of y is the parity of
 * row i of A masked by x), where relay works column by column.  columns[j]
 * holds column j: bit i of it is A(i, j). */
uint64_t ref_bmmc_target(const uint64_t *columns, uint64_t c, int n, uint64_t x);
/* Whether A is nonsingular, by the rank of its rows. */
int ref_bmmc_nonsingular(const uint64_t *columns, int n);
/* A random nonsingular matrix: a product of random elementary row operations
 * applied to a random permutation matrix. */
void ref_bmmc_random(ref_rng *r, int n, uint64_t *columns);

#endif
