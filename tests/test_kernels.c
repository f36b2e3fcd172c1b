/* test_kernels.c — the executor's memory kernels against a naive loop.
 *
 * rl_move is checked for every element type, both element orders on each
 * side, op N/T/C, alpha/beta special cases (alpha 1 and beta 0 take the
 * memcpy path, beta 0 must never read a NaN-filled destination), padded
 * leading dimensions and shapes around the transpose tile edge; then
 * sides at general strides (every k-th row or column of a buffer, as a
 * lattice of 1 x 1 pieces is), each against each; then shapes large
 * enough for the SIMD interiors, on buffers shifted off their cache lines
 * (by whole elements, and by half a complex double) at leading dimensions
 * that are a whole number of lines or not, and large enough to stream;
 * and small pieces of a destination their caller says is large (streamed
 * whatever their size where their lines are aligned, the fence deferred;
 * off them, their edges' squares in part); then transposes of random
 * rectangles at random shifts.  Guards around every buffer check that no
 * move writes outside its rectangle's elements.
 * Every check runs once per instruction set the CPU has, each forced
 * through the dispatch, and once with the portable C loops. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <complex.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "kernels.h"
#include "reference.h"

/* Every value is held as double complex; each type stores what it can. */
static double complex load(relay_type t, const void *p, int64_t k)
{
    switch (t) {
    case RELAY_FLOAT: return ((const float *)p)[k];
    case RELAY_DOUBLE: return ((const double *)p)[k];
    case RELAY_CFLOAT: return ((const float complex *)p)[k];
    case RELAY_CDOUBLE: return ((const double complex *)p)[k];
    }
    return 0;
}

static void store(relay_type t, void *p, int64_t k, double complex v)
{
    switch (t) {
    case RELAY_FLOAT: ((float *)p)[k] = (float)creal(v); break;
    case RELAY_DOUBLE: ((double *)p)[k] = creal(v); break;
    case RELAY_CFLOAT: ((float complex *)p)[k] = (float complex)v; break;
    case RELAY_CDOUBLE: ((double complex *)p)[k] = v; break;
    }
}

static int is_complex(relay_type t) { return t == RELAY_CFLOAT || t == RELAY_CDOUBLE; }

static int64_t idx(relay_order o, int64_t ld, int64_t r, int64_t c) { return o == RELAY_COL_MAJOR ? r + c * ld : r * ld + c; }

typedef struct {
    relay_type type;
    relay_op op;
    relay_order dst_order, src_order;
    int64_t rows, cols, pad;
    double complex alpha, beta;
    size_t dst_shift, src_shift; /* bytes past a cache line where each buffer starts */
    int large_dst;               /* moved as a piece of a large destination, one fence deferred to the end */
    int64_t src_pad;             /* added to pad for the source's leading dimension */
    int flush;                   /* each buffer ends where an inaccessible page begins (no shift, no guards) */
} kernel_case;

/* n bytes starting shift bytes past a cache line, between guards: a line
 * before them and at least one after, of GUARD bytes, that no move may
 * write (the partial line squares of kernels_simd_template.h mask what
 * lies outside the rectangle, on the rectangle's own lines); free with
 * free_shifted, which checks the guards. */
enum { GUARD = 0xA5 };

static size_t guarded_bytes(size_t n, size_t shift) { return 64 + (shift + n + 64 + 63) / 64 * 64; }

static char *alloc_shifted(size_t n, size_t shift)
{
    size_t total = guarded_bytes(n, shift);
    char *p = aligned_alloc(64, total);
    assert_non_null(p);
    memset(p, GUARD, total);
    return p + 64 + shift;
}

/* Whether the guards held; frees the block. */
static int free_shifted(char *p, size_t n, size_t shift)
{
    char *block = p - shift - 64;
    size_t total = guarded_bytes(n, shift);
    int intact = 1;
    for (size_t k = 0; k < total; k++)
        if (k < 64 + shift || k >= 64 + shift + n) intact &= (unsigned char)block[k] == GUARD;
    free(block);
    return intact;
}

/* n bytes that end where a page mapped without access begins, so that a
 * move reading or writing past them faults; free with free_flush. */
static char *alloc_flush(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (n + page - 1) / page;
    char *p = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    assert_int_equal(mprotect(p + pages * page, page, PROT_NONE), 0);
    return p + pages * page - n;
}

static void free_flush(char *p, size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (n + page - 1) / page;
    munmap(p + n - pages * page, (pages + 1) * page);
}

static char *alloc_buffer(const kernel_case *kc, size_t n, size_t shift)
{
    return kc->flush ? alloc_flush(n) : alloc_shifted(n, shift);
}

/* Whether nothing around the buffer was written (a flush buffer would have faulted). */
static int free_buffer(const kernel_case *kc, char *p, size_t n, size_t shift)
{
    if (!kc->flush) return free_shifted(p, n, shift);
    free_flush(p, n);
    return 1;
}

/* The case in words, for failure messages. */
static const char *described(const kernel_case *kc)
{
    static char text[256];
    snprintf(text, sizeof text, "%s: type %d op %d orders %d/%d %lldx%lld pad %lld+%lld shifts %zu/%zu alpha %g%+gi beta %g%+gi%s%s",
             rl_isa_name(rl_kernels_isa()), kc->type, kc->op, kc->dst_order, kc->src_order, (long long)kc->rows,
             (long long)kc->cols, (long long)kc->pad, (long long)kc->src_pad, kc->dst_shift, kc->src_shift,
             creal(kc->alpha), cimag(kc->alpha), creal(kc->beta), cimag(kc->beta), kc->large_dst ? " large" : "",
             kc->flush ? " flush" : "");
    return text;
}

static void run_case(const kernel_case *kc)
{
    int t = kc->op != RELAY_OP_N;
    int64_t srows = t ? kc->cols : kc->rows, scols = t ? kc->rows : kc->cols;
    int64_t dld = (kc->dst_order == RELAY_COL_MAJOR ? kc->rows : kc->cols) + kc->pad;
    int64_t sld = (kc->src_order == RELAY_COL_MAJOR ? srows : scols) + kc->pad + kc->src_pad;
    int64_t dn = (kc->dst_order == RELAY_COL_MAJOR ? kc->cols : kc->rows) * dld;
    int64_t sn = (kc->src_order == RELAY_COL_MAJOR ? scols : srows) * sld;
    if (kc->flush) { /* each buffer ends with its last element, not the padding after it */
        dn -= dld - (kc->dst_order == RELAY_COL_MAJOR ? kc->rows : kc->cols);
        sn -= sld - (kc->src_order == RELAY_COL_MAJOR ? srows : scols);
    }
    size_t esz = relay_type_size(kc->type);
    char *d = alloc_buffer(kc, (size_t)dn * esz, kc->dst_shift), *s = alloc_buffer(kc, (size_t)sn * esz, kc->src_shift);
    char *d0 = malloc((size_t)dn * esz);
    for (int64_t k = 0; k < sn; k++) store(kc->type, s, k, (double)(k % 37 - 18) + I * (double)(k % 11 - 5));
    int beta_zero = kc->beta == 0;
    for (int64_t k = 0; k < dn; k++) store(kc->type, d, k, beta_zero ? NAN : (double)(k % 13 - 6) + I * (double)(k % 7));
    memcpy(d0, d, (size_t)dn * esz);

    rl_scalars sc;
    char alpha[16], beta[16];
    store(kc->type, alpha, 0, kc->alpha);
    store(kc->type, beta, 0, kc->beta);
    rl_scalars_set(&sc, kc->type, alpha, beta);
    sc.large_dst = sc.defer_fence = kc->large_dst;
    rl_side dst = rl_side_at(d, dld, kc->dst_order, 0), src = rl_side_at(s, sld, kc->src_order, t);
    rl_move(&sc, kc->op == RELAY_OP_C, dst, src, kc->rows, kc->cols);
    if (kc->large_dst) rl_stream_fence();

    double complex a = load(kc->type, alpha, 0), b = load(kc->type, beta, 0);
    for (int64_t i = 0; i < kc->rows; i++)
        for (int64_t j = 0; j < kc->cols; j++) {
            double complex x = load(kc->type, s, t ? idx(kc->src_order, sld, j, i) : idx(kc->src_order, sld, i, j));
            if (kc->op == RELAY_OP_C && is_complex(kc->type)) x = conj(x);
            int64_t k = idx(kc->dst_order, dld, i, j);
            double complex want = a * x + (beta_zero ? 0 : b * load(kc->type, d0, k));
            store(kc->type, d0, k, want); /* round like the type does */
            double complex got = load(kc->type, d, k);
            if (got != load(kc->type, d0, k))
                fail_msg("%s: (%lld,%lld) got %g%+gi want %g%+gi", described(kc), (long long)i, (long long)j, creal(got),
                         cimag(got), creal(want), cimag(want));
        }
    /* Padding between runs is untouched (NaN, where beta is zero). */
    for (int64_t k = 0; k < dn; k++) {
        int64_t inner = k % dld, inner_max = kc->dst_order == RELAY_COL_MAJOR ? kc->rows : kc->cols;
        if (inner < inner_max) continue;
        double complex v = load(kc->type, d, k);
        if (beta_zero ? !isnan(creal(v)) : v != load(kc->type, d0, k)) fail_msg("%s: padding %lld written", described(kc), (long long)k);
    }
    int dst_intact = free_buffer(kc, d, (size_t)dn * esz, kc->dst_shift);
    int src_intact = free_buffer(kc, s, (size_t)sn * esz, kc->src_shift);
    if (!dst_intact || !src_intact) fail_msg("%s: written outside the %s", described(kc), dst_intact ? "source" : "destination");
    free(d0);
}

static void all_combinations(void)
{
    /* {8, 4}: runs of 32, 64 and 128 bytes, which copy_runs copies inline */
    const int64_t shapes[][2] = {{1, 1}, {1, 7}, {7, 1}, {5, 3}, {8, 4}, {32, 32}, {33, 31}, {64, 65}, {70, 2}};
    const double complex alphas[] = {1, 2, -0.5, 1 + 2 * I};
    const double complex betas[] = {0, 1, -1, 0.5 - 1 * I};
    for (int type = 0; type < 4; type++)
        for (int op = 0; op < 3; op++)
            for (int orders = 0; orders < 4; orders++)
                for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
                    for (int ab = 0; ab < 4; ab++)
                        for (int pad = 0; pad <= 3; pad += 3) {
                            kernel_case kc = {(relay_type)type, (relay_op)op, (relay_order)(orders & 1),
                                              (relay_order)(orders >> 1), shapes[sh][0], shapes[sh][1], pad,
                                              alphas[ab], betas[(ab + orders) % 4], 0, 0, 0, 0, 0};
                            run_case(&kc);
                        }
}

/* Strides (rs, cs) of a side holding a rows x cols rectangle: tight in
 * either order, every other row or every third column of a larger buffer,
 * or gaps along both dimensions (contiguous along neither, as a lattice
 * of 1 x 1 pieces is). */
static void spread_strides(int kind, int64_t rows, int64_t cols, int64_t *rs, int64_t *cs)
{
    const int64_t table[][2] = {{1, rows}, {cols, 1}, {2, 2 * rows + 1}, {3 * cols, 3}, {2, 5 * rows + 1}, {3 * cols + 1, 3}};
    *rs = table[kind][0];
    *cs = table[kind][1];
}
enum { SPREAD_KINDS = 6 };

/* One strided move checked element by element; elements between the
 * rectangle's keep their values. */
static void run_strided(relay_type type, int dkind, int skind, int64_t rows, int64_t cols, double complex alpha,
                        double complex beta, int conj_src)
{
    int64_t drs, dcs, srs, scs;
    spread_strides(dkind, rows, cols, &drs, &dcs);
    spread_strides(skind, rows, cols, &srs, &scs);
    int64_t dn = (rows - 1) * drs + (cols - 1) * dcs + 1, sn = (rows - 1) * srs + (cols - 1) * scs + 1;
    size_t esz = relay_type_size(type);
    char *d = malloc((size_t)dn * esz), *s = malloc((size_t)sn * esz), *d0 = malloc((size_t)dn * esz);
    for (int64_t k = 0; k < sn; k++) store(type, s, k, (double)(k % 41 - 20) + I * (double)(k % 13 - 6));
    for (int64_t k = 0; k < dn; k++) store(type, d, k, (double)(k % 17 - 8) + I * (double)(k % 5));
    memcpy(d0, d, (size_t)dn * esz);
    rl_scalars sc;
    char a[16], b[16];
    store(type, a, 0, alpha);
    store(type, b, 0, beta);
    rl_scalars_set(&sc, type, a, b);
    rl_move(&sc, conj_src, (rl_side){d, drs, dcs}, (rl_side){s, srs, scs}, rows, cols);
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            double complex x = load(type, s, i * srs + j * scs);
            if (conj_src && is_complex(type)) x = conj(x);
            int64_t k = i * drs + j * dcs;
            store(type, d0, k, load(type, a, 0) * x + load(type, b, 0) * load(type, d0, k));
        }
    for (int64_t k = 0; k < dn; k++)
        if (load(type, d, k) != load(type, d0, k))
            fail_msg("%s: type %d sides %d/%d %lldx%lld: element %lld differs", rl_isa_name(rl_kernels_isa()), type, dkind,
                     skind, (long long)rows, (long long)cols, (long long)k);
    free(d);
    free(s);
    free(d0);
}

static void strided_sides(void)
{
    const int64_t shapes[][2] = {{1, 1}, {1, 9}, {9, 1}, {3, 5}, {65, 70}, {130, 3}};
    const double complex alphas[] = {1, -2, 1 + 1 * I};
    const double complex betas[] = {0, 0.5, 2 - 1 * I};
    for (int type = 0; type < 4; type++)
        for (int dk = 0; dk < SPREAD_KINDS; dk++)
            for (int sk = 0; sk < SPREAD_KINDS; sk++)
                for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
                    for (int ab = 0; ab < 3; ab++)
                        run_strided((relay_type)type, dk, sk, shapes[sh][0], shapes[sh][1], alphas[ab], betas[(ab + dk) % 3],
                                    (dk + sk) % 2);
}

/* Interiors of whole line squares with borders on all four sides: buffers
 * on a cache line or shifted off it (whole elements; half a complex
 * double, which no line square can align), leading dimensions a whole
 * number of lines (pad 0, 16) or not (pad 3). */
static void interiors(void)
{
    const int64_t shapes[][2] = {{64, 64}, {67, 45}, {33, 131}};
    const double complex alphas[] = {1, -2, 1 + 2 * I};
    const double complex betas[] = {0, 0, 0.5 - 1 * I};
    const int64_t pads[] = {0, 3, 16};
    for (int type = 0; type < 4; type++) {
        size_t esz = relay_type_size((relay_type)type);
        const size_t shifts[][2] = {{0, 0}, {esz, 2 * esz}, {3 * esz, 0}, {8, 24}};
        for (int op = 0; op < 3; op++)
            for (int orders = 0; orders < 4; orders++)
                for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
                    for (int ab = 0; ab < 3; ab++) {
                        int v = (int)sh + ab + orders;
                        kernel_case kc = {(relay_type)type, (relay_op)op, (relay_order)(orders & 1), (relay_order)(orders >> 1),
                                          shapes[sh][0], shapes[sh][1], pads[v % 3], alphas[ab], betas[ab],
                                          shifts[v % 4][0], shifts[v % 4][1], 0, 0, 0};
                        run_case(&kc);
                    }
    }
}

/* Transposes whose destination is large enough to stream (its columns
 * span 4 MiB or more, kernels.c), aligned on a line or a few elements off
 * it (the interior then starts at the first aligned row), with alpha 1
 * and 2 (streamed) and with beta (not); and at a leading dimension that is
 * not a whole number of lines (not streamed: its columns cannot all be
 * aligned). */
static void streamed(void)
{
    const double complex alphas[] = {1, 2, 1};
    const double complex betas[] = {0, 0, -1};
    const int64_t rows = 69, cols = 70, ld_bytes = 1 << 16;
    const int64_t shift_odd[][2] = {{0, 0}, {1, 0}, {0, 3}};
    for (int type = 0; type < 4; type++)
        for (int ab = 0; ab < 3; ab++)
            for (int v = 0; v < 3; v++) {
                size_t esz = relay_type_size((relay_type)type);
                kernel_case kc = {(relay_type)type, v ? RELAY_OP_C : RELAY_OP_T, RELAY_COL_MAJOR, RELAY_COL_MAJOR, rows, cols,
                                  ld_bytes / (int64_t)esz - rows + shift_odd[v][1], alphas[ab], betas[ab],
                                  (size_t)shift_odd[v][0] * esz, 0, 0, 0, 0};
                run_case(&kc);
            }
}

/* Pieces of a large destination (a transform's pieces of A): streamed
 * whatever their size, one fence after the move, where their lines are
 * aligned; off them, their edges' squares moved in part and the rest
 * streamed; pieces of one line square, of several, and with partial
 * lines, on a line or off it, around the size where the C loops end (2
 * lines). */
static void streamed_pieces(void)
{
    const int64_t shapes[][2] = {{8, 8}, {16, 16}, {32, 128}, {9, 17}, {15, 16}, {63, 65}};
    const double complex alphas[] = {1, 2, 1};
    const double complex betas[] = {0, 0, -1};
    for (int type = 0; type < 4; type++)
        for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
            for (int ab = 0; ab < 3; ab++)
                for (int v = 0; v < 2; v++) {
                    size_t esz = relay_type_size((relay_type)type);
                    kernel_case kc = {(relay_type)type, v ? RELAY_OP_C : RELAY_OP_T, RELAY_COL_MAJOR, RELAY_COL_MAJOR,
                                      shapes[sh][0], shapes[sh][1], 64 / (int64_t)esz, alphas[ab], betas[ab],
                                      (size_t)v * esz, 0, 1, 0, 0};
                    run_case(&kc);
                }
}

/* Transposes on random rectangles (fixed seed): 1 to 80 rows and
 * columns, each buffer 0 to 63 bytes past a cache line in steps of the
 * type's alignment (a complex one's: half its size, so off its elements
 * too), each leading dimension whole lines half
 * the time, as pieces of a large destination or not: partial squares at
 * any of the four edges. */
static void random_transposes(void)
{
    const double complex alphas[] = {1, -2, 1 + 2 * I};
    const double complex betas[] = {0, 0, 0.5 - 1 * I};
    ref_rng r;
    ref_rng_seed(&r, 36);
    for (int n = 0; n < 600; n++) {
        kernel_case kc = {.dst_order = RELAY_COL_MAJOR, .src_order = RELAY_COL_MAJOR};
        int ab = (int)ref_rng_range(&r, 0, 2);
        kc.type = (relay_type)ref_rng_range(&r, 0, 3);
        kc.op = ref_rng_percent(&r, 50) ? RELAY_OP_C : RELAY_OP_T;
        kc.rows = ref_rng_range(&r, 1, 80);
        kc.cols = ref_rng_range(&r, 1, 80);
        kc.alpha = alphas[ab];
        kc.beta = betas[ab];
        size_t align = relay_type_size(kc.type) / (is_complex(kc.type) ? 2 : 1); /* C's alignment of the type */
        kc.dst_shift = (size_t)ref_rng_range(&r, 0, 64 / (int64_t)align - 1) * align;
        kc.src_shift = (size_t)ref_rng_range(&r, 0, 64 / (int64_t)align - 1) * align;
        kc.large_dst = ref_rng_percent(&r, 50);
        /* Each side's leading dimension whole lines half the time (rows + pad
         * for A, cols + pad + src_pad for B), else any. */
        int64_t line = 64 / (int64_t)relay_type_size(kc.type);
        kc.pad = ref_rng_percent(&r, 50) ? (line - kc.rows % line) % line + line * ref_rng_range(&r, 0, 1) : ref_rng_range(&r, 0, 20);
        kc.src_pad = ref_rng_percent(&r, 50) ? (line - (kc.cols + kc.pad) % line) % line : ref_rng_range(&r, 0, 3);
        run_case(&kc);
    }
}

/* Runs check once per instruction set the CPU has (the portable C loops
 * included), each forced through the dispatch. */
static void for_each_isa(void (*check)(void))
{
    rl_isa before = rl_kernels_isa();
    for (int isa = 0; isa < RL_ISA_COUNT; isa++) {
        if (!rl_isa_supported((rl_isa)isa)) continue;
        assert_int_equal(rl_kernels_use((rl_isa)isa), RELAY_OK);
        assert_int_equal(rl_kernels_isa(), isa);
        check();
    }
    assert_int_equal(rl_kernels_use(before), RELAY_OK);
}

static void test_all_combinations(void **state)
{
    (void)state;
    for_each_isa(all_combinations);
}

static void test_strided_sides(void **state)
{
    (void)state;
    for_each_isa(strided_sides);
}

static void test_interiors(void **state)
{
    (void)state;
    for_each_isa(interiors);
}

static void test_streamed(void **state)
{
    (void)state;
    for_each_isa(streamed);
}

static void test_streamed_pieces(void **state)
{
    (void)state;
    for_each_isa(streamed_pieces);
}

/* Transposes whose buffers end where an inaccessible page begins, at
 * leading dimensions that are not whole lines (the squares then start at
 * the rectangle's corner, and the registers of its far edges reach past
 * its last element): a lane masked off that a load or store touched
 * would fault.  beta != 0 reads the destination too. */
static void flush_transposes(void)
{
    const int64_t shapes[][2] = {{16, 16}, {17, 23}, {40, 9}, {33, 70}};
    for (int type = 0; type < 4; type++)
        for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
            for (int ab = 0; ab < 2; ab++) {
                kernel_case kc = {.type = (relay_type)type, .op = RELAY_OP_T, .dst_order = RELAY_COL_MAJOR,
                                  .src_order = RELAY_COL_MAJOR, .rows = shapes[sh][0], .cols = shapes[sh][1], .pad = 1,
                                  .alpha = 2, .beta = ab ? -1 : 0, .src_pad = 2, .flush = 1};
                run_case(&kc);
            }
}

static void test_flush_transposes(void **state)
{
    (void)state;
    for_each_isa(flush_transposes);
}

static void test_random_transposes(void **state)
{
    (void)state;
    for_each_isa(random_transposes);
}

/* The C loops are always there; the best set is the default; a set that
 * does not exist is refused and changes nothing. */
static void test_isa_choice(void **state)
{
    (void)state;
    rl_isa best = rl_kernels_isa();
    assert_true(rl_isa_supported(RL_ISA_C));
    for (int isa = best + 1; isa < RL_ISA_COUNT; isa++) assert_false(rl_isa_supported((rl_isa)isa));
#if defined(__x86_64__)
    assert_true(rl_isa_supported(RL_ISA_SSE2));
#endif
    assert_int_equal(rl_kernels_use(RL_ISA_COUNT), RELAY_ERR_ARG);
    assert_int_equal(rl_kernels_isa(), best);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_isa_choice), cmocka_unit_test(test_all_combinations),
                                       cmocka_unit_test(test_strided_sides), cmocka_unit_test(test_interiors),
                                       cmocka_unit_test(test_streamed), cmocka_unit_test(test_streamed_pieces),
                                       cmocka_unit_test(test_random_transposes), cmocka_unit_test(test_flush_transposes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
