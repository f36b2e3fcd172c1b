/* device_table.h — a message set's boxes as tables of device walks
 * (device_walks.h), built on the host at bind (device_table.c, plain C:
 * built and tested with or without CUDA) and uploaded once: the
 * descriptor tables of the device kernels' launches. */
#ifndef RELAY_DEVICE_TABLE_H
#define RELAY_DEVICE_TABLE_H

#include "device_walks.h"
#include "message_set.h"

/* What a set's walks move: from B into the pack buffer, from the pack
 * buffer into A, or from B straight into A. */
typedef enum { RL_DEV_PACK, RL_DEV_UNPACK, RL_DEV_LOCAL } rl_dev_phase;

typedef struct {
    rl_dev_walk *walks;  /* host memory; walks with no elements left out */
    int64_t nwalks, ntiles;
} rl_dev_table;

/* The table of set's sends (packing them from B), receives (unpacking
 * them into A) or local moves (B to A).  RELAY_ERR_NOMEM, or
 * RELAY_ERR_UNSUPPORTED for pieces the kernel does not move (boxes of
 * other than two dimensions of one progression each). */
relay_status rl_dev_table_build(rl_dev_table *t, const rl_msgset *set, rl_dev_phase phase);
void rl_dev_table_free(rl_dev_table *t);

#endif
