/* bmmc_plan.c — factoring a BMMC permutation (Cormen's BMMC paper, section 4).
 *
 * In processor-major coordinates an index's low n-p bits are the position
 * in a rank's buffer and its high p bits the rank.  Split A as
 *   A = [ alpha beta ; gamma delta ]   (gamma: p x (n-p), delta: p x p).
 * Column operations on A build V = A T R S, and then A = V W with
 * W = (T R S)^-1:
 *   T, trailer:  add left columns into right ones so that V's lower-right
 *                block delta' becomes nonsingular.  The bottom p rows of A
 *                have rank p; take a column basis of them made of a
 *                maximal independent set Y of delta's columns and columns Z
 *                of gamma's (Appendix A: elimination in column order), and
 *                add each column of Z into one right column not in Y.
 *   R, reducer:  with S a column basis of gamma' (rank r), add into every
 *                other left column the basis columns whose bottom parts sum
 *                to its own (its dependencies): gamma'' is zero outside S.
 *   S, swapper:  move the r basis columns to the last left positions,
 *                n-p-r .. n-p-1, keeping the others' order.
 * T, R and S touch only columns of the left section or add left into
 * right, so W = [w *; 0 I] never moves an element between ranks, while V's
 * lower-left block is zero but for its last r columns: elements that go to
 * the same rank differ only in their low n-p-r bits and sit in consecutive
 * places (Lemma 3: 2^r partners, N / (2^r P) elements each), and since
 * delta' is nonsingular a rank can compute who sends to it. */
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "planner_internal.h"

/* A column-addition step: column `to` of m (and of the transform t that
 * records the operations) gets column `from` added. */
static void add_column(rl_gf2 *m, rl_gf2 *t, int from, int to)
{
    m->col[to] ^= m->col[from];
    t->col[to] ^= t->col[from];
}

/* T: makes the lower-right block of a nonsingular. */
static void apply_trailer(rl_gf2 *a, rl_gf2 *ops, int p)
{
    int n = a->n, off = n - p, nz = 0, nfree = 0, z[RL_GF2_MAX], free_right[RL_GF2_MAX];
    rl_gf2_basis b = {0};
    for (int j = off; j < n; j++)
        if (!rl_gf2_basis_add(&b, a->col[j] >> off, j)) free_right[nfree++] = j;
    for (int j = 0; j < off && b.count < p; j++)
        if (rl_gf2_basis_add(&b, a->col[j] >> off, j)) z[nz++] = j;
    for (int k = 0; k < nz; k++) add_column(a, ops, z[k], free_right[k]);
}

/* R then S: reduces the lower-left block and moves its basis columns last;
 * returns its rank. */
static int apply_reducer_and_swapper(rl_gf2 *a, rl_gf2 *ops, int p)
{
    int n = a->n, off = n - p;
    rl_gf2_basis b = {0};
    int is_basis[RL_GF2_MAX] = {0};
    for (int j = 0; j < off; j++) is_basis[j] = rl_gf2_basis_add(&b, a->col[j] >> off, j);
    for (int j = 0; j < off; j++) {
        if (is_basis[j]) continue;
        uint64_t combo;
        rl_gf2_reduce(&b, a->col[j] >> off, &combo); /* residue 0: j depends on the basis */
        for (int k = 0; k < b.count; k++)
            if (combo >> k & 1) add_column(a, ops, b.column[k], j);
    }
    rl_gf2 sa = *a, so = *ops;
    int next = 0;
    for (int pass = 0; pass < 2; pass++) /* non-basis columns first, then the basis */
        for (int j = 0; j < off; j++)
            if (is_basis[j] == pass) {
                a->col[next] = sa.col[j];
                ops->col[next++] = so.col[j];
            }
    return b.count;
}

/* V = A T R S and W = (T R S)^-1 for the processor-major matrix a. */
static void factor(rl_bmmc *bm, const rl_gf2 *a)
{
    rl_gf2 v = *a, ops = rl_gf2_identity(a->n);
    apply_trailer(&v, &ops, bm->p);
    bm->rank = apply_reducer_and_swapper(&v, &ops, bm->p);
    bm->v = v;
    rl_gf2_inverse(&ops, &bm->w); /* a product of elementary column operations: invertible */
}

static relay_status check_bmmc_args(relay_plan **out, const relay_bmmc *perm, int p, int f, size_t elem_size, rl_gf2 *a)
{
    if (!out || !perm) return rl_fail(RELAY_ERR_ARG, "relay_plan_bmmc: NULL argument");
    int n = perm->n;
    if (n < 1 || n > RELAY_BMMC_MAX_BITS)
        return rl_fail(RELAY_ERR_ARG, "relay_plan_bmmc: %d index bits; 1 to %d are possible", n, RELAY_BMMC_MAX_BITS);
    if (p < 0 || p > n || p > 24)
        return rl_fail(RELAY_ERR_ARG, "relay_plan_bmmc: 2^%d ranks for 2^%d elements (p must be in [0, min(n, 24)])", p, n);
    if (f < 0 || f > n - p) return rl_fail(RELAY_ERR_ARG, "relay_plan_bmmc: rank bits at %d; 0 to n - p = %d are possible", f, n - p);
    if (elem_size < 1 || elem_size > (1u << 20))
        return rl_fail(RELAY_ERR_ARG, "relay_plan_bmmc: element size %zu; 1 to 2^20 bytes are possible", elem_size);
    if ((int64_t)elem_size > INT64_MAX >> n)
        return rl_fail(RELAY_ERR_ARG, "relay_plan_bmmc: 2^%d elements of %zu bytes exceed 2^63 bytes", n, elem_size);
    uint64_t mask = rl_gf2_mask(n);
    a->n = n;
    for (int j = 0; j < n; j++) {
        if (perm->columns[j] & ~mask)
            return rl_fail(RELAY_ERR_ARG, "relay_plan_bmmc: column %d has bits beyond the %d index bits", j, n);
        a->col[j] = perm->columns[j];
    }
    if (perm->complement & ~mask) return rl_fail(RELAY_ERR_ARG, "relay_plan_bmmc: the complement has bits beyond %d", n);
    rl_gf2 inv;
    if (!rl_gf2_inverse(a, &inv))
        return rl_fail(RELAY_ERR_ARG, "relay_plan_bmmc: the characteristic matrix is singular, so it is not a permutation");
    return RELAY_OK;
}

/* Messages and remote bytes of one replay: every rank sends 2^r blocks but
 * the one it keeps, if any. */
static relay_status count_traffic(const rl_bmmc *bm, relay_plan_stats *st)
{
    enum { CHUNK = 4096 };
    unsigned char keeps[CHUNK];
    int P = 1 << bm->p;
    int64_t sent_blocks = 0, blocks = (int64_t)1 << bm->rank;
    for (int first = 0; first < P; first += CHUNK) {
        int count = P - first < CHUNK ? P - first : CHUNK;
        rl_bmmc_keeps_block(bm, first, count, keeps);
        for (int k = 0; k < count; k++) sent_blocks += blocks - keeps[k];
    }
    int64_t block_bytes = bm->elem_size << (bm->n - bm->p - bm->rank);
    st->bytes_total = bm->elem_size << bm->n;
    st->messages = st->pieces = sent_blocks;
    st->bytes_remote = st->bytes_remote_identity = sent_blocks * block_bytes;
    return RELAY_OK;
}

relay_status relay_plan_bmmc(relay_plan **out, const relay_bmmc *perm, int p, int f, size_t elem_size)
{
    rl_gf2 a;
    relay_status st = check_bmmc_args(out, perm, p, f, elem_size, &a);
    if (st) return st;
    relay_plan *plan = rl_plan_alloc(1 << p, 0);
    rl_bmmc *bm = plan ? calloc(1, sizeof *bm) : NULL;
    if (!bm) {
        relay_plan_free(plan);
        return RL_NOMEM();
    }
    *bm = (rl_bmmc){.n = perm->n, .p = p, .f = f, .elem_size = (int64_t)elem_size, .a = a, .c = perm->complement};
    rl_gf2 apm;
    rl_bmmc_processor_major(bm, &apm, &bm->cv);
    factor(bm, &apm);
    plan->kind = RELAY_PLAN_BMMC;
    plan->type = RELAY_DOUBLE; /* unused: BMMC elements are elem_size opaque bytes */
    plan->schedule = RELAY_SCHED_P2P;
    plan->bmmc = bm;
    st = rl_bmmc_validate(bm); /* the planner's own output meets the executor's contract */
    if (st) {
        relay_plan_free(plan);
        return rl_fail(RELAY_ERR_ARG, "relay_plan_bmmc: internal factoring check failed: %s", relay_last_error());
    }
    count_traffic(bm, &plan->stats);
    plan->fingerprint = rl_plan_hash(plan);
    *out = plan;
    return RELAY_OK;
}
