/* gpu_replays.c — relay's CUDA backend under MPI: transform plans bound to
 * device memory (relay_exec_create_with, RELAY_MEMORY_CUDA), every local
 * element of A on every rank checked against the serial reference
 * (reference.c), never against relay itself.  All ranks share the GPU(s)
 * they see.
 *
 * Where some rank cannot bind CUDA memory (relay_memory_supported: no GPU
 * visible), every rank says why and exits 77 (skipped); where the question
 * itself fails, every rank fails.
 *
 * Replays: hand-picked cases (8x8 blocks transposed, a single element,
 * ranks that hold nothing, a batch, two of about 1000 x 1000) and random
 * ones (block-cyclic and grid layouts, op N/T/C, all four types), fixed
 * seeds, under p2p, rounds and alltoallv, with relabeling or without, the
 * STAGED or AUTO transport (AUTO settles on DIRECT where MPI takes device
 * pointers: relay_exec_options_get must say STAGED or DIRECT, never AUTO,
 * the same on every rank), on a stream of the test's or the legacy default
 * stream.  Each case replays twice over fresh cudaMalloc'd buffers: first
 * alpha 1, beta 0 over A full of NaN (exact; no NaN may survive; empty
 * buffers passed as NULL), buffers uploaded and A read back synchronously;
 * then the case's alpha and beta (within a rounding tolerance), uploads,
 * replay and read-back all enqueued on the executor's stream, so that the
 * stream ordering relay promises is what makes the result right.  B must
 * come back unchanged, and the gaps of A untouched.
 *
 * Refusals: a host buffer given to a CUDA executor, and a device buffer to
 * a host executor (relay_exec_create), on one rank, are RELAY_ERR_ARG
 * naming the buffer there, while the other ranks complete with NaN where
 * that rank's elements belong (its stand-in replay) and the executor stays
 * usable; options that differ between ranks (memory kind, transport) are
 * RELAY_ERR_MISMATCH on every rank; a plan with a memory cap is
 * RELAY_ERR_UNSUPPORTED on every rank; RELAY_TRANSPORT_DIRECT binds on
 * every rank or on none. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <mpi.h>

#include "mpi_check.h"
#include "relay/relay.h"
#include "transform_case.h"

/* MAX_PAIRS: the most pairs of a case, and the stride of the values' seeds.
 * The gaps of A's and B's buffers hold REF_GAP_VALUE: it must survive
 * every replay. */
enum { MAX_PAIRS = 2, RANDOM_CASES = 30, REPLAYS = 2, MAX_REPORTS = 3, SKIPPED = 77 };

static int rank, nranks;

/* ---- CUDA calls -------------------------------------------------------- */

#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)

static void cuda_check(cudaError_t e, const char *call, const char *file, int line)
{
    if (e == cudaSuccess) return;
    fprintf(stderr, "gpu_replays: rank %d: %s:%d: %s: %s\n", rank, file, line, call, cudaGetErrorString(e));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* ---- a rank's buffer of one matrix ------------------------------------- */

typedef struct {
    relay_memory memory; /* where data lives */
    void *data;          /* what relay is given: device memory, or host itself */
    void *host;          /* the values as the test fills and reads them */
    int64_t elems, n;
    int64_t *map;        /* the global element i*n + j of each local index, -1 a gap */
    relay_type type;
} matrix;

static size_t matrix_bytes(const matrix *mx) { return ref_type_size(mx->type) * (size_t)mx->elems; }

static void matrix_init(matrix *mx, const ref_layout *l, relay_type type, relay_memory memory)
{
    mx->memory = memory;
    mx->type = type;
    mx->elems = ref_local_elems(l, rank);
    mx->n = l->n;
    mx->map = ref_local_map(l, rank);
    size_t bytes = matrix_bytes(mx) + ref_type_size(type); /* never 0 bytes */
    mx->host = malloc(bytes);
    if (memory == RELAY_MEMORY_CUDA) CUDA_CHECK(cudaMalloc(&mx->data, bytes));
    else mx->data = mx->host;
}

static void matrix_free(matrix *mx)
{
    if (mx->memory == RELAY_MEMORY_CUDA) CUDA_CHECK(cudaFree(mx->data));
    free(mx->host);
    free(mx->map);
}

/* Host to device: enqueued on `stream`, or complete on return. */
static void matrix_upload(const matrix *mx, cudaStream_t stream, int on_stream)
{
    if (mx->memory != RELAY_MEMORY_CUDA) return;
    if (on_stream) {
        CUDA_CHECK(cudaMemcpyAsync(mx->data, mx->host, matrix_bytes(mx), cudaMemcpyHostToDevice, stream));
        return;
    }
    CUDA_CHECK(cudaMemcpy(mx->data, mx->host, matrix_bytes(mx), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
}

/* Device to host, enqueued on `stream` (the caller synchronizes). */
static void matrix_download(const matrix *mx, cudaStream_t stream)
{
    if (mx->memory == RELAY_MEMORY_CUDA)
        CUDA_CHECK(cudaMemcpyAsync(mx->host, mx->data, matrix_bytes(mx), cudaMemcpyDeviceToHost, stream));
}

/* The values as the reference sees them (ref_buffer.h): the host copy. */
static ref_buffer host_values(const matrix *mx)
{
    return (ref_buffer){mx->type, mx->host, mx->elems, mx->n, mx->map};
}

/* B holds its values; A its old values, or NaN where A must not be read;
 * gaps REF_GAP_VALUE in both (case_fill). */
static void fill_values(const ref_transform *t, matrix *a, matrix *b)
{
    ref_buffer av = host_values(a), bv = host_values(b);
    case_fill(t, &av, &bv);
}

/* ---- comparing with the reference -------------------------------------- */

static int same_value(double complex x, double complex y) { return creal(x) == creal(y) && cimag(x) == cimag(y); }

/* Exactly, or within the type's rounding (NaN never). */
static int close_to(double complex want, double complex got, relay_type type, int exact)
{
    if (exact) return same_value(want, got);
    double tol = type == RELAY_FLOAT || type == RELAY_CFLOAT ? 1e-5 : 1e-12;
    return cabs(got - want) <= tol * (1 + cabs(want));
}

/* The rank whose B holds the element A(i, j) is made from. */
static int source_rank(const ref_layout *src, relay_op op, int64_t i, int64_t j)
{
    int owner;
    int64_t index;
    ref_locate(src, op == RELAY_OP_N ? i : j, op == RELAY_OP_N ? j : i, &owner, &index);
    return owner;
}

/* Elements of A not as the reference says (gaps: REF_GAP_VALUE); where
 * `refused` >= 0, elements whose B lives on that rank must be NaN instead.
 * The first few are printed. */
static long wrong_in_a(const ref_transform *t, const matrix *a, int exact, int refused, const ref_layout *src)
{
    long wrong = 0;
    for (int64_t idx = 0; idx < a->elems; idx++) {
        int64_t g = a->map[idx], i = g / a->n, j = g % a->n;
        double complex got = ref_load(t->type, a->host, idx);
        int ok = g < 0 ? same_value(got, REF_GAP_VALUE)
               : refused >= 0 && source_rank(src, t->op, i, j) == refused ? isnan(creal(got))
               : close_to(ref_expected(t, i, j), got, t->type, exact);
        if (!ok && wrong++ < MAX_REPORTS)
            printf("  rank %d: A(%lld, %lld) at local %lld: got %g%+gi\n", rank, g < 0 ? -1LL : (long long)i,
                   g < 0 ? -1LL : (long long)j, (long long)idx, creal(got), cimag(got));
    }
    return wrong;
}

/* 1 if B's values (gaps included) are not what t filled it with. */
static long changed_in_b(const ref_transform *t, const matrix *b)
{
    ref_buffer bv = host_values(b);
    return !ref_buffer_holds(&bv, t->seed_b);
}

/* ---- the cases --------------------------------------------------------- */

/* A transform case (transform_case.h; alpha and beta are the second
 * replay's, the first's are 1 and 0) and how the device replays it. */
typedef struct {
    transform_case tc;
    relay_transport transport;
    int default_stream;         /* opt.stream NULL: the legacy default stream */
} gpu_case;

static const char *const transport_names[] = {"auto", "staged", "direct"};

static void gpu_case_init(gpu_case *gc, const char *name, relay_type type, double complex alpha,
                          double complex beta, relay_schedule schedule, relay_transport transport)
{
    case_init(&gc->tc, name, nranks, type, alpha, beta);
    gc->tc.schedule = schedule;
    gc->transport = transport;
    gc->default_stream = 0;
}

static const relay_order COL = RELAY_COL_MAJOR, ROW = RELAY_ROW_MAJOR;

/* Hand-picked case `index` (0 past the last). */
static int hand_picked_case(gpu_case *gc, int index)
{
    transform_case *tc = &gc->tc;
    int pr, pc, last = nranks - 1, fewer = nranks > 1 ? nranks - 1 : 1;
    case_grid_shape(nranks, &pr, &pc);
    switch (index) {
    case 0:
        gpu_case_init(gc, "8x8 blocks transposed", RELAY_CDOUBLE, CMPLX(1, 2), 0.5, RELAY_SCHED_P2P,
                      RELAY_TRANSPORT_STAGED);
        case_add_pair(tc, case_bc(64, 64, 8, 8, pr, pc, COL), case_bc(64, 64, 8, 8, pc, pr, COL), RELAY_OP_T);
        return 1;
    case 1: {
        gpu_case_init(gc, "a single element from the last rank to rank 0", RELAY_FLOAT, -1, 2, RELAY_SCHED_ALLTOALLV,
                  RELAY_TRANSPORT_AUTO);
        ref_bc_params from_last = {1, 1, 1, 1, 1, nranks, ROW, 0, last, 0, COL};
        ref_layout src;
        ref_layout_block_cyclic(&src, &from_last);
        case_add_pair(tc, case_bc(1, 1, 1, 1, 1, 1, COL), src, RELAY_OP_N);
        return 1;
    }
    case 2:
        gpu_case_init(gc, "ranks that hold nothing, default stream", RELAY_DOUBLE, 0.5, -1, RELAY_SCHED_ROUNDS,
                  RELAY_TRANSPORT_STAGED);
        gc->default_stream = 1;
        case_add_pair(tc, case_bc(45, 33, 6, 6, 1, nranks > 1 ? nranks / 2 : 1, COL),
                      case_bc(45, 33, 5, 4, fewer, 1, ROW), RELAY_OP_N);
        return 1;
    case 3:
        gpu_case_init(gc, "batch: op N and op C", RELAY_CFLOAT, CMPLX(0, 1), CMPLX(1, -1), RELAY_SCHED_P2P,
                  RELAY_TRANSPORT_AUTO);
        case_add_pair(tc, case_bc(70, 50, 32, 32, pr, pc, ROW), case_bc(70, 50, 3, 3, pc, pr, COL), RELAY_OP_N);
        case_add_pair(tc, case_bc(33, 65, 5, 65, pc, pr, COL), case_bc(65, 33, 16, 33, pr, pc, ROW), RELAY_OP_C);
        return 1;
    case 4:
        gpu_case_init(gc, "1000 x 1000, bc 32 -> 128, conjugate transpose", RELAY_CDOUBLE, CMPLX(0.5, -1), CMPLX(2, 1),
                  RELAY_SCHED_P2P, RELAY_TRANSPORT_AUTO);
        case_add_pair(tc, case_bc(1000, 1000, 128, 128, pc, pr, COL), case_bc(1000, 1000, 32, 32, pr, pc, COL),
                      RELAY_OP_C);
        return 1;
    case 5:
        gpu_case_init(gc, "1000 x 1024, row-major 100 x 100 -> 64 x 64, rounds, relabeled", RELAY_FLOAT, 2, 0.5,
                  RELAY_SCHED_ROUNDS, RELAY_TRANSPORT_STAGED);
        tc->relabel = RELAY_RELABEL_GREEDY;
        case_add_pair(tc, case_bc(1000, 1024, 64, 64, pr, pc, COL), case_bc(1000, 1024, 100, 100, pc, pr, ROW),
                      RELAY_OP_N);
        return 1;
    default: return 0;
    }
}

static const relay_schedule schedules[] = {RELAY_SCHED_P2P, RELAY_SCHED_ROUNDS, RELAY_SCHED_ALLTOALLV};

/* Random case `index`, from a generator seeded by the index only, so that
 * every rank builds the same case; every type, op and schedule in turn. */
static void random_case(gpu_case *gc, int index)
{
    ref_rng rng;
    ref_rng_seed(&rng, 0x69a0000 + (uint64_t)index);
    relay_type type = case_types[index % 4];
    char name[32];
    snprintf(name, sizeof name, "random %d", index);
    gpu_case_init(gc, name, type, case_random_scalar(&rng, type), case_random_scalar(&rng, type), schedules[index % 3],
                  index % 2 ? RELAY_TRANSPORT_AUTO : RELAY_TRANSPORT_STAGED);
    gc->default_stream = index % 5 == 4;
    transform_case *tc = &gc->tc;
    if (ref_rng_percent(&rng, 25)) tc->relabel = ref_rng_percent(&rng, 50) ? RELAY_RELABEL_GREEDY : RELAY_RELABEL_OPTIMAL;
    int count = ref_rng_percent(&rng, 15) ? MAX_PAIRS : 1;
    for (int k = 0; k < count; k++) {
        relay_op op = case_ops[(index / 4 + k) % 3];
        int64_t m = ref_rng_range(&rng, 1, 90), n = ref_rng_range(&rng, 1, 90);
        case_add_random_pair(tc, &rng, op, m, n);
    }
}

/* ---- planning ---------------------------------------------------------- */

/* The case's plan, and A's reference layouts with its sigma applied. */
static relay_plan *plan_case(const transform_case *tc, ref_layout *dst_ref)
{
    relay_plan *plan;
    char why[512], what[160];
    relay_status st = case_plan(tc, &plan, why, sizeof why);
    if (st) printf("  rank %d: %s\n", rank, why);
    int sigma[64];
    int ok = !st && nranks <= 64 && relay_plan_relabeling(plan, sigma) == RELAY_OK;
    if (ok) case_relabel_dst(tc, sigma, dst_ref);
    else if (plan) relay_plan_free(plan);
    snprintf(what, sizeof what, "case \"%s\": planned", tc->name);
    check(ok, what);
    return ok ? plan : NULL;
}

/* ---- replaying a case -------------------------------------------------- */

/* Replay 0: alpha 1, beta 0 over NaN; replay 1: the case's scalars. */
static ref_transform pair_transform(const transform_case *tc, int number, int replay, int k)
{
    uint64_t seed = (((uint64_t)number * REPLAYS + (uint64_t)replay) * MAX_PAIRS + (uint64_t)k) * 2 + 1;
    return case_pair_transform(tc, k, replay ? tc->alpha : 1, replay ? tc->beta : 0, seed);
}

/* One replay over fresh device buffers.  Replay 0 uploads and reads back
 * synchronously and passes NULL for empty buffers (and, in odd cases, NULL
 * scalars); replay 1 enqueues everything on the stream. */
static void replay_case(relay_exec *e, const transform_case *tc, const ref_layout *dst_ref, int number, int replay,
                        cudaStream_t stream)
{
    matrix a[MAX_PAIRS], b[MAX_PAIRS];
    ref_transform t[MAX_PAIRS];
    void *dst[MAX_PAIRS];
    const void *src[MAX_PAIRS];
    int on_stream = replay > 0;
    for (int k = 0; k < tc->count; k++) {
        t[k] = pair_transform(tc, number, replay, k);
        matrix_init(&a[k], &dst_ref[k], tc->type, RELAY_MEMORY_CUDA);
        matrix_init(&b[k], &tc->src[k], tc->type, RELAY_MEMORY_CUDA);
        fill_values(&t[k], &a[k], &b[k]);
        matrix_upload(&a[k], stream, on_stream);
        matrix_upload(&b[k], stream, on_stream);
        dst[k] = a[k].elems || on_stream ? a[k].data : NULL;
        src[k] = b[k].elems || on_stream ? b[k].data : NULL;
    }
    case_scalar alpha, beta;
    ref_store(tc->type, &alpha, 0, t[0].alpha);
    ref_store(tc->type, &beta, 0, t[0].beta);
    int null_scalars = !on_stream && number % 2;
    relay_status st = relay_exec_run(e, dst, src, null_scalars ? NULL : &alpha, null_scalars ? NULL : &beta);
    if (st) printf("  rank %d: relay_exec_run: %s: %s\n", rank, relay_status_str(st), relay_last_error());
    if (!on_stream) CUDA_CHECK(cudaStreamSynchronize(stream));
    long wrong = 0;
    for (int k = 0; k < tc->count; k++) {
        matrix_download(&a[k], stream);
        matrix_download(&b[k], stream);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int k = 0; k < tc->count && !st; k++)
        wrong += wrong_in_a(&t[k], &a[k], !on_stream, -1, NULL) + changed_in_b(&t[k], &b[k]);
    for (int k = 0; k < tc->count; k++) {
        matrix_free(&a[k]);
        matrix_free(&b[k]);
    }
    char what[200];
    snprintf(what, sizeof what, "case %d \"%s\" replay %d: A as the reference says, B unchanged", number, tc->name,
             replay);
    check(st == RELAY_OK && wrong == 0, what);
}

/* The options as bound: CUDA memory, the stream, a settled transport
 * (STAGED where asked), the same on every rank. */
static void check_options(relay_exec *e, const relay_exec_options *asked, const char *name)
{
    relay_exec_options got;
    int ok = relay_exec_options_get(e, &got) == RELAY_OK;
    int transport = ok ? (int)got.transport : -1, fewest, most;
    MPI_Allreduce(&transport, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&transport, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    ok = ok && got.memory == RELAY_MEMORY_CUDA && got.stream == asked->stream && fewest == most &&
         (got.transport == RELAY_TRANSPORT_STAGED || got.transport == RELAY_TRANSPORT_DIRECT) &&
         (asked->transport == RELAY_TRANSPORT_AUTO || got.transport == asked->transport);
    char what[200];
    snprintf(what, sizeof what, "case \"%s\": relay_exec_options_get: CUDA, the stream, transport %s settled as %s", name,
             transport_names[asked->transport], transport >= 0 && transport < 3 ? transport_names[transport] : "?");
    check(ok, what);
}

static cudaStream_t stream_of(const gpu_case *gc)
{
    cudaStream_t s = NULL;
    if (!gc->default_stream) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
}

static void run_case(const gpu_case *gc, int number)
{
    const transform_case *tc = &gc->tc;
    ref_layout dst_ref[MAX_PAIRS];
    relay_plan *plan = plan_case(tc, dst_ref);
    if (!plan) return;
    cudaStream_t stream = stream_of(gc);
    relay_exec_options opt = RELAY_EXEC_OPTIONS_INIT;
    opt.memory = RELAY_MEMORY_CUDA;
    opt.stream = stream;
    opt.transport = gc->transport;
    relay_exec *e = NULL;
    relay_status st = relay_exec_create_with(&e, plan, MPI_COMM_WORLD, &opt);
    relay_plan_free(plan);
    char what[200];
    snprintf(what, sizeof what, "case %d \"%s\" (%s, schedule %s, transport %s): relay_exec_create_with", number,
             tc->name, ref_type_name(tc->type), case_schedule_names[tc->schedule], transport_names[gc->transport]);
    if (st) printf("  rank %d: %s: %s\n", rank, relay_status_str(st), relay_last_error());
    check(st == RELAY_OK, what);
    if (!st) {
        check_options(e, &opt, tc->name);
        for (int replay = 0; replay < REPLAYS; replay++) replay_case(e, tc, dst_ref, number, replay, stream);
        relay_exec_free(e);
    }
    if (stream) CUDA_CHECK(cudaStreamDestroy(stream));
    case_free_dst(tc, dst_ref);
}

/* ---- refusals ---------------------------------------------------------- */

/* A small double plan in which every rank holds elements of A and of B. */
typedef struct {
    transform_case tc;
    ref_layout dst_ref[MAX_PAIRS];
    relay_plan *plan;
} fixture;

static int fixture_init(fixture *f, int64_t max_buffer_bytes)
{
    int pr, pc;
    case_grid_shape(nranks, &pr, &pc);
    relay_schedule schedule = max_buffer_bytes ? RELAY_SCHED_ROUNDS : RELAY_SCHED_P2P; /* a cap needs rounds */
    case_init(&f->tc, "refusals' fixture", nranks, RELAY_DOUBLE, 1, 0);
    f->tc.schedule = schedule;
    f->tc.max_buffer_bytes = max_buffer_bytes;
    case_add_pair(&f->tc, case_bc(40, 44, 4, 4, pr, pc, COL), case_bc(40, 44, 5, 3, pc, pr, ROW), RELAY_OP_N);
    f->plan = plan_case(&f->tc, f->dst_ref);
    return f->plan != NULL;
}

static void fixture_free(fixture *f)
{
    if (f->plan) {
        relay_plan_free(f->plan);
        ref_layout_free(&f->dst_ref[0]);
    }
    case_free(&f->tc);
}

static relay_exec *bind_fixture(const fixture *f, relay_memory memory, cudaStream_t stream)
{
    relay_exec_options opt = RELAY_EXEC_OPTIONS_INIT;
    opt.memory = memory;
    opt.stream = stream;
    relay_exec *e = NULL;
    relay_status st = memory == RELAY_MEMORY_HOST ? relay_exec_create(&e, f->plan, MPI_COMM_WORLD)
                                                  : relay_exec_create_with(&e, f->plan, MPI_COMM_WORLD, &opt);
    check(st == RELAY_OK, "the fixture binds");
    return st ? NULL : e;
}

/* A replay of the fixture where rank `bad` (-1: none) passes its B
 * (side 0) or A (side 1) in the other memory kind than the executor's:
 * refused there, naming the buffer; the others complete, NaN where B's
 * elements live on `bad`, the rest right. */
static void replay_wrong_kind(relay_exec *e, const fixture *f, relay_memory bound, int bad, int side, cudaStream_t stream)
{
    relay_memory other = bound == RELAY_MEMORY_HOST ? RELAY_MEMORY_CUDA : RELAY_MEMORY_HOST;
    matrix a, b;
    matrix_init(&a, &f->dst_ref[0], RELAY_DOUBLE, rank == bad && side == 1 ? other : bound);
    matrix_init(&b, &f->tc.src[0], RELAY_DOUBLE, rank == bad && side == 0 ? other : bound);
    ref_transform t = {.op = RELAY_OP_N, .type = RELAY_DOUBLE, .alpha = 1, .beta = 0, .read_a = 0,
                       .seed_b = 1000 + (uint64_t)bad, .seed_a = 2000};
    fill_values(&t, &a, &b);
    matrix_upload(&a, stream, 0);
    matrix_upload(&b, stream, 0);
    relay_status st = relay_exec_run(e, (void *const[]){a.data}, (const void *const[]){b.data}, NULL, NULL);
    char what[200];
    const char *named = side ? "dst[0]" : "src[0]";
    if (rank == bad) {
        snprintf(what, sizeof what, "%s memory as %s to a %s executor: RELAY_ERR_ARG naming %s",
                 other == RELAY_MEMORY_HOST ? "host" : "device", named, bound == RELAY_MEMORY_HOST ? "host" : "CUDA", named);
        if (st != RELAY_ERR_ARG || !strstr(relay_last_error(), named))
            printf("  rank %d: %s: %s\n", rank, relay_status_str(st), relay_last_error());
        check(st == RELAY_ERR_ARG && strstr(relay_last_error(), named) != NULL, what);
    } else {
        CUDA_CHECK(cudaStreamSynchronize(stream));
        matrix_download(&a, stream);
        CUDA_CHECK(cudaStreamSynchronize(stream));
        if (bad < 0)
            snprintf(what, sizeof what, "%s executor: a replay every rank accepts is right",
                     bound == RELAY_MEMORY_HOST ? "host" : "CUDA");
        else
            snprintf(what, sizeof what, "%s executor, rank %d refused: the others complete, NaN from it, the rest right",
                     bound == RELAY_MEMORY_HOST ? "host" : "CUDA", bad);
        check(st == RELAY_OK && wrong_in_a(&t, &a, 1, bad, &f->tc.src[0]) == 0, what);
    }
    matrix_free(&a);
    matrix_free(&b);
}

/* Each side refused on the last rank in turn, then a replay all accept. */
static void test_wrong_memory_kind(const fixture *f, relay_memory bound)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    relay_exec *e = bind_fixture(f, bound, stream);
    for (int side = 0; e && side < 2; side++) replay_wrong_kind(e, f, bound, nranks - 1, side, stream);
    if (e) replay_wrong_kind(e, f, bound, -1, 0, stream);
    if (e) relay_exec_free(e);
    CUDA_CHECK(cudaStreamDestroy(stream));
}

/* Rank 0 asks for other options than the rest: a memory kind, or a
 * transport. */
static void test_mismatched_options(const fixture *f)
{
    if (nranks < 2) return;
    for (int field = 0; field < 2; field++) {
        relay_exec_options opt = RELAY_EXEC_OPTIONS_INIT;
        opt.memory = field == 0 && rank > 0 ? RELAY_MEMORY_HOST : RELAY_MEMORY_CUDA;
        opt.transport = field == 1 && rank == 0 ? RELAY_TRANSPORT_AUTO : RELAY_TRANSPORT_STAGED;
        relay_exec *e = NULL;
        relay_status st = relay_exec_create_with(&e, f->plan, MPI_COMM_WORLD, &opt);
        check(st == RELAY_ERR_MISMATCH && e == NULL,
              field ? "transports that differ between ranks: RELAY_ERR_MISMATCH everywhere"
                    : "rank 0 CUDA, the others host: RELAY_ERR_MISMATCH everywhere");
        if (e) relay_exec_free(e);
    }
}

static void test_capped_plan(void)
{
    fixture f;
    if (fixture_init(&f, 64 * (int64_t)sizeof(double))) {
        relay_exec_options opt = RELAY_EXEC_OPTIONS_INIT;
        opt.memory = RELAY_MEMORY_CUDA;
        relay_exec *e = NULL;
        relay_status st = relay_exec_create_with(&e, f.plan, MPI_COMM_WORLD, &opt);
        check(st == RELAY_ERR_UNSUPPORTED && e == NULL,
              "a plan with a memory cap on CUDA memory: RELAY_ERR_UNSUPPORTED everywhere");
        if (e) relay_exec_free(e);
    }
    fixture_free(&f);
}

/* DIRECT binds on every rank (then replays right) or on none. */
static void test_direct(const fixture *f)
{
    relay_exec_options opt = RELAY_EXEC_OPTIONS_INIT;
    opt.memory = RELAY_MEMORY_CUDA;
    opt.transport = RELAY_TRANSPORT_DIRECT;
    relay_exec *e = NULL;
    relay_status st = relay_exec_create_with(&e, f->plan, MPI_COMM_WORLD, &opt);
    int code = (int)st, fewest, most;
    MPI_Allreduce(&code, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&code, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    check(fewest == most && (st == RELAY_OK || st == RELAY_ERR_UNSUPPORTED), "DIRECT binds everywhere or nowhere");
    if (rank == 0)
        printf("gpu_replays: RELAY_TRANSPORT_DIRECT %s\n", st ? relay_last_error() : "binds: MPI takes device pointers");
    if (st) return;
    check_options(e, &opt, "DIRECT");
    replay_wrong_kind(e, f, RELAY_MEMORY_CUDA, -1, 0, NULL);
    relay_exec_free(e);
}

static void test_refusals(void)
{
    fixture f;
    if (fixture_init(&f, 0)) {
        test_wrong_memory_kind(&f, RELAY_MEMORY_CUDA);
        test_wrong_memory_kind(&f, RELAY_MEMORY_HOST);
        test_mismatched_options(&f);
        test_direct(&f);
    }
    fixture_free(&f);
    test_capped_plan();
}

/* ---- main -------------------------------------------------------------- */

/* Whether every rank can bind CUDA memory: RUNS; else SKIP, each rank
 * saying why, or FAILED where relay_memory_supported itself failed. */
enum { RUNS, SKIP, FAILED };

static int cuda_everywhere(void)
{
    int yes = 0, all;
    relay_status st = relay_memory_supported(RELAY_MEMORY_CUDA, &yes);
    int mine = st ? FAILED : yes ? RUNS : SKIP;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (mine == FAILED)
        printf("gpu_replays: rank %d: relay_memory_supported: %s: %s\n", rank, relay_status_str(st), relay_last_error());
    else if (all != RUNS)
        printf("gpu_replays: rank %d: skipped: %s\n", rank,
               mine == SKIP ? "relay_memory_supported: this rank cannot bind CUDA memory (no GPU visible)"
                            : "another rank cannot bind CUDA memory");
    return all;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int cuda = cuda_everywhere();
    if (cuda != RUNS) {
        MPI_Finalize();
        return cuda == SKIP ? SKIPPED : 1;
    }
    gpu_case gc;
    int number = 0;
    for (; hand_picked_case(&gc, number); number++) {
        run_case(&gc, number);
        case_free(&gc.tc);
    }
    for (int c = 0; c < RANDOM_CASES; c++, number++) {
        random_case(&gc, c);
        run_case(&gc, number);
        case_free(&gc.tc);
    }
    test_refusals();
    int failed = check_summary("gpu_replays");
    MPI_Finalize();
    return failed;
}
