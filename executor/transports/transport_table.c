/* transport_table.c — the transports this build of relay moves messages by
 * (transport.h), one line each, in the order binding offers them; and the
 * steps that go through all of them. */
#include <stddef.h>

#include "error.h"
#include "transform_pack.h"
#include "transform_timing.h"
#include "transport.h"

static const rl_transport *const transports[] = {
    &rl_transport_staged,
    &rl_transport_direct,
    &rl_transport_pull,
    &rl_transport_window,
};

enum { NTRANSPORTS = sizeof transports / sizeof *transports };

relay_status rl_transports_stage_all(rl_transform_exec *x)
{
    const rl_msgset *s = &x->set;
    x->send_via = rl_malloc_array((size_t)s->send.n + 1, sizeof *x->send_via);
    x->recv_via = rl_malloc_array((size_t)s->recv.n + 1, sizeof *x->recv_via);
    if (!x->send_via || !x->recv_via) return RL_NOMEM();
    for (int k = 0; k < s->send.n; k++) x->send_via[k] = &rl_transport_staged;
    for (int k = 0; k < s->recv.n; k++) x->recv_via[k] = &rl_transport_staged;
    x->ntaken = s->recv.n;
    return RELAY_OK;
}

/* Whether some message with chunks (under a memory cap) or any message
 * (without) that the side's transports stage is left. */
static int side_stages(const rl_transform_exec *x, const rl_transport *const *via, int nmsg, const int64_t *chunks_first,
                       int sending)
{
    for (int k = 0; k < nmsg; k++)
        if ((sending ? via[k]->stages_sends : via[k]->stages_receives) && (!chunks_first || chunks_first[k + 1] > chunks_first[k]))
            return 1;
    return 0;
}

/* The pack buffers no message stages in any more: p2p's, or under a cap
 * the chunks' send buffer (the receive buffer may be the window's
 * segment, which the window owns). */
static void release_pack_buffers(rl_transform_exec *x)
{
    const rl_msgset *s = &x->set;
    if (x->capped.cap) {
        if (!side_stages(x, x->send_via, s->send.n, x->capped.sends.first, 1)) rl_msg_side_drop(x->capped.sends.chunks);
        return;
    }
    if (!side_stages(x, x->send_via, s->send.n, NULL, 1)) rl_transform_drop_side(x, &x->set.send);
    if (!side_stages(x, x->recv_via, s->recv.n, NULL, 0)) rl_transform_drop_side(x, &x->set.recv);
}

int rl_transport_take(rl_transform_exec *x, int k)
{
    double t0 = rl_clock(x);
    int rc = x->recv_via[k]->take(x, k);
    rl_time_since(x, RL_UNPACK, rl_row_recv(x, k), t0);
    return rc;
}

relay_status rl_transports_agree(rl_transform_exec *x)
{
    relay_status st = RELAY_OK;
    for (int t = 0; t < NTRANSPORTS && !st; t++)
        if (transports[t]->agree && (!x->capped.cap || transports[t]->chunk_send)) st = transports[t]->agree(x);
    x->ntaken = 0;
    for (int k = 0; k < x->set.recv.n; k++) x->ntaken += x->recv_via[k]->take != NULL;
    if (!st) release_pack_buffers(x);
    return st;
}

int rl_transports_finish(rl_transform_exec *x, int rc)
{
    for (int t = 0; t < NTRANSPORTS; t++)
        if (transports[t]->finish) rc = transports[t]->finish(x, rc);
    return rc;
}

relay_status rl_transports_report(rl_transform_exec *x)
{
    relay_status st = RELAY_OK;
    for (int t = 0; t < NTRANSPORTS && !st; t++)
        if (transports[t]->report) st = transports[t]->report(x);
    return st;
}
