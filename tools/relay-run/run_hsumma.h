/* run_hsumma.h — relay-run's operands and check for HSUMMA plans (run_hsumma.c). */
#ifndef RELAY_RUN_HSUMMA_H
#define RELAY_RUN_HSUMMA_H

#include <stddef.h>
#include <stdint.h>

#include "relay/relay.h"

/* This rank's parts of A and B from the fill functions and C all NaN;
 * 0 on no memory. */
int run_hsumma_buffers(const relay_plan *p, int rank, void **a, void **b, void **c);

/* Checks this rank's part of C = A B against a serial product of the fill
 * functions.  Returns the wrong count and describes the first in `first`. */
int64_t run_hsumma_check(const relay_plan *p, int rank, const void *c, int64_t *checked, char *first, size_t cap);

#endif
