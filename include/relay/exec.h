/* relay/exec.h — replaying a plan over fresh buffers.
 *
 * An executor binds a plan to a communicator once (collective): it duplicates
 * the communicator, allocates the pack buffers and creates persistent MPI
 * requests.  Each run then packs, starts, copies rank-local pieces directly
 * from B to A, and unpacks and transforms every message as it lands.
 *
 * dst and src are arrays of relay_plan_count(plan) buffer pointers, one per
 * transform pair, sized as relay_plan_buffer_elems says.  alpha and beta
 * point to one value of the plan's element type; alpha NULL means 1, beta
 * NULL means 0, and with beta zero A is never read (as in BLAS).  A buffer
 * may be NULL where this rank's size for it is 0.  dst and src must not
 * overlap.  Between relay_exec_start and relay_exec_wait the buffers belong
 * to relay. */
#ifndef RELAY_EXEC_H
#define RELAY_EXEC_H

#include <mpi.h>
#include "relay/hsumma.h"
#include "relay/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct relay_exec relay_exec;

/* Collective over comm.  Fails with RELAY_ERR_MISMATCH on every rank when
 * the communicator size differs from the plan's rank count, or ranks hold
 * plans with different fingerprints, or a rank lacks its own section.
 * The plan may be freed afterwards: the executor keeps what it needs. */
RELAY_API relay_status relay_exec_create(relay_exec **out, const relay_plan *p, MPI_Comm comm);

/* ---- where the buffers live: memory kinds (relay_exec_create_with) ------- */

/* Host memory, or GPU memory where relay was built with its CUDA backend
 * (relay_memory_supported).  Plans and plan files know nothing of it: the
 * same plan binds to either. */
typedef enum { RELAY_MEMORY_HOST = 0, RELAY_MEMORY_CUDA = 1 } relay_memory;

/* How a device executor's messages travel:
 *   AUTO    DIRECT where every rank's MPI says it takes device pointers
 *           (Open MPI's MPIX_Query_cuda_support, MPICH's
 *           MPIX_GPU_query_support; RELAY_CUDA_AWARE_MPI=0/1 overrides the
 *           answer), else STAGED;
 *   STAGED  through pinned host buffers: each message is copied to the host
 *           and sent as soon as it is there, and copied to the device as
 *           soon as it lands;
 *   DIRECT  MPI sends from and receives into device buffers. */
typedef enum { RELAY_TRANSPORT_AUTO = 0, RELAY_TRANSPORT_STAGED, RELAY_TRANSPORT_DIRECT } relay_transport;

/* Chosen once, when binding.  stream is a cudaStream_t (NULL: the legacy
 * default stream); for RELAY_MEMORY_HOST, stream and transport are
 * ignored.  Start from RELAY_EXEC_OPTIONS_INIT so that fields added later
 * keep their defaults. */
typedef struct {
    relay_memory memory;
    void *stream;
    relay_transport transport;
} relay_exec_options;
#define RELAY_EXEC_OPTIONS_INIT {RELAY_MEMORY_HOST, NULL, RELAY_TRANSPORT_AUTO}

/* Whether buffers of kind m can be bound here: *yes = 1 for host memory
 * always, for CUDA where the backend is built and a GPU is visible. */
RELAY_API relay_status relay_memory_supported(relay_memory m, int *yes);

/* relay_exec_create, binding buffers of opt's memory kind (opt NULL: host).
 * Collective; every rank passes the same memory kind and transport, or all
 * fail with RELAY_ERR_MISMATCH.  RELAY_ERR_UNSUPPORTED on every rank where
 * some rank cannot bind CUDA memory (no backend, no GPU), for plans other
 * than transforms, and for transform plans with a memory cap.
 *
 * A replay on CUDA memory is ordered on the stream: it reads B and A after
 * the work enqueued on the stream before relay_exec_start, and the work the
 * caller enqueues on the stream after relay_exec_wait returns sees A
 * complete.  relay_exec_start enqueues the packing of every message and
 * the local moves (one kernel each) and, STAGED, waits for each message's
 * copy to the host before it sends it; relay_exec_wait enqueues each
 * landed message's copy to the device and then the unpacking (one
 * kernel), and returns without waiting for them.  Between start and wait the host may
 * enqueue other work on other streams but must not write B or A on any
 * stream; after wait it may enqueue work that reads or writes A and B on
 * the executor's stream, or on another stream once it has waited for an
 * event recorded on the executor's stream.  The host blocks only where MPI
 * needs the data: in start, until the stream's work before the replay and
 * the packing are done (in a job of one rank, or where no rank sends,
 * never). */
RELAY_API relay_status relay_exec_create_with(relay_exec **out, const relay_plan *p, MPI_Comm comm,
        const relay_exec_options *opt);

/* The options as bound: the memory kind, the stream, and the transport
 * settled (STAGED or DIRECT; AUTO for host executors). */
RELAY_API relay_status relay_exec_options_get(const relay_exec *e, relay_exec_options *opt);

/* One replay: relay_exec_start followed by relay_exec_wait. */
RELAY_API relay_status relay_exec_run(relay_exec *e, void *const *dst, const void *const *src,
        const void *alpha, const void *beta);

/* Split-phase replay: start posts receives, packs and starts sends; wait does
 * the local pieces, unpacks each message as it lands and completes. */
RELAY_API relay_status relay_exec_start(relay_exec *e, void *const *dst, const void *const *src,
        const void *alpha, const void *beta);
RELAY_API relay_status relay_exec_wait(relay_exec *e);

/* A deadline for each replay from the next on: `seconds` after its start
 * (0: none, the default, or the environment's RELAY_DEADLINE, read at
 * create).  A wait past it polls no longer and returns RELAY_ERR_TIMEOUT,
 * relay_last_error() naming the peers whose messages did not arrive and
 * the replay each is at; the executor can then only be freed, and freeing
 * it waits for no peer (docs/api.md says what MPI may still read or write
 * afterwards).  Transform plans; RELAY_ERR_UNSUPPORTED for the other
 * kinds, RELAY_ERR_ARG for a negative or non-finite value or a replay in
 * flight.  Local: ranks may set different deadlines. */
RELAY_API relay_status relay_exec_set_deadline(relay_exec *e, double seconds);

/* Memory this rank's executor holds beyond the user's buffers (pack and
 * receive buffers, requests, task lists, its copy of the section), and the
 * bytes this rank sends plus receives per replay, for comparison. */
typedef struct {
    int64_t extra_bytes;
    int64_t remote_bytes;
} relay_exec_memory;
RELAY_API relay_status relay_exec_get_memory(const relay_exec *e, relay_exec_memory *m);

/* ---- where a replay's time goes (transform plans) ------------------------ */

/* Timings of this rank's part of the replays, one row per message and two
 * per rank:
 *   SEND        a message this rank sends: pack_s, packing it;
 *   RECV        a message it receives: wait_s, blocked until it landed
 *               (p2p and rounds; a collective's waiting is COMPLETION's),
 *               unpack_s, moving it into A;
 *   LOCAL       the local lattices: unpack_s, moving them into A;
 *   COMPLETION  waiting no one received message accounts for: the sends'
 *               completion, waiting for the collective (alltoallv, neighbor), the
 *               runs of direct messages, readers' replies (RELAY_PULL).
 * Seconds are summed over the timed replays; bytes are per replay. */
typedef enum { RELAY_TIMING_SEND, RELAY_TIMING_RECV, RELAY_TIMING_LOCAL, RELAY_TIMING_COMPLETION } relay_timing_kind;
typedef struct {
    relay_timing_kind kind;
    int peer;                /* SEND and RECV: the other rank; else this rank */
    int64_t bytes;
    double pack_s, wait_s, unpack_s;
} relay_exec_timing;

/* Starts timing replays (on = 1: the sums restart from zero) or stops
 * (on = 0).  Not while a replay is in flight.  RELAY_ERR_UNSUPPORTED for
 * BMMC and HSUMMA plans (see relay_exec_hsumma_report). */
RELAY_API relay_status relay_exec_time(relay_exec *e, int on);
/* The rows: *count holds out's capacity and becomes the number of rows
 * (out may be NULL to ask for it); *replays, the replays timed. */
RELAY_API relay_status relay_exec_timings(const relay_exec *e, int64_t *replays, relay_exec_timing *out, int *count);

/* ---- choosing how a transform plan is replayed (tuning) -------------------- */

/* Collective over comm (each rank with the same plan, its own section at
 * least, and the same `replays`): times every way the executor can replay
 * p's sections, over scratch buffers: p2p with long contiguous runs direct
 * (or pulled, RELAY_PULL) and with every message packed (when some message
 * travels otherwise), rounds (a plan made with rounds), alltoallv and
 * neighbor (when the pack buffers fit int counts); a plan with a memory
 * cap replays in rounds alone.  Each runs `replays` timed replays (1 to
 * RELAY_TUNE_MAX_REPLAYS) after two
 * warm-up ones, interleaved with the others' so that a change in the
 * machine's load falls on all alike; a replay's time is the slowest
 * rank's, from a barrier, and a choice's time the median of its replays.
 * Records every choice's time and the fastest, with the job's ranks per
 * node, in p (relay_plan_tuning; an earlier tuning is replaced), where
 * relay_exec_create finds it and relay_plan_save keeps it.  Every rank
 * gets the same tuning.  Holds one executor per choice at once.
 * RELAY_ERR_UNSUPPORTED for BMMC and HSUMMA plans (relay_hsumma_autotune
 * tunes HSUMMA's groups). */
enum { RELAY_TUNE_MAX_REPLAYS = 1000 };
RELAY_API relay_status relay_exec_tune(relay_plan *p, MPI_Comm comm, int replays);

/* How this executor replays: the schedule (the plan's, or its tuning's
 * choice in a job of the tuning's shape; p2p where binding found that a
 * collective's counts do not fit ints) and, under p2p, whether every
 * message of this rank is packed (1) or some travel direct (0).
 * RELAY_ERR_UNSUPPORTED for BMMC and HSUMMA executors. */
RELAY_API relay_status relay_exec_schedule(const relay_exec *e, relay_schedule *schedule, int *packed);

/* ---- HSUMMA plans on the machine (relay/hsumma.h) ----------------------- */

/* Measures alpha and beta by ping-pong between ranks 0 and 1 of comm
 * (collective; every rank gets rank 0's numbers; 1 rank: zeros). */
RELAY_API relay_status relay_hsumma_measure_network(MPI_Comm comm, relay_hsumma_network *net);

/* Times `outer_steps` outer steps (at least 1) of every I x J the grid
 * allows, on scratch data, and returns a copy of p whose groups are the
 * fastest (groups_from RELAY_GROUPS_AUTOTUNE).  Collective over comm. */
RELAY_API relay_status relay_hsumma_autotune(relay_plan **out, const relay_plan *p, MPI_Comm comm, int outer_steps);

/* What an HSUMMA executor did: the groups it runs with, the network it
 * measured at bind (zeros if it measured nothing), and the seconds the last
 * replay spent in broadcasts (communication) and in packing and gemm
 * (computation) on this rank. */
typedef struct {
    int group_rows, group_cols;
    relay_hsumma_network measured;
    double comm_seconds, compute_seconds;
} relay_hsumma_report;
RELAY_API relay_status relay_exec_hsumma_report(const relay_exec *e, relay_hsumma_report *r);

/* Frees the executor and its communicator.  MPI_Comm_free is collective in
 * MPI's sense: free an executor on every rank, after its last replay.  An
 * executor whose messages go through a shared-memory window (a tuning's
 * window choice, or RELAY_SHM=on) frees the window with MPI_Win_free,
 * which waits for the node's other ranks: free such executors in the same
 * order on every rank of a node. */
RELAY_API void relay_exec_free(relay_exec *e);

#ifdef __cplusplus
}
#endif
#endif
