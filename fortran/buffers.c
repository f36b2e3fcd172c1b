/* buffers.c — the Fortran one-pair replay (relay_exec_run / relay_exec_start
 * with arrays), which knows what C cannot: the size and element size of
 * the caller's buffers.
 *
 * C takes bare pointers, so relay_exec_start cannot tell a buffer too small
 * for the plan.  A Fortran array arrives here with its descriptor
 * (ISO_Fortran_binding.h: element length, rank, extents), and
 * relay_fortran_exec_create records, from the plan, what a replay takes on
 * this rank.  An array that is not contiguous, of unknown size
 * (assumed-size), of another element size than the plan's type, or smaller
 * than this rank's part of the plan is refused.
 *
 * A replay is collective in effect, so a rank that refuses must still take
 * part, or its peers wait forever: it passes NULL for both buffers, the
 * executor then replays over NaN buffers of its own (executor/stand_in.c),
 * and the refusal's message is replaced by the precise one.  The peers
 * complete, with NaN where the refusing rank's elements belong. */
#include <ISO_Fortran_binding.h>
#include <stdio.h>

#include "error.h"
#include "relay/bmmc.h"
#include "relay/exec.h"

/* What a replay takes on this rank: the Fortran relay_exec's `buffers`
 * (exec.f90's exec_buffers, the same fields in the same order). */
typedef struct {
    int dst_buffers, src_buffers; /* pointers a replay takes (relay_exec_start_ptrs) */
    int opaque;                   /* a BMMC plan: elements of elem_bytes bytes of any type */
    int type;                     /* a transform's relay_type */
    int64_t dst_elems, src_elems; /* a one-pair plan's buffers on this rank, in elements */
    int64_t elem_bytes;
} relay_fortran_buffers;

enum { WHY_LEN = 400 };

static relay_fortran_buffers buffers_of(const relay_plan *p, int rank)
{
    relay_fortran_buffers b = {.dst_buffers = 1, .src_buffers = 1};
    relay_bmmc_info info;
    switch (relay_plan_get_kind(p)) {
    case RELAY_PLAN_HSUMMA: /* C := alpha A B + beta C: one destination, two sources */
        b.src_buffers = 2;
        return b;
    case RELAY_PLAN_BMMC:
        relay_plan_bmmc_info(p, &info); /* cannot fail for a BMMC plan */
        b.opaque = 1;
        b.elem_bytes = (int64_t)info.elem_size;
        b.dst_elems = b.src_elems = (int64_t)1 << (info.n - info.p);
        return b;
    default: /* a transform: a destination and a source per pair */
        b.dst_buffers = b.src_buffers = relay_plan_count(p);
        b.type = relay_plan_type(p);
        b.elem_bytes = (int64_t)relay_type_size(relay_plan_type(p));
        b.dst_elems = relay_plan_buffer_elems(p, 1, 0, rank);
        b.src_elems = relay_plan_buffer_elems(p, 0, 0, rank);
        return b;
    }
}

/* relay_exec_create_with with MPI's Fortran communicator (opt NULL: host
 * memory), recording in *b what a replay takes on this rank (the plan may
 * be freed afterwards). */
relay_status relay_fortran_exec_create(relay_exec **out, const relay_plan *p, MPI_Fint comm, const relay_exec_options *opt,
                                       relay_fortran_buffers *b)
{
    MPI_Comm c = MPI_Comm_f2c(comm);
    relay_status st = relay_exec_create_with(out, p, c, opt);
    if (st) return st;
    int rank;
    MPI_Comm_rank(c, &rank);
    *b = buffers_of(p, rank);
    return RELAY_OK;
}

/* The Fortran kind of a transform's element type, for messages. */
static const char *fortran_type(int type)
{
    static const char *const name[] = {[RELAY_FLOAT] = "real(c_float)", [RELAY_DOUBLE] = "real(c_double)",
                                       [RELAY_CFLOAT] = "complex(c_float_complex)",
                                       [RELAY_CDOUBLE] = "complex(c_double_complex)"};
    return type >= RELAY_FLOAT && type <= RELAY_CDOUBLE ? name[type] : "?";
}

/* Elements of array a; -1 for an assumed-size array (its last extent is
 * unknown).  An array in memory: the product fits in ptrdiff_t. */
static int64_t elements(const CFI_cdesc_t *a)
{
    int64_t n = 1;
    for (int k = 0; k < a->rank; k++) {
        if (a->dim[k].extent < 0) return -1;
        n *= a->dim[k].extent;
    }
    return n;
}

/* Whether a holds `need` elements of the plan's, typed or (BMMC) in bytes. */
static int large_enough(const CFI_cdesc_t *a, int64_t have, int64_t need, const relay_fortran_buffers *b)
{
    if (!b->opaque) return (int64_t)a->elem_len == b->elem_bytes && have >= need;
    int64_t have_bytes = have * (int64_t)a->elem_len; /* in memory: fits */
    int64_t need_bytes = need * b->elem_bytes;        /* the plan's 2^n elements fit in 2^63 bytes */
    return have_bytes >= need_bytes;
}

/* Whether `what`, the caller's array a, can be this rank's buffer of
 * `need` elements; if not, why[] says why. */
static int fits(const char *what, const CFI_cdesc_t *a, int64_t need, const relay_fortran_buffers *b, char *why)
{
    int64_t have = elements(a);
    if (!CFI_is_contiguous(a))
        snprintf(why, WHY_LEN, "relay_exec_start: %s is not contiguous (relay uses the array in place, never a copy)",
                 what);
    else if (have < 0)
        snprintf(why, WHY_LEN,
                 "relay_exec_start: %s is an assumed-size array, whose size relay cannot check; pass a section "
                 "of known length (a(1:n)) or use relay_exec_start_ptrs",
                 what);
    else if (!large_enough(a, have, need, b))
        snprintf(why, WHY_LEN, "relay_exec_start: %s has %lld elements of %zu bytes; this rank's part of the plan needs "
                 "%lld elements of %lld bytes (%s)", what, (long long)have, a->elem_len, (long long)need,
                 (long long)b->elem_bytes, b->opaque ? "a BMMC plan's: any type, checked in bytes" : fortran_type(b->type));
    else
        return 1;
    return 0;
}

/* relay_exec_start of a one-pair plan over Fortran arrays dst and src. */
relay_status relay_fortran_exec_start(relay_exec *e, const relay_fortran_buffers *b, const CFI_cdesc_t *dst,
                                      const CFI_cdesc_t *src, const void *alpha, const void *beta)
{
    if (!e) return relay_internal_fail(RELAY_ERR_ARG, "relay_exec_start: the executor was never created");
    if (b->dst_buffers != 1 || b->src_buffers != 1)
        return relay_internal_fail(RELAY_ERR_ARG, "relay_exec_start: the plan takes %d destination and %d source "
                                   "buffers; pass their addresses to relay_exec_start_ptrs", b->dst_buffers, b->src_buffers);
    char why[WHY_LEN];
    int refused = !fits("dst", dst, b->dst_elems, b, why) || !fits("src", src, b->src_elems, b, why);
    void *d = refused ? NULL : dst->base_addr;
    const void *s = refused ? NULL : src->base_addr;
    relay_status st = relay_exec_start(e, &d, &s, alpha, beta);
    if (!refused) return st;
    /* Refused with NULL buffers, the executor ran the stand-in replay; or
     * this rank holds nothing of either buffer, and its replay ran. */
    if (st == RELAY_OK) st = relay_exec_wait(e);
    return st == RELAY_OK || st == RELAY_ERR_ARG ? relay_internal_fail(RELAY_ERR_ARG, "%s", why) : st;
}
