/* buffers.h — the memory replays stage messages in (buffers.c): large
 * allocations that fault in few pages, and the scratch a caller lends to
 * its executors' one-off replays (exec_internal.h). */
#ifndef RELAY_BUFFERS_H
#define RELAY_BUFFERS_H

#include <stddef.h>

#include "exec_internal.h"

/* `bytes` of memory aligned to a cache line, or NULL (bytes > 0).  Large
 * ones are aligned to, and advised as, huge pages where the system offers
 * them.  Freed with free(). */
void *rl_buffer_alloc(size_t bytes);

/* The scratch's memory, grown to at least `bytes` (> 0): NULL when that
 * fails.  Its contents are not kept when it grows. */
char *rl_scratch_lend(relay_internal_scratch *s, size_t bytes);
/* The scratch's memory for good, where it holds at least `bytes` (> 0):
 * the caller frees it, and the scratch is left empty.  NULL, the scratch
 * untouched, where it is smaller. */
char *rl_scratch_take(relay_internal_scratch *s, size_t bytes);

#endif
