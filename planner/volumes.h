/* volumes.h — the package volumes |S_yx| of a plan's pairs (COSTA, Alg. 2). */
#ifndef RELAY_VOLUMES_H
#define RELAY_VOLUMES_H

#include "plan_internal.h"

/* Bytes each rank y sends to each logical rank x of the destination layouts
 * (sigma = identity), summed over pairs; sparse rows by receiver x with
 * senders in increasing order: row x is [start[x], start[x+1]). */
typedef struct {
    int n;
    int64_t *start;
    int32_t *from;
    int64_t *bytes;
} rl_volumes;

/* Uses p's pairs[k].dst and .src (not the relabeled layouts). */
relay_status rl_volumes_compute(rl_volumes *v, const relay_plan *p);
void rl_volumes_free(rl_volumes *v);

#endif
