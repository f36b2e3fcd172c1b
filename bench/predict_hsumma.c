/* predict_hsumma.c — the HSUMMA paper's BlueGene/P figures by simulation
 * (docs/benchmarks.md, "Predicting a replay"): SUMMA and HSUMMA of
 * n x n x n doubles, b = B, on a grid of p ranks, predicted with
 * relay_plan_predict_hsumma on a machine file for every number of groups
 * G = 2^j (I x J as square as the grid allows, I <= J), a few outer steps
 * simulated and scaled to all n / B of them (every step is alike).
 *
 *   predict_hsumma MACHINE N B P STEPS BCAST [G...]
 *
 * Prints one row per G: groups, communication, computation and replay
 * seconds (scaled), SUMMA's communication over this G's, the messages of
 * the simulated steps and the simulation's wall seconds, in the order
 * given (the ratio once G = 1, SUMMA, has been predicted).  Without G:
 * every power of two from 1 to P.  BCAST is the
 * broadcast simulated: binomial or vdg (Van de Geijn). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "relay/relay.h"
#include "relay/predict.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The most square grid s x t = p with s <= t, and groups I x J = g with I
 * <= J, I dividing s and J dividing t; 0 when g does not fit. */
static int shape(int p, int g, int *s, int *t, int *I, int *J)
{
    for (*s = (int)sqrt((double)p); p % *s; --*s) {}
    *t = p / *s;
    for (*I = (int)sqrt((double)g); *I >= 1; --*I)
        if (g % *I == 0 && *s % *I == 0 && *t % (g / *I) == 0) break;
    *J = *I ? g / *I : 0;
    return *I >= 1;
}

/* One row: 0, or 1 when planning or predicting failed (said on stderr). */
/* What every row shares. */
typedef struct {
    const char *machine;
    int64_t n, b, steps;
    int p;
    relay_bcast_model bcast;
    double summa_comm;           /* G = 1's, once predicted */
} figure;

static int predict_g(figure *f, int g)
{
    int64_t n = f->n, b = f->b;
    int p = f->p;
    int s, t, I, J;
    if (!shape(p, g, &s, &t, &I, &J)) {
        fprintf(stderr, "predict_hsumma: %d groups do not fit a grid of %d\n", g, p);
        return 1;
    }
    relay_hsumma_params hp;
    relay_plan *plan = NULL;
    relay_prediction pr;
    relay_status st = relay_hsumma_params_init(&hp, n, n, n, s, t, RELAY_DOUBLE);
    hp.group_rows = I;
    hp.group_cols = J;
    hp.inner_block = hp.outer_block = b;
    hp.network.bcast = f->bcast;
    double t0 = now();
    if (!st) st = relay_plan_hsumma(&plan, &hp);
    if (!st) st = relay_plan_predict_hsumma(plan, f->machine, f->steps, &pr, NULL);
    relay_plan_free(plan);
    if (st) {
        fprintf(stderr, "predict_hsumma: G = %d: %s\n", g, relay_last_error());
        return 1;
    }
    double scale = (double)((n + b - 1) / b) / (double)pr.steps, comm = pr.comm_seconds * scale;
    if (g == 1) f->summa_comm = comm;
    char ratio[32] = "-";
    if (f->summa_comm > 0) snprintf(ratio, sizeof ratio, "%.2fx", f->summa_comm / comm);
    printf("| %d (%dx%d) | %d | %dx%d | %.3f | %.3f | %.3f | %s | %lld | %.0f |\n", p, s, t, g, I, J, comm,
           pr.compute_seconds * scale, pr.seconds * scale, ratio, (long long)pr.messages, now() - t0);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    int binomial = argc > 6 && !strcmp(argv[6], "binomial");
    if (argc < 7 || (!binomial && strcmp(argv[6], "vdg"))) {
        fprintf(stderr, "usage: predict_hsumma MACHINE N B P STEPS binomial|vdg [G...]\n");
        return 2;
    }
    figure f = {argv[1], atoll(argv[2]), atoll(argv[3]), atoll(argv[5]), atoi(argv[4]),
                binomial ? RELAY_BCAST_BINOMIAL : RELAY_BCAST_VAN_DE_GEIJN, 0};
    printf("%s: n = %lld, b = B = %lld, p = %d, %s broadcasts, %lld of %lld outer steps simulated and scaled\n\n",
           f.machine, (long long)f.n, (long long)f.b, f.p, argv[6], (long long)f.steps, (long long)((f.n + f.b - 1) / f.b));
    printf("| p (grid) | G | groups | comm s | compute s | replay s | SUMMA comm / comm | messages simulated | wall s |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    int failed = 0;
    for (int k = 7; k < argc; k++) failed |= predict_g(&f, atoi(argv[k]));
    for (int g = 1; argc == 7 && g <= f.p; g *= 2) failed |= predict_g(&f, g);
    return failed;
}
