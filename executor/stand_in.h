/* stand_in.h — the replay a rank runs when its own start was refused
 * (stand_in.c), so that the ranks whose start succeeded do not wait for it
 * forever. */
#ifndef RELAY_STAND_IN_H
#define RELAY_STAND_IN_H

#include <stdint.h>

#include "device_kind.h"
#include "exec_kind.h"

/* Starts and completes one replay of `kind` over buffers of its own (in
 * host memory, or `memory`'s where not NULL), filled
 * with NaN (every byte 0xff: a NaN in every element type), ndst and nsrc of
 * the sizes given in elements of esz bytes, alpha 1 and beta 0.  What the
 * peers receive from this rank is NaN; nothing of the caller's is touched. */
relay_status rl_stand_in_replay(const rl_exec_kind *kind, void *state, const rl_device_kind *memory, int ndst, const int64_t *dst_elems, int nsrc,
                                const int64_t *src_elems, size_t esz);

#endif
