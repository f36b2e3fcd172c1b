/* calibrate.c — relay-run --calibrate OUT: measures this job's machine and
 * writes a machine file (docs/design.md, "Prediction") that relay-dump
 * --predict reads.  Every rank must be on one node (topology node):
 * ping-pong between ranks 0 and 1 for latency and bandwidth (the executor's
 * relay_hsumma_measure_network), copies by every rank at once for memory
 * and transpose bandwidth and per-piece cost (turned into a core's own:
 * the machine file says how many cores the node's ranks share), a dgemm
 * by every rank at once for the local gemm rate of HSUMMA predictions, and
 * a burst of empty messages for the per-message cost.  Rank 0 writes OUT atomically, with comments saying how
 * and when each value was measured. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "kernels.h"
#include "run.h"

enum {
    COPY_BYTES = 32 << 20,   /* each rank's source and destination */
    PIECE_BYTES = 16,        /* one complex double: a strided piece */
    PIECE_STRIDE = 64,       /* bytes between pieces' starts */
    TRANSPOSE_SIDE = 2048,   /* a transposed copy: COPY_BYTES as this many doubles squared */
    COPY_REPS = 5,
    GEMM_M = 512,            /* the gemm timed: GEMM_M x GEMM_M x GEMM_K, a 16,384-rank HSUMMA step's */
    GEMM_K = 256,
    MESSAGE_COUNT = 1000,
    MESSAGE_REPS = 5,
    TAG_CALIBRATE = 7
};

typedef struct {
    int ranks, ranks_per_node;
    double latency, bandwidth;       /* ping-pong, ranks 0 and 1 */
    int cores;                       /* the node's cores online */
    double memory_bandwidth;         /* bytes/s one core copies (all ranks copying, times ranks per core) */
    double transpose_bandwidth;      /* the same for a transposing copy */
    double piece_seconds, message_seconds;
    double gemm_flops;               /* flop/s of one rank's dgemm on a core of its own */
} calibration;

/* Ranks sharing rank 0's node. */
static int ranks_on_this_node(void)
{
    MPI_Comm node;
    int size;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &size);
    MPI_Comm_free(&node);
    return size;
}

_Static_assert((long long)TRANSPOSE_SIDE * TRANSPOSE_SIDE * 8 == COPY_BYTES, "the transposed copy moves COPY_BYTES");

/* How a calibration copy moves COPY_BYTES. */
typedef enum { WHOLE, STRIDED } copy_kind;

/* Copies COPY_BYTES whole or in pieces of PIECE_BYTES every PIECE_STRIDE
 * of src (packed into dst); returns the bytes copied. */
static size_t copy_once(char *dst, const char *src, copy_kind kind)
{
    if (kind == WHOLE) {
        memcpy(dst, src, COPY_BYTES);
        return COPY_BYTES;
    }
    size_t at = 0;
    for (size_t from = 0; from + PIECE_BYTES <= COPY_BYTES; from += PIECE_STRIDE, at += PIECE_BYTES)
        memcpy(dst + at, src + from, PIECE_BYTES);
    return at;
}

static volatile char copied_byte;

/* The fastest of COPY_REPS copies done by every rank at once, each timed
 * by its slowest rank; *bytes gets the bytes one copy moves. */
static double copy_seconds(char *dst, const char *src, copy_kind kind, size_t *bytes)
{
    double best = INFINITY;
    for (int r = -1; r < COPY_REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        *bytes = copy_once(dst, src, kind);
        copied_byte = dst[*bytes - 1]; /* the copy is used: not optimised away */
        double t = max_over_ranks(MPI_Wtime() - t0);
        if (r >= 0 && t < best) best = t;
    }
    return best;
}

/* A copy of COPY_BYTES as TRANSPOSE_SIDE^2 doubles transposed by relay's
 * own kernel (the one a replay's transposing moves run), timed as
 * copy_seconds times its copies. */
static double transpose_seconds(char *dst, const char *src)
{
    double best = INFINITY;
    rl_side to = {dst, 1, TRANSPOSE_SIDE}, from = {(char *)src, TRANSPOSE_SIDE, 1};
    for (int r = -1; r < COPY_REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        rl_copy(RELAY_DOUBLE, to, from, TRANSPOSE_SIDE, TRANSPOSE_SIDE);
        copied_byte = dst[COPY_BYTES - 1];
        double t = max_over_ranks(MPI_Wtime() - t0);
        if (r >= 0 && t < best) best = t;
    }
    return best;
}

/* Every rank measured at once: with more ranks than cores, each had
 * cores / ranks of a core, and a core alone goes that much faster. */
static double core_share(const calibration *c)
{
    return c->ranks_per_node > c->cores ? (double)c->ranks_per_node / c->cores : 1;
}

/* Memory bandwidth from a whole copy; a piece's cost is what a strided
 * copy takes beyond its bytes at that bandwidth.  0 on every rank when
 * any rank is short of memory (agreed before the first copy). */
static int measure_memory(calibration *c)
{
    char *src = malloc(COPY_BYTES), *dst = malloc(COPY_BYTES);
    int fed = src && dst, all_fed;
    MPI_Allreduce(&fed, &all_fed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_fed) {
        memset(src, 1, COPY_BYTES);
        memset(dst, 0, COPY_BYTES);
        size_t bytes, piece_bytes;
        double share = core_share(c);
        double whole = copy_seconds(dst, src, WHOLE, &bytes);
        c->transpose_bandwidth = share * COPY_BYTES / transpose_seconds(dst, src);
        double strided = copy_seconds(dst, src, STRIDED, &piece_bytes);
        double pieces = (double)piece_bytes / PIECE_BYTES;
        c->memory_bandwidth = share * COPY_BYTES / whole;
        c->piece_seconds = fmax(0, (strided - piece_bytes * whole / COPY_BYTES) / pieces / share);
    }
    free(src);
    free(dst);
    return all_fed;
}

/* The dgemm rate of one rank on a core of its own: C += A B of GEMM_M x
 * GEMM_K times GEMM_K x GEMM_M doubles by every rank at once, the fastest
 * of COPY_REPS, timed by the slowest rank; 0 on every rank when any rank
 * is short of memory. */
static double measure_gemm(const calibration *c)
{
    size_t ab = (size_t)GEMM_M * GEMM_K, cc = (size_t)GEMM_M * GEMM_M;
    double *a = malloc(2 * ab * sizeof *a), *out = calloc(cc, sizeof *out), best = INFINITY;
    int fed = a && out, all_fed;
    MPI_Allreduce(&fed, &all_fed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    for (size_t i = 0; all_fed && i < 2 * ab; i++) a[i] = 1.0 / (double)(1 + i % 7);
    for (int r = -1; all_fed && r < COPY_REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, GEMM_M, GEMM_M, GEMM_K, 1.0, a, GEMM_M, a + ab, GEMM_K,
                    1.0, out, GEMM_M);
        double t = max_over_ranks(MPI_Wtime() - t0);
        if (r >= 0 && t < best) best = t;
    }
    free(a);
    free(out);
    return all_fed ? core_share(c) * 2.0 * GEMM_M * GEMM_M * GEMM_K / best : 0;
}

/* MESSAGE_COUNT empty messages from rank 0 to rank 1 in one burst: the
 * fastest of MESSAGE_REPS bursts, per message. */
static double message_seconds(int rank)
{
    static MPI_Request req[MESSAGE_COUNT];
    double best = INFINITY;
    for (int r = -1; r < MESSAGE_REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int k = 0; k < MESSAGE_COUNT && rank < 2; k++) {
            if (rank == 0) MPI_Isend(NULL, 0, MPI_BYTE, 1, TAG_CALIBRATE, MPI_COMM_WORLD, &req[k]);
            else MPI_Irecv(NULL, 0, MPI_BYTE, 0, TAG_CALIBRATE, MPI_COMM_WORLD, &req[k]);
        }
        if (rank < 2) MPI_Waitall(MESSAGE_COUNT, req, MPI_STATUSES_IGNORE);
        double t = max_over_ranks(MPI_Wtime() - t0) / MESSAGE_COUNT;
        if (r >= 0 && t < best) best = t;
    }
    return best;
}

static void write_machine(FILE *f, const calibration *c)
{
    char when[64];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
    fprintf(f,
            "# relay-run --calibrate: measured %s with %d ranks, all on one node.\n"
            "# Copies were timed with every rank copying at once and are given per core:\n"
            "# with more ranks than cores, each rank had cores / ranks of a core, and the\n"
            "# prediction shares a node's cores among its ranks again (cores_per_node).\n"
            "# The ranks also share the node's memory bandwidth, which is in these numbers\n"
            "# for %d ranks: they predict jobs of about that many ranks best.\n"
            "# Format: docs/design.md, \"Prediction\".\n"
            "topology = node\n"
            "ranks_per_node = %d\n"
            "# cores online (sysconf)\n"
            "cores_per_node = %d\n"
            "# each rank memcpy'd %d MiB at once, fastest of %d, slowest rank, per core\n"
            "memory_bandwidth = %.4g\n"
            "# each rank transposed %d^2 doubles with relay's kernel at once, the same way\n"
            "transpose_bandwidth = %.4g\n"
            "# %d-byte pieces %d bytes apart copied by every rank at once, less their\n"
            "# bytes at the whole copy's speed, per piece, per core\n"
            "piece_seconds = %.4g\n"
            "# %d empty messages rank 0 to rank 1 in one burst, per message\n"
            "message_seconds = %.4g\n"
            "# dgemm %d x %d x %d by every rank at once, fastest of %d, slowest rank, per core\n"
            "# (with the BLAS's threads as the environment set them: OPENBLAS_NUM_THREADS=1 for one)\n"
            "gemm_flops = %.4g\n"
            "# ping-pong of 8 bytes and 1 MiB between ranks 0 and 1 (Hockney fit)\n"
            "node_bandwidth = %.4g\n"
            "node_latency = %.4g\n",
            when, c->ranks, c->ranks, c->ranks_per_node, c->cores, COPY_BYTES >> 20, COPY_REPS, c->memory_bandwidth,
            TRANSPOSE_SIDE, c->transpose_bandwidth, PIECE_BYTES, PIECE_STRIDE,
            c->piece_seconds, MESSAGE_COUNT, c->message_seconds, GEMM_M, GEMM_M, GEMM_K, COPY_REPS, c->gemm_flops,
            c->bandwidth, c->latency);
}

static int save_calibration(const calibration *c, const char *out, cli_error *e)
{
    rl_atomic_file af;
    if (rl_atomic_open(&af, out)) return cli_fail(e, CLI_FAILED, "--calibrate: %s", relay_last_error());
    write_machine(af.file, c);
    if (ferror(af.file)) {
        rl_atomic_abort(&af);
        return cli_fail(e, CLI_FAILED, "--calibrate: cannot write %s", out);
    }
    return rl_atomic_commit(&af) ? cli_fail(e, CLI_FAILED, "--calibrate: %s", relay_last_error()) : CLI_OK;
}

int calibrate_machine(const char *out, int rank, int nranks, cli_error *e)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    calibration c = {.ranks = nranks, .ranks_per_node = ranks_on_this_node(), .cores = online > 0 ? (int)online : 1};
    if (nranks < 2) return cli_fail(e, CLI_USAGE, "--calibrate needs at least 2 ranks (mpiexec -n 2 or more)");
    if (max_over_ranks(nranks - c.ranks_per_node) > 0)
        return cli_fail(e, CLI_USAGE, "--calibrate measures one node: run every rank on one node");
    relay_hsumma_network net;
    relay_status st = relay_hsumma_measure_network(MPI_COMM_WORLD, &net);
    if (st) return cli_fail_relay(e, CLI_FAILED, st, "--calibrate: the ping-pong");
    c.latency = net.alpha;
    c.bandwidth = 1 / net.beta;
    if (!measure_memory(&c)) return cli_fail(e, CLI_FAILED, "--calibrate: out of memory for the %d MiB copies", COPY_BYTES >> 20);
    c.gemm_flops = measure_gemm(&c);
    if (c.gemm_flops <= 0) return cli_fail(e, CLI_FAILED, "--calibrate: out of memory for the dgemm");
    c.message_seconds = message_seconds(rank);
    return rank == 0 ? save_calibration(&c, out, e) : CLI_OK;
}
