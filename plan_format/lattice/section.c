/* section.c — a rank's section from the lattices of its batch (see
 * section.h).  A section keeps each end's half of its lattices: a sender
 * where pieces sit in B, a receiver where they go in A; local lattices
 * keep both. */
#include <stdlib.h>

#include "bc_lattice.h"
#include "error.h"
#include "grid_lattice.h"
#include "section.h"

struct rl_batch {
    const rl_pair *pairs;
    int count;
    int64_t esz;             /* the plan's element size: how lattices travel depends on it */
    rl_bc_pair_overlay *bc;  /* count entries; used where is_bc */
    char *is_bc;
};

void rl_batch_free(rl_batch *b)
{
    if (!b) return;
    for (int k = 0; b->bc && b->is_bc && k < b->count; k++)
        if (b->is_bc[k]) rl_bc_pair_overlay_free(&b->bc[k]);
    free(b->bc);
    free(b->is_bc);
    free(b);
}

relay_status rl_batch_create(rl_batch **out, const rl_pair *pairs, int count, relay_type type)
{
    rl_batch *b = calloc(1, sizeof *b);
    if (!b) return RL_NOMEM();
    b->pairs = pairs;
    b->count = count;
    b->esz = (int64_t)relay_type_size(type);
    b->bc = rl_calloc((size_t)count, sizeof *b->bc);
    b->is_bc = rl_calloc((size_t)count, 1);
    relay_status st = b->bc && b->is_bc ? RELAY_OK : RL_NOMEM();
    for (int k = 0; k < count && !st; k++) {
        b->is_bc[k] = (char)rl_pair_is_block_cyclic(&pairs[k]);
        if (b->is_bc[k]) st = rl_bc_pair_overlay_init(&b->bc[k], &pairs[k], k);
        if (st) b->is_bc[k] = 0;
    }
    if (st) {
        rl_batch_free(b);
        return st;
    }
    *out = b;
    return RELAY_OK;
}

relay_status rl_batch_side(const rl_batch *b, int rank, int send_side, rl_lattice_side *out)
{
    rl_lattice_list list = {0};
    relay_status st = RELAY_OK;
    for (int k = 0; k < b->count && !st; k++)
        st = b->is_bc[k] ? rl_bc_side_lattices(&b->bc[k], &b->pairs[k], k, rank, send_side, &list)
                         : rl_grid_side_lattices(&b->pairs[k], k, rank, send_side, &list);
    if (!st) st = rl_lattice_side_build(&list, rank, send_side, out);
    free(list.v);
    return st;
}

/* A side's messages and the halves of their lattices. */
static relay_status keep_messages(const rl_batch *b, const rl_lattice_side *side, int receiving, rl_message **msgs,
                                  int32_t *nmsg, rl_span **spans, int64_t *nspans)
{
    *msgs = rl_malloc_array((size_t)side->nmsg, sizeof **msgs);
    *spans = rl_malloc_array((size_t)side->nlattices, sizeof **spans);
    if (!*msgs || !*spans) return RL_NOMEM();
    for (int32_t m = 0; m < side->nmsg; m++) (*msgs)[m] = side->msgs[m];
    for (int64_t i = 0; i < side->nlattices; i++) {
        const rl_lattice *l = &side->lattices[i];
        (*spans)[i] = rl_lattice_half(l, &b->pairs[l->pair], b->esz, receiving);
    }
    *nmsg = side->nmsg;
    *nspans = side->nlattices;
    return RELAY_OK;
}

static relay_status keep_locals(rl_section *s, const rl_lattice_side *send)
{
    s->local = rl_malloc_array((size_t)send->nlocal, sizeof *s->local);
    if (!s->local) return RL_NOMEM();
    for (int64_t i = 0; i < send->nlocal; i++) s->local[i] = rl_lattice_local(&send->local[i]);
    s->nlocal = send->nlocal;
    return RELAY_OK;
}

relay_status rl_batch_section(const rl_batch *b, int rank, rl_section **out)
{
    rl_section *s = rl_section_alloc(rank, b->count);
    if (!s) return RL_NOMEM();
    rl_lattice_side send = {0}, recv = {0};
    relay_status st = rl_batch_side(b, rank, 1, &send);
    if (!st) st = rl_batch_side(b, rank, 0, &recv);
    if (!st) st = keep_messages(b, &send, 0, &s->send, &s->nsend, &s->send_spans, &s->nsend_spans);
    if (!st) st = keep_messages(b, &recv, 1, &s->recv, &s->nrecv, &s->recv_spans, &s->nrecv_spans);
    if (!st) st = keep_locals(s, &send);
    rl_lattice_side_free(&send);
    rl_lattice_side_free(&recv);
    if (st) {
        rl_section_free(s);
        return st;
    }
    for (int k = 0; k < b->count; k++) {
        s->src_elems[k] = relay_layout_local_elems(b->pairs[k].src, rank);
        s->dst_elems[k] = relay_layout_local_elems(b->pairs[k].dst_relabeled, rank);
    }
    s->checksum = rl_section_hash(s, b->count);
    *out = s;
    return RELAY_OK;
}
