/* dump_hsumma.h — relay-dump's views of an HSUMMA plan (dump_hsumma.c). */
#ifndef RELAY_DUMP_HSUMMA_H
#define RELAY_DUMP_HSUMMA_H

#include "cli_util.h"
#include "plan_internal.h"

/* The summary (rank < 0: the product, grid, groups, steps, volumes and the
 * cost model, then rank 0) or one rank's place and traffic, as text or JSON. */
int dump_hsumma(const char *path, const relay_plan *p, int json, int rank, cli_error *e);

#endif
