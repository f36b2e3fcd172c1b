/* buffers.c — relay-run's buffers: the inputs and outputs of one replay on
 * this rank, and reading and writing their elements as complex doubles
 * whatever the element type (see run.h). */
#include <stdlib.h>

#include "run.h"

int run_buffers_init(run_buffers *buf, int count, cli_error *e)
{
    buf->count = count;
    buf->a = calloc((size_t)count, sizeof *buf->a);
    buf->b = calloc((size_t)count, sizeof *buf->b);
    return buf->a && buf->b ? CLI_OK : cli_fail(e, CLI_FAILED, "out of memory");
}

void run_buffers_free(run_buffers *buf)
{
    for (int k = 0; k < buf->count; k++) {
        if (buf->a) free(buf->a[k]);
        if (buf->b) free(buf->b[k]);
    }
    free(buf->a);
    free(buf->b);
}

void *run_alloc(int64_t elems, size_t elem_size)
{
    size_t bytes;
    if (elems < 0 || __builtin_mul_overflow((size_t)(elems > 0 ? elems : 1), elem_size, &bytes)) return NULL;
    return malloc(bytes);
}

int run_alloc_pair(run_buffers *buf, int k, int64_t na, int64_t nb, relay_type t, int rank, cli_error *e)
{
    buf->a[k] = run_alloc(na, relay_type_size(t));
    buf->b[k] = run_alloc(nb, relay_type_size(t));
    if (buf->a[k] && buf->b[k]) return CLI_OK;
    return cli_fail(e, CLI_FAILED, "rank %d cannot allocate pair %d's buffers: A %lld and B %lld elements of %zu bytes", rank, k,
                    (long long)na, (long long)nb, relay_type_size(t));
}

void run_store(void *buf, relay_type t, int64_t idx, double complex v)
{
    switch (t) {
    case RELAY_FLOAT: ((float *)buf)[idx] = (float)creal(v); break;
    case RELAY_DOUBLE: ((double *)buf)[idx] = creal(v); break;
    case RELAY_CFLOAT: ((float complex *)buf)[idx] = (float complex)v; break;
    case RELAY_CDOUBLE: ((double complex *)buf)[idx] = v; break;
    }
}

double complex run_load(const void *buf, relay_type t, int64_t idx)
{
    switch (t) {
    case RELAY_FLOAT: return ((const float *)buf)[idx];
    case RELAY_DOUBLE: return ((const double *)buf)[idx];
    case RELAY_CFLOAT: return ((const float complex *)buf)[idx];
    default: return ((const double complex *)buf)[idx];
    }
}
