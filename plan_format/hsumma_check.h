/* hsumma_check.h — whether HSUMMA parameters can be planned and replayed
 * (hsumma_check.c).  Failures return RELAY_ERR_ARG for parameters a caller
 * gives, or `code` (RELAY_ERR_FORMAT for a decoded plan), with the reason. */
#ifndef RELAY_HSUMMA_CHECK_H
#define RELAY_HSUMMA_CHECK_H

#include "relay/hsumma.h"

/* The shape alone: type, sizes, grid, groups (0 x 0 allowed), blocks,
 * distribution and network model.  What the cost model needs. */
relay_status rl_hsumma_check_shape(const relay_hsumma_params *p, relay_status code);

/* The shape, and that every local size and panel fits the int counts of
 * MPI and CBLAS, the statistics int64 and the steps of a replay 2^22. */
relay_status rl_hsumma_check(const relay_hsumma_params *p, relay_status code);

#endif
