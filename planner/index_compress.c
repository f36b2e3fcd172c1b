/* index_compress.c — a message's slot pairs as runs and listed items.
 *
 * The pairs (from[i], to[i]) of one message, in the order they travel,
 * are cut greedily into progressions (each as long as both steps last),
 * then consecutive progressions of one length and steps whose starts
 * advance by constant steps are folded into runs of runs: a halo of width
 * w stored row by row is one run of w-item rows, whatever its length.  A
 * run of fewer than RUN_MIN items costs more than listing them (72 bytes
 * against 16 per item), so its items are listed. */
#include "error.h"
#include "index_compress.h"

enum { RUN_MIN = 4 };

/* The progression starting at pair i: its length. */
static int64_t progression(const int64_t *from, const int64_t *to, int64_t m, int64_t i, int64_t *df, int64_t *dt)
{
    *df = *dt = 0;
    if (i + 1 >= m) return 1;
    *df = from[i + 1] - from[i];
    *dt = to[i + 1] - to[i];
    int64_t len = 2;
    while (i + len < m && from[i + len] - from[i + len - 1] == *df && to[i + len] - to[i + len - 1] == *dt) len++;
    return len;
}

static relay_status grow(rl_index_pieces *out, int64_t segs, int64_t list)
{
    if (out->nsegs + segs > out->cap_segs) {
        int64_t cap = out->cap_segs * 2 > out->nsegs + segs ? out->cap_segs * 2 : out->nsegs + segs + 16;
        rl_index_seg *v = realloc(out->segs, (size_t)cap * sizeof *v);
        if (!v) return RL_NOMEM();
        out->segs = v;
        out->cap_segs = cap;
    }
    if (out->nlist + list > out->cap_list) {
        int64_t cap = out->cap_list * 2 > out->nlist + list ? out->cap_list * 2 : out->nlist + list + 16;
        int64_t *v = realloc(out->list, (size_t)cap * 2 * sizeof *v);
        if (!v) return RL_NOMEM();
        out->list = v;
        out->cap_list = cap;
    }
    return RELAY_OK;
}

/* Appends pairs [i, i + n) as listed items: to the last segment when it is
 * a listed one of this message (starting at first_seg), else a new one. */
static relay_status list_items(rl_index_pieces *out, int64_t first_seg, const int64_t *from, const int64_t *to, int64_t i, int64_t n)
{
    relay_status st = grow(out, 1, n);
    if (st) return st;
    rl_index_seg *last = out->nsegs > first_seg ? &out->segs[out->nsegs - 1] : NULL;
    if (!last || !last->listed) {
        out->segs[out->nsegs++] = (rl_index_seg){.listed = 1, .from = out->nlist};
        last = &out->segs[out->nsegs - 1];
    }
    for (int64_t k = i; k < i + n; k++) {
        out->list[2 * out->nlist] = from[k];
        out->list[2 * out->nlist + 1] = to[k];
        out->nlist++;
    }
    last->outer += n;
    return RELAY_OK;
}

relay_status rl_index_compress(rl_index_pieces *out, const int64_t *from, const int64_t *to, int64_t m)
{
    int64_t first_seg = out->nsegs;
    relay_status st = RELAY_OK;
    for (int64_t i = 0; !st && i < m;) {
        int64_t df, dt, inner = progression(from, to, m, i, &df, &dt), outer = 1;
        /* fold the progressions that follow while they repeat this one's shape at constant steps */
        int64_t next = i + inner, odf = 0, odt = 0;
        while (next + inner <= m) {
            int64_t df2, dt2, len = progression(from, to, next < m ? next + inner : m, next, &df2, &dt2);
            int64_t sf = from[next] - from[next - inner], stp = to[next] - to[next - inner];
            if (len != inner || (inner > 1 && (df2 != df || dt2 != dt)) || (outer > 1 && (sf != odf || stp != odt))) break;
            odf = sf;
            odt = stp;
            outer++;
            next += inner;
        }
        if (outer * inner < RUN_MIN) {
            st = list_items(out, first_seg, from, to, i, outer * inner);
        } else if (!(st = grow(out, 1, 0))) {
            out->segs[out->nsegs++] = (rl_index_seg){0, outer, inner, from[i], df, odf, to[i], dt, odt};
        }
        i += outer * inner;
    }
    return st;
}
