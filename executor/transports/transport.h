/* transport.h — how one message travels between its two ends.  One file
 * (or folder) per transport in this folder, each defining one table of the
 * operations below, and one line per transport in transport_table.c:
 *   staged.c  packed into the pack buffer, one MPI message (the default)
 *   direct.c  run by run from B into A, one MPI message per run
 *   pull.c    read by the receiver from the sender's B (cma.c: Linux's
 *             cross-memory attach)
 *   shm/      packed straight into the receiver's landing area in an MPI-3
 *             shared-memory window
 * Binding chooses each message's transport (x->send_via, x->recv_via):
 * every message starts staged, then each transport of the table, in
 * order, agrees with the other end of each message still staged whether
 * it takes it (collective in effect: both ends decide alike from what
 * they told each other).  A schedule moves each message through its
 * transport's operations; the ones a transport leaves NULL it does not
 * offer (only p2p's for direct and pulled messages; chunks under a memory
 * cap for staged and window ones).  docs/extending.md lists what adding
 * one takes. */
#ifndef RELAY_TRANSPORT_H
#define RELAY_TRANSPORT_H

#include "transform.h"

struct rl_transport_s {
    const char *name;
    /* Which pack buffer its messages use at each end (so binding drops
     * the buffers no message uses): whether a send packs into the send
     * buffer, whether a receive may land in the receive buffer. */
    int stages_sends, stages_receives;
    /* Binding unpacked p2p replays (and a memory cap's, for transports
     * with chunks), after the transports above it: which messages still
     * staged it takes, agreed with each one's other end, and what they
     * need.  Collective in effect.  NULL: staged, which keeps the rest. */
    relay_status (*agree)(rl_transform_exec *x);
    /* p2p, a replay: receive k posted; send k on its way (timed). */
    int (*receive)(rl_transform_exec *x, int k);
    int (*send)(rl_transform_exec *x, int k);
    /* p2p: receive k's request completed (MPI_Waitany): its elements into
     * A.  NULL where a receive has no such request (direct's runs). */
    int (*take)(rl_transform_exec *x, int k);
    /* p2p, the wait's end, every landed receive taken: what the
     * transport's messages still wait for; rc is how the wait went so far,
     * and what it returns unless it fails itself.  NULL: nothing. */
    int (*finish)(rl_transform_exec *x, int rc);
    /* After a replay whose every MPI call succeeded: a failure the
     * transport saw that MPI did not (a read that failed).  NULL: none. */
    relay_status (*report)(rl_transform_exec *x);
    /* Under a memory cap (schedules/capped.c), chunk by chunk: the
     * receiver of receive q expects chunk `chunk` in `slot` (*landed:
     * its arrival) and frees the slot for the sender (*freed, where it
     * tells); the sender of send s waits until it may fill its next slot
     * (NULL: at once), then packs chunk `chunk` into `slot` and starts it
     * (*req); the receiver takes a landed chunk into A.  NULL: not
     * offered under a cap. */
    int (*chunk_expect)(rl_transform_exec *x, int q, int64_t chunk, int slot, MPI_Request *landed, MPI_Request *freed);
    int (*chunk_wait_free)(rl_transform_exec *x, int s);
    int (*chunk_send)(rl_transform_exec *x, int s, int64_t chunk, int slot, MPI_Request *req);
    int (*chunk_take)(rl_transform_exec *x, int q, int64_t chunk);
};

/* The transports, for the files that name one. */
extern const rl_transport rl_transport_staged, rl_transport_direct, rl_transport_pull, rl_transport_window;

/* Binding: every message staged (before any agreement, and for the
 * schedules that agree on nothing). */
relay_status rl_transports_stage_all(rl_transform_exec *x);
/* Binding unpacked p2p replays, or a memory cap's: each transport's
 * agreement in table order; then the pack buffers no message uses
 * dropped.  Collective in effect. */
relay_status rl_transports_agree(rl_transform_exec *x);
/* Send k on its way; receive k, its request completed, into A (timed):
 * by the transport binding agreed on for it. */
static inline int rl_transport_send(rl_transform_exec *x, int k) { return x->send_via[k]->send(x, k); }
int rl_transport_take(rl_transform_exec *x, int k);
/* p2p's wait end and a replay's report: each transport's, in table order. */
int rl_transports_finish(rl_transform_exec *x, int rc);
relay_status rl_transports_report(rl_transform_exec *x);

#endif
