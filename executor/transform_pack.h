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
/* Allocates the pack buffer if it is not held yet; drops it (an executor
 * bound on repeat holds none between its first replay and its second, so
 * that one-off replays reuse memory the allocator keeps warm instead of
 * faulting in fresh pages of their own). */
relay_status rl_message_set_hold(rl_message_set *ms);
void rl_message_set_drop(rl_message_set *ms);
/* Both pack buffers of a transform executor, held or dropped. */
relay_status rl_transform_hold_buffers(rl_transform_exec *x);
void rl_transform_drop_buffers(rl_transform_exec *x);
/* The pack buffer, or any address but NULL where it is empty. */
void *rl_message_set_buf(const rl_message_set *ms);
void rl_message_set_free(rl_message_set *ms);

/* Send message k from B into its pack buffer; receive message k from its
 * pack buffer into A; the local lattices from B to A.  Threads share each. */
void rl_transform_pack(const rl_transform_exec *x, int k);
void rl_transform_unpack(const rl_transform_exec *x, int k);
void rl_transform_move_locals(const rl_transform_exec *x);

#endif
