/* kernels.c — strided copy and cache-blocked transpose with alpha/beta
 * fused, instantiated for the four element types.
 *
 * rl_move first normalises the problem so that dst is contiguous along i
 * (the "row" index of the loops): element (i, j) of dst sits at d[i + j*dld].
 * src then is either contiguous along i too (s[i + j*sld], the runs
 * kernel) or along j (s[j + i*sld], the transpose kernel). */
#include <string.h>

#include "kernels.h"

/* Transpose blocking: 64 x 64 tiles walked in 8 x 8 micro blocks.  Eight
 * source lines per micro block fit the 8 ways of an L1 set even when a
 * power-of-two leading dimension maps them all to one set (with 32 x 32
 * tiles read directly, such strides thrashed L1 and cost 4-5x memcpy;
 * measured now about 2.5x on 2048^2..8192^2 doubles, where the extra is the
 * destination's read-for-ownership). */
enum { TILE = 64, MICRO = 8 };

/* Real types conjugate to themselves. */
#define CONJ_REAL(x) (x)
#define CONJ_CF(x) conjf(x)
#define CONJ_CD(x) conj(x)

/* The element update, specialised on what alpha and beta allow. */
#define UPDATE(d, x, a, b, mode) \
    ((mode) == 0 ? (x) : (mode) == 1 ? (a) * (x) : (a) * (x) + (b) * (d))

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
    /* One MICRO x MICRO block: few enough source lines to stay in L1 even  \
     * when a power-of-two leading dimension maps them all to one set. */   \
    static inline void micro_##SUF(T *d, int64_t dld, const T *s, int64_t sld, int64_t rows,        \
                                   int64_t cols, T a, T b, int mode, int cj)                      \
    {                                                                                              \
        for (int64_t j = 0; j < cols; j++)                                                         \
            for (int64_t i = 0; i < rows; i++) {                                                   \
                T x = cj ? CONJ(s[j + i * sld]) : s[j + i * sld];                                  \
                d[i + j * dld] = UPDATE(d[i + j * dld], x, a, b, mode);                            \
            }                                                                                      \
    }                                                                                              \
    static inline void tile_##SUF(T *d, int64_t dld, const T *s, int64_t sld, int64_t rows,        \
                                  int64_t cols, T a, T b, int mode, int cj)                       \
    {                                                                                              \
        for (int64_t j0 = 0; j0 < cols; j0 += MICRO)                                               \
            for (int64_t i0 = 0; i0 < rows; i0 += MICRO) {                                         \
                T *dd = d + i0 + j0 * dld;                                                         \
                const T *ss = s + j0 + i0 * sld;                                                   \
                if (rows - i0 >= MICRO && cols - j0 >= MICRO)                                      \
                    micro_##SUF(dd, dld, ss, sld, MICRO, MICRO, a, b, mode, cj);                   \
                else                                                                               \
                    micro_##SUF(dd, dld, ss, sld, rows - i0 < MICRO ? rows - i0 : MICRO,           \
                                cols - j0 < MICRO ? cols - j0 : MICRO, a, b, mode, cj);            \
            }                                                                                      \
    }                                                                                              \
    static inline void transpose_as_##SUF(T *d, int64_t dld, const T *s, int64_t sld, int64_t rows, \
                                          int64_t cols, T a, T b, int mode, int cj)               \
    {                                                                                              \
        for (int64_t j0 = 0; j0 < cols; j0 += TILE)                                                \
            for (int64_t i0 = 0; i0 < rows; i0 += TILE)                                            \
                tile_##SUF(d + i0 + j0 * dld, dld, s + j0 + i0 * sld, sld,                         \
                           rows - i0 < TILE ? rows - i0 : TILE, cols - j0 < TILE ? cols - j0 : TILE, \
                           a, b, mode, cj);                                                      \
    }                                                                                              \
    /* Specialised on mode and conjugation, so that each loop is a plain one. */                  \
    static void transpose_##SUF(T *d, int64_t dld, const T *s, int64_t sld, int64_t rows,          \
                                int64_t cols, T a, T b, int mode, int cj)                        \
    {                                                                                              \
        if (cj) {                                                                                  \
            if (mode == 0) transpose_as_##SUF(d, dld, s, sld, rows, cols, a, b, 0, 1);             \
            else if (mode == 1) transpose_as_##SUF(d, dld, s, sld, rows, cols, a, b, 1, 1);        \
            else transpose_as_##SUF(d, dld, s, sld, rows, cols, a, b, 2, 1);                       \
        } else {                                                                                   \
            if (mode == 0) transpose_as_##SUF(d, dld, s, sld, rows, cols, a, b, 0, 0);             \
            else if (mode == 1) transpose_as_##SUF(d, dld, s, sld, rows, cols, a, b, 1, 0);        \
            else transpose_as_##SUF(d, dld, s, sld, rows, cols, a, b, 2, 0);                       \
        }                                                                                          \
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

/* Strides of a side in dst coordinates: element (i, j) at i*rs + j*cs. */
static void strides(rl_side sd, int64_t *rs, int64_t *cs)
{
    int64_t r = sd.order == RELAY_COL_MAJOR ? 1 : sd.ld, c = sd.order == RELAY_COL_MAJOR ? sd.ld : 1;
    *rs = sd.transposed ? c : r;
    *cs = sd.transposed ? r : c;
}

/* Whole-rectangle memcpy: both sides one contiguous run. */
static int one_run(int64_t rows, int64_t dld, int64_t sld, int64_t cols)
{
    return cols == 1 || (dld == rows && sld == rows);
}

static void copy_runs(char *d, int64_t dld, const char *s, int64_t sld, int64_t rows, int64_t cols, size_t esz)
{
    if (one_run(rows, dld, sld, cols)) {
        memcpy(d, s, (size_t)(rows * cols) * esz);
        return;
    }
    for (int64_t j = 0; j < cols; j++) memcpy(d + (size_t)(j * dld) * esz, s + (size_t)(j * sld) * esz, (size_t)rows * esz);
}

#define DISPATCH(SUF, FIELD, T)                                                                     \
    do {                                                                                            \
        T *dd = dp;                                                                                 \
        const T *ss = sp;                                                                           \
        if (src_runs) runs_##SUF(dd, dld, ss, sld, rows, cols, sc->alpha.FIELD, sc->beta.FIELD, mode, cj); \
        else transpose_##SUF(dd, dld, ss, sld, rows, cols, sc->alpha.FIELD, sc->beta.FIELD, mode, cj);    \
    } while (0)

void rl_move(const rl_scalars *sc, int cj, rl_side dst, rl_side src, int64_t rows, int64_t cols)
{
    if (rows <= 0 || cols <= 0) return;
    int64_t drs, dcs, srs, scs;
    strides(dst, &drs, &dcs);
    strides(src, &srs, &scs);
    if (drs != 1 || (dcs == 1 && srs != 1)) { /* make dst contiguous along i */
        int64_t t = rows; rows = cols; cols = t;
        t = drs; drs = dcs; dcs = t;
        t = srs; srs = scs; scs = t;
    }
    int src_runs = srs == 1;
    int64_t dld = dcs, sld = src_runs ? scs : srs;
    int is_complex = sc->type == RELAY_CFLOAT || sc->type == RELAY_CDOUBLE;
    cj = cj && is_complex;
    int mode = sc->beta_zero ? (sc->alpha_one ? 0 : 1) : 2;
    void *dp = dst.base;
    const void *sp = src.base;
    if (mode == 0 && !cj && src_runs) {
        copy_runs(dp, dld, sp, sld, rows, cols, relay_type_size(sc->type));
        return;
    }
    switch (sc->type) {
    case RELAY_FLOAT: DISPATCH(f, f, float); break;
    case RELAY_DOUBLE: DISPATCH(d, d, double); break;
    case RELAY_CFLOAT: DISPATCH(cf, cf, float complex); break;
    case RELAY_CDOUBLE: DISPATCH(cd, cd, double complex); break;
    }
}

void rl_copy(relay_type t, rl_side dst, rl_side src, int64_t rows, int64_t cols)
{
    rl_scalars one;
    rl_scalars_set(&one, t, NULL, NULL);
    rl_move(&one, 0, dst, src, rows, cols);
}
