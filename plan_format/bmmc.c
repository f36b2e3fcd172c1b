/* bmmc.c — BMMC permutations as data: the standard constructors,
 * composition and inverse (Lemma 1 of Cormen's BMMC paper), the change to
 * processor-major coordinates (section 6), and the check that a plan's
 * factors are what the executor needs (a plan file is untrusted). */
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "plan_internal.h"

static relay_status check_bits(int n, const char *fn)
{
    if (n < 1 || n > RELAY_BMMC_MAX_BITS)
        return rl_fail(RELAY_ERR_ARG, "%s: %d index bits; 1 to %d are possible", fn, n, RELAY_BMMC_MAX_BITS);
    return RELAY_OK;
}

/* A permutation whose column j is e_(image(j)). */
static relay_status bit_permutation(relay_bmmc *out, int n, int (*image)(int j, int n, int param), int param, const char *fn)
{
    if (!out) return rl_fail(RELAY_ERR_ARG, "%s: NULL output", fn);
    relay_status st = check_bits(n, fn);
    if (st) return st;
    memset(out, 0, sizeof *out);
    out->n = n;
    for (int j = 0; j < n; j++) out->columns[j] = 1ull << image(j, n, param);
    return RELAY_OK;
}

static int same_bit(int j, int n, int param) { return j; }
static int reversed_bit(int j, int n, int param) { return n - 1 - j; }
static int rotated_left(int j, int n, int param) { return (j + 1) % n; }
static int rotated_right(int j, int n, int param) { return (j + n - 1) % n; }
/* x = i + 2^a j (a = param) to y = j + 2^b i: bit k < a (of i) goes to b + k. */
static int transposed_bit(int k, int n, int a) { return k < a ? n - a + k : k - a; }

relay_status relay_bmmc_identity(relay_bmmc *out, int n) { return bit_permutation(out, n, same_bit, 0, "relay_bmmc_identity"); }
relay_status relay_bmmc_bit_reversal(relay_bmmc *out, int n) { return bit_permutation(out, n, reversed_bit, 0, "relay_bmmc_bit_reversal"); }
relay_status relay_bmmc_shuffle(relay_bmmc *out, int n) { return bit_permutation(out, n, rotated_left, 0, "relay_bmmc_shuffle"); }
relay_status relay_bmmc_unshuffle(relay_bmmc *out, int n) { return bit_permutation(out, n, rotated_right, 0, "relay_bmmc_unshuffle"); }

relay_status relay_bmmc_transpose(relay_bmmc *out, int rows_log, int cols_log)
{
    if (rows_log < 0 || cols_log < 0)
        return rl_fail(RELAY_ERR_ARG, "relay_bmmc_transpose: negative sides 2^%d x 2^%d", rows_log, cols_log);
    return bit_permutation(out, rows_log + cols_log, transposed_bit, rows_log, "relay_bmmc_transpose");
}

relay_status relay_bmmc_vector_reversal(relay_bmmc *out, int n)
{
    relay_status st = bit_permutation(out, n, same_bit, 0, "relay_bmmc_vector_reversal");
    if (!st) out->complement = rl_gf2_mask(n);
    return st;
}

relay_status relay_bmmc_gray_code(relay_bmmc *out, int n)
{
    relay_status st = bit_permutation(out, n, same_bit, 0, "relay_bmmc_gray_code");
    for (int j = 1; !st && j < n; j++) out->columns[j] |= 1ull << (j - 1); /* y_(j-1) gets x_j */
    return st;
}

static rl_gf2 matrix_of(const relay_bmmc *m)
{
    rl_gf2 a = {m->n, {0}};
    for (int j = 0; j < m->n; j++) a.col[j] = m->columns[j];
    return a;
}

static void set_matrix(relay_bmmc *out, const rl_gf2 *a, uint64_t c)
{
    memset(out, 0, sizeof *out);
    out->n = a->n;
    for (int j = 0; j < a->n; j++) out->columns[j] = a->col[j];
    out->complement = c;
}

relay_status relay_bmmc_compose(relay_bmmc *out, const relay_bmmc *first, const relay_bmmc *second)
{
    if (!out || !first || !second) return rl_fail(RELAY_ERR_ARG, "relay_bmmc_compose: NULL argument");
    if (first->n != second->n)
        return rl_fail(RELAY_ERR_ARG, "relay_bmmc_compose: permutations of %d and %d index bits", first->n, second->n);
    relay_status st = check_bits(first->n, "relay_bmmc_compose");
    if (st) return st;
    rl_gf2 a1 = matrix_of(first), a2 = matrix_of(second), a = rl_gf2_mul(&a2, &a1);
    set_matrix(out, &a, rl_gf2_apply(&a2, first->complement) ^ second->complement);
    return RELAY_OK;
}

relay_status relay_bmmc_inverse(relay_bmmc *out, const relay_bmmc *perm)
{
    if (!out || !perm) return rl_fail(RELAY_ERR_ARG, "relay_bmmc_inverse: NULL argument");
    relay_status st = check_bits(perm->n, "relay_bmmc_inverse");
    if (st) return st;
    rl_gf2 a = matrix_of(perm), inv;
    if (!rl_gf2_inverse(&a, &inv)) return rl_fail(RELAY_ERR_ARG, "relay_bmmc_inverse: the matrix is singular");
    set_matrix(out, &inv, rl_gf2_apply(&inv, perm->complement));
    return RELAY_OK;
}

uint64_t relay_bmmc_apply(const relay_bmmc *perm, uint64_t x)
{
    rl_gf2 a = matrix_of(perm);
    return (rl_gf2_apply(&a, x) ^ perm->complement) & rl_gf2_mask(perm->n);
}

/* ---- processor-major coordinates (section 6) --------------------------- */

/* Where bit i of a processor-major index sits in the actual layout. */
static int actual_bit(int i, const rl_bmmc *b)
{
    int offset_bits = b->n - b->p;
    if (i >= offset_bits) return b->f + (i - offset_bits);
    return i < b->f ? i : i + b->p;
}

/* Renumbers the bits of a matrix and a vector: bit i becomes bit to[i]. */
static void renumber_bits(const int *to, const rl_gf2 *a, uint64_t c, rl_gf2 *out, uint64_t *cout)
{
    uint64_t col[RL_GF2_MAX];
    out->n = a->n;
    for (int j = 0; j < a->n; j++) {
        uint64_t v = 0;
        for (int i = 0; i < a->n; i++) v |= (a->col[j] >> i & 1) << to[i];
        col[to[j]] = v;
    }
    memcpy(out->col, col, (size_t)a->n * sizeof *col);
    uint64_t v = 0;
    for (int i = 0; i < a->n; i++) v |= (c >> i & 1) << to[i];
    *cout = v;
}

void rl_bmmc_processor_major(const rl_bmmc *b, rl_gf2 *a, uint64_t *c)
{
    int to_pm[RL_GF2_MAX];
    for (int i = 0; i < b->n; i++) to_pm[actual_bit(i, b)] = i;
    renumber_bits(to_pm, &b->a, b->c, a, c);
}

void rl_bmmc_from_factors(rl_bmmc *b)
{
    int to_actual[RL_GF2_MAX];
    for (int i = 0; i < b->n; i++) to_actual[i] = actual_bit(i, b);
    rl_gf2 vw = rl_gf2_mul(&b->v, &b->w);
    renumber_bits(to_actual, &vw, b->cv, &b->a, &b->c);
}

/* ---- the factors' contract ---------------------------------------------- */

/* Rank over GF(2) of vectors (destroys them). */
static int rank_of(uint64_t *v, int count)
{
    int rank = 0;
    for (int bit = 0; bit < 64; bit++) {
        int piv = -1;
        for (int i = rank; i < count && piv < 0; i++)
            if (v[i] >> bit & 1) piv = i;
        if (piv < 0) continue;
        uint64_t t = v[rank]; v[rank] = v[piv]; v[piv] = t;
        for (int i = 0; i < count; i++)
            if (i != rank && (v[i] >> bit & 1)) v[i] ^= v[rank];
        rank++;
    }
    return rank;
}

relay_status rl_bmmc_validate(const rl_bmmc *b)
{
    int n = b->n, p = b->p, off = n - p;
    if (n < 1 || n > RELAY_BMMC_MAX_BITS || p < 0 || p > n || p > 24 || b->f < 0 || b->f > off || b->elem_size < 1 ||
        b->elem_size > (1 << 20) || b->rank < 0 || b->rank > p || b->rank > off)
        return rl_fail(RELAY_ERR_FORMAT, "BMMC plan: n = %d, p = %d, f = %d, element size %lld or rank %d out of range", n, p, b->f,
                       (long long)b->elem_size, b->rank);
    if (b->elem_size > INT64_MAX >> n)
        return rl_fail(RELAY_ERR_FORMAT, "BMMC plan: 2^%d elements of %lld bytes exceed 2^63 bytes", n, (long long)b->elem_size);
    uint64_t mask = rl_gf2_mask(n), offmask = rl_gf2_mask(off);
    for (int j = 0; j < n; j++)
        if ((b->a.col[j] | b->v.col[j] | b->w.col[j]) & ~mask || (b->c | b->cv) & ~mask)
            return rl_fail(RELAY_ERR_FORMAT, "BMMC plan: a matrix or complement has bits beyond its %d index bits", n);
    rl_gf2 apm, vw = rl_gf2_mul(&b->v, &b->w), inv;
    uint64_t cpm;
    rl_bmmc_processor_major(b, &apm, &cpm);
    if (!rl_gf2_inverse(&b->a, &inv)) return rl_fail(RELAY_ERR_FORMAT, "BMMC plan: the matrix is singular");
    if (memcmp(vw.col, apm.col, (size_t)n * sizeof *vw.col) || cpm != b->cv)
        return rl_fail(RELAY_ERR_FORMAT, "BMMC plan: the factors do not multiply to the permutation");
    for (int j = 0; j < n; j++) /* W keeps a rank's elements on it: [w * ; 0 I] */
        if ((b->w.col[j] & ~offmask) != (j < off ? 0 : 1ull << j))
            return rl_fail(RELAY_ERR_FORMAT, "BMMC plan: the first factor moves elements between ranks");
    uint64_t basis[RL_GF2_MAX], right[RL_GF2_MAX];
    for (int j = 0; j < off; j++) /* V's lower-left block: zero but for its last `rank` columns, independent */
        if (j < off - b->rank ? (b->v.col[j] >> off) != 0 : 0)
            return rl_fail(RELAY_ERR_FORMAT, "BMMC plan: the second factor's lower-left block is not reduced");
    for (int j = 0; j < b->rank; j++) basis[j] = b->v.col[off - b->rank + j] >> off;
    for (int j = 0; j < p; j++) right[j] = b->v.col[off + j] >> off;
    if (rank_of(basis, b->rank) != b->rank || rank_of(right, p) != p)
        return rl_fail(RELAY_ERR_FORMAT, "BMMC plan: the second factor's lower blocks lack the rank it declares");
    return RELAY_OK;
}

relay_status relay_plan_bmmc_info(const relay_plan *p, relay_bmmc_info *info)
{
    if (!p || !info) return rl_fail(RELAY_ERR_ARG, "relay_plan_bmmc_info: NULL argument");
    if (!p->bmmc) return rl_fail(RELAY_ERR_ARG, "relay_plan_bmmc_info: not a BMMC plan");
    const rl_bmmc *b = p->bmmc;
    memset(info, 0, sizeof *info);
    info->n = b->n;
    info->p = b->p;
    info->f = b->f;
    info->elem_size = (size_t)b->elem_size;
    info->rank = b->rank;
    set_matrix(&info->perm, &b->a, b->c);
    set_matrix(&info->v, &b->v, b->cv);
    set_matrix(&info->w, &b->w, 0);
    return RELAY_OK;
}
