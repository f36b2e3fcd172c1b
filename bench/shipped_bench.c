/* shipped_bench.c — what a shipped plan costs at relay_exec_create:
 * an n x n double matrix moving from nb x nb to 128 x 128 blocks on a
 * PR x PC grid (op N or T), made ready to replay two ways, call by call in
 * the balanced order of executor/balanced_order.h:
 *   plan+bind  relay_plan_transform_rank for this rank, relay_exec_create;
 *   load+bind  relay_plan_load of this rank's section from the plan's file
 *              (written once by rank 0), relay_exec_create, which checks
 *              the section against the header before trusting it;
 *   load       relay_plan_load alone.
 * Each time is the slowest rank's, the median of R rounds after one
 * warm-up round; every executor is freed inside its timing.
 *
 *   mpiexec -n P shipped_bench PRxPC N[,N...] [R] [NB] [N|T] [DIR] */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "relay/relay.h"

typedef struct {
    int pr, pc, rank, nranks;
    int64_t n, nb;
    relay_op op;
    char path[4096];
} shipped_case;

static void must(relay_status st, const char *what)
{
    if (st == RELAY_OK) return;
    fprintf(stderr, "shipped_bench: %s: %s\n", what, relay_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* A (128 x 128 blocks) and B (nb x nb) over the grid, column-major. */
static void make_layouts(const shipped_case *c, relay_layout **a, relay_layout **b)
{
    must(relay_layout_block_cyclic(a, c->n, c->n, 128, 128, c->pr, c->pc, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR),
         "layout A");
    must(relay_layout_block_cyclic(b, c->n, c->n, c->nb, c->nb, c->pr, c->pc, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR),
         "layout B");
}

/* Every rank's plan (rank < 0) or one rank's. */
static relay_plan *plan_of(const shipped_case *c, int rank)
{
    relay_layout *a, *b;
    make_layouts(c, &a, &b);
    const relay_layout *dst = a, *src = b;
    relay_plan *p;
    must(rank < 0 ? relay_plan_transform(&p, c->nranks, a, b, c->op, RELAY_DOUBLE, NULL)
                  : relay_plan_transform_rank(&p, rank, c->nranks, 1, &dst, &src, &c->op, RELAY_DOUBLE, NULL),
         "planning");
    relay_layout_free(a);
    relay_layout_free(b);
    return p;
}

static void bind_and_free(const relay_plan *p)
{
    relay_exec *e;
    must(relay_exec_create(&e, p, MPI_COMM_WORLD), "relay_exec_create");
    relay_exec_free(e);
}

static void plan_and_bind(const shipped_case *c)
{
    relay_plan *p = plan_of(c, c->rank);
    bind_and_free(p);
    relay_plan_free(p);
}

static void load_and_bind(const shipped_case *c)
{
    relay_plan *p;
    must(relay_plan_load(&p, c->path, c->rank), "relay_plan_load");
    bind_and_free(p);
    relay_plan_free(p);
}

static void load_only(const shipped_case *c)
{
    relay_plan *p;
    must(relay_plan_load(&p, c->path, c->rank), "relay_plan_load");
    relay_plan_free(p);
}

/* The whole plan, written once by rank 0 where the others will read it. */
static void write_plan_file(const shipped_case *c)
{
    if (c->rank == 0) {
        relay_plan *p = plan_of(c, -1);
        must(relay_plan_save(p, c->path), "relay_plan_save");
        relay_plan_free(p);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

typedef void (*contestant)(const shipped_case *c);
enum { CONTESTANTS = 3 };
static const contestant contestants[CONTESTANTS] = {plan_and_bind, load_and_bind, load_only};

/* Medians over rounds of the slowest rank's time, contestants in rl_balanced_order's order. */
static void time_case(const shipped_case *c, int rounds, double *median_ms)
{
    double *t = calloc((size_t)(CONTESTANTS * rounds), sizeof *t);
    for (int k = 0; k < CONTESTANTS; k++) contestants[k](c); /* warm-up */
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < CONTESTANTS; i++) {
            int k = rl_balanced_order(r, i, CONTESTANTS);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            contestants[k](c);
            double dt = MPI_Wtime() - t0;
            MPI_Allreduce(&dt, &t[k * rounds + r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        }
    for (int k = 0; k < CONTESTANTS; k++) median_ms[k] = 1e3 * median_of(&t[k * rounds], rounds);
    free(t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    shipped_case c = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.nranks);
    if (argc < 3 || sscanf(argv[1], "%dx%d", &c.pr, &c.pc) != 2 || c.pr * c.pc != c.nranks) {
        if (c.rank == 0) fprintf(stderr, "usage: mpiexec -n P %s PRxPC N[,N...] [R] [NB] [N|T] [DIR]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    int rounds = argc > 3 ? atoi(argv[3]) : 7;
    c.nb = argc > 4 ? atoll(argv[4]) : 32;
    c.op = argc > 5 && argv[5][0] == 'T' ? RELAY_OP_T : RELAY_OP_N;
    const char *dir = argc > 6 ? argv[6] : "/tmp";
    if (c.rank == 0) {
        printf("| n | src nb | op | grid | plan+bind ms | load+bind ms | load ms | load+bind / plan+bind |\n");
        printf("|---|---|---|---|---|---|---|---|\n");
    }
    for (char *tok = strtok(argv[2], ","); tok; tok = strtok(NULL, ",")) {
        c.n = atoll(tok);
        snprintf(c.path, sizeof c.path, "%s/shipped_bench_%lld.relay", dir, (long long)c.n);
        write_plan_file(&c);
        double ms[CONTESTANTS];
        time_case(&c, rounds, ms);
        if (c.rank == 0) {
            printf("| %lld | %lld | %c | %dx%d | %.3f | %.3f | %.3f | %.2f |\n", (long long)c.n, (long long)c.nb,
                   c.op == RELAY_OP_T ? 'T' : 'N', c.pr, c.pc, ms[0], ms[1], ms[2], ms[1] / ms[0]);
            fflush(stdout);
            remove(c.path);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
