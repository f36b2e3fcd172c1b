/* hsumma_fields.h — an HSUMMA plan's parameters as the plan file's integer
 * fields and back (hsumma_fields.c), for the codec and the fingerprint. */
#ifndef RELAY_HSUMMA_FIELDS_H
#define RELAY_HSUMMA_FIELDS_H

#include "plan_internal.h"

/* A plan's integer fields in file order (plan-format.md), and back. */
enum {
    RL_HS_M, RL_HS_N, RL_HS_K, RL_HS_GRID_ROWS, RL_HS_GRID_COLS, RL_HS_GROUP_ROWS, RL_HS_GROUP_COLS, RL_HS_INNER,
    RL_HS_OUTER, RL_HS_DIST, RL_HS_DIST_BLOCK, RL_HS_BCAST, RL_HS_GROUPS_FROM, RL_HS_INTS
};
extern const char *const rl_hsumma_keys[RL_HS_INTS];
void rl_hsumma_to_ints(const rl_hsumma *h, int64_t *v);
/* Fills h from decoded fields (ranged to int) and checks it for a plan of
 * nranks ranks: RELAY_ERR_FORMAT with the reason. */
relay_status rl_hsumma_from_ints(rl_hsumma *h, const int64_t *v, relay_type type, double alpha, double beta, int64_t nranks);

#endif
