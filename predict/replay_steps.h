/* replay_steps.h — what each rank of a transform plan's replay does, step
 * by step, whichever engine simulates it (simulate.c on SimGrid,
 * fluid_replay.c on relay's own): the messages every rank sends, the
 * steps a rank goes through under a schedule, and what its packing,
 * unpacking and local copies cost on a machine. */
#ifndef RELAY_PREDICT_REPLAY_STEPS_H
#define RELAY_PREDICT_REPLAY_STEPS_H

#include "machine.h"
#include "plan_internal.h"

/* A message as its sender posts it: the payload the receiver gets. */
typedef struct {
    int from, to;
    int64_t bytes, pieces;
    int64_t transposed;          /* of bytes, those of pairs whose op transposes (unpacked transposing) */
    int64_t step;                /* the sender's step (0 under a schedule without steps) */
    double posted;
} sent_message;

/* Every rank's sends, rank by rank: rank r's are sent[first[r] .. first[r+1]). */
typedef struct {
    sent_message *sent;
    int64_t *first;
} replay_sends;

/* Fills *rs from p's sections (every one loaded), steps from the send
 * rounds where the schedule is rounds: 0, or -1 out of memory (rs then
 * holds what replay_sends_free frees). */
int replay_sends_fill(replay_sends *rs, const relay_plan *p, relay_schedule schedule);
void replay_sends_free(replay_sends *rs);

/* Something of a step (a send, a receive, a message) and its index: in
 * increasing step, then index, by by_step (a qsort comparison). */
typedef struct {
    int64_t step, index;
} stepped;
int by_step(const void *x, const void *y);

/* How a rank goes through one step. */
typedef struct {
    int barriers;                /* enter and leave it with every rank (alltoallv) */
    int unpack_on_arrival;       /* unpack each message as it lands (p2p, rounds) */
} step_style;

step_style replay_style(relay_schedule schedule);

/* What a step of a rank holds: its sends (indices into its sent
 * messages), how many messages it receives, whether it copies locally. */
typedef struct {
    int64_t step;
    const int *sends;
    int nsends, nrecvs;
    int copies;
} rank_step;

/* A rank's sends and receives in step order, and its steps. */
typedef struct {
    int *sends, *recvs;          /* indices of its sends and receives, in increasing step where the plan has steps */
    rank_step *steps;
    int nsteps;
} rank_steps;

/* The steps of rank r of p in order: under rounds each step it has
 * something in, else one step holding everything, which every rank runs
 * (alltoallv's barriers need them all).  0, or -1 out of memory (then
 * rank_steps_free frees what was had). */
int rank_steps_of(const relay_plan *p, relay_schedule schedule, int r, rank_steps *out);
void rank_steps_free(rank_steps *s);

/* Seconds rank `rank` packs the sends of step st (with each send's
 * message_seconds), given its sent messages; seconds it copies its local
 * pieces; seconds it unpacks a message. */
double step_pack_seconds(const machine *m, const sent_message *sent, const rank_step *st);
double local_copy_seconds(const machine *m, const relay_plan *p, int rank);
double unpack_seconds(const machine *m, const sent_message *msg);

#endif
