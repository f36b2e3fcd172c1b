/* broadcast.h — one MPI broadcast as the simulated ranks run it
 * (broadcast.c), over a communicator of ranks evenly strided in the plan's
 * numbering, with the algorithm an HSUMMA plan's cost model names
 * (relay_bcast_model): MPICH's binomial tree, or Van de Geijn's scatter
 * and ring allgather. */
#ifndef RELAY_PREDICT_BROADCAST_H
#define RELAY_PREDICT_BROADCAST_H

#include "machine.h"
#include "relay/hsumma.h"
#include "relay/predict.h"

/* A communicator: member i is rank first + i * stride; the caller is member me. */
typedef struct {
    int first, stride, size, me;
} sim_comm;

/* What a broadcast needs besides its communicator. */
typedef struct {
    const machine *m;
    relay_bcast_model algorithm;
    relay_prediction *out;       /* every message is recorded there */
} bcast_setting;

/* The caller's part of a broadcast of bytes from member root: it returns
 * when the caller has the whole message and has sent what it forwards. */
void simulate_bcast(const bcast_setting *b, const sim_comm *c, int root, int64_t bytes);

#endif
