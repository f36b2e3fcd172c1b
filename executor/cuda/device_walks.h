/* device_walks.h — a message set's walks (transform.h) as the device
 * kernels read them, and the index arithmetic of one element, in plain C
 * that compiles for the host and, under nvcc, for the device: the kernels
 * (device_kernels.cu) and the host tests (tests/test_device_walks.c) run
 * the same lines.
 *
 * A walk's elements form V, count_r * rows x count_c * cols elements (its
 * bands side by side, as in A); element (vr, vc) of V is element
 * (vr % rows, vc % cols) of band (vr / rows, vc / cols).  The kernels cut each
 * V into RL_DEV_TILE x RL_DEV_TILE tiles, numbered across the whole set,
 * so that one launch moves every lattice of a phase whatever the sizes of
 * its pieces: a tile may span many small bands, or be part of one large
 * band.  A tile goes through shared memory, read along the source side's
 * contiguous dimension and written along the destination's, so a
 * transpose reads and writes whole lines. */
#ifndef RELAY_DEVICE_WALKS_H
#define RELAY_DEVICE_WALKS_H

#include <stdint.h>

#ifdef __CUDACC__
#define RL_HD __host__ __device__ __forceinline__
#else
#define RL_HD static inline
#endif

enum { RL_DEV_TILE = 32 };

/* Which buffer a side addresses: the pair's B (src), the pair's A (dst),
 * or the set's pack buffer. */
enum { RL_DEV_B = 0, RL_DEV_A = 1, RL_DEV_PACKED = 2 };

/* One side of a walk: band (i, j)'s element (r, c) at off + i * step_r +
 * j * step_c + r * rs + c * cs elements from the side's buffer (for the
 * pack buffer, from its start: the message's place is in off). */
typedef struct {
    int64_t off, step_r, step_c, rs, cs;
} rl_dev_side;

typedef struct {
    int64_t rows, cols;         /* a band */
    int64_t vrows, vcols;       /* V */
    int64_t tiles_c;            /* tiles across V's columns */
    int64_t first_tile;         /* this walk's first, in the set's numbering */
    rl_dev_side from, to;
    int32_t pair;
    int32_t from_buf, to_buf;   /* RL_DEV_B, RL_DEV_A or RL_DEV_PACKED */
    int32_t conj;               /* conjugate on the way (op C, not when packing) */
    int32_t from_down, to_down; /* the side's elements lie closest down V's columns */
} rl_dev_walk;

/* The walk that tile t of a set of n walks belongs to (walks in
 * increasing first_tile; t below the set's tile count). */
RL_HD int64_t rl_dev_walk_of_tile(const rl_dev_walk *w, int64_t n, int64_t t)
{
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (w[mid].first_tile <= t) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* a / b and, in *rem, a % b (a >= 0, b > 0): in 32 bits where both fit,
 * which a GPU divides several times faster than 64. */
RL_HD int64_t rl_dev_divmod(int64_t a, int64_t b, int64_t *rem)
{
    if (((a | b) >> 31) == 0) {
        uint32_t q = (uint32_t)a / (uint32_t)b;
        *rem = (int64_t)((uint32_t)a - q * (uint32_t)b);
        return q;
    }
    *rem = a % b;
    return a / b;
}

/* Element offset, on side s, of V's row vr: its band row and row in it. */
RL_HD int64_t rl_dev_row_offset(const rl_dev_side *s, int64_t rows, int64_t vr)
{
    int64_t r, i = rl_dev_divmod(vr, rows, &r);
    return s->off + i * s->step_r + r * s->rs;
}

/* ... and of V's column vc (without the side's off). */
RL_HD int64_t rl_dev_col_offset(const rl_dev_side *s, int64_t cols, int64_t vc)
{
    int64_t c, j = rl_dev_divmod(vc, cols, &c);
    return j * s->step_c + c * s->cs;
}

/* Where tile lt (numbered within walk w) starts in V. */
RL_HD void rl_dev_tile_origin(const rl_dev_walk *w, int64_t lt, int64_t *v0r, int64_t *v0c)
{
    *v0r = lt / w->tiles_c * RL_DEV_TILE;
    *v0c = lt % w->tiles_c * RL_DEV_TILE;
}

#endif
