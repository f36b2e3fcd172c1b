/* local_bench.c — local-only transforms: an n x n matrix moved
 * on one rank, every piece local, A := alpha * op(B), timed for
 *   relay      replays of a 1-rank plan (nb x nb source blocks to
 *              128 x 128; the executor's tasks, shared by OpenMP threads);
 *   kernel     one rl_move of the whole matrix on one thread, with each
 *              instruction set the CPU has (-k; c is the portable loops);
 *   omatcopy   OpenBLAS's cblas_?omatcopy, the same scaling semantics;
 *   memcpy     one memcpy of the same bytes, the floor.
 * Contestants take turns, call by call, so that a machine's drift hits
 * all alike; each time is the median of R calls after W warm-ups.  Every
 * result is compared with omatcopy's, bit for bit (`same`).
 *
 *   local_bench [-n N,N...] [-b NB,NB...] [-t d,z,s,c] [-r R] [-w W] [-a ALPHA] [-k]
 * (run under mpiexec -n 1, or alone: a singleton MPI job). */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels.h"
#include "measure.h"
#include "relay/relay.h"

typedef struct {
    int64_t sizes[16], blocks[8];
    int nsizes, nblocks, reps, warmup, isa_columns;
    char types[8];
    double alpha;
} options;

typedef struct {
    relay_type type;
    relay_op op;
    int64_t n, nb;
    size_t bytes;         /* of one matrix */
    void *b, *a, *ref, *scratch;
    relay_exec *ex;
    double complex alpha;
    union { float f; double d; float complex cf; double complex cd; } typed_alpha; /* alpha as the type */
} bench_case;

/* ---- the contestants -------------------------------------------------------- */

static void run_relay(bench_case *c, int isa)
{
    relay_exec_run(c->ex, (void *const[]){c->a}, (const void *const[]){c->b}, &c->typed_alpha, NULL);
}

static void run_kernel(bench_case *c, int isa)
{
    rl_kernels_use((rl_isa)isa);
    rl_scalars sc;
    rl_scalars_set(&sc, c->type, &c->typed_alpha, NULL);
    int t = c->op != RELAY_OP_N;
    rl_move(&sc, c->op == RELAY_OP_C, rl_side_at(c->a, c->n, RELAY_COL_MAJOR, 0), rl_side_at(c->b, c->n, RELAY_COL_MAJOR, t),
            c->n, c->n);
}

static enum CBLAS_TRANSPOSE blas_op(relay_op op) { return op == RELAY_OP_N ? CblasNoTrans : op == RELAY_OP_T ? CblasTrans : CblasConjTrans; }

static void run_omatcopy(bench_case *c, int isa)
{
    blasint n = (blasint)c->n;
    enum CBLAS_TRANSPOSE op = blas_op(c->op);
    switch (c->type) {
    case RELAY_FLOAT: cblas_somatcopy(CblasColMajor, op, n, n, c->typed_alpha.f, c->b, n, c->ref, n); break;
    case RELAY_DOUBLE: cblas_domatcopy(CblasColMajor, op, n, n, c->typed_alpha.d, c->b, n, c->ref, n); break;
    case RELAY_CFLOAT: cblas_comatcopy(CblasColMajor, op, n, n, (const float *)&c->typed_alpha.cf, c->b, n, c->ref, n); break;
    case RELAY_CDOUBLE: cblas_zomatcopy(CblasColMajor, op, n, n, (const double *)&c->typed_alpha.cd, c->b, n, c->ref, n); break;
    }
}

static void run_memcpy(bench_case *c, int isa) { memcpy(c->scratch, c->b, c->bytes); }

typedef void (*contestant)(bench_case *c, int isa);

/* ---- timing ------------------------------------------------------------------- */

/* Medians of each contestant's times, the contestants taking turns. */
static void time_in_turns(bench_case *c, int k, const contestant *fn, const int *isa, const options *o, double *med)
{
    double *t = malloc((size_t)(k * o->reps) * sizeof *t);
    for (int r = -o->warmup; r < o->reps; r++)
        for (int q = 0; q < k; q++) {
            double t0 = now();
            fn[q](c, isa[q]);
            double dt = now() - t0;
            if (r >= 0) t[q * o->reps + r] = dt;
        }
    for (int q = 0; q < k; q++) med[q] = median_of(t + q * o->reps, o->reps);
    free(t);
}

/* Whether fn's result equals omatcopy's. */
static int agrees(bench_case *c, contestant fn, int isa)
{
    memset(c->a, 0, c->bytes);
    fn(c, isa);
    return memcmp(c->a, c->ref, c->bytes) == 0;
}

/* ---- one case -------------------------------------------------------------------- */

/* B's values (real and imaginary parts alike), never zero: a product by
 * alpha = 1 + 0i keeps them bit for bit whatever the order of operations;
 * and alpha in the type. */
static void fill(bench_case *c)
{
    int is_complex = c->type == RELAY_CFLOAT || c->type == RELAY_CDOUBLE;
    size_t parts = c->bytes / relay_type_size(c->type) * (is_complex ? 2 : 1);
    int single = c->type == RELAY_FLOAT || c->type == RELAY_CFLOAT;
    for (size_t k = 0; k < parts; k++) {
        double v = (double)(k % 1021) + 1.0 + (double)(k % 7) * 0.25;
        if (single) ((float *)c->b)[k] = (float)v;
        else ((double *)c->b)[k] = v;
    }
    c->typed_alpha.f = (float)creal(c->alpha);
    if (c->type == RELAY_DOUBLE) c->typed_alpha.d = creal(c->alpha);
    if (c->type == RELAY_CFLOAT) c->typed_alpha.cf = (float complex)c->alpha;
    if (c->type == RELAY_CDOUBLE) c->typed_alpha.cd = c->alpha;
}

static relay_status make_exec(bench_case *c)
{
    relay_layout *la, *lb;
    relay_plan *plan;
    relay_layout_block_cyclic(&lb, c->n, c->n, c->nb, c->nb, 1, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    relay_layout_block_cyclic(&la, c->n, c->n, 128, 128, 1, 1, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR);
    relay_status st = relay_plan_transform(&plan, 1, la, lb, c->op, c->type, NULL);
    if (!st) st = relay_exec_create(&c->ex, plan, MPI_COMM_WORLD);
    if (!st) relay_plan_free(plan);
    relay_layout_free(la);
    relay_layout_free(lb);
    return st;
}

static const char *type_name(relay_type t) { return (const char *[]){"s", "d", "c", "z"}[t]; }
static const char *op_name(relay_op op) { return (const char *[]){"N", "T", "C"}[op]; }

static void run_case(bench_case *c, const options *o)
{
    if (make_exec(c)) {
        fprintf(stderr, "local_bench: %s\n", relay_last_error());
        exit(1);
    }
    contestant fn[4 + RL_ISA_COUNT] = {run_relay, run_omatcopy, run_memcpy};
    int isa[4 + RL_ISA_COUNT] = {0}, k = 3, same = 1;
    rl_isa best = rl_kernels_isa();
    run_omatcopy(c, 0);
    same = agrees(c, run_relay, 0);
    for (int i = 0; o->isa_columns && i < RL_ISA_COUNT; i++)
        if (rl_isa_supported((rl_isa)i)) {
            fn[k] = run_kernel;
            isa[k++] = i;
            same = same && agrees(c, run_kernel, i);
            rl_kernels_use(best);
        }
    double med[4 + RL_ISA_COUNT];
    time_in_turns(c, k, fn, isa, o, med);
    rl_kernels_use(best);
    printf("| %s | %s | %lld | %lld | %.2f | %.2f | %.2f | %.2f | %.2f |", type_name(c->type), op_name(c->op), (long long)c->n,
           (long long)c->nb, 1e3 * med[0], 1e3 * med[1], 1e3 * med[2], med[0] / med[1], med[0] / med[2]);
    for (int q = 3; q < k; q++) printf(" %.2f |", med[q] / med[2]);
    printf(" %s |\n", same ? "yes" : "NO");
    fflush(stdout);
    relay_exec_free(c->ex);
}

/* ---- options and main ---------------------------------------------------------------- */

static int parse_list(const char *s, int64_t *out, int max)
{
    int n = 0;
    char *copy = strdup(s);
    for (char *tok = strtok(copy, ","); tok && n < max; tok = strtok(NULL, ",")) out[n++] = atoll(tok);
    free(copy);
    return n;
}

static void parse(int argc, char **argv, options *o)
{
    *o = (options){.reps = 7, .warmup = 2, .alpha = 1.0, .types = "dz"};
    o->nsizes = parse_list("4000,4096,6000,8000,8192", o->sizes, 16);
    o->nblocks = parse_list("8,32", o->blocks, 8);
    for (int ch; (ch = getopt(argc, argv, "n:b:t:r:w:a:k")) != -1;) {
        if (ch == 'n') o->nsizes = parse_list(optarg, o->sizes, 16);
        else if (ch == 'b') o->nblocks = parse_list(optarg, o->blocks, 8);
        else if (ch == 't') snprintf(o->types, sizeof o->types, "%s", optarg);
        else if (ch == 'r') o->reps = atoi(optarg);
        else if (ch == 'w') o->warmup = atoi(optarg);
        else if (ch == 'a') o->alpha = atof(optarg);
        else if (ch == 'k') o->isa_columns = 1;
        else exit(2);
    }
}

static void header(const options *o)
{
    printf("| type | op | n | src nb | relay ms | omatcopy ms | memcpy ms | relay/omatcopy | relay/memcpy |");
    for (int i = 0; o->isa_columns && i < RL_ISA_COUNT; i++)
        if (rl_isa_supported((rl_isa)i)) printf(" kernel %s/memcpy |", rl_isa_name((rl_isa)i));
    printf(" same |\n|---|---|---|---|---|---|---|---|---|");
    for (int i = 0; o->isa_columns && i < RL_ISA_COUNT; i++)
        if (rl_isa_supported((rl_isa)i)) printf("---|");
    printf("---|\n");
}

static void run_type(relay_type t, const options *o)
{
    int ops = t == RELAY_CFLOAT || t == RELAY_CDOUBLE ? 3 : 2;
    for (int s = 0; s < o->nsizes; s++) {
        bench_case c = {.type = t, .n = o->sizes[s], .alpha = o->alpha};
        c.bytes = (size_t)(c.n * c.n) * relay_type_size(t);
        c.b = malloc(c.bytes);
        c.a = calloc(1, c.bytes);
        c.ref = calloc(1, c.bytes);
        c.scratch = calloc(1, c.bytes);
        if (!c.b || !c.a || !c.ref || !c.scratch) {
            fprintf(stderr, "local_bench: out of memory at n = %lld\n", (long long)c.n);
            exit(1);
        }
        fill(&c);
        for (int op = 0; op < ops; op++)
            for (int b = 0; b < o->nblocks; b++) {
                c.op = (relay_op)op;
                c.nb = o->blocks[b];
                run_case(&c, o);
            }
        free(c.b);
        free(c.a);
        free(c.ref);
        free(c.scratch);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    options o;
    parse(argc, argv, &o);
    printf("kernels: %s\n", rl_isa_name(rl_kernels_isa()));
    header(&o);
    for (const char *t = o.types; *t; t++) {
        const char *at = strchr("sdcz", *t);
        if (at) run_type((relay_type)(at - "sdcz"), &o);
    }
    MPI_Finalize();
    return 0;
}
