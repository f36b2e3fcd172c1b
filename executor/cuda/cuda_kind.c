/* cuda_kind.c — RELAY_MEMORY_CUDA: a transform executor's replays over
 * buffers in GPU memory (the table rl_cuda_kind, device_kind.h).
 *
 * Binding settles the transport (DIRECT where every rank's MPI takes
 * device pointers, else STAGED), allocates the device's pack buffers,
 * uploads the three walk tables (sends, receives, local lattices;
 * device_table.c) and, STAGED, pins the executor's host pack buffers.
 * A replay, all on the caller's stream:
 *   begin   the pairs' pointers uploaded; one kernel packs every message;
 *           STAGED, each message copied to the host, an event after each;
 *           one kernel moves the local lattices;
 *   pack k  the host waits for message k's event (DIRECT: the packing's),
 *           then MPI sends it;
 *   unpack  STAGED, message k's copy to the device enqueued as it lands;
 *   end     one kernel unpacks every message; an event marks the replay's
 *           end, which the next replay waits for before MPI writes into
 *           the buffers this one's copies and kernels still read.
 * The host blocks only in pack k: where MPI needs the bytes. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> /* Open MPI's MPIX_Query_cuda_support */
#endif

#include "device_kernels.h"
#include "device_table.h"
#include "error.h"
#include "mpi_error.h"
#include "transform_pack.h"

typedef struct {
    cudaStream_t stream;
    int device;              /* the GPU current at bind: buffers must be on it */
    int direct;              /* MPI sends from and receives into device memory */
    rl_dev_table tables[3];  /* RL_DEV_PACK, RL_DEV_UNPACK, RL_DEV_LOCAL: host copies */
    rl_dev_walk *walks[3];   /* ... on the device */
    char *send, *recv;       /* the device's pack buffers */
    int64_t send_bytes, recv_bytes;
    char *host_send, *host_recv; /* STAGED: the executor's pack buffers, */
    int pinned_send, pinned_recv; /* ... pinned (where the system allowed) */
    void **host_ptrs, **ptrs;    /* the pairs' B then A: pinned host, device */
    cudaEvent_t *sent;       /* per send (STAGED) or one (DIRECT): in the buffer MPI sends from */
    int nsent;
    cudaEvent_t done;        /* the last replay's end */
    cudaError_t failed;      /* the first CUDA error of this replay (pack and unpack cannot return one) */
} rl_cuda;

/* ---- CUDA's errors as relay's ------------------------------------------ */

static relay_status cuda_status(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return RELAY_OK;
    case cudaErrorMemoryAllocation: return RELAY_ERR_NOMEM;
    case cudaErrorInvalidValue:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidResourceHandle: return RELAY_ERR_ARG;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver: return RELAY_ERR_UNSUPPORTED;
    default: return RELAY_ERR_IO;
    }
}

static relay_status cuda_fail(cudaError_t e, const char *what)
{
    return e == cudaSuccess ? RELAY_OK
                            : rl_fail(cuda_status(e), "%s: CUDA says %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}

/* Keeps the first error of a step that cannot return one. */
static void note(rl_cuda *c, cudaError_t e)
{
    if (c->failed == cudaSuccess) c->failed = e;
}

/* ---- what the process can do -------------------------------------------- */

static relay_status cuda_supported(int *yes)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    *yes = e == cudaSuccess && n > 0;
    if (e != cudaSuccess) (void)cudaGetLastError(); /* no driver or no device: not an error here */
    return RELAY_OK;
}

/* A process that never loaded the driver holds no device memory; asking
 * CUDA about a pointer would start it (a context: hundreds of ms).  Once
 * loaded, the driver stays: the answer is kept. */
static int driver_loaded(void)
{
    static _Atomic int loaded;
    if (loaded) return 1;
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (h) dlclose(h);
    loaded = h != NULL;
    return loaded;
}

/* What CUDA knows of p: -1 where p is host memory (or CUDA cannot tell),
 * else the device whose memory it is (managed memory counts as host's:
 * both sides can read it). */
static int device_of(const void *p)
{
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return a.type == cudaMemoryTypeDevice ? a.device : -1;
}

static relay_status cuda_finds_own(const void *const *buf, int n, int *which)
{
    *which = -1;
    if (!driver_loaded()) return RELAY_OK;
    for (int k = 0; k < n && *which < 0; k++)
        if (buf[k] && device_of(buf[k]) >= 0) *which = k;
    return RELAY_OK;
}

/* ---- binding ------------------------------------------------------------ */

/* Whether this rank's MPI takes device pointers: RELAY_CUDA_AWARE_MPI
 * (0 or 1) where set, else what the MPI library says at run time. */
static int mpi_takes_device_pointers(void)
{
    const char *env = getenv("RELAY_CUDA_AWARE_MPI");
    if (env && *env) return strcmp(env, "0") != 0;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#elif defined(MPIX_GPU_SUPPORT_CUDA)
    int yes = 0;
    return MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes) == MPI_SUCCESS && yes;
#else
    return 0;
#endif
}

static relay_status settle_transport(rl_cuda *c, relay_transport asked, MPI_Comm comm)
{
    int mine = mpi_takes_device_pointers(), all;
    int rc = MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) return rl_mpi_fail(rc, "agreeing on whether MPI takes device pointers");
    if (asked == RELAY_TRANSPORT_DIRECT && !all)
        return rl_fail(RELAY_ERR_UNSUPPORTED, "relay_exec_create_with: RELAY_TRANSPORT_DIRECT, but %s MPI does not take device "
                                              "pointers (RELAY_CUDA_AWARE_MPI=1 overrides what it says)",
                       mine ? "another rank's" : "this rank's");
    c->direct = asked == RELAY_TRANSPORT_DIRECT || (asked == RELAY_TRANSPORT_AUTO && all);
    return RELAY_OK;
}

static relay_status upload_tables(rl_cuda *c, const rl_transform_exec *x)
{
    relay_status st = RELAY_OK;
    for (int t = 0; t < 3 && !st; t++) st = rl_dev_table_build(&c->tables[t], &x->set, (rl_dev_phase)t);
    for (int t = 0; t < 3 && !st; t++) {
        size_t bytes = (size_t)c->tables[t].nwalks * sizeof(rl_dev_walk);
        if (!bytes) continue;
        st = cuda_fail(cudaMalloc((void **)&c->walks[t], bytes), "allocating the walk tables");
        if (!st) st = cuda_fail(cudaMemcpy(c->walks[t], c->tables[t].walks, bytes, cudaMemcpyHostToDevice), "uploading them");
    }
    return st;
}

static relay_status device_buffer(char **buf, int64_t bytes)
{
    return bytes ? cuda_fail(cudaMalloc((void **)buf, (size_t)bytes), "allocating the device's pack buffers") : RELAY_OK;
}

/* Pins a host pack buffer so that its copies run asynchronously; where
 * the system refuses (a locked-memory limit), the buffer stays pageable:
 * the copies still run in stream order, only without overlap.  1 if
 * pinned. */
static int pin(char *buf, int64_t bytes)
{
    if (!buf || !bytes) return 0;
    if (cudaHostRegister(buf, (size_t)bytes, cudaHostRegisterDefault) == cudaSuccess) return 1;
    (void)cudaGetLastError();
    return 0;
}

/* STAGED: MPI keeps the host's pack buffers, pinned.  DIRECT: they give
 * way to the device's (the host's are dropped until free). */
static relay_status place_buffers(rl_cuda *c, rl_transform_exec *x)
{
    relay_status st = device_buffer(&c->send, c->send_bytes);
    if (!st) st = device_buffer(&c->recv, c->recv_bytes);
    if (st) return st;
    if (c->direct) {
        rl_transform_drop_buffers(x);
        x->set.send.buf = c->send;
        x->set.recv.buf = c->recv;
        return RELAY_OK;
    }
    c->host_send = x->set.send.buf;
    c->host_recv = x->set.recv.buf;
    c->pinned_send = pin(c->host_send, c->send_bytes);
    c->pinned_recv = pin(c->host_recv, c->recv_bytes);
    return RELAY_OK;
}

static relay_status make_events(rl_cuda *c, int nsend)
{
    c->nsent = c->direct ? nsend > 0 : nsend;
    c->sent = calloc((size_t)c->nsent + 1, sizeof *c->sent);
    if (!c->sent) return RL_NOMEM();
    relay_status st = cuda_fail(cudaEventCreateWithFlags(&c->done, cudaEventDisableTiming), "creating events");
    for (int k = 0; k < c->nsent && !st; k++)
        st = cuda_fail(cudaEventCreateWithFlags(&c->sent[k], cudaEventDisableTiming), "creating events");
    if (!st) st = cuda_fail(cudaEventRecord(c->done, c->stream), "recording an event");
    return st;
}

static void cuda_free(void *state, rl_transform_exec *x);

static relay_status cuda_bind(void **state, rl_transform_exec *x, const relay_exec_options *opt, MPI_Comm comm)
{
    rl_cuda *c = calloc(1, sizeof *c);
    *state = c;
    if (!c) return RL_NOMEM();
    c->stream = (cudaStream_t)opt->stream;
    c->send_bytes = rl_msg_side_bytes(&x->set.send);
    c->recv_bytes = rl_msg_side_bytes(&x->set.recv);
    relay_status st = settle_transport(c, opt->transport, comm);
    if (!st) st = cuda_fail(cudaGetDevice(&c->device), "finding the current device");
    if (!st) st = upload_tables(c, x);
    if (!st) st = place_buffers(c, x);
    if (!st) st = cuda_fail(cudaMallocHost((void **)&c->host_ptrs, 2 * (size_t)x->count * sizeof(void *)), "allocating");
    if (!st) st = cuda_fail(cudaMalloc((void **)&c->ptrs, 2 * (size_t)x->count * sizeof(void *)), "allocating");
    if (!st) st = make_events(c, x->set.send.n);
    if (st) {
        cuda_free(c, x);
        *state = NULL;
    }
    return st;
}

/* ---- a replay ------------------------------------------------------------- */

/* Every buffer that holds elements is memory of the bound device. */
static relay_status check_buffers(const rl_cuda *c, const rl_transform_exec *x)
{
    for (int k = 0; k < 2 * x->count; k++) {
        int in_dst = k >= x->count, pair = k % x->count;
        const void *p = in_dst ? x->dst[pair] : x->src[pair];
        int64_t elems = in_dst ? x->sec->dst_elems[pair] : x->sec->src_elems[pair];
        int dev = elems > 0 ? device_of(p) : c->device;
        if (dev != c->device)
            return rl_fail(RELAY_ERR_ARG, "relay_exec_start: %s[%d] is %s, but the executor was bound to memory of CUDA device %d",
                           in_dst ? "dst" : "src", pair, dev < 0 ? "host memory" : "another device's memory", c->device);
    }
    return RELAY_OK;
}

static rl_dev_scalars dev_scalars(const rl_scalars *s)
{
    rl_dev_scalars d = {{0, 0}, {0, 0}, s->alpha_one, s->beta_zero};
    switch (s->type) {
    case RELAY_FLOAT: d.alpha[0] = s->alpha.f, d.beta[0] = s->beta.f; break;
    case RELAY_DOUBLE: d.alpha[0] = s->alpha.d, d.beta[0] = s->beta.d; break;
    case RELAY_CFLOAT:
        d.alpha[0] = crealf(s->alpha.cf), d.alpha[1] = cimagf(s->alpha.cf);
        d.beta[0] = crealf(s->beta.cf), d.beta[1] = cimagf(s->beta.cf);
        break;
    default:
        d.alpha[0] = creal(s->alpha.cd), d.alpha[1] = cimag(s->alpha.cd);
        d.beta[0] = creal(s->beta.cd), d.beta[1] = cimag(s->beta.cd);
        break;
    }
    return d;
}

/* Enqueues table t's moves, from or into pack buffer `packed`. */
static void move(rl_cuda *c, const rl_transform_exec *x, rl_dev_phase t, void *packed, const rl_scalars *s)
{
    rl_dev_launch l = {c->walks[t], c->tables[t].nwalks, c->tables[t].ntiles, c->ptrs, c->ptrs + x->count, packed};
    rl_dev_scalars d = dev_scalars(s);
    note(c, (cudaError_t)rl_dev_move(&l, x->type, &d, c->stream));
}

static int64_t message_bytes(const rl_transform_exec *x, const rl_msg *m) { return m->elems * (int64_t)x->esz; }

/* STAGED: each message to the host as soon as the packing is done. */
static void copy_sends_out(rl_cuda *c, const rl_transform_exec *x)
{
    for (int k = 0; k < x->set.send.n; k++) {
        int64_t at = x->set.send.byte_off[k];
        note(c, cudaMemcpyAsync(c->host_send + at, c->send + at, (size_t)message_bytes(x, &x->set.send.msg[k]),
                                cudaMemcpyDeviceToHost, c->stream));
        note(c, cudaEventRecord(c->sent[k], c->stream));
    }
}

static relay_status cuda_begin(void *state, rl_transform_exec *x)
{
    rl_cuda *c = state;
    relay_status st = check_buffers(c, x);
    if (st) return st;
    c->failed = cudaSuccess;
    /* The last replay's copies and kernels read the buffers MPI is about to fill. */
    st = cuda_fail(cudaEventSynchronize(c->done), "waiting for the previous replay on the device");
    if (st) return st;
    for (int k = 0; k < x->count; k++) {
        c->host_ptrs[k] = (void *)x->src[k];
        c->host_ptrs[x->count + k] = x->dst[k];
    }
    note(c, cudaMemcpyAsync(c->ptrs, c->host_ptrs, 2 * (size_t)x->count * sizeof(void *), cudaMemcpyHostToDevice, c->stream));
    move(c, x, RL_DEV_PACK, c->send, &x->plain);
    if (c->direct && c->nsent) note(c, cudaEventRecord(c->sent[0], c->stream));
    if (!c->direct) copy_sends_out(c, x);
    move(c, x, RL_DEV_LOCAL, NULL, &x->scalars);
    return cuda_fail(c->failed, "relay_exec_start: enqueuing the packing on the device");
}

static void cuda_pack(void *state, const rl_transform_exec *x, int k)
{
    rl_cuda *c = state;
    note(c, cudaEventSynchronize(c->sent[c->direct ? 0 : k]));
}

static void cuda_unpack(void *state, const rl_transform_exec *x, int k)
{
    rl_cuda *c = state;
    if (c->direct) return;
    int64_t at = x->set.recv.byte_off[k];
    note(c, cudaMemcpyAsync(c->recv + at, c->host_recv + at, (size_t)message_bytes(x, &x->set.recv.msg[k]),
                            cudaMemcpyHostToDevice, c->stream));
}

static relay_status cuda_end(void *state, rl_transform_exec *x)
{
    rl_cuda *c = state;
    move(c, x, RL_DEV_UNPACK, c->recv, &x->scalars);
    note(c, cudaEventRecord(c->done, c->stream));
    return cuda_fail(c->failed, "relay_exec_wait: the replay on the device");
}

/* ---- the rest of the table ------------------------------------------------- */

static void *cuda_alloc_poisoned(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes) != cudaSuccess) return NULL;
    if (cudaMemset(p, 0xff, bytes) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
        cudaFree(p);
        return NULL;
    }
    return p;
}

static void cuda_free_buffer(void *buf) { cudaFree(buf); }

static void cuda_options(const void *state, relay_exec_options *opt)
{
    const rl_cuda *c = state;
    opt->transport = c->direct ? RELAY_TRANSPORT_DIRECT : RELAY_TRANSPORT_STAGED;
}

static int64_t cuda_device_bytes(const void *state)
{
    const rl_cuda *c = state;
    int64_t walks = c->tables[0].nwalks + c->tables[1].nwalks + c->tables[2].nwalks;
    return c->send_bytes + c->recv_bytes + walks * (int64_t)sizeof(rl_dev_walk);
}

static void cuda_free(void *state, rl_transform_exec *x)
{
    rl_cuda *c = state;
    if (c->done) cudaEventSynchronize(c->done);
    if (c->direct && x->set.send.buf == c->send) x->set.send.buf = NULL; /* the host's were dropped at bind */
    if (c->direct && x->set.recv.buf == c->recv) x->set.recv.buf = NULL;
    if (c->pinned_send) cudaHostUnregister(c->host_send);
    if (c->pinned_recv) cudaHostUnregister(c->host_recv);
    for (int k = 0; c->sent && k < c->nsent; k++)
        if (c->sent[k]) cudaEventDestroy(c->sent[k]);
    if (c->done) cudaEventDestroy(c->done);
    free(c->sent);
    for (int t = 0; t < 3; t++) {
        cudaFree(c->walks[t]);
        rl_dev_table_free(&c->tables[t]);
    }
    cudaFree(c->send);
    cudaFree(c->recv);
    cudaFree(c->ptrs);
    cudaFreeHost(c->host_ptrs);
    free(c);
}

const rl_device_kind rl_cuda_kind = {
    .name = "CUDA",
    .supported = cuda_supported,
    .finds_own = cuda_finds_own,
    .bind = cuda_bind,
    .begin = cuda_begin,
    .pack = cuda_pack,
    .unpack = cuda_unpack,
    .end = cuda_end,
    .alloc_poisoned = cuda_alloc_poisoned,
    .free_buffer = cuda_free_buffer,
    .options = cuda_options,
    .device_bytes = cuda_device_bytes,
    .free = cuda_free,
};
