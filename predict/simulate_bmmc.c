/* simulate_bmmc.c — the simulated replay of a BMMC plan.  Each rank is an
 * actor that does what the executor does (executor/bmmc_exec.c), in one
 * round:
 *
 *   apply W inside the rank       a scattering copy of its 2^(n-p)
 *                                 elements (at the transpose bandwidth:
 *                                 its writes stride as a transpose's do);
 *   post every receive and send   one message of a block (2^(n-p-r)
 *                                 elements) with each of its 2^r partners
 *                                 but itself;
 *   place its own block, then     each arriving block as it lands, again
 *                                 a scattering copy; then wait for the
 *                                 sends.
 *
 * Partners come from the plan's factors (rl_bmmc_partners), messages from
 * engine.h's ordered pairs. */
#include <stdio.h>
#include <stdlib.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>

#include "engine.h"
#include "simulate_kinds.h"

typedef struct {
    const rl_bmmc *b;
    const machine *m;
    relay_prediction *out;
    double *rank_seconds;
} bmmc_sim;

typedef struct {
    bmmc_sim *sim;
    int rank;
} bmmc_actor;

/* One rank's buffers for its 2^r blocks. */
typedef struct {
    int *to, *from;
    int *slot;                   /* recvs[k] lands in landed[slot[k]] */
    sg_comm_t *sends, *recvs;
    pair_message **landed;
} bmmc_scratch;

static int alloc_scratch(bmmc_scratch *x, int nblocks)
{
    x->to = malloc((size_t)nblocks * sizeof *x->to);
    x->from = malloc((size_t)nblocks * sizeof *x->from);
    x->slot = malloc((size_t)nblocks * sizeof *x->slot);
    x->sends = malloc((size_t)nblocks * sizeof *x->sends);
    x->recvs = malloc((size_t)nblocks * sizeof *x->recvs);
    x->landed = malloc((size_t)nblocks * sizeof *x->landed);
    return x->to && x->from && x->slot && x->sends && x->recvs && x->landed ? 0 : -1;
}

static void free_scratch(bmmc_scratch *x)
{
    free(x->to);
    free(x->from);
    free(x->slot);
    free(x->sends);
    free(x->recvs);
    free(x->landed);
}

/* Waits for the posted receives, placing each block as it lands. */
static void place_arrivals(const bmmc_sim *sim, bmmc_scratch *x, int pending, int64_t block_bytes)
{
    int *slot = x->slot;
    for (int k = 0; k < pending; k++) slot[k] = k;
    while (pending > 0) {
        int k = (int)sg_comm_wait_any(x->recvs, (size_t)pending);
        pair_landed(sim->out, x->landed[slot[k]]);
        spend(copy_seconds(sim->m, block_bytes, 0, block_bytes));
        pending--;
        x->recvs[k] = x->recvs[pending];
        slot[k] = slot[pending];
    }
}

static void run_rank(int argc, char **argv)
{
    const bmmc_actor *a = sg_actor_self_get_data();
    const bmmc_sim *sim = a->sim;
    const rl_bmmc *b = sim->b;
    int nblocks = 1 << b->rank;
    int64_t elem = b->elem_size, rank_bytes = ((int64_t)1 << (b->n - b->p)) * elem, block_bytes = rank_bytes / nblocks;
    bmmc_scratch x;
    if (alloc_scratch(&x, nblocks)) {
        fprintf(stderr, "relay_plan_predict: out of memory simulating rank %d\n", a->rank);
        abort();
    }
    int own = rl_bmmc_partners(b, a->rank, nblocks, x.to, x.from), nrecv = 0, nsend = 0;
    spend(copy_seconds(sim->m, rank_bytes, 0, rank_bytes));
    for (int blk = 0; blk < nblocks; blk++)
        if (blk != own) {
            x.recvs[nrecv] = pair_receive_async(x.from[blk], a->rank, &x.landed[nrecv]);
            nrecv++;
        }
    for (int blk = 0; blk < nblocks; blk++)
        if (blk != own) x.sends[nsend++] = pair_send_async(sim->m, a->rank, x.to[blk], block_bytes);
    if (own >= 0) spend(copy_seconds(sim->m, block_bytes, 0, block_bytes));
    place_arrivals(sim, &x, nrecv, block_bytes);
    sg_comm_wait_all(x.sends, (size_t)nsend);
    sim->rank_seconds[a->rank] = simgrid_get_clock();
    free_scratch(&x);
}

int simulate_bmmc(const relay_plan *p, const machine *m, relay_prediction *out, double *rank_seconds)
{
    bmmc_sim sim = {p->bmmc, m, out, rank_seconds};
    *out = (relay_prediction){.schedule = RELAY_SCHED_AUTO};
    bmmc_actor *actors = malloc((size_t)p->nranks * sizeof *actors);
    int failed = !actors || start_engine(m, p->nranks);
    for (int r = 0; !failed && r < p->nranks; r++) actors[r] = (bmmc_actor){&sim, r};
    if (!failed) failed = run_actors(m, p->nranks, run_rank, actors, sizeof *actors, rank_seconds, out);
    free(actors);
    return failed ? -1 : 0;
}
