/* transform_pack.h — moving a transform's elements inside one rank
 * (transform_pack.c): building the tasks and pack buffers, and packing,
 * unpacking and copying the local pieces. */
#ifndef RELAY_TRANSFORM_PACK_H
#define RELAY_TRANSFORM_PACK_H

#include "transform.h"

/* Bytes a message of `bytes` occupies in a pack buffer (rounded for
 * alignment and, past INT_MAX, to whole wire units). */
int64_t rl_padded_bytes(int64_t bytes);
/* The tasks and the pack buffer of nmsg messages. */
relay_status rl_message_set_build(rl_message_set *ms, const rl_message *msg, int nmsg, const rl_piece *pieces, size_t esz);
/* The pack buffer, or any address but NULL where it is empty. */
void *rl_message_set_buf(const rl_message_set *ms);
void rl_message_set_free(rl_message_set *ms);
/* The tasks of the local pieces. */
relay_status rl_transform_local_tasks(rl_transform_exec *x);

/* Send message k from B into its pack buffer; receive message k from its
 * pack buffer into A; the local pieces from B to A.  Threads share each. */
void rl_transform_pack(const rl_transform_exec *x, int k);
void rl_transform_unpack(const rl_transform_exec *x, int k);
void rl_transform_move_locals(const rl_transform_exec *x);

#endif
