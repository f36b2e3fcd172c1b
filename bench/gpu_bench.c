/* gpu_bench.c — the moves of COSTA's reference case over buffers in GPU
 * memory: relay's device replay against a device-to-device copy of
 * the same bytes (the floor), against relay's host replay of the same
 * plan, and, where the MPI takes device pointers, staged against direct.
 *
 * n x n doubles, ScaLAPACK's block-cyclic layout with mb x mb blocks
 * (32 or 8) moved to 128 x 128 blocks, ops N and T, on a 1 x 1, 1 x 2 or
 * 2 x 2 grid (1, 2 or 4 ranks, all on one GPU).  The contestants run in
 * the balanced order of executor/balanced_order.h, one replay each per round (2 warm-up rounds, then
 * `reps`); a replay's time is the slowest rank's, from a barrier to its
 * stream's end; each contestant's the median.  Every device result is
 * compared bit for bit with the host replay's.  At one rank a replay is
 * the kernels alone (local lattices: one launch), so its bandwidth
 * against the copy's says what the kernels reach.
 *
 *   mpiexec -n P gpu_bench [n ...]     (default n = 8000 16000) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <mpi.h>

#include "measure.h"
#include "relay/relay.h"

enum { WARM = 2, MAX_REPS = 64, TARGET_MB = 128 };

static int rank, nranks, reps = 9;

static void die(const char *what, const char *why)
{
    fprintf(stderr, "gpu_bench (rank %d): %s: %s\n", rank, what, why);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check_relay(relay_status st, const char *what)
{
    if (st) die(what, relay_last_error());
}

static void check_cuda(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) die(what, cudaGetErrorString(e));
}

/* A contestant: one replay, its stream's work finished when it returns. */
typedef struct {
    const char *name;
    relay_exec *exec;         /* NULL: the device-to-device copy */
    void *a, *b;              /* its buffers (device or host) */
    double t[MAX_REPS];
} contestant;

static cudaStream_t stream;
static int64_t a_elems, b_elems, copy_bytes;

static void replay(contestant *c)
{
    if (!c->exec) {
        check_cuda(cudaMemcpyAsync(c->a, c->b, (size_t)copy_bytes, cudaMemcpyDeviceToDevice, stream), "copy");
    } else {
        void *dst[1] = {c->a};
        const void *src[1] = {c->b};
        check_relay(relay_exec_run(c->exec, dst, src, NULL, NULL), c->name);
    }
    check_cuda(cudaStreamSynchronize(stream), "synchronize");
}

static double timed(contestant *c)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    replay(c);
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

static void *device_buffer(int64_t elems, int fill)
{
    void *p = NULL;
    size_t bytes = (size_t)(elems + 1) * sizeof(double);
    check_cuda(cudaMalloc(&p, bytes), "cudaMalloc");
    if (fill) {
        double *h = malloc(bytes);
        if (!h) die("malloc", "out of memory");
        for (int64_t i = 0; i <= elems; i++) h[i] = (double)rank * 1e9 + (double)i;
        check_cuda(cudaMemcpy(p, h, bytes, cudaMemcpyHostToDevice), "upload");
        free(h);
    }
    return p;
}

static void *host_buffer(int64_t elems, int fill)
{
    double *h = calloc((size_t)elems + 1, sizeof *h);
    if (!h) die("calloc", "out of memory");
    for (int64_t i = 0; fill && i <= elems; i++) h[i] = (double)rank * 1e9 + (double)i;
    return h;
}

static relay_plan *plan_case(int n, int mb, int transpose)
{
    int pr = nranks == 4 ? 2 : 1, pc = nranks / pr;
    relay_layout *la = NULL, *lb = NULL;
    relay_plan *p = NULL;
    check_relay(relay_layout_block_cyclic(&la, n, n, TARGET_MB, TARGET_MB, pr, pc, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR),
                "layout");
    check_relay(relay_layout_block_cyclic(&lb, n, n, mb, mb, pr, pc, RELAY_ROW_MAJOR, 0, 0, 0, RELAY_COL_MAJOR), "layout");
    check_relay(relay_plan_transform(&p, nranks, la, lb, transpose ? RELAY_OP_T : RELAY_OP_N, RELAY_DOUBLE, NULL), "plan");
    relay_layout_free(la);
    relay_layout_free(lb);
    return p;
}

/* A device executor with the transport asked, or NULL where refused. */
static relay_exec *device_exec(const relay_plan *p, relay_transport t)
{
    relay_exec_options o = RELAY_EXEC_OPTIONS_INIT;
    o.memory = RELAY_MEMORY_CUDA;
    o.stream = stream;
    o.transport = t;
    relay_exec *e = NULL;
    return relay_exec_create_with(&e, p, MPI_COMM_WORLD, &o) ? NULL : e;
}

/* Whether every rank's device result equals the host replay's. */
static int same_as_host(const contestant *dev, const contestant *host)
{
    size_t bytes = (size_t)a_elems * sizeof(double);
    double *back = host_buffer(a_elems, 0);
    check_cuda(cudaMemcpy(back, dev->a, bytes, cudaMemcpyDeviceToHost), "download");
    int same = memcmp(back, host->a, bytes) == 0, all;
    free(back);
    MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

static void run_case(int n, int mb, int transpose)
{
    relay_plan *p = plan_case(n, mb, transpose);
    a_elems = relay_plan_buffer_elems(p, 1, 0, rank);
    b_elems = relay_plan_buffer_elems(p, 0, 0, rank);
    copy_bytes = (a_elems < b_elems ? a_elems : b_elems) * (int64_t)sizeof(double);
    contestant c[4] = {{.name = "device staged"}, {.name = "host"}, {.name = "copy"}, {.name = "device direct"}};
    c[0].exec = device_exec(p, RELAY_TRANSPORT_STAGED);
    if (!c[0].exec) die("binding device memory", relay_last_error());
    c[3].exec = device_exec(p, RELAY_TRANSPORT_DIRECT);
    int n_cont = c[3].exec ? 4 : 3;
    check_relay(relay_exec_create(&c[1].exec, p, MPI_COMM_WORLD), "binding host memory");
    for (int k = 0; k < n_cont; k++) {
        int host = k == 1;
        c[k].a = host ? host_buffer(a_elems, 0) : device_buffer(a_elems, 0);
        c[k].b = host ? host_buffer(b_elems, 1) : device_buffer(b_elems, 1);
    }
    for (int r = 0; r < WARM + reps; r++)
        for (int i = 0; i < n_cont; i++) {
            contestant *x = &c[rl_balanced_order(r, i, n_cont)];
            double t = timed(x);
            if (r >= WARM) x->t[r - WARM] = t;
        }
    int ok = same_as_host(&c[0], &c[1]) && (n_cont < 4 || same_as_host(&c[3], &c[1]));
    double med[4];
    for (int k = 0; k < n_cont; k++) med[k] = median_of(c[k].t, reps);
    double gbs = 2.0 * (double)n * (double)n * sizeof(double) / med[0] / 1e9; /* read + written, all ranks */
    if (rank == 0) {
        printf("| %d | %dx%d -> %d, %s | %d | %.3f | %.3f | %.2f | %.3f | %.2f | %.1f | ", n, mb, mb, TARGET_MB,
               transpose ? "T" : "N", nranks, med[0] * 1e3, med[2] * 1e3, med[0] / med[2], med[1] * 1e3, med[0] / med[1], gbs);
        if (n_cont == 4) printf("%.3f | %.2f | ", med[3] * 1e3, med[3] / med[0]);
        else printf("- | - | ");
        printf("%s |\n", ok ? "same" : "DIFFERENT");
        fflush(stdout);
    }
    for (int k = 0; k < n_cont; k++) {
        relay_exec_free(c[k].exec);
        if (k == 1) {
            free(c[k].a);
            free(c[k].b);
        } else {
            cudaFree(c[k].a);
            cudaFree(c[k].b);
        }
    }
    relay_plan_free(p);
    if (!ok) die("checking", "a device result differs from the host replay's");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks != 1 && nranks != 2 && nranks != 4) die("ranks", "run at 1, 2 or 4 ranks");
    const char *r = getenv("GPU_BENCH_REPS");
    if (r && atoi(r) > 0 && atoi(r) <= MAX_REPS) reps = atoi(r);
    int yes = 0;
    check_relay(relay_memory_supported(RELAY_MEMORY_CUDA, &yes), "relay_memory_supported");
    if (!yes) die("relay_memory_supported", "no CUDA backend or no GPU");
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    int sizes[16], nsizes = 0;
    for (int i = 1; i < argc && nsizes < 16; i++) sizes[nsizes++] = atoi(argv[i]);
    if (!nsizes) {
        sizes[nsizes++] = 8000;
        sizes[nsizes++] = 16000;
    }
    if (rank == 0)
        printf("| n | case | P | device ms | copy ms | device / copy | host ms | device / host | GB/s | direct ms "
               "| direct / staged | check |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < nsizes; i++)
        for (int mb = 32; mb >= 8; mb /= 4)
            for (int tr = 0; tr < 2; tr++) run_case(sizes[i], mb, tr);
    cudaStreamDestroy(stream);
    MPI_Finalize();
    return 0;
}
