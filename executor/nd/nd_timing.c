/* nd_timing.c — an N-D replay's time, per message (nd_timing.h). */
#include <string.h>

#include "error.h"
#include "nd_timing.h"

void rl_nd_time_since(rl_nd_timing *t, rl_nd_phase phase, int row, double since)
{
    if (!t->on) return;
    double s = MPI_Wtime() - since;
    relay_exec_timing *r = &t->rows[row];
    if (phase == RL_ND_PACK) r->pack_s += s;
    else if (phase == RL_ND_WAIT) r->wait_s += s;
    else r->unpack_s += s;
}

/* Each row's kind, peer and bytes, its seconds zero. */
static void label_rows(rl_nd_timing *t, const rl_nd_messages *m, int rank, size_t esz)
{
    for (int i = 0; i < m->nsend; i++)
        t->rows[rl_nd_row_send(m, i)] = (relay_exec_timing){RELAY_TIMING_SEND, m->send[i].peer, m->send[i].elems * (int64_t)esz, 0, 0, 0};
    for (int i = 0; i < m->nrecv; i++)
        t->rows[rl_nd_row_recv(m, i)] = (relay_exec_timing){RELAY_TIMING_RECV, m->recv[i].peer, m->recv[i].elems * (int64_t)esz, 0, 0, 0};
    t->rows[rl_nd_row_local(m)] = (relay_exec_timing){RELAY_TIMING_LOCAL, rank, 0, 0, 0, 0};
    t->rows[rl_nd_row_completion(m)] = (relay_exec_timing){RELAY_TIMING_COMPLETION, rank, 0, 0, 0, 0};
}

relay_status rl_nd_timing_rows_of(rl_nd_timing *t, const rl_nd_messages *m, int rank, size_t esz)
{
    int n = m->nsend + m->nrecv + 2;
    relay_exec_timing *rows = rl_malloc_array((size_t)n, sizeof *rows);
    if (!rows) return RL_NOMEM();
    free(t->rows);
    t->rows = rows;
    t->nrows = n;
    label_rows(t, m, rank, esz);
    t->replays = 0;
    return RELAY_OK;
}

void rl_nd_timing_switch(rl_nd_timing *t, int on)
{
    for (int r = 0; on && r < t->nrows; r++) t->rows[r].pack_s = t->rows[r].wait_s = t->rows[r].unpack_s = 0;
    if (on) t->replays = 0;
    t->on = on;
}

void rl_nd_timing_rows(const rl_nd_timing *t, int64_t *replays, relay_exec_timing *out, int *count)
{
    for (int r = 0; out && r < t->nrows && r < *count; r++) out[r] = t->rows[r];
    *count = t->nrows;
    *replays = t->replays;
}

void rl_nd_timing_free(rl_nd_timing *t)
{
    free(t->rows);
    memset(t, 0, sizeof *t);
}
