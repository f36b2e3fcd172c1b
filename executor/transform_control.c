/* transform_control.c — the control word of a transform replay's messages
 * (transform_control.h): written by each sender, recorded by each
 * receiver, read back into a verdict (a refused peer) or, past a
 * deadline, a diagnosis. */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "transform_control.h"

relay_status rl_control_prepare(rl_transform_exec *x)
{
    x->heard = rl_calloc((size_t)x->set.recv.n + 1, sizeof *x->heard);
    return x->heard ? RELAY_OK : RL_NOMEM();
}

void rl_control_put(const rl_transform_exec *x, void *at)
{
    if (!x->set.control) return;
    rl_control w = {x->replay, x->refusing ? RL_CONTROL_REFUSED : 0};
    memcpy(at, &w, sizeof w);
}

void rl_control_take(rl_transform_exec *x, int k, const void *at)
{
    if (!x->set.control) return;
    memcpy(&x->heard[k].word, at, sizeof x->heard[k].word);
    x->heard[k].in = x->replay;
}

/* Appends to buf (of room `room`, `used` so far) what fmt says. */
static size_t append(char *buf, size_t room, size_t used, const char *what, long long a, long long b)
{
    int n = used < room ? snprintf(buf + used, room - used, what, a, b) : 0;
    return used + (n > 0 ? (size_t)n : 0);
}

relay_status rl_control_verdict(const rl_transform_exec *x)
{
    char who[256];
    size_t used = 0;
    int refused = 0;
    for (int k = 0; k < x->set.recv.n; k++)
        if (x->heard && x->heard[k].in == x->replay && x->heard[k].word.flags & RL_CONTROL_REFUSED)
            used = append(who, sizeof who, used, refused++ ? ", %lld" : "%lld", x->set.recv.msg[k].peer, 0);
    if (!refused) return RELAY_OK;
    return rl_fail(RELAY_ERR_PEER, "replay %llu: the start of rank%s %s was refused (its arguments: see the status and message "
                   "there); what this rank received from it is NaN, the rest of A is right",
                   (unsigned long long)x->replay, refused > 1 ? "s" : "", who);
}

relay_status rl_control_timed_out(const rl_transform_exec *x)
{
    char missing[512], arrived[256];
    size_t m = 0, a = 0;
    int nmissing = 0, narrived = 0;
    for (int k = 0; k < x->set.recv.n; k++) {
        const rl_heard *h = &x->heard[k];
        long long peer = x->set.recv.msg[k].peer;
        if (x->set.control && h->in == x->replay) {
            a = append(arrived, sizeof arrived, a, narrived++ ? ", %lld" : "%lld", peer, 0);
            continue;
        }
        m = append(missing, sizeof missing, m, nmissing++ ? ", rank %lld" : "rank %lld", peer, 0);
        if (!x->set.control) continue;
        m = h->in ? append(missing, sizeof missing, m, " (at replay %lld: its last message was of that replay)", (long long)h->word.replay, 0)
                  : append(missing, sizeof missing, m, " (no message of this executor yet)", 0, 0);
    }
    if (!nmissing)
        return rl_fail(RELAY_ERR_TIMEOUT, "replay %llu passed its deadline of %g s on rank %d: every message to it arrived, but "
                       "its sends did not complete (a receiver is not in this replay)",
                       (unsigned long long)x->replay, x->deadline.seconds, x->rank);
    return rl_fail(RELAY_ERR_TIMEOUT, "replay %llu passed its deadline of %g s on rank %d: no message arrived from %s%s%s%s",
                   (unsigned long long)x->replay, x->deadline.seconds, x->rank, missing,
                   narrived ? "; rank(s) " : "", narrived ? arrived : "", narrived ? " sent theirs of this replay" : "");
}
