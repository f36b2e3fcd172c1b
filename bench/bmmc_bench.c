/* bmmc_bench.c — BMMC plans against the alternatives, in one job.
 *
 * Three ways to move N = 2^n doubles by a BMMC permutation on P ranks:
 *   bmmc       relay_plan_bmmc: W inside ranks, 2^r block exchanges, data only;
 *   transform  the same permutation as a relay transform, where one exists:
 *              a 2^a x 2^b column-major matrix to its transpose, both cut in
 *              P column blocks (processor-major layout), op T;
 *   alltoallv  MPI_Alltoallv with explicit indices: every element travels
 *              with its 8-byte target index, the receiver scatters.
 * For each permutation (transpose, bit reversal, a random nonsingular
 * matrix, processor-major), the replays are interleaved round robin so that
 * the machine's drift hits all alike.  Prints a markdown table, a row per
 * permutation and way: bytes on the wire per replay (over all ranks) and
 * the median over R replays of the slowest rank's time, with the ratio to
 * bmmc (bench/record.py keeps it).
 *
 *   mpiexec -n P bmmc_bench [n] [R]      (P a power of two) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay/relay.h"

static int rank, nranks, p_bits;

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void die(const char *what)
{
    fprintf(stderr, "bmmc_bench: %s: %s\n", what, relay_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* ---- MPI_Alltoallv with explicit indices --------------------------------- */

typedef struct {
    int64_t elems;
    int *scount, *sdispl, *rcount, *rdispl;   /* in records of 16 bytes */
    uint64_t *targets;                        /* per local element: global target */
    double *send, *recv;                      /* (index, value) records */
} a2a_perm;

static void a2a_init(a2a_perm *x, const relay_bmmc *perm, int n)
{
    x->elems = (int64_t)1 << (n - p_bits);
    x->scount = calloc((size_t)nranks, sizeof(int));
    x->sdispl = calloc((size_t)nranks, sizeof(int));
    x->rcount = calloc((size_t)nranks, sizeof(int));
    x->rdispl = calloc((size_t)nranks, sizeof(int));
    x->targets = malloc((size_t)x->elems * sizeof *x->targets);
    x->send = malloc((size_t)x->elems * 2 * sizeof(double));
    x->recv = malloc((size_t)x->elems * 2 * sizeof(double));
    for (int64_t o = 0; o < x->elems; o++) { /* processor-major: x = rank * elems + o */
        x->targets[o] = relay_bmmc_apply(perm, (uint64_t)rank * (uint64_t)x->elems + (uint64_t)o);
        x->scount[x->targets[o] / (uint64_t)x->elems] += 2;
    }
    MPI_Alltoall(x->scount, 1, MPI_INT, x->rcount, 1, MPI_INT, MPI_COMM_WORLD);
    for (int k = 1; k < nranks; k++) {
        x->sdispl[k] = x->sdispl[k - 1] + x->scount[k - 1];
        x->rdispl[k] = x->rdispl[k - 1] + x->rcount[k - 1];
    }
}

/* The index travels with the value (as the bits of a double). */
static void a2a_run(a2a_perm *x, double *out, const double *in)
{
    int *fill = malloc((size_t)nranks * sizeof *fill);
    memcpy(fill, x->sdispl, (size_t)nranks * sizeof *fill);
    for (int64_t o = 0; o < x->elems; o++) {
        double *rec = x->send + fill[x->targets[o] / (uint64_t)x->elems];
        fill[x->targets[o] / (uint64_t)x->elems] += 2;
        memcpy(&rec[0], &x->targets[o], sizeof(double));
        rec[1] = in[o];
    }
    MPI_Alltoallv(x->send, x->scount, x->sdispl, MPI_DOUBLE, x->recv, x->rcount, x->rdispl, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int64_t k = 0; k < x->elems; k++) {
        uint64_t y;
        memcpy(&y, &x->recv[2 * k], sizeof y);
        out[y % (uint64_t)x->elems] = x->recv[2 * k + 1];
    }
    free(fill);
}

static void a2a_free(a2a_perm *x)
{
    free(x->scount);
    free(x->sdispl);
    free(x->rcount);
    free(x->rdispl);
    free(x->targets);
    free(x->send);
    free(x->recv);
}

/* ---- the comparison ------------------------------------------------------- */

/* The transpose as a relay transform, or NULL when cols_log < p. */
static relay_exec *transpose_transform(int rows_log, int cols_log, int64_t *wire)
{
    if (cols_log < p_bits || rows_log < p_bits) return NULL;
    int64_t rows = (int64_t)1 << rows_log, cols = (int64_t)1 << cols_log;
    relay_layout *b, *a;
    relay_plan *plan;
    relay_exec *e;
    if (relay_layout_block_cyclic(&b, rows, cols, rows, cols / nranks, 1, nranks, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR) ||
        relay_layout_block_cyclic(&a, cols, rows, cols, rows / nranks, 1, nranks, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR) ||
        relay_plan_transform(&plan, nranks, a, b, RELAY_OP_T, RELAY_DOUBLE, NULL) || relay_exec_create(&e, plan, MPI_COMM_WORLD))
        die("transpose as a transform");
    relay_plan_stats st;
    relay_plan_get_stats(plan, &st);
    *wire = st.bytes_remote;
    relay_plan_free(plan);
    relay_layout_free(a);
    relay_layout_free(b);
    return e;
}

enum { WAY_BMMC, WAY_TRANSFORM, WAY_A2A, WAYS };
static const char *const way_names[WAYS] = {"bmmc", "transform", "alltoallv+indices"};

static void compare(const char *name, const relay_bmmc *perm, int rows_log, int reps)
{
    int n = perm->n;
    int64_t elems = (int64_t)1 << (n - p_bits), wire[WAYS] = {0};
    relay_plan *plan;
    relay_exec *ways[2] = {NULL, NULL};
    if (relay_plan_bmmc(&plan, perm, p_bits, n - p_bits, sizeof(double)) || relay_exec_create(&ways[WAY_BMMC], plan, MPI_COMM_WORLD))
        die(name);
    relay_plan_stats st;
    relay_plan_get_stats(plan, &st);
    wire[WAY_BMMC] = st.bytes_remote;
    relay_bmmc_info info;
    relay_plan_bmmc_info(plan, &info);
    relay_plan_free(plan);
    if (rows_log >= 0) ways[WAY_TRANSFORM] = transpose_transform(rows_log, n - rows_log, &wire[WAY_TRANSFORM]);
    a2a_perm a2a;
    a2a_init(&a2a, perm, n);
    long long remote = 0;
    for (int k = 0; k < nranks; k++) remote += k == rank ? 0 : a2a.scount[k] / 2;
    MPI_Allreduce(MPI_IN_PLACE, &remote, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    wire[WAY_A2A] = remote * 16;
    double *in = malloc((size_t)elems * sizeof *in), *out = malloc((size_t)elems * sizeof *out);
    for (int64_t o = 0; o < elems; o++) in[o] = (double)o;
    double *t = calloc((size_t)(WAYS * reps), sizeof *t);
    for (int r = -1; r < reps; r++)
        for (int w = 0; w < WAYS; w++) {
            if (w == WAY_TRANSFORM && !ways[w]) continue;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (w == WAY_A2A) a2a_run(&a2a, out, in);
            else relay_exec_run(ways[w], (void *const[]){out}, (const void *const[]){in}, NULL, NULL);
            double dt = MPI_Wtime() - t0;
            MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (r >= 0) t[w * reps + r] = dt;
        }
    if (rank == 0) {
        double med[WAYS];
        for (int w = 0; w < WAYS; w++) {
            qsort(t + w * reps, (size_t)reps, sizeof *t, cmp_double);
            med[w] = t[w * reps + reps / 2];
        }
        for (int w = 0; w < WAYS; w++) {
            if (w == WAY_TRANSFORM && !ways[w]) continue; /* no layout expresses it */
            printf("| %s | %d | %d | %d | %s | %lld | %.6f | %.2f |\n", name, n, nranks, info.rank, way_names[w],
                   (long long)wire[w], med[w], med[w] / med[WAY_BMMC]);
        }
        fflush(stdout);
    }
    for (int w = 0; w < 2; w++) relay_exec_free(ways[w]);
    a2a_free(&a2a);
    free(in);
    free(out);
    free(t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    while ((1 << p_bits) < nranks) p_bits++;
    int n = argc > 1 ? atoi(argv[1]) : 22, reps = argc > 2 ? atoi(argv[2]) : 9;
    if ((1 << p_bits) != nranks || n < 2 * p_bits || reps < 1) {
        if (rank == 0) fprintf(stderr, "usage: mpiexec -n P bmmc_bench [n >= 2 log2 P] [R]   (P a power of two)\n");
        MPI_Finalize();
        return 2;
    }
    if (rank == 0)
        printf("| permutation | n | P | r | way | wire bytes | median s | / bmmc |\n|---|---|---|---|---|---|---|---|\n");
    relay_bmmc perm;
    relay_bmmc_transpose(&perm, n / 2, n - n / 2);
    compare("transpose", &perm, n / 2, reps);
    relay_bmmc_bit_reversal(&perm, n);
    compare("bit reversal", &perm, -1, reps);
    relay_bmmc_gray_code(&perm, n);
    compare("gray code", &perm, -1, reps);
    /* A fixed "random" nonsingular matrix: a unit lower-triangular band times
     * a rotation, with a complement. */
    relay_bmmc band, rot;
    relay_bmmc_identity(&band, n);
    for (int j = 0; j < n; j++) band.columns[j] |= (j + 3 < n ? 1ull << (j + 3) : 0) | (j + 7 < n ? 1ull << (j + 7) : 0);
    relay_bmmc_shuffle(&rot, n);
    relay_bmmc_compose(&perm, &band, &rot);
    perm.complement = 0x2a5a5 & ((1ull << n) - 1);
    compare("band x shuffle", &perm, -1, reps);
    MPI_Finalize();
    return 0;
}
