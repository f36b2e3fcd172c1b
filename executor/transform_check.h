/* transform_check.h — checking a loaded section against its header
 * (transform_check.c): the lattices of a plan read from bytes must move
 * the elements the header's layouts, op and sigma say. */
#ifndef RELAY_TRANSFORM_CHECK_H
#define RELAY_TRANSFORM_CHECK_H

#include "transform.h"

/* No MPI call.  x's section, walks and tasks are built (transform_pack.c);
 * p is the plan they came from.  Fails with one line naming the lattice
 * and what it does wrong; else gives each message this rank sends and
 * receives a hash of what it carries (never 0), which sender and receiver
 * must share (transform_exec.c compares them at bind). */
relay_status rl_transform_check_section(const rl_transform_exec *x, const relay_plan *p, uint64_t *send_hash,
                                        uint64_t *recv_hash);

#endif
