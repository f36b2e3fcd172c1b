/* index.c — relay-run's fill function and check for index plans.
 *
 * Element e of slot s of rank r's owner buffer holds ((5r + 11s + 3e) mod
 * 53) - 26, of its holder buffer ((5r + 11s + 3e + 7) mod 53) - 26
 * (imaginary parts ((3r + 5s + 11e) mod 29) - 14 and that + 1 mod 29);
 * the buffer a move writes starts as NaN where it overwrites (a
 * broadcast's holders).  The plan holds no item numbers, only slot pairs,
 * so the check reads them from this rank's own section: a broadcast's
 * holder slot must hold the value of the owner slot its receive or local
 * move names, a sum's owner slot its own value plus, replay after replay,
 * every contribution its receives (ascending peer order, the local moves
 * at this rank's place) and local moves name, added one by one in the
 * plan's type: the same order, so the same bits, as the replay. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_plan.h"
#include "run.h"

static double complex value(int rank, int64_t slot, int64_t e, int holder)
{
    int64_t re = (5 * (int64_t)rank + 11 * (slot % 53) + 3 * (e % 53) + 7 * holder) % 53 - 26;
    int64_t im = (3 * (int64_t)rank + 5 * (slot % 29) + 11 * (e % 29) + holder) % 29 - 14;
    return (double)re + (double)im * I;
}

static void fill(void *buf, relay_type t, int rank, int64_t slots, int64_t k, int holder)
{
    for (int64_t s = 0; s < slots; s++)
        for (int64_t e = 0; e < k; e++) run_store(buf, t, s * k + e, value(rank, s, e, holder));
}

int prepare_index(const relay_plan *p, int rank, run_buffers *buf, cli_error *e)
{
    int sum = relay_plan_index_move(p) == RELAY_INDEX_REDUCE_SUM;
    int64_t k = relay_plan_index_item_elems(p), owners = relay_plan_index_slots(p, 0, rank),
            holders = relay_plan_index_slots(p, 1, rank);
    relay_type t = relay_plan_type(p);
    if (run_buffers_init(buf, 1, e) || run_alloc_pair(buf, 0, (sum ? owners : holders) * k, (sum ? holders : owners) * k, t, rank, e))
        return e->status;
    fill(sum ? buf->b[0] : buf->a[0], t, rank, holders, k, 1);
    fill(sum ? buf->a[0] : buf->b[0], t, rank, owners, k, 0);
    if (!sum) memset(buf->a[0], 0xff, (size_t)(holders * k) * relay_type_size(t)); /* NaN: every slot must be written */
    return CLI_OK;
}

/* What the check expects in the written buffer (of `slots` slots). */
typedef struct {
    const rl_index_section *s;
    relay_type t;
    int64_t k;
    int sum;
    void *want;
} expected;

/* Message m (from peer) applied to want: each pair's to slot gets (or has
 * added) the from slot's value on peer. */
static void apply(const expected *x, const rl_index_msg *m)
{
    for (int64_t g = m->first; g < m->first + m->count; g++)
        for (int64_t i = 0; i < rl_index_seg_items(&x->s->segs[g]); i++) {
            int64_t from, to;
            rl_index_seg_pair(x->s, &x->s->segs[g], i, &from, &to);
            for (int64_t e = 0; e < x->k; e++) {
                double complex v = value((int)m->peer, from, e, x->sum);
                if (x->sum) v += run_load(x->want, x->t, to * x->k + e);
                run_store(x->want, x->t, to * x->k + e, v);
            }
        }
}

/* One replay's moves into want, in the order a sum adds them. */
static void replay_once(const expected *x)
{
    const rl_index_section *s = x->s;
    int local_done = !s->local.count;
    for (int i = 0; i <= s->nrecv; i++) {
        if (!local_done && (i == s->nrecv || s->recv[i].peer > s->rank)) {
            apply(x, &s->local);
            local_done = 1;
        }
        if (i < s->nrecv) apply(x, &s->recv[i]);
    }
}

int64_t check_index(const relay_plan *p, int rank, const run_buffers *buf, int64_t *checked, char *first, size_t cap)
{
    int sum = relay_plan_index_move(p) == RELAY_INDEX_REDUCE_SUM;
    int64_t k = relay_plan_index_item_elems(p), slots = relay_plan_index_slots(p, !sum, rank);
    relay_type t = relay_plan_type(p);
    size_t esz = relay_type_size(t);
    expected x = {p->index->sections[rank], t, k, sum, run_alloc(slots * k, esz)};
    *checked = slots * k;
    if (!x.want) return slots * k;
    if (sum) fill(x.want, t, rank, slots, k, 0);
    else memset(x.want, 0xff, (size_t)(slots * k) * esz);
    for (int64_t r = 0; r < (sum ? buf->replays : 1); r++) replay_once(&x);
    int64_t wrong = 0;
    for (int64_t i = 0; i < slots * k; i++) {
        if (!memcmp((const char *)buf->a[0] + (size_t)i * esz, (const char *)x.want + (size_t)i * esz, esz)) continue;
        double complex got = run_load(buf->a[0], t, i), want = run_load(x.want, t, i);
        if (wrong++ == 0)
            snprintf(first, cap, "element %lld of slot %lld is %g%+gi, expected %g%+gi", (long long)(i % k), (long long)(i / k),
                     creal(got), cimag(got), creal(want), cimag(want));
    }
    free(x.want);
    return wrong;
}
