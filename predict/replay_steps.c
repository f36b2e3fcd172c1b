/* replay_steps.c — a transform replay's ranks, step by step
 * (replay_steps.h): their messages from the plan's sections, their steps
 * under a schedule, and the cost of their copies on a machine. */
#include <stdlib.h>

#include "engine.h"
#include "replay_steps.h"

/* ---- what a rank moves --------------------------------------------------- */

static int64_t message_pieces(const rl_span *spans, const rl_message *msg)
{
    int64_t pieces = 0;
    for (int64_t i = msg->first; i < msg->first + msg->count; i++) pieces += rl_span_pieces(&spans[i]);
    return pieces;
}

/* Whether pair's op transposes (T or C; plan.c's rl_op_transposes is not
 * exported from the executor library this one links). */
static int pair_transposes(const relay_plan *p, int64_t pair) { return p->pairs[pair].op != RELAY_OP_N; }

/* Of a message's elements, those of pairs whose op transposes. */
static int64_t message_transposed(const relay_plan *p, const rl_span *spans, const rl_message *msg)
{
    int64_t elems = 0;
    for (int64_t i = msg->first; i < msg->first + msg->count; i++)
        if (pair_transposes(p, spans[i].pair)) elems += rl_span_elems(&spans[i]);
    return elems;
}

int replay_sends_fill(replay_sends *rs, const relay_plan *p, relay_schedule schedule)
{
    int64_t esz = (int64_t)relay_type_size(p->type);
    rs->sent = NULL;
    rs->first = malloc(((size_t)p->nranks + 1) * sizeof *rs->first);
    if (!rs->first) return -1;
    rs->first[0] = 0;
    for (int r = 0; r < p->nranks; r++) rs->first[r + 1] = rs->first[r] + p->sections[r]->nsend;
    rs->sent = malloc((size_t)(rs->first[p->nranks] ? rs->first[p->nranks] : 1) * sizeof *rs->sent);
    if (!rs->sent) return -1;
    for (int r = 0; r < p->nranks; r++) {
        const rl_section *s = p->sections[r];
        for (int k = 0; k < s->nsend; k++) {
            const rl_message *msg = &s->send[k];
            rs->sent[rs->first[r] + k] = (sent_message){r,
                                                        (int)msg->peer,
                                                        msg->elems * esz,
                                                        message_pieces(s->send_spans, msg),
                                                        message_transposed(p, s->send_spans, msg) * esz,
                                                        schedule == RELAY_SCHED_ROUNDS ? s->send_round[k] : 0,
                                                        0};
        }
    }
    return 0;
}

void replay_sends_free(replay_sends *rs)
{
    free(rs->sent);
    free(rs->first);
}

step_style replay_style(relay_schedule schedule)
{
    return (step_style){.barriers = schedule == RELAY_SCHED_ALLTOALLV,
                        .unpack_on_arrival = schedule == RELAY_SCHED_P2P || schedule == RELAY_SCHED_ROUNDS};
}

/* ---- a rank's steps -------------------------------------------------------- */

int by_step(const void *x, const void *y)
{
    const stepped *a = x, *b = y;
    return a->step != b->step ? (a->step > b->step) - (a->step < b->step) : (a->index > b->index) - (a->index < b->index);
}

/* Indices 0..n-1 of a rank's sends or receives in increasing step (in
 * section order within a step); NULL when out of memory. */
static int *in_step_order(const int64_t *rounds, int n)
{
    int *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    stepped *sorted = rounds ? malloc((size_t)(n ? n : 1) * sizeof *sorted) : NULL;
    if (!order || (rounds && !sorted)) {
        free(order);
        return NULL;
    }
    for (int k = 0; k < n; k++) order[k] = k;
    if (rounds) {
        for (int k = 0; k < n; k++) sorted[k] = (stepped){rounds[k], k};
        qsort(sorted, (size_t)n, sizeof *sorted, by_step);
        for (int k = 0; k < n; k++) order[k] = (int)sorted[k].index;
    }
    free(sorted);
    return order;
}

/* The steps of a rounds replay, its sends and receives in step order. */
static void split_rounds(const rl_section *s, rank_steps *out)
{
    const int *sends = out->sends, *recvs = out->recvs;
    int64_t local_step = s->nlocal ? s->local_round : -1;
    int i = 0, j = 0;
    while (i < s->nsend || j < s->nrecv || local_step >= 0) {
        int64_t step = INT64_MAX;
        if (i < s->nsend && s->send_round[sends[i]] < step) step = s->send_round[sends[i]];
        if (j < s->nrecv && s->recv_round[recvs[j]] < step) step = s->recv_round[recvs[j]];
        if (local_step >= 0 && local_step < step) step = local_step;
        rank_step st = {step, sends + i, 0, 0, local_step == step};
        while (i + st.nsends < s->nsend && s->send_round[sends[i + st.nsends]] == step) st.nsends++;
        while (j + st.nrecvs < s->nrecv && s->recv_round[recvs[j + st.nrecvs]] == step) st.nrecvs++;
        out->steps[out->nsteps++] = st;
        i += st.nsends;
        j += st.nrecvs;
        if (st.copies) local_step = -1;
    }
}

int rank_steps_of(const relay_plan *p, relay_schedule schedule, int r, rank_steps *out)
{
    const rl_section *s = p->sections[r];
    int rounds = schedule == RELAY_SCHED_ROUNDS;
    size_t most = rounds ? (size_t)s->nsend + (size_t)s->nrecv + 1 : 1;
    *out = (rank_steps){in_step_order(s->send_round, s->nsend), in_step_order(s->recv_round, s->nrecv),
                        malloc(most * sizeof *out->steps), 0};
    if (!out->sends || !out->recvs || !out->steps) return -1;
    if (rounds) split_rounds(s, out);
    else out->steps[out->nsteps++] = (rank_step){0, out->sends, s->nsend, s->nrecv, 1};
    return 0;
}

void rank_steps_free(rank_steps *s)
{
    free(s->sends);
    free(s->recvs);
    free(s->steps);
}

/* ---- what the copies cost ------------------------------------------------- */

double step_pack_seconds(const machine *m, const sent_message *sent, const rank_step *st)
{
    double pack = 0;
    for (int k = 0; k < st->nsends; k++)
        pack += copy_seconds(m, sent[st->sends[k]].bytes, sent[st->sends[k]].pieces, 0) + m->message_seconds;
    return pack;
}

double local_copy_seconds(const machine *m, const relay_plan *p, int rank)
{
    const rl_section *s = p->sections[rank];
    int64_t esz = (int64_t)relay_type_size(p->type);
    double seconds = 0;
    for (int64_t i = 0; i < s->nlocal; i++) {
        int64_t bytes = rl_local_span_elems(&s->local[i]) * esz;
        int64_t transposed = pair_transposes(p, s->local[i].pair) ? bytes : 0;
        seconds += copy_seconds(m, bytes, rl_local_span_pieces(&s->local[i]), transposed);
    }
    return seconds;
}

double unpack_seconds(const machine *m, const sent_message *msg)
{
    return copy_seconds(m, msg->bytes, msg->pieces, msg->transposed);
}
