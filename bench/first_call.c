/* first_call.c — the first result a program gets, in a fresh process: an
 * n x n double matrix moving from nb x nb to 128 x 128 blocks on a
 * PR x PC grid (op N: pdgemr2d; op T: pdtran), the section 6 cases.
 * One contestant per process, so that no contestant inherits another's
 * warm pages, connections or caches (bench/first_call.sh rotates them
 * over fresh jobs):
 *   scalapack  Debian's pdgemr2d / pdtran, its first call;
 *   shipped    a plan file written by an earlier job, as a job that ships
 *              plans has it: relay_plan_load, relay_exec_create and the
 *              first relay_exec_run;
 *   dropin     relay_pdgemr2d / relay_pdtran, its first call (plans this
 *              rank's part, binds, replays).
 * Before the clock starts every contestant has the same: MPI and a BLACS
 * grid initialised, one tiny all-to-all (MPI's lazy connections are
 * anybody's first message, not a redistribution's), and the user's
 * matrices allocated and written.  A time is the slowest rank's (barrier
 * before, maximum after).  Each contestant runs a second call after the
 * first, reported apart ("then"), and relay's phases too.  Each line
 * gives the wall time, the CPU time (user and system, getrusage; on a
 * machine shared with other work, what the call cost apart from waiting
 * for a time slice) and the minor page faults, each the largest over the
 * ranks.  With "save DIR", writes
 * the case's plan file for "shipped" and times nothing.
 *
 *   mpiexec -n P first_call CONTESTANT PRxPC N NB N|T DIR */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "measure.h"
#include "relay/relay.h"

void Cblacs_pinfo(int *me, int *np);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
               const int *icsrc, const int *ictxt, const int *lld, int *info);
void pdgemr2d_(const int *m, const int *n, const double *a, const int *ia, const int *ja, const int *desca,
               double *b, const int *ib, const int *jb, const int *descb, const int *ictxt);
void pdtran_(const int *m, const int *n, const double *alpha, const double *a, const int *ia, const int *ja,
             const int *desca, const double *beta, double *c, const int *ic, const int *jc, const int *descc);

typedef struct {
    int pr, pc, rank, nranks, ctxt, myrow, mycol;
    int n, nb;
    relay_op op;
    int desc_src[9], desc_dst[9];
    double *src, *dst;
    char path[4096];
} first_case;

static void die(const char *what, const char *why)
{
    fprintf(stderr, "first_call: %s: %s\n", what, why);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void must(relay_status st, const char *what)
{
    if (st != RELAY_OK) die(what, relay_last_error());
}

static long minor_faults(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

/* This process's CPU time, user and system, in seconds: what a phase
 * costs apart from waiting for others (a loaded machine's time slices). */
static double cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/* The slowest rank's value. */
static double slowest(double t)
{
    double max;
    MPI_Allreduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return max;
}

/* One descriptor and its local matrix of lld x cols, written. */
static double *matrix(first_case *c, int nb, int *desc, double seed)
{
    int zero = 0, info;
    int rows = numroc_(&c->n, &nb, &c->myrow, &zero, &c->pr);
    int cols = numroc_(&c->n, &nb, &c->mycol, &zero, &c->pc);
    int lld = rows > 1 ? rows : 1;
    descinit_(desc, &c->n, &c->n, &nb, &nb, &zero, &zero, &c->ctxt, &lld, &info);
    if (info) die("descinit", "bad descriptor");
    size_t elems = (size_t)lld * (size_t)(cols > 1 ? cols : 1);
    double *m = malloc(elems * sizeof *m);
    if (!m) die("matrix", "out of memory");
    for (size_t i = 0; i < elems; i++) m[i] = seed + (double)i;
    return m;
}

static void set_up(first_case *c)
{
    int np;
    Cblacs_pinfo(&c->rank, &np);
    Cblacs_get(0, 0, &c->ctxt);
    Cblacs_gridinit(&c->ctxt, "Row", c->pr, c->pc);
    int pr, pc;
    Cblacs_gridinfo(c->ctxt, &pr, &pc, &c->myrow, &c->mycol);
    c->src = matrix(c, c->nb, c->desc_src, c->rank * 1e7);
    c->dst = matrix(c, 128, c->desc_dst, -1.0);
    int out[64] = {0}, in[64];
    MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
}

static void scalapack_call(first_case *c)
{
    int one = 1;
    double alpha = 1.0, beta = 0.0;
    if (c->op == RELAY_OP_N)
        pdgemr2d_(&c->n, &c->n, c->src, &one, &one, c->desc_src, c->dst, &one, &one, c->desc_dst, &c->ctxt);
    else
        pdtran_(&c->n, &c->n, &alpha, c->src, &one, &one, c->desc_src, &beta, c->dst, &one, &one, c->desc_dst);
}

static void dropin_call(first_case *c)
{
    must(c->op == RELAY_OP_N
             ? relay_pdgemr2d(c->n, c->n, c->src, 1, 1, c->desc_src, c->dst, 1, 1, c->desc_dst, c->ctxt)
             : relay_pdtran(c->n, c->n, 1.0, c->src, 1, 1, c->desc_src, 0.0, c->dst, 1, 1, c->desc_dst),
         "drop-in call");
}

/* The case's plan over every rank, as relay-plan would write it. */
static relay_plan *plan_whole(const first_case *c)
{
    relay_layout *a, *b;
    must(relay_layout_block_cyclic(&a, c->n, c->n, 128, 128, c->pr, c->pc, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR),
         "layout A");
    must(relay_layout_block_cyclic(&b, c->n, c->n, c->nb, c->nb, c->pr, c->pc, RELAY_ROW_MAJOR, 0, 0, 0,
                                   RELAY_COL_MAJOR),
         "layout B");
    relay_plan *p;
    must(relay_plan_transform(&p, c->nranks, a, b, c->op, RELAY_DOUBLE, NULL), "planning");
    relay_layout_free(a);
    relay_layout_free(b);
    return p;
}

/* Where a phase began: the clock, this process's CPU time, its faults. */
typedef struct {
    double wall_s, cpu_s;
    long faults;
} mark;

/* What a phase took, the largest over the ranks. */
typedef struct {
    double ms, cpu_ms;
    long faults;
} phase;

static mark phase_begin(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    return (mark){now(), cpu_seconds(), minor_faults()};
}

static phase phase_end(mark m)
{
    long faults = minor_faults() - m.faults, most;
    MPI_Allreduce(&faults, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    return (phase){slowest((now() - m.wall_s) * 1e3), slowest((cpu_seconds() - m.cpu_s) * 1e3), most};
}

static void report(const first_case *c, const char *who, const char *part, phase p)
{
    if (c->rank == 0)
        printf("%s %dx%d %d nb%d %s %s %.3f ms %.3f cpu_ms %ld faults\n", who, c->pr, c->pc, c->n, c->nb,
               c->op == RELAY_OP_N ? "N" : "T", part, p.ms, p.cpu_ms, p.faults);
}

static void run_shipped(first_case *c)
{
    mark total = phase_begin(), step = total;
    relay_plan *plan;
    must(relay_plan_load(&plan, c->path, c->rank), "loading the plan");
    report(c, "shipped", "load", phase_end(step));
    step = phase_begin();
    relay_exec *x;
    must(relay_exec_create(&x, plan, MPI_COMM_WORLD), "binding");
    report(c, "shipped", "bind", phase_end(step));
    void *dst[1] = {c->dst};
    const void *src[1] = {c->src};
    step = phase_begin();
    must(relay_exec_run(x, dst, src, NULL, NULL), "first replay");
    report(c, "shipped", "replay", phase_end(step));
    report(c, "shipped", "first", phase_end(total));
    step = phase_begin();
    must(relay_exec_run(x, dst, src, NULL, NULL), "second replay");
    report(c, "shipped", "then", phase_end(step));
    relay_exec_free(x);
    relay_plan_free(plan);
}

static void run_call(first_case *c, const char *who, void (*call)(first_case *))
{
    mark first = phase_begin();
    call(c);
    report(c, who, "first", phase_end(first));
    mark then = phase_begin();
    call(c);
    report(c, who, "then", phase_end(then));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    first_case c = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.nranks);
    if (argc != 7 || sscanf(argv[2], "%dx%d", &c.pr, &c.pc) != 2 || c.pr * c.pc != c.nranks)
        die("usage", "first_call scalapack|shipped|dropin|save PRxPC N NB N|T DIR (P = PR*PC)");
    c.n = atoi(argv[3]);
    c.nb = atoi(argv[4]);
    c.op = argv[5][0] == 'T' ? RELAY_OP_T : RELAY_OP_N;
    snprintf(c.path, sizeof c.path, "%s/first_%dx%d_%d_%d_%s.plan", argv[6], c.pr, c.pc, c.n, c.nb, argv[5]);
    const char *who = argv[1];
    if (!strcmp(who, "save")) {
        relay_plan *p = plan_whole(&c);
        if (c.rank == 0) must(relay_plan_save(p, c.path), "saving");
        relay_plan_free(p);
    } else {
        set_up(&c);
        if (!strcmp(who, "scalapack"))
            run_call(&c, who, scalapack_call);
        else if (!strcmp(who, "dropin"))
            run_call(&c, who, dropin_call);
        else if (!strcmp(who, "shipped"))
            run_shipped(&c);
        else
            die("contestant", who);
        free(c.src);
        free(c.dst);
        Cblacs_gridexit(c.ctxt);
    }
    MPI_Finalize();
    return 0;
}
