/* gf2.h — bit matrices over GF(2), as BMMC permutations need them.
 *
 * An n x n matrix (n <= 64) is n packed columns: bit i of col[j] is the
 * entry in row i, column j.  Bit 0 is the least significant bit of an
 * index, so y = A x is the XOR of the columns j whose bit x_j is set.  The
 * planner factors with these; the executor only multiplies. */
#ifndef RELAY_GF2_H
#define RELAY_GF2_H

#include <stdint.h>

enum { RL_GF2_MAX = 64 };

typedef struct {
    int n;
    uint64_t col[RL_GF2_MAX];
} rl_gf2;

/* Bits [0, n) set. */
static inline uint64_t rl_gf2_mask(int n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

static inline uint64_t rl_gf2_apply(const rl_gf2 *a, uint64_t x)
{
    uint64_t y = 0;
    for (int j = 0; x; j++, x >>= 1)
        if (x & 1) y ^= a->col[j];
    return y;
}

/* The product of columns [first, first+count) of a with the bits of x
 * (x's bit 0 meets column first). */
static inline uint64_t rl_gf2_apply_cols(const rl_gf2 *a, int first, int count, uint64_t x)
{
    uint64_t y = 0;
    for (int j = 0; j < count; j++)
        if (x >> j & 1) y ^= a->col[first + j];
    return y;
}

static inline rl_gf2 rl_gf2_identity(int n)
{
    rl_gf2 m = {n, {0}};
    for (int j = 0; j < n; j++) m.col[j] = 1ull << j;
    return m;
}

/* a * b */
static inline rl_gf2 rl_gf2_mul(const rl_gf2 *a, const rl_gf2 *b)
{
    rl_gf2 m = {a->n, {0}};
    for (int j = 0; j < a->n; j++) m.col[j] = rl_gf2_apply(a, b->col[j]);
    return m;
}

/* The inverse of a; returns 0 (and leaves *inv undefined) if a is singular. */
static inline int rl_gf2_inverse(const rl_gf2 *a, rl_gf2 *inv)
{
    rl_gf2 m = *a, r = rl_gf2_identity(a->n);
    int n = a->n;
    /* Column operations: reduce m to the identity, applying each to r. */
    for (int i = 0; i < n; i++) {
        int piv = -1;
        for (int j = i; j < n && piv < 0; j++)
            if (m.col[j] >> i & 1) piv = j;
        if (piv < 0) return 0;
        uint64_t t = m.col[i]; m.col[i] = m.col[piv]; m.col[piv] = t;
        t = r.col[i]; r.col[i] = r.col[piv]; r.col[piv] = t;
        for (int j = 0; j < n; j++)
            if (j != i && (m.col[j] >> i & 1)) {
                m.col[j] ^= m.col[i];
                r.col[j] ^= r.col[i];
            }
    }
    /* m * r_ops = I with r = I * r_ops, so r = m^-1. */
    *inv = r;
    return 1;
}

/* An incremental basis of vectors: each accepted vector is kept reduced
 * against the pivots before it (echelon form), with the combination of
 * accepted inputs that produced it. */
typedef struct {
    int count;
    uint64_t reduced[RL_GF2_MAX];   /* reduced vectors, pivot = lowest set bit */
    uint64_t combo[RL_GF2_MAX];     /* which accepted inputs (by slot) sum to it */
    int column[RL_GF2_MAX];         /* the caller's name for each slot's input */
} rl_gf2_basis;

/* Reduces v against the basis; returns the residue (0: v is in the span)
 * and, in *combo, the slots whose inputs sum to v minus the residue. */
static inline uint64_t rl_gf2_reduce(const rl_gf2_basis *b, uint64_t v, uint64_t *combo)
{
    uint64_t used = 0;
    for (int k = 0; k < b->count; k++) {
        uint64_t pivot = b->reduced[k] & -b->reduced[k];
        if (v & pivot) {
            v ^= b->reduced[k];
            used ^= b->combo[k];
        }
    }
    *combo = used;
    return v;
}

/* Adds input `col` (vector v) if it is independent; returns 1 if it was. */
static inline int rl_gf2_basis_add(rl_gf2_basis *b, uint64_t v, int col)
{
    uint64_t combo;
    uint64_t r = rl_gf2_reduce(b, v, &combo);
    if (!r) return 0;
    int k = b->count++;
    b->reduced[k] = r;
    b->combo[k] = combo | 1ull << k;
    b->column[k] = col;
    return 1;
}

#endif
