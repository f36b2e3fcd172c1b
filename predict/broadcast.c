/* broadcast.c — the simulated broadcasts (broadcast.h), written as MPICH
 * writes them, over relative ranks v = (me - root) mod q:
 *
 *   binomial      v > 0 receives the whole message from v - lowbit(v), then
 *                 every rank sends it to v + 2^j for 2^j below lowbit(v)
 *                 (the root: below q), largest first, each send blocking;
 *                 log2 q rounds of the whole message (Table I's model);
 *   Van de Geijn  the message in q chunks of ceil(bytes / q): a binomial
 *                 scatter (v receives the chunks of its subtree, [v, v +
 *                 lowbit(v)), and passes each child its own), then a ring
 *                 allgather of q - 1 rounds, each rank sending a chunk to
 *                 v + 1 while it receives one from v - 1 (Table II's
 *                 log2 q + q - 1 latencies and 2 (q - 1) / q of the bytes).
 *
 * A message of no bytes is not sent (both sides know its size). */
#include "broadcast.h"
#include "engine.h"

#include <simgrid/comm.h>

static int lowbit(int v) { return v & -v; }

/* The plan's rank of relative rank v. */
static int member(const sim_comm *c, int root, int v) { return c->first + ((root + v) % c->size) * c->stride; }

/* The smallest power of two >= q. */
static int ceil_pow2(int q)
{
    int p = 1;
    while (p < q) p <<= 1;
    return p;
}

/* Bytes of chunks [first, end) of q chunks of a message of `bytes`. */
static int64_t chunk_bytes(int64_t bytes, int q, int first, int end)
{
    int64_t chunk = (bytes + q - 1) / q, from = first * chunk, to = (end < q ? end : q) * chunk;
    return (to < bytes ? to : bytes) - (from < bytes ? from : bytes);
}

/* The binomial tree: what relative ranks [first, end) need goes down the
 * edge to first, the whole message (scatter 0) or their chunks (1). */
static int64_t subtree_bytes(int64_t bytes, int q, int first, int end, int scatter)
{
    return scatter ? chunk_bytes(bytes, q, first, end) : bytes;
}

static void tree(const bcast_setting *b, const sim_comm *c, int root, int64_t bytes, int scatter)
{
    int q = c->size, v = (c->me - root + q) % q, me = member(c, root, v);
    if (v && subtree_bytes(bytes, q, v, v + lowbit(v), scatter) > 0)
        pair_receive(b->out, member(c, root, v - lowbit(v)), me);
    for (int mask = (v ? lowbit(v) : ceil_pow2(q)) >> 1; mask > 0; mask >>= 1) {
        int64_t part = v + mask < q ? subtree_bytes(bytes, q, v + mask, v + 2 * mask, scatter) : 0;
        if (part > 0) pair_send(b->m, me, member(c, root, v + mask), part);
    }
}

/* The ring allgather of the chunks, after the scatter. */
static void ring(const bcast_setting *b, const sim_comm *c, int root, int64_t bytes)
{
    int q = c->size, v = (c->me - root + q) % q, me = member(c, root, v);
    int right = member(c, root, (v + 1) % q), left = member(c, root, (v + q - 1) % q);
    for (int step = 0; step < q - 1; step++) {
        int out_chunk = (v - step + q) % q, in_chunk = (v - step - 1 + 2 * q) % q;
        int64_t out_bytes = chunk_bytes(bytes, q, out_chunk, out_chunk + 1);
        sg_comm_t sent = out_bytes > 0 ? pair_send_async(b->m, me, right, out_bytes) : NULL;
        if (chunk_bytes(bytes, q, in_chunk, in_chunk + 1) > 0) pair_receive(b->out, left, me);
        if (sent) sg_comm_wait(sent);
    }
}

void simulate_bcast(const bcast_setting *b, const sim_comm *c, int root, int64_t bytes)
{
    int scatter = b->algorithm == RELAY_BCAST_VAN_DE_GEIJN;
    tree(b, c, root, bytes, scatter);
    if (scatter) ring(b, c, root, bytes);
}
