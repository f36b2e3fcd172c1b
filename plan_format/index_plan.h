/* index_plan.h — index layouts and index plans in memory (relay/index.h).
 *
 * An index plan (kind RELAY_PLAN_INDEX) is one move between an owner and
 * a holder layout: per rank, the messages it sends and receives and its
 * local moves, each a list of segments in the order the items travel.  A
 * segment pairs slots of the buffer moved from with slots of the buffer
 * moved to (the owners' for a broadcast's from side, the holders' for a
 * sum's), item by item:
 *   a run     outer x inner items, item (i, j) from slot
 *             from + i * from_outer + j * from_inner to slot
 *             to + i * to_outer + j * to_inner (j fastest): a progression
 *             of progressions, any steps;
 *   a listed  `outer` items whose slot pairs are the section's list
 *   segment   entries [from, from + outer), in order (what did not
 *             compress: 16 bytes per item).
 * Both ends of a message hold the same segments, so that each can be
 * read alone.  In a sum, a receiver adds its messages in ascending peer
 * order, its local moves at its own rank's place, each in segment order:
 * the ascending (holder rank, holder slot) order relay/index.h promises,
 * since a message lists its items in ascending holder slot order. */
#ifndef RELAY_INDEX_PLAN_H
#define RELAY_INDEX_PLAN_H

#include "relay/index.h"
#include "plan_internal.h"

/* An index space holds at most 2^56 elements, a rank's buffer at most
 * 2^40 slots (items): limits of the API and of the file alike. */
#define RL_INDEX_MAX_ELEMS ((int64_t)1 << 56)
#define RL_INDEX_MAX_SLOTS ((int64_t)1 << 40)

struct relay_index_layout {
    int64_t n, item_elems;
    int nranks;
    int64_t *held;            /* per rank: its slots */
    int64_t *nruns;           /* per rank: its runs */
    relay_index_run **runs;   /* per rank: nruns[r] runs, non-empty, in slot order */
};

/* A walk over a rank's slots in order, run by run: the item of each. */
typedef struct {
    const relay_index_run *run;
    int64_t i;                /* position in *run */
} rl_index_walk;

static inline rl_index_walk rl_index_walk_of(const relay_index_layout *l, int rank)
{
    return (rl_index_walk){l->runs[rank], 0};
}

/* The next item of the walk (call held[rank] times at most). */
static inline int64_t rl_index_walk_next(rl_index_walk *w)
{
    int64_t item = w->run->start + w->i * w->run->stride;
    if (++w->i == w->run->length) {
        w->run++;
        w->i = 0;
    }
    return item;
}

/* Compresses count items into runs (greedy: each run as long as its
 * stride lasts); *out holds *nruns of them (free()). */
relay_status rl_index_runs_of_list(const int64_t *items, int64_t count, relay_index_run **out, int64_t *nruns);

enum { RL_INDEX_SEG_FIELDS = 9, RL_INDEX_MSG_FIELDS = 4 };

typedef struct {
    int64_t listed;           /* 1: a listed segment, 0: a run */
    int64_t outer, inner;     /* listed: outer items, inner 0 */
    int64_t from, from_inner, from_outer; /* listed: from is its first list entry, the steps 0 */
    int64_t to, to_inner, to_outer;       /* listed: 0 */
} rl_index_seg;

/* A message to or from peer (the local moves: peer = the rank itself):
 * segments [first, first + count) of the section, `items` items. */
typedef struct {
    int64_t peer, first, count, items;
} rl_index_msg;

_Static_assert(sizeof(rl_index_seg) == RL_INDEX_SEG_FIELDS * sizeof(int64_t), "rl_index_seg has padding");
_Static_assert(sizeof(rl_index_msg) == RL_INDEX_MSG_FIELDS * sizeof(int64_t), "rl_index_msg has padding");

/* A rank's part.  Its segments are those of its sends (ascending peers),
 * then its receives (ascending peers), then its local moves, one after
 * another; its list entries (pairs of from and to slots) those of its
 * listed segments, in the same order. */
typedef struct {
    int32_t rank;
    int32_t nsend, nrecv;
    rl_index_msg *send, *recv;
    rl_index_msg local;       /* peer = rank; count 0 when it moves nothing locally */
    int64_t nsegs, nlist;
    rl_index_seg *segs;
    int64_t *list;            /* 2 * nlist: from slot, to slot */
    uint64_t checksum;        /* rl_index_section_hash */
} rl_index_section;

struct rl_index_plan {
    relay_index_move move;
    int64_t items, item_elems;
    int64_t *owner_slots, *holder_slots; /* per rank */
    uint64_t *checksums;      /* per rank: its section's checksum (all known from a file's index) */
    rl_index_section **sections; /* per rank; NULL where not loaded */
};

/* The slots of the buffer a move reads (from) or writes (to) on rank. */
static inline int64_t rl_index_from_slots(const rl_index_plan *x, int rank)
{
    return x->move == RELAY_INDEX_BROADCAST ? x->owner_slots[rank] : x->holder_slots[rank];
}
static inline int64_t rl_index_to_slots(const rl_index_plan *x, int rank)
{
    return x->move == RELAY_INDEX_BROADCAST ? x->holder_slots[rank] : x->owner_slots[rank];
}

static inline int64_t rl_index_seg_items(const rl_index_seg *s) { return s->listed ? s->outer : s->outer * s->inner; }

/* Slot pair k (k < the segment's items) of segment s of section x. */
static inline void rl_index_seg_pair(const rl_index_section *x, const rl_index_seg *s, int64_t k, int64_t *from, int64_t *to)
{
    if (s->listed) {
        *from = x->list[2 * (s->from + k)];
        *to = x->list[2 * (s->from + k) + 1];
        return;
    }
    int64_t i = k / s->inner, j = k % s->inner;
    *from = s->from + i * s->from_outer + j * s->from_inner;
    *to = s->to + i * s->to_outer + j * s->to_inner;
}

/* An index plan of nranks ranks with no sections yet (plan.c), around its
 * body: per-rank arrays zeroed (index_plan.c), and the body's release. */
relay_status rl_index_plan_new(relay_plan **out, int nranks, relay_type type, relay_index_move move, int64_t items,
                               int64_t item_elems);
rl_index_plan *rl_index_plan_body(int nranks);
void rl_index_plan_free(rl_index_plan *x, int nranks);
rl_index_section *rl_index_section_alloc(int rank, int nsend, int nrecv, int64_t nsegs, int64_t nlist);
void rl_index_section_free(rl_index_section *s);

uint64_t rl_index_section_hash(const rl_index_section *s);
/* The fingerprint: the header's fields and every section's checksum. */
uint64_t rl_index_plan_hash(const relay_plan *p);
/* The statistics its sections give (every section present). */
void rl_index_plan_count(const relay_plan *p, relay_plan_stats *stats);

/* Checks a section against the plan's header: its messages, segments and
 * list entries tile its arrays, name peers of the plan in ascending order,
 * and stay within both ends' buffers.  RELAY_ERR_FORMAT naming the first
 * problem. */
relay_status rl_index_section_validate(const rl_index_section *s, const relay_plan *p);
/* With every section present: each message is described alike at both
 * ends. */
relay_status rl_index_sections_agree(const relay_plan *p);

#endif
