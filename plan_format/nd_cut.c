/* nd_cut.c — where two coordinates of two 1-D cuts meet, and one rank's cut
 * of one dimension (nd_cut.h).
 *
 * A coordinate holds a progression of blocks X: x_i = x0 + i*Sx, of lx
 * indices each (i < nx; the last cut at the extent n), and so does the
 * other side's, Y.  A run is a block of X cut with a block of Y, so the
 * runs of X and Y are the pairs (i, j) whose blocks overlap:
 * d = x_i - y_j in (-lx, ly).  The run then starts max(0, -d) into x_i
 * and max(0, d) into y_j and holds min(lx, ly, ly - d, lx + d) indices:
 * everything but the ends depends on d alone.  Three ways to list them,
 * each a few progressions, the cheapest taken (by counts both ends know,
 * so both take the same way and list the same progressions):
 *
 *   - by X's blocks: the blocks of Y that meet x_i are consecutive,
 *     j0 .. j1; those that lie whole inside x_i (all but perhaps the two
 *     ends) form one progression (Y's stride in X's local indices, ly in
 *     Y's).  At most 3 progressions per block of X, O(nx) time;
 *   - by Y's blocks, alike;
 *   - by d (both sides periodic): i*Sx - j*Sy = d - (x0 - y0) has
 *     solutions only for d = x0 - y0 mod g = gcd(Sx, Sy), and then the
 *     solutions (i0 + t*Sy/g, j0 + t*Sx/g), found by one modular inverse:
 *     one progression per d over the periods L = lcm(Sx, Sy), t bounded by
 *     nx and ny (the block-cyclic lattice of Chatterjee, Gilbert, Long,
 *     Schreiber and Teng, "Generating local addresses and communication
 *     sets for data-parallel programs").  (lx + ly - 1)/g + 1 values of d,
 *     whatever n is.
 *
 * A block Y holds whole is contiguous there at both ends only because
 * blocks are never adjacent (rl_nd_blocks_of): each run is a maximal
 * interval of the indices both coordinates hold. */
#include <string.h>

#include "error.h"
#include "nd_cut.h"

/* ---- integer arithmetic ------------------------------------------------------ */

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* floor(a / b) and ceil(a / b) for b > 0. */
static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b < 0); }
static int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b > 0); }

/* The inverse of a modulo m (a and m coprime, m >= 1; 0 when m is 1). */
static int64_t inverse_mod(int64_t a, int64_t m)
{
    int64_t r0 = m, r1 = a % m, s0 = 0, s1 = 1;
    while (r1) {
        int64_t q = r0 / r1, t = r0 - q * r1;
        r0 = r1, r1 = t;
        t = s0 - q * s1;
        s0 = s1, s1 = t;
    }
    return m == 1 ? 0 : (s0 % m + m) % m;
}

/* ---- lists of progressions ------------------------------------------------------ */

int64_t rl_nd_runs_count(const rl_nd_runs *r, int64_t n)
{
    int64_t runs = 0;
    for (int64_t i = 0; i < n; i++) runs += r[i].count;
    return runs;
}

int64_t rl_nd_runs_extent(const rl_nd_runs *r, int64_t n)
{
    int64_t len = 0;
    for (int64_t i = 0; i < n; i++) len += r[i].len * r[i].count; /* at most a local extent: no overflow */
    return len;
}

/* The overlap of one pair of block progressions, X's local indices on one
 * side (A's when x_is_a) and Y's on the other. */
typedef struct {
    const rl_nd_blocks *x, *y;
    int64_t n;
    int x_is_a;
    rl_nd_run_list *out;
    int64_t *work;
} overlap;

static relay_status push(const overlap *o, int64_t len, int64_t count, int64_t x_lo, int64_t x_step, int64_t y_lo,
                         int64_t y_step)
{
    rl_nd_run_list *l = o->out;
    if (l->n == l->cap) {
        int64_t cap = l->cap ? 2 * l->cap : 16;
        rl_nd_runs *grown = realloc(l->v, (size_t)cap * sizeof *grown);
        if (!grown) return RL_NOMEM();
        l->v = grown;
        l->cap = cap;
    }
    if (count == 1) x_step = y_step = 0;
    l->v[l->n++] = o->x_is_a ? (rl_nd_runs){len, count, x_lo, x_step, y_lo, y_step} : (rl_nd_runs){len, count, y_lo, y_step, x_lo, x_step};
    return RELAY_OK;
}

/* Block i of b, cut at n: [*lo, *hi). */
static void block(const rl_nd_blocks *b, int64_t i, int64_t n, int64_t *lo, int64_t *hi)
{
    *lo = b->first + i * b->stride;
    *hi = min64(*lo + b->len, n);
}

/* ---- by the blocks of X ------------------------------------------------------------ */

/* The blocks of y that meet [lo, hi), lo < hi <= n: *j0 .. *j1 (none when
 * *j0 > *j1). */
static void blocks_meeting(const rl_nd_blocks *y, int64_t lo, int64_t hi, int64_t n, int64_t *j0, int64_t *j1)
{
    if (y->count == 1) {
        int64_t ylo, yhi;
        block(y, 0, n, &ylo, &yhi);
        *j0 = 0;
        *j1 = ylo < hi && yhi > lo ? 0 : -1;
        return;
    }
    *j0 = max64(0, floor_div(lo - y->len - y->first, y->stride) + 1); /* the first block ending after lo */
    *j1 = min64(floor_div(hi - 1 - y->first, y->stride), y->count - 1);   /* the last starting before hi */
}

/* The run of block i of X, [xlo, xhi), with block j of Y. */
static relay_status cut_one(const overlap *o, int64_t i, int64_t xlo, int64_t xhi, int64_t j)
{
    int64_t ylo, yhi;
    block(o->y, j, o->n, &ylo, &yhi);
    int64_t lo = max64(xlo, ylo), hi = min64(xhi, yhi);
    return push(o, hi - lo, 1, i * o->x->len + lo - xlo, 0, j * o->y->len + lo - ylo, 0);
}

static relay_status by_blocks(const overlap *o)
{
    const rl_nd_blocks *x = o->x, *y = o->y;
    relay_status st = RELAY_OK;
    for (int64_t i = 0; i < x->count && !st; i++) {
        int64_t xlo, xhi, j0, j1;
        block(x, i, o->n, &xlo, &xhi);
        blocks_meeting(y, xlo, xhi, o->n, &j0, &j1);
        ++*o->work;
        if (j0 > j1) continue;
        int64_t w0 = j0 + (y->first + j0 * y->stride < xlo), w1 = j1 - (y->first + j1 * y->stride + y->len > xhi); /* y's whole blocks in x_i */
        if (w0 > j0) st = cut_one(o, i, xlo, xhi, j0);
        if (!st && w0 <= w1) {
            int64_t ylo = y->first + w0 * y->stride;
            st = push(o, y->len, w1 - w0 + 1, i * x->len + ylo - xlo, y->stride, w0 * y->len, y->len);
        }
        if (!st && w1 < j1 && j1 >= w0) st = cut_one(o, i, xlo, xhi, j1);
    }
    return st;
}

/* ---- by d, over the periods ---------------------------------------------------------- */

/* The values of d to try (both sides periodic): (lx + ly - 1)/g or so, or
 * INT64_MAX when lcm(Sx, Sy) overflows (no period fits in [0, n) then). */
static int64_t families(const rl_nd_blocks *x, const rl_nd_blocks *y, int64_t *g, int64_t *dmin)
{
    int64_t lcm;
    if (x->count < 2 || y->count < 2) return INT64_MAX;
    *g = rl_gcd64(x->stride, y->stride);
    if (rl_mul_overflows(x->stride / *g, y->stride, &lcm)) return INT64_MAX;
    int64_t d0 = x->first - y->first, lo = 1 - x->len;
    *dmin = lo + ((d0 - lo) % *g + *g) % *g; /* the first d >= 1 - lx with d = d0 mod g */
    return *dmin > y->len - 1 ? 0 : (y->len - 1 - *dmin) / *g + 1;
}

/* The runs at one value of d: blocks (i0 + t*syg, j0 + t*sxg) for t in
 * [t0, t1], the last one perhaps cut at n. */
static relay_status one_family(const overlap *o, int64_t d, int64_t i0, int64_t j0, int64_t t0, int64_t t1, int64_t sxg,
                               int64_t syg)
{
    const rl_nd_blocks *x = o->x, *y = o->y;
    int64_t len = min64(min64(x->len, y->len), min64(y->len - d, x->len + d)), into_x = max64(0, -d), into_y = max64(0, d);
    int64_t i1 = i0 + t1 * syg, last = x->first + i1 * x->stride + into_x, whole = t1 - t0 + 1;
    if (last + len > o->n) whole--; /* the run holding n - 1, cut at n: one of its own */
    int64_t i = i0 + t0 * syg, j = j0 + t0 * sxg;
    relay_status st = RELAY_OK;
    if (whole > 0) st = push(o, len, whole, i * x->len + into_x, syg * x->len, j * y->len + into_y, sxg * y->len);
    if (!st && whole <= t1 - t0) st = push(o, o->n - last, 1, i1 * x->len + into_x, 0, (j0 + t1 * sxg) * y->len + into_y, 0);
    return st;
}

static relay_status by_period(const overlap *o, int64_t g, int64_t dmin, int64_t count)
{
    const rl_nd_blocks *x = o->x, *y = o->y;
    int64_t sxg = x->stride / g, syg = y->stride / g, inv = inverse_mod(sxg % syg, syg), d0 = x->first - y->first;
    relay_status st = RELAY_OK;
    for (int64_t f = 0, d = dmin; f < count && !st; f++, d += g) {
        ++*o->work;
        int64_t e = (d - d0) / g, r = (e % syg + syg) % syg; /* i*sxg - j*syg = e */
        int64_t i0 = (int64_t)((__int128)r * inv % syg), j0 = (int64_t)(((__int128)i0 * sxg - e) / syg);
        int64_t t0 = max64(0, ceil_div(-j0, sxg)), t1 = min64(floor_div(x->count - 1 - i0, syg), floor_div(y->count - 1 - j0, sxg));
        if (t0 <= t1) st = one_family(o, d, i0, j0, t0, t1, sxg, syg);
    }
    return st;
}

relay_status rl_nd_overlap(rl_nd_run_list *out, const rl_nd_blocks *a, const rl_nd_blocks *b, int64_t n, int64_t *work)
{
    if (a->count == 0 || b->count == 0) return RELAY_OK;
    int64_t g = 1, dmin = 0, fam = families(a, b, &g, &dmin);
    overlap o = {a, b, n, 1, out, work};
    if (a->count <= b->count && a->count <= fam) return by_blocks(&o);
    if (b->count <= fam) {
        o = (overlap){b, a, n, 0, out, work};
        return by_blocks(&o);
    }
    return by_period(&o, g, dmin, fam);
}

/* ---- one rank's cut of one dimension -------------------------------------------------- */

typedef struct {
    const relay_nd_layout *mine, *other;  /* the rank's side, and the side it meets */
    int mine_dim, other_dim;
    int receiving;                        /* mine is A */
    rl_nd_blocks my_blocks;
    int64_t n;
    rl_nd_dim_cut *cut;
    int64_t cap;                          /* of coords, first and extent */
    int64_t *work;
} cut_job;

static relay_status grow_coords(cut_job *job)
{
    rl_nd_dim_cut *c = job->cut;
    int64_t cap = job->cap ? 2 * job->cap : 8;
    int64_t *coords = realloc(c->coords, (size_t)cap * sizeof *coords);
    if (coords) c->coords = coords;
    int64_t *first = coords ? realloc(c->first, (size_t)(cap + 1) * sizeof *first) : NULL;
    if (first) c->first = first;
    int64_t *extent = first ? realloc(c->extent, (size_t)cap * sizeof *extent) : NULL;
    if (!extent) return RL_NOMEM();
    c->extent = extent;
    job->cap = cap;
    return RELAY_OK;
}

/* The runs with the other side's coordinate c2, kept if there are any. */
static relay_status meet(cut_job *job, int64_t c2)
{
    rl_nd_dim_cut *c = job->cut;
    rl_nd_blocks theirs;
    rl_nd_blocks_of(job->other, job->other_dim, (int)c2, &theirs);
    int64_t before = c->runs.n;
    ++*job->work;
    relay_status st = job->receiving ? rl_nd_overlap(&c->runs, &job->my_blocks, &theirs, job->n, job->work)
                                     : rl_nd_overlap(&c->runs, &theirs, &job->my_blocks, job->n, job->work);
    if (st || c->runs.n == before) return st;
    if (c->ncoords == job->cap && (st = grow_coords(job))) return st;
    c->coords[c->ncoords] = c2;
    c->first[c->ncoords] = before;
    c->extent[c->ncoords++] = rl_nd_runs_extent(c->runs.v + before, c->runs.n - before);
    return RELAY_OK;
}

/* The first index >= h that x holds, or -1. */
static int64_t next_held(const rl_nd_blocks *x, int64_t h, int64_t n)
{
    if (x->count == 0) return -1;
    if (h <= x->first) return x->first;
    int64_t i = x->count == 1 ? 0 : floor_div(h - x->first, x->stride), lo, hi;
    if (i >= x->count) return -1;
    block(x, i, n, &lo, &hi);
    if (h < hi) return h;
    return i + 1 < x->count ? x->first + (i + 1) * x->stride : -1;
}

/* The other side holds at most one block per coordinate (whole, splits,
 * blocks no more than its coordinates): from each index the rank holds,
 * the coordinate that holds it, then on past that coordinate's block. */
static relay_status meet_intervals(cut_job *job)
{
    relay_status st = RELAY_OK;
    for (int64_t g = next_held(&job->my_blocks, 0, job->n); g >= 0 && !st;) {
        int c2 = rl_nd_owner(job->other, job->other_dim, g);
        rl_nd_blocks theirs;
        rl_nd_blocks_of(job->other, job->other_dim, c2, &theirs);
        st = meet(job, c2);
        g = next_held(&job->my_blocks, theirs.first + theirs.len, job->n);
    }
    return st;
}

/* The other side cyclic: the coordinates owning a block that meets one of
 * the rank's, marked block by block, until all are.  The rank's blocks i
 * and i + T, T = lcm(their stride, the other's period) / their stride, sit
 * alike in the other's period: only the first T are looked at, so that the
 * marking costs about the pieces of one period, not of the dimension. */
static relay_status meet_cyclic(cut_job *job)
{
    const rl_nd_blocks *x = &job->my_blocks;
    int64_t p = rl_nd_parts(job->other, job->other_dim), b = job->other->place[job->other->shard_of[job->other_dim]].block,
            marked = 0, period = p * b, blocks = x->count < 2 ? x->count : min64(x->count, period / rl_gcd64(x->stride, period));
    unsigned char *mark = rl_calloc((size_t)p, 1);
    if (!mark) return RL_NOMEM();
    for (int64_t i = 0; i < blocks && marked < p; i++) {
        int64_t lo, hi;
        block(&job->my_blocks, i, job->n, &lo, &hi);
        ++*job->work;
        for (int64_t blk = lo / b; blk <= (hi - 1) / b && marked < p; blk++) {
            ++*job->work;
            marked += !mark[blk % p];
            mark[blk % p] = 1;
        }
    }
    relay_status st = RELAY_OK;
    for (int64_t c2 = 0; c2 < p && !st; c2++)
        if (marked == p || mark[c2]) st = meet(job, c2);
    *job->work += p;
    free(mark);
    return st;
}

/* Whether every coordinate of l's cut of dimension k holds one block at most. */
static int one_block_each(const relay_nd_layout *l, int k)
{
    if (l->shard_of[k] < 0) return 1;
    const rl_nd_place *s = &l->place[l->shard_of[k]];
    int64_t n = l->shape[k], p = rl_nd_parts(l, k);
    return s->splits || p == 1 || (n + s->block - 1) / s->block <= p;
}

relay_status rl_nd_cut_dimension(rl_nd_dim_cut *c, const rl_nd_pair *pair, int k, int receiving, int my_coord, int64_t *work)
{
    int j = pair->perm[k];
    cut_job job = {receiving ? pair->dst : pair->src, receiving ? pair->src : pair->dst, receiving ? k : j, receiving ? j : k,
                   receiving, {0}, pair->dst->shape[k], c, 0, work};
    memset(c, 0, sizeof *c);
    rl_nd_blocks_of(job.mine, job.mine_dim, my_coord, &job.my_blocks);
    relay_status st = one_block_each(job.other, job.other_dim) ? meet_intervals(&job) : meet_cyclic(&job);
    if (!st && !c->first && !(c->first = malloc(sizeof *c->first))) st = RL_NOMEM();
    if (!st) c->first[c->ncoords] = c->runs.n;
    return st;
}

void rl_nd_dim_cut_free(rl_nd_dim_cut *c)
{
    free(c->coords);
    free(c->first);
    free(c->extent);
    free(c->runs.v);
    memset(c, 0, sizeof *c);
}
