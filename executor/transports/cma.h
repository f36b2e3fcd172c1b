/* cma.h — cross-memory attach (cma.c): one process reading another's
 * memory on the same node with Linux's process_vm_readv, as shared-memory
 * MPI does for large messages (Open MPI's smsc/cma, MPICH's CMA path).
 * relay uses it to let the receiver of a transposing message read the
 * sender's B itself (pull.c).  Elsewhere than Linux nothing can
 * be read, and every caller falls back to MPI messages. */
#ifndef RELAY_CMA_H
#define RELAY_CMA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Who this process is, for a peer that would read it: its pid, a key of
 * its node and pid namespace (two processes with the same key can name
 * each other by pid), and the address and value of a random cookie the
 * peer reads back to prove it reads this very process. */
typedef struct {
    int64_t pid;
    uint64_t node;
    uint64_t cookie_at, cookie;
    int64_t readable;        /* 0: this process cannot be read (not Linux, Yama's scope 2 or 3) */
} rl_cma_card;

/* This process's card: readable unless Yama forbids ptrace outright
 * (scopes 2 and 3). */
void rl_cma_card_make(rl_cma_card *c);

/* Where Yama restricts ptrace to descendants (scope 1), lets any process
 * of the same user read this one, as MPI libraries do for their own
 * single-copy transfers (prctl PR_SET_PTRACER); once, and only when a
 * peer is about to read it. */
void rl_cma_let_read(void);

/* Whether this process can read the one of card `peer`: same node key,
 * and the peer's cookie read back through process_vm_readv. */
int rl_cma_can_read(const rl_cma_card *mine, const rl_cma_card *peer);

/* Reads n remote runs (addresses and lengths in process pid) one after
 * another into `to`, `bytes` in all; returns 0, or an errno (EFAULT where
 * less than everything could be read). */
typedef struct {
    uint64_t at;
    size_t len;
} rl_cma_run;
int rl_cma_read(int64_t pid, void *to, size_t bytes, const rl_cma_run *runs, int n);

#endif
