/* lattice_side.c — lists of lattices and a rank's side of a section made
 * of them (see lattice_side.h). */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "lattice_side.h"

int rl_lattice_list_push(rl_lattice_list *list, rl_ended_lattice e)
{
    if (list->n == list->cap) {
        int64_t cap = list->cap ? 2 * list->cap : 64;
        rl_ended_lattice *grown = realloc(list->v, (size_t)cap * sizeof *grown);
        if (!grown) return 0;
        list->v = grown;
        list->cap = cap;
    }
    list->v[list->n++] = e;
    return 1;
}

static int cmp64(int64_t a, int64_t b) { return (a > b) - (a < b); }

int rl_lattice_cmp_place(const rl_lattice *x, const rl_lattice *y)
{
    if (x->pair != y->pair) return cmp64(x->pair, y->pair);
    if (x->c0 != y->c0) return cmp64(x->c0, y->c0);
    return cmp64(x->r0, y->r0);
}

static int by_receiver(const void *a, const void *b)
{
    const rl_ended_lattice *x = a, *y = b;
    return x->receiver != y->receiver ? cmp64(x->receiver, y->receiver) : rl_lattice_cmp_place(&x->l, &y->l);
}

static int by_sender(const void *a, const void *b)
{
    const rl_ended_lattice *x = a, *y = b;
    return x->sender != y->sender ? cmp64(x->sender, y->sender) : rl_lattice_cmp_place(&x->l, &y->l);
}

void rl_lattice_side_free(rl_lattice_side *s)
{
    free(s->msgs);
    free(s->lattices);
    free(s->local);
    memset(s, 0, sizeof *s);
}

/* Splits lattices sorted by peer into messages and local lattices (the
 * rank's own, kept on the send side only). */
static relay_status split(const rl_lattice_list *list, int rank, int send_side, rl_lattice_side *s)
{
    s->lattices = rl_malloc_array((size_t)list->n, sizeof *s->lattices);
    s->local = rl_malloc_array((size_t)list->n, sizeof *s->local);
    s->msgs = rl_malloc_array((size_t)list->n, sizeof *s->msgs);
    if (!s->lattices || !s->local || !s->msgs) return RL_NOMEM();
    for (int64_t i = 0; i < list->n; i++) {
        const rl_ended_lattice *e = &list->v[i];
        int64_t peer = send_side ? e->receiver : e->sender;
        if (peer == rank) {
            if (send_side) s->local[s->nlocal++] = e->l;
            continue;
        }
        if (s->nmsg == 0 || s->msgs[s->nmsg - 1].peer != peer)
            s->msgs[s->nmsg++] = (rl_message){peer, s->nlattices, 0, 0};
        s->msgs[s->nmsg - 1].count++;
        s->msgs[s->nmsg - 1].elems += e->l.rows * e->l.cols * rl_lattice_npieces(&e->l);
        s->lattices[s->nlattices++] = e->l;
    }
    return RELAY_OK;
}

relay_status rl_lattice_side_build(rl_lattice_list *list, int rank, int send_side, rl_lattice_side *out)
{
    memset(out, 0, sizeof *out);
    if (list->n) qsort(list->v, (size_t)list->n, sizeof *list->v, send_side ? by_receiver : by_sender);
    relay_status st = split(list, rank, send_side, out);
    if (st) rl_lattice_side_free(out);
    return st;
}

/* Pieces stack (travel as one unit along a dimension although they do not
 * touch) where both buffers run along that dimension, the pieces are short
 * along it and lie near one another on both sides: 8 x 8 pieces every
 * other block down A's columns.  The message then holds, for each column,
 * that column of every piece in turn, so that packing reads B and
 * unpacking writes A down their columns while the message is read or
 * written straight through (transform_pack.c moves such columns across
 * the pieces): as pieces, each unpacked column of 64 bytes was read from
 * a place of its own in the message, 2 x 2 4000^2 copies unpacking at
 * half the speed. */
enum { STACKED_RUN_BYTES = 256, STACKED_STEP_BYTES = 4096 };

static int stacks(int64_t count, int64_t len, int64_t src_stride, int64_t dst_stride, int64_t src_step,
                  int64_t dst_step, int64_t esz)
{
    return count > 1 && src_stride == 1 && dst_stride == 1 && len <= STACKED_RUN_BYTES / esz &&
           llabs(src_step) <= STACKED_STEP_BYTES / esz && llabs(dst_step) <= STACKED_STEP_BYTES / esz;
}

/* How a lattice travels: as one unit along each dimension where its
 * pieces touch in both buffers (each starts where the one before ends, in
 * B through op and in A) or stack, as its pieces elsewhere. */
static int64_t fusion(const rl_lattice *l, const rl_pair *pair, int64_t esz)
{
    int64_t brs, bcs, ars, acs, fused = 0;
    rl_strides(pair->src->order, l->src_ld, rl_op_transposes(pair->op), &brs, &bcs);
    rl_strides(pair->dst_relabeled->order, l->dst_ld, 0, &ars, &acs);
    if ((l->count_r > 1 && l->src_di == l->rows * brs && l->dst_di == l->rows * ars) ||
        stacks(l->count_r, l->rows, brs, ars, l->src_di, l->dst_di, esz))
        fused |= RL_FUSED_ROWS;
    if ((l->count_c > 1 && l->src_dj == l->cols * bcs && l->dst_dj == l->cols * acs) ||
        stacks(l->count_c, l->cols, bcs, acs, l->src_dj, l->dst_dj, esz))
        fused |= RL_FUSED_COLS;
    return fused;
}

rl_span rl_lattice_half(const rl_lattice *l, const rl_pair *pair, int64_t esz, int receiving)
{
    int64_t f = fusion(l, pair, esz);
    return receiving ? (rl_span){l->pair, l->rows, l->cols, l->count_r, l->count_c, l->dst_off, l->dst_di, l->dst_dj, l->dst_ld, f}
                     : (rl_span){l->pair, l->rows, l->cols, l->count_r, l->count_c, l->src_off, l->src_di, l->src_dj, l->src_ld, f};
}

rl_local_span rl_lattice_local(const rl_lattice *l)
{
    return (rl_local_span){l->pair,    l->rows,   l->cols,   l->count_r, l->count_c, l->src_off, l->src_di,
                           l->src_dj,  l->src_ld, l->dst_off, l->dst_di, l->dst_dj,  l->dst_ld};
}
