/* yield_when_idle.c — preloaded into the MPI tests of an MPICH build so
 * that a rank waiting for a message gives its core away when the node is
 * oversubscribed, as Open MPI does by itself (its mpi_yield_when_idle).
 *
 * Why: Debian's MPICH 4 (device ch4:ucx) waits by polling UCX in a loop
 * and never yields: MPIR_CVAR_POLLS_BEFORE_YIELD is read by the old ch3
 * device only, MPIR_CVAR_ASYNC_PROGRESS adds a polling thread, and neither
 * MPICH, UCX nor hydra has a setting for it.  With 4 or 8 ranks on 2 cores
 * a waiting rank spins through its time slice while the rank it waits for
 * cannot run: at 4 ranks a Comm_dup + Allreduce round took 30-70 ms
 * instead of about 1 ms with this library.
 *
 * How: libmpich calls UCX's ucp_worker_progress through its PLT, so this
 * exported definition takes its place.  It calls UCX's own; when polls in a
 * row find nothing, it first yields (a rank running on the other core
 * answers within a few polls) and then sleeps, which, unlike a yield, lets
 * every other runnable process go first.  A program that never calls
 * ucp_worker_progress (Open MPI's, a shell) is not affected. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stddef.h>
#include <time.h>

/* Polls that find nothing before a waiting rank starts to sleep. */
enum { YIELDS_BEFORE_SLEEP = 16 };

typedef unsigned (*progress_fn)(void *worker);

static progress_fn ucx_progress;

/* UCX is loaded with libmpich, before any constructor runs. */
__attribute__((constructor)) static void find_ucx_progress(void)
{
    ucx_progress = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
}

/* Exported (relay builds with hidden symbols): preloaded, it must be seen. */
__attribute__((visibility("default"))) unsigned ucp_worker_progress(void *worker)
{
    static _Thread_local int idle_polls;
    unsigned events = ucx_progress(worker);
    if (events > 0)
        idle_polls = 0;
    else if (++idle_polls < YIELDS_BEFORE_SLEEP)
        sched_yield();
    else
        nanosleep(&(struct timespec){.tv_sec = 0, .tv_nsec = 1000}, NULL);
    return events;
}
