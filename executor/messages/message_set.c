/* message_set.c — the message set's arrays and its pack buffers
 * (message_set.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "buffers.h"
#include "error.h"
#include "message_set.h"

/* ---- building a set ------------------------------------------------------ */

static relay_status side_alloc(rl_msg_side *side, int n, int64_t nboxes)
{
    side->n = n;
    side->nboxes = nboxes;
    side->msg = rl_calloc((size_t)n + 1, sizeof *side->msg);
    side->boxes = rl_calloc((size_t)nboxes + 1, sizeof *side->boxes);
    side->byte_off = rl_calloc((size_t)n + 1, sizeof *side->byte_off);
    return side->msg && side->boxes && side->byte_off ? RELAY_OK : RL_NOMEM();
}

relay_status rl_msgset_alloc(rl_msgset *s, const rl_msgset_sizes *n, size_t esz)
{
    memset(s, 0, sizeof *s);
    s->esz = esz;
    s->local_step = -1;
    s->nlocal = n->nlocal;
    s->ndims = n->ndims;
    s->nruns = n->nruns;
    s->npairs = n->npairs;
    s->local = rl_calloc((size_t)n->nlocal + 1, sizeof *s->local);
    s->dims = rl_calloc((size_t)n->ndims + 1, sizeof *s->dims);
    s->runs = rl_calloc((size_t)n->nruns + 1, sizeof *s->runs);
    s->pairs = rl_calloc((size_t)n->npairs + 1, sizeof *s->pairs);
    relay_status st = s->local && s->dims && s->runs && s->pairs ? RELAY_OK : RL_NOMEM();
    if (!st) st = side_alloc(&s->send, n->nsend, n->send_boxes);
    return st ? st : side_alloc(&s->recv, n->nrecv, n->recv_boxes);
}

int64_t rl_padded_bytes(int64_t bytes)
{
    int64_t unit = bytes > INT_MAX ? RL_WIRE_UNIT : RL_PACK_ALIGN;
    return (bytes + unit - 1) / unit * unit;
}

static relay_status side_layout(rl_msg_side *side, size_t esz, int32_t control)
{
    side->byte_off[0] = 0;
    for (int k = 0; k < side->n; k++) {
        int64_t b;
        if (side->msg[k].passes_on >= 0) { /* its bytes lie in the receive it passes on */
            side->byte_off[k + 1] = side->byte_off[k];
            continue;
        }
        if (rl_mul_overflows(side->msg[k].elems, (int64_t)esz, &b) || rl_add_overflows(b, control, &b) ||
            rl_add_overflows(side->byte_off[k], rl_padded_bytes(b), &side->byte_off[k + 1]))
            return rl_fail(RELAY_ERR_ARG, "message of %lld elements is too large", (long long)side->msg[k].elems);
    }
    return RELAY_OK;
}

relay_status rl_msgset_layout(rl_msgset *s)
{
    relay_status st = side_layout(&s->send, s->esz, s->control);
    return st ? st : side_layout(&s->recv, s->esz, s->control);
}

void rl_msgset_forget_boxes(rl_msgset *s)
{
    free(s->send.boxes);
    free(s->recv.boxes);
    free(s->dims);
    free(s->runs);
    s->send.boxes = s->recv.boxes = NULL;
    s->dims = NULL;
    s->runs = NULL;
    s->send.nboxes = s->recv.nboxes = s->ndims = s->nruns = 0;
}

static int64_t side_bytes(const rl_msg_side *side)
{
    return side->n * (int64_t)(sizeof *side->msg + sizeof *side->byte_off) + side->nboxes * (int64_t)sizeof *side->boxes;
}

int64_t rl_msgset_bytes(const rl_msgset *s)
{
    return side_bytes(&s->send) + side_bytes(&s->recv) + s->nlocal * (int64_t)sizeof *s->local +
           s->ndims * (int64_t)sizeof *s->dims + s->nruns * (int64_t)sizeof *s->runs + s->npairs * (int64_t)sizeof *s->pairs;
}

static void side_free(rl_msg_side *side)
{
    free(side->msg);
    free(side->boxes);
    free(side->byte_off);
    free(side->buf);
}

void rl_msgset_free(rl_msgset *s)
{
    side_free(&s->send);
    side_free(&s->recv);
    free(s->local);
    free(s->dims);
    free(s->runs);
    free(s->pairs);
    memset(s, 0, sizeof *s);
}

/* ---- pack buffers -------------------------------------------------------- */

relay_status rl_msg_side_hold(rl_msg_side *side)
{
    int64_t bytes = rl_msg_side_bytes(side);
    if (side->buf || !bytes) return RELAY_OK;
    side->buf = rl_buffer_alloc((size_t)bytes);
    return side->buf ? RELAY_OK : rl_fail(RELAY_ERR_NOMEM, "cannot allocate %lld bytes of message buffers", (long long)bytes);
}

void rl_msg_side_drop(rl_msg_side *side)
{
    free(side->buf);
    side->buf = NULL;
}

static char nothing;

void *rl_no_bytes(void) { return &nothing; }

void *rl_msg_side_buf(const rl_msg_side *side) { return side->buf ? side->buf : rl_no_bytes(); }

void *rl_msg_at(const rl_msg_side *side, int k) { return side->buf ? side->buf + side->byte_off[k] : rl_no_bytes(); }

void rl_msg_side_slots(rl_msg_side *side, const int64_t *first, int nmsg, int slots)
{
    int64_t largest = 0, most_chunks = 0;
    for (int k = 0; k < side->n; k++)
        if (side->byte_off[k + 1] - side->byte_off[k] > largest) largest = side->byte_off[k + 1] - side->byte_off[k];
    for (int m = 0; m < nmsg; m++) {
        if (first[m + 1] - first[m] > most_chunks) most_chunks = first[m + 1] - first[m];
        for (int64_t k = first[m]; k < first[m + 1]; k++) side->byte_off[k] = (k - first[m]) % slots * largest;
    }
    side->byte_off[side->n] = (most_chunks > 1 ? slots : 1) * largest;
}
