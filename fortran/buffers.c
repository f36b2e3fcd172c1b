/* buffers.c — the Fortran replay (relay_exec_run / relay_exec_start and
 * their _ptrs forms), which knows what C cannot: the size and type of the
 * caller's buffers, and the type of alpha and beta.
 *
 * C takes bare pointers, so relay_exec_start cannot tell a buffer too small
 * for the plan, nor an alpha of another type than the plan's (2.0, a
 * default real, for a double plan: read as 8 bytes, a wrong value).  A
 * Fortran array or scalar arrives here with its descriptor
 * (ISO_Fortran_binding.h: type, element length, rank, extents), and
 * relay_fortran_exec_create records, from the plan, what a replay takes on
 * this rank.  An array that is not contiguous, of unknown size
 * (assumed-size), of another type than the plan's, or smaller than this
 * rank's part of the plan is refused; so are an alpha or a beta that is not
 * one value of the plan's type, and arrays of addresses shorter than the
 * plan's buffer count.
 *
 * A replay is collective in effect, so a rank that refuses must still take
 * part, or its peers wait forever: it passes NULL for the buffers, the
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
    int type;                     /* the relay_type of a transform's or HSUMMA's elements */
    int64_t dst_elems, src_elems; /* a one-pair plan's buffers on this rank, in elements */
    int64_t elem_bytes;
} relay_fortran_buffers;

enum { WHY_LEN = 400 };

static relay_fortran_buffers buffers_of(const relay_plan *p, int rank)
{
    relay_fortran_buffers b = {.dst_buffers = 1, .src_buffers = 1, .type = relay_plan_type(p)};
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

/* ---- Fortran's names for types ------------------------------------------- */

/* The intrinsic types a descriptor may name, as a Fortran program spells
 * them; the first four are the relay_types', in relay_type's order, with a
 * value of each for messages. */
typedef struct {
    CFI_type_t code;
    const char *name, *one;
} fortran_kind;

static const fortran_kind kinds[] = {
    {CFI_type_float, "real(c_float)", "1.0_c_float"},
    {CFI_type_double, "real(c_double)", "1.0_c_double"},
    {CFI_type_float_Complex, "complex(c_float_complex)", "(1.0_c_float, 0.0_c_float)"},
    {CFI_type_double_Complex, "complex(c_double_complex)", "(1.0_c_double, 0.0_c_double)"},
    {CFI_type_long_double, "real(c_long_double)", NULL},
    {CFI_type_long_double_Complex, "complex(c_long_double_complex)", NULL},
    {CFI_type_int8_t, "integer(c_int8_t)", NULL},
    {CFI_type_int16_t, "integer(c_int16_t)", NULL},
    {CFI_type_int32_t, "integer(c_int32_t), a default integer", NULL},
    {CFI_type_int64_t, "integer(c_int64_t)", NULL},
    {CFI_type_Bool, "logical(c_bool)", NULL},
    {CFI_type_char, "character", NULL},
};

/* The entry of kinds[] of a plan's element type; NULL for one this file
 * does not know (no Fortran array or scalar matches it). */
static const fortran_kind *plan_kind(int type)
{
    return type >= RELAY_FLOAT && type <= RELAY_CDOUBLE ? &kinds[type] : NULL;
}

/* Whether descriptor a is of the plan's element type. */
static int of_plan_type(const CFI_cdesc_t *a, int type) { return plan_kind(type) && a->type == plan_kind(type)->code; }

static const char *plan_type_name(int type) { return plan_kind(type) ? plan_kind(type)->name : "?"; }

/* What the Fortran type of descriptor a is, in words. */
static void describe_type(const CFI_cdesc_t *a, char *out, size_t len)
{
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        if (a->type == kinds[k].code) {
            snprintf(out, len, "%s", kinds[k].name);
            return;
        }
    snprintf(out, len, "of another type (%zu bytes)", a->elem_len);
}

/* ---- the checks ---------------------------------------------------------- */

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
    char given[64];
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
                 (long long)b->elem_bytes, b->opaque ? "a BMMC plan's: any type, checked in bytes" : plan_type_name(b->type));
    else if (!b->opaque && !of_plan_type(a, b->type)) {
        describe_type(a, given, sizeof given);
        snprintf(why, WHY_LEN, "relay_exec_start: %s is an array of %s; the plan's elements are %s", what, given,
                 plan_type_name(b->type));
    } else
        return 1;
    return 0;
}

/* Whether `what`, the caller's alpha or beta s (NULL: absent), is one value
 * of the plan's type; if not, why[] says why.  A BMMC plan takes neither,
 * which its executor says itself. */
static int scalar_fits(const char *what, const CFI_cdesc_t *s, const relay_fortran_buffers *b, char *why)
{
    char given[64];
    if (!s || b->opaque) return 1;
    if (s->rank != 0)
        snprintf(why, WHY_LEN, "relay_exec_start: %s is an array; the plan's elements are %s: pass one value", what,
                 plan_type_name(b->type));
    else if (!of_plan_type(s, b->type)) {
        describe_type(s, given, sizeof given);
        snprintf(why, WHY_LEN, "relay_exec_start: %s is %s; the plan's elements are %s: give alpha and beta that "
                 "kind, such as %s", what, given, plan_type_name(b->type),
                 plan_kind(b->type) ? plan_kind(b->type)->one : "?");
    } else
        return 1;
    return 0;
}

/* Whether an array of `have` addresses holds the `need` the plan takes. */
static int count_fits(const char *what, int have, int need, char *why)
{
    if (have >= need) return 1;
    snprintf(why, WHY_LEN, "relay_exec_start: %s has %d entries, %d needed", what, have, need);
    return 0;
}

/* A start this rank refuses, for the reason in why: it takes part in the
 * exchange over the executor's stand-in buffers (NULL buffers), so that the
 * peers complete, and fails with why. */
static relay_status refuse(relay_exec *e, const char *why)
{
    relay_status st = relay_exec_start(e, NULL, NULL, NULL, NULL);
    return st == RELAY_ERR_ARG ? relay_internal_fail(RELAY_ERR_ARG, "%s", why) : st;
}

/* relay_exec_start of a one-pair plan over Fortran arrays dst and src. */
relay_status relay_fortran_exec_start(relay_exec *e, const relay_fortran_buffers *b, const CFI_cdesc_t *dst,
                                      const CFI_cdesc_t *src, const CFI_cdesc_t *alpha, const CFI_cdesc_t *beta)
{
    if (!e) return relay_internal_fail(RELAY_ERR_ARG, "relay_exec_start: the executor was never created");
    if (b->dst_buffers != 1 || b->src_buffers != 1)
        return relay_internal_fail(RELAY_ERR_ARG, "relay_exec_start: the plan takes %d destination and %d source "
                                   "buffers; pass their addresses to relay_exec_start_ptrs", b->dst_buffers, b->src_buffers);
    char why[WHY_LEN];
    if (!fits("dst", dst, b->dst_elems, b, why) || !fits("src", src, b->src_elems, b, why) ||
        !scalar_fits("alpha", alpha, b, why) || !scalar_fits("beta", beta, b, why))
        return refuse(e, why);
    void *d = dst->base_addr;
    const void *s = src->base_addr;
    return relay_exec_start(e, &d, &s, alpha ? alpha->base_addr : NULL, beta ? beta->base_addr : NULL);
}

/* relay_exec_start with arrays of addresses, ndst and nsrc of them. */
relay_status relay_fortran_exec_start_ptrs(relay_exec *e, const relay_fortran_buffers *b, int ndst, void *const *dst,
                                           int nsrc, const void *const *src, const CFI_cdesc_t *alpha,
                                           const CFI_cdesc_t *beta)
{
    if (!e) return relay_internal_fail(RELAY_ERR_ARG, "relay_exec_start: the executor was never created");
    char why[WHY_LEN];
    if (!count_fits("dst", ndst, b->dst_buffers, why) || !count_fits("src", nsrc, b->src_buffers, why) ||
        !scalar_fits("alpha", alpha, b, why) || !scalar_fits("beta", beta, b, why))
        return refuse(e, why);
    return relay_exec_start(e, dst, src, alpha ? alpha->base_addr : NULL, beta ? beta->base_addr : NULL);
}
