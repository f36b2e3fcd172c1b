/* index_check.h — what binding checks of an index section that a reader
 * cannot (index_check.c): a lie told consistently at both ends of every
 * message stays within the buffers, but must not move wrong data. */
#ifndef RELAY_INDEX_CHECK_H
#define RELAY_INDEX_CHECK_H

#include "index_plan.h"

/* The holder slots of section s (rank s->rank of plan p, validated): a
 * broadcast writes each once (its receives and local moves), a sum reads
 * each once (its sends and local moves), each message's in ascending
 * order, the order the sum promises.  Time linear in the rank's holder
 * slots, a bitmap of them, once the items the section moves are found to
 * be that many.  RELAY_ERR_FORMAT naming the first slot that is not. */
relay_status rl_index_check_holders(const rl_index_section *s, const relay_plan *p);

/* What identifies message m's segments (and list entries) of s, the same
 * at both ends of a message that both describe alike. */
uint64_t rl_index_msg_signature(const rl_index_section *s, const rl_index_msg *m);

#endif
