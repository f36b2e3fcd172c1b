/* device_kind.h — what a transform executor asks of a memory kind other
 * than the host's (relay_exec_options, relay/exec.h).
 *
 * The plan, its walks and its schedules are the same whatever memory the
 * buffers are in; what differs is who moves the elements and what MPI may
 * be handed.  A device kind lives in its own folder (cuda/ for
 * RELAY_MEMORY_CUDA) and fills this table; the transform executor calls it
 * at the points of a replay where the host path would move elements
 * itself (transform_pack.c, transform_replay.c), and nowhere else, so
 * the schedules (p2p, rounds, alltoallv, neighbor) run unchanged.  A
 * replay on a device kind:
 *   begin   checks that the buffers are the kind's memory, and enqueues
 *           the packing of every message, their copies to the host pack
 *           buffer (staged), and the local lattices;
 *   pack    message k is in the pack buffer MPI sends from (waits for it);
 *   unpack  message k landed in the receive buffer (staged: enqueues its
 *           copy to the device);
 *   end     enqueues the unpacking of every message; reports the replay's
 *           device errors. */
#ifndef RELAY_DEVICE_KIND_H
#define RELAY_DEVICE_KIND_H

#include <mpi.h>

#include "relay/exec.h"

struct rl_transform_exec_s;

typedef struct {
    const char *name;
    /* Built, and a device visible to this process: *yes. */
    relay_status (*supported)(int *yes);
    /* Whether any of the n buffers is the kind's memory (for host
     * executors, which refuse it: *which is its index, else -1).  Costs
     * nothing in a process that never used the kind. */
    relay_status (*finds_own)(const void *const *buf, int n, int *which);
    /* Collective over comm, after the executor's pack buffers are held and
     * before MPI requests point into them: settles the transport (agreed),
     * allocates the device side and uploads the walk tables; DIRECT points
     * the sets' buffers at device memory.  *state NULL on failure. */
    relay_status (*bind)(void **state, struct rl_transform_exec_s *x, const relay_exec_options *opt, MPI_Comm comm);
    relay_status (*begin)(void *state, struct rl_transform_exec_s *x);
    void (*pack)(void *state, const struct rl_transform_exec_s *x, int k);
    void (*unpack)(void *state, const struct rl_transform_exec_s *x, int k);
    relay_status (*end)(void *state, struct rl_transform_exec_s *x);
    /* Buffers of the kind's memory, every byte 0xff (the stand-in replay,
     * stand_in.c); NULL if none could be had. */
    void *(*alloc_poisoned)(size_t bytes);
    void (*free_buffer)(void *buf);
    /* The options as bound (transport settled); bytes held on the device. */
    void (*options)(const void *state, relay_exec_options *opt);
    int64_t (*device_bytes)(const void *state);
    /* Waits for the replays in flight on the device, gives back the pack
     * buffers the kind swapped in, frees the rest. */
    void (*free)(void *state, struct rl_transform_exec_s *x);
} rl_device_kind;

/* The kind of memory m, or NULL: host memory, or a kind not built. */
const rl_device_kind *rl_device_kind_of(relay_memory m);

#endif
