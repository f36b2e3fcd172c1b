/* transform_bind.h — binding p2p replays with the other end of each
 * message (transform_bind.c). */
#ifndef RELAY_TRANSFORM_BIND_H
#define RELAY_TRANSFORM_BIND_H

#include "transform.h"

/* One exchange of a few bytes with the other end of each message at bind
 * (item k: the section's send k, then receive k - nsend): out_bytes from
 * out, unless NULL, tagged with this end's side, and in_bytes into in,
 * unless NULL, tagged with the other's.  Collective in effect. */
typedef struct {
    const void *out;
    int out_bytes;
    void *in;
    int in_bytes;
} rl_swap;
relay_status rl_transform_swap(rl_transform_exec *x, const rl_swap *items, const char *what);

/* Which messages travel direct, run by run (both ends agree), their runs
 * and their requests' room. */
relay_status rl_transform_agree_direct(rl_transform_exec *x);

#endif
