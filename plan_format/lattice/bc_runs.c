/* bc_runs.c — the 1-D overlay of two block-cyclic distributions as
 * arithmetic progressions of runs (see bc_runs.h).
 *
 * A run is one source block cut with one target block: runs are cut at
 * every block boundary of either side, so each lies in one block of each
 * and is contiguous in both local buffers.  A side on one process is one
 * block: its local indices are the global ones (INDXG2L with P = 1), so
 * its block boundaries cut nothing, and a 1 x P grid's rows meet the other
 * side's pieces whole.  (Each side may start at its
 * own origin in its distributed dimension, a submatrix's: all below holds
 * for the distributed indices, shifted by the origin.)  Shifting a global index by
 * L = lcm(b_from*P_from, b_to*P_to) keeps both owners, whatever the first
 * processes s (L/b is a multiple of P on each side, and the owner is
 * (i/b + s) mod P), and advances each local index by exactly L/P.  So the
 * pattern of runs repeats every L indices (with b P read as 1 for a side
 * on one process, whose owner and local shift never change), and the
 * overlay is built in four steps whose cost depends on the runs of one
 * period, never on n:
 *
 *  1. Enumerate the runs of the first period [h, h + L) (of [h, n) when
 *     n - h < L or L overflows int64), where h is the first block boundary
 *     of a side on several processes, so that the periods' ends fall on
 *     its block boundaries and cut no run.  The head [0, h), inside one of
 *     its blocks, is compressed on its own at the end.  With both sides on
 *     one process the dimension is one run.
 *  2. Compress them.  Runs are grouped by (from, to, len) and sorted by g0;
 *     from the first run not yet taken, each of the next RL_CANDIDATES
 *     untaken runs of the group is tried as second element, its stride
 *     followed as far as the group continues it (global, source and target
 *     index alike), and the longest progression kept.  Trying several
 *     second elements rather than the next one catches interleaved phases:
 *     a pair's runs in g0 order may alternate A B A B with unequal gaps,
 *     and the stride that lasts is the one from A to the next A.
 *  3. Repeat the progressions over the k = n/L full periods: a single run
 *     becomes k runs with the period's strides; a progression that ends
 *     where its next period's copy begins (count * stride = the period's
 *     stride on all three sides) continues; any other becomes
 *     min(count, k) progressions: one per element with the period's
 *     strides, or one copy per period.
 *  4. The runs of the partial last period [kL, n) first extend the
 *     progressions whose next element they are; the rest are compressed as
 *     in step 2.
 *
 * Time O(R log R) and memory O(R) for R the runs of one period (at most
 * L/b_from + L/b_to) plus those of the tail, which also bounds the number
 * of progressions (step 3 makes at most `count` of one). */
#include <stdlib.h>

#include "bc_runs.h"
#include "error.h"

/* Second elements tried per progression in step 2. */
enum { RL_CANDIDATES = 8 };

/* More runs than this in one enumeration are refused. */
#define RL_MAX_RUNS ((int64_t)1 << 31)

/* ---- one dimension ------------------------------------------------------ */

static relay_status check_dim(const char *side, const rl_bc_dim *d)
{
    if (d->n < 0) return rl_fail(RELAY_ERR_ARG, "rl_bc_runs: %s length n = %lld is negative", side, (long long)d->n);
    if (d->b < 1)
        return rl_fail(RELAY_ERR_ARG, "rl_bc_runs: %s block size b = %lld; at least 1 is needed", side,
                       (long long)d->b);
    if (d->P < 1) return rl_fail(RELAY_ERR_ARG, "rl_bc_runs: %s has %d processes; at least 1 is needed", side, d->P);
    if (d->s < 0 || d->s >= d->P)
        return rl_fail(RELAY_ERR_ARG, "rl_bc_runs: %s first block on process %d, outside [0, %d)", side, d->s, d->P);
    if (d->o < 0 || d->o > INT64_MAX - d->n)
        return rl_fail(RELAY_ERR_ARG, "rl_bc_runs: %s origin %lld is negative or too far", side, (long long)d->o);
    return RELAY_OK;
}

/* ScaLAPACK's INDXG2P and INDXG2L of the dimension's index i. */
static int owner(const rl_bc_dim *d, int64_t i) { return (int)(((d->o + i) / d->b + d->s) % d->P); }

static int64_t local_index(const rl_bc_dim *d, int64_t i)
{
    int64_t cycle, g = d->o + i;
    if (rl_mul_overflows(d->b, d->P, &cycle)) return g % d->b;   /* g < 2^63 < b*P: the first cycle */
    return g / cycle * d->b + g % d->b;
}

/* A dimension on one process is one block (see the top of the file). */
static int one_block(const rl_bc_dim *d) { return d->P == 1; }

/* Indices from i to the end of i's block. */
static int64_t to_block_end(const rl_bc_dim *d, int64_t i)
{
    return one_block(d) ? d->n - i : d->b - (d->o + i) % d->b;
}

/* Blocks of d that meet [begin, end). */
static int64_t blocks_met(const rl_bc_dim *d, int64_t begin, int64_t end)
{
    if (end <= begin) return 0;
    return one_block(d) ? 1 : (d->o + end - 1) / d->b - (d->o + begin) / d->b + 1;
}

/* Indices after which d's owners repeat and its local indices shift by a
 * constant: b P, or 1 on one process; 0 when b P overflows. */
static int64_t cycle_of(const rl_bc_dim *d)
{
    int64_t c;
    if (one_block(d)) return 1;
    return rl_mul_overflows(d->b, d->P, &c) ? 0 : c;
}

/* The period L = lcm of the two cycles, or 0 when it overflows or when both
 * sides are on one process (the dimension is then one run). */
static int64_t period_of(const rl_bc_dim *from, const rl_bc_dim *to)
{
    int64_t cf = cycle_of(from), ct = cycle_of(to), l;
    if (!cf || !ct || (one_block(from) && one_block(to))) return 0;
    if (rl_mul_overflows(cf / rl_gcd64(cf, ct), ct, &l)) return 0;
    return l;
}

/* Where the periods start: the first block boundary (at most n) of a side
 * on several processes, so that the periods' ends, a multiple of its b P
 * further, are block boundaries too and cut no run; 0 when both sides are
 * on one process. */
static int64_t period_start(const rl_bc_dim *from, const rl_bc_dim *to)
{
    const rl_bc_dim *cut = !one_block(from) ? from : !one_block(to) ? to : NULL;
    if (!cut) return 0;
    int64_t h = (cut->b - cut->o % cut->b) % cut->b;
    return h < cut->n ? h : cut->n;
}

/* ---- lists of lattices ---------------------------------------------------- */

typedef struct {
    rl_run_lattice *v;
    int64_t n, cap;
} lattice_list;

static int reserve(lattice_list *l, int64_t cap)
{
    if (cap <= l->cap) return 1;
    if ((uint64_t)cap > SIZE_MAX / sizeof *l->v) return 0;
    rl_run_lattice *v = realloc(l->v, (size_t)cap * sizeof *v);
    if (!v) return 0;
    l->v = v;
    l->cap = cap;
    return 1;
}

static int push(lattice_list *l, rl_run_lattice r)
{
    if (l->n == l->cap && !reserve(l, l->cap ? 2 * l->cap : 16)) return 0;
    l->v[l->n++] = r;
    return 1;
}

/* ---- step 1: runs ------------------------------------------------------------ */

/* The runs of global indices [begin, end) in increasing g0, as lattices of
 * count 1. */
static relay_status enumerate_runs(const rl_bc_dim *from, const rl_bc_dim *to, int64_t begin, int64_t end,
                                   lattice_list *out)
{
    int64_t bound = blocks_met(from, begin, end) + blocks_met(to, begin, end);
    if (bound > RL_MAX_RUNS)
        return rl_fail(RELAY_ERR_ARG,
                       "rl_bc_runs: up to %lld runs in indices [%lld, %lld) (blocks %lld and %lld), more than 2^31",
                       (long long)bound, (long long)begin, (long long)end, (long long)from->b, (long long)to->b);
    if (!reserve(out, bound)) return RL_NOMEM();
    for (int64_t g = begin; g < end;) {
        int64_t len = end - g;
        if (to_block_end(from, g) < len) len = to_block_end(from, g);
        if (to_block_end(to, g) < len) len = to_block_end(to, g);
        out->v[out->n++] = (rl_run_lattice){.from = owner(from, g), .to = owner(to, g), .len = len, .count = 1,
                                            .g0 = g, .src0 = local_index(from, g), .dst0 = local_index(to, g)};
        g += len;
    }
    return RELAY_OK;
}

/* ---- step 2: compression ------------------------------------------------------- */

static int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }

static int by_group(const void *x, const void *y)
{
    const rl_run_lattice *p = x, *q = y;
    if (p->from != q->from) return p->from < q->from ? -1 : 1;
    if (p->to != q->to) return p->to < q->to ? -1 : 1;
    if (p->len != q->len) return cmp_i64(p->len, q->len);
    return cmp_i64(p->g0, q->g0);
}

static int by_position(const void *x, const void *y)
{
    const rl_run_lattice *p = x, *q = y;
    if (p->from != q->from) return p->from < q->from ? -1 : 1;
    if (p->to != q->to) return p->to < q->to ? -1 : 1;
    return cmp_i64(p->g0, q->g0);
}

/* Index of the run starting at g in r[0..m) (sorted by g0), or -1. */
static int64_t search_g(const rl_run_lattice *r, int64_t m, int64_t g)
{
    int64_t lo = 0, hi = m;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (r[mid].g0 < g) lo = mid + 1;
        else hi = mid;
    }
    return lo < m && r[lo].g0 == g ? lo : -1;
}

/* Index of the untaken run of r[0..m) (sorted by g0) that is p's next
 * element, or -1. */
static int64_t find_next(const rl_run_lattice *r, int64_t m, const char *taken, const rl_run_lattice *p)
{
    int64_t last = p->g0 + (p->count - 1) * p->gstride;
    if (p->gstride <= 0 || p->gstride > INT64_MAX - last) return -1;
    int64_t j = search_g(r, m, last + p->gstride);
    if (j < 0 || taken[j]) return -1;
    const rl_run_lattice *q = &r[j];
    int same = q->from == p->from && q->to == p->to && q->len == p->len &&
               q->src0 == p->src0 + p->count * p->src_stride && q->dst0 == p->dst0 + p->count * p->dst_stride;
    return same ? j : -1;
}

/* The longest progression from untaken run i of a group r[0..m). */
static rl_run_lattice longest_from(const rl_run_lattice *r, int64_t m, const char *taken, int64_t i)
{
    rl_run_lattice best = r[i];
    int tried = 0;
    for (int64_t j = i + 1; j < m && tried < RL_CANDIDATES; j++) {
        if (taken[j]) continue;
        tried++;
        rl_run_lattice p = r[i];
        p.count = 2;
        p.gstride = r[j].g0 - r[i].g0;
        p.src_stride = r[j].src0 - r[i].src0;
        p.dst_stride = r[j].dst0 - r[i].dst0;
        while (find_next(r, m, taken, &p) >= 0) p.count++;
        if (p.count > best.count) best = p;
    }
    return best;
}

static void take(const rl_run_lattice *r, int64_t m, char *taken, const rl_run_lattice *p)
{
    for (int64_t c = 0; c < p->count; c++) taken[search_g(r, m, p->g0 + c * p->gstride)] = 1;
}

/* The end of the group of r[a] in r[0..m) (sorted by_group). */
static int64_t group_end(const rl_run_lattice *r, int64_t m, int64_t a)
{
    int64_t z = a + 1;
    while (z < m && r[z].from == r[a].from && r[z].to == r[a].to && r[z].len == r[a].len) z++;
    return z;
}

/* Appends to out progressions covering the runs r[0..m) (reordered). */
static relay_status compress(rl_run_lattice *r, int64_t m, lattice_list *out)
{
    if (m == 0) return RELAY_OK;
    char *taken = rl_calloc((size_t)m, 1);
    if (!taken) return RL_NOMEM();
    qsort(r, (size_t)m, sizeof *r, by_group);
    for (int64_t a = 0, z; a < m; a = z) {
        z = group_end(r, m, a);
        for (int64_t i = a; i < z; i++) {
            if (taken[i]) continue;
            rl_run_lattice p = longest_from(r + a, z - a, taken + a, i - a);
            take(r + a, z - a, taken + a, &p);
            if (!push(out, p)) {
                free(taken);
                return RL_NOMEM();
            }
        }
    }
    free(taken);
    return RELAY_OK;
}

/* ---- step 3: full periods -------------------------------------------------- */

/* `period` holds the shift of one period in its three strides. */
static int reaches_next_period(const rl_run_lattice *p, const rl_run_lattice *period)
{
    return p->count * p->gstride == period->gstride && p->count * p->src_stride == period->src_stride &&
           p->count * p->dst_stride == period->dst_stride;
}

/* Element c of p, repeated k times at the period's strides. */
static rl_run_lattice element_over_periods(rl_run_lattice p, int64_t c, int64_t k, const rl_run_lattice *period)
{
    p.g0 += c * p.gstride;
    p.src0 += c * p.src_stride;
    p.dst0 += c * p.dst_stride;
    p.count = k;
    p.gstride = period->gstride;
    p.src_stride = period->src_stride;
    p.dst_stride = period->dst_stride;
    return p;
}

static rl_run_lattice shifted(rl_run_lattice p, int64_t periods, const rl_run_lattice *period)
{
    p.g0 += periods * period->gstride;
    p.src0 += periods * period->src_stride;
    p.dst0 += periods * period->dst_stride;
    return p;
}

/* The progressions of the first period, over k >= 1 full periods. */
static relay_status repeat_periods(lattice_list *l, int64_t k, const rl_run_lattice *period)
{
    int64_t first = l->n;
    for (int64_t i = 0; i < first; i++) {
        rl_run_lattice p = l->v[i];
        if (reaches_next_period(&p, period)) {
            l->v[i].count *= k;
        } else if (p.count <= k) {   /* a single run among them */
            l->v[i] = element_over_periods(p, 0, k, period);
            for (int64_t c = 1; c < p.count; c++)
                if (!push(l, element_over_periods(p, c, k, period))) return RL_NOMEM();
        } else {
            for (int64_t t = 1; t < k; t++)
                if (!push(l, shifted(p, t, period))) return RL_NOMEM();
        }
    }
    return RELAY_OK;
}

/* ---- step 4: the partial last period ----------------------------------------- */

/* tail: the runs after the full periods, sorted by g0 (consumed). */
static relay_status add_tail(lattice_list *l, lattice_list *tail)
{
    char *taken = rl_calloc((size_t)tail->n, 1);
    if (!taken) return RL_NOMEM();
    for (int64_t i = 0; i < l->n; i++) {
        int64_t j;
        while ((j = find_next(tail->v, tail->n, taken, &l->v[i])) >= 0) {
            taken[j] = 1;
            l->v[i].count++;
        }
    }
    int64_t left = 0;
    for (int64_t j = 0; j < tail->n; j++)
        if (!taken[j]) tail->v[left++] = tail->v[j];
    free(taken);
    return compress(tail->v, left, l);
}

/* ---- the overlay ------------------------------------------------------------------ */

relay_status rl_bc_runs(const rl_bc_dim *from, const rl_bc_dim *to, rl_run_lattice **out, int64_t *nout)
{
    if (!from || !to || !out || !nout) return rl_fail(RELAY_ERR_ARG, "rl_bc_runs: NULL argument");
    relay_status st = check_dim("source", from);
    if (!st) st = check_dim("target", to);
    if (st) return st;
    if (from->n != to->n)
        return rl_fail(RELAY_ERR_ARG, "rl_bc_runs: source length %lld and target length %lld differ",
                       (long long)from->n, (long long)to->n);

    int64_t n = from->n, period = period_of(from, to), h = period_start(from, to);
    int64_t full = period > 0 && period <= n - h ? (n - h) / period : 0;
    lattice_list runs = {0}, lat = {0}, tail = {0}, head = {0};
    st = enumerate_runs(from, to, h, full ? h + period : n, &runs);
    if (!st) st = compress(runs.v, runs.n, &lat);
    if (!st && full) {
        rl_run_lattice shift = {.gstride = period, .src_stride = period / from->P, .dst_stride = period / to->P};
        st = repeat_periods(&lat, full, &shift);
        if (!st) st = enumerate_runs(from, to, h + full * period, n, &tail);
        if (!st) st = add_tail(&lat, &tail);
    }
    if (!st) st = enumerate_runs(from, to, 0, h, &head);
    if (!st) st = compress(head.v, head.n, &lat);
    free(runs.v);
    free(tail.v);
    free(head.v);
    if (st) {
        free(lat.v);
        return st;
    }
    for (int64_t i = 0; i < lat.n; i++)
        if (lat.v[i].count == 1) lat.v[i].gstride = lat.v[i].src_stride = lat.v[i].dst_stride = 0;
    if (lat.n) qsort(lat.v, (size_t)lat.n, sizeof *lat.v, by_position);
    *out = lat.v;
    *nout = lat.n;
    return RELAY_OK;
}
