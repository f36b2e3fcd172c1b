/* relay/index.h — index layouts: data without a grid, planned once.
 *
 * An index layout is an index space of n items, each item_elems elements
 * of the plan's type (a mesh vertex with 3 doubles is an item of 3
 * elements), and for each rank the items it holds, in its local storage
 * order: slot j of a rank's buffer (elements j * item_elems onwards)
 * holds its j-th item.  A rank's items are given as an explicit list or
 * as runs (start, length, stride): items start, start + stride, ...,
 * start + (length - 1) * stride, stride any integer.  A rank may hold an
 * item twice and any number of ranks may hold one item.
 *
 * A move goes between two index layouts of one index space, as PETSc's
 * star forest goes between roots and leaves and Tpetra's Import between a
 * one-to-one and an overlapping map:
 *   owners   who owns each item: every item at most once over all ranks
 *            and slots (an item no rank holds needs no owner);
 *   holders  who holds copies: owners and ghosts, duplicates allowed;
 *            every item a holder holds must have an owner.
 * RELAY_INDEX_BROADCAST copies each item from its owner's slot into every
 * slot that holds it (a ghost update).  RELAY_INDEX_REDUCE_SUM adds every
 * holder slot's value into its item's owner slot, one after another in
 * ascending (holder rank, holder slot) order,
 *     owner := ((owner + c_0) + c_1) + ...,
 * so that the sum is the same bits on every replay and every job; an owned
 * item no one holds is left as it is.
 *
 * Planning is offline, from every rank's lists, and compresses what each
 * rank sends each peer into runs: progressions, and progressions of
 * progressions, of slots at constant steps on both sides (a 2-D block
 * decomposition's halo given as indices is a few runs per peer, whatever
 * n), and lists what does not compress (16 bytes per item).
 *
 * relay_exec_create binds an index plan like any other (collective; the
 * plan's section of each rank, from the planner or a file).  A replay
 * (relay_exec_run, or start and wait) takes one buffer each way: src[0]
 * the one the move reads (a broadcast's owner slots, a sum's holder
 * slots), dst[0] the one it writes (the holders') or adds into (the
 * owners'), each slots x item_elems elements of the plan's type (NULL
 * where the rank has no slots); alpha and beta must be NULL. */
#ifndef RELAY_INDEX_H
#define RELAY_INDEX_H

#include "relay/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int64_t start, length, stride;
} relay_index_run;

typedef struct relay_index_layout relay_index_layout;

/* An index space of n >= 0 items of item_elems >= 1 elements each (n *
 * item_elems at most 2^56), over nranks ranks (1 .. 2^24), each holding
 * nothing yet. */
RELAY_API relay_status relay_index_layout_create(relay_index_layout **out, int64_t n, int64_t item_elems, int nranks);
RELAY_API void relay_index_layout_free(relay_index_layout *l);

/* What rank holds, in its storage order, replacing what it held: count
 * items of a list, or nruns runs (a run of length 0 holds nothing).  Every
 * item must lie in [0, n) (RELAY_ERR_ARG naming the first that does not,
 * the rank's holding unchanged).  A list is kept as the runs it
 * compresses to; a rank holds at most 2^40 items. */
RELAY_API relay_status relay_index_layout_set_list(relay_index_layout *l, int rank, int64_t count, const int64_t *items);
RELAY_API relay_status relay_index_layout_set_runs(relay_index_layout *l, int rank, int64_t nruns, const relay_index_run *runs);

RELAY_API int64_t relay_index_layout_items(const relay_index_layout *l);      /* n */
RELAY_API int64_t relay_index_layout_item_elems(const relay_index_layout *l);
RELAY_API int relay_index_layout_nranks(const relay_index_layout *l);
/* Slots rank holds (its buffer holds that many times item_elems
 * elements), and the runs they are kept as; -1 for a bad rank. */
RELAY_API int64_t relay_index_layout_held(const relay_index_layout *l, int rank);
RELAY_API int64_t relay_index_layout_nruns(const relay_index_layout *l, int rank);
/* Run i of rank's holding. */
RELAY_API relay_status relay_index_layout_run(const relay_index_layout *l, int rank, int64_t i, relay_index_run *run);

typedef enum { RELAY_INDEX_BROADCAST, RELAY_INDEX_REDUCE_SUM } relay_index_move;

/* Plans `move` between owners and holders (above) for nranks ranks (each
 * layout's rank count at most nranks; the same n and item_elems).
 * RELAY_ERR_ARG, nothing built, naming the first problem: an item owned
 * twice, an item held with no owner, layouts of different index spaces.
 * The plan's kind is RELAY_PLAN_INDEX; it holds every rank's section. */
RELAY_API relay_status relay_plan_index(relay_plan **out, int nranks, const relay_index_layout *owners,
        const relay_index_layout *holders, relay_index_move move, relay_type type);

/* An index plan's move, its items' elements and the slots of rank's owner
 * and holder buffers (-1 for other plans or a bad rank). */
RELAY_API int relay_plan_index_move(const relay_plan *p);
RELAY_API int64_t relay_plan_index_item_elems(const relay_plan *p);
RELAY_API int64_t relay_plan_index_slots(const relay_plan *p, int holders, int rank);

#ifdef __cplusplus
}
#endif
#endif
