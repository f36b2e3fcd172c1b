/* hsumma.c — an HSUMMA plan's parameters and everything derived from them:
 * the distribution of each dimension, the outer and inner steps, each
 * rank's place in the groups and its traffic, the layouts, and the cost
 * model of section IV that chooses the groups.
 *
 * The model generalises the paper's square case: on an s x t grid with
 * I x J groups, an outer step of width B broadcasts A's panel (m/s rows on
 * average) over the J group columns and B's panel (n/t columns) over the I
 * group rows; an inner step of width b broadcasts inside the group, over
 * t/J and s/I ranks.  With T(bytes, q) = L(q) alpha + bytes W(q) beta:
 *   latency   = alpha (k/B (L(J) + L(I)) + k/b (L(t/J) + L(s/I)))
 *   bandwidth = beta esz k (m/s (W(J) + W(t/J)) + n/t (W(I) + W(s/I)))
 * For s = t = sqrt(p), I = J = sqrt(G), m = n = k and b = B these are
 * formulas (4) and (5), and Tables I and II follow (docs/design.md). */
#include <math.h>
#include <string.h>

#include "codec.h"
#include "error.h"
#include "hsumma_dist.h"

enum {
    MAX_DIM_LOG = 40,          /* m, n, k, blocks: at most 2^40 */
    MAX_STEPS_LOG = 26         /* inner steps of one replay: at most 2^26 */
};
#define MAX_DIM ((int64_t)1 << MAX_DIM_LOG)

/* ---- one distributed dimension ------------------------------------------ */

/* First index of part `part` of a balanced split. */
static int64_t part_start(const rl_dim *d, int part)
{
    int64_t q = d->len / d->parts, r = d->len % d->parts;
    return part * q + (part < r ? part : r);
}

int rl_dim_owner(const rl_dim *d, int64_t g)
{
    if (d->block) return (int)(g / d->block % d->parts);
    int64_t q = d->len / d->parts, r = d->len % d->parts;
    return g < r * (q + 1) ? (int)(g / (q + 1)) : (int)(r + (g - r * (q + 1)) / q);
}

int64_t rl_dim_local(const rl_dim *d, int64_t g)
{
    if (d->block) return g / (d->block * d->parts) * d->block + g % d->block;
    return g - part_start(d, rl_dim_owner(d, g));
}

int64_t rl_dim_local_len(const rl_dim *d, int part)
{
    if (!d->block) return part_start(d, part + 1) - part_start(d, part);
    int64_t blocks = d->len / d->block, n = blocks / d->parts * d->block, extra = blocks % d->parts;
    return n + (part < extra ? d->block : part == extra ? d->len % d->block : 0);
}

int64_t rl_dim_run_end(const rl_dim *d, int64_t g)
{
    if (d->parts == 1) return d->len; /* one part holds everything, in order */
    if (!d->block) return part_start(d, rl_dim_owner(d, g) + 1);
    int64_t end = (g / d->block + 1) * d->block;
    return end < d->len ? end : d->len;
}

int64_t rl_dim_global(const rl_dim *d, int part, int64_t l)
{
    if (!d->block) return part_start(d, part) + l;
    return (l / d->block * d->parts + part) * d->block + l % d->block;
}

/* Part 0 holds the most of any part, in both distributions. */
static int64_t max_local_len(const rl_dim *d) { return rl_dim_local_len(d, 0); }

/* Parts that hold anything. */
static int nonempty_parts(const rl_dim *d)
{
    int n = 0;
    for (int i = 0; i < d->parts; i++) n += rl_dim_local_len(d, i) > 0;
    return n;
}

void rl_hsumma_dims_of(const relay_hsumma_params *p, rl_hsumma_dims *d)
{
    int64_t blk = p->dist == RELAY_HSUMMA_BLOCK_CYCLIC ? p->dist_block : 0;
    d->m = (rl_dim){p->m, p->grid_rows, blk};
    d->n = (rl_dim){p->n, p->grid_cols, blk};
    d->ka = (rl_dim){p->k, p->grid_cols, blk};
    d->kb = (rl_dim){p->k, p->grid_rows, blk};
}

/* ---- steps and places ------------------------------------------------------ */

int64_t rl_hsumma_max_width(const relay_hsumma_params *p)
{
    rl_hsumma_dims d;
    rl_hsumma_dims_of(p, &d);
    int64_t w = rl_min64(p->outer_block, p->k);
    if (d.ka.parts > 1) w = rl_min64(w, d.ka.block ? d.ka.block : max_local_len(&d.ka));
    if (d.kb.parts > 1) w = rl_min64(w, d.kb.block ? d.kb.block : max_local_len(&d.kb));
    return w;
}

void rl_hsumma_outer_step(const relay_hsumma_params *p, const rl_hsumma_dims *d, int64_t k0, rl_outer_step *s)
{
    int64_t end = rl_min64((k0 / p->outer_block + 1) * p->outer_block, p->k);
    end = rl_min64(end, rl_min64(rl_dim_run_end(&d->ka, k0), rl_dim_run_end(&d->kb, k0)));
    *s = (rl_outer_step){k0, end, rl_dim_owner(&d->ka, k0), rl_dim_owner(&d->kb, k0), rl_dim_local(&d->ka, k0),
                         rl_dim_local(&d->kb, k0)};
}

void rl_hsumma_place_of(const relay_hsumma_params *p, int group_rows, int group_cols, int rank, rl_hsumma_place *pl)
{
    int I = group_rows > 0 ? group_rows : 1, J = group_cols > 0 ? group_cols : 1;
    pl->row = rank / p->grid_cols;
    pl->col = rank % p->grid_cols;
    pl->group_rows = I;
    pl->group_cols = J;
    pl->in_rows = p->grid_rows / I;
    pl->in_cols = p->grid_cols / J;
    pl->x = pl->row / pl->in_rows;
    pl->i = pl->row % pl->in_rows;
    pl->y = pl->col / pl->in_cols;
    pl->j = pl->col % pl->in_cols;
}

/* ---- checking parameters ------------------------------------------------- */

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

static relay_status check_shape(const relay_hsumma_params *p, relay_status code)
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
    int64_t mloc = max_local_len(&d.m), nloc = max_local_len(&d.n), width = rl_hsumma_max_width(p);
    int64_t ka = max_local_len(&d.ka), kb = max_local_len(&d.kb);
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
    relay_status st = check_shape(p, code);
    return st ? st : check_counts(p, code);
}

int64_t rl_hsumma_local_elems(const relay_hsumma_params *p, int which, int rank)
{
    rl_hsumma_dims d;
    rl_hsumma_dims_of(p, &d);
    int row = rank / p->grid_cols, col = rank % p->grid_cols;
    int64_t rows = which == 1 ? rl_dim_local_len(&d.kb, row) : rl_dim_local_len(&d.m, row);
    int64_t cols = which == 0 ? rl_dim_local_len(&d.ka, col) : rl_dim_local_len(&d.n, col);
    return rows * cols;
}

/* ---- traffic ------------------------------------------------------------- */

/* One panel of `bytes` on its way along a grid row (A) or column (B):
 * from its owner to the owner's position in the other groups (outer, over
 * `outer_size` ranks), then from there inside each group in `ninner`
 * pieces (over `inner_size` ranks). */
static void panel_traffic(rl_hsumma_traffic *t, int64_t bytes, int64_t ninner, int owner, int on_root_line,
                          int outer_size, int inner_size)
{
    if (!bytes) return;
    if (owner) {
        t->local_bytes += bytes;
        t->send_bytes += bytes * (outer_size - 1);
        t->send_msgs += outer_size - 1;
    } else if (on_root_line) {
        t->recv_bytes += bytes;
        t->recv_msgs++;
    }
    if (on_root_line) {
        t->send_bytes += bytes * (inner_size - 1);
        t->send_msgs += ninner * (inner_size - 1);
    } else {
        t->recv_bytes += bytes;
        t->recv_msgs += ninner;
    }
}

void rl_hsumma_line_traffic(const relay_hsumma_params *p, int is_row, int index, rl_hsumma_traffic *t)
{
    rl_hsumma_dims d;
    rl_hsumma_place pl;
    rl_outer_step s;
    rl_hsumma_dims_of(p, &d);
    rl_hsumma_place_of(p, p->group_rows, p->group_cols, is_row ? index * p->grid_cols : index, &pl);
    memset(t, 0, sizeof *t);
    for (int64_t k0 = 0; k0 < p->k; k0 = s.k1) {
        rl_hsumma_outer_step(p, &d, k0, &s);
        int64_t w = s.k1 - s.k0, ninner = rl_hsumma_inner_count(p, &s);
        if (is_row) panel_traffic(t, w, ninner, pl.row == s.b_row, pl.i == s.b_row % pl.in_rows, pl.group_rows, pl.in_rows);
        else panel_traffic(t, w, ninner, pl.col == s.a_col, pl.j == s.a_col % pl.in_cols, pl.group_cols, pl.in_cols);
    }
}

/* Adds a line's traffic for panels of `bytes` per k index (none if 0). */
static void add_scaled(rl_hsumma_traffic *t, const rl_hsumma_traffic *line, int64_t bytes)
{
    if (!bytes) return;
    t->send_bytes += line->send_bytes * bytes;
    t->recv_bytes += line->recv_bytes * bytes;
    t->local_bytes += line->local_bytes * bytes;
    t->send_msgs += line->send_msgs;
    t->recv_msgs += line->recv_msgs;
}

void rl_hsumma_combine_traffic(const relay_hsumma_params *p, int rank, const rl_hsumma_traffic *a_col,
                               const rl_hsumma_traffic *b_row, rl_hsumma_traffic *t)
{
    rl_hsumma_dims d;
    rl_hsumma_dims_of(p, &d);
    int64_t esz = (int64_t)relay_type_size(p->type);
    memset(t, 0, sizeof *t);
    add_scaled(t, a_col, rl_dim_local_len(&d.m, rank / p->grid_cols) * esz);
    add_scaled(t, b_row, rl_dim_local_len(&d.n, rank % p->grid_cols) * esz);
}

void rl_hsumma_rank_traffic(const relay_hsumma_params *p, int rank, rl_hsumma_traffic *t)
{
    rl_hsumma_traffic a, b;
    rl_hsumma_line_traffic(p, 0, rank % p->grid_cols, &a);
    rl_hsumma_line_traffic(p, 1, rank / p->grid_cols, &b);
    rl_hsumma_combine_traffic(p, rank, &a, &b, t);
}

/* The plan's totals, one outer step at a time: every rank off a panel's
 * owner line receives it (broadcast counted per receiver), the owners copy
 * it once, and each non-empty grid row (column) receives J-1 outer and
 * (t-J) * ninner inner messages of A's panel (likewise for B). */
void rl_hsumma_stats(const relay_hsumma_params *p, relay_plan_stats *st, int64_t *outer, int64_t *inner)
{
    rl_hsumma_dims d;
    rl_outer_step s;
    rl_hsumma_dims_of(p, &d);
    int I = p->group_rows ? p->group_rows : 1, J = p->group_cols ? p->group_cols : 1;
    int64_t esz = (int64_t)relay_type_size(p->type), rows = nonempty_parts(&d.m), cols = nonempty_parts(&d.n);
    memset(st, 0, sizeof *st);
    *outer = *inner = 0;
    for (int64_t k0 = 0; k0 < p->k; k0 = s.k1) {
        rl_hsumma_outer_step(p, &d, k0, &s);
        int64_t w = s.k1 - s.k0, ninner = rl_hsumma_inner_count(p, &s);
        st->bytes_remote += w * esz * (p->m * (p->grid_cols - 1) + p->n * (p->grid_rows - 1));
        st->bytes_total += w * esz * (p->m + p->n);
        st->messages += rows * (J - 1 + (p->grid_cols - J) * ninner) + cols * (I - 1 + (p->grid_rows - I) * ninner);
        ++*outer;
        *inner += ninner;
    }
    st->bytes_total += st->bytes_remote;
    st->bytes_remote_identity = st->bytes_remote;
    st->pieces = *inner;
}

relay_status rl_hsumma_plan_new(relay_plan **out, const relay_hsumma_params *params, relay_hsumma_groups_from from)
{
    relay_status st = rl_hsumma_check(params, RELAY_ERR_ARG);
    if (st) return st;
    relay_plan *p = rl_plan_alloc(params->grid_rows * params->grid_cols, 0);
    rl_hsumma *h = p ? calloc(1, sizeof *h) : NULL;
    if (!h) {
        relay_plan_free(p);
        return RL_NOMEM();
    }
    h->params = *params;
    if (h->params.dist == RELAY_HSUMMA_CHECKERBOARD) h->params.dist_block = 0;
    h->groups_from = from;
    p->hsumma = h;
    p->kind = RELAY_PLAN_HSUMMA;
    p->type = params->type;
    p->schedule = RELAY_SCHED_P2P;
    int64_t outer, inner;
    rl_hsumma_stats(&h->params, &p->stats, &outer, &inner);
    p->rounds = (int32_t)(outer + inner);
    p->fingerprint = rl_plan_hash(p, NULL);
    *out = p;
    return RELAY_OK;
}

/* ---- the plan file's fields -------------------------------------------------- */

const char *const rl_hsumma_keys[RL_HS_INTS] = {"m", "n", "k", "grid_rows", "grid_cols", "group_rows", "group_cols",
                                                "inner_block", "outer_block", "dist", "dist_block", "bcast", "groups_from"};

void rl_hsumma_to_ints(const rl_hsumma *h, int64_t *v)
{
    const relay_hsumma_params *p = &h->params;
    int64_t f[RL_HS_INTS] = {p->m, p->n, p->k, p->grid_rows, p->grid_cols, p->group_rows, p->group_cols, p->inner_block,
                             p->outer_block, p->dist, p->dist_block, p->network.bcast, h->groups_from};
    memcpy(v, f, sizeof f);
}

relay_status rl_hsumma_from_ints(rl_hsumma *h, const int64_t *v, relay_type type, double alpha, double beta, int64_t nranks)
{
    relay_hsumma_params *p = &h->params;
    *p = (relay_hsumma_params){.m = v[RL_HS_M], .n = v[RL_HS_N], .k = v[RL_HS_K], .grid_rows = (int)v[RL_HS_GRID_ROWS],
                               .grid_cols = (int)v[RL_HS_GRID_COLS], .group_rows = (int)v[RL_HS_GROUP_ROWS],
                               .group_cols = (int)v[RL_HS_GROUP_COLS], .inner_block = v[RL_HS_INNER],
                               .outer_block = v[RL_HS_OUTER], .dist = (relay_hsumma_dist)v[RL_HS_DIST],
                               .dist_block = v[RL_HS_DIST_BLOCK], .type = type,
                               .network = {alpha, beta, (relay_bcast_model)v[RL_HS_BCAST]}};
    h->groups_from = (relay_hsumma_groups_from)v[RL_HS_GROUPS_FROM];
    relay_status st = rl_hsumma_check(p, RELAY_ERR_FORMAT);
    if (st) return st;
    if ((int64_t)p->grid_rows * p->grid_cols != nranks)
        return rl_fail(RELAY_ERR_FORMAT, "HSUMMA plan's %d x %d grid is not its %lld ranks", p->grid_rows, p->grid_cols,
                       (long long)nranks);
    if (p->dist == RELAY_HSUMMA_CHECKERBOARD && p->dist_block != 0)
        return rl_fail(RELAY_ERR_FORMAT, "HSUMMA plan is checkerboard but has a block-cyclic block (%lld)", (long long)p->dist_block);
    int model = h->groups_from == RELAY_GROUPS_MODEL;
    if ((h->groups_from == RELAY_GROUPS_AT_BIND) != (p->group_rows == 0) || h->groups_from < RELAY_GROUPS_GIVEN ||
        h->groups_from > RELAY_GROUPS_AUTOTUNE || (model && !(p->network.alpha > 0 && p->network.beta > 0)))
        return rl_fail(RELAY_ERR_FORMAT, "HSUMMA plan's groups (%d x %d) and their origin (%d) disagree", p->group_rows,
                       p->group_cols, (int)h->groups_from);
    return RELAY_OK;
}

/* ---- the public parts ------------------------------------------------------ */

relay_status relay_hsumma_params_init(relay_hsumma_params *p, int64_t m, int64_t n, int64_t k, int grid_rows, int grid_cols,
                                      relay_type type)
{
    if (!p) return rl_fail(RELAY_ERR_ARG, "relay_hsumma_params_init: params is NULL");
    *p = (relay_hsumma_params){.m = m, .n = n, .k = k, .grid_rows = grid_rows, .grid_cols = grid_cols, .inner_block = 64,
                               .outer_block = 64, .dist = RELAY_HSUMMA_CHECKERBOARD, .dist_block = 64, .type = type,
                               .network = {0, 0, RELAY_BCAST_VAN_DE_GEIJN}};
    return RELAY_OK;
}

static const rl_hsumma *hsumma_of(const relay_plan *p, const char *what)
{
    if (!p || !p->hsumma) rl_fail(RELAY_ERR_ARG, "%s: %s", what, p ? "not an HSUMMA plan" : "plan is NULL");
    return p ? p->hsumma : NULL;
}

relay_status relay_plan_hsumma_info(const relay_plan *p, relay_hsumma_info *info)
{
    const rl_hsumma *h = hsumma_of(p, "relay_plan_hsumma_info");
    if (!h || !info) return h ? rl_fail(RELAY_ERR_ARG, "relay_plan_hsumma_info: info is NULL") : RELAY_ERR_ARG;
    relay_plan_stats unused;
    info->params = h->params;
    info->groups_from = h->groups_from;
    rl_hsumma_stats(&h->params, &unused, &info->outer_steps, &info->inner_steps);
    return RELAY_OK;
}

/* A checkerboard dimension's split points, leaving out empty trailing parts. */
static int checkerboard_splits(const rl_dim *d, int64_t *splits)
{
    int n = 0;
    splits[0] = 0;
    for (int i = 0; i < d->parts; i++)
        if (rl_dim_local_len(d, i) > 0) splits[++n] = part_start(d, i + 1);
    return n;
}

static relay_status checkerboard_layout(int nranks, const rl_dim *rows, const rl_dim *cols, relay_layout **out)
{
    int64_t *rs = rl_malloc_array((size_t)rows->parts + 1, sizeof *rs), *cs = rl_malloc_array((size_t)cols->parts + 1, sizeof *cs);
    int *owners = rl_malloc_array((size_t)rows->parts * (size_t)cols->parts, sizeof *owners);
    relay_status st = rs && cs && owners ? RELAY_OK : RL_NOMEM();
    if (!st) {
        int nbr = checkerboard_splits(rows, rs), nbc = checkerboard_splits(cols, cs);
        for (int i = 0; i < nbr; i++)
            for (int j = 0; j < nbc; j++) owners[i * nbc + j] = i * cols->parts + j;
        st = relay_layout_grid(out, nranks, rows->len, cols->len, nbr, rs, nbc, cs, owners, NULL, NULL, RELAY_COL_MAJOR);
    }
    free(rs);
    free(cs);
    free(owners);
    return st;
}

relay_status relay_plan_hsumma_layout(const relay_plan *p, int which, relay_layout **out)
{
    const rl_hsumma *h = hsumma_of(p, "relay_plan_hsumma_layout");
    if (!h) return RELAY_ERR_ARG;
    if (!out || which < 0 || which > 2) return rl_fail(RELAY_ERR_ARG, "relay_plan_hsumma_layout: which must be 0 (A), 1 (B) or 2 (C)");
    const relay_hsumma_params *hp = &h->params;
    rl_hsumma_dims d;
    rl_hsumma_dims_of(hp, &d);
    const rl_dim *rows = which == 1 ? &d.kb : &d.m, *cols = which == 0 ? &d.ka : &d.n;
    if (hp->dist == RELAY_HSUMMA_BLOCK_CYCLIC)
        return relay_layout_block_cyclic(out, rows->len, cols->len, hp->dist_block, hp->dist_block, hp->grid_rows, hp->grid_cols,
                                         RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    return checkerboard_layout(p->nranks, rows, cols, out);
}

/* ---- the cost model ---------------------------------------------------------- */

/* L(q) and W(q) of the broadcast model; both 0 for one rank. */
static double bcast_latency(relay_bcast_model m, double q)
{
    return q <= 1 ? 0 : m == RELAY_BCAST_BINOMIAL ? log2(q) : log2(q) + q - 1;
}

static double bcast_bandwidth(relay_bcast_model m, double q)
{
    return q <= 1 ? 0 : m == RELAY_BCAST_BINOMIAL ? log2(q) : 2 * (q - 1) / q;
}

static void model_cost(const relay_hsumma_params *p, int I, int J, const relay_hsumma_network *net, double *lat, double *bw)
{
    double s = p->grid_rows, t = p->grid_cols, k = (double)p->k, esz = (double)relay_type_size(p->type);
    relay_bcast_model m = net->bcast;
    double outer = k / (double)p->outer_block, inner = k / (double)p->inner_block;
    *lat = net->alpha * (outer * (bcast_latency(m, J) + bcast_latency(m, I)) +
                         inner * (bcast_latency(m, t / J) + bcast_latency(m, s / I)));
    *bw = net->beta * esz * k * ((double)p->m / s * (bcast_bandwidth(m, J) + bcast_bandwidth(m, t / J)) +
                                 (double)p->n / t * (bcast_bandwidth(m, I) + bcast_bandwidth(m, s / I)));
}

static relay_status check_model_args(const relay_hsumma_params *p, const relay_hsumma_network *net, const char *what)
{
    if (!p || !net) return rl_fail(RELAY_ERR_ARG, "%s: NULL argument", what);
    relay_hsumma_params q = *p;
    q.group_rows = q.group_cols = 0;
    q.network = *net;
    return check_shape(&q, RELAY_ERR_ARG);
}

relay_status relay_hsumma_model(const relay_hsumma_params *p, int group_rows, int group_cols, const relay_hsumma_network *net,
                                double *seconds, double *latency, double *bandwidth)
{
    relay_status st = check_model_args(p, net, "relay_hsumma_model");
    if (st) return st;
    if (!seconds) return rl_fail(RELAY_ERR_ARG, "relay_hsumma_model: seconds is NULL");
    if (group_rows < 1 || group_cols < 1 || p->grid_rows % group_rows || p->grid_cols % group_cols)
        return rl_fail(RELAY_ERR_ARG, "relay_hsumma_model: %d x %d groups do not tile the %d x %d grid", group_rows, group_cols,
                       p->grid_rows, p->grid_cols);
    double lat, bw;
    model_cost(p, group_rows, group_cols, net, &lat, &bw);
    *seconds = lat + bw;
    if (latency) *latency = lat;
    if (bandwidth) *bandwidth = bw;
    return RELAY_OK;
}

int rl_hsumma_next_grouping(const relay_hsumma_params *p, int *I, int *J)
{
    if (*I < 1) {
        *I = *J = 1;
        return 1;
    }
    do {
        if (++*J > p->grid_cols) {
            *J = 1;
            if (++*I > p->grid_rows) return 0;
        }
    } while (p->grid_rows % *I || p->grid_cols % *J);
    return 1;
}

relay_status relay_hsumma_best_groups(const relay_hsumma_params *p, const relay_hsumma_network *net, int *group_rows,
                                      int *group_cols)
{
    relay_status st = check_model_args(p, net, "relay_hsumma_best_groups");
    if (st) return st;
    if (!group_rows || !group_cols) return rl_fail(RELAY_ERR_ARG, "relay_hsumma_best_groups: NULL argument");
    double best = INFINITY;
    int bi = 1, bj = 1;
    for (int I = 0, J = 0; rl_hsumma_next_grouping(p, &I, &J);) {
        double lat, bw;
        model_cost(p, I, J, net, &lat, &bw);
        /* Within rounding of the best, fewer groups win (SUMMA first). */
        int tie = isfinite(best) && fabs(lat + bw - best) <= 1e-12 * best;
        if (tie ? (int64_t)I * J < (int64_t)bi * bj : lat + bw < best) {
            best = tie ? best : lat + bw;
            bi = I;
            bj = J;
        }
    }
    *group_rows = bi;
    *group_cols = bj;
    return RELAY_OK;
}
