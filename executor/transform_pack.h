/* transform_pack.h — moving a transform's elements inside one rank
 * (transform_pack.c): building the walks, tasks and pack buffers, and
 * packing, unpacking and copying the local lattices. */
#ifndef RELAY_TRANSFORM_PACK_H
#define RELAY_TRANSFORM_PACK_H

#include "transform.h"

/* Bytes a message of `bytes` occupies in a pack buffer (rounded for
 * alignment and, past INT_MAX, to whole wire units). */
int64_t rl_padded_bytes(int64_t bytes);
/* The walks, tasks and pack-buffer offsets of nmsg messages of lattices
 * `spans`, sent (from B) or received (into A); the buffer itself is held
 * only while replays need it (rl_message_set_hold). */
relay_status rl_message_set_build(rl_message_set *ms, const rl_message *msg, int nmsg, const rl_span *spans,
                                  const rl_pair_info *pairs, int sending, size_t esz);
/* The walks and tasks of the local lattices: one message, no buffer. */
relay_status rl_local_set_build(rl_message_set *ms, const rl_local_span *local, int64_t nlocal, const rl_pair_info *pairs,
                                size_t esz);
/* Where message lattice sp's elements lie in its packed form, from the
 * lattice's first: piece (i, j)'s element (r, c) at i*step_r + j*step_c
 * + r*rs + c*cs (A's coordinates). */
rl_walk_side rl_packed_form(const rl_span *sp, const rl_pair_info *pi);
/* The walk of a lattice moved straight from B to A: a local lattice, or
 * one the receiver reads from the sender's B (transports/pull.c). */
rl_walk rl_straight_walk(const rl_local_span *l, const rl_pair_info *pi);
/* The tasks of ms's walks (made by the caller), message by message: each
 * message's lattices are walks [msg[k].first, + msg[k].count).  Tiles for
 * moves inside this rank, or for reading B from another process. */
typedef enum { RL_TILES_MOVE, RL_TILES_READ } rl_tiles;
relay_status rl_message_set_tasks(rl_message_set *ms, const rl_message *msg, int nmsg, size_t esz, rl_tiles tiles);
/* Element offset of band (i, j) of a walk side, from its element (r0, c0) on. */
int64_t rl_band_offset(const rl_walk_side *s, int64_t i, int64_t j, int64_t r0, int64_t c0);
/* The part of band (i, j) that task t moves, its cuts on cache lines of
 * the walk's buffers from and to (as numbers: from may be another
 * process's). */
rl_band_cut rl_task_band(const rl_walk *w, const rl_task *t, uintptr_t from, uintptr_t to, int64_t i, int64_t j, size_t esz);
/* The most elements a band's part in task t can hold, its cuts moved. */
int64_t rl_task_cut_bound(const rl_walk *w, const rl_task *t, size_t esz);
/* Allocates the pack buffer if it is not held yet; drops it (an executor
 * bound on repeat holds none between its first replay and its second, so
 * that one-off replays reuse memory the allocator keeps warm instead of
 * faulting in fresh pages of their own). */
relay_status rl_message_set_hold(rl_message_set *ms);
void rl_message_set_drop(rl_message_set *ms);
/* Puts the chunks of each of nmsg messages (ms's messages [first[k],
 * first[k+1])) in `slots` places of its buffer, each as large as the
 * largest chunk: chunk j of a message in slot j % slots, so that one chunk
 * travels while the next is packed or the one before unpacked
 * (schedules/capped.c).  The buffer then holds slots such places, or one
 * where no message has two chunks. */
void rl_message_set_slots(rl_message_set *ms, const int64_t *first, int nmsg, int slots);
/* Where message k of ms lies in its buffer (any address but NULL where the
 * buffer is empty). */
void *rl_message_set_at(const rl_message_set *ms, int k);
/* Both pack buffers of a transform executor, held or dropped. */
relay_status rl_transform_hold_buffers(rl_transform_exec *x);
void rl_transform_drop_buffers(rl_transform_exec *x);
/* The pack buffer, or rl_no_bytes() where it is empty. */
void *rl_message_set_buf(const rl_message_set *ms);
/* An address for a message of no bytes (a notice): any will do, but not NULL. */
void *rl_no_bytes(void);
void rl_message_set_free(rl_message_set *ms);

/* Threads of the team that move `elems` elements (one where a team costs
 * more than it saves). */
int rl_threads_for(const rl_transform_exec *x, int64_t elems);

/* Send message k from B into its pack buffer; receive message k from its
 * pack buffer into A; the local lattices from B to A.  Threads share each. */
void rl_transform_pack(const rl_transform_exec *x, int k);
void rl_transform_unpack(const rl_transform_exec *x, int k);
/* The same with the packed form elsewhere: another rank's landing area
 * in a shared-memory window (shm/), ALIGN-aligned like a pack buffer. */
void rl_transform_pack_to(const rl_transform_exec *x, int k, char *buf);
void rl_transform_unpack_from(const rl_transform_exec *x, int k, char *buf);
/* The same for message k (of elems elements) of another set, packed at
 * buf: a chunk (schedules/capped.c) in its slot of the set's buffer, or of
 * the receiver's landing area (shm/). */
void rl_transform_pack_chunk(const rl_transform_exec *x, const rl_message_set *ms, int k, int64_t elems, char *buf);
void rl_transform_unpack_chunk(const rl_transform_exec *x, const rl_message_set *ms, int k, int64_t elems, char *buf);
void rl_transform_move_locals(const rl_transform_exec *x);

/* MPI count and datatype of a message of `elems` elements: bytes, or past
 * INT_MAX bytes whole wire units of its padded size. */
void rl_wire_shape(const rl_transform_exec *x, int64_t elems, int *count, MPI_Datatype *type);

#endif
