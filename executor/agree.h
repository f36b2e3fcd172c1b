/* agree.h — ranks agreeing on a verdict.
 *
 * A collective step that may fail on some ranks only must not leave the
 * others waiting in the next collective call.  So after such a step every
 * rank takes part in one MPI_Allreduce and learns whether all succeeded:
 * a failing rank keeps its own status and message, the others fail with
 * RELAY_ERR_MISMATCH.  The same reduction can carry a few values every
 * rank needs the maximum of (flags, counts), and a value all ranks must
 * hold alike (a plan's fingerprint) travels as itself and its complement.
 * Every value stays below 2^63: MPICH 4.0.2 reduces MPI_UINT64_T with
 * MPI_MAX as if it were signed (max(2^63, 0) comes out 0), so 0 is a
 * neutral contribution only for values a signed maximum orders alike. */
#ifndef RELAY_AGREE_H
#define RELAY_AGREE_H

#include <stdint.h>

#include <mpi.h>

#include "relay/status.h"

/* The most values one agreement carries besides the verdict. */
enum { RL_AGREE_MAX_VALUES = 12 };

/* Collective over comm: *first_failing is the lowest rank whose `failed`
 * is non-zero, or -1 when no rank failed; values[0..n) become their
 * maxima over all ranks.  RELAY_ERR_MPI if the reduction itself fails.
 * A tool that reports a failure once, from the lowest failing rank, asks
 * this with its status as the one value: every rank learns the worst
 * status and which rank reports it. */
relay_status rl_agree_first(MPI_Comm comm, int failed, uint64_t *values, int n, int *first_failing);

/* The verdict with values reduced alongside: `local` where it failed (its
 * message kept), RELAY_ERR_MISMATCH "<what> failed on another rank" where
 * another rank failed, else RELAY_OK.  values hold the maxima whenever the
 * reduction succeeded, so a caller may consult them even on failure. */
relay_status rl_agree_values(MPI_Comm comm, relay_status local, uint64_t *values, int n, const char *what);

/* The verdict alone. */
relay_status rl_agree(MPI_Comm comm, relay_status local, const char *what);

/* A value that must be equal on every rank takes RL_AGREE_SAME slots: its
 * 32-bit halves and their complements (each below 2^63, see above).  After
 * the maximum, the halves are the largest and the complements the
 * complements of the smallest: equal everywhere if and only if they match. */
enum { RL_AGREE_SAME = 4 };

static inline void rl_agree_same_init(uint64_t slot[RL_AGREE_SAME], uint64_t value)
{
    slot[0] = value >> 32;
    slot[1] = value & 0xffffffffu;
    slot[2] = ~slot[0] & 0xffffffffu;
    slot[3] = ~slot[1] & 0xffffffffu;
}

static inline int rl_agree_same(const uint64_t slot[RL_AGREE_SAME])
{
    return slot[0] == (~slot[2] & 0xffffffffu) && slot[1] == (~slot[3] & 0xffffffffu);
}

#endif
