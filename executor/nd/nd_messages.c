/* nd_messages.c — grouping an N-D rank's transfers into messages and
 * linking each transfer passed on to the receive that brings it
 * (nd_messages.h). */
#include <limits.h>
#include <string.h>

#include "error.h"
#include "nd_messages.h"

/* Messages of a sorted list: a peer's transfers read from B as one, then
 * each one passed on alone; *max_tag, the largest tag they take. */
static relay_status group(const rl_nd_transfer *v, int64_t n, rl_nd_message **out, int *count, int64_t *max_tag)
{
    int messages = 0;
    for (int64_t i = 0; i < n; i++) messages += i == 0 || v[i].peer != v[i - 1].peer || v[i].forwarded;
    rl_nd_message *m = rl_calloc((size_t)messages, sizeof *m);
    if (!m) return RL_NOMEM();
    *out = m;
    *count = messages;
    int at = -1;
    int64_t tag = 0;
    for (int64_t i = 0; i < n; i++) {
        int same_peer = i > 0 && v[i].peer == v[i - 1].peer;
        if (!same_peer || v[i].forwarded) {
            tag = same_peer && v[i - 1].forwarded ? tag + 1 : v[i].forwarded;
            if (tag > *max_tag) *max_tag = tag;
            m[++at] = (rl_nd_message){v[i].peer, tag > INT32_MAX ? INT32_MAX : (int)tag, i, 0, 0, -1, 0};
        }
        m[at].count++;
        m[at].elems += v[i].elems;
    }
    for (int i = 0; i < messages; i++)
        if (m[i].elems > INT_MAX)
            return rl_fail(RELAY_ERR_UNSUPPORTED, "N-D plan: a message of %lld elements exceeds MPI's int counts", (long long)m[i].elems);
    return RELAY_OK;
}

/* Where a received transfer landed: its message and bytes into it. */
typedef struct {
    int32_t pair, origin;
    int message;
    int64_t offset;
} landing;

static int by_pair_then_origin(const void *a, const void *b)
{
    const landing *x = a, *y = b;
    if (x->pair != y->pair) return x->pair < y->pair ? -1 : 1;
    return (x->origin > y->origin) - (x->origin < y->origin);
}

static const landing *find_landing(const landing *v, int64_t n, const rl_nd_transfer *t)
{
    landing key = {t->pair, t->origin, 0, 0};
    return n ? bsearch(&key, v, (size_t)n, sizeof *v, by_pair_then_origin) : NULL;
}

/* Each send passed on points into the receive that brings its bytes
 * (one landing per (pair, origin): a rank receives each once). */
static relay_status link_forwards(rl_nd_messages *m, const rl_nd_part *part, size_t esz)
{
    landing *v = rl_malloc_array((size_t)part->nrecv, sizeof *v);
    if (!v) return RL_NOMEM();
    int64_t n = 0;
    for (int i = 0; i < m->nrecv; i++)
        for (int64_t j = m->recv[i].first, off = 0; j < m->recv[i].first + m->recv[i].count; off += part->recv[j++].elems)
            v[n++] = (landing){part->recv[j].pair, part->recv[j].origin, i, off * (int64_t)esz};
    if (n) qsort(v, (size_t)n, sizeof *v, by_pair_then_origin);
    relay_status st = RELAY_OK;
    for (int i = 0; i < m->nsend && !st; i++) {
        const rl_nd_transfer *t = &part->send[m->send[i].first];
        if (!t->forwarded) continue;
        const landing *l = find_landing(v, n, t);
        if (!l) st = rl_fail(RELAY_ERR_FORMAT, "N-D plan: rank passes on a transfer it never receives");
        else m->send[i].from = l->message, m->send[i].from_offset = l->offset;
    }
    free(v);
    return st;
}

/* Per receive, the sends it lets start (CSR). */
static relay_status index_starts(rl_nd_messages *m)
{
    m->starts_first = rl_calloc((size_t)m->nrecv + 1, sizeof *m->starts_first);
    m->starts = rl_malloc_array((size_t)m->nsend, sizeof *m->starts);
    if (!m->starts_first || !m->starts) return RL_NOMEM();
    for (int i = 0; i < m->nsend; i++)
        if (m->send[i].from >= 0) m->starts_first[m->send[i].from + 1]++;
    for (int r = 0; r < m->nrecv; r++) m->starts_first[r + 1] += m->starts_first[r];
    int *fill = rl_malloc_array((size_t)m->nrecv + 1, sizeof *fill);
    if (!fill) return RL_NOMEM();
    memcpy(fill, m->starts_first, ((size_t)m->nrecv + 1) * sizeof *fill);
    for (int i = 0; i < m->nsend; i++)
        if (m->send[i].from >= 0) m->starts[fill[m->send[i].from]++] = i;
    free(fill);
    return RELAY_OK;
}

relay_status rl_nd_messages_build(rl_nd_messages *m, const rl_nd_part *part, size_t esz)
{
    memset(m, 0, sizeof *m);
    relay_status st = group(part->send, part->nsend, &m->send, &m->nsend, &m->max_tag);
    if (!st) st = group(part->recv, part->nrecv, &m->recv, &m->nrecv, &m->max_tag);
    if (!st) st = link_forwards(m, part, esz);
    if (!st) st = index_starts(m);
    return st;
}

void rl_nd_messages_free(rl_nd_messages *m)
{
    free(m->send);
    free(m->recv);
    free(m->starts_first);
    free(m->starts);
    memset(m, 0, sizeof *m);
}
