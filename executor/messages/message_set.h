/* message_set.h — the message set: what a plan kind lowers its part of a
 * plan to when it binds, and what the schedules (schedules/) and the
 * transports (transports/) replay from (message_set.c).
 *
 * Per direction, this rank's messages, each to or from one peer, each a
 * list of pieces; the local moves, pieces B gives A on this rank; per
 * pair of the plan, its op and how a received piece combines into A; and
 * the layout of the pack buffers the messages are staged in.
 *
 * A piece is a box: the product of its dimensions' runs, outermost
 * dimension first.  Along a dimension a box holds runs of consecutive
 * indices, as progressions (`count` runs of `len` at a constant step on
 * each side); a run's indices lie a constant stride apart on each side.
 * The two sides are where a piece moves from and to: the user's B and
 * the packed message (a send), the packed message and the user's A (a
 * receive), B and A (a local move).  Packed offsets count from the
 * message's first element: a message's packed form is its pieces one
 * after another, each as its packed strides lay it out.  A 2-D
 * transform's lattice of count_r x count_c pieces of rows x cols is a box
 * of two dimensions of one progression each (transform_lower.c); an N-D
 * transfer, a box of the array's dimensions in walk order whose irregular
 * cuts make several progressions (nd/nd_lower.c).
 *
 * A run's steps may have any sign, or be 0: a reversed list steps back,
 * and a side that one place appears on twice in a row (an index sum's
 * owner summing one item held twice by a holder) steps 0.  A kind whose
 * moves tile or vectorise boxes must read such a side in order, one run
 * after another (index/index_moves.c does).
 *
 * Each message has a reserved control word: `control` bytes ahead of its
 * elements in its packed form, agreed by both ends at bind, 0 (absent)
 * while no replay uses one (docs/design.md, "The message set"). */
#ifndef RELAY_MESSAGE_SET_H
#define RELAY_MESSAGE_SET_H

#include <stddef.h>
#include <stdint.h>

#include "relay/relay.h"

/* `count` runs of `len` consecutive indices of one dimension: run i
 * begins at element from + i*from_step of the side moved from, to +
 * i*to_step of the side moved to. */
typedef struct {
    int64_t count, len;
    int64_t from, from_step, to, to_step;
} rl_runs;

/* A box's dimension: runs[first, first + n) of the set, in order, and
 * the elements between two neighbouring indices of a run on each side. */
typedef struct {
    int64_t from_stride, to_stride;
    int64_t first, n;
} rl_box_dim;

/* A piece: pair `pair`'s elements in the product of dims[first_dim,
 * first_dim + ndims) of the set, `elems` of them. */
typedef struct {
    int32_t pair, ndims;
    int64_t first_dim, elems;
} rl_box;

/* How a received piece of a pair lands in A. */
typedef enum {
    RL_COMBINE_UPDATE, /* A := alpha op(piece) + beta A: written where alpha is 1 and beta 0, not read where beta is 0 */
    RL_COMBINE_SUM,    /* a partial piece of a sum, added in a fixed order, the last one scaled into A (nd/nd_sums.h) */
    RL_COMBINE_ADD     /* A := A + piece, in place, element by element in the box's order (an index sum):
                          in the set's order of receives where the set is `ordered` */
} rl_combine;

typedef struct {
    relay_op op;
    rl_combine combine;
} rl_pair_moves;

/* A message: to or from `peer`, boxes[first, first + count) of its side. */
typedef struct {
    int32_t peer;
    int32_t tag;             /* its MPI tag (0 unless two messages between the same ranks need telling apart) */
    int32_t step;            /* rounds: the step it travels in; else -1 */
    int32_t passes_on;       /* a send of bytes a receive of this rank brought (an N-D replica passing
                                them on): that receive, whose landing starts it; else -1 */
    int64_t passes_on_at;    /* ... the bytes' place in that receive's packed form */
    int64_t elems, first, count;
} rl_msg;

/* One direction's messages, their boxes and their pack buffer: message
 * k at byte_off[k] (its control word first, where it has one), the
 * buffer byte_off[n] bytes; buf NULL while not held. */
typedef struct {
    int n;
    rl_msg *msg;
    rl_box *boxes;
    int64_t nboxes;
    int64_t *byte_off;
    char *buf;
} rl_msg_side;

typedef struct {
    rl_msg_side send, recv;
    rl_box *local;           /* the local moves */
    int64_t nlocal;
    int32_t local_step;      /* rounds: the step the local moves take; else -1 */
    rl_box_dim *dims;        /* every box's dimensions */
    rl_runs *runs;           /* every dimension's runs */
    int64_t ndims, nruns;
    rl_pair_moves *pairs;
    int npairs;
    int32_t control;         /* bytes of each message's control word: 0, absent */
    /* Whether a receiver combines what lands in a fixed order, whatever
     * order it lands in (an index sum, bitwise reproducible): receives in
     * message order, the local moves just before receive `locals_before`
     * (recv.n: after the last).  0: in any order, the local moves first
     * (locals_before 0). */
    int ordered;
    int32_t locals_before;
    size_t esz;              /* bytes of an element */
} rl_msgset;

/* ---- building a set ------------------------------------------------------ */

/* Room for a set of nsend and nrecv messages, their boxes, nlocal local
 * moves, ndims dimensions and nruns runs in all, npairs pairs: each array
 * allocated, zeroed, counts set; the caller fills them in.  RELAY_ERR_NOMEM. */
typedef struct {
    int nsend, nrecv, npairs;
    int64_t send_boxes, recv_boxes, nlocal, ndims, nruns;
} rl_msgset_sizes;
relay_status rl_msgset_alloc(rl_msgset *s, const rl_msgset_sizes *n, size_t esz);
/* Each side's pack-buffer layout, from its messages' sizes: places
 * RL_PACK_ALIGN-padded (past INT_MAX bytes, whole wire units), the
 * control word ahead of each; none for a send that passes on a receive's
 * bytes.  RELAY_ERR_ARG when a message cannot be addressed. */
relay_status rl_msgset_layout(rl_msgset *s);
/* Drops the boxes, their dimensions and runs, once the kind that moves
 * the elements has made what it walks of them (a memory cap's chunks):
 * the messages, their sizes and the pack buffers stay. */
void rl_msgset_forget_boxes(rl_msgset *s);
/* Bytes of its lists (not its pack buffers). */
int64_t rl_msgset_bytes(const rl_msgset *s);
void rl_msgset_free(rl_msgset *s);

/* Message k of the set's sends, then receives (k - send.n): the order
 * binding's exchanges with each message's other end number them in. */
static inline const rl_msg *rl_msg_of(const rl_msgset *s, int k) { return k < s->send.n ? &s->send.msg[k] : &s->recv.msg[k - s->send.n]; }

/* The dimension d of box b, and its runs. */
static inline const rl_box_dim *rl_box_dim_of(const rl_msgset *s, const rl_box *b, int d) { return &s->dims[b->first_dim + d]; }
static inline const rl_runs *rl_dim_runs(const rl_msgset *s, const rl_box_dim *d) { return &s->runs[d->first]; }

/* ---- pack buffers -------------------------------------------------------- */

/* Bytes a message of `bytes` occupies in a pack buffer (rounded for
 * alignment and, past INT_MAX, to whole wire units of wire_unit bytes). */
enum { RL_WIRE_UNIT = 1 << 16, RL_PACK_ALIGN = 64 };
int64_t rl_padded_bytes(int64_t bytes);
/* A side's buffer: allocated if not held yet; dropped. */
relay_status rl_msg_side_hold(rl_msg_side *side);
void rl_msg_side_drop(rl_msg_side *side);
static inline int64_t rl_msg_side_bytes(const rl_msg_side *side) { return side->byte_off ? side->byte_off[side->n] : 0; }
/* Where message k's elements lie in its side's buffer; the buffer, or
 * rl_no_bytes() where it is empty (any address but NULL). */
void *rl_msg_at(const rl_msg_side *side, int k);
void *rl_msg_side_buf(const rl_msg_side *side);
/* An address for a message of no bytes (a notice): any will do, but not NULL. */
void *rl_no_bytes(void);
/* Puts the messages of the side (chunks of nmsg messages, message m's
 * [first[m], first[m+1])) in `slots` places of its buffer, each as large
 * as the largest chunk: chunk j of a message in slot j % slots, so that
 * one chunk travels while the next is packed or the one before unpacked
 * (schedules/capped.c).  The buffer then holds slots such places, or one
 * where no message has two chunks. */
void rl_msg_side_slots(rl_msg_side *side, const int64_t *first, int nmsg, int slots);

#endif
