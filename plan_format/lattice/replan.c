/* replan.c — trusting a section read from bytes in O(its lattices).
 *
 * A section can lie consistently with its header: pieces dropped, shifted,
 * swapped, duplicated.  Checking what its lattices do element by element
 * (executor/transform_check.c) costs O(elements); planning the rank's
 * section again from the header costs O(lattices), a few microseconds for
 * a structured pair, and a section equal to it is right for the reason a
 * section planned in the job is.  A section that differs (a hostile one,
 * or one planned differently) is not refused here: the executor checks it
 * element by element. */
#include <string.h>

#include "replan.h"
#include "section.h"

static int same_array(const void *a, const void *b, int64_t n, size_t size)
{
    return n == 0 || memcmp(a, b, (size_t)n * size) == 0;
}

/* The messages, lattices and buffer sizes of a and b agree (rl_message,
 * rl_span and rl_local_span are int64_t fields alone: no padding). */
static int same_lattices(const rl_section *a, const rl_section *b, int count)
{
    return a->nsend == b->nsend && a->nrecv == b->nrecv && a->nsend_spans == b->nsend_spans &&
           a->nrecv_spans == b->nrecv_spans && a->nlocal == b->nlocal &&
           same_array(a->send, b->send, a->nsend, sizeof *a->send) &&
           same_array(a->recv, b->recv, a->nrecv, sizeof *a->recv) &&
           same_array(a->send_spans, b->send_spans, a->nsend_spans, sizeof *a->send_spans) &&
           same_array(a->recv_spans, b->recv_spans, a->nrecv_spans, sizeof *a->recv_spans) &&
           same_array(a->local, b->local, a->nlocal, sizeof *a->local) &&
           same_array(a->src_elems, b->src_elems, count, sizeof *a->src_elems) &&
           same_array(a->dst_elems, b->dst_elems, count, sizeof *a->dst_elems);
}

relay_status rl_section_is_planned(const relay_plan *p, int rank, int *planned)
{
    rl_batch *b;
    rl_section *mine = NULL;
    *planned = 0;
    relay_status st = rl_batch_create(&b, p->pairs, p->count, p->type);
    if (st) return st;
    st = rl_batch_section(b, rank, &mine);
    rl_batch_free(b);
    if (!st) *planned = same_lattices(mine, p->sections[rank], p->count);
    rl_section_free(mine);
    return st;
}
