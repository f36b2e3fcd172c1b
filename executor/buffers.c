/* buffers.c — the memory replays stage messages in (buffers.h).
 *
 * A pack buffer is written once per replay, so the first replay of an
 * executor also touches every page of it for the first time.  Each fresh
 * 4 KiB page costs a fault, and under virtual machines a fault costs
 * microseconds: a first touch costs many times a second write, and much
 * less when the buffer is advised as huge pages.  So
 * large buffers ask for huge pages (Linux's transparent huge pages in
 * "madvise" mode, Debian's default), and a caller whose executors mostly
 * replay once (relay_scalapack's plan cache) lends them one scratch that
 * stays warm from call to call instead of every call faulting in its own;
 * an executor whose replays are then bound takes that scratch over for
 * its pack buffers (the next first replay grows a new one), as its first
 * replay did with it: the second call of a shape faults in nothing.
 * Fresh pages are dear on virtual machines that hand freed memory back to
 * their host (free page reporting): each first touch then makes the host
 * find a page again. */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "buffers.h"

enum { CACHE_LINE = 64, HUGE_PAGE = 2 << 20 };

void *rl_buffer_alloc(size_t bytes)
{
    if (bytes < HUGE_PAGE) return aligned_alloc(CACHE_LINE, (bytes + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE);
    if (bytes > SIZE_MAX - HUGE_PAGE) return NULL;
    size_t rounded = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, rounded);
#ifdef MADV_HUGEPAGE
    if (p) (void)madvise(p, rounded, MADV_HUGEPAGE); /* advice only: small pages still work */
#endif
    return p;
}

char *rl_scratch_lend(relay_internal_scratch *s, size_t bytes)
{
    if (s->bytes >= bytes) return s->buf;
    free(s->buf);
    s->buf = rl_buffer_alloc(bytes);
    s->bytes = s->buf ? bytes : 0;
    return s->buf;
}

char *rl_scratch_take(relay_internal_scratch *s, size_t bytes)
{
    if (s->bytes < bytes) return NULL;
    char *buf = s->buf;
    *s = (relay_internal_scratch){NULL, 0};
    return buf;
}

void relay_internal_scratch_release(relay_internal_scratch *s)
{
    if (!s) return;
    free(s->buf);
    *s = (relay_internal_scratch){NULL, 0};
}
