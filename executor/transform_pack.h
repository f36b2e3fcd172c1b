/* transform_pack.h — moving a transform's elements inside one rank
 * (transform_pack.c): the walks and tasks of the message set's boxes, and
 * packing, unpacking and copying the local lattices. */
#ifndef RELAY_TRANSFORM_PACK_H
#define RELAY_TRANSFORM_PACK_H

#include "transform.h"

/* The walk of a lattice of count_r x count_c pieces of rows x cols
 * elements moved between two sides (pieces that touch on both sides
 * merged into bands). */
rl_walk rl_walk_of(int64_t pair, int64_t rows, int64_t cols, int64_t count_r, int64_t count_c, rl_walk_side from,
                   rl_walk_side to);
/* The walks and tasks of a side's messages (sent: from B; received: into
 * A), each box of the message set (transform_lower.c) a walk; and of the
 * set's local moves, one message. */
relay_status rl_walk_set_build(rl_walk_set *ws, const rl_msgset *set, const rl_msg_side *side, int sending);
relay_status rl_local_walks_build(rl_walk_set *ws, const rl_msgset *set);
/* The tasks of ws's walks (made by the caller), message by message: each
 * message's lattices are walks [msg[k].first, + msg[k].count).  Tiles for
 * moves inside this rank, or for reading B from another process. */
typedef enum { RL_TILES_MOVE, RL_TILES_READ } rl_tiles;
relay_status rl_walk_set_tasks(rl_walk_set *ws, const rl_msg *msg, int nmsg, size_t esz, rl_tiles tiles);
void rl_walk_set_free(rl_walk_set *ws);
/* Element offset of band (i, j) of a walk side, from its element (r0, c0) on. */
int64_t rl_band_offset(const rl_walk_side *s, int64_t i, int64_t j, int64_t r0, int64_t c0);
/* The part of band (i, j) that task t moves, its cuts on cache lines of
 * the walk's buffers from and to (as numbers: from may be another
 * process's). */
rl_band_cut rl_task_band(const rl_walk *w, const rl_task *t, uintptr_t from, uintptr_t to, int64_t i, int64_t j, size_t esz);
/* The most elements a band's part in task t can hold, its cuts moved. */
int64_t rl_task_cut_bound(const rl_walk *w, const rl_task *t, size_t esz);
/* Both pack buffers of a transform executor, held or dropped (an executor
 * bound on repeat holds none between its first replay and its second, so
 * that one-off replays reuse memory the allocator keeps warm instead of
 * faulting in fresh pages of their own). */
relay_status rl_transform_hold_buffers(rl_transform_exec *x);
void rl_transform_drop_buffers(rl_transform_exec *x);
/* Binding the replays: the pack buffers, in the memory of the scratch lent
 * to the first replay where it is large enough (taken over, no longer
 * lent), else held apart. */
relay_status rl_transform_take_buffers(rl_transform_exec *x);
/* One side's pack buffer dropped (binding found it unused). */
void rl_transform_drop_side(rl_transform_exec *x, rl_msg_side *side);

/* Threads of the team that move `elems` elements (one where a team costs
 * more than it saves). */
int rl_threads_for(const rl_transform_exec *x, int64_t elems);

/* Send message k from B into its pack buffer; receive message k from its
 * pack buffer into A; the local lattices from B to A.  Threads share each. */
void rl_transform_pack(const rl_transform_exec *x, int k);
void rl_transform_unpack(const rl_transform_exec *x, int k);
/* The same with the packed form elsewhere: another rank's landing area
 * in a shared-memory window (transports/shm/), aligned like a pack buffer. */
void rl_transform_pack_to(const rl_transform_exec *x, int k, char *buf);
void rl_transform_unpack_from(const rl_transform_exec *x, int k, char *buf);
/* The same for message k (of elems elements) of other walks, packed at
 * buf: a chunk (schedules/capped.c) in its slot of the side's buffer, or
 * of the receiver's landing area (transports/shm/). */
void rl_transform_pack_chunk(const rl_transform_exec *x, const rl_walk_set *ws, int k, int64_t elems, char *buf);
void rl_transform_unpack_chunk(const rl_transform_exec *x, const rl_walk_set *ws, int k, int64_t elems, char *buf);
void rl_transform_move_locals(const rl_transform_exec *x);

/* MPI count and datatype of a message of `bytes` bytes: bytes, or past
 * INT_MAX bytes whole wire units of its padded size. */
void rl_wire_shape(const rl_transform_exec *x, int64_t bytes, int *count, MPI_Datatype *type);

#endif
