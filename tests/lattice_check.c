/* lattice_check.c — checks the lattice tests share (see lattice_check.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lattice_check.h"

/* ---- every rank's sides ----------------------------------------------------- */

void lc_sides_build(lc_sides *s, const rl_pair *pairs, int count, int nranks)
{
    rl_batch *b;
    assert_int_equal(rl_batch_create(&b, pairs, count, RELAY_DOUBLE), RELAY_OK);
    s->nranks = nranks;
    s->send = calloc((size_t)nranks, sizeof *s->send);
    s->recv = calloc((size_t)nranks, sizeof *s->recv);
    for (int r = 0; r < nranks; r++) {
        assert_int_equal(rl_batch_side(b, r, 1, &s->send[r]), RELAY_OK);
        assert_int_equal(rl_batch_side(b, r, 0, &s->recv[r]), RELAY_OK);
    }
    rl_batch_free(b);
}

void lc_sides_free(lc_sides *s)
{
    for (int r = 0; r < s->nranks; r++) {
        rl_lattice_side_free(&s->send[r]);
        rl_lattice_side_free(&s->recv[r]);
    }
    free(s->send);
    free(s->recv);
}

int64_t lc_send_lattices(const lc_sides *s, int rank) { return s->send[rank].nlattices + s->send[rank].nlocal; }
int64_t lc_recv_lattices(const lc_sides *s, int rank) { return s->recv[rank].nlattices; }

/* ---- form ------------------------------------------------------------------------ */

static void in_canonical_order(const rl_lattice *l, int64_t n)
{
    for (int64_t q = 1; q < n; q++) {
        const rl_lattice *x = &l[q - 1], *y = &l[q];
        assert_true(x->pair < y->pair || (x->pair == y->pair && (x->c0 < y->c0 || (x->c0 == y->c0 && x->r0 < y->r0))));
    }
}

/* Steps along one counter: all positive when it counts more than one
 * piece, all zero when it counts one. */
static void steps_fit(int64_t count, int64_t g, int64_t src, int64_t dst)
{
    assert_true(count >= 1);
    if (count == 1) assert_true(g == 0 && src == 0 && dst == 0);
    else assert_true(g > 0 && src > 0 && dst > 0);
}

static void lattice_form(const rl_lattice *l)
{
    assert_true(l->rows > 0 && l->cols > 0);
    steps_fit(l->count_r, l->grs, l->src_di, l->dst_di);
    steps_fit(l->count_c, l->gcs, l->src_dj, l->dst_dj);
}

static void side_form(const rl_lattice_side *side)
{
    int64_t next = 0;
    for (int32_t m = 0; m < side->nmsg; m++) {
        const rl_message *msg = &side->msgs[m];
        int64_t elems = 0;
        if (m) assert_true(msg->peer > side->msgs[m - 1].peer);
        assert_int_equal(msg->first, next);
        assert_true(msg->count > 0);
        for (int64_t q = 0; q < msg->count; q++) {
            const rl_lattice *l = &side->lattices[msg->first + q];
            lattice_form(l);
            elems += l->rows * l->cols * rl_lattice_npieces(l);
        }
        assert_int_equal(msg->elems, elems);
        in_canonical_order(&side->lattices[msg->first], msg->count);
        next += msg->count;
    }
    assert_int_equal(next, side->nlattices);
    for (int64_t q = 0; q < side->nlocal; q++) lattice_form(&side->local[q]);
    in_canonical_order(side->local, side->nlocal);
}

void lc_check_form(const lc_sides *s)
{
    for (int r = 0; r < s->nranks; r++) {
        side_form(&s->send[r]);
        side_form(&s->recv[r]);
        assert_int_equal(s->recv[r].nlocal, 0);
    }
}

/* ---- agreement ------------------------------------------------------------------ */

static const rl_message *message_with(const rl_lattice_side *side, int64_t peer)
{
    for (int32_t m = 0; m < side->nmsg; m++)
        if (side->msgs[m].peer == peer) return &side->msgs[m];
    return NULL;
}

void lc_check_ends(const lc_sides *s)
{
    int64_t sends = 0, recvs = 0;
    for (int r = 0; r < s->nranks; r++) {
        const rl_lattice_side *out = &s->send[r];
        for (int32_t m = 0; m < out->nmsg; m++) {
            const rl_message *msg = &out->msgs[m];
            assert_true(msg->peer >= 0 && msg->peer < s->nranks && msg->peer != r);
            const rl_lattice_side *in = &s->recv[msg->peer];
            const rl_message *back = message_with(in, r);
            assert_non_null(back);
            assert_int_equal(back->count, msg->count);
            assert_int_equal(back->elems, msg->elems);
            assert_memory_equal(&in->lattices[back->first], &out->lattices[msg->first],
                                (size_t)msg->count * sizeof *out->lattices);
        }
        sends += out->nmsg;
        recvs += s->recv[r].nmsg;
    }
    assert_int_equal(sends, recvs);
}

static void same_side(const rl_lattice_side *x, const rl_lattice_side *y)
{
    assert_int_equal(x->nmsg, y->nmsg);
    assert_int_equal(x->nlattices, y->nlattices);
    assert_int_equal(x->nlocal, y->nlocal);
    if (x->nmsg) assert_memory_equal(x->msgs, y->msgs, (size_t)x->nmsg * sizeof *x->msgs);
    if (x->nlattices) assert_memory_equal(x->lattices, y->lattices, (size_t)x->nlattices * sizeof *x->lattices);
    if (x->nlocal) assert_memory_equal(x->local, y->local, (size_t)x->nlocal * sizeof *x->local);
}

void lc_check_alone(const lc_sides *s, const rl_pair *pairs, int count, int rank)
{
    rl_batch *b;
    rl_lattice_side send, recv;
    assert_int_equal(rl_batch_create(&b, pairs, count, RELAY_DOUBLE), RELAY_OK);
    assert_int_equal(rl_batch_side(b, rank, 1, &send), RELAY_OK);
    assert_int_equal(rl_batch_side(b, rank, 0, &recv), RELAY_OK);
    same_side(&send, &s->send[rank]);
    same_side(&recv, &s->recv[rank]);
    rl_lattice_side_free(&send);
    rl_lattice_side_free(&recv);
    rl_batch_free(b);
}

/* ---- the plan's sections ---------------------------------------------------------- */

/* The section's half of a lattice: its fields (how it travels, `fused`,
 * is the executor's business, checked by the MPI tests end to end). */
static void same_span(const rl_span *sp, const rl_lattice *l, int receiving)
{
    rl_span want = {l->pair, l->rows, l->cols, l->count_r, l->count_c,
                    receiving ? l->dst_off : l->src_off, receiving ? l->dst_di : l->src_di,
                    receiving ? l->dst_dj : l->src_dj, receiving ? l->dst_ld : l->src_ld, sp->fused};
    assert_memory_equal(sp, &want, sizeof want);
}

static void same_messages(const rl_message *msgs, int32_t nmsg, const rl_span *spans, int64_t nspans,
                          const rl_lattice_side *side, int receiving)
{
    assert_int_equal(nmsg, side->nmsg);
    assert_int_equal(nspans, side->nlattices);
    if (nmsg) assert_memory_equal(msgs, side->msgs, (size_t)nmsg * sizeof *msgs);
    for (int64_t q = 0; q < nspans; q++) same_span(&spans[q], &side->lattices[q], receiving);
}

void lc_check_plan(const lc_sides *s, const relay_plan *p)
{
    for (int r = 0; r < s->nranks; r++) {
        const rl_section *sec = p->sections[r];
        same_messages(sec->send, sec->nsend, sec->send_spans, sec->nsend_spans, &s->send[r], 0);
        same_messages(sec->recv, sec->nrecv, sec->recv_spans, sec->nrecv_spans, &s->recv[r], 1);
        assert_int_equal(sec->nlocal, s->send[r].nlocal);
        for (int64_t q = 0; q < sec->nlocal; q++) {
            const rl_lattice *l = &s->send[r].local[q];
            rl_local_span want = {l->pair,   l->rows,   l->cols,    l->count_r, l->count_c, l->src_off, l->src_di,
                                  l->src_dj, l->src_ld, l->dst_off, l->dst_di,  l->dst_dj,  l->dst_ld};
            assert_memory_equal(&sec->local[q], &want, sizeof want);
        }
    }
}

/* ---- every element ---------------------------------------------------------------- */

/* Walks one half of lattice l: element (ii, jj) of piece (i, j) is A
 * element (r0 + i grs + ii, c0 + j gcs + jj), at off + i di + j dj of the
 * buffer plus its place in the piece: (ii, jj) in the layout's element
 * order, or (jj, ii) in B when op transposes. */
static void walk_half(const rl_lattice *l, const rl_pair *pairs, int receiving, lc_element e, lc_visit visit,
                      void *ctx)
{
    const rl_pair *pair = &pairs[l->pair];
    relay_order order = receiving ? pair->dst_relabeled->order : pair->src->order;
    int t = !receiving && rl_op_transposes(pair->op);
    int64_t off = receiving ? l->dst_off : l->src_off, di = receiving ? l->dst_di : l->src_di;
    int64_t dj = receiving ? l->dst_dj : l->src_dj;
    e.receiving = receiving;
    e.pair = l->pair;
    e.ld = receiving ? l->dst_ld : l->src_ld;
    for (int64_t j = 0; j < l->count_c; j++)
        for (int64_t i = 0; i < l->count_r; i++)
            for (int64_t jj = 0; jj < l->cols; jj++)
                for (int64_t ii = 0; ii < l->rows; ii++) {
                    e.row = l->r0 + i * l->grs + ii;
                    e.col = l->c0 + j * l->gcs + jj;
                    e.off = off + i * di + j * dj + rl_elem_offset(order, e.ld, t ? jj : ii, t ? ii : jj);
                    visit(&e, ctx);
                }
}

void lc_walk(const lc_sides *s, const rl_pair *pairs, lc_visit visit, void *ctx)
{
    for (int r = 0; r < s->nranks; r++) {
        for (int send = 0; send < 2; send++) {
            const rl_lattice_side *side = send ? &s->send[r] : &s->recv[r];
            for (int32_t m = 0; m < side->nmsg; m++)
                for (int64_t q = 0; q < side->msgs[m].count; q++)
                    walk_half(&side->lattices[side->msgs[m].first + q], pairs, !send,
                              (lc_element){.self = r, .peer = side->msgs[m].peer}, visit, ctx);
        }
        for (int64_t q = 0; q < s->send[r].nlocal; q++)
            for (int receiving = 0; receiving < 2; receiving++)
                walk_half(&s->send[r].local[q], pairs, receiving, (lc_element){.self = r, .peer = r}, visit, ctx);
    }
}

/* ---- routes ----------------------------------------------------------------------- */

void lc_routes_init(lc_routes *r, const rl_pair *pairs, int count)
{
    r->count = count;
    r->cols = calloc((size_t)count, sizeof *r->cols);
    r->elems = calloc((size_t)count, sizeof *r->elems);
    r->send = calloc((size_t)count, sizeof *r->send);
    r->recv = calloc((size_t)count, sizeof *r->recv);
    for (int k = 0; k < count; k++) {
        r->cols[k] = relay_layout_cols(pairs[k].dst);
        r->elems[k] = relay_layout_rows(pairs[k].dst) * r->cols[k];
        size_t bytes = (size_t)(r->elems[k] + 1) * sizeof(lc_route);
        r->send[k] = malloc(bytes);
        r->recv[k] = malloc(bytes);
        memset(r->send[k], 0xff, bytes);
        memset(r->recv[k], 0xff, bytes);
    }
}

void lc_routes_free(lc_routes *r)
{
    for (int k = 0; k < r->count; k++) {
        free(r->send[k]);
        free(r->recv[k]);
    }
    free(r->cols);
    free(r->elems);
    free(r->send);
    free(r->recv);
}

void lc_routes_record(lc_routes *r, const lc_element *e)
{
    assert_true(e->pair >= 0 && e->pair < r->count);
    assert_true(e->row >= 0 && e->col >= 0 && e->col < r->cols[e->pair]);
    int64_t g = e->row * r->cols[e->pair] + e->col;
    assert_true(g < r->elems[e->pair]);
    lc_route *route = &(e->receiving ? r->recv : r->send)[e->pair][g];
    assert_int_equal(route->sender, -1); /* once per side */
    *route = e->receiving ? (lc_route){e->peer, e->self, e->off} : (lc_route){e->self, e->peer, e->off};
}

void lc_routes_check_complete(const lc_routes *r)
{
    for (int k = 0; k < r->count; k++)
        for (int64_t g = 0; g < r->elems[k]; g++) {
            const lc_route *s = &r->send[k][g], *v = &r->recv[k][g];
            assert_true(s->sender >= 0 && v->sender >= 0);
            assert_int_equal(s->sender, v->sender);
            assert_int_equal(s->receiver, v->receiver);
        }
}
