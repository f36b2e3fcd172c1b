/* replan.h — whether a section read from bytes is the one its plan's
 * header plans for its rank (replan.c). */
#ifndef RELAY_REPLAN_H
#define RELAY_REPLAN_H

#include "plan_internal.h"

/* Plans the lattices of rank's section from p's header (its pairs'
 * layouts, op and sigma, as decoded and validated) and sets *planned to
 * whether p's section of that rank holds exactly those messages, lattices
 * and buffer sizes.  A rounds schedule's steps are not compared (the
 * peers compare theirs at bind).  O(the rank's lattices), no element
 * visited.  Fails only where planning fails (memory). */
relay_status rl_section_is_planned(const relay_plan *p, int rank, int *planned);

#endif
