/* simulate_hsumma.c — the simulated replay of a SUMMA or HSUMMA plan.
 * Each rank is an actor that walks the plan's steps as the executor does
 * (executor/hsumma_exec.c):
 *
 *   C := beta C                     a copy of C through memory;
 *   per outer step                  the owners copy their panels into the
 *                                   outer buffers (B's transposing), then
 *                                   A's panel is broadcast over OUTER_ROW and
 *                                   B's over OUTER_COL (between groups);
 *   per inner step                  A's piece over INNER_ROW, B's over
 *                                   INNER_COL (inside a group), then one
 *                                   gemm of 2 m n k flops (8 m n k complex)
 *                                   at the machine's gemm_flops.
 *
 * The broadcasts are broadcast.c's, with the algorithm the plan's cost
 * model names.  Copies and gemms run on the node's cores (engine.h).  A
 * rank's time in broadcasts is its communication time, the rest its
 * computation; the prediction reports the slowest rank's of each.  Groups
 * left to bind time are chosen here as relay_exec_create would choose them
 * on this machine: relay_hsumma_best_groups with alpha = message_seconds +
 * link_latency and beta = 1 / link_bandwidth (a node: its own). */
#include <stdio.h>
#include <stdlib.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>

#include "broadcast.h"
#include "engine.h"
#include "hsumma_dist.h"
#include "simulate_kinds.h"

enum { OUTER_ROW, OUTER_COL, INNER_ROW, INNER_COL, NCOMMS };

typedef struct {
    relay_hsumma_params p;       /* groups settled */
    rl_hsumma_dims d;
    const machine *m;
    int64_t esz, max_outer, steps;
    bcast_setting bcast;
} hsumma_sim;

typedef struct {
    hsumma_sim *sim;
    int rank;
    double comm, compute, done;
} hsumma_actor;

/* The four communicators of rank pl (hsumma_exec.c's split_comms). */
static void comms_of(const relay_hsumma_params *p, const rl_hsumma_place *pl, sim_comm c[NCOMMS])
{
    int t = p->grid_cols;
    c[OUTER_ROW] = (sim_comm){pl->row * t + pl->j, pl->in_cols, pl->group_cols, pl->y};
    c[OUTER_COL] = (sim_comm){pl->i * t + pl->col, pl->in_rows * t, pl->group_rows, pl->x};
    c[INNER_ROW] = (sim_comm){pl->row * t + pl->y * pl->in_cols, 1, pl->in_cols, pl->j};
    c[INNER_COL] = (sim_comm){pl->x * pl->in_rows * t + pl->col, t, pl->in_rows, pl->i};
}

/* A broadcast of elems elements, skipped as the executor skips it. */
static void bcast(hsumma_actor *a, const sim_comm *c, int root, int64_t elems)
{
    if (elems == 0 || c->size == 1) return;
    double t0 = simgrid_get_clock();
    simulate_bcast(&a->sim->bcast, c, root, elems * a->sim->esz);
    a->comm += simgrid_get_clock() - t0;
}

static void work(hsumma_actor *a, double seconds)
{
    double t0 = simgrid_get_clock();
    spend(seconds);
    a->compute += simgrid_get_clock() - t0;
}

/* Rank a's part of the replay: the executor's walk. */
static void walk(hsumma_actor *a, const rl_hsumma_place *pl, const sim_comm *c, int64_t mloc, int64_t nloc)
{
    const hsumma_sim *sim = a->sim;
    const machine *m = sim->m;
    double flops_per = sim->p.type == RELAY_CFLOAT || sim->p.type == RELAY_CDOUBLE ? 8 : 2;
    rl_outer_step s;
    work(a, copy_seconds(m, mloc * nloc * sim->esz, 0, 0));
    for (int64_t k0 = 0, q = 0; k0 < sim->p.k && q != sim->max_outer; k0 = s.k1, q++) {
        rl_hsumma_outer_step(&sim->p, &sim->d, k0, &s);
        int64_t w = s.k1 - s.k0;
        if (pl->col == s.a_col) work(a, copy_seconds(m, mloc * w * sim->esz, 0, 0));
        if (pl->row == s.b_row) work(a, copy_seconds(m, nloc * w * sim->esz, 0, nloc * w * sim->esz));
        if (pl->j == s.a_col % pl->in_cols) bcast(a, &c[OUTER_ROW], s.a_col / pl->in_cols, mloc * w);
        if (pl->i == s.b_row % pl->in_rows) bcast(a, &c[OUTER_COL], s.b_row / pl->in_rows, nloc * w);
        for (int64_t i0 = s.k0; i0 < s.k1; i0 = rl_hsumma_inner_end(&sim->p, &s, i0)) {
            int64_t width = rl_hsumma_inner_end(&sim->p, &s, i0) - i0;
            bcast(a, &c[INNER_ROW], s.a_col % pl->in_cols, mloc * width);
            bcast(a, &c[INNER_COL], s.b_row % pl->in_rows, nloc * width);
            work(a, flops_per * (double)(mloc * nloc * width) / m->gemm_flops);
        }
    }
}

static void run_rank(int argc, char **argv)
{
    hsumma_actor *a = sg_actor_self_get_data();
    const relay_hsumma_params *p = &a->sim->p;
    rl_hsumma_place pl;
    rl_hsumma_place_of(p, p->group_rows, p->group_cols, a->rank, &pl);
    sim_comm c[NCOMMS];
    comms_of(p, &pl, c);
    walk(a, &pl, c, rl_dim_local_len(&a->sim->d.m, pl.row), rl_dim_local_len(&a->sim->d.n, pl.col));
    a->done = simgrid_get_clock();
}

/* Groups chosen at bind: as the executor would choose them on m. */
static int settle_groups(relay_hsumma_params *p, const machine *m)
{
    if (p->group_rows) return 0;
    int network = m->topology != MACHINE_NODE;
    relay_hsumma_network net = {(network ? m->link_latency : m->node_latency) + m->message_seconds,
                                1 / (network ? m->link_bandwidth : m->node_bandwidth), p->network.bcast};
    return relay_hsumma_best_groups(p, &net, &p->group_rows, &p->group_cols) ? -1 : 0;
}

static int64_t outer_steps(const hsumma_sim *sim)
{
    rl_outer_step s;
    int64_t q = 0;
    for (int64_t k0 = 0; k0 < sim->p.k && q != sim->max_outer; k0 = s.k1, q++) rl_hsumma_outer_step(&sim->p, &sim->d, k0, &s);
    return q;
}

/* The slowest rank's times, into out and rank_seconds. */
static void summarise_hsumma(const hsumma_actor *actors, int nranks, relay_prediction *out, double *rank_seconds)
{
    for (int r = 0; r < nranks; r++) {
        rank_seconds[r] = actors[r].done;
        if (actors[r].comm > out->comm_seconds) out->comm_seconds = actors[r].comm;
        if (actors[r].compute > out->compute_seconds) out->compute_seconds = actors[r].compute;
    }
    summarise(nranks, rank_seconds, out);
}

int simulate_hsumma(const relay_plan *p, const machine *m, int64_t max_outer, relay_prediction *out,
                    double *rank_seconds)
{
    hsumma_sim sim = {.p = p->hsumma->params, .m = m, .esz = (int64_t)relay_type_size(p->hsumma->params.type),
                      .max_outer = max_outer};
    *out = (relay_prediction){.schedule = RELAY_SCHED_AUTO};
    sim.bcast = (bcast_setting){m, sim.p.network.bcast, out};
    rl_hsumma_dims_of(&sim.p, &sim.d);
    out->steps = outer_steps(&sim);
    hsumma_actor *actors = calloc((size_t)p->nranks, sizeof *actors);
    int failed = !actors || settle_groups(&sim.p, m) || start_engine(m, p->nranks);
    for (int r = 0; !failed && r < p->nranks; r++) actors[r] = (hsumma_actor){&sim, r, 0, 0, 0};
    if (!failed) failed = start_actors(m, p->nranks, run_rank, actors, sizeof *actors);
    if (!failed) {
        simgrid_run();
        summarise_hsumma(actors, p->nranks, out, rank_seconds);
        out->group_rows = sim.p.group_rows;
        out->group_cols = sim.p.group_cols;
    }
    free(actors);
    return failed ? -1 : 0;
}
