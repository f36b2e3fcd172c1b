/* kernels.c — run copies, cache-blocked transposes and strided moves
 * with alpha/beta fused, instantiated for the four element types.
 *
 * rl_move first normalises the problem so that, where it can, dst is
 * contiguous along i (the "row" index of the loops): element (i, j) of dst
 * sits at d[i + j*dld].  src then is either contiguous along i too
 * (s[i + j*sld], the runs kernel) or along j (s[j + i*sld], the transpose
 * kernel); a side contiguous along neither takes the strided kernel, the
 * transpose's tile loop over general strides.
 *
 * Runs and transposes go to the SIMD kernels of the instruction set in use
 * (kernels_simd.h): a transpose whole, in line squares on both sides'
 * cache lines where the leading dimensions allow, the squares its edges
 * cut moved in part; a run for what whole registers cover.  The C loops
 * here move the remainders of runs, transposes less than a line wide (or
 * two, off the lines: simd_transpose), strided moves, and everything when
 * no SIMD set is built in (other processors). */
#include <stdatomic.h>
#include <string.h>

#include "error.h"
#include "kernels.h"
#include "kernels_simd.h"

/* Blocking of the C loops: 64 x 64 tiles walked in 8 x 8 micro blocks.
 * Eight source lines per micro block fit the 8 ways of an L1 set even when
 * a power-of-two leading dimension maps them all to one set (32 x 32
 * tiles read directly thrash L1 at such strides; what these loops cost
 * beyond a memcpy is the destination's read-for-ownership). */
enum { TILE = 64, MICRO = 8 };

/* Real types conjugate to themselves. */
#define CONJ_REAL(x) (x)
#define CONJ_CF(x) conjf(x)
#define CONJ_CD(x) conj(x)

/* The element update, specialised on what alpha and beta allow. */
#define UPDATE(d, x, a, b, mode) \
    ((mode) == 0 ? (x) : (mode) == 1 ? (a) * (x) : (a) * (x) + (b) * (d))

/* Calls F(args..., mode, cj) with mode and cj as constants, so that each
 * inlined loop is a plain one. */
#define SPECIALISED(F, mode, cj, ...)                                  \
    do {                                                               \
        if (cj) {                                                      \
            if ((mode) == 0) F(__VA_ARGS__, 0, 1);                     \
            else if ((mode) == 1) F(__VA_ARGS__, 1, 1);                \
            else F(__VA_ARGS__, 2, 1);                                 \
        } else {                                                       \
            if ((mode) == 0) F(__VA_ARGS__, 0, 0);                     \
            else if ((mode) == 1) F(__VA_ARGS__, 1, 0);                \
            else F(__VA_ARGS__, 2, 0);                                 \
        }                                                              \
    } while (0)

#define DEFINE_KERNELS(SUF, T, CONJ)                                                              \
    static void runs_##SUF(T *d, int64_t dld, const T *s, int64_t sld, int64_t rows, int64_t cols, \
                           T a, T b, int mode, int cj)                                           \
    {                                                                                              \
        for (int64_t j = 0; j < cols; j++) {                                                       \
            T *dc = d + j * dld;                                                                   \
            const T *sc = s + j * sld;                                                             \
            if (cj)                                                                                \
                for (int64_t i = 0; i < rows; i++) dc[i] = UPDATE(dc[i], CONJ(sc[i]), a, b, mode); \
            else                                                                                   \
                for (int64_t i = 0; i < rows; i++) dc[i] = UPDATE(dc[i], sc[i], a, b, mode);       \
        }                                                                                          \
    }                                                                                              \
    /* One MICRO x MICRO block: few enough lines to stay in L1 even when a  \
     * power-of-two leading dimension maps them all to one set. */          \
    static inline void micro_##SUF(T *d, int64_t drs, int64_t dcs, const T *s, int64_t srs,        \
                                   int64_t scs, int64_t rows, int64_t cols, T a, T b, int mode,   \
                                   int cj)                                                        \
    {                                                                                              \
        for (int64_t j = 0; j < cols; j++)                                                         \
            for (int64_t i = 0; i < rows; i++) {                                                   \
                T x = cj ? CONJ(s[i * srs + j * scs]) : s[i * srs + j * scs];                      \
                d[i * drs + j * dcs] = UPDATE(d[i * drs + j * dcs], x, a, b, mode);                \
            }                                                                                      \
    }                                                                                              \
    static inline void tile_##SUF(T *d, int64_t drs, int64_t dcs, const T *s, int64_t srs,         \
                                  int64_t scs, int64_t rows, int64_t cols, T a, T b, int mode,    \
                                  int cj)                                                         \
    {                                                                                              \
        for (int64_t j0 = 0; j0 < cols; j0 += MICRO)                                               \
            for (int64_t i0 = 0; i0 < rows; i0 += MICRO) {                                         \
                T *dd = d + i0 * drs + j0 * dcs;                                                   \
                const T *ss = s + i0 * srs + j0 * scs;                                             \
                if (rows - i0 >= MICRO && cols - j0 >= MICRO)                                      \
                    micro_##SUF(dd, drs, dcs, ss, srs, scs, MICRO, MICRO, a, b, mode, cj);         \
                else                                                                               \
                    micro_##SUF(dd, drs, dcs, ss, srs, scs, rows - i0 < MICRO ? rows - i0 : MICRO, \
                                cols - j0 < MICRO ? cols - j0 : MICRO, a, b, mode, cj);            \
            }                                                                                      \
    }                                                                                              \
    static inline void blocked_##SUF(T *d, int64_t drs, int64_t dcs, const T *s, int64_t srs,      \
                                     int64_t scs, int64_t rows, int64_t cols, T a, T b, int mode, \
                                     int cj)                                                      \
    {                                                                                              \
        for (int64_t j0 = 0; j0 < cols; j0 += TILE)                                                \
            for (int64_t i0 = 0; i0 < rows; i0 += TILE)                                            \
                tile_##SUF(d + i0 * drs + j0 * dcs, drs, dcs, s + i0 * srs + j0 * scs, srs, scs,   \
                           rows - i0 < TILE ? rows - i0 : TILE, cols - j0 < TILE ? cols - j0 : TILE, \
                           a, b, mode, cj);                                                      \
    }                                                                                              \
    /* The transpose: unit strides down dst's columns and src's rows, as    \
     * constants the inlined loops are compiled for. */                     \
    static inline void transpose_as_##SUF(T *d, int64_t dld, const T *s, int64_t sld, int64_t rows, \
                                          int64_t cols, T a, T b, int mode, int cj)               \
    {                                                                                              \
        blocked_##SUF(d, 1, dld, s, sld, 1, rows, cols, a, b, mode, cj);                           \
    }                                                                                              \
    static void transpose_##SUF(T *d, int64_t dld, const T *s, int64_t sld, int64_t rows,          \
                                int64_t cols, T a, T b, int mode, int cj)                        \
    {                                                                                              \
        SPECIALISED(transpose_as_##SUF, mode, cj, d, dld, s, sld, rows, cols, a, b);               \
    }                                                                                              \
    static void strided_##SUF(T *d, int64_t drs, int64_t dcs, const T *s, int64_t srs, int64_t scs, \
                              int64_t rows, int64_t cols, T a, T b, int mode, int cj)            \
    {                                                                                              \
        SPECIALISED(blocked_##SUF, mode, cj, d, drs, dcs, s, srs, scs, rows, cols, a, b);          \
    }

DEFINE_KERNELS(f, float, CONJ_REAL)
DEFINE_KERNELS(d, double, CONJ_REAL)
DEFINE_KERNELS(cf, float complex, CONJ_CF)
DEFINE_KERNELS(cd, double complex, CONJ_CD)

void rl_scalars_set(rl_scalars *s, relay_type t, const void *alpha, const void *beta)
{
    memset(s, 0, sizeof *s);
    s->type = t;
    switch (t) {
    case RELAY_FLOAT:
        s->alpha.f = alpha ? *(const float *)alpha : 1.0f;
        s->beta.f = beta ? *(const float *)beta : 0.0f;
        s->alpha_one = s->alpha.f == 1.0f;
        s->beta_zero = s->beta.f == 0.0f;
        break;
    case RELAY_DOUBLE:
        s->alpha.d = alpha ? *(const double *)alpha : 1.0;
        s->beta.d = beta ? *(const double *)beta : 0.0;
        s->alpha_one = s->alpha.d == 1.0;
        s->beta_zero = s->beta.d == 0.0;
        break;
    case RELAY_CFLOAT:
        s->alpha.cf = alpha ? *(const float complex *)alpha : 1.0f;
        s->beta.cf = beta ? *(const float complex *)beta : 0.0f;
        s->alpha_one = s->alpha.cf == 1.0f;
        s->beta_zero = s->beta.cf == 0.0f;
        break;
    case RELAY_CDOUBLE:
        s->alpha.cd = alpha ? *(const double complex *)alpha : 1.0;
        s->beta.cd = beta ? *(const double complex *)beta : 0.0;
        s->alpha_one = s->alpha.cd == 1.0;
        s->beta_zero = s->beta.cd == 0.0;
        break;
    }
}

/* Whole-rectangle memcpy: both sides one contiguous run. */
static int one_run(int64_t rows, int64_t dld, int64_t sld, int64_t cols)
{
    return cols == 1 || (dld == rows && sld == rows);
}

/* Runs of a size known here, copied inline: a small piece's columns (an
 * 8 x 8 double piece's are 64 bytes; a move of one column of each of a
 * lattice's phases, columns_across_bands) cost a call of memcpy each
 * otherwise, which dominates copies of small blocks (a 2 x 2 copy from
 * 8 x 8 blocks to 128 x 128). */
#define COPY_FIXED_RUNS(BYTES)                                                              \
    case BYTES:                                                                             \
        for (int64_t j = 0; j < cols; j++) memcpy(d + (size_t)j * dstep, s + (size_t)j * sstep, BYTES); \
        return 1

static int copy_small_runs(char *d, size_t dstep, const char *s, size_t sstep, int64_t cols, size_t bytes)
{
    switch (bytes) {
        COPY_FIXED_RUNS(32);
        COPY_FIXED_RUNS(64);
        COPY_FIXED_RUNS(128);
    default: return 0;
    }
}
#undef COPY_FIXED_RUNS

/* Out of rl_move: inlined there, these loops slow the transposes' path,
 * which never takes them. */
__attribute__((noinline)) static void copy_runs(char *d, int64_t dld, const char *s, int64_t sld, int64_t rows, int64_t cols, size_t esz)
{
    if (one_run(rows, dld, sld, cols)) {
        memcpy(d, s, (size_t)(rows * cols) * esz);
        return;
    }
    size_t dstep = (size_t)dld * esz, sstep = (size_t)sld * esz, bytes = (size_t)rows * esz;
    if (copy_small_runs(d, dstep, s, sstep, cols, bytes)) return;
    for (int64_t j = 0; j < cols; j++) memcpy(d + (size_t)j * dstep, s + (size_t)j * sstep, bytes);
}

static void swap(int64_t *x, int64_t *y)
{
    int64_t t = *x;
    *x = *y;
    *y = t;
}

/* Makes i the dimension dst is contiguous along, where it is contiguous
 * along one; a single row becomes a single column first, so that a run is
 * never cut into runs of one element.  Strides along a dimension of one
 * element are never read. */
static void normalise(rl_side *dst, rl_side *src, int64_t *rows, int64_t *cols)
{
    int flip = *rows == 1 || (*cols > 1 && dst->rs != 1 && dst->cs == 1);
    if (!flip) return;
    swap(rows, cols);
    swap(&dst->rs, &dst->cs);
    swap(&src->rs, &src->cs);
}

/* The kernel for the normalised problem. */
typedef enum { KERNEL_RUNS, KERNEL_TRANSPOSE, KERNEL_STRIDED } kernel;

static kernel kernel_for(rl_side dst, rl_side src, int64_t rows, int64_t cols)
{
    int dst_i = dst.rs == 1 || rows == 1, src_i = src.rs == 1 || rows == 1, src_j = src.cs == 1 || cols == 1;
    if (dst_i && src_i) return KERNEL_RUNS;
    return dst_i && src_j ? KERNEL_TRANSPOSE : KERNEL_STRIDED;
}

#define DISPATCH(SUF, FIELD, T)                                                                         \
    do {                                                                                                \
        T *dd = dst.base;                                                                               \
        const T *ss = src.base;                                                                         \
        T a = sc->alpha.FIELD, b = sc->beta.FIELD;                                                      \
        if (k == KERNEL_RUNS) runs_##SUF(dd, dst.cs, ss, src.cs, rows, cols, a, b, mode, cj);            \
        else if (k == KERNEL_TRANSPOSE) transpose_##SUF(dd, dst.cs, ss, src.rs, rows, cols, a, b, mode, cj); \
        else strided_##SUF(dd, dst.rs, dst.cs, ss, src.rs, src.cs, rows, cols, a, b, mode, cj);           \
    } while (0)

/* The C loops over a normalised problem. */
static void c_move(const rl_update *u, kernel k, rl_side dst, rl_side src, int64_t rows, int64_t cols)
{
    const rl_scalars *sc = u->sc;
    int mode = u->mode, cj = u->conj;
    if (rows <= 0 || cols <= 0) return;
    switch (sc->type) {
    case RELAY_FLOAT: DISPATCH(f, f, float); break;
    case RELAY_DOUBLE: DISPATCH(d, d, double); break;
    case RELAY_CFLOAT: DISPATCH(cf, cf, float complex); break;
    case RELAY_CDOUBLE: DISPATCH(cd, cd, double complex); break;
    }
}

/* ---- the instruction set in use --------------------------------------- */

#if defined(__x86_64__) || defined(__i386__)
static const rl_simd_set *const simd_sets[RL_ISA_COUNT] = {NULL, &rl_simd_sse2, &rl_simd_avx2, &rl_simd_avx512};

static int cpu_has(rl_isa isa)
{
    __builtin_cpu_init();
    switch (isa) {
    case RL_ISA_SSE2: return __builtin_cpu_supports("sse2");
    case RL_ISA_AVX2: return __builtin_cpu_supports("avx2");
    case RL_ISA_AVX512: return __builtin_cpu_supports("avx512f");
    default: return isa == RL_ISA_C;
    }
}
#else
static const rl_simd_set *const simd_sets[RL_ISA_COUNT] = {NULL};
static int cpu_has(rl_isa isa) { return isa == RL_ISA_C; }
#endif

int rl_isa_supported(rl_isa isa) { return isa >= RL_ISA_C && isa < RL_ISA_COUNT && cpu_has(isa); }

const char *rl_isa_name(rl_isa isa)
{
    static const char *const names[RL_ISA_COUNT] = {"c", "sse2", "avx2", "avx512"};
    return isa >= RL_ISA_C && isa < RL_ISA_COUNT ? names[isa] : "unknown";
}

/* -1 until the first move (or rl_kernels_use) sets it; threads that race
 * to set it set the same value. */
static atomic_int isa_in_use = -1;

static rl_isa best_isa(void)
{
    for (int isa = RL_ISA_COUNT - 1; isa > RL_ISA_C; isa--)
        if (cpu_has((rl_isa)isa)) return (rl_isa)isa;
    return RL_ISA_C;
}

rl_isa rl_kernels_isa(void)
{
    int isa = atomic_load_explicit(&isa_in_use, memory_order_relaxed);
    if (isa < 0) {
        isa = (int)best_isa();
        atomic_store_explicit(&isa_in_use, isa, memory_order_relaxed);
    }
    return (rl_isa)isa;
}

relay_status rl_kernels_use(rl_isa isa)
{
    if (!rl_isa_supported(isa)) return rl_fail(RELAY_ERR_ARG, "instruction set %s is not available here", rl_isa_name(isa));
    atomic_store_explicit(&isa_in_use, (int)isa, memory_order_relaxed);
    return RELAY_OK;
}

/* ---- SIMD kernels, C remainders ---------------------------------------- */

/* Element (i, j) of a side. */
static rl_side side_at(rl_side s, int64_t i, int64_t j, size_t esz)
{
    s.base = (char *)s.base + (size_t)(i * s.rs + j * s.cs) * esz;
    return s;
}

/* Where a side runs along a dimension with lines ld elements apart: the
 * elements of its first cache line before its start, if its lines all
 * start as far into a cache line (ld a whole number of lines); else 0, as
 * if it started on one. */
static int64_t lead_of(const void *base, int64_t ld, size_t esz)
{
    uintptr_t addr = (uintptr_t)base;
    if (addr % esz || (ld * (int64_t)esz) % RL_LINE_BYTES) return 0;
    return (int64_t)(addr % RL_LINE_BYTES / esz);
}

/* Streaming stores bypass the caches: possible where dst's lines are
 * aligned, worth it for a destination written once (mode 2 reads it) that
 * is larger than the caches: here the kernel sees only a rectangle, so it
 * takes a rectangle whose columns span STREAM_SPAN_BYTES or more of dst
 * as part of a large matrix (an n = 4000 double matrix's tiles span
 * 5.8 MB), or one its caller says is (large_dst: an N-D transfer's planes,
 * each 1-2 MB of a pencil of hundreds; a transform's pieces of A): the
 * lines such a destination would evict are lines the move reads next.
 * Below STREAM_MIN_BYTES a fence of the move's own is not
 * worth it; a caller's deferred fence (defer_fence) is shared by all its
 * moves, so that small pieces stream too (their whole line squares, where
 * dst's leading dimension is whole lines). */
enum { STREAM_SPAN_BYTES = 4 << 20, STREAM_MIN_BYTES = 16 << 10 };

static int worth_streaming(const rl_update *u, int64_t dld, int64_t rows, int64_t cols, size_t esz)
{
    int64_t bytes = rows * cols * (int64_t)esz, span = (cols - 1) * dld * (int64_t)esz + rows * (int64_t)esz;
    int fence_paid = u->sc->defer_fence || bytes >= STREAM_MIN_BYTES;
    return u->mode != 2 && fence_paid && (span >= STREAM_SPAN_BYTES || u->sc->large_dst);
}

/* Only the SIMD kernels stream, and they run only where the CPU has SSE2,
 * which has sfence. */
void rl_stream_fence(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("sfence" ::: "memory");
#endif
}

/* The transpose: line squares on both sides' cache lines, the edges'
 * squares in part (kernels_simd_template.h).  Pieces less than a line
 * wide stay with the C loops, and so do pieces less than two lines wide
 * off the lines (partial squares cost more there than the C loops,
 * docs/benchmarks.md). */
static void simd_transpose(const rl_simd_set *set, const rl_update *u, rl_side dst, rl_side src, int64_t rows,
                           int64_t cols)
{
    size_t esz = relay_type_size(u->sc->type);
    int64_t line = RL_LINE_BYTES / (int64_t)esz;
    int64_t lead_i = lead_of(dst.base, dst.cs, esz), lead_j = lead_of(src.base, src.rs, esz);
    int64_t least = lead_i || lead_j ? 2 * line : line;
    if (rows < least || cols < least) {
        c_move(u, KERNEL_TRANSPOSE, dst, src, rows, cols);
        return;
    }
    int dst_on_lines = (uintptr_t)dst.base % esz == 0 && (dst.cs * (int64_t)esz) % RL_LINE_BYTES == 0;
    rl_update inner = *u;
    inner.stream = dst_on_lines && worth_streaming(u, dst.cs, rows, cols, esz);
    set->transpose[u->sc->type](dst.base, dst.cs, src.base, src.rs, rows, cols, lead_i, lead_j, &inner);
    if (inner.stream && !u->sc->defer_fence) rl_stream_fence();
}

/* Runs: whole registers down each column, the rest of each with C. */
static void simd_runs(const rl_simd_set *set, const rl_update *u, rl_side dst, rl_side src, int64_t rows, int64_t cols)
{
    size_t esz = relay_type_size(u->sc->type);
    int64_t done = set->runs[u->sc->type](dst.base, dst.cs, src.base, src.cs, rows, cols, u);
    c_move(u, KERNEL_RUNS, side_at(dst, done, 0, esz), side_at(src, done, 0, esz), rows - done, cols);
}

void rl_move(const rl_scalars *sc, int cj, rl_side dst, rl_side src, int64_t rows, int64_t cols)
{
    if (rows <= 0 || cols <= 0) return;
    normalise(&dst, &src, &rows, &cols);
    kernel k = kernel_for(dst, src, rows, cols);
    int is_complex = sc->type == RELAY_CFLOAT || sc->type == RELAY_CDOUBLE;
    rl_update u = {sc, sc->beta_zero ? (sc->alpha_one ? 0 : 1) : 2, cj && is_complex, 0};
    if (u.mode == 0 && !u.conj && k == KERNEL_RUNS) {
        copy_runs(dst.base, dst.cs, src.base, src.cs, rows, cols, relay_type_size(sc->type));
        return;
    }
    const rl_simd_set *set = simd_sets[rl_kernels_isa()];
    if (set && k == KERNEL_TRANSPOSE) simd_transpose(set, &u, dst, src, rows, cols);
    else if (set && k == KERNEL_RUNS) simd_runs(set, &u, dst, src, rows, cols);
    else c_move(&u, k, dst, src, rows, cols);
}

void rl_copy(relay_type t, rl_side dst, rl_side src, int64_t rows, int64_t cols)
{
    rl_scalars one;
    rl_scalars_set(&one, t, NULL, NULL);
    rl_move(&one, 0, dst, src, rows, cols);
}
