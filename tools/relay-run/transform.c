/* transform.c — relay-run's fill function and check for transform plans.
 *
 *   B(i, j) = (7 i + 13 j) mod 1021 - 510  +  i ((3 i + 5 j) mod 509 - 254)
 * in B's global indices (imaginary parts for complex types only): small
 * integers, exact in every element type.  A starts as NaN; after the replay
 * of A := op(B) (alpha 1, beta 0) every element A(i, j) of every pair must
 * equal op(B)(i, j) exactly: B(i, j) for op N, B(j, i) for T, its
 * conjugate for C. */
#include <math.h>
#include <stdio.h>

#include "plan_internal.h"
#include "run.h"

static double complex b_value(int64_t i, int64_t j)
{
    return (double)((7 * i + 13 * j) % 1021 - 510) + I * (double)((3 * i + 5 * j) % 509 - 254);
}

/* What A(i, j) must hold after A := op(B), in a matrix of type t. */
static double complex expected_a(relay_op op, relay_type t, int64_t i, int64_t j)
{
    double complex v = op == RELAY_OP_N ? b_value(i, j) : op == RELAY_OP_T ? b_value(j, i) : conj(b_value(j, i));
    return t == RELAY_CFLOAT || t == RELAY_CDOUBLE ? v : creal(v);
}

static void format_value(double complex v, relay_type t, char *buf, size_t cap)
{
    if (t == RELAY_CFLOAT || t == RELAY_CDOUBLE) snprintf(buf, cap, "%g%+gi", creal(v), cimag(v));
    else snprintf(buf, cap, "%g", creal(v));
}

/* ---- visiting the elements this rank holds of a layout ------------------- */

typedef struct {
    const relay_layout *l;
    void *buf;
    relay_type type;
    relay_op op;             /* checking: the op that produced A */
    int64_t checked, wrong;  /* checking: counts, and the first wrong element */
    int64_t bad_i, bad_j;
    double complex bad_got, bad_want;
} element_visit;

static int64_t element_index(const relay_layout *l, int bi, int bj, int64_t r, int64_t c)
{
    return rl_layout_offset(l, bi, bj) + (l->order == RELAY_COL_MAJOR ? r + c * rl_layout_ld(l, bi, bj)
                                                                        : r * rl_layout_ld(l, bi, bj) + c);
}

/* Block (bi, bj)'s rows [r[0], r[1]) and columns [c[0], c[1]). */
static void block_bounds(const relay_layout *l, int bi, int bj, int64_t r[2], int64_t c[2])
{
    r[0] = rl_layout_row_split(l, bi);
    r[1] = rl_layout_row_split(l, bi + 1);
    c[0] = rl_layout_col_split(l, bj);
    c[1] = rl_layout_col_split(l, bj + 1);
}

static void fill_block(int bi, int bj, void *ctx)
{
    element_visit *v = ctx;
    const relay_layout *l = v->l;
    int64_t r[2], c[2];
    block_bounds(l, bi, bj, r, c);
    for (int64_t j = c[0]; j < c[1]; j++)
        for (int64_t i = r[0]; i < r[1]; i++)
            run_store(v->buf, v->type, element_index(l, bi, bj, i - r[0], j - c[0]), b_value(i, j));
}

static void check_block(int bi, int bj, void *ctx)
{
    element_visit *v = ctx;
    const relay_layout *l = v->l;
    int64_t r[2], c[2];
    block_bounds(l, bi, bj, r, c);
    for (int64_t j = c[0]; j < c[1]; j++)
        for (int64_t i = r[0]; i < r[1]; i++) {
            double complex got = run_load(v->buf, v->type, element_index(l, bi, bj, i - r[0], j - c[0]));
            double complex want = expected_a(v->op, v->type, i, j);
            v->checked++;
            if (got == want) continue;
            if (v->wrong++ == 0) {
                v->bad_i = i;
                v->bad_j = j;
                v->bad_got = got;
                v->bad_want = want;
            }
        }
}

/* ---- the kind's part of a replay ------------------------------------------ */

int prepare_transform(const relay_plan *p, int rank, run_buffers *buf, cli_error *e)
{
    relay_type t = relay_plan_type(p);
    if (run_buffers_init(buf, relay_plan_count(p), e)) return e->status;
    for (int k = 0; k < buf->count; k++) {
        int64_t na = relay_plan_buffer_elems(p, 1, k, rank), nb = relay_plan_buffer_elems(p, 0, k, rank);
        if (run_alloc_pair(buf, k, na, nb, t, rank, e)) return e->status;
        for (int64_t x = 0; x < na; x++) run_store(buf->a[k], t, x, CMPLX(NAN, NAN));
        element_visit v = {.l = relay_plan_src_layout(p, k), .buf = buf->b[k], .type = t};
        rl_layout_for_each_block(v.l, rank, fill_block, &v);
    }
    return CLI_OK;
}

int64_t check_transform(const relay_plan *p, int rank, const run_buffers *buf, int64_t *checked, char *first, size_t cap)
{
    relay_type t = relay_plan_type(p);
    int64_t wrong = 0;
    *checked = 0;
    for (int k = 0; k < buf->count; k++) {
        element_visit v = {.l = relay_plan_dst_layout(p, k), .buf = buf->a[k], .type = t, .op = p->pairs[k].op};
        rl_layout_for_each_block(v.l, rank, check_block, &v);
        if (v.wrong && !wrong) {
            char got[64], want[64];
            format_value(v.bad_got, t, got, sizeof got);
            format_value(v.bad_want, t, want, sizeof want);
            snprintf(first, cap, "A(%lld, %lld) of pair %d holds %s instead of %s", (long long)v.bad_i,
                     (long long)v.bad_j, k, got, want);
        }
        wrong += v.wrong;
        *checked += v.checked;
    }
    return wrong;
}
