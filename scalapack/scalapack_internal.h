/* scalapack_internal.h — the parts of relay_scalapack (relay/scalapack.h)
 * and what they share.
 *
 * One call runs four steps, each in its own file:
 *   1. context (context.c): the BLACS grid's processes, as a
 *      communicator of their own (created once per grid, ordered by
 *      BLACS process number, freed with the grid);
 *   2. gather (scalapack.c): every process contributes what only it knows
 *      (its place in each matrix's grid, its descriptors and local leading
 *      dimensions), so that all hold the same global view, even those
 *      outside a grid;
 *   3. key (descriptors.c): the view, flattened, identifies the data
 *      movement; it is checked (identically on every process, so errors
 *      are collective) and looked up in the context's plan cache;
 *   4. replay (plan_cache.c, key_layout.c, scalapack.c): on a miss the
 *      matrices' layouts are rebuilt as relay layouts (any submatrix
 *      origin, any process map, per-process lld), planned and bound, its
 *      replays bound only when the key comes again; then the executor
 *      replays over the arrays.
 * Every process of a grid makes the same calls on it, so each context's
 * cache evolves alike on all of them: hits, misses and evictions by the
 * per-context cap happen together, and so do the collective frees they
 * imply.  The one decision a process makes alone, dropping a plan for the
 * per-process cap (plan_cache.c), marks its context pruned; the next call
 * on the context gathers the marks with the views and, where any is set,
 * every process drops the context's plans before looking the key up. */
#ifndef RELAY_SCALAPACK_INTERNAL_H
#define RELAY_SCALAPACK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "exec_internal.h"
#include "relay/relay.h"
#include "relay/scalapack.h"

/* BLACS (Debian ships no C header for it). */
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
int Cblacs_pnum(int ctxt, int prow, int pcol);
void blacs_get_(const int *ctxt, const int *what, int *val); /* Fortran's: answers a communicator as MPI_Fint */

/* The fields of a ScaLAPACK array descriptor. */
enum { DTYPE_, CTXT_, M_, N_, MB_, NB_, RSRC_, CSRC_, LLD_, DLEN_ };

/* ---- 1. contexts (context.c) --------------------------------------------- */

/* A cached plan of a context (plan_cache.c). */
typedef struct rl_cache_entry {
    struct rl_cache_entry *next;  /* every context's entries, most recently used first */
    struct rl_blacs_context *cx;  /* the context whose calls it serves */
    uint64_t hash;
    size_t key_len;
    int32_t *key;
    relay_exec *exec;
} rl_cache_entry;

/* What relay holds for one BLACS grid, for as long as the grid lives. */
typedef struct rl_blacs_context {
    struct rl_blacs_context *next; /* creation order */
    MPI_Comm grid;                /* BLACS's communicator of the grid, which carries this context */
    MPI_Comm comm;                /* relay's own over the same processes, in BLACS process order */
    int nprocs;
    int nentries;                 /* its plans in the cache */
    int pruned;                   /* this process dropped one of them alone, for the per-process cap,
                                     since the context's last call */
} rl_blacs_context;

/* The context of ictxt's grid: the one attached to the grid, or a new one
 * (created collectively over the grid's processes). */
relay_status rl_scalapack_find_context(int ictxt, rl_blacs_context **out);

/* ---- 2. and 3. views and keys (descriptors.c) ---------------------------- */

/* What one process knows about one matrix of the call. */
typedef struct {
    int32_t row, col;            /* its place in the matrix's grid, -1 outside */
    int32_t nprow, npcol;
    int32_t desc[DLEN_];
    int32_t i, j;                /* 1-based origin of the submatrix */
} rl_matrix_view;

typedef struct {
    rl_matrix_view src, dst;
    int32_t pruned;              /* its context's pruned flag: if any process's is set, all drop the context's plans */
} rl_process_view;

/* This process's view of a matrix (desc NULL or CTXT -1: outside its grid). */
rl_matrix_view rl_scalapack_view_of(const int *desc, int i, int j);

/* A matrix's layout as the key stores it: m, n, i, j, mb, nb, rsrc, csrc,
 * nprow, npcol, then per grid position the owner's rank in the context
 * communicator and that owner's lld. */
enum { K_M, K_N, K_I, K_J, K_MB, K_NB, K_RSRC, K_CSRC, K_NPROW, K_NPCOL, K_FIXED };

/* The key of a call of op on an m x n result from all nprocs processes'
 * views: type, op, then the source's and the destination's layout, each
 * checked (fn names the call in error messages). */
enum { RL_KEY_TYPE, RL_KEY_OP, RL_KEY_SRC_LEN, RL_KEY_HEAD };
relay_status rl_scalapack_build_key(int32_t **out, size_t *len, const rl_process_view *all, int nprocs, relay_type type,
                                    relay_op op, int64_t m, int64_t n, const char *fn);

/* The layout one matrix's part of a key (at key + RL_KEY_HEAD for the
 * source, + key[RL_KEY_SRC_LEN] more for the destination) describes, over
 * the context's nprocs processes, as an explicit grid layout: block by
 * block, whatever the process map. */
relay_status rl_scalapack_key_layout(relay_layout **out, const int32_t *matrix_key, int nprocs);

/* ---- 4. layouts and the plan cache (key_layout.c, plan_cache.c) ---------- */

/* The same layout, block-cyclic (planned in time of its lattices) where
 * the grid numbers its processes as the first ranks of the context, row-
 * or column-major (BLACS' 'R' and 'C'); rl_scalapack_key_layout's
 * otherwise. */
relay_status rl_scalapack_matrix_layout(relay_layout **out, const int32_t *matrix_key, int nprocs);

/* The executor for a key (taken over): moved to the front when cached,
 * planned and bound if not (collective over the context).  A new plan may
 * push out the least recently used of the context's (past
 * RELAY_SCALAPACK_CACHE_SIZE, together on every process) and of all the
 * process's (past the per-process limit, alone: the plans of the context
 * least recently used go, and that context is marked pruned). */
relay_status rl_scalapack_lookup(rl_blacs_context *cx, int32_t *key, size_t len, relay_exec **exec);

/* Frees every cached executor of the context (collective over it) and
 * clears its pruned mark. */
void rl_scalapack_drop_entries(rl_blacs_context *cx);

/* The cache's counts (relay_scalapack_cache_stats but contexts). */
void rl_scalapack_plan_stats(relay_scalapack_cache_stats *s);

#endif
