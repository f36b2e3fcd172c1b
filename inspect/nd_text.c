/* nd_text.c — text built piece by piece for relay-dump's N-D views
 * (dump.h): the summary's lines (nd.c) and one rank's transfers
 * (nd_rank.c) are written through it, cut where they outgrow it. */
#include <stdarg.h>
#include <stdio.h>

#include "dump.h"
#include "nd_layout.h"

void nd_put(nd_text *t, const char *fmt, ...)
{
    size_t room = sizeof t->s - t->len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s + t->len, room, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < room) t->len += (size_t)n;
    else t->len = sizeof t->s - 1, t->cut = 1;
}

void nd_put_list(nd_text *t, const int64_t *v, int n, const char *sep)
{
    for (int i = 0; i < n; i++) nd_put(t, "%s%lld", i ? sep : "", (long long)v[i]);
}

void nd_put_mesh_coords(nd_text *t, const relay_nd_layout *l, int64_t position)
{
    int coords[RELAY_ND_MAX_MESH];
    rl_nd_mesh_coords(l, position, coords);
    nd_put(t, "(");
    for (int m = 0; m < l->mesh_ndims; m++) nd_put(t, "%s%d", m ? ", " : "", coords[m]);
    nd_put(t, ")");
}
