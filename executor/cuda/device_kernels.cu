/* device_kernels.cu — the CUDA backend's kernel (device_kernels.h): a grid
 * of blocks walks the tiles of a table, each block a tile of
 * RL_DEV_TILE x RL_DEV_TILE elements of one walk's V at a time.
 *
 * A block first finds its tile's walk and the offsets of the tile's rows
 * and columns on both sides (one division per row and column, not per
 * element), then reads the tile with consecutive threads on consecutive
 * elements of the source side, and writes it with consecutive threads on
 * consecutive elements of the destination side: a copy and a transpose
 * alike read and write whole lines.  A transpose turns the tile in shared
 * memory (its rows padded by one element so that neither pass meets bank
 * conflicts); a copy writes each element from the thread that read it. */
#include <cuComplex.h>
#include <cuda_runtime.h>
#include <type_traits>

#include "device_kernels.h"

namespace {

constexpr int TILE = RL_DEV_TILE;
constexpr int ROWS_PER_PASS = 8;            /* a block is TILE x ROWS_PER_PASS threads */
constexpr int64_t MAX_BLOCKS = 1 << 20;     /* more tiles than this: blocks take several */

/* The element types' arithmetic: alpha * op(x) + beta * y. */
__device__ __forceinline__ float conj_of(float x) { return x; }
__device__ __forceinline__ double conj_of(double x) { return x; }
__device__ __forceinline__ cuFloatComplex conj_of(cuFloatComplex x) { return cuConjf(x); }
__device__ __forceinline__ cuDoubleComplex conj_of(cuDoubleComplex x) { return cuConj(x); }

__device__ __forceinline__ float mul(float a, float b) { return a * b; }
__device__ __forceinline__ double mul(double a, double b) { return a * b; }
__device__ __forceinline__ cuFloatComplex mul(cuFloatComplex a, cuFloatComplex b) { return cuCmulf(a, b); }
__device__ __forceinline__ cuDoubleComplex mul(cuDoubleComplex a, cuDoubleComplex b) { return cuCmul(a, b); }

__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ double add(double a, double b) { return a + b; }
__device__ __forceinline__ cuFloatComplex add(cuFloatComplex a, cuFloatComplex b) { return cuCaddf(a, b); }
__device__ __forceinline__ cuDoubleComplex add(cuDoubleComplex a, cuDoubleComplex b) { return cuCadd(a, b); }

/* A scalar (real, imaginary) as a value of T. */
template <typename T> T scalar_of(const double *v)
{
    if constexpr (std::is_same_v<T, float>) return (float)v[0];
    else if constexpr (std::is_same_v<T, double>) return v[0];
    else if constexpr (std::is_same_v<T, cuFloatComplex>) return make_cuFloatComplex((float)v[0], (float)v[1]);
    else return make_cuDoubleComplex(v[0], v[1]);
}

template <typename T> struct move_args {
    rl_dev_launch l;
    T alpha, beta;
    int alpha_one, beta_zero;
};

/* The buffer a side of walk w addresses. */
template <typename T> __device__ __forceinline__ T *buffer_of(const rl_dev_launch &l, int32_t which, int32_t pair)
{
    void *b = which == RL_DEV_B ? l.b[pair] : which == RL_DEV_A ? l.a[pair] : l.packed;
    return static_cast<T *>(b);
}

/* What a block knows of its tile: its walk, copied once into shared memory
 * (not read field by field by every thread), and the offsets of the tile's
 * rows and columns on both sides. */
struct tile_plan {
    rl_dev_walk w;
    int64_t from_row[TILE], from_col[TILE], to_row[TILE], to_col[TILE];
};

/* The block's first threads each find tile t's walk (the search reads a few
 * cached words) and copy a word of it. */
__device__ void find_walk(tile_plan &p, const rl_dev_launch &l, int64_t t, int tid)
{
    constexpr int WORDS = sizeof(rl_dev_walk) / sizeof(int32_t);
    static_assert(sizeof(rl_dev_walk) % sizeof(int32_t) == 0, "a walk is whole words");
    if (tid < WORDS) {
        const rl_dev_walk *w = l.walks + rl_dev_walk_of_tile(l.walks, l.nwalks, t);
        reinterpret_cast<int32_t *>(&p.w)[tid] = reinterpret_cast<const int32_t *>(w)[tid];
    }
}

__device__ void find_offsets(tile_plan &p, int64_t v0r, int64_t v0c, int tid)
{
    const rl_dev_walk &w = p.w;
    int k = tid % TILE;
    switch (tid / TILE) {
    case 0: if (v0r + k < w.vrows) p.from_row[k] = rl_dev_row_offset(&w.from, w.rows, v0r + k); break;
    case 1: if (v0c + k < w.vcols) p.from_col[k] = rl_dev_col_offset(&w.from, w.cols, v0c + k); break;
    case 2: if (v0r + k < w.vrows) p.to_row[k] = rl_dev_row_offset(&w.to, w.rows, v0r + k); break;
    case 3: if (v0c + k < w.vcols) p.to_col[k] = rl_dev_col_offset(&w.to, w.cols, v0c + k); break;
    default: break;
    }
}

/* Writes v (from the source) to *d: alpha * op(v) + beta * *d. */
template <typename T> __device__ __forceinline__ void put(const move_args<T> &m, int conj, T *d, T v)
{
    if (conj) v = conj_of(v);
    if (!m.alpha_one) v = mul(m.alpha, v);
    *d = m.beta_zero ? v : add(v, mul(m.beta, *d));
}

constexpr int PER_THREAD = TILE / ROWS_PER_PASS;

/* Element i of a thread's share of the tile: x runs down the rows where
 * the side lies down them, across otherwise. */
__device__ __forceinline__ void element(int down, int tx, int ty, int i, int &r, int &c)
{
    int y = ty + i * ROWS_PER_PASS;
    r = down ? tx : y;
    c = down ? y : tx;
}

/* Each thread first loads all its elements (their loads in flight
 * together), then writes them: straight back out where both sides lie
 * the same way, else through shared memory, where the tile turns. */
template <typename T> __global__ void __launch_bounds__(TILE * ROWS_PER_PASS) move_tiles(const move_args<T> m)
{
    __shared__ T tile[TILE][TILE + 1];
    __shared__ tile_plan p;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TILE + tx;
    for (int64_t t = blockIdx.x; t < m.l.ntiles; t += gridDim.x) {
        find_walk(p, m.l, t, tid);
        __syncthreads();
        const rl_dev_walk &w = p.w;
        int64_t v0r, v0c;
        rl_dev_tile_origin(&w, t - w.first_tile, &v0r, &v0c);
        find_offsets(p, v0r, v0c, tid);
        __syncthreads();
        const int nr = (int)(w.vrows - v0r < TILE ? w.vrows - v0r : TILE), nc = (int)(w.vcols - v0c < TILE ? w.vcols - v0c : TILE);
        const T *from = buffer_of<T>(m.l, w.from_buf, w.pair);
        T *to = buffer_of<T>(m.l, w.to_buf, w.pair);
        T v[PER_THREAD];
        int r, c;
#pragma unroll
        for (int i = 0; i < PER_THREAD; i++) {
            element(w.from_down, tx, ty, i, r, c);
            if (r < nr && c < nc) v[i] = from[p.from_row[r] + p.from_col[c]];
        }
        if (w.from_down == w.to_down) {
#pragma unroll
            for (int i = 0; i < PER_THREAD; i++) {
                element(w.to_down, tx, ty, i, r, c);
                if (r < nr && c < nc) put(m, w.conj, to + p.to_row[r] + p.to_col[c], v[i]);
            }
        } else {
#pragma unroll
            for (int i = 0; i < PER_THREAD; i++) {
                element(w.from_down, tx, ty, i, r, c);
                if (r < nr && c < nc) tile[r][c] = v[i];
            }
            __syncthreads();
#pragma unroll
            for (int i = 0; i < PER_THREAD; i++) {
                element(w.to_down, tx, ty, i, r, c);
                if (r < nr && c < nc) put(m, w.conj, to + p.to_row[r] + p.to_col[c], tile[r][c]);
            }
        }
        __syncthreads();
    }
}

template <typename T> int launch(const rl_dev_launch *l, const rl_dev_scalars *s, cudaStream_t stream)
{
    move_args<T> m = {*l, scalar_of<T>(s->alpha), scalar_of<T>(s->beta), s->alpha_one, s->beta_zero};
    int64_t blocks = l->ntiles < MAX_BLOCKS ? l->ntiles : MAX_BLOCKS;
    move_tiles<T><<<(unsigned)blocks, dim3(TILE, ROWS_PER_PASS), 0, stream>>>(m);
    return (int)cudaGetLastError();
}

} // namespace

extern "C" int rl_dev_move(const rl_dev_launch *l, relay_type type, const rl_dev_scalars *s, void *stream)
{
    if (l->ntiles == 0) return 0;
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    switch (type) {
    case RELAY_FLOAT: return launch<float>(l, s, st);
    case RELAY_DOUBLE: return launch<double>(l, s, st);
    case RELAY_CFLOAT: return launch<cuFloatComplex>(l, s, st);
    default: return launch<cuDoubleComplex>(l, s, st);
    }
}
