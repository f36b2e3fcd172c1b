/* transform_timing.c — the timings of a transform's replays
 * (relay_exec_time, relay_exec_timings): seconds per message and phase,
 * summed over the replays timed.  The replay's steps (schedules/) read the
 * clock only while timing is on, so an
 * untimed replay pays a branch per step. */
#include <string.h>

#include "error.h"
#include "transform_pack.h"
#include "transform_timing.h"

static int rows_of(const rl_transform_exec *x) { return rl_row_completion(x) + 1; }

void rl_time_since(rl_transform_exec *x, rl_phase phase, int row, double since)
{
    if (!x->timing.on) return;
    double *column = phase == RL_PACK ? x->timing.pack : phase == RL_WAIT ? x->timing.wait : x->timing.unpack;
    column[row] += MPI_Wtime() - since;
}

void rl_transform_move_locals_timed(rl_transform_exec *x)
{
    double t0 = rl_clock(x);
    rl_transform_move_locals(x);
    rl_time_since(x, RL_UNPACK, rl_row_local(x), t0);
}

void rl_transform_unpack_timed(rl_transform_exec *x, int k)
{
    double t0 = rl_clock(x);
    rl_transform_unpack(x, k);
    rl_time_since(x, RL_UNPACK, rl_row_recv(x, k), t0);
}

void rl_timing_replayed(rl_transform_exec *x) { x->timing.replays += x->timing.on; }

relay_status rl_transform_time(void *state, int on)
{
    rl_transform_exec *x = state;
    size_t n = (size_t)rows_of(x);
    if (on && !x->timing.pack) {
        x->timing.pack = rl_calloc(3 * n, sizeof *x->timing.pack);
        if (!x->timing.pack) return RL_NOMEM();
        x->timing.wait = x->timing.pack + n;
        x->timing.unpack = x->timing.wait + n;
    }
    if (on) {
        memset(x->timing.pack, 0, 3 * n * sizeof *x->timing.pack);
        x->timing.replays = 0;
    }
    x->timing.on = on;
    return RELAY_OK;
}

/* Row r's kind, peer and bytes per replay. */
static relay_exec_timing row_of(const rl_transform_exec *x, int r)
{
    const rl_msgset *s = &x->set;
    int64_t esz = (int64_t)x->esz;
    if (r < s->send.n) return (relay_exec_timing){RELAY_TIMING_SEND, s->send.msg[r].peer, s->send.msg[r].elems * esz, 0, 0, 0};
    if (r < rl_row_local(x)) {
        const rl_msg *m = &s->recv.msg[r - s->send.n];
        return (relay_exec_timing){RELAY_TIMING_RECV, m->peer, m->elems * esz, 0, 0, 0};
    }
    if (r == rl_row_completion(x)) return (relay_exec_timing){RELAY_TIMING_COMPLETION, x->rank, 0, 0, 0, 0};
    int64_t local = 0;
    for (int64_t i = 0; i < s->nlocal; i++) local += s->local[i].elems;
    return (relay_exec_timing){RELAY_TIMING_LOCAL, x->rank, local * esz, 0, 0, 0};
}

void rl_transform_timings(const void *state, int64_t *replays, relay_exec_timing *out, int *count)
{
    const rl_transform_exec *x = state;
    int n = rows_of(x);
    for (int r = 0; out && r < n && r < *count; r++) {
        out[r] = row_of(x, r);
        if (!x->timing.pack) continue;
        out[r].pack_s = x->timing.pack[r];
        out[r].wait_s = x->timing.wait[r];
        out[r].unpack_s = x->timing.unpack[r];
    }
    *count = n;
    *replays = x->timing.replays;
}

void rl_timing_free(rl_transform_exec *x) { free(x->timing.pack); }
