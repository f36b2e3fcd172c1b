/* device_table.h — a transform executor's message sets as tables of
 * device walks (device_walks.h), built on the host at bind
 * (device_table.c, plain C: built and tested with or without CUDA) and
 * uploaded once: the descriptor tables of the device kernels' launches. */
#ifndef RELAY_DEVICE_TABLE_H
#define RELAY_DEVICE_TABLE_H

#include "device_walks.h"
#include "transform.h"

/* What a set's walks move: from B into the pack buffer, from the pack
 * buffer into A, or from B straight into A. */
typedef enum { RL_DEV_PACK, RL_DEV_UNPACK, RL_DEV_LOCAL } rl_dev_phase;

typedef struct {
    rl_dev_walk *walks;  /* host memory; walks with no elements left out */
    int64_t nwalks, ntiles;
} rl_dev_table;

/* The table of ms, whose messages are msg[0, nmsg) (for RL_DEV_LOCAL, the
 * set's one message of all its walks: msg NULL).  RELAY_ERR_NOMEM. */
relay_status rl_dev_table_build(rl_dev_table *t, const rl_message_set *ms, const rl_message *msg, int nmsg,
                                const rl_pair_info *pairs, rl_dev_phase phase, size_t esz);
void rl_dev_table_free(rl_dev_table *t);

#endif
