/* layout_internal.h — the layout object and the queries the planner and
 * decoder make of it.
 *
 * A layout is either a block-cyclic description (block boundaries, owners,
 * offsets and leading dimensions follow from ScaLAPACK's formulas, so a
 * layout of 10^7 blocks costs O(ranks) memory) or an explicit grid (arrays
 * of block boundaries, owners, offsets and leading dimensions).  Both
 * answer the same questions through the functions below. */
#ifndef RELAY_LAYOUT_INTERNAL_H
#define RELAY_LAYOUT_INTERNAL_H

#include "relay/layout.h"

typedef enum { RL_LAYOUT_GRID, RL_LAYOUT_BLOCK_CYCLIC } rl_layout_kind;

typedef struct {
    int64_t mb, nb;
    int nprow, npcol;
    relay_order grid_order;
    int rsrc, csrc;
    int64_t lld;             /* as given (0: smallest legal per rank) */
    /* A ScaLAPACK submatrix (relay_internal_layout_submatrix): the layout's
     * rows and columns start at (i0, j0) of the distributed matrix, whose
     * block (0, 0) is on (rsrc, csrc), and each rank has its own lld
     * (bc_ld; also relay_layout_block_cyclic_lds's, at (0, 0)).  0, 0 and 0
     * for relay_layout_block_cyclic.  Plans over them are never saved. */
    int64_t i0, j0;
    int lds_given;
    /* i0 % mb and j0 % nb (ScaLAPACK's IROFF and ICOFF): the rows and
     * columns the layout's first block lacks. */
    int64_t iroff, icoff;
} rl_block_cyclic;

/* ScaLAPACK's local arrays of an m x n submatrix at (i0, j0), 0-based, of
 * a matrix distributed in mb x nb blocks over an nprow x npcol grid whose
 * process (pr, pc) is rank pr*npcol + pc (grid_order RELAY_ROW_MAJOR) or
 * pc*nprow + pr, block (0, 0) on (rsrc, csrc), column-major, rank r's at
 * leading dimension lld[r] (at least its local rows of the matrix's first
 * i0 + m rows wherever it holds elements of the submatrix).  Its plans are
 * those of a block-cyclic layout: their time follows the lattices, not the
 * blocks.  Exported for relay_scalapack; declared only here. */
RELAY_API relay_status relay_internal_layout_submatrix(relay_layout **out, int64_t m, int64_t n, int64_t i0, int64_t j0,
        int64_t mb, int64_t nb, int nprow, int npcol, relay_order grid_order, int rsrc, int csrc, const int64_t *lld);

/* The process holding block k of a dimension cut in blocks of b over np
 * processes, the block of global index origin being on process src. */
static inline int rl_bc_block_proc(int64_t k, int64_t origin, int64_t b, int src, int np)
{
    return (int)((src + origin / b % np + k % np) % np);
}

/* The rank of grid process (pr, pc), numbered in the grid's order, and back. */
static inline int rl_bc_rank(const rl_block_cyclic *bc, int pr, int pc)
{
    return bc->grid_order == RELAY_ROW_MAJOR ? pr * bc->npcol + pc : pc * bc->nprow + pr;
}

static inline void rl_bc_coords(const rl_block_cyclic *bc, int rank, int *pr, int *pc)
{
    *pr = bc->grid_order == RELAY_ROW_MAJOR ? rank / bc->npcol : rank % bc->nprow;
    *pc = bc->grid_order == RELAY_ROW_MAJOR ? rank % bc->npcol : rank / bc->nprow;
}

struct relay_layout {
    rl_layout_kind kind;
    int nranks;
    int64_t m, n;
    int nbr, nbc;
    /* RL_LAYOUT_GRID only (block-cyclic layouts compute theirs): block
     * boundaries, nbr+1 and nbc+1.  Read them with rl_layout_row_split and
     * rl_layout_col_split. */
    int64_t *row_splits;
    int64_t *col_splits;
    relay_order order;       /* element order inside blocks */
    rl_block_cyclic bc;      /* RL_LAYOUT_BLOCK_CYCLIC only */
    int64_t *bc_ld;          /* block-cyclic: ld of each rank */
    /* RL_LAYOUT_GRID only: */
    int *owners;             /* nbr*nbc */
    int64_t *offsets;        /* nbr*nbc */
    int64_t *lds;            /* nbr*nbc */
    int explicit_offsets;    /* offsets/lds given by the user (else packed) */
    int64_t *rank_first;     /* nranks+1: CSR index of the blocks of each rank */
    int64_t *rank_blocks;    /* block ids i*nbc+j, increasing within a rank */
    int64_t *local_elems;    /* base ranks */
    /* Relabeling: a layout's blocks can be handed to other ranks without
     * copying its description.  base_nranks is the rank count of the
     * description; rank_map[b] is the rank that holds base rank b's blocks and
     * rank_unmap[r] the base rank whose blocks rank r holds (-1 or at least
     * base_nranks: none).  Both NULL: identity, ranks from base_nranks on
     * holding nothing.  maps_borrowed: both belong to the plan, which shares
     * them among its pairs (rl_layout_relabel_shared). */
    int base_nranks;
    int32_t *rank_map;       /* base_nranks (or more) */
    int32_t *rank_unmap;     /* nranks */
    int maps_borrowed;
};

/* The base rank whose blocks rank holds, or -1. */
static inline int rl_layout_base_rank(const relay_layout *l, int rank)
{
    if (rank < 0 || rank >= l->nranks) return -1;
    int b = l->rank_unmap ? l->rank_unmap[rank] : rank;
    return b < l->base_nranks ? b : -1;
}

/* Where block k of a dimension of `size` cut in blocks of b begins when
 * the first block lacks `off` of its b indices (ScaLAPACK's IROFF): at
 * k*b - off, 0 for k = 0, and `size` for the last k, one past the last
 * block (k*b may pass 2^63 there). */
static inline int64_t rl_bc_split(int64_t k, int64_t size, int64_t b, int64_t off)
{
    int64_t s;
    if (k == 0) return 0;
    return __builtin_mul_overflow(k, b, &s) || s - off > size ? size : s - off;
}

/* The first row of block row bi (bi = nbr: m, the end), and the first
 * column of block column bj (bj = nbc: n). */
static inline int64_t rl_layout_row_split(const relay_layout *l, int64_t bi)
{
    return l->kind == RL_LAYOUT_GRID ? l->row_splits[bi] : rl_bc_split(bi, l->m, l->bc.mb, l->bc.iroff);
}

static inline int64_t rl_layout_col_split(const relay_layout *l, int64_t bj)
{
    return l->kind == RL_LAYOUT_GRID ? l->col_splits[bj] : rl_bc_split(bj, l->n, l->bc.nb, l->bc.icoff);
}

/* Block (bi, bj)'s owner, offset and leading dimension. */
int rl_layout_owner(const relay_layout *l, int bi, int bj);
int64_t rl_layout_offset(const relay_layout *l, int bi, int bj);
int64_t rl_layout_ld(const relay_layout *l, int bi, int bj);

/* The block row containing global row i (and column j): binary search, or
 * arithmetic for block-cyclic layouts. */
int rl_layout_block_row(const relay_layout *l, int64_t i);
int rl_layout_block_col(const relay_layout *l, int64_t j);

/* Calls visit(bi, bj, ctx) for every block rank owns, in increasing block
 * index (row-major over blocks).  Cost proportional to those blocks. */
typedef void (*rl_block_visitor)(int bi, int bj, void *ctx);
void rl_layout_for_each_block(const relay_layout *l, int rank, rl_block_visitor visit, void *ctx);
int64_t rl_layout_block_count(const relay_layout *l, int rank);

/* A deep copy of l over nranks >= l's rank count, whose blocks of rank r go
 * to rank sigma[r] (sigma NULL: unchanged, and no maps).  O(nranks) for
 * block-cyclic layouts: their blocks follow from the formulas. */
relay_status rl_layout_relabel(relay_layout **out, const relay_layout *l, const int32_t *sigma, int nranks);
/* Makes l, which must not be relabeled, a layout over nranks >= its own
 * rank count, the ranks past its own holding nothing: O(1), in place. */
void rl_layout_widen(relay_layout *l, int nranks);
/* The same with sigma relabeling, the copy borrowing sigma (nranks entries)
 * and its inverse instead of owning maps, so that the pairs of one plan
 * share a single O(nranks) map: both must outlive the copy. */
relay_status rl_layout_relabel_shared(relay_layout **out, const relay_layout *l, const int32_t *sigma,
                                      const int32_t *inverse, int nranks);

/* Where each position of one rank's buffer sits in the matrix: the
 * inverse of relay_layout_locate, for checking that a plan's lattices land
 * on elements (executor/transform_check.c).  Block-cyclic layouts answer
 * in closed form (ScaLAPACK's indxl2g); grid layouts, whose blocks may
 * interleave in memory, by binary search among the contiguous runs of the
 * rank's blocks, sorted by start (they never overlap: layouts are
 * validated so).  O(1) memory, or O(runs) for a grid. */
typedef struct rl_buffer_map rl_buffer_map;
relay_status rl_buffer_map_new(rl_buffer_map **out, const relay_layout *l, int rank);
void rl_buffer_map_free(rl_buffer_map *m);
/* Elements of the matrix the rank holds. */
int64_t rl_buffer_map_elems(const rl_buffer_map *m);
/* 1 and element (*i, *j) of the layout when position pos of the rank's
 * buffer holds one; 0 when it holds none (a gap, or outside the buffer). */
int rl_layout_element_at(const rl_buffer_map *m, int64_t pos, int64_t *i, int64_t *j);
/* ... and in *run how many positions from pos on hold elements that follow
 * one another along the buffer's inner dimension: (*i + k, *j) at pos + k
 * for k < *run in column-major order, (*i, *j + k) in row-major. */
int rl_layout_element_run(const rl_buffer_map *m, int64_t pos, int64_t *i, int64_t *j, int64_t *run);

/* ScaLAPACK's NUMROC: how many of n rows (in blocks of nb) process iproc of
 * nprocs holds when block 0 lives on isrc.  Inline: relay_scalapack, a
 * library of its own, checks descriptors with it too. */
static inline int64_t rl_numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs)
{
    int mydist = (nprocs + iproc - isrc) % nprocs;
    int64_t nblocks = n / nb;
    int64_t num = (nblocks / nprocs) * nb;
    int64_t extra = nblocks % nprocs;
    if (mydist < extra) num += nb;
    else if (mydist == extra) num += n % nb;
    return num;
}

/* Extent in elements of a rows x cols block stored at ld in order o:
 * one past its last element, relative to its offset. */
int64_t rl_block_extent(int64_t rows, int64_t cols, int64_t ld, relay_order o);

/* Element strides, along A's rows and columns, of a matrix stored at
 * leading dimension ld in order o (holding A's rows as its columns when
 * transposed). */
static inline void rl_strides(relay_order o, int64_t ld, int transposed, int64_t *rs, int64_t *cs)
{
    int64_t r = o == RELAY_COL_MAJOR ? 1 : ld, c = o == RELAY_COL_MAJOR ? ld : 1;
    *rs = transposed ? c : r;
    *cs = transposed ? r : c;
}

#endif
