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

static int by_step(const void *x, const void *y)
{
    const step_transfer *a = x, *b = y;
    if (a->step != b->step) return a->step < b->step ? -1 : 1;
    return (a->from > b->from) - (a->from < b->from);
}

static int64_t recv_step(const rl_section *s, int64_t from)
{
    for (int k = 0; k < s->nrecv; k++)
        if (s->recv[k].peer == from) return s->recv_round ? s->recv_round[k] : -1;
    return -1;
}

/* Marks rank r busy in step s in `used` (rounds x nranks); 0 if it already was. */
static int occupy(char *used, const relay_plan *p, int64_t s, int r)
{
    if (s < 0 || s >= p->rounds) return 0;
    char *c = &used[s * p->nranks + r];
    return !(*c)++;
}

int step_view_build(step_view *v, const relay_plan *p)
{
    memset(v, 0, sizeof *v);
    v->contention_free = 1;
    for (int r = 0; r < p->nranks; r++) v->n += p->sections[r]->nsend + (p->sections[r]->local_round >= 0);
    v->t = malloc((size_t)(v->n ? v->n : 1) * sizeof *v->t);
    char *sends = calloc((size_t)p->rounds * (size_t)p->nranks + 1, 1), *recvs = calloc((size_t)p->rounds * (size_t)p->nranks + 1, 1);
    if (!v->t || !sends || !recvs) {
        free(sends);
        free(recvs);
        step_view_free(v);
        return -1;
    }
    int64_t n = 0;
    for (int r = 0; r < p->nranks; r++) {
        const rl_section *s = p->sections[r];
        if (s->local_round >= 0) {
            v->t[n++] = (step_transfer){s->local_round, r, r};
            v->contention_free &= occupy(sends, p, s->local_round, r) & occupy(recvs, p, s->local_round, r);
        }
        for (int k = 0; k < s->nsend; k++) {
            int64_t step = s->send_round ? s->send_round[k] : -1;
            int to = (int)s->send[k].peer;
            v->t[n++] = (step_transfer){step, r, to};
            v->contention_free &= occupy(sends, p, step, r) & occupy(recvs, p, step, to) &
                                  (recv_step(p->sections[to], r) == step);
        }
    }
    qsort(v->t, (size_t)v->n, sizeof *v->t, by_step);
    free(sends);
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
    if (p->rounds > STEPS_SHOWN) fprintf(out, "    ... and %d more steps (see --json)\n", p->rounds - STEPS_SHOWN);
}

void step_view_json(json_writer *w, const step_view *v, const relay_plan *p)
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
    for (int64_t step = 0; step < p->rounds; step++) {
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
}
