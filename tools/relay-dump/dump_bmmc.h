/* dump_bmmc.h — relay-dump's views of a BMMC plan (dump_bmmc.c). */
#ifndef RELAY_DUMP_BMMC_H
#define RELAY_DUMP_BMMC_H

#include "cli_util.h"
#include "plan_internal.h"

/* The summary (rank < 0: the permutation, its factors, r and volumes, then
 * rank 0's partners) or one rank's partners, as text or JSON. */
int dump_bmmc(const char *path, const relay_plan *p, int json, int rank, cli_error *e);

#endif
