/* exchange.h — what binding and replaying transports share (exchange.c):
 * the exchange with the other end of each message at bind, an opt-in
 * transport's environment switch, and the receiver's notices. */
#ifndef RELAY_EXCHANGE_H
#define RELAY_EXCHANGE_H

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

/* An opt-in transport's environment switch `name`: *choice the index in
 * `values` (nvalues of them) of its value, 0 where unset or empty; any
 * other value fails with RELAY_ERR_ARG naming them. */
relay_status rl_env_choice(const char *name, const char *const *values, int nvalues, int *choice);

/* Notices (transform.h) of the messages that travel by transport t,
 * tagged `tag`: persistent zero-byte requests, receiver to sender. */
relay_status rl_notices_create(rl_transform_exec *x, rl_notices *n, const rl_transport *t, int tag);
/* The receiver of message k is done with it in this replay. */
int rl_notice_send(rl_notices *n, int k);
/* A replay's end on the receiving side: sends the notices it has not sent
 * yet (a replay that failed half-way still releases its senders), ready
 * for the next replay. */
int rl_notices_send_rest(const rl_transform_exec *x, rl_notices *n);
int64_t rl_notices_bytes(const rl_transform_exec *x, const rl_notices *n);
void rl_notices_free(const rl_transform_exec *x, rl_notices *n);

#endif
