/* validate.c — the executor's trust boundary: a section is checked
 * completely before any byte of a user buffer is touched.  Every piece of
 * every lattice must lie inside the buffer sizes the section declares
 * (proved from the lattice's last piece, with overflow-checked arithmetic), every message must
 * describe exactly its lattices, every peer must be a rank of the plan, and
 * a rounds schedule must give each rank at most one send and one receive
 * per step. */
#include "error.h"
#include "plan_internal.h"

/* Orders and shapes of the two sides of pair k, as the pieces see them. */
typedef struct {
    relay_order order;
    int transposed;   /* the side stores A's rows as its columns */
} side;

static side side_of(const relay_plan *p, int64_t pair, int is_dst)
{
    const rl_pair *pr = &p->pairs[pair];
    side s = {is_dst ? pr->dst->order : pr->src->order, !is_dst && rl_op_transposes(pr->op)};
    return s;
}

/* The extent, in elements, of a rows x cols piece (A coordinates) stored
 * at leading dimension ld on a side: (outer - 1) * ld + inner. */
static relay_status piece_extent(side sd, int64_t rows, int64_t cols, int64_t ld, int64_t *ext)
{
    int64_t r = sd.transposed ? cols : rows, c = sd.transposed ? rows : cols;
    int64_t inner = sd.order == RELAY_COL_MAJOR ? r : c, outer = sd.order == RELAY_COL_MAJOR ? c : r;
    if (ld < inner) return RELAY_ERR_FORMAT;
    return rl_mul_overflows(outer - 1, ld, ext) || rl_add_overflows(*ext, inner, ext) ? RELAY_ERR_FORMAT : RELAY_OK;
}

/* Checks that every piece of a lattice on one side lies inside a buffer of
 * `elems` elements.  Steps are positive along a count above 1 (0 along a
 * count of 1: the pieces of a lattice never start at one place), so the
 * farthest element is
 * that of the last piece, off + (count_r-1) step_r + (count_c-1) step_c +
 * the piece's extent, computed without overflow. */
static relay_status check_place(side sd, const rl_span *sp, int64_t elems, const char *what, int64_t index)
{
    int64_t ext, end, down, across;
    if (sp->off < 0 || (sp->count_r == 1 ? sp->step_r != 0 : sp->step_r <= 0) ||
        (sp->count_c == 1 ? sp->step_c != 0 : sp->step_c <= 0))
        return rl_fail(RELAY_ERR_FORMAT, "%s lattice %lld has offset %lld or steps %lld, %lld out of range", what,
                       (long long)index, (long long)sp->off, (long long)sp->step_r, (long long)sp->step_c);
    if (piece_extent(sd, sp->rows, sp->cols, sp->ld, &ext))
        return rl_fail(RELAY_ERR_FORMAT, "%s lattice %lld has leading dimension %lld out of range for %lld x %lld pieces",
                       what, (long long)index, (long long)sp->ld, (long long)sp->rows, (long long)sp->cols);
    if (rl_mul_overflows(sp->count_r - 1, sp->step_r, &down) || rl_mul_overflows(sp->count_c - 1, sp->step_c, &across) ||
        rl_add_overflows(sp->off, down, &end) || rl_add_overflows(end, across, &end) || rl_add_overflows(end, ext, &end) ||
        end > elems)
        return rl_fail(RELAY_ERR_FORMAT, "%s lattice %lld reaches beyond its buffer of %lld elements", what,
                       (long long)index, (long long)elems);
    return RELAY_OK;
}

/* A lattice's pair, shape and counts, and its element count. */
static relay_status check_shape(const relay_plan *p, const rl_span *sp, const char *what, int64_t index, int64_t *elems)
{
    if (sp->pair < 0 || sp->pair >= p->count)
        return rl_fail(RELAY_ERR_FORMAT, "%s lattice %lld names pair %lld of a plan with %d", what, (long long)index,
                       (long long)sp->pair, p->count);
    if (sp->rows <= 0 || sp->cols <= 0 || sp->count_r <= 0 || sp->count_c <= 0)
        return rl_fail(RELAY_ERR_FORMAT, "%s lattice %lld has an empty or negative shape %lld x %lld pieces of %lld x %lld",
                       what, (long long)index, (long long)sp->count_r, (long long)sp->count_c, (long long)sp->rows,
                       (long long)sp->cols);
    if (rl_mul_overflows(sp->rows, sp->cols, elems) || rl_mul_overflows(*elems, sp->count_r, elems) ||
        rl_mul_overflows(*elems, sp->count_c, elems))
        return rl_fail(RELAY_ERR_FORMAT, "%s lattice %lld holds more than 2^63 elements", what, (long long)index);
    return RELAY_OK;
}

/* A lattice travels as one unit only along a dimension of several pieces
 * (the planner fuses where they touch in both buffers or stack: how a
 * message is packed, which sender and receiver read alike from the same
 * bits, whatever the buffers; the bounds are checked piece by piece). */
static relay_status check_fused(const rl_span *sp, const char *what, int64_t index)
{
    int rows = (sp->fused & RL_FUSED_ROWS) != 0, cols = (sp->fused & RL_FUSED_COLS) != 0;
    if (sp->fused < 0 || sp->fused > (RL_FUSED_ROWS | RL_FUSED_COLS) || (rows && sp->count_r < 2) || (cols && sp->count_c < 2))
        return rl_fail(RELAY_ERR_FORMAT, "%s lattice %lld is fused (%lld) along a dimension of one piece", what,
                       (long long)index, (long long)sp->fused);
    return RELAY_OK;
}

static relay_status check_span(const relay_plan *p, const rl_section *s, const rl_span *sp, int is_dst,
                               const char *what, int64_t index, int64_t *elems)
{
    side sd;
    relay_status st = check_shape(p, sp, what, index, elems);
    if (st) return st;
    sd = side_of(p, sp->pair, is_dst);
    st = check_place(sd, sp, is_dst ? s->dst_elems[sp->pair] : s->src_elems[sp->pair], what, index);
    return st ? st : check_fused(sp, what, index);
}

/* Messages must partition their lattice array in order, name distinct peers
 * other than the section's rank, and carry exactly their lattices' elements. */
static relay_status check_messages(const relay_plan *p, const rl_section *s, const rl_message *msg, int nmsg,
                                   const rl_span *spans, int64_t nspans, int is_dst, const char *what)
{
    int64_t next = 0;
    char *seen = rl_calloc((size_t)p->nranks, 1);
    if (!seen) return RL_NOMEM();
    relay_status st = RELAY_OK;
    for (int k = 0; k < nmsg && !st; k++) {
        const rl_message *m = &msg[k];
        int64_t elems = 0, e = 0;
        if (m->peer < 0 || m->peer >= p->nranks || m->peer == s->rank || seen[m->peer])
            st = rl_fail(RELAY_ERR_FORMAT, "%s message %d of rank %d names peer %lld: not a distinct other rank of %d",
                         what, k, s->rank, (long long)m->peer, p->nranks);
        else if (m->first != next || m->count <= 0 || m->count > nspans - next)
            st = rl_fail(RELAY_ERR_FORMAT, "%s message %d of rank %d has a bad lattice range", what, k, s->rank);
        for (int64_t i = m->first; !st && i < m->first + m->count; i++) {
            st = check_span(p, s, &spans[i], is_dst, what, i, &e);
            if (!st && rl_add_overflows(elems, e, &elems))
                st = rl_fail(RELAY_ERR_FORMAT, "%s message %d of rank %d overflows", what, k, s->rank);
        }
        if (!st && elems != m->elems)
            st = rl_fail(RELAY_ERR_FORMAT, "%s message %d of rank %d declares %lld elements but its lattices hold %lld",
                         what, k, s->rank, (long long)m->elems, (long long)elems);
        if (!st) {
            seen[m->peer] = 1;
            next += m->count;
        }
    }
    free(seen);
    if (!st && next != nspans)
        st = rl_fail(RELAY_ERR_FORMAT, "%s lattices of rank %d are not all in a message", what, s->rank);
    return st;
}

/* A local lattice is a sender's lattice in B and a receiver's in A. */
static relay_status check_local(const relay_plan *p, const rl_section *s, const rl_local_span *l, int64_t index)
{
    rl_span from = rl_local_half(l, 0), to = rl_local_half(l, 1);
    int64_t e;
    relay_status st = check_span(p, s, &from, 0, "local", index, &e);
    return st ? st : check_span(p, s, &to, 1, "local", index, &e);
}

/* A rounds schedule gives each message a step in [0, rounds), and a rank
 * sends at most once and receives at most once per step.  Other schedules
 * carry no steps. */
static relay_status check_rounds(const relay_plan *p, const rl_section *s, const int64_t *round, int nmsg, const char *what)
{
    int rounds = p->schedule == RELAY_SCHED_ROUNDS;
    if (!rounds && round)
        return rl_fail(RELAY_ERR_FORMAT, "%s messages of rank %d carry steps, but the plan's schedule has none", what, s->rank);
    if (rounds && !round && nmsg > 0)
        return rl_fail(RELAY_ERR_FORMAT, "%s messages of rank %d lack the steps of the plan's rounds schedule", what, s->rank);
    if (!round) return RELAY_OK;
    char *used = rl_calloc((size_t)p->rounds + 1, 1);
    if (!used) return RL_NOMEM();
    relay_status st = RELAY_OK;
    for (int k = 0; k < nmsg && !st; k++) {
        if (round[k] < 0 || round[k] >= p->rounds || used[round[k]])
            st = rl_fail(RELAY_ERR_FORMAT, "%s message %d of rank %d has step %lld: not a free step of %d", what, k, s->rank,
                         (long long)round[k], p->rounds);
        else used[round[k]] = 1;
    }
    free(used);
    return st;
}

/* In a rounds plan a rank's local copies take a step of their own, in which
 * it neither sends nor receives (as the sender-to-itself edge of the
 * colouring); other plans copy locally while their messages travel. */
static relay_status check_local_round(const relay_plan *p, const rl_section *s)
{
    int64_t lr = s->local_round;
    if (p->schedule != RELAY_SCHED_ROUNDS || s->nlocal == 0) {
        if (lr == -1) return RELAY_OK;
        return rl_fail(RELAY_ERR_FORMAT, "rank %d gives a step to local copies it does not have in a rounds plan", s->rank);
    }
    if (lr < 0 || lr >= p->rounds)
        return rl_fail(RELAY_ERR_FORMAT, "rank %d's local copies have step %lld, not one of the plan's %d", s->rank, (long long)lr,
                       p->rounds);
    for (int k = 0; k < s->nsend; k++)
        if (s->send_round[k] == lr) return rl_fail(RELAY_ERR_FORMAT, "rank %d sends in the step of its local copies", s->rank);
    for (int k = 0; k < s->nrecv; k++)
        if (s->recv_round[k] == lr) return rl_fail(RELAY_ERR_FORMAT, "rank %d receives in the step of its local copies", s->rank);
    return RELAY_OK;
}

relay_status rl_section_validate(const rl_section *s, const relay_plan *p)
{
    if (s->rank < 0 || s->rank >= p->nranks)
        return rl_fail(RELAY_ERR_FORMAT, "section rank %d is not in [0, %d)", s->rank, p->nranks);
    if (s->nsend < 0 || s->nsend >= p->nranks || s->nrecv < 0 || s->nrecv >= p->nranks)
        return rl_fail(RELAY_ERR_FORMAT, "rank %d sends %d or receives %d messages among %d ranks",
                       s->rank, s->nsend, s->nrecv, p->nranks);
    for (int k = 0; k < p->count; k++)
        if (s->src_elems[k] < 0 || s->dst_elems[k] < 0)
            return rl_fail(RELAY_ERR_FORMAT, "rank %d declares a negative buffer size", s->rank);
    relay_status st = check_messages(p, s, s->send, s->nsend, s->send_spans, s->nsend_spans, 0, "send");
    if (!st) st = check_messages(p, s, s->recv, s->nrecv, s->recv_spans, s->nrecv_spans, 1, "receive");
    if (!st) st = check_rounds(p, s, s->send_round, s->nsend, "send");
    if (!st) st = check_rounds(p, s, s->recv_round, s->nrecv, "receive");
    if (!st) st = check_local_round(p, s);
    for (int64_t i = 0; !st && i < s->nlocal; i++) st = check_local(p, s, &s->local[i], i);
    return st;
}
