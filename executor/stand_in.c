/* stand_in.c — the replay a rank runs when its own start was refused
 * (stand_in.h).
 *
 * A replay is collective in effect: every rank's messages are some other
 * rank's receives.  When relay_exec_start refuses its arguments on one rank
 * only (a NULL buffer where the rank holds elements, scalars a BMMC plan
 * does not take), that rank still exchanges: it replays over NaN buffers of
 * its own, so that the others complete with NaN where its elements belong,
 * and it returns the refusal.  Checking every rank's arguments together
 * would cost an agreement per replay; a NaN is visible in the result. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "stand_in.h"

static void *host_poisoned(size_t bytes)
{
    void *b = malloc(bytes);
    if (b) memset(b, 0xff, bytes);
    return b;
}

/* n buffers of elems[k] elements, 0xff throughout (NULL where empty), in
 * host memory or memory's. */
static int poisoned(const rl_device_kind *memory, void **buf, int n, const int64_t *elems, size_t esz)
{
    for (int k = 0; k < n; k++) {
        int64_t bytes;
        if (rl_mul_overflows(elems[k], (int64_t)esz, &bytes)) return 0;
        buf[k] = bytes <= 0 ? NULL : memory ? memory->alloc_poisoned((size_t)bytes) : host_poisoned((size_t)bytes);
        if (bytes > 0 && !buf[k]) return 0;
    }
    return 1;
}

static void free_all(const rl_device_kind *memory, void **buf, int n)
{
    for (int k = 0; k < n; k++)
        if (!memory) free(buf[k]);
        else if (buf[k]) memory->free_buffer(buf[k]);
    free(buf);
}

relay_status rl_stand_in_replay(const rl_exec_kind *kind, void *state, const rl_device_kind *memory, int ndst,
                                const int64_t *dst_elems, int nsrc, const int64_t *src_elems, size_t esz)
{
    void **dst = calloc((size_t)ndst + 1, sizeof *dst), **src = calloc((size_t)nsrc + 1, sizeof *src);
    relay_status st = dst && src && poisoned(memory, dst, ndst, dst_elems, esz) && poisoned(memory, src, nsrc, src_elems, esz)
                          ? RELAY_OK
                          : RL_NOMEM();
    if (!st) st = kind->start(state, dst, (const void *const *)src, NULL, NULL);
    if (!st) st = kind->wait(state);
    if (dst) free_all(memory, dst, ndst);
    if (src) free_all(memory, src, nsrc);
    return st;
}
