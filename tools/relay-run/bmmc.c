/* bmmc.c — relay-run's fill function and check for BMMC plans.
 *
 * The element at global index x holds x: byte k of it is byte k mod 8 of x
 * (little-endian) for elements of 8 bytes or more; for smaller elements,
 * byte k is the XOR of the bytes j of x with j mod S = k.  After the replay
 * the element at global index y must be the one that was at x with
 * y = A x ^ c, i.e. x = A^-1 (y ^ c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static void fill_element(unsigned char *e, size_t esz, uint64_t x)
{
    memset(e, 0, esz);
    for (size_t k = 0; k < (esz < 8 ? 8 : esz); k++) e[k % esz] ^= (unsigned char)(x >> (8 * (k % 8)));
}

/* Global index of offset o on rank k: bits f .. f+p-1 are the rank. */
static uint64_t global_index(const relay_bmmc_info *b, uint64_t o, int rank)
{
    uint64_t low = o & ((1ull << b->f) - 1);
    return low | (uint64_t)rank << b->f | (o >> b->f) << (b->f + b->p);
}

/* One input b[0] of every element's global index, one output a[0] all ones. */
int prepare_bmmc(const relay_plan *p, int rank, run_buffers *buf, cli_error *e)
{
    relay_bmmc_info b;
    relay_plan_bmmc_info(p, &b);
    uint64_t elems = 1ull << (b.n - b.p);
    if (run_buffers_init(buf, 1, e)) return e->status;
    buf->b[0] = run_alloc((int64_t)elems, b.elem_size);
    buf->a[0] = run_alloc((int64_t)elems, b.elem_size);
    if (!buf->b[0] || !buf->a[0])
        return cli_fail(e, CLI_FAILED, "rank %d cannot allocate two buffers of 2^%d elements of %zu bytes", rank, b.n - b.p,
                        b.elem_size);
    unsigned char *in = buf->b[0];
    for (uint64_t o = 0; o < elems; o++) fill_element(in + o * b.elem_size, b.elem_size, global_index(&b, o, rank));
    memset(buf->a[0], 0xff, elems * b.elem_size);
    return CLI_OK;
}

int64_t check_bmmc(const relay_plan *p, int rank, const run_buffers *buf, int64_t *checked, char *first, size_t cap)
{
    const unsigned char *out = buf->a[0];
    relay_bmmc_info b;
    relay_bmmc inverse;
    relay_plan_bmmc_info(p, &b);
    relay_bmmc_inverse(&inverse, &b.perm);
    uint64_t elems = 1ull << (b.n - b.p);
    unsigned char *want = malloc(b.elem_size);
    int64_t wrong = 0;
    for (uint64_t o = 0; want && o < elems; o++) {
        uint64_t y = global_index(&b, o, rank), x = relay_bmmc_apply(&inverse, y);
        fill_element(want, b.elem_size, x);
        if (!memcmp(out + o * b.elem_size, want, b.elem_size)) continue;
        if (wrong++ == 0)
            snprintf(first, cap, "index %llu does not hold the element from index %llu", (unsigned long long)y,
                     (unsigned long long)x);
    }
    *checked = (int64_t)elems;
    free(want);
    return want ? wrong : (int64_t)elems;
}
