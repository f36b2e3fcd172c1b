/* transform.h — the transform replay's state, shared by its files:
 *   messages/              the message set the section lowers to
 *                          (message_set.h): messages, boxes, pack buffers
 *   transform_pack.c       walks and tasks of the message set's boxes, and
 *                          the moves of elements (pack, unpack, local
 *                          copies)
 *   transform_lower.c      the section as a message set
 *   transform_timing.c     where a replay's time goes, step by step
 *   transform_control.c    the messages' control word: replay counter,
 *                          a refused start, a deadline's diagnosis
 *   transform_check.c      a section read from bytes checked against the
 *                          header, walk by walk
 *   transports/            how each message travels, one file each and
 *                          their table (transport.h): staged, direct,
 *                          pulled, through a shared-memory window
 *   schedules/             the schedules, one file each, and their table
 *                          (schedule.h): p2p, rounds, alltoallv and
 *                          neighbor, rounds under a memory cap
 *   transform_replay.c     a replay: its buffers checked, the schedule's
 *                          start and wait
 *   transform_exec.c       preparing and binding; the kind table
 *                          rl_exec_transform (exec_kind.h)
 * Each file calls only the ones listed above it. */
#ifndef RELAY_TRANSFORM_H
#define RELAY_TRANSFORM_H

#include <mpi.h>

#include "exec_internal.h"
#include "deadline.h"
#include "device_kind.h"
#include "kernels.h"
#include "message_set.h"
#include "plan_internal.h"

/* Tags on the executor's communicator: staged (packed) messages, the
 * binding's exchanges with the other end of each message (on direct,
 * pulled and shared-window messages), the runs of direct messages,
 * numbered within their message modulo TAG_RUNS, the "read" of a pulled
 * message, the "full" and "empty" of a message through the window, and a
 * direct message's control word. */
enum { TAG_STAGED = 0, TAG_SENDER_SIDE = 1, TAG_RECEIVER_SIDE = 2, TAG_RUN_BASE = 3, TAG_RUNS = 30000,
       TAG_PULL_DONE = TAG_RUN_BASE + TAG_RUNS, TAG_SHM_FULL, TAG_SHM_EMPTY, TAG_CONTROL };

/* RELAY_PULL: which messages between ranks of one node their receivers
 * read from the sender's B (transports/pull.c). */
typedef enum { RL_PULL_OFF, RL_PULL_ON, RL_PULL_ALL } rl_pull_mode;

/* A lattice as the executor walks it: count_r x count_c bands of
 * rows x cols elements (A's coordinates), each band a rectangle a single
 * kernel call moves.  Where a lattice's pieces touch along a dimension on
 * both sides, they are one band along it (transform_pack.c); otherwise a
 * band is a piece. */
typedef struct {
    int64_t off;             /* element offset of band (0, 0) */
    int64_t step_r, step_c;  /* between bands */
    int64_t rs, cs;          /* between elements of a band */
} rl_walk_side;

/* Which side's cache lines a walk's tile cuts follow along a dimension. */
typedef enum { RL_LINES_NONE, RL_LINES_FROM, RL_LINES_TO } rl_lines;

typedef struct {
    int64_t pair;
    int64_t rows, cols;
    int64_t count_r, count_c;
    rl_walk_side from, to;   /* B or a pack buffer; a pack buffer or A */
    rl_lines lines_r, lines_c;
} rl_walk;

/* A task: a tile of a walk's V, bands [i0, i1) x [j0, j1) and, of each,
 * rows [r0, r1) and columns [c0, c1); the same tile of each of the
 * `phases` walks from `walk` on, where walks interleave (transform_pack.c). */
typedef struct {
    int64_t walk, i0, i1, r0, r1, j0, j1, c0, c1, phases;
} rl_task;

/* Rows [r0, r1) and columns [c0, c1) of one band, as a task moves them. */
typedef struct {
    int64_t r0, r1, c0, c1;
} rl_band_cut;

/* The walks (one per box of the message set) and tasks of all sends, all
 * receives, or the local copies. */
typedef struct {
    rl_walk *walks;
    rl_task *tasks;
    int64_t ntasks;
    int64_t *first;          /* per message: its tasks are [first[k], first[k+1]) */
} rl_walk_set;

/* A lattice that travels direct: `count` contiguous runs of `bytes` bytes
 * in this rank's buffer, `stride` elements apart from its offset on, one
 * MPI message each (shared-memory MPI moves a contiguous message with a
 * single copy; a derived datatype would be packed on the way). */
typedef struct {
    int64_t bytes, count, stride;
} rl_direct_runs;

typedef struct {
    relay_op op;
    relay_order dst_order, src_order;
} rl_pair_info;

/* Zero-byte notices a receiver sends each message's sender once it is
 * done with the message in a replay (transports/exchange.c): a pulled
 * message's "read", a window message's "empty".  req: per receive the
 * send, then per send the receive (MPI_REQUEST_NULL where the message has
 * none); sent: per receive, whether this replay sent it yet. */
typedef struct {
    MPI_Request *req;
    char *sent;
} rl_notices;

/* RELAY_SHM: messages between ranks of one node that the sender packs
 * straight into the receiver's landing area, a segment of an MPI-3
 * shared-memory window on the node's ranks (transports/shm/). */
typedef struct {
    int env;                 /* RELAY_SHM: RL_SHM_TUNED (unset), 0 off, 1 on */
    int on;                  /* this executor offers its on-node messages to the window: RELAY_SHM, else
                                the choice replayed (a tuning's window flag), settled at bind */
    int shared;              /* borrows a landing area that outlives it (RL_EXEC_SHARED_LANDINGS) */
    struct rl_landing *landing; /* ... the one borrowed, which owns win; else NULL */
    int settle;              /* ... a replay ends with a barrier of node (some rank of it uses the window) */
    MPI_Comm node;           /* the executor's ranks on this node, or MPI_COMM_NULL */
    MPI_Win win;             /* the node's landing areas, or MPI_WIN_NULL */
    int locked;              /* MPI_Win_lock_all held */
    int n;                   /* messages through the window, both ways */
    char **land;             /* per send k: where it lands, in the receiver's area, at land[2k]; under
                                a memory cap, where its chunks do: slot j at land[2k + j] */
    int64_t *land_off;       /* per receive, likewise: offsets in this rank's area */
    char *area;              /* this rank's landing area */
    rl_notices empty;        /* "empty": the receiver unpacked it, the area is free again */
    char *empty_due;         /* per send: this rank still has to receive its "empty" */
} rl_shm;

/* Replays' timings (transform_timing.c): seconds per row (sends, receives,
 * the local lattices, completion) summed over `replays`; the columns are
 * NULL until timing first starts. */
typedef struct {
    int on;
    int64_t replays;
    double *pack, *wait, *unpack;
} rl_timing;

/* A replay as one collective call (schedules/collective.c): byte counts
 * and displacements per rank (alltoallv) or per peer (neighbor, whose
 * peers are the graph's edges), all in one allocation of `ints` ints, NULL
 * where the counts cannot be ints. */
typedef struct {
    int *send_counts, *send_displs, *recv_counts, *recv_displs;
    int *destinations, *sources; /* neighbor: the peers, as the section lists its messages */
    int64_t ints;
    MPI_Comm graph;          /* neighbor: the message graph, or MPI_COMM_NULL */
    MPI_Request req;
} rl_collective;

/* A memory cap's chunks (schedules/capped.c): one side's messages cut into
 * chunks of at most half the cap, each chunk a message of `set` (its one
 * direction, *chunks) walked by `walks`, chunk j of a message in slot j % 2
 * of the side's one buffer (rl_msg_side_slots). */
typedef struct {
    rl_msgset set;
    rl_msg_side *chunks;     /* set's direction that holds the chunks */
    rl_walk_set walks;
    int64_t *first;          /* per message k: its chunks are [first[k], first[k+1]) */
} rl_capped_side;

typedef struct {
    int64_t cap;             /* bytes; 0: the plan has no cap */
    int slots;               /* chunks of one message in flight at once: 2, or 1 where two
                                slots of half the cap do not fit in it */
    rl_capped_side sends, recvs;
} rl_capped;

/* What a rank's section says about each peer, which checking the peers
 * compares (transform_exec.c): per rank, CLAIM_N values: the elements it
 * sends that rank, at which step (-1: none, or no rounds), the hash of
 * what they are (0: not computed) and the signature of a memory cap's
 * chunks (0: none); x->claims holds those of its sends, then the claims
 * its peers' sections make in return (filled by the exchange), then
 * those of what it expects from each. */
enum { CLAIM_ELEMS, CLAIM_STEP, CLAIM_HASH, CLAIM_CHUNKS, CLAIM_N };

/* A message's control word (transform_control.h): the sender's replay
 * counter and flags; and what a receive last brought, in which of this
 * rank's replays (0: none yet). */
typedef struct {
    uint64_t replay, flags;
} rl_control;
typedef struct {
    rl_control word;
    uint64_t in;
} rl_heard;

typedef struct rl_schedule_s rl_schedule; /* schedules/schedule.h */
typedef struct rl_transform_exec_s rl_transform_exec;

/* A plan kind's own moves of its message set's elements, for a kind that
 * replays through this state's schedules and transports but not through
 * the transform's walks (an index plan: index/index_moves.c): send k
 * packed, receive k combined into A, the local moves.  Such a kind stages
 * every message (x->packed) and binds no memory cap. */
typedef struct {
    void (*pack)(const rl_transform_exec *x, int k);
    void (*unpack)(const rl_transform_exec *x, int k);
    void (*move_locals)(const rl_transform_exec *x);
} rl_kind_moves;
typedef struct rl_transport_s rl_transport; /* transports/transport.h */

struct rl_transform_exec_s {
    MPI_Comm comm;           /* the executor's own (exec.c owns it) */
    int rank, nranks;
    int team;                /* OpenMP threads of its moves (team.h) */
    relay_type type;
    size_t esz;
    int count;
    rl_pair_info *pairs;
    rl_section *sec;
    rl_msgset set;           /* the section as a message set: what the replay moves (messages/) */
    rl_walk_set send_walks, recv_walks, local_walks; /* ... how this rank moves its boxes' elements */
    relay_internal_scratch *lent; /* the caller's, for replays before they are bound, or NULL */
    int buffers_lent;        /* the set's pack buffers point into *lent */
    char *taken;             /* the lent scratch's memory, taken over when the replays were
                                bound: both sides' pack buffers, the executor's to free */
    MPI_Datatype unit;       /* RL_WIRE_UNIT bytes: messages over INT_MAX bytes travel in these */
    int bound;               /* replays bound: persistent requests, the schedule settled,
                                direct messages agreed; before, a replay is a one-off p2p
                                with requests of its own, every message packed */
    MPI_Request *reqs;       /* nrecv receives, then nsend sends */
    int first_send;          /* sends start at the first peer above this rank and
                                wrap around, so no rank is everybody's first target */
    relay_schedule schedule; /* as replayed: the plan's or a tuned choice (exec.c), settled at bind */
    const rl_schedule *sched; /* ... the schedule that replays it (with the plan's memory cap, if any) */
    int packed;              /* p2p: every message packed, none direct or pulled (a tuned choice) */
    const rl_transport **send_via, **recv_via; /* per message: how it travels, agreed by both ends
                                                  at bind (transports/); staged until then */
    int ntaken;              /* receives a p2p wait takes as their requests complete */
    rl_direct_runs *send_runs, *recv_runs; /* per lattice of a direct message (count 0 elsewhere) */
    int64_t ndirect_recv_runs, ndirect_runs;
    MPI_Request *direct_reqs; /* direct receive runs, then direct send runs */
    int64_t *direct_first;   /* per message (receives, then sends): its first request there */
    int direct_into_a;       /* this replay receives direct runs straight into A */
    int32_t rounds;
    int *send_at, *recv_at;  /* rounds: the message of each step, or -1 */
    rl_pull_mode pull_mode;
    int npulled;             /* messages the receiver reads from the sender's B, both ways */
    rl_walk_set pulls;       /* their walks (B in the sender, A here) and tasks, per receive */
    int64_t *pull_pid;       /* per receive: the sender's pid */
    uint64_t *pull_from;     /* per receive: the sender's B of each pair, as it sent them */
    uint64_t *pull_mine;     /* this rank's B of each pair, as sent to the ranks that read it */
    rl_notices pull_done;    /* "read": the receiver read the sender's B */
    char *bounce;            /* per thread of the team, bounce_bytes each */
    int64_t bounce_bytes;
    int pull_errno, pull_errno_peer; /* what failed in this replay's reads (0: nothing), from whom */
    int64_t *claims;         /* until the peers are checked: per rank, what this rank sends,
                                what the peers say they send, what it expects (transform_exec.c) */
    int planned;             /* this rank's section is the planner's own: made in the job, or
                                read and equal to what its header plans (replan.h) */
    const relay_plan *plan;  /* until the peers are checked, where planned: the plan, whose
                                messages are hashed then if some rank's section is not planned */
    rl_shm shm;              /* messages through a shared-memory window (transports/shm/) */
    rl_collective coll;      /* alltoallv and neighbor: the call (schedules/collective.c) */
    rl_capped capped;        /* a memory cap's chunks (schedules/capped.c) */
    rl_timing timing;        /* relay_exec_time (transform_timing.c) */
    relay_exec_options options; /* where the buffers live, as asked at create */
    rl_deadline deadline;    /* relay_exec_set_deadline (deadline.h) */
    uint64_t replay;         /* replays started, a refused start's stand-in included */
    int refusing;            /* this replay is the stand-in of a refused start */
    rl_heard *heard;         /* per receive: its last control word (transform_control.h) */
    rl_control *direct_words; /* direct messages' words, sent apart: per receive, then per send */
    const rl_device_kind *device; /* their kind's moves where not host memory (device_kind.h), else NULL */
    void *device_state;      /* ... its state, from bind on */
    /* The replay in flight. */
    void **dst;
    const void **src;
    rl_scalars scalars;
    rl_scalars plain;        /* alpha 1, beta 0: packing */
    const rl_kind_moves *moves; /* another kind's moves (above), or NULL: the transform's walks */
};

/* A zeroed replay state (calloc'd) for rank of nranks, its moves shared by
 * team threads, with none of MPI's objects made yet, which freeing it
 * reads whatever preparing did (transform_exec.c): the transform kind's,
 * and a kind's that replays through its schedules (index/index_exec.c). */
void rl_transform_exec_init(rl_transform_exec *x, int rank, int nranks, int team);

static inline char *rl_elem_at(void *base, int64_t elems, size_t esz) { return (char *)base + (size_t)elems * esz; }

#endif
