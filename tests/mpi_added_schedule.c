/* mpi_added_schedule.c — a schedule added as one file and one table line
 * replays plans right: schedule_p2p_reversed.c (p2p, its sends started
 * last first) and the line RELAY_TEST_SCHEDULES adds to the executor's
 * schedule table, nothing else.  Random transform plans (one or two
 * pairs, ops N, T and C, every element type, random block-cyclic and grid
 * layouts, fixed seeds) are bound replaying that schedule, as a tuned
 * choice would name it; the executor must say it replays it
 * (relay_exec_schedule), and every element of A on every rank must be what
 * the serial reference computes, B unchanged, replay after replay with
 * fresh values and scalars.  Rank 0 prints "mpi_added_schedule: N passed,
 * M failed"; the exit status is non-zero on failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "exec_kind.h"
#include "schedule.h"
#include "transform_case.h"

enum { CASES = 60, REPLAYS = 3 };

static void random_case(transform_case *tc, int index, int P)
{
    ref_rng rng;
    ref_rng_seed(&rng, 0x5c4ed00 + (uint64_t)index);
    relay_type type = case_types[ref_rng_range(&rng, 0, 3)];
    char name[32];
    snprintf(name, sizeof name, "random %d", index);
    case_init(tc, name, P, type, case_random_scalar(&rng, type), case_random_scalar(&rng, type));
    tc->schedule = RELAY_SCHED_P2P;
    int count = ref_rng_percent(&rng, 25) ? 2 : 1;
    for (int k = 0; k < count; k++) {
        relay_op op = case_ops[ref_rng_range(&rng, 0, 2)];
        int64_t m = case_random_extent(&rng), n = case_random_extent(&rng);
        case_add_random_pair(tc, &rng, op, m, n);
    }
}

/* One replay over fresh buffers: the wrong buffers on this rank. */
static int replay_once(relay_exec *e, const transform_case *tc, const ref_layout *dst_ref, int rank, uint64_t seed)
{
    ref_buffer a[CASE_MAX_PAIRS], b[CASE_MAX_PAIRS];
    ref_transform t[CASE_MAX_PAIRS];
    void *dst[CASE_MAX_PAIRS];
    const void *src[CASE_MAX_PAIRS];
    for (int k = 0; k < tc->count; k++) {
        t[k] = case_pair_transform(tc, k, tc->alpha, tc->beta, seed + 2 * (uint64_t)k);
        ref_buffer_make(&a[k], &dst_ref[k], rank, tc->type);
        ref_buffer_make(&b[k], &tc->src[k], rank, tc->type);
        case_fill(&t[k], &a[k], &b[k]);
        dst[k] = a[k].data;
        src[k] = b[k].data;
    }
    case_scalar alpha, beta;
    ref_store(tc->type, &alpha, 0, tc->alpha);
    ref_store(tc->type, &beta, 0, tc->beta);
    relay_status st = relay_exec_run(e, dst, src, &alpha, &beta);
    int wrong = st != RELAY_OK;
    if (st) printf("rank %d: relay_exec_run: %s\n", rank, relay_last_error());
    for (int k = 0; k < tc->count; k++) {
        wrong += !st && (!ref_buffer_is(&a[k], &t[k]) || !ref_buffer_holds(&b[k], t[k].seed_b));
        ref_buffer_free(&a[k]);
        ref_buffer_free(&b[k]);
    }
    return wrong;
}

/* The case planned, bound replaying the added schedule and replayed: the
 * failures this rank saw. */
static int run_case(const transform_case *tc, int rank, int number)
{
    relay_plan *plan;
    char why[512];
    if (case_plan(tc, &plan, why, sizeof why) != RELAY_OK) {
        printf("case %d: planning failed: %s\n", number, why);
        return 1;
    }
    int sigma[64];
    ref_layout dst_ref[CASE_MAX_PAIRS];
    relay_plan_relabeling(plan, sigma);
    case_relabel_dst(tc, sigma, dst_ref);
    relay_exec *e = NULL;
    relay_tuning_choice added = {.schedule = rl_schedule_p2p_reversed.id};
    relay_status st = rl_exec_create_choosing(&e, plan, MPI_COMM_WORLD, &added);
    relay_schedule replayed = RELAY_SCHED_AUTO;
    int packed, failures = st != RELAY_OK;
    if (!st) relay_exec_schedule(e, &replayed, &packed);
    if (!st && replayed != rl_schedule_p2p_reversed.id) {
        printf("case %d rank %d: the executor replays schedule %d, not the one added\n", number, rank, (int)replayed);
        failures++;
    }
    for (int r = 0; !st && r < REPLAYS; r++) failures += replay_once(e, tc, dst_ref, rank, 1000u * (uint64_t)number + 10u * (uint64_t)r + 1);
    if (st) printf("case %d rank %d: binding failed: %s\n", number, rank, relay_last_error());
    relay_exec_free(e);
    relay_plan_free(plan);
    case_free_dst(tc, dst_ref);
    return failures;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, passed = 0, failed = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int c = 0; c < CASES; c++) {
        transform_case tc;
        random_case(&tc, c, size);
        int mine = run_case(&tc, rank, c), total;
        MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (total) failed++;
        else passed++;
        case_free(&tc);
    }
    if (rank == 0) printf("mpi_added_schedule: %d passed, %d failed\n", passed, failed);
    MPI_Finalize();
    return failed ? 1 : 0;
}
