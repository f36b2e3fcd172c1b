/* bmmc_partners.c — where a BMMC plan's blocks go and come from, derived
 * by each rank from the plan's factors (plan_internal.h).  Apart from
 * bmmc.c so that relay_predict, which simulates the exchange, compiles it
 * too: nothing here is exported. */
#include <stdint.h>

#include "plan_internal.h"

/* In processor-major coordinates V = [alpha beta; gamma delta]; block b of
 * rank k (the elements whose offsets' top r bits are b) goes to rank
 * gamma b ^ delta k ^ c_rank, and the block b that lands on rank k comes
 * from the rank s with delta s = k ^ c_rank ^ gamma b. */
static uint64_t rank_part(const rl_bmmc *b, uint64_t v) { return v >> (b->n - b->p); }

int rl_bmmc_partners(const rl_bmmc *b, int rank, int count, int *to, int *from)
{
    int off = b->n - b->p, own = -1;
    rl_gf2 delta = {b->p, {0}}, delta_inv;
    for (int j = 0; j < b->p; j++) delta.col[j] = rank_part(b, b->v.col[off + j]);
    rl_gf2_inverse(&delta, &delta_inv); /* nonsingular: rl_bmmc_validate */
    uint64_t k = (uint64_t)rank, c_rank = rank_part(b, b->cv), delta_k = rl_gf2_apply(&delta, k);
    for (int blk = 0; blk < count; blk++) {
        uint64_t gamma_b = rank_part(b, rl_gf2_apply_cols(&b->v, off - b->rank, b->rank, (uint64_t)blk));
        to[blk] = (int)(gamma_b ^ delta_k ^ c_rank);
        from[blk] = (int)rl_gf2_apply(&delta_inv, k ^ c_rank ^ gamma_b);
        if (to[blk] == rank) own = blk;
    }
    return own;
}

/* Rank k keeps a block when k ^ delta k ^ c_rank is in gamma's span. */
void rl_bmmc_keeps_block(const rl_bmmc *b, int first_rank, int count, unsigned char *keeps)
{
    int off = b->n - b->p;
    rl_gf2_basis gamma = {0};
    rl_gf2 delta = {b->p, {0}};
    for (int j = off - b->rank; j < off; j++) rl_gf2_basis_add(&gamma, rank_part(b, b->v.col[j]), j);
    for (int j = 0; j < b->p; j++) delta.col[j] = rank_part(b, b->v.col[off + j]);
    for (int i = 0; i < count; i++) {
        uint64_t k = (uint64_t)(first_rank + i), combo;
        keeps[i] = rl_gf2_reduce(&gamma, k ^ rl_gf2_apply(&delta, k) ^ rank_part(b, b->cv), &combo) == 0;
    }
}
