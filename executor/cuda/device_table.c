/* device_table.c — message sets as tables of device walks: each walk's
 * sides as offsets from the buffers a replay names (B, A, or the pack
 * buffer from its start), its V cut into tiles numbered across the set. */
#include <stdlib.h>

#include "device_table.h"
#include "error.h"

static int64_t ceil_div(int64_t x, int64_t b) { return (x + b - 1) / b; }

static rl_dev_side side_of(const rl_walk_side *s, int64_t base)
{
    return (rl_dev_side){s->off + base, s->step_r, s->step_c, s->rs, s->cs};
}

/* A side lies closest down V's columns when its next element down is
 * nearer than its next across (as the host kernels' tiles decide). */
static int32_t lies_down(const rl_walk_side *s, int64_t rows, int64_t cols)
{
    int64_t down = rows > 1 ? llabs(s->rs) : llabs(s->step_r), across = cols > 1 ? llabs(s->cs) : llabs(s->step_c);
    return down <= across;
}

/* Walk w of a message whose place in the pack buffer starts `base`
 * elements in. */
static rl_dev_walk dev_walk(const rl_walk *w, const rl_pair_info *pairs, rl_dev_phase phase, int64_t base)
{
    int64_t vrows = w->count_r * w->rows, vcols = w->count_c * w->cols;
    rl_dev_walk d = {
        .rows = w->rows, .cols = w->cols, .vrows = vrows, .vcols = vcols,
        .tiles_c = ceil_div(vcols, RL_DEV_TILE),
        .from = side_of(&w->from, phase == RL_DEV_UNPACK ? base : 0),
        .to = side_of(&w->to, phase == RL_DEV_PACK ? base : 0),
        .pair = (int32_t)w->pair,
        .from_buf = phase == RL_DEV_UNPACK ? RL_DEV_PACKED : RL_DEV_B,
        .to_buf = phase == RL_DEV_PACK ? RL_DEV_PACKED : RL_DEV_A,
        .conj = phase != RL_DEV_PACK && pairs[w->pair].op == RELAY_OP_C,
        .from_down = lies_down(&w->from, w->rows, w->cols),
        .to_down = lies_down(&w->to, w->rows, w->cols),
    };
    return d;
}

/* Appends walks [first, first + count) of ms, skipping empty ones. */
static void add_walks(rl_dev_table *t, const rl_message_set *ms, int64_t first, int64_t count, const rl_pair_info *pairs,
                      rl_dev_phase phase, int64_t base)
{
    for (int64_t i = first; i < first + count; i++) {
        const rl_walk *w = &ms->walks[i];
        if (w->rows * w->cols * w->count_r * w->count_c == 0) continue;
        rl_dev_walk d = dev_walk(w, pairs, phase, base);
        d.first_tile = t->ntiles;
        t->ntiles += ceil_div(d.vrows, RL_DEV_TILE) * d.tiles_c;
        t->walks[t->nwalks++] = d;
    }
}

relay_status rl_dev_table_build(rl_dev_table *t, const rl_message_set *ms, const rl_message *msg, int nmsg,
                                const rl_pair_info *pairs, rl_dev_phase phase, size_t esz)
{
    int64_t n = 0;
    if (msg)
        for (int k = 0; k < nmsg; k++) n += msg[k].count;
    else
        n = nmsg;
    *t = (rl_dev_table){NULL, 0, 0};
    t->walks = n ? calloc((size_t)n, sizeof *t->walks) : NULL;
    if (n && !t->walks) return RL_NOMEM();
    if (!msg) add_walks(t, ms, 0, n, pairs, phase, 0);
    for (int k = 0; msg && k < nmsg; k++)
        add_walks(t, ms, msg[k].first, msg[k].count, pairs, phase, ms->byte_off[k] / (int64_t)esz);
    return RELAY_OK;
}

void rl_dev_table_free(rl_dev_table *t)
{
    free(t->walks);
    *t = (rl_dev_table){NULL, 0, 0};
}
