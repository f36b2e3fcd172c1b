/* engine.h — what the simulations of every kind of plan share (engine.c):
 * SimGrid's engine and platform, one actor per rank on its node, time
 * spent on a node's cores, messages between two ranks, and the prediction's
 * list of the slowest messages.  The engine can be made once per process:
 * predict.c runs each simulation in a child process of its own. */
#ifndef RELAY_PREDICT_ENGINE_H
#define RELAY_PREDICT_ENGINE_H

#include <stddef.h>

#include <simgrid/forward.h>

#include "machine.h"
#include "relay/predict.h"

/* Starts SimGrid (its configuration: engine.c) and loads the platform of m
 * sized to nranks ranks: 0, or -1 when the platform file cannot be written. */
int start_engine(const machine *m, int nranks);

/* Starts one actor per rank on its node (rank / ranks_per_node; node: node
 * 0) running code, whose data (sg_actor_self_get_data) is actors +
 * rank * actor_size.  0, or -1 when a node is missing. */
int start_actors(const machine *m, int nranks, void (*code)(int, char **), void *actors, size_t actor_size);

/* Seconds a copy of bytes in pieces takes on a core of its own, of which
 * `transposed` bytes transpose (at transpose_bandwidth, where given). */
double copy_seconds(const machine *m, int64_t bytes, int64_t pieces, int64_t transposed);

/* Work of that many seconds on a core of its own, run on the calling
 * actor's node, whose cores its ranks share (platform.h). */
void spend(double seconds);

/* Enters a message of bytes from `from` to `to`, seconds from its posting
 * to its landing, in out: its count and its list of the slowest. */
void record_predicted(relay_prediction *out, int from, int to, int64_t bytes, double seconds);

/* Messages between two ranks, on a mailbox of their own ordered pair:
 * every pair sends and receives its messages in the same order, so that
 * they match one for one.  The sender pays the machine's message_seconds
 * first; the payload says when the message was posted. */
typedef struct {
    int from, to;
    int64_t bytes;
    double posted;
} pair_message;
sg_comm_t pair_send_async(const machine *m, int from, int to, int64_t bytes);
/* A receive posted for the next message from `from` to `to`: *landed gets
 * its payload, which pair_landed records and frees. */
sg_comm_t pair_receive_async(int from, int to, pair_message **landed);
void pair_landed(relay_prediction *out, pair_message *landed);
/* The same on the mailbox of (from, to, tag) (tag 0: the pair's own), for
 * messages a receiver posts in another order than its sender sends them:
 * each tag carries one message. */
sg_comm_t tagged_send_async(const machine *m, int from, int to, int tag, int64_t bytes);
sg_comm_t tagged_receive_async(int from, int to, int tag, pair_message **landed);
/* Sends and waits until it landed; receives, waits and records. */
void pair_send(const machine *m, int from, int to, int64_t bytes);
void pair_receive(relay_prediction *out, int from, int to);

/* out->seconds and slowest_rank: the latest of rank_seconds[0..nranks). */
void summarise(int nranks, const double *rank_seconds, relay_prediction *out);

/* start_actors, then runs the simulation to its end and summarises the
 * rank_seconds the actors wrote into out: 0, or -1 when a node is missing. */
int run_actors(const machine *m, int nranks, void (*code)(int, char **), void *actors, size_t actor_size,
               const double *rank_seconds, relay_prediction *out);

#endif
