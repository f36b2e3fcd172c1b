/* transform.h — the transform replay's state, shared by its three files:
 *   transform_pack.c       tasks, message sets, and the moves of elements
 *                          (pack, unpack, local copies)
 *   transform_schedules.c  a replay: start and wait of each schedule
 *   transform_exec.c       preparing and binding; the kind table
 *                          rl_exec_transform (exec_kind.h)
 * Each file calls only the ones listed above it. */
#ifndef RELAY_TRANSFORM_H
#define RELAY_TRANSFORM_H

#include <mpi.h>

#include "kernels.h"
#include "plan_internal.h"

enum { WIRE_UNIT = 1 << 16 }; /* messages over INT_MAX bytes travel in units of this many bytes */

/* Tags on the executor's communicator: staged (packed) messages, the
 * binding's exchange on direct messages (transform_exec.c), and the pieces
 * of direct messages, numbered within their message modulo TAG_PIECES. */
enum { TAG_STAGED = 0, TAG_SENDER_SIDE = 1, TAG_RECEIVER_SIDE = 2, TAG_PIECE_BASE = 3, TAG_PIECES = 30000 };

/* A share of one piece: A columns [c0, c1) of piece `piece`, which starts
 * at element `pos` of its message (0 for local pieces). */
typedef struct {
    int64_t piece, c0, c1, pos;
} rl_task;

typedef struct {
    rl_task *tasks;
    int64_t ntasks;
    int64_t *first;          /* per message: its tasks are [first[k], first[k+1]) */
    int64_t *byte_off;       /* per message: offset in the pack buffer */
    char *buf;
} rl_message_set;

typedef struct {
    relay_op op;
    relay_order dst_order, src_order;
} rl_pair_info;

typedef struct {
    MPI_Comm comm;           /* the executor's own (exec.c owns it) */
    int rank, nranks;
    relay_type type;
    size_t esz;
    int count;
    rl_pair_info *pairs;
    rl_section *sec;
    rl_message_set sends, recvs;
    rl_task *local_tasks;
    int64_t nlocal_tasks;
    MPI_Request *reqs;       /* nrecv receives, then nsend sends */
    int first_send;          /* sends start at the first peer above this rank and
                                wrap around, so no rank is everybody's first target */
    relay_schedule schedule; /* as replayed */
    char *send_direct, *recv_direct; /* p2p: messages that travel piece by piece, unpacked */
    int nstaged_recv;        /* receives that are not direct */
    int64_t ndirect_recv_pieces, ndirect_pieces;
    MPI_Request *direct_reqs; /* direct receive pieces, then direct send pieces */
    int direct_into_a;       /* this replay receives direct pieces straight into A */
    int32_t rounds;
    int *send_at, *recv_at;  /* rounds: the message of each step, or -1 */
    int *a2a;                /* alltoallv: send counts, send displacements,
                                receive counts, receive displacements (bytes) */
    MPI_Request a2a_req;
    /* The replay in flight. */
    void **dst;
    const void **src;
    rl_scalars scalars;
} rl_transform_exec;

static inline char *rl_elem_at(void *base, int64_t elems, size_t esz) { return (char *)base + (size_t)elems * esz; }

#endif
