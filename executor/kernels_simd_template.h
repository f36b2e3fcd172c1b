/* kernels_simd_template.h — the SIMD kernels (kernels_simd.h), written
 * once for any register width.  Each of kernels_sse2.c, kernels_avx2.c and
 * kernels_avx512.c includes it after defining its own few primitives:
 *   SIMD_BYTES          register width in bytes (16, 32 or 64)
 *   SIMD_SET            the name of the rl_simd_set to define
 *   vf, vd, vi          registers of floats, doubles and 64-bit integers
 *   swap_blocks(a, b, l)  exchanges the blocks of l 32-bit lanes that a
 *                       transpose exchanges: with (p & l) == 0, lane p + l of
 *                       a and lane p of b trade places
 *   swap_pairs_f(x), swap_pairs_d(x)  swaps lanes 2k and 2k+1 (real and
 *                       imaginary parts)
 *   stream_store(p, x)  a non-temporal store to an aligned address
 *   load_part(p, lo, hi), store_part(p, x, lo, hi)  only bytes [lo, hi)
 *                       (multiples of 4, lo < hi) of the register at
 *                       address p: the rest loads as zeros, is not stored,
 *                       and is not touched.
 *
 * The transpose's unit is a line square: one cache line of source by one
 * cache line of destination (8 x 8 doubles, 16 x 16 floats, 4 x 4 complex
 * doubles).  It is loaded as squares of registers, each transposed in
 * registers by swapping blocks of half, a quarter, ... of a register (the
 * exchange of bit b of the row index with bit b of the column index, for
 * every b), updated (alpha, beta, conjugation) and stored, so that every
 * line on both sides is read or written whole, at once (where the squares
 * lie on both sides' lines: leading dimensions of whole lines, kernels.c),
 * and no line has to stay in cache for a later square.  (A power-of-two
 * leading dimension still costs some: a square's source lines then share
 * one L1 set, so a 4096^2 double transpose is slower than a 4000^2 one;
 * floats, 16 lines a square in a 12-way L1, more so.)
 * Line squares are walked in tiles of TILE_BYTES x TILE_BYTES, which keep
 * the pages a tile touches few.
 * The squares lie on both sides' cache lines wherever the rectangle
 * starts, if its leading dimensions are whole lines: a rectangle whose
 * first line begins lead elements past a cache line (malloc's large
 * blocks start 16 bytes past one) is covered by squares from lead
 * elements before it, and a square the rectangle's edge cuts moves only
 * the part inside, through load_part and store_part: no line is read or
 * written twice, and no element outside the rectangle is touched.
 * (Squares from the rectangle's corner would read and write every line
 * across two cache lines, which with AVX-512, whose registers are lines,
 * costs a small piece several times the aligned squares' time.) */
#include <string.h>

#include "kernels_simd.h"

enum { TILE_BYTES = 512 };

/* The hot path inlined whatever the optimiser thinks: the mode, streaming
 * and the register counts must be constants in the loops. */
#define HOT static inline __attribute__((always_inline))

HOT vf load(const char *p)
{
    vf v;
    memcpy(&v, p, sizeof v);
    return v;
}

HOT void store(char *p, vf v) { memcpy(p, &v, sizeof v); }

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Transposes the k x k elements of esz bytes (k = SIMD_BYTES / esz) held
 * in x[0..k-1], row r in x[r]. */
HOT void transpose_square(vf *x, int esz)
{
    const int k = SIMD_BYTES / esz, lanes_per_elem = esz / 4;
#pragma GCC unroll 4
    for (int h = k / 2; h >= 1; h /= 2)
#pragma GCC unroll 16
        for (int r = 0; r < k; r++)
            if (!(r & h)) swap_blocks(&x[r], &x[r + h], h * lanes_per_elem);
}

/* The update's constants, one register each: the conjugation's sign flip
 * (zero when not conjugating), and alpha and beta as re and im registers,
 * so that alpha * x = a_re * x + a_im * swap_pairs(x) for complex x. */
typedef struct {
    vi flip;
    vf a_re, a_im, b_re, b_im;
} factors;

/* A register of n values v[k % 2] (float or double bit patterns). */
static inline vf repeat_f(float even, float odd)
{
    float v[SIMD_BYTES / 4];
    for (int k = 0; k < SIMD_BYTES / 4; k++) v[k] = k % 2 ? odd : even;
    return load((const char *)v);
}

static inline vf repeat_d(double even, double odd)
{
    double v[SIMD_BYTES / 8];
    for (int k = 0; k < SIMD_BYTES / 8; k++) v[k] = k % 2 ? odd : even;
    return load((const char *)v);
}

/* The sign bit of each imaginary part: of 32-bit lanes 1, 3, ... (complex
 * float) or 64-bit lanes 1, 3, ... (complex double). */
static inline vi sign_flip(int esz)
{
    uint64_t v[SIMD_BYTES / 8];
    for (int k = 0; k < SIMD_BYTES / 8; k++) v[k] = esz == 8 || k % 2 ? UINT64_C(1) << 63 : 0;
    vi r;
    memcpy(&r, v, sizeof r);
    return r;
}

static factors factors_of(const rl_update *u, relay_type t)
{
    factors f;
    const rl_scalars *sc = u->sc;
    memset(&f, 0, sizeof f);
    switch (t) {
    case RELAY_FLOAT:
        f.a_re = repeat_f(sc->alpha.f, sc->alpha.f);
        f.b_re = repeat_f(sc->beta.f, sc->beta.f);
        break;
    case RELAY_DOUBLE:
        f.a_re = repeat_d(sc->alpha.d, sc->alpha.d);
        f.b_re = repeat_d(sc->beta.d, sc->beta.d);
        break;
    case RELAY_CFLOAT:
        f.a_re = repeat_f(crealf(sc->alpha.cf), crealf(sc->alpha.cf));
        f.a_im = repeat_f(-cimagf(sc->alpha.cf), cimagf(sc->alpha.cf));
        f.b_re = repeat_f(crealf(sc->beta.cf), crealf(sc->beta.cf));
        f.b_im = repeat_f(-cimagf(sc->beta.cf), cimagf(sc->beta.cf));
        break;
    case RELAY_CDOUBLE:
        f.a_re = repeat_d(creal(sc->alpha.cd), creal(sc->alpha.cd));
        f.a_im = repeat_d(-cimag(sc->alpha.cd), cimag(sc->alpha.cd));
        f.b_re = repeat_d(creal(sc->beta.cd), creal(sc->beta.cd));
        f.b_im = repeat_d(-cimag(sc->beta.cd), cimag(sc->beta.cd));
        break;
    }
    if (u->conj && (t == RELAY_CFLOAT || t == RELAY_CDOUBLE)) f.flip = sign_flip(t == RELAY_CFLOAT ? 8 : 16);
    return f;
}

/* c * x for a constant c held as (re, im); the same operations, in the
 * same order, as C's scalar products, so that results agree bit for bit. */
HOT vf scale(relay_type t, vf re, vf im, vf x)
{
    switch (t) {
    case RELAY_FLOAT: return re * x;
    case RELAY_DOUBLE: return (vf)((vd)re * (vd)x);
    case RELAY_CFLOAT: return re * x + im * swap_pairs_f(x);
    case RELAY_CDOUBLE: return (vf)((vd)re * (vd)x + (vd)im * swap_pairs_d((vd)x));
    }
    return x;
}

HOT vf add(relay_type t, vf x, vf y)
{
    if (t == RELAY_DOUBLE || t == RELAY_CDOUBLE) return (vf)((vd)x + (vd)y);
    return x + y;
}

/* The new value of the register of dst at p, x from the source. */
HOT vf update(relay_type t, vf x, const char *p, const factors *f, int mode)
{
    x = (vf)((vi)x ^ f->flip);
    if (mode == 0) return x;
    vf y = scale(t, f->a_re, f->a_im, x);
    return mode == 1 ? y : add(t, y, scale(t, f->b_re, f->b_im, load(p)));
}

HOT void put(char *p, vf x, int stream)
{
    if (stream) stream_store(p, x);
    else store(p, x);
}

/* One line square: dst column c (bytes dld apart) from source row c
 * (bytes sld apart), register square by register square. */
HOT void line_square(relay_type t, int esz, char *d, int64_t dld, const char *s, int64_t sld,
                               const factors *f, int mode, int stream)
{
    const int k = SIMD_BYTES / esz, line = RL_LINE_BYTES / esz;
#pragma GCC unroll 16
    for (int bj = 0; bj < line; bj += k)
#pragma GCC unroll 16
        for (int bi = 0; bi < line; bi += k) {
            vf x[SIMD_BYTES / 4];
#pragma GCC unroll 16
            for (int r = 0; r < k; r++) x[r] = load(s + (bi + r) * sld + bj * esz);
            transpose_square(x, esz);
#pragma GCC unroll 16
            for (int c = 0; c < k; c++) {
                char *p = d + (bj + c) * dld + bi * esz;
                put(p, update(t, x[c], p, f, mode), stream);
            }
        }
}

/* The register whose byte lo is at first (an element inside the
 * rectangle): its start may lie before the buffer, so it is reached
 * through an integer, and only its lanes from lo on are touched. */
static inline uintptr_t register_at(const char *first, int lo) { return (uintptr_t)first - (uintptr_t)lo; }

/* The part of line square (i, j) (its first row and column in the
 * rectangle's coordinates, negative before it) inside the rectangle at d
 * and s: rows [ilo, ihi) and columns [jlo, jhi) of it, register square by
 * register square.  Each register is loaded or stored only in the lanes
 * inside, registers wholly outside not at all; never streamed. */
HOT void line_square_part(relay_type t, int esz, char *d, int64_t dld, const char *s, int64_t sld, int64_t i,
                          int64_t j, const factors *f, int mode, int ilo, int ihi, int jlo, int jhi)
{
    const int k = SIMD_BYTES / esz, line = RL_LINE_BYTES / esz;
#pragma GCC unroll 16
    for (int bj = 0; bj < line; bj += k)
#pragma GCC unroll 16
        for (int bi = 0; bi < line; bi += k) {
            int il = ilo > bi ? ilo - bi : 0, ih = ihi - bi < k ? ihi - bi : k;
            int jl = jlo > bj ? jlo - bj : 0, jh = jhi - bj < k ? jhi - bj : k;
            if (il >= ih || jl >= jh) continue;
            vf x[SIMD_BYTES / 4];
#pragma GCC unroll 16
            for (int r = 0; r < k; r++) {
                x[r] = (vf){0};
                if (r >= il && r < ih)
                    x[r] = load_part(register_at(s + (i + bi + r) * sld + (j + bj + jl) * esz, jl * esz), jl * esz, jh * esz);
            }
            transpose_square(x, esz);
#pragma GCC unroll 16
            for (int c = jl; c < jh; c++) {
                uintptr_t p = register_at(d + (j + bj + c) * dld + (i + bi + il) * esz, il * esz);
                vf old = mode == 2 ? load_part(p, il * esz, ih * esz) : x[c];
                store_part(p, update(t, x[c], (const char *)&old, f, mode), il * esz, ih * esz);
            }
        }
}

/* The whole line squares in tiles (leading dimensions in bytes): along a
 * tile's source rows first, so that a source line a line square reads
 * only in part is read again at once. */
HOT void transpose_tiles(relay_type t, int esz, char *d, int64_t dld, const char *s, int64_t sld,
                                   int64_t rows, int64_t cols, const factors *f, int mode, int stream)
{
    const int64_t line = RL_LINE_BYTES / esz, tile = TILE_BYTES / esz;
    for (int64_t j0 = 0; j0 < cols; j0 += tile)
        for (int64_t i0 = 0; i0 < rows; i0 += tile)
            for (int64_t i = i0; i < min64(i0 + tile, rows); i += line)
                for (int64_t j = j0; j < min64(j0 + tile, cols); j += line)
                    line_square(t, esz, d + i * esz + j * dld, dld, s + j * esz + i * sld, sld, f, mode, stream);
}

/* Square (i, j) of the grid (its first row and column, from -lead) in
 * part: what of it lies inside rows x cols. */
HOT void square_in_part(relay_type t, int esz, char *d, int64_t dld, const char *s, int64_t sld, int64_t rows,
                        int64_t cols, int64_t i, int64_t j, const factors *f, int mode)
{
    const int64_t line = RL_LINE_BYTES / esz;
    line_square_part(t, esz, d, dld, s, sld, i, j, f, mode, (int)(i < 0 ? -i : 0), (int)min64(line, rows - i),
                     (int)(j < 0 ? -j : 0), (int)min64(line, cols - j));
}

/* The transpose of rows x cols (at least a line each) whose squares start
 * lead_i rows and lead_j columns before it: the whole squares, rows
 * [i0, i1) and columns [j0, j1), in tiles; then the squares the edges
 * cut, band by band (no line belongs to two squares, so none is read or
 * written twice). */
HOT void transpose_edged(relay_type t, int esz, char *d, int64_t dld, const char *s, int64_t sld, int64_t rows,
                         int64_t cols, int64_t lead_i, int64_t lead_j, const factors *f, int mode, int stream)
{
    const int64_t line = RL_LINE_BYTES / esz;
    int64_t i0 = (line - lead_i) % line, i1 = i0 + (rows - i0) / line * line;
    int64_t j0 = (line - lead_j) % line, j1 = j0 + (cols - j0) / line * line;
    transpose_tiles(t, esz, d + i0 * esz + j0 * dld, dld, s + j0 * esz + i0 * sld, sld, i1 - i0, j1 - j0, f, mode,
                    stream);
    for (int64_t i = -lead_i; i < rows; i += line) {
        if (i >= i0 && i < i1) {
            if (j0 > 0) square_in_part(t, esz, d, dld, s, sld, rows, cols, i, -lead_j, f, mode);
            if (j1 < cols) square_in_part(t, esz, d, dld, s, sld, rows, cols, i, j1, f, mode);
        } else {
            for (int64_t j = -lead_j; j < cols; j += line) square_in_part(t, esz, d, dld, s, sld, rows, cols, i, j, f, mode);
        }
    }
}

/* Runs: each column's whole registers. */
HOT void runs_of(relay_type t, int esz, char *d, int64_t dld, const char *s, int64_t sld, int64_t rows,
                           int64_t cols, const factors *f, int mode)
{
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows * esz; i += SIMD_BYTES) {
            char *p = d + j * dld + i;
            store(p, update(t, load(s + j * sld + i), p, f, mode));
        }
}

/* Each type's kernels, with the mode and streaming as constants. */
#define SIMD_KERNELS(SUF, TYPE, ESZ)                                                                          \
    static void transpose_##SUF(void *d, int64_t dld, const void *s, int64_t sld, int64_t rows, int64_t cols, \
                                int64_t li, int64_t lj, const rl_update *u)                              \
    {                                                                                                     \
        factors f = factors_of(u, TYPE);                                                                  \
        char *dd = d;                                                                                     \
        const char *ss = s;                                                                               \
        int64_t db = dld * ESZ, sb = sld * ESZ;                                                           \
        if (u->mode == 2) transpose_edged(TYPE, ESZ, dd, db, ss, sb, rows, cols, li, lj, &f, 2, 0);      \
        else if (u->mode == 1 && u->stream) transpose_edged(TYPE, ESZ, dd, db, ss, sb, rows, cols, li, lj, &f, 1, 1); \
        else if (u->mode == 1) transpose_edged(TYPE, ESZ, dd, db, ss, sb, rows, cols, li, lj, &f, 1, 0); \
        else if (u->stream) transpose_edged(TYPE, ESZ, dd, db, ss, sb, rows, cols, li, lj, &f, 0, 1);    \
        else transpose_edged(TYPE, ESZ, dd, db, ss, sb, rows, cols, li, lj, &f, 0, 0);                   \
    }                                                                                                     \
    static int64_t runs_##SUF(void *d, int64_t dld, const void *s, int64_t sld, int64_t rows, int64_t cols,  \
                              const rl_update *u)                                                        \
    {                                                                                                     \
        factors f = factors_of(u, TYPE);                                                                  \
        int64_t whole = rows - rows % (SIMD_BYTES / ESZ), db = dld * ESZ, sb = sld * ESZ;                 \
        if (u->mode == 2) runs_of(TYPE, ESZ, d, db, s, sb, whole, cols, &f, 2);                           \
        else if (u->mode == 1) runs_of(TYPE, ESZ, d, db, s, sb, whole, cols, &f, 1);                      \
        else runs_of(TYPE, ESZ, d, db, s, sb, whole, cols, &f, 0);                                        \
        return whole;                                                                                     \
    }

SIMD_KERNELS(f, RELAY_FLOAT, 4)
SIMD_KERNELS(d, RELAY_DOUBLE, 8)
SIMD_KERNELS(cf, RELAY_CFLOAT, 8)
SIMD_KERNELS(cd, RELAY_CDOUBLE, 16)

const rl_simd_set SIMD_SET = {{transpose_f, transpose_d, transpose_cf, transpose_cd}, {runs_f, runs_d, runs_cf, runs_cd}};
