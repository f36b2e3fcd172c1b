/* bmmc_exec.c — performing a factored BMMC permutation (Cormen's BMMC
 * paper, section 5 and Appendix B).
 *
 * Rank k holds 2^(n-p) elements; in processor-major coordinates element
 * x = (offset o, rank k).  A replay
 *   1. applies W inside the rank: temp[W (o, k)] = in[o], visiting o in
 *      Gray-code order so that each target offset is the previous one with
 *      one column of W added (O(1) per element, Appendix B), in cache
 *      tiles (plan_walk);
 *   2. exchanges with 2^r partners (rl_bmmc_partners): block b of temp
 *      (offsets whose top r bits are b: N / (2^r P) consecutive elements)
 *      goes to one rank and block b of another rank arrives, both
 *      computable by each side alone: only data travels;
 *   3. places each arriving block (and its own block, without a message)
 *      at the offsets V gives, again in Gray-code order, as it lands.
 * Requests are persistent: one receive and one send per partner, created
 * when binding, on the executor's own communicator.  The executor's facade
 * (exec.c) drives this file through its kind table, rl_exec_bmmc
 * (exec_kind.h). */
#include <limits.h>
#include <string.h>

#include "error.h"
#include "exec_kind.h"
#include "mpi_error.h"
#include "stand_in.h"

/* ---- walking a block: cache tiles in Gray-code order --------------------- */

/* The order in which a local permutation visits 2^bits source elements
 * (src[g] to dst[(base ^ M g) & mask]).  Gray code alone (Appendix B) makes
 * each target one column away from the previous, but scatters the writes:
 * one cache line per element.  So the walk is tiled: the inner bits are the
 * source's low bits (whole source lines) plus the source bits whose
 * columns produce the target's low bits (whole target lines, where M
 * reaches them); tiles run in Gray order over the outer bits, and inside a
 * tile the elements in Gray order over the inner bits. */
enum { LINE_BYTES = 128, MAX_INNER_BITS = 12 };

typedef struct {
    int ninner, nouter;
    uint64_t inner_col[RL_GF2_MAX], outer_col[RL_GF2_MAX];   /* M's columns, masked */
    uint64_t inner_bit[RL_GF2_MAX], outer_bit[RL_GF2_MAX];   /* the source bit */
} walk;

static void plan_walk(walk *w, const uint64_t *cols, int bits, uint64_t mask, size_t esz)
{
    int low = 0;
    while (low < bits && ((size_t)1 << low) * esz < LINE_BYTES) low++;
    uint64_t inner = rl_gf2_mask(low), combo;
    rl_gf2_basis b = {0};
    for (int j = 0; j < bits; j++) rl_gf2_basis_add(&b, cols[j] & mask, j);
    for (int i = 0; i < low; i++)
        if (rl_gf2_reduce(&b, 1ull << i, &combo) == 0) /* target bit i is reachable: from these source bits */
            for (int k = 0; k < b.count; k++)
                if (combo >> k & 1) inner |= 1ull << b.column[k];
    if (__builtin_popcountll(inner) > MAX_INNER_BITS) inner = rl_gf2_mask(low);
    w->ninner = w->nouter = 0;
    for (int j = 0; j < bits; j++) {
        int in = inner >> j & 1, *count = in ? &w->ninner : &w->nouter;
        (in ? w->inner_col : w->outer_col)[*count] = cols[j] & mask;
        (in ? w->inner_bit : w->outer_bit)[(*count)++] = 1ull << j;
    }
}

static inline __attribute__((always_inline)) void walk_scatter_sized(char *dst, const char *src, const walk *w,
                                                                     uint64_t base, uint64_t mask, size_t esz)
{
    uint64_t y_tile = base & mask, g_tile = 0, tiles = 1ull << w->nouter, tile = 1ull << w->ninner;
    for (uint64_t t = 0; t < tiles; t++) {
        if (t) {
            int j = __builtin_ctzll(t);
            y_tile ^= w->outer_col[j];
            g_tile ^= w->outer_bit[j];
        }
        uint64_t y = y_tile, g = g_tile;
        memcpy(dst + y * esz, src + g * esz, esz);
        for (uint64_t i = 1; i < tile; i++) {
            int j = __builtin_ctzll(i);
            y ^= w->inner_col[j];
            g ^= w->inner_bit[j];
            memcpy(dst + y * esz, src + g * esz, esz);
        }
    }
}

/* The walk with the element size a constant where it is a common one. */
static void walk_scatter(char *dst, const char *src, const walk *w, uint64_t base, uint64_t mask, size_t esz)
{
    switch (esz) {
    case 4: walk_scatter_sized(dst, src, w, base, mask, 4); break;
    case 8: walk_scatter_sized(dst, src, w, base, mask, 8); break;
    case 16: walk_scatter_sized(dst, src, w, base, mask, 16); break;
    default: walk_scatter_sized(dst, src, w, base, mask, esz); break;
    }
}

typedef struct {
    rl_bmmc b;
    int rank;
    int offset_bits, block_bits;   /* n - p, n - p - r */
    int64_t elems, block;          /* per rank, per partner */
    size_t esz;
    int nblocks;                   /* 2^r */
    int *to, *from;                /* per block: partner ranks */
    char *temp, *recv;
    MPI_Request *reqs;             /* receives then sends, per block; NULL for the own block */
    MPI_Datatype elem_type;
    int own_block;
    walk w_walk, v_walk;           /* step 1 over a rank, step 3 over a block */
    char *out;                     /* the replay in flight: where step 3 places */
} rl_bmmc_exec;

/* ---- preparing and binding ----------------------------------------------- */

/* Partners and buffers of `rank`, no MPI call, so that every rank can agree
 * on success before binding.  On failure *out may hold a partial
 * preparation. */
static relay_status create(rl_bmmc_exec **out, const rl_bmmc *b, int rank)
{
    rl_bmmc_exec *x = calloc(1, sizeof *x);
    if (!x) return RL_NOMEM();
    x->b = *b;
    x->rank = rank;
    x->offset_bits = b->n - b->p;
    x->block_bits = x->offset_bits - b->rank;
    x->elems = (int64_t)1 << x->offset_bits;
    x->block = (int64_t)1 << x->block_bits;
    x->esz = (size_t)b->elem_size;
    x->nblocks = 1 << b->rank;
    x->elem_type = MPI_DATATYPE_NULL;
    x->own_block = -1;
    *out = x;
    if (x->block > INT_MAX) return rl_fail(RELAY_ERR_UNSUPPORTED, "BMMC: blocks of %lld elements exceed MPI's int counts", (long long)x->block);
    x->to = rl_malloc_array((size_t)x->nblocks, sizeof *x->to);  /* freed with x on failure */
    x->from = rl_malloc_array((size_t)x->nblocks, sizeof *x->from);
    x->reqs = rl_malloc_array(2 * (size_t)x->nblocks, sizeof *x->reqs);
    x->temp = rl_malloc_array((size_t)x->elems, x->esz);
    x->recv = rl_malloc_array((size_t)x->elems, x->esz);
    if (!x->to || !x->from || !x->reqs || !x->temp || !x->recv) return RL_NOMEM();
    for (int k = 0; k < 2 * x->nblocks; k++) x->reqs[k] = MPI_REQUEST_NULL;
    x->own_block = rl_bmmc_partners(b, rank, x->nblocks, x->to, x->from);
    uint64_t mask = rl_gf2_mask(x->offset_bits);
    plan_walk(&x->w_walk, b->w.col, x->offset_bits, mask, x->esz);
    plan_walk(&x->v_walk, b->v.col, x->block_bits, mask, x->esz);
    return RELAY_OK;
}

/* A BMMC plan needs no section: every rank derives its part from the
 * factors, which are checked first. */
static relay_status bmmc_prepare(void **state, const relay_plan *p, const rl_exec_setup *setup)
{
    int rank = setup->rank;
    relay_status st = p->bmmc ? rl_bmmc_validate(p->bmmc) : rl_fail(RELAY_ERR_FORMAT, "BMMC plan without its factors");
    if (st || rank >= p->nranks) return st;
    rl_bmmc_exec *x = NULL;
    st = create(&x, p->bmmc, rank);
    *state = x;
    return st;
}

/* The persistent requests, on the executor's own communicator. */
static relay_status bmmc_bind(void *state, MPI_Comm comm, relay_internal_scratch *lent)
{
    rl_bmmc_exec *x = state;
    int rc = MPI_Type_contiguous((int)x->esz, MPI_BYTE, &x->elem_type);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&x->elem_type);
    for (int blk = 0; blk < x->nblocks && rc == MPI_SUCCESS; blk++) {
        if (blk == x->own_block) continue;
        size_t at = ((size_t)blk << x->block_bits) * x->esz;
        rc = MPI_Recv_init(x->recv + at, (int)x->block, x->elem_type, x->from[blk], 0, comm, &x->reqs[blk]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Send_init(x->temp + at, (int)x->block, x->elem_type, x->to[blk], 0, comm, &x->reqs[x->nblocks + blk]);
    }
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "BMMC: creating persistent requests");
}

/* ---- replaying ------------------------------------------------------------ */

/* Step 1: temp = W applied inside the rank. */
static void apply_w(rl_bmmc_exec *x, const char *in)
{
    uint64_t base = rl_gf2_apply(&x->b.w, (uint64_t)x->rank << x->offset_bits);
    walk_scatter(x->temp, in, &x->w_walk, base, rl_gf2_mask(x->offset_bits), x->esz);
}

/* Step 3: block blk of source rank src, at `from`, to its places in out. */
static void place_block(rl_bmmc_exec *x, char *out, const char *from, int blk, int src)
{
    uint64_t first = (uint64_t)blk << x->block_bits;
    uint64_t base = rl_gf2_apply(&x->b.v, first | (uint64_t)src << x->offset_bits) ^ x->b.cv;
    walk_scatter(out, from + (size_t)first * x->esz, &x->v_walk, base, rl_gf2_mask(x->offset_bits), x->esz);
}

/* A BMMC replay moves opaque elements: one buffer each way, no scalars. */
static relay_status bmmc_start(void *state, void *const *dst, const void *const *src, const void *alpha, const void *beta)
{
    rl_bmmc_exec *x = state;
    if (!dst[0] || !src[0]) return rl_fail(RELAY_ERR_ARG, "relay_exec_start: a BMMC plan needs dst[0] and src[0]");
    if (alpha || beta) return rl_fail(RELAY_ERR_ARG, "relay_exec_start: a BMMC plan moves elements as they are; pass NULL alpha and beta");
    x->out = dst[0];
    apply_w(x, src[0]);
    int rc = MPI_SUCCESS;
    for (int k = 0; k < 2 * x->nblocks && rc == MPI_SUCCESS; k++)
        if (x->reqs[k] != MPI_REQUEST_NULL) rc = MPI_Start(&x->reqs[k]);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "BMMC: starting the exchange");
}

static relay_status bmmc_wait(void *state)
{
    rl_bmmc_exec *x = state;
    char *out = x->out;
    if (x->own_block >= 0) place_block(x, out, x->temp, x->own_block, x->rank);
    int rc = MPI_SUCCESS;
    for (int n = 0; n < x->nblocks - (x->own_block >= 0) && rc == MPI_SUCCESS; n++) {
        int blk;
        rc = MPI_Waitany(x->nblocks, x->reqs, &blk, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && blk != MPI_UNDEFINED) place_block(x, out, x->recv, blk, x->from[blk]);
    }
    if (rc == MPI_SUCCESS) rc = MPI_Waitall(x->nblocks, x->reqs + x->nblocks, MPI_STATUSES_IGNORE);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "BMMC: completing the exchange");
}

/* ---- the executor's BMMC kind (exec_kind.h) -------------------------------- */

static void bmmc_memory(const void *state, relay_exec_memory *m)
{
    const rl_bmmc_exec *x = state;
    int partners = x->nblocks - (x->own_block >= 0);
    m->extra_bytes = 2 * x->elems * (int64_t)x->esz + x->nblocks * (int64_t)(2 * sizeof(int) + 2 * sizeof(MPI_Request));
    m->remote_bytes = 2 * partners * x->block * (int64_t)x->esz;
}

static void bmmc_free(void *state)
{
    rl_bmmc_exec *x = state;
    if (!x) return;
    for (int k = 0; x->reqs && k < 2 * x->nblocks; k++)
        if (x->reqs[k] != MPI_REQUEST_NULL) MPI_Request_free(&x->reqs[k]);
    if (x->elem_type != MPI_DATATYPE_NULL) MPI_Type_free(&x->elem_type);
    free(x->to);
    free(x->from);
    free(x->reqs);
    free(x->temp);
    free(x->recv);
    free(x);
}

static relay_status bmmc_stand_in(void *state)
{
    rl_bmmc_exec *x = state;
    return rl_stand_in_replay(&rl_exec_bmmc, x, NULL, 1, &x->elems, 1, &x->elems, x->esz);
}

const rl_exec_kind rl_exec_bmmc = {
    .needs_section = 0,
    .prepare = bmmc_prepare,
    .check_peers = NULL,
    .bind = bmmc_bind,
    .bind_replays = NULL,
    .start = bmmc_start,
    .stand_in = bmmc_stand_in,
    .wait = bmmc_wait,
    .memory = bmmc_memory,
    .hsumma_report = NULL,
    .free = bmmc_free,
};
