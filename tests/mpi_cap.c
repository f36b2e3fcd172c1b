/* mpi_cap.c — replays under a memory cap (relay_plan_options'
 * max_buffer_bytes), beside mpi_transform's random capped cases:
 *   - a 768 x 768 transpose from 32 x 32 blocks on 1 x P to 96 x 96 on
 *     P x 1, capped at 64 KiB, 16 KiB + 8 and 1600 bytes (chunks of half
 *     the cap, two in flight each way) and 64 bytes (too small for two
 *     slots: one chunk at a time): A is what
 *     the serial reference says (alpha and beta random, gaps untouched),
 *     from the plan and from the plan reloaded for this rank alone, and
 *     each rank's staging memory (relay_exec_get_memory) stays within two
 *     buffers of the cap and a small allowance for the chunks' lists,
 *     where the same plan uncapped stages far more;
 *   - a plan file keeps the cap, which changes the fingerprint;
 *   - the caps whose chunks reach 4 KiB (64 KiB, 16 KiB + 8) replayed
 *     twice by one executor, which under RELAY_SHM=on (CMakeLists.txt)
 *     takes the shared-memory window;
 *   - tuning a capped plan times rounds alone, through MPI and, where
 *     ranks share a node, through the window, whose choice replays right
 *     within the cap's memory, in no more than through MPI, and less on a
 *     rank that sends every chunk through it (no send buffer of its own);
 *     a tuning that would replay it otherwise is refused;
 *   - refusals: a cap with another schedule than auto or rounds, a cap
 *     below one element, a negative one. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "mpi_check.h"
#include "ref_buffer.h"
#include "relay/relay.h"

enum { N = 768 };

/* 32 x 32 blocks on 1 x P (B, N x N) and 96 x 96 blocks on P x 1 (A). */
static void layouts(ref_layout *a, ref_layout *b, int P)
{
    ref_bc_params pb = {.m = N, .n = N, .mb = 32, .nb = 32, .nprow = 1, .npcol = P, .grid_order = RELAY_ROW_MAJOR,
                        .elem_order = RELAY_COL_MAJOR};
    ref_bc_params pa = {.m = N, .n = N, .mb = 96, .nb = 96, .nprow = P, .npcol = 1, .grid_order = RELAY_ROW_MAJOR,
                        .elem_order = RELAY_ROW_MAJOR};
    ref_layout_block_cyclic(b, &pb);
    ref_layout_block_cyclic(a, &pa);
}

static relay_plan *plan_capped(const ref_layout *a, const ref_layout *b, int P, int64_t cap, relay_schedule s)
{
    relay_plan_options o;
    relay_plan_options_init(&o);
    o.max_buffer_bytes = cap;
    o.schedule = s;
    return ref_plan_of(P, a, b, NULL, RELAY_OP_T, RELAY_DOUBLE, &o);
}

/* One replay of e, A := alpha B^T + beta A over fresh buffers, compared
 * with the serial reference. */
static int replay_right(relay_exec *e, const ref_layout *a, const ref_layout *b, uint64_t seed)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ref_buffer ba, bb;
    ref_buffer_make(&ba, a, rank, RELAY_DOUBLE);
    ref_buffer_make(&bb, b, rank, RELAY_DOUBLE);
    ref_buffer_fill(&ba, seed + 1);
    ref_buffer_fill(&bb, seed);
    double alpha = seed % 2 ? -2 : 0.5, beta = seed % 3 ? 1 : -1;
    int ok = relay_exec_run(e, (void *[]){ba.data}, (const void *[]){bb.data}, &alpha, &beta) == RELAY_OK;
    ref_transform want = {.op = RELAY_OP_T, .type = RELAY_DOUBLE, .alpha = alpha, .beta = beta, .read_a = 1,
                          .seed_b = seed, .seed_a = seed + 1};
    ok = ok && ref_buffer_is(&ba, &want) && ref_buffer_holds(&bb, seed);
    ref_buffer_free(&ba);
    ref_buffer_free(&bb);
    return ok;
}

/* `replays` replays of one executor (through the shared-memory window
 * where RELAY_SHM=on or the plan's tuning says so: a second reuses what
 * the first left, notices included), each right; *mem its memory. */
static int replays_right(const relay_plan *p, const ref_layout *a, const ref_layout *b, uint64_t seed, int replays,
                         relay_exec_memory *mem)
{
    relay_exec *e = NULL;
    *mem = (relay_exec_memory){0};
    int made = p && relay_exec_create(&e, p, MPI_COMM_WORLD) == RELAY_OK, ok = made; /* agreed by every rank */
    for (int k = 0; k < replays && made; k++) ok = replay_right(e, a, b, seed + 100 * (uint64_t)k) && ok; /* all replay */
    ok = ok && relay_exec_get_memory(e, mem) == RELAY_OK;
    relay_exec_free(e);
    return ok;
}

/* The staging a rank may hold under `cap`: two buffers of the cap, and the
 * lists of the chunks (each a few hundred bytes of walks and tasks) and of
 * the plan's lattices. */
static int64_t allowance_of(int64_t cap, int64_t remote_bytes)
{
    return 2 * (cap + 64) + 64 * 1024 + 512 * (2 * remote_bytes / cap + 64);
}

static void check_cap(const ref_layout *a, const ref_layout *b, int P, int rank, int64_t cap, const relay_exec_memory *uncapped)
{
    relay_plan *p = plan_capped(a, b, P, cap, cap % 2 ? RELAY_SCHED_AUTO : RELAY_SCHED_ROUNDS);
    relay_plan *mine = p ? ref_plan_reloaded(p, rank) : NULL;
    relay_exec_memory m, m_mine;
    check(p && relay_plan_schedule(p) == RELAY_SCHED_ROUNDS && relay_plan_max_buffer_bytes(p) == cap,
          "a capped plan replays in rounds and keeps its cap");
    /* Twice where chunks may take the window (4 KiB of a cap of 8 KiB or
     * more); once below: 64-byte chunks, a message each, took MPICH (4 ranks
     * on 2 cores) minutes for a second replay. */
    int replays = cap >= 8192 ? 2 : 1;
    check(replays_right(p, a, b, 11 + (uint64_t)cap, replays, &m), "a capped replay matches the serial reference");
    check(replays_right(mine, a, b, 12 + (uint64_t)cap, replays, &m_mine), "... and so does the plan reloaded for this rank");
    int64_t extra = m.extra_bytes, extra_mine = m_mine.extra_bytes;
    int64_t allowance = allowance_of(cap, uncapped->remote_bytes);
    if (extra > allowance || extra_mine > allowance)
        printf("  rank %d, cap %lld: extra %lld and %lld bytes, allowance %lld\n", rank, (long long)cap, (long long)extra,
               (long long)extra_mine, (long long)allowance);
    check(extra <= allowance && extra_mine <= allowance, "staging memory stays within the cap's two buffers");
    if (cap >= 64 * 1024) /* the largest cap's allowance is far below what the plan stages uncapped */
        check(P == 1 || uncapped->extra_bytes > 2 * allowance,
              "the plan uncapped stages far more than the allowance (the check measures)");
    relay_plan_free(mine);
    relay_plan_free(p);
}

/* A capped replay through the window against the same through MPI. */
static void check_window_memory(const relay_exec_memory *by_mpi, const relay_exec_memory *by_window, int64_t cap)
{
    check(by_window->extra_bytes <= by_mpi->extra_bytes + 4096,
          "... and stage no more than through MPI (the window's segment is the receive buffer, not one more)");
    int64_t shed = by_mpi->extra_bytes - by_window->extra_bytes, most_shed = 0;
    MPI_Allreduce(&shed, &most_shed, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    check(most_shed >= cap / 4, "... and less where a rank sends every chunk through the window (no send buffer)");
}

static void check_file_and_tuning(const ref_layout *a, const ref_layout *b, int P)
{
    enum { CAP = 64 * 1024 }; /* chunks large enough for the window (shm/) */
    relay_plan *p = plan_capped(a, b, P, CAP, RELAY_SCHED_ROUNDS), *plain = plan_capped(a, b, P, 0, RELAY_SCHED_ROUNDS);
    relay_plan *all = p ? ref_plan_reloaded(p, -1) : NULL;
    check(all && relay_plan_max_buffer_bytes(all) == CAP && relay_plan_fingerprint(all) == relay_plan_fingerprint(p) &&
              relay_plan_fingerprint(p) != relay_plan_fingerprint(plain),
          "a plan file keeps the cap, part of the fingerprint");
    relay_tuning t = {0};
    const char *shm = getenv("RELAY_SHM");
    int windows = P > 1 && !(shm && !strcmp(shm, "off")); /* one node here */
    check(relay_exec_tune(all, MPI_COMM_WORLD, 2) == RELAY_OK && relay_plan_tuning(all, &t) == RELAY_OK &&
              t.ntimed == 1 + windows && t.choices[0].schedule == RELAY_SCHED_ROUNDS && !t.choices[0].window,
          "tuning a capped plan times rounds alone: through MPI, and through the window where ranks share a node");
    if (windows) {
        check(t.choices[1].schedule == RELAY_SCHED_ROUNDS && t.choices[1].window, "... the window's choice is rounds");
        relay_tuning chosen = t;
        relay_exec_memory by_mpi = {0}, by_window = {0};
        chosen.best = 0;
        int mpi_ok = relay_plan_set_tuning(all, &chosen) == RELAY_OK && replays_right(all, a, b, 40, 1, &by_mpi);
        check(mpi_ok, "replays of the choice through MPI match the serial reference");
        chosen.best = 1;
        int window_ok = relay_plan_set_tuning(all, &chosen) == RELAY_OK && replays_right(all, a, b, 41, 2, &by_window);
        check(window_ok, "replays of the window's choice match the serial reference");
        check(by_window.extra_bytes <= allowance_of(CAP, by_window.remote_bytes),
              "... and stage no more than the cap's two buffers (the window's segment is the receive buffer)");
        int both_ok = mpi_ok && window_ok, all_ok = 0;
        MPI_Allreduce(&both_ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all_ok && !(shm && !strcmp(shm, "on"))) /* else both choices take the window */
            check_window_memory(&by_mpi, &by_window, CAP);
    }
    t.choices[0].schedule = RELAY_SCHED_P2P;
    check(relay_plan_set_tuning(all, &t) == RELAY_ERR_ARG, "a tuning that replays a capped plan without rounds is refused");
    relay_plan_free(all);
    relay_plan_free(plain);
    relay_plan_free(p);
}

static void check_refusals(const ref_layout *a, const ref_layout *b, int P)
{
    static const relay_schedule others[] = {RELAY_SCHED_P2P, RELAY_SCHED_ALLTOALLV, RELAY_SCHED_NEIGHBOR};
    for (int k = 0; k < 3; k++)
        check(!plan_capped(a, b, P, 4096, others[k]) && relay_last_error()[0],
              "a cap with a schedule other than auto or rounds is refused");
    check(!plan_capped(a, b, P, 7, RELAY_SCHED_AUTO), "a cap below one element is refused");
    check(!plan_capped(a, b, P, -1, RELAY_SCHED_AUTO), "a negative cap is refused");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    ref_layout a, b;
    layouts(&a, &b, P);
    relay_plan *uncapped = plan_capped(&a, &b, P, 0, RELAY_SCHED_P2P);
    relay_exec_memory uncapped_memory;
    check(replays_right(uncapped, &a, &b, 3, 1, &uncapped_memory), "the uncapped replay matches the serial reference");
    relay_plan_free(uncapped);
    static const int64_t caps[] = {64 * 1024, 16 * 1024 + 8, 1600, 64};
    for (int k = 0; k < 4; k++) check_cap(&a, &b, P, rank, caps[k], &uncapped_memory);
    check_file_and_tuning(&a, &b, P);
    check_refusals(&a, &b, P);
    ref_layout_free(&a);
    ref_layout_free(&b);
    int status = check_summary("mpi_cap");
    MPI_Finalize();
    return status;
}
