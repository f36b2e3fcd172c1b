/* relay/bmmc.h — BMMC permutations (Cormen): factor once,
 * perform many, only data on the wire.
 *
 * N = 2^n elements, indexed 0 .. N-1, live on P = 2^p ranks.  A BMMC
 * permutation sends the element at index x to index y = A x XOR c, with A a
 * nonsingular n x n matrix over GF(2) and c a complement vector.  Bit 0 is
 * an index's least significant bit; A is given as n packed columns: bit i
 * of columns[j] is A's entry in row i, column j.
 *
 * The layout: bits f .. f+p-1 of an index name the rank that holds the
 * element (f = n - p: processor-major, consecutive blocks; f = 0:
 * processor-minor, round robin; anything between), and the remaining bits,
 * in order, its position in that rank's buffer of 2^(n-p) elements.
 *
 * relay_plan_bmmc factors A once (section 4 of the paper: A = V W, W
 * rearranging inside each rank, V moving contiguous runs between ranks);
 * the plan is O(n) words.  relay_exec_create binds it like any plan;
 * relay_exec_run(e, (void *[]){out}, (const void *[]){in}, NULL, NULL)
 * performs it: each rank exchanges one message with each of its 2^r
 * partners (r = the rank of A's lower-left p x (n-p) block) and no index
 * travels.  in and out hold 2^(n-p) elements each and must not overlap. */
#ifndef RELAY_BMMC_H
#define RELAY_BMMC_H

#include <stddef.h>
#include <stdint.h>

#include "relay/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { RELAY_BMMC_MAX_BITS = 62 };

typedef struct {
    int n;                  /* index bits, 1 .. RELAY_BMMC_MAX_BITS */
    uint64_t columns[64];   /* A's columns; entries n.. are ignored */
    uint64_t complement;    /* c */
} relay_bmmc;

/* The standard permutations. */
RELAY_API relay_status relay_bmmc_identity(relay_bmmc *out, int n);
/* A 2^rows_log x 2^cols_log column-major matrix to its column-major transpose. */
RELAY_API relay_status relay_bmmc_transpose(relay_bmmc *out, int rows_log, int cols_log);
RELAY_API relay_status relay_bmmc_bit_reversal(relay_bmmc *out, int n);      /* y_i = x_(n-1-i) */
RELAY_API relay_status relay_bmmc_vector_reversal(relay_bmmc *out, int n);   /* y = N-1-x */
RELAY_API relay_status relay_bmmc_gray_code(relay_bmmc *out, int n);         /* y_i = x_i ^ x_(i+1) */
RELAY_API relay_status relay_bmmc_shuffle(relay_bmmc *out, int n);           /* perfect shuffle: y = 2x mod (N-1), x = N-1 fixed */
RELAY_API relay_status relay_bmmc_unshuffle(relay_bmmc *out, int n);
/* first, then second: y = A2 (A1 x ^ c1) ^ c2 (Lemma 1). */
RELAY_API relay_status relay_bmmc_compose(relay_bmmc *out, const relay_bmmc *first, const relay_bmmc *second);
RELAY_API relay_status relay_bmmc_inverse(relay_bmmc *out, const relay_bmmc *perm);
/* y for one index (a serial reference and a convenience). */
RELAY_API uint64_t relay_bmmc_apply(const relay_bmmc *perm, uint64_t x);

/* Plans perm on 2^p ranks with rank bits at f; RELAY_ERR_ARG for a
 * singular matrix, bits beyond n, p > n or f > n - p. */
RELAY_API relay_status relay_plan_bmmc(relay_plan **out, const relay_bmmc *perm, int p, int f, size_t elem_size);

/* The factors and facts of a BMMC plan, for inspection (relay-dump). */
typedef struct {
    int n, p, f;
    size_t elem_size;
    int rank;               /* rank of the lower-left block: 2^rank partners per rank */
    relay_bmmc perm;        /* as planned (actual layout) */
    relay_bmmc v, w;        /* processor-major factors: y = V (W x) ^ c_v; w's complement is 0 */
} relay_bmmc_info;
RELAY_API relay_status relay_plan_bmmc_info(const relay_plan *p, relay_bmmc_info *info);

#ifdef __cplusplus
}
#endif

#endif
