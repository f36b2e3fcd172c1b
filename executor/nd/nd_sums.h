/* nd_sums.h — adding a pair's partial pieces in a fixed order as they land.
 *
 * Each element of A is the sum of one contribution per partial piece of B.
 * Floating-point sums depend on their order, so a replay adds them in
 * piece order, whatever order messages land in: the transfers of summed
 * pairs that reach a rank (received or local) are kept in (pair, piece,
 * peer) order, and each pair's next one is added only once it has landed.
 * A piece's transfers cover disjoint elements, so within a piece any
 * order gives the same bits; keeping one order is simply the shortest
 * rule.  Every replay adds the same numbers in the same order. */
#ifndef RELAY_ND_SUMS_H
#define RELAY_ND_SUMS_H

#include "message_set.h"
#include "nd_transfers.h"

typedef struct {
    const rl_nd_transfer *t;
    char *packed;             /* the packed message its bytes land in (its box's packed side);
                                 NULL: a local transfer, read from B */
    int landed;
} rl_nd_arrival;

typedef struct {
    int64_t n;
    rl_nd_arrival *v;         /* by (pair, piece, peer) */
    int64_t *next, *end;      /* per pair: its next arrival to add, one past its last */
    int *of_first, *of;       /* per receive (CSR): the arrivals it brings */
} rl_nd_sums;

/* The arrivals of the pairs whose `summed[k]` is set: part's transfers,
 * as set (their message set, its buffers held) carries them. */
relay_status rl_nd_sums_build(rl_nd_sums *s, const rl_nd_part *part, const rl_msgset *set, const int *summed, int count);
/* A new replay: only local transfers have landed. */
void rl_nd_sums_restart(rl_nd_sums *s, int count);
/* Receive `message` landed. */
void rl_nd_sums_land(rl_nd_sums *s, int message);
/* Pair k's next arrival if it may be added now (then it counts as added), else NULL. */
const rl_nd_arrival *rl_nd_sums_next(rl_nd_sums *s, int k);
void rl_nd_sums_free(rl_nd_sums *s);

#endif
