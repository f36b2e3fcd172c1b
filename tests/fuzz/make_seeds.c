/* make_seeds.c — writes a few small valid plans (format 2.0) as the
 * fuzzer's seed corpus: block-cyclic and grid layouts, every op, a batch,
 * explicit offsets, a block-cyclic move whose lattices hold many pieces at
 * nonzero steps on both sides, a rounds plan (steps and local_round), and a
 * BMMC plan (its factors are all the decoder's BMMC path reads) and two
 * HSUMMA plans (parameters only: checkerboard with model groups, block-cyclic). */
#include <stdio.h>

#include "relay/relay.h"

static int save(const relay_plan *p, const char *dir, int k)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/seed%d.plan", dir, k);
    return relay_plan_save(p, path) != RELAY_OK;
}

/* 24 x 20 from 2 x 2 blocks to 3 x 5 blocks on 4 ranks, op T: lattices of
 * up to 3 x 4 pieces; seeds k (p2p) and k + 1 (rounds). */
static int save_lattice_moves(const char *dir, int k)
{
    relay_layout *from, *to;
    relay_plan *p = NULL, *q = NULL;
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.schedule = RELAY_SCHED_ROUNDS;
    int bad = relay_layout_block_cyclic(&from, 20, 24, 2, 2, 2, 2, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR) ||
              relay_layout_block_cyclic(&to, 24, 20, 3, 5, 2, 2, RELAY_COL_MAJOR, 1, 0, 0, RELAY_ROW_MAJOR) ||
              relay_plan_transform(&p, 4, to, from, RELAY_OP_T, RELAY_FLOAT, NULL) || save(p, dir, k) ||
              relay_plan_transform(&q, 4, to, from, RELAY_OP_T, RELAY_FLOAT, &o) || save(q, dir, k + 1);
    relay_plan_free(p);
    relay_plan_free(q);
    relay_layout_free(from);
    relay_layout_free(to);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_seeds DIR\n");
        return 2;
    }
    relay_layout *a, *b, *g;
    int64_t rs[] = {0, 2, 7}, cs[] = {0, 4, 9}, offs[] = {0, 0, 20, 8}, lds[] = {2, 2, 5, 5};
    int owners[] = {0, 1, 1, 0};
    int bad = relay_layout_block_cyclic(&a, 9, 7, 2, 3, 2, 1, RELAY_ROW_MAJOR, 1, 0, 0, RELAY_COL_MAJOR) ||
              relay_layout_block_cyclic(&b, 7, 9, 4, 2, 1, 2, RELAY_COL_MAJOR, 0, 1, 0, RELAY_ROW_MAJOR) ||
              relay_layout_grid(&g, 2, 7, 9, 2, rs, 2, cs, owners, offs, lds, RELAY_COL_MAJOR);
    for (int op = 0; op < 3 && !bad; op++) {
        relay_plan *p;
        /* op N moves g (7 x 9) into b's layout; T and C move b^T into a's. */
        bad = relay_plan_transform(&p, 2, op ? a : b, op ? b : g, (relay_op)op, RELAY_DOUBLE, NULL) ||
              save(p, argv[1], op);
        relay_plan_free(p);
    }
    const relay_layout *as[2] = {a, g}, *bs[2] = {g, b};
    relay_op ops[2] = {RELAY_OP_T, RELAY_OP_N};
    relay_plan *batch;
    bad = bad || relay_plan_transform_batch(&batch, 2, 2, as, bs, ops, RELAY_CDOUBLE, NULL) || save(batch, argv[1], 3);
    bad = bad || save_lattice_moves(argv[1], 7);
    relay_bmmc perm;
    relay_plan *bmmc = NULL;
    bad = bad || relay_bmmc_bit_reversal(&perm, 9) || relay_plan_bmmc(&bmmc, &perm, 2, 3, 8) || save(bmmc, argv[1], 4);
    relay_plan_free(bmmc);
    relay_hsumma_params hp;
    relay_plan *hs = NULL, *hc = NULL;
    bad = bad || relay_hsumma_params_init(&hp, 40, 30, 50, 2, 3, RELAY_DOUBLE);
    hp.network = (relay_hsumma_network){1e-5, 1e-9, RELAY_BCAST_VAN_DE_GEIJN};
    bad = bad || relay_plan_hsumma(&hs, &hp) || save(hs, argv[1], 5);
    hp = (relay_hsumma_params){.m = 9, .n = 8, .k = 7, .grid_rows = 2, .grid_cols = 2, .group_rows = 2, .group_cols = 1,
                               .inner_block = 2, .outer_block = 3, .dist = RELAY_HSUMMA_BLOCK_CYCLIC, .dist_block = 2,
                               .type = RELAY_CFLOAT};
    bad = bad || relay_plan_hsumma(&hc, &hp) || save(hc, argv[1], 6);
    relay_plan_free(hs);
    relay_plan_free(hc);
    if (bad) fprintf(stderr, "make_seeds: %s\n", relay_last_error());
    return bad;
}
