/* device_kernels.cu — the CUDA backend's kernel (device_kernels.h): a grid
 * of blocks walks the tiles of a table, each block a tile of
 * RL_DEV_TILE x RL_DEV_TILE elements of one walk's V at a time.
 *
 * A block first finds its tile's walk and the offsets of the tile's rows
 * and columns on both sides (one division per row and column, not per
 * element), then reads the tile into shared memory with consecutive
 * threads on consecutive elements of the source side, and writes it with
 * consecutive threads on consecutive elements of the destination side: a
 * copy and a transpose alike read and write whole lines (the tile's row
 * is padded by one element so that neither pass meets bank conflicts). */
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

/* The offsets of the tile's rows and columns on both sides, and its walk. */
struct tile_offsets {
    int64_t from_row[TILE], from_col[TILE], to_row[TILE], to_col[TILE];
    int64_t walk;
};

__device__ void find_offsets(tile_offsets &o, const rl_dev_walk &w, int64_t v0r, int64_t v0c, int tid)
{
    int k = tid % TILE;
    switch (tid / TILE) {
    case 0: if (v0r + k < w.vrows) o.from_row[k] = rl_dev_row_offset(&w.from, w.rows, v0r + k); break;
    case 1: if (v0c + k < w.vcols) o.from_col[k] = rl_dev_col_offset(&w.from, w.cols, v0c + k); break;
    case 2: if (v0r + k < w.vrows) o.to_row[k] = rl_dev_row_offset(&w.to, w.rows, v0r + k); break;
    case 3: if (v0c + k < w.vcols) o.to_col[k] = rl_dev_col_offset(&w.to, w.cols, v0c + k); break;
    default: break;
    }
}

template <typename T> __global__ void __launch_bounds__(TILE * ROWS_PER_PASS) move_tiles(const move_args<T> m)
{
    __shared__ T tile[TILE][TILE + 1];
    __shared__ tile_offsets o;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TILE + tx;
    for (int64_t t = blockIdx.x; t < m.l.ntiles; t += gridDim.x) {
        if (tid == 0) o.walk = rl_dev_walk_of_tile(m.l.walks, m.l.nwalks, t);
        __syncthreads();
        const rl_dev_walk w = m.l.walks[o.walk];
        int64_t v0r, v0c;
        rl_dev_tile_origin(&w, t - w.first_tile, &v0r, &v0c);
        find_offsets(o, w, v0r, v0c, tid);
        __syncthreads();
        const int64_t nr = w.vrows - v0r < TILE ? w.vrows - v0r : TILE, nc = w.vcols - v0c < TILE ? w.vcols - v0c : TILE;
        const T *from = buffer_of<T>(m.l, w.from_buf, w.pair);
        T *to = buffer_of<T>(m.l, w.to_buf, w.pair);
        /* Read: x runs down the rows where the source lies down them. */
        for (int y = ty; y < TILE; y += ROWS_PER_PASS) {
            int r = w.from_down ? tx : y, c = w.from_down ? y : tx;
            if (r < nr && c < nc) tile[r][c] = from[o.from_row[r] + o.from_col[c]];
        }
        __syncthreads();
        for (int y = ty; y < TILE; y += ROWS_PER_PASS) {
            int r = w.to_down ? tx : y, c = w.to_down ? y : tx;
            if (r >= nr || c >= nc) continue;
            T v = w.conj ? conj_of(tile[r][c]) : tile[r][c];
            T *d = to + o.to_row[r] + o.to_col[c];
            if (!m.alpha_one) v = mul(m.alpha, v);
            *d = m.beta_zero ? v : add(v, mul(m.beta, *d));
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
