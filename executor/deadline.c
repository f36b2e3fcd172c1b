/* deadline.c — waits that poll MPI up to a replay's deadline (deadline.h).
 *
 * A blocking MPI_Wait cannot be interrupted, so a wait with a deadline
 * tests its requests in a loop and reads the clock between tests; MPI's
 * own blocking waits poll the same way in the implementations used here,
 * so the loop costs a clock read per poll. */
#include <stdlib.h>

#include "deadline.h"

void rl_deadline_arm(rl_deadline *d) { d->at = d->seconds > 0 ? MPI_Wtime() + d->seconds : 0; }

/* Whether the replay has passed its deadline (marking it abandoned). */
static int passed(rl_deadline *d)
{
    if (MPI_Wtime() < d->at) return 0;
    d->expired = 1;
    return 1;
}

int rl_deadline_wait(rl_deadline *d, MPI_Request *req)
{
    if (!d->at) return MPI_Wait(req, MPI_STATUS_IGNORE);
    int done = 0, rc;
    while ((rc = MPI_Test(req, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done)
        if (passed(d)) return RL_DEADLINE_PASSED;
    return rc;
}

int rl_deadline_waitany(rl_deadline *d, int n, MPI_Request *reqs, int *index)
{
    if (!d->at) return MPI_Waitany(n, reqs, index, MPI_STATUS_IGNORE);
    int done = 0, rc;
    while ((rc = MPI_Testany(n, reqs, index, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done)
        if (passed(d)) return RL_DEADLINE_PASSED;
    return rc;
}

int rl_deadline_waitall(rl_deadline *d, int n, MPI_Request *reqs)
{
    if (!d->at) return MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    int done = 0, rc;
    while ((rc = MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE)) == MPI_SUCCESS && !done)
        if (passed(d)) return RL_DEADLINE_PASSED;
    return rc;
}

/* How long a cancelled request is polled before it is left to MPI: a
 * cancel MPI can honour completes at once. */
static const double cancel_grace = 0.01;

int rl_deadline_abandon(MPI_Request *req)
{
    if (*req == MPI_REQUEST_NULL) return 1;
    int done = 0;
    if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) done = 0;
    if (!done && MPI_Cancel(req) == MPI_SUCCESS)
        for (double until = MPI_Wtime() + cancel_grace; !done && MPI_Wtime() < until;)
            if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) break;
    if (*req != MPI_REQUEST_NULL) MPI_Request_free(req);
    return done;
}

/* Kept memory: a list that only grows, as rarely as replays time out. */
static void **kept;
static size_t nkept;

void rl_deadline_keep(void *buf)
{
    void **more = realloc(kept, (nkept + 1) * sizeof *kept);
    if (!more) return; /* then it is lost, never freed: as safe */
    kept = more;
    kept[nkept++] = buf;
}
