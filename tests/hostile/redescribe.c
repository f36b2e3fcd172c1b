/* redescribe.c — one end of a message described otherwise (redescribe.h). */
#include <stdlib.h>
#include <string.h>

#include "redescribe.h"

relay_plan *redescribe_decoded_plan(int nranks, const relay_layout *a, const relay_layout *b, relay_op op, int64_t cap)
{
    relay_plan *p = NULL, *q = NULL;
    void *buf = NULL;
    size_t len = 0;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.max_buffer_bytes = cap;
    if (a && b && !relay_plan_transform(&p, nranks, a, b, op, RELAY_DOUBLE, &o) && !relay_plan_encode(p, &buf, &len))
        relay_plan_decode(&q, buf, len, -1);
    relay_plan_free(p);
    free(buf);
    return q;
}

/* A lattice cut in two at a piece column (several pieces across) or at a
 * column of its one piece: column-major elements, op N, so that the
 * message packs as before (pieces, and a piece's columns, go one after
 * another). */
static void split_lattice(const rl_span *whole, rl_span *left, rl_span *right)
{
    *left = *right = *whole;
    if (whole->count_c > 1) {
        left->count_c = whole->count_c / 2;
        right->count_c = whole->count_c - left->count_c;
        right->off += left->count_c * whole->step_c;
        if (left->count_c == 1) left->step_c = 0;
        if (right->count_c == 1) right->step_c = 0;
    } else {
        left->cols = whole->cols / 2;
        right->cols = whole->cols - left->cols;
        right->off += left->cols * whole->ld;
    }
}

static int splits(const rl_span *sp, redescribe_split kind)
{
    int across_pieces = sp->count_c > 1, across_columns = sp->count_c == 1 && sp->count_r == 1 && sp->cols > 1;
    if (sp->fused) return 0;
    if (kind == REDESCRIBE_PIECE_COLUMNS) return across_pieces;
    return kind == REDESCRIBE_COLUMNS ? across_columns : across_pieces || across_columns;
}

/* Splits the first lattice of the messages msg that `kind` allows, the
 * lattices (nspans of them) growing by one. */
static int split_first(rl_message *msg, int nmsg, rl_span **spans, int64_t *nspans, redescribe_split kind)
{
    for (int k = 0; k < nmsg; k++)
        for (int64_t x = msg[k].first; x < msg[k].first + msg[k].count; x++) {
            if (!splits(&(*spans)[x], kind)) continue;
            rl_span *more = realloc(*spans, (size_t)(*nspans + 1) * sizeof *more);
            if (!more) return 0;
            *spans = more;
            memmove(&more[x + 2], &more[x + 1], (size_t)(*nspans - x - 1) * sizeof *more);
            rl_span whole = more[x];
            split_lattice(&whole, &more[x], &more[x + 1]);
            (*nspans)++;
            msg[k].count++;
            for (int q = k + 1; q < nmsg; q++) msg[q].first++;
            return 1;
        }
    return 0;
}

int redescribe_split_send(rl_section *s, redescribe_split kind)
{
    return split_first(s->send, s->nsend, &s->send_spans, &s->nsend_spans, kind);
}

int redescribe_split_receive(rl_section *s, redescribe_split kind)
{
    return split_first(s->recv, s->nrecv, &s->recv_spans, &s->nrecv_spans, kind);
}

int redescribe_fuse_across_blocks(const relay_plan *p, rl_section *s)
{
    for (int64_t x = 0; x < s->nrecv_spans; x++) {
        rl_span *sp = &s->recv_spans[x], was = *sp;
        if (sp->fused || sp->count_r != 2 || sp->count_c != 1 || sp->step_r != sp->rows * sp->cols || sp->ld != sp->rows)
            continue;
        sp->fused = RL_FUSED_ROWS;
        sp->step_r = sp->rows;
        sp->ld = 2 * sp->rows;
        if (rl_section_validate(s, p) == RELAY_OK) return 1;
        *sp = was;
    }
    return 0;
}

relay_layout *redescribe_direct_columns(int nranks, int64_t nb)
{
    relay_layout *l = NULL;
    relay_layout_block_cyclic(&l, REDESCRIBE_ROWS, 48 * (int64_t)nranks, REDESCRIBE_ROWS, nb, 1, nranks, RELAY_ROW_MAJOR, 0, 0,
                              0, RELAY_COL_MAJOR);
    return l;
}

relay_layout *redescribe_stacked(int nranks, int blocks, int owner)
{
    int64_t r = REDESCRIBE_STACK_ROWS, rows[] = {0, blocks == 2 ? r : 2 * r, 2 * r}, cols[] = {0, REDESCRIBE_STACK_COLS};
    int owners[] = {owner, owner};
    relay_layout *l = NULL;
    relay_layout_grid(&l, nranks, 2 * r, REDESCRIBE_STACK_COLS, blocks, rows, 1, cols, owners, NULL, NULL, RELAY_COL_MAJOR);
    return l;
}
