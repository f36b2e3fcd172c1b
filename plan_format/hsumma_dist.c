/* hsumma_dist.c — what every rank derives from an HSUMMA plan's parameters
 * (hsumma_dist.h): how each dimension is distributed over the grid, the
 * outer and inner steps along k, each rank's place in the groups, the
 * groupings the grid allows, local sizes, and who moves how much.
 *
 * Pure arithmetic on the parameters: nothing here knows the plan object,
 * so the plan, its statistics, the codec, the executor and relay-dump all
 * walk the same steps from here. */
#include <string.h>

#include "hsumma_dist.h"

/* ---- one distributed dimension ------------------------------------------- */

int64_t rl_dim_part_start(const rl_dim *d, int part)
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
    return g - rl_dim_part_start(d, rl_dim_owner(d, g));
}

int64_t rl_dim_local_len(const rl_dim *d, int part)
{
    if (!d->block) return rl_dim_part_start(d, part + 1) - rl_dim_part_start(d, part);
    int64_t blocks = d->len / d->block, n = blocks / d->parts * d->block, extra = blocks % d->parts;
    return n + (part < extra ? d->block : part == extra ? d->len % d->block : 0);
}

int64_t rl_dim_run_end(const rl_dim *d, int64_t g)
{
    if (d->parts == 1) return d->len; /* one part holds everything, in order */
    if (!d->block) return rl_dim_part_start(d, rl_dim_owner(d, g) + 1);
    int64_t end = (g / d->block + 1) * d->block;
    return end < d->len ? end : d->len;
}

int64_t rl_dim_global(const rl_dim *d, int part, int64_t l)
{
    if (!d->block) return rl_dim_part_start(d, part) + l;
    return (l / d->block * d->parts + part) * d->block + l % d->block;
}

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

/* ---- steps and places ---------------------------------------------------- */

int64_t rl_hsumma_max_width(const relay_hsumma_params *p)
{
    rl_hsumma_dims d;
    rl_hsumma_dims_of(p, &d);
    int64_t w = rl_min64(p->outer_block, p->k);
    if (d.ka.parts > 1) w = rl_min64(w, d.ka.block ? d.ka.block : rl_dim_max_local_len(&d.ka));
    if (d.kb.parts > 1) w = rl_min64(w, d.kb.block ? d.kb.block : rl_dim_max_local_len(&d.kb));
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

/* ---- groupings and local sizes ------------------------------------------- */

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

void rl_hsumma_local_dims(const relay_hsumma_params *p, int which, int rank, int64_t *rows, int64_t *cols)
{
    rl_hsumma_dims d;
    rl_hsumma_dims_of(p, &d);
    int row = rank / p->grid_cols, col = rank % p->grid_cols;
    *rows = which == 1 ? rl_dim_local_len(&d.kb, row) : rl_dim_local_len(&d.m, row);
    *cols = which == 0 ? rl_dim_local_len(&d.ka, col) : rl_dim_local_len(&d.n, col);
}

int64_t rl_hsumma_local_elems(const relay_hsumma_params *p, int which, int rank)
{
    int64_t rows, cols;
    rl_hsumma_local_dims(p, which, rank, &rows, &cols);
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
