/* ref_buffer.c — one rank's buffer of a reference layout, and the plans the
 * MPI tests replay (ref_buffer.h). */
#include <math.h>
#include <stdlib.h>

#include "ref_buffer.h"

void ref_buffer_make(ref_buffer *b, const ref_layout *l, int rank, relay_type type)
{
    b->type = type;
    b->size = ref_local_elems(l, rank);
    b->n = l->n;
    b->map = ref_local_map(l, rank);
    b->data = calloc((size_t)b->size + 1, ref_type_size(type));
}

void ref_buffer_fill(ref_buffer *b, uint64_t seed)
{
    int cx = ref_type_is_complex(b->type);
    for (int64_t k = 0; k < b->size; k++) {
        int64_t g = b->map[k];
        double complex v = g < 0 ? REF_GAP_VALUE : seed ? ref_value(seed, g / b->n, g % b->n, cx) : CMPLX(NAN, NAN);
        ref_store(b->type, b->data, k, v);
    }
}

void ref_buffer_free(ref_buffer *b)
{
    free(b->data);
    free(b->map);
}

static int same_value(double complex x, double complex y) { return creal(x) == creal(y) && cimag(x) == cimag(y); }

int ref_buffer_is(const ref_buffer *b, const ref_transform *t)
{
    for (int64_t k = 0; k < b->size; k++) {
        int64_t g = b->map[k];
        double complex want = g < 0 ? REF_GAP_VALUE : ref_expected(t, g / b->n, g % b->n);
        if (!same_value(want, ref_load(b->type, b->data, k))) return 0;
    }
    return 1;
}

int ref_buffer_holds(const ref_buffer *b, uint64_t seed)
{
    ref_transform same = {.op = RELAY_OP_N, .type = b->type, .alpha = 1, .seed_b = seed};
    return ref_buffer_is(b, &same);
}

relay_plan *ref_plan_of(int P, const ref_layout *dst, const ref_layout *src, const relay_layout *src_given, relay_op op,
                        relay_type type, const relay_plan_options *o)
{
    relay_layout *d = NULL, *s = NULL;
    relay_plan *p = NULL;
    if (!ref_build_relay_layout(dst, &d) && (src_given || !ref_build_relay_layout(src, &s)))
        relay_plan_transform(&p, P, d, src_given ? src_given : s, op, type, o);
    relay_layout_free(d);
    relay_layout_free(s);
    return p;
}

relay_plan *ref_plan_reloaded(const relay_plan *p, int rank)
{
    void *bytes;
    size_t len;
    relay_plan *q = NULL;
    if (relay_plan_encode(p, &bytes, &len)) return NULL;
    relay_plan_decode(&q, bytes, len, rank);
    free(bytes);
    return q;
}
