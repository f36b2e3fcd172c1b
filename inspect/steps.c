/* steps.c — the steps of a rounds schedule, as relay-dump shows them.
 *
 * Everything is read back from the sections (send_round, recv_round,
 * local_round), so the view checks the plan rather than trusting the
 * planner: a step in which a rank sends twice, receives twice, or whose two
 * ends disagree, makes the schedule "not contention-free".  For a single
 * block-cyclic pair the ReSHAPE superblock is shown too: R = lcm(Pr, Qr) by
 * C = lcm(Pc, Qc) blocks and the step count (R*C)/min(P, Q): the paper's
 * (R*C)/P for expansions, the minimum for shrinks. */
#include <stdlib.h>
#include <string.h>

#include "dump.h"

enum { STEPS_SHOWN = 16, TRANSFERS_SHOWN = 12 };

/* Orders of transfers: by step then sender (the view's order), by step
 * then receiver, and by sender, receiver and step (to match both ends). */
static int cmp64(int64_t a, int64_t b) { return (a > b) - (a < b); }

static int by_step(const void *x, const void *y)
{
    const step_transfer *a = x, *b = y;
    return a->step != b->step ? cmp64(a->step, b->step) : cmp64(a->from, b->from);
}

static int by_step_receiver(const void *x, const void *y)
{
    const step_transfer *a = x, *b = y;
    return a->step != b->step ? cmp64(a->step, b->step) : cmp64(a->to, b->to);
}

static int by_ends(const void *x, const void *y)
{
    const step_transfer *a = x, *b = y;
    if (a->from != b->from) return cmp64(a->from, b->from);
    return a->to != b->to ? cmp64(a->to, b->to) : cmp64(a->step, b->step);
}

/* Every transfer as its sender (to_side 0) or its receiver (1) lists it; a
 * local copy counts on both sides.  Returns the count; t may be NULL. */
static int64_t list_transfers(const relay_plan *p, int to_side, step_transfer *t)
{
    int64_t n = 0;
    for (int r = 0; r < p->nranks; r++) {
        const rl_section *s = p->sections[r];
        int nmsg = to_side ? s->nrecv : s->nsend;
        const rl_message *msg = to_side ? s->recv : s->send;
        const int64_t *round = to_side ? s->recv_round : s->send_round;
        if (s->local_round >= 0 && t) t[n] = (step_transfer){s->local_round, r, r};
        n += s->local_round >= 0;
        for (int k = 0; k < nmsg && t; k++) {
            int peer = (int)msg[k].peer;
            t[n + k] = (step_transfer){round ? round[k] : -1, to_side ? peer : r, to_side ? r : peer};
        }
        n += nmsg;
    }
    return n;
}

/* 0 when two neighbours of sorted t share what cmp compares. */
static int all_distinct(step_transfer *t, int64_t n, int (*cmp)(const void *, const void *))
{
    qsort(t, (size_t)n, sizeof *t, cmp);
    for (int64_t i = 1; i < n; i++)
        if (!cmp(&t[i - 1], &t[i])) return 0;
    return 1;
}

/* Contention-free: every step in range, each rank sending at most once and
 * receiving at most once per step (a copy is both), and both ends of every
 * message naming the same step.  By sorting, so that the cost follows the
 * sections' size, not rounds x ranks.  Leaves sends in the view's order. */
static int check_contention(const relay_plan *p, step_transfer *sends, step_transfer *recvs, int64_t n)
{
    int ok = 1;
    for (int64_t i = 0; i < n; i++) ok &= sends[i].step >= 0 && sends[i].step < p->rounds;
    qsort(sends, (size_t)n, sizeof *sends, by_ends);
    qsort(recvs, (size_t)n, sizeof *recvs, by_ends);
    for (int64_t i = 0; i < n && ok; i++) ok = !by_ends(&sends[i], &recvs[i]);
    ok &= all_distinct(recvs, n, by_step_receiver);
    return all_distinct(sends, n, by_step) & ok;
}

int step_view_build(step_view *v, const relay_plan *p)
{
    memset(v, 0, sizeof *v);
    v->n = list_transfers(p, 0, NULL);
    int64_t nrecv = list_transfers(p, 1, NULL);
    v->t = malloc((size_t)(v->n ? v->n : 1) * sizeof *v->t);
    step_transfer *recvs = malloc((size_t)(nrecv ? nrecv : 1) * sizeof *recvs);
    if (!v->t || !recvs) {
        free(recvs);
        step_view_free(v);
        return -1;
    }
    list_transfers(p, 0, v->t);
    list_transfers(p, 1, recvs);
    v->contention_free = v->n == nrecv && check_contention(p, v->t, recvs, v->n);
    if (v->n != nrecv) qsort(v->t, (size_t)v->n, sizeof *v->t, by_step);
    free(recvs);
    return 0;
}

void step_view_free(step_view *v)
{
    free(v->t);
    v->t = NULL;
    v->n = 0;
}

static int64_t lcm(int64_t a, int64_t b)
{
    int64_t x = a, y = b;
    while (y) {
        int64_t t = x % y;
        x = y;
        y = t;
    }
    return a / x * b;
}

/* The superblock of a single block-cyclic pair, or 0. */
static int superblock(const relay_plan *p, int64_t *R, int64_t *C, int64_t *paper_steps)
{
    if (p->count != 1 || p->pairs[0].src->kind != RL_LAYOUT_BLOCK_CYCLIC || p->pairs[0].dst->kind != RL_LAYOUT_BLOCK_CYCLIC)
        return 0;
    const rl_block_cyclic *from = &p->pairs[0].src->bc, *to = &p->pairs[0].dst->bc;
    *R = lcm(from->nprow, to->nprow);
    *C = lcm(from->npcol, to->npcol);
    int64_t P = (int64_t)from->nprow * from->npcol, Q = (int64_t)to->nprow * to->npcol;
    *paper_steps = *R * *C / (P < Q ? P : Q);
    return 1;
}

void step_view_print(const step_view *v, const relay_plan *p, FILE *out)
{
    int64_t R, C, paper;
    fprintf(out, "  steps      %d, %s\n", p->rounds,
            v->contention_free ? "contention-free (each rank sends at most once and receives at most once per step)"
                               : "NOT contention-free");
    if (superblock(p, &R, &C, &paper))
        fprintf(out, "             superblock %lld x %lld blocks; (R*C)/min(P, Q) = %lld steps (ReSHAPE)\n", (long long)R,
                (long long)C, (long long)paper);
    int64_t i = 0;
    for (int64_t step = 0; step < p->rounds && step < STEPS_SHOWN; step++) {
        int shown = 0, more = 0;
        fprintf(out, "    step %-3lld", (long long)step);
        while (i < v->n && v->t[i].step < step) i++;
        for (; i < v->n && v->t[i].step == step; i++) {
            if (shown++ >= TRANSFERS_SHOWN) {
                more++;
                continue;
            }
            if (v->t[i].from == v->t[i].to) fprintf(out, " %d:copy", v->t[i].from);
            else fprintf(out, " %d->%d", v->t[i].from, v->t[i].to);
        }
        if (more) fprintf(out, " ... and %d more", more);
        fprintf(out, "%s\n", shown ? "" : " (nothing)");
    }
    if (p->rounds > STEPS_SHOWN) fprintf(out, "    ... and %d more steps (see --json; --limit 0 lists every step)\n", p->rounds - STEPS_SHOWN);
}

void step_view_json(json_writer *w, const step_view *v, const relay_plan *p, int64_t listed)
{
    int64_t R, C, paper;
    json_bool(w, "contention_free", v->contention_free);
    if (superblock(p, &R, &C, &paper)) {
        json_begin_object(w, "superblock");
        json_int(w, "rows", R);
        json_int(w, "cols", C);
        json_int(w, "reshape_steps", paper);
        json_end_object(w);
    }
    json_begin_array(w, "steps");
    int64_t i = 0;
    for (int64_t step = 0; step < listed; step++) {
        json_begin_object(w, NULL);
        json_int(w, "step", step);
        while (i < v->n && v->t[i].step < step) i++;
        int64_t first = i;
        json_begin_array(w, "copies");
        for (; i < v->n && v->t[i].step == step; i++)
            if (v->t[i].from == v->t[i].to) json_int(w, NULL, v->t[i].from);
        json_end_array(w);
        json_begin_array(w, "sends");
        for (i = first; i < v->n && v->t[i].step == step; i++)
            if (v->t[i].from != v->t[i].to) {
                json_begin_array(w, NULL);
                json_int(w, NULL, v->t[i].from);
                json_int(w, NULL, v->t[i].to);
                json_end_array(w);
            }
        json_end_array(w);
        json_end_object(w);
    }
    json_end_array(w);
    json_int(w, "steps_left_out", p->rounds - listed);
}
