/* tune_rules.c — how well relay_exec_tune's choice holds up afterwards:
 * the choice its rule keeps (executor/tune_pick.c, the lowest
 * median) from a short run of timed replays, against no tuning at all (the
 * first choice, plain p2p), on the same times.
 * One executor per way the plan can replay (those relay_exec_tune finds,
 * each bound through a one-choice tuning), timed in R rounds of one replay
 * each, in the balanced order of executor/balanced_order.h; a replay's
 * time is the slowest rank's.  Rank 0 then slides a window of W rounds
 * (a tuning of W replays) over the run and lets each rule pick from the
 * window; the pick's cost is its median over the rounds outside the
 * window divided by the best median there.  Prints, per rule, the mean
 * and worst cost and how often it picked each choice; with CSV, writes
 * the times there too (one row per round, one column per choice, seconds)
 * for other rules to be tried on (bench/tune_rules.py).
 *   mpiexec -n P tune_rules PLAN [R] [W] [CSV]        (R 60, W 5) */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "relay/relay.h"
#include "tune_pick.h"

enum { MOST = RELAY_TUNING_MAX_CHOICES };

static void must(relay_status st, const char *what)
{
    if (st == RELAY_OK) return;
    fprintf(stderr, "tune_rules: %s: %s\n", what, relay_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static const char *choice_name(const relay_tuning_choice *c)
{
    static const char *names[] = {"auto", "p2p", "rounds", "alltoallv", "neighbor"};
    static char name[64];
    snprintf(name, sizeof name, "%s%s%s%s", names[(unsigned)c->schedule % 5], c->packed ? " packed" : "",
             c->window ? " window" : "", c->forward ? " forward" : "");
    return name;
}

/* Scratch buffers of this rank's sizes, zeroed. */
static void **scratch(const relay_plan *p, int is_dst, int rank)
{
    void **b = calloc((size_t)relay_plan_count(p), sizeof *b);
    for (int k = 0; b && k < relay_plan_count(p); k++)
        if (!(b[k] = calloc((size_t)relay_plan_buffer_elems(p, is_dst, k, rank) + 1, relay_type_size(relay_plan_type(p)))))
            must(RELAY_ERR_NOMEM, "a scratch buffer");
    return b;
}

/* times[k * rounds + r]: choice k's time in round r. */
static void time_choices(relay_exec **e, int n, int rounds, void **dst, void **src, double *times)
{
    for (int r = -2; r < rounds; r++)
        for (int s = 0; s < n; s++) {
            int k = r < 0 ? s : rl_balanced_order(r, s, n);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            must(relay_exec_run(e[k], dst, (const void *const *)src, NULL, NULL), "a replay");
            if (r >= 0) times[k * rounds + r] = MPI_Wtime() - t0;
        }
    MPI_Allreduce(MPI_IN_PLACE, times, n * rounds, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

/* Choice k's median over the rounds outside [from, from + w). */
static double median_outside(const double *times, int k, int rounds, int from, int w)
{
    double v[1000];
    int m = 0;
    for (int r = 0; r < rounds; r++)
        if (r < from || r >= from + w) v[m++] = times[k * rounds + r];
    return median_of(v, m);
}

/* What tune_pick.c keeps from rounds [from, from + w). */
static int pick(const double *times, int n, int rounds, int from, int w)
{
    double window[MOST * 1000], medians[MOST];
    for (int k = 0; k < n; k++) memcpy(window + k * w, times + k * rounds + from, sizeof *window * (size_t)w);
    return rl_tune_pick(window, n, w, medians);
}

static void report(const relay_tuning *t, const double *times, int rounds, int w)
{
    int n = t->ntimed;
    for (int k = 0; k < n; k++) {
        double v[1000];
        memcpy(v, times + k * rounds, sizeof *v * (size_t)rounds);
        double med = median_of(v, rounds);
        printf("%-18s median %8.3f ms, quartiles %8.3f %8.3f ms, worst %8.3f ms\n", choice_name(&t->choices[k]), 1e3 * med,
               1e3 * v[(rounds + 3) / 4 - 1], 1e3 * v[(3 * rounds + 3) / 4 - 1], 1e3 * v[rounds - 1]); /* nearest ranks */
    }
    for (int tuned = 1; tuned >= 0; tuned--) {
        int picks[MOST] = {0}, windows = rounds - w + 1;
        double sum = 0, worst = 0;
        for (int from = 0; from < windows; from++) {
            int k = tuned ? pick(times, n, rounds, from, w) : 0;
            double best = median_outside(times, 0, rounds, from, w);
            for (int j = 1; j < n; j++) {
                double m = median_outside(times, j, rounds, from, w);
                if (m < best) best = m;
            }
            double cost = median_outside(times, k, rounds, from, w) / best;
            sum += cost;
            worst = cost > worst ? cost : worst;
            picks[k]++;
        }
        printf("%-16s %d windows of %d: cost mean %.3f, worst %.3f; picks", tuned ? "tuned (relay)" : "untuned (p2p)",
               windows, w, sum / windows, worst);
        for (int k = 0; k < n; k++) printf(" %s %d,", choice_name(&t->choices[k]), picks[k]);
        printf("\n");
    }
}

/* A whole number written in full, or -1. */
static int whole(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    return end != s && !*end && v >= 0 && v <= 1000000 ? (int)v : -1;
}

static void write_csv(const char *path, const relay_tuning *t, const double *times, int rounds)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "tune_rules: cannot write %s\n", path);
        return;
    }
    for (int k = 0; k < t->ntimed; k++) fprintf(f, "%s%s", k ? "," : "", choice_name(&t->choices[k]));
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < t->ntimed; k++) fprintf(f, "%s%.9f", k ? "," : "\n", times[k * rounds + r]);
    fprintf(f, "\n");
    fclose(f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rounds = argc > 2 ? whole(argv[2]) : 60, w = argc > 3 ? whole(argv[3]) : 5;
    if (argc < 2 || rounds < 3 || rounds > 1000 || w < 1 || w >= rounds) {
        if (!rank) fprintf(stderr, "usage: mpiexec -n P tune_rules PLAN [R (3-1000)] [W (1 to R-1)]\n");
        MPI_Finalize();
        return 2;
    }
    relay_plan *p;
    must(relay_plan_load(&p, argv[1], rank), "loading the plan");
    relay_tuning all;
    must(relay_exec_tune(p, MPI_COMM_WORLD, 1), "finding the choices");
    must(relay_plan_tuning(p, &all), "the choices");
    relay_exec *e[MOST];
    for (int k = 0; k < all.ntimed; k++) {
        relay_tuning one = all;
        one.ntimed = 1;
        one.best = 0;
        one.choices[0] = all.choices[k];
        must(relay_plan_set_tuning(p, &one), "a one-choice tuning");
        must(relay_exec_create(&e[k], p, MPI_COMM_WORLD), "binding a choice");
    }
    void **dst = scratch(p, 1, rank), **src = scratch(p, 0, rank);
    double *times = calloc((size_t)all.ntimed * (size_t)rounds, sizeof *times);
    if (!dst || !src || !times) must(RELAY_ERR_NOMEM, "the scratch buffers");
    time_choices(e, all.ntimed, rounds, dst, src, times);
    if (!rank) report(&all, times, rounds, w);
    if (!rank && argc > 4) write_csv(argv[4], &all, times, rounds);
    for (int k = 0; k < all.ntimed; k++) relay_exec_free(e[k]);
    for (int k = 0; k < relay_plan_count(p); k++) {
        free(dst[k]);
        free(src[k]);
    }
    free(dst);
    free(src);
    free(times);
    relay_plan_free(p);
    MPI_Finalize();
    return 0;
}
