/* make_seeds.c — writes small valid plans of every kind as the fuzzer's
 * seed corpus (formats 2.2, 2.3 and 3.0), so that the structure-aware mutator
 * (plan_mutator.c) has every field of the format to edit:
 *   transforms  block-cyclic and grid layouts (packed and with offsets),
 *               ops N, T and C, every element type, batches of two and
 *               three pairs, layouts over fewer ranks than the plan,
 *               lattices of many pieces at nonzero steps on both sides;
 *               schedules p2p, rounds (steps and local_round) and
 *               alltoallv and neighbor; relabeling none, greedy and optimal;
 *               a tuning (relay_exec_tune's record) of every choice (p2p
 *               through the shared-memory window among them: 2.3), and one
 *               predicted on a machine (its name); a memory cap;
 *               messages that travel direct (one across A's packed
 *               blocks) and a slab transpose a receiver may pull;
 *   BMMC        bit reversal, a transpose across rank bits (partners), a
 *               complement (vector reversal), rank bits in the middle;
 *   HSUMMA      checkerboard with model groups, block-cyclic with given
 *               groups, groups chosen at bind;
 *   N-D         (format 3.0) a 3-D pencil reshape with its axes permuted
 *               (even, block-cyclic and uneven split shards, an empty one,
 *               C and Fortran order, padding), a batch with a node map
 *               (a replicated source on other ranks, a partial source to
 *               a replicated destination whose replicas forward), a 1-D
 *               move and a 2-D transpose by ops T and C;
 *   index       (format 4.0) a broadcast and a sum of a 2-D halo given as
 *               index lists (runs, runs of runs, a listed corner), random lists (listed items,
 *               duplicates, unsorted, an empty rank, an item no one
 *               holds) of complex items of two elements, over more ranks
 *               than the layouts have. */
#include <stdio.h>

#include "relay/relay.h"

static const char *dir;
static int saved;

/* Saves *p (if planned: the planner's status) as the next seed, named
 * after its kind (scripts/fuzz.sh fuzzes each kind on its own too), and
 * frees it; non-zero on error.  p is passed by address, as the planner's
 * call in the same argument list fills it. */
static int save(relay_status planned, relay_plan **p)
{
    static const char *const kinds[] = {"transform", "bmmc", "hsumma", "nd", "index"};
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-%02d.plan", dir, *p ? kinds[relay_plan_get_kind(*p)] : "none", saved++);
    int bad = planned || relay_plan_save(*p, path) != RELAY_OK;
    relay_plan_free(*p);
    *p = NULL;
    return bad;
}

static int transform(int nranks, const relay_layout *to, const relay_layout *from, relay_op op, relay_type type,
                     relay_schedule schedule, relay_relabel relabel)
{
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = schedule;
    o.relabel = relabel;
    relay_plan *p = NULL;
    return save(relay_plan_transform(&p, nranks, to, from, op, type, &o), &p);
}

/* A rounds plan carrying a tuning that times every choice, p2p through the
 * shared-memory window among them; predicted on `machine` unless it is "". */
static int tuned(const relay_layout *to, const relay_layout *from, const char *machine)
{
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = RELAY_SCHED_ROUNDS;
    relay_tuning t = {.ntimed = 6, .best = 2, .ranks_per_node_min = 2, .ranks_per_node_max = 4, .replays = 7,
                      .choices = {{RELAY_SCHED_P2P, 0, 1e-3}, {RELAY_SCHED_P2P, 1, 2e-3}, {RELAY_SCHED_ROUNDS, 0, 5e-4},
                                  {RELAY_SCHED_ALLTOALLV, 0, 9e-4}, {RELAY_SCHED_NEIGHBOR, 0, 8e-4},
                                  {RELAY_SCHED_P2P, 0, 7e-4, 0, 1}}};
    snprintf(t.machine, sizeof t.machine, "%s", machine);
    relay_plan *p = NULL;
    relay_status st = relay_plan_transform(&p, 4, to, from, RELAY_OP_T, RELAY_FLOAT, &o);
    if (!st) st = relay_plan_set_tuning(p, &t);
    return save(st, &p);
}

/* 24 x 20 from 2 x 2 blocks to 3 x 5 blocks on 4 ranks, op T: lattices of
 * up to 3 x 4 pieces, under each schedule, tuned, and under a memory cap. */
static int lattice_moves(void)
{
    relay_layout *from, *to;
    int bad = relay_layout_block_cyclic(&from, 20, 24, 2, 2, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR) ||
              relay_layout_block_cyclic(&to, 24, 20, 3, 5, 2, 2, RELAY_COL_MAJOR, 1, 0, 0, RELAY_ROW_MAJOR);
    for (relay_schedule s = RELAY_SCHED_P2P; s <= RELAY_SCHED_NEIGHBOR && !bad; s++)
        bad = transform(4, to, from, RELAY_OP_T, RELAY_FLOAT, s, RELAY_RELABEL_NONE);
    bad = bad || transform(4, to, from, RELAY_OP_C, RELAY_CFLOAT, RELAY_SCHED_ROUNDS, RELAY_RELABEL_GREEDY) || tuned(to, from, "") ||
          tuned(to, from, "fat-tree");
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.max_buffer_bytes = 40; /* ten floats: lattices cut into chunks */
    relay_plan *capped = NULL;
    bad = bad || save(relay_plan_transform(&capped, 4, to, from, RELAY_OP_T, RELAY_FLOAT, &o), &capped);
    relay_layout_free(from);
    relay_layout_free(to);
    return bad;
}

/* 9 x 7 and 7 x 9 block-cyclic layouts and a 7 x 9 grid with offsets on 2
 * ranks: every op, a batch, a 3-rank plan over 2-rank layouts, relabeling. */
static int small_moves(void)
{
    relay_layout *a, *b, *g;
    int64_t rs[] = {0, 2, 7}, cs[] = {0, 4, 9}, offs[] = {0, 0, 20, 8}, lds[] = {2, 2, 5, 5};
    int owners[] = {0, 1, 1, 0};
    int bad = relay_layout_block_cyclic(&a, 9, 7, 2, 3, 2, 1, RELAY_ROW_MAJOR, 1, 0, 0, RELAY_COL_MAJOR) ||
              relay_layout_block_cyclic(&b, 7, 9, 4, 2, 1, 2, RELAY_COL_MAJOR, 0, 1, 0, RELAY_ROW_MAJOR) ||
              relay_layout_grid(&g, 2, 7, 9, 2, rs, 2, cs, owners, offs, lds, RELAY_COL_MAJOR);
    /* op N moves g (7 x 9) into b's layout; T and C move b^T into a's. */
    for (int op = 0; op < 3 && !bad; op++)
        bad = transform(2, op ? a : b, op ? b : g, (relay_op)op, RELAY_DOUBLE, RELAY_SCHED_P2P, RELAY_RELABEL_NONE);
    bad = bad || transform(3, b, g, RELAY_OP_N, RELAY_FLOAT, RELAY_SCHED_ROUNDS, RELAY_RELABEL_OPTIMAL) ||
          transform(2, a, b, RELAY_OP_T, RELAY_CDOUBLE, RELAY_SCHED_ALLTOALLV, RELAY_RELABEL_GREEDY);
    const relay_layout *as[3] = {a, g, b}, *bs[3] = {g, b, g};
    relay_op ops[3] = {RELAY_OP_T, RELAY_OP_N, RELAY_OP_N};
    relay_plan *batch = NULL;
    bad = bad || save(relay_plan_transform_batch(&batch, 2, 2, as, bs, ops, RELAY_CDOUBLE, NULL), &batch);
    bad = bad || save(relay_plan_transform_batch(&batch, 3, 3, as, bs, ops, RELAY_FLOAT, NULL), &batch);
    relay_layout_free(a);
    relay_layout_free(b);
    relay_layout_free(g);
    return bad;
}

/* Messages that travel direct (op N, one element order, runs of 16 KB and
 * more: whole 512-row columns of 8 and 12 column blocks), one over two
 * consecutive packed blocks of A, and a slab transpose whose messages a
 * receiver may pull from the sender's B (RELAY_PULL): the lattices the
 * executor moves without packing. */
static int direct_moves(void)
{
    relay_layout *a, *b, *two, *one, *rows, *cols;
    int64_t stack[] = {0, 256, 512}, whole[] = {0, 512}, width[] = {0, 16};
    int owned[] = {1, 1}, first[] = {0};
    int bad = relay_layout_block_cyclic(&a, 512, 96, 512, 8, 1, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR) ||
              relay_layout_block_cyclic(&b, 512, 96, 512, 12, 1, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR) ||
              relay_layout_grid(&two, 2, 512, 16, 2, stack, 1, width, owned, NULL, NULL, RELAY_COL_MAJOR) ||
              relay_layout_grid(&one, 2, 512, 16, 1, whole, 1, width, first, NULL, NULL, RELAY_COL_MAJOR) ||
              relay_layout_block_cyclic(&rows, 256, 256, 128, 256, 2, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR) ||
              relay_layout_block_cyclic(&cols, 256, 256, 256, 128, 1, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    bad = bad || transform(2, a, b, RELAY_OP_N, RELAY_DOUBLE, RELAY_SCHED_P2P, RELAY_RELABEL_NONE) ||
          transform(2, two, one, RELAY_OP_N, RELAY_DOUBLE, RELAY_SCHED_P2P, RELAY_RELABEL_NONE) ||
          transform(2, rows, cols, RELAY_OP_T, RELAY_DOUBLE, RELAY_SCHED_P2P, RELAY_RELABEL_NONE);
    relay_layout_free(a);
    relay_layout_free(b);
    relay_layout_free(two);
    relay_layout_free(one);
    relay_layout_free(rows);
    relay_layout_free(cols);
    return bad;
}

static int bmmc(relay_status made, const relay_bmmc *perm, int p, int f, size_t elem_size)
{
    relay_plan *plan = NULL;
    return made || save(relay_plan_bmmc(&plan, perm, p, f, elem_size), &plan);
}

static int bmmc_plans(void)
{
    relay_bmmc perm;
    return bmmc(relay_bmmc_bit_reversal(&perm, 9), &perm, 2, 3, 8) ||
           bmmc(relay_bmmc_transpose(&perm, 3, 4), &perm, 3, 4, 4) ||
           bmmc(relay_bmmc_vector_reversal(&perm, 6), &perm, 1, 0, 16) ||
           bmmc(relay_bmmc_gray_code(&perm, 8), &perm, 2, 2, 1);
}

static int hsumma_plans(void)
{
    relay_hsumma_params hp;
    relay_plan *p = NULL;
    int bad = relay_hsumma_params_init(&hp, 40, 30, 50, 2, 3, RELAY_DOUBLE) || save(relay_plan_hsumma(&p, &hp), &p);
    hp.network = (relay_hsumma_network){1e-5, 1e-9, RELAY_BCAST_VAN_DE_GEIJN};
    bad = bad || save(relay_plan_hsumma(&p, &hp), &p);
    hp = (relay_hsumma_params){.m = 9, .n = 8, .k = 7, .grid_rows = 2, .grid_cols = 2, .group_rows = 2, .group_cols = 1,
                               .inner_block = 2, .outer_block = 3, .dist = RELAY_HSUMMA_BLOCK_CYCLIC, .dist_block = 2,
                               .type = RELAY_CFLOAT, .network = {0, 0, RELAY_BCAST_BINOMIAL}};
    return bad || save(relay_plan_hsumma(&p, &hp), &p);
}

static relay_nd_layout *nd_layout(int ndims, const int64_t *shape, int mesh_ndims, const int *mesh_shape, const int *ranks,
                                  const relay_placement *places, relay_order order, const int64_t *padded)
{
    relay_nd_layout *l = NULL;
    relay_nd_desc d = {ndims, shape, mesh_ndims, mesh_shape, ranks, places, order, padded};
    relay_nd_layout_create(&l, &d);
    return l;
}

static void nd_free(relay_nd_layout **l, int n)
{
    for (int i = 0; i < n; i++) relay_nd_layout_free(l[i]);
}

/* 6 x 5 x 4 complex doubles from C-order pencils on a 2 x 2 mesh to a
 * padded Fortran-order layout of A = B permuted (2, 0, 1) on the mesh's
 * ranks reversed, cut at uneven split points (one shard empty). */
static int nd_pencils(void)
{
    int64_t bshape[] = {6, 5, 4}, ashape[] = {4, 6, 5}, splits[] = {0, 0, 6}, padded[] = {3, 0, 0};
    int mesh[] = {2, 2}, ranks[] = {0, 1, 2, 3}, reversed[] = {3, 2, 1, 0}, perm[] = {2, 0, 1};
    relay_placement bp[] = {{RELAY_SHARD, 1, 0, NULL}, {RELAY_SHARD, 2, 1, NULL}};
    relay_placement ap[] = {{RELAY_SHARD, 0, 1, NULL}, {RELAY_SHARD, 1, 0, splits}};
    relay_nd_layout *l[2] = {nd_layout(3, bshape, 2, mesh, ranks, bp, RELAY_ROW_MAJOR, NULL),
                             nd_layout(3, ashape, 2, mesh, reversed, ap, RELAY_COL_MAJOR, padded)};
    relay_plan *p = NULL;
    int bad = !l[0] || !l[1] || save(relay_plan_nd(&p, 4, l[1], l[0], RELAY_OP_T, perm, RELAY_CDOUBLE, NULL), &p);
    nd_free(l, 2);
    return bad;
}

/* On 8 ranks with a node map: B replicated on ranks 4-7 to A sharded on
 * 0-3, and a partial B on 0-3 to A replicated on 4-7, whose replicas
 * forward (the pair's `forward`). */
static int nd_groups(void)
{
    int64_t shape[] = {8, 6};
    int m22[] = {2, 2}, m4[] = {4}, high[] = {4, 5, 6, 7}, low[] = {0, 1, 2, 3}, nodes[] = {0, 0, 0, 0, 1, 1, 1, 1};
    relay_placement rep[] = {{RELAY_SHARD, 0, 0, NULL}, {RELAY_REPLICATE, 0, 0, NULL}};
    relay_placement part[] = {{RELAY_PARTIAL, 0, 0, NULL}, {RELAY_SHARD, 1, 2, NULL}};
    relay_placement s1[] = {{RELAY_SHARD, 1, 0, NULL}}, all[] = {{RELAY_REPLICATE, 0, 0, NULL}};
    relay_nd_layout *l[4] = {nd_layout(2, shape, 1, m4, low, s1, RELAY_ROW_MAJOR, NULL),
                             nd_layout(2, shape, 1, m4, high, all, RELAY_ROW_MAJOR, NULL),
                             nd_layout(2, shape, 2, m22, high, rep, RELAY_ROW_MAJOR, NULL),
                             nd_layout(2, shape, 2, m22, low, part, RELAY_COL_MAJOR, NULL)};
    relay_op ops[2] = {RELAY_OP_N, RELAY_OP_N};
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.node_of_rank = nodes;
    o.replicas = RELAY_REPLICAS_FORWARD;
    relay_plan *p = NULL;
    int bad = !l[0] || !l[1] || !l[2] || !l[3] ||
              save(relay_plan_nd_batch(&p, 8, 2, (const relay_nd_layout *const *)l, (const relay_nd_layout *const *)l + 2, ops,
                                       NULL, RELAY_DOUBLE, &o), &p);
    nd_free(l, 4);
    return bad;
}

/* 10 elements from uneven splits on 3 ranks (one empty) to one rank, op N,
 * and a 2-D transpose (ops T and C) of 3 x 7 cut in blocks of 2. */
static int nd_small(void)
{
    int64_t line[] = {10}, splits[] = {0, 7, 7, 10}, tall[] = {3, 7}, wide[] = {7, 3};
    int m3[] = {3}, m1[] = {1}, m2[] = {2}, three[] = {0, 1, 2}, two[] = {2}, pair[] = {1, 0};
    relay_placement uneven[] = {{RELAY_SHARD, 0, 0, splits}}, whole[] = {{RELAY_REPLICATE, 0, 0, NULL}};
    relay_placement cols[] = {{RELAY_SHARD, 1, 2, NULL}}, rows[] = {{RELAY_SHARD, 0, 0, NULL}};
    relay_nd_layout *l[4] = {nd_layout(1, line, 1, m3, three, uneven, RELAY_ROW_MAJOR, NULL),
                             nd_layout(1, line, 1, m1, two, whole, RELAY_COL_MAJOR, NULL),
                             nd_layout(2, tall, 1, m2, pair, cols, RELAY_ROW_MAJOR, NULL),
                             nd_layout(2, wide, 1, m2, three, rows, RELAY_COL_MAJOR, NULL)};
    relay_plan *p = NULL;
    int bad = !l[0] || !l[1] || !l[2] || !l[3] || save(relay_plan_nd(&p, 3, l[1], l[0], RELAY_OP_N, NULL, RELAY_FLOAT, NULL), &p) ||
              save(relay_plan_nd(&p, 3, l[3], l[2], RELAY_OP_T, NULL, RELAY_DOUBLE, NULL), &p) ||
              save(relay_plan_nd(&p, 2, l[3], l[2], RELAY_OP_C, NULL, RELAY_CFLOAT, NULL), &p);
    nd_free(l, 4);
    return bad;
}

/* An index layout of nranks ranks, rank r holding count[r] of items[]. */
static relay_index_layout *index_layout(int64_t n, int64_t k, int nranks, const int64_t *count, const int64_t *items)
{
    relay_index_layout *l = NULL;
    if (relay_index_layout_create(&l, n, k, nranks)) return NULL;
    for (int r = 0; r < nranks; r++, items += count[r - 1])
        if (relay_index_layout_set_list(l, r, count[r], items)) {
            relay_index_layout_free(l);
            return NULL;
        }
    return l;
}

/* An 8 x 8 grid (row-major items) in 2 x 2 blocks of 4 x 4, each rank's
 * block widened by one, as lists; and random lists of 9 items. */
static int index_plans(void)
{
    int64_t owned[64], held[100], owned_count[4] = {16, 16, 16, 16}, held_count[4] = {25, 25, 25, 25}, no = 0, nh = 0;
    for (int r = 0; r < 4; r++) {
        int64_t i0 = r / 2 * 4, j0 = r % 2 * 4;
        for (int64_t i = i0; i < i0 + 4; i++)
            for (int64_t j = j0; j < j0 + 4; j++) owned[no++] = i * 8 + j;
        for (int64_t i = i0 - !!i0; i < i0 + 4 + !i0; i++)
            for (int64_t j = j0 - !!j0; j < j0 + 4 + !j0; j++) held[nh++] = i * 8 + j;
    }
    const int64_t rand_owned[] = {4, 0, 7, 2, 8, 1, 3, 6}, rand_owned_count[] = {3, 0, 5};
    const int64_t rand_held[] = {7, 7, 0, 3, 4, 8, 2, 2, 1, 6, 0, 4, 3}, rand_held_count[] = {6, 0, 5, 2};
    relay_index_layout *l[4] = {index_layout(64, 1, 4, owned_count, owned), index_layout(64, 1, 4, held_count, held),
                                index_layout(9, 2, 3, rand_owned_count, rand_owned), index_layout(9, 2, 4, rand_held_count, rand_held)};
    relay_plan *p = NULL;
    int bad = !l[0] || !l[1] || !l[2] || !l[3] || save(relay_plan_index(&p, 4, l[0], l[1], RELAY_INDEX_BROADCAST, RELAY_DOUBLE), &p) ||
              save(relay_plan_index(&p, 4, l[0], l[1], RELAY_INDEX_REDUCE_SUM, RELAY_FLOAT), &p) ||
              save(relay_plan_index(&p, 5, l[2], l[3], RELAY_INDEX_REDUCE_SUM, RELAY_CDOUBLE), &p) ||
              save(relay_plan_index(&p, 4, l[2], l[3], RELAY_INDEX_BROADCAST, RELAY_CFLOAT), &p);
    for (int i = 0; i < 4; i++) relay_index_layout_free(l[i]);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_seeds DIR\n");
        return 2;
    }
    dir = argv[1];
    int bad = small_moves() || lattice_moves() || direct_moves() || bmmc_plans() || hsumma_plans() || nd_pencils() ||
              nd_groups() || nd_small() || index_plans();
    if (bad) fprintf(stderr, "make_seeds: seed %d: %s\n", saved - 1, relay_last_error());
    return bad;
}
