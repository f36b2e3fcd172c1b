/* run_bmmc.h — relay-run's buffers and check for BMMC plans (run_bmmc.c). */
#ifndef RELAY_RUN_BMMC_H
#define RELAY_RUN_BMMC_H

#include <stddef.h>
#include <stdint.h>

#include "relay/relay.h"

/* This rank's input, every element filled from its global index, and an
 * output of the same size; NULL on no memory. */
int run_bmmc_buffers(const relay_plan *p, int rank, void **in, void **out);

/* Checks every element of this rank's output: the element at global index
 * y must be the input's element x with y = A x ^ c.  Returns the wrong
 * count and describes the first in `first` (cap bytes). */
int64_t run_bmmc_check(const relay_plan *p, int rank, const void *out, int64_t *checked, char *first, size_t cap);

#endif
