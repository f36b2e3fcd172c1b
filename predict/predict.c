/* predict.c — relay_plan_predict, relay_plan_predict_hsumma,
 * relay_predict_schedules and relay_predict_tuning (relay/predict.h):
 * checks the request, reads the machine, and runs the simulation of the
 * plan's kind (simulate.c, simulate_bmmc.c, simulate_hsumma.c,
 * simulate_nd.c) in a child
 * process, since SimGrid's engine can be made once per process; the child
 * writes the prediction and the ranks' times down a pipe and exits. */
#define _POSIX_C_SOURCE 200809L /* fork, pipe, waitpid */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "error.h"
#include "fluid_network.h"
#include "fluid_replay.h"
#include "machine.h"
#include "platform.h"
#include "simulate.h"
#include "simulate_kinds.h"

relay_status relay_predict_schedules(const relay_plan *p, relay_schedule *schedules, int *count)
{
    if (!p || !schedules || !count) return rl_fail(RELAY_ERR_ARG, "relay_predict_schedules: null argument");
    int n = 0;
    if (p->kind == RELAY_PLAN_ND) {
        schedules[0] = RELAY_SCHED_P2P;    /* the one schedule an N-D plan replays with */
        *count = 1;
        return RELAY_OK;
    }
    if (p->kind != RELAY_PLAN_TRANSFORM) {
        schedules[0] = RELAY_SCHED_AUTO;   /* BMMC and HSUMMA replay one way */
        *count = 1;
        return RELAY_OK;
    }
    if (!p->max_buffer_bytes) schedules[n++] = RELAY_SCHED_P2P;
    if (p->schedule == RELAY_SCHED_ROUNDS) schedules[n++] = RELAY_SCHED_ROUNDS;
    if (!p->max_buffer_bytes) {
        schedules[n++] = RELAY_SCHED_ALLTOALLV;
        schedules[n++] = RELAY_SCHED_NEIGHBOR;
    }
    *count = n;
    return RELAY_OK;
}

/* A BMMC or HSUMMA plan: its parameters are there, the schedule AUTO. */
static relay_status check_derived(const relay_plan *p, relay_schedule schedule)
{
    if ((p->kind == RELAY_PLAN_BMMC && !p->bmmc) || (p->kind == RELAY_PLAN_HSUMMA && !p->hsumma))
        return rl_fail(RELAY_ERR_ARG, "relay_plan_predict: the plan lacks its %s parameters",
                       p->kind == RELAY_PLAN_BMMC ? "BMMC" : "HSUMMA");
    if (schedule != RELAY_SCHED_AUTO)
        return rl_fail(RELAY_ERR_ARG, "relay_plan_predict: a %s plan replays one way: pass RELAY_SCHED_AUTO",
                       p->kind == RELAY_PLAN_BMMC ? "BMMC" : "HSUMMA");
    return RELAY_OK;
}

/* An N-D plan: its header is there, the schedule p2p (AUTO: p2p). */
static relay_status check_nd(const relay_plan *p, relay_schedule *schedule)
{
    if (!p->nd) return rl_fail(RELAY_ERR_ARG, "relay_plan_predict: the N-D plan lacks its pairs");
    if (*schedule == RELAY_SCHED_AUTO) *schedule = RELAY_SCHED_P2P;
    if (*schedule != RELAY_SCHED_P2P)
        return rl_fail(RELAY_ERR_ARG, "relay_plan_predict: an N-D plan replays p2p alone: pass RELAY_SCHED_P2P or RELAY_SCHED_AUTO");
    return RELAY_OK;
}

static relay_status check_request(const relay_plan *p, const char *machine_path, relay_schedule *schedule,
                                  const relay_prediction *out)
{
    if (!p || !machine_path || !out) return rl_fail(RELAY_ERR_ARG, "relay_plan_predict: null argument");
    relay_schedule possible[RELAY_PREDICT_MAX_SCHEDULES];
    int n;
    relay_status st = relay_predict_schedules(p, possible, &n);
    if (st) return st;
    if (p->kind == RELAY_PLAN_ND) return check_nd(p, schedule);
    if (p->kind != RELAY_PLAN_TRANSFORM) return check_derived(p, *schedule);
    for (int r = 0; r < p->nranks; r++) {
        const rl_section *s = p->sections[r];
        if (!s) return rl_fail(RELAY_ERR_ARG, "relay_plan_predict: the plan lacks rank %d's section (load it with rank -1)", r);
        if (p->schedule == RELAY_SCHED_ROUNDS && ((s->nsend && !s->send_round) || (s->nrecv && !s->recv_round)))
            return rl_fail(RELAY_ERR_ARG, "relay_plan_predict: rank %d's section of a rounds plan has no steps", r);
    }
    if (*schedule == RELAY_SCHED_AUTO) *schedule = p->schedule;
    for (int k = 0; k < n; k++)
        if (possible[k] == *schedule) return RELAY_OK;
    static const char *const names[] = {"auto", "p2p", "rounds", "alltoallv", "neighbor"};
    int known = *schedule >= RELAY_SCHED_P2P && *schedule <= RELAY_SCHED_NEIGHBOR;
    return rl_fail(RELAY_ERR_ARG, "relay_plan_predict: the plan cannot be replayed with schedule %s%s",
                   known ? names[*schedule] : "(not a relay_schedule)",
                   p->max_buffer_bytes ? " (a capped plan replays in rounds)" : " (rounds needs a plan made with rounds)");
}

/* ---- the pipe between child and parent ---------------------------------- */

static int write_all(int fd, const void *buf, size_t len)
{
    for (const char *at = buf; len;) {
        ssize_t n = write(fd, at, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        at += n;
        len -= (size_t)n;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
    for (char *at = buf; len;) {
        ssize_t n = read(fd, at, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        at += n;
        len -= (size_t)n;
    }
    return 0;
}

/* What to simulate: a transform plan's schedule, an HSUMMA plan's first
 * outer steps (all: -1), and on which engine. */
typedef struct {
    relay_schedule schedule;
    int64_t max_outer;
    int fluid;                   /* relay's own engine (fluid_replay.c) rather than SimGrid's */
} request;

/* Messages above which a transform plan's replay runs on relay's own
 * engine where it models the machine: SimGrid re-solves the sharing of
 * every flow in flight at each flow's end, so that its time grows as the
 * square of the messages or faster, and a plan of a million messages does
 * not finish; relay's engine agrees with it to 0.02% on the replay, 0.12%
 * on every rank, where both run (docs/benchmarks.md). */
enum { FLUID_ABOVE_MESSAGES = 20000 };

static int64_t plan_messages(const relay_plan *p)
{
    int64_t n = 0;
    for (int r = 0; r < p->nranks; r++) n += p->sections[r]->nsend;
    return n;
}

/* The engine: RELAY_PREDICT_ENGINE=simgrid or fluid where set, else
 * relay's own for a transform plan of more than FLUID_ABOVE_MESSAGES
 * messages on a machine it models. */
static relay_status choose_engine(const relay_plan *p, const machine *m, request *rq)
{
    const char *asked = getenv("RELAY_PREDICT_ENGINE");
    int transform = p->kind == RELAY_PLAN_TRANSFORM;
    if (!asked || !*asked) {
        rq->fluid = transform && fluid_models(m, p->nranks) && plan_messages(p) > FLUID_ABOVE_MESSAGES;
        return RELAY_OK;
    }
    if (strcmp(asked, "simgrid") && strcmp(asked, "fluid"))
        return rl_fail(RELAY_ERR_ARG, "relay_plan_predict: RELAY_PREDICT_ENGINE=%s: say simgrid or fluid", asked);
    rq->fluid = !strcmp(asked, "fluid");
    if (rq->fluid && !transform)
        return rl_fail(RELAY_ERR_ARG, "relay_plan_predict: RELAY_PREDICT_ENGINE=fluid simulates transform plans alone");
    if (rq->fluid && !fluid_models(m, p->nranks))
        return rl_fail(RELAY_ERR_ARG, "relay_plan_predict: RELAY_PREDICT_ENGINE=fluid models node, star and fat-tree machines alone, "
                                      "fat trees of at most %d levels", FLUID_MAX_LEVELS);
    return RELAY_OK;
}

static int simulate_kind(const relay_plan *p, const machine *m, request rq, relay_prediction *out, double *rank_seconds)
{
    if (p->kind == RELAY_PLAN_HSUMMA) return simulate_hsumma(p, m, rq.max_outer, out, rank_seconds);
    if (p->kind == RELAY_PLAN_BMMC) return simulate_bmmc(p, m, out, rank_seconds);
    if (p->kind == RELAY_PLAN_ND) return simulate_nd(p, m, out, rank_seconds);
    if (rq.fluid) return fluid_simulate_replay(p, m, rq.schedule, out, rank_seconds);
    return simulate_replay(p, m, rq.schedule, out, rank_seconds);
}

/* The child: simulates, writes the prediction and rank times, exits.  On
 * Linux it dies with its parent: a simulation of 65,536 ranks may run for
 * hours, and must not outlive a caller that was killed. */
_Noreturn static void predict_in_child(int fd, const relay_plan *p, const machine *m, request rq)
{
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    relay_prediction out;
    double *rank_seconds = rl_malloc_array((size_t)p->nranks, sizeof *rank_seconds);
    int failed = !rank_seconds || simulate_kind(p, m, rq, &out, rank_seconds) ||
                 write_all(fd, &out, sizeof out) || write_all(fd, rank_seconds, (size_t)p->nranks * sizeof *rank_seconds);
    _exit(failed ? 1 : 0);
}

/* The parent: reads what the child wrote, then reaps it. */
static relay_status collect(pid_t child, int fd, int nranks, relay_prediction *out, double *rank_seconds)
{
    int failed = read_all(fd, out, sizeof *out) || read_all(fd, rank_seconds, (size_t)nranks * sizeof *rank_seconds);
    close(fd);
    int wstatus;
    while (waitpid(child, &wstatus, 0) < 0 && errno == EINTR) {}
    if (failed || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus))
        return rl_fail(RELAY_ERR_NOMEM, "relay_plan_predict: the simulation failed (%s %d): out of memory, no temporary file, or SimGrid stopped (its words on stderr)",
                       WIFEXITED(wstatus) ? "exit status" : "signal", WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus));
    return RELAY_OK;
}

/* Reads the machine and simulates rq of a checked plan in a child. */
static relay_status predict(const relay_plan *p, const char *machine_path, request rq, relay_prediction *out,
                            double *rank_seconds)
{
    machine m;
    relay_status st = machine_read(&m, machine_path);
    if (!st) st = choose_engine(p, &m, &rq);
    if (st) return st;
    relay_prediction result;
    double *seconds = rl_malloc_array((size_t)p->nranks, sizeof *seconds);
    int fds[2];
    if (!seconds || pipe(fds)) {
        free(seconds);
        return seconds ? rl_fail(RELAY_ERR_NOMEM, "relay_plan_predict: no pipe: %s", strerror(errno)) : RL_NOMEM();
    }
    fflush(NULL);                       /* the child must not write the parent's buffered output again */
    pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        predict_in_child(fds[1], p, &m, rq);
    }
    close(fds[1]);
    if (child < 0) {
        close(fds[0]);
        free(seconds);
        return rl_fail(RELAY_ERR_NOMEM, "relay_plan_predict: cannot fork: %s", strerror(errno));
    }
    st = collect(child, fds[0], p->nranks, &result, seconds);
    if (!st) {
        *out = result;
        if (rank_seconds) memcpy(rank_seconds, seconds, (size_t)p->nranks * sizeof *seconds);
    }
    free(seconds);
    return st;
}

relay_status relay_plan_predict(const relay_plan *p, const char *machine_path, relay_schedule schedule,
                                relay_prediction *out, double *rank_seconds)
{
    relay_status st = check_request(p, machine_path, &schedule, out);
    return st ? st : predict(p, machine_path, (request){schedule, -1, 0}, out, rank_seconds);
}

relay_status relay_plan_predict_hsumma(const relay_plan *p, const char *machine_path, int64_t outer_steps,
                                       relay_prediction *out, double *rank_seconds)
{
    if (p && p->kind != RELAY_PLAN_HSUMMA)
        return rl_fail(RELAY_ERR_ARG, "relay_plan_predict_hsumma: not an HSUMMA plan");
    if (outer_steps < 0)
        return rl_fail(RELAY_ERR_ARG, "relay_plan_predict_hsumma: outer_steps %lld < 0", (long long)outer_steps);
    relay_schedule schedule = RELAY_SCHED_AUTO;
    relay_status st = check_request(p, machine_path, &schedule, out);
    return st ? st : predict(p, machine_path, (request){schedule, outer_steps ? outer_steps : -1, 0}, out, rank_seconds);
}

/* ---- every schedule, as a tuning ------------------------------------------ */

/* The job shape the simulation places nranks ranks in (simulate.c): nodes
 * of ranks_per_node ranks, the last holding the rest; one node for
 * topology node. */
static void job_shape(const machine *m, int nranks, int *fewest, int *most)
{
    int nodes = platform_nodes(m, nranks);
    *most = nodes == 1 ? nranks : m->ranks_per_node;
    *fewest = nranks - (nodes - 1) * *most;
}

/* The machine file's name: no directory, no ".machine", printable. */
static void machine_name(const char *path, char name[RELAY_TUNING_MACHINE_MAX])
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t len = strlen(base), suffix = strlen(".machine");
    if (len > suffix && !strcmp(base + len - suffix, ".machine")) len -= suffix;
    if (len > RELAY_TUNING_MACHINE_MAX - 1) len = RELAY_TUNING_MACHINE_MAX - 1;
    for (size_t i = 0; i < len; i++) name[i] = base[i] >= 0x20 && base[i] <= 0x7e ? base[i] : '?';
    memset(name + len, 0, RELAY_TUNING_MACHINE_MAX - len);
}

/* An N-D plan's replicas forward, as simulated: a tuning applied to the
 * plan must keep its choice (rl_nd_plan_forwards, in nd_plan.c, is not
 * compiled here). */
static int nd_forwards(const relay_plan *p)
{
    for (int k = 0; p->kind == RELAY_PLAN_ND && p->nd && k < p->nd->count; k++)
        if (p->nd->pairs[k].forward) return 1;
    return 0;
}

relay_status relay_predict_tuning(const relay_plan *p, const char *machine_path, relay_tuning *out)
{
    if (!p || !machine_path || !out) return rl_fail(RELAY_ERR_ARG, "relay_predict_tuning: null argument");
    relay_schedule schedules[RELAY_PREDICT_MAX_SCHEDULES];
    int n;
    machine m;
    relay_status st = relay_predict_schedules(p, schedules, &n);
    if (!st) st = machine_read(&m, machine_path);
    if (st) return st;
    relay_tuning t = {.ntimed = n, .replays = 1};
    job_shape(&m, p->nranks, &t.ranks_per_node_min, &t.ranks_per_node_max);
    machine_name(machine_path, t.machine);
    for (int k = 0; k < n; k++) {
        relay_prediction predicted;
        st = relay_plan_predict(p, machine_path, schedules[k], &predicted, NULL);
        if (st) return st;
        t.choices[k] = (relay_tuning_choice){.schedule = schedules[k], .seconds = predicted.seconds,
                                             .forward = nd_forwards(p)};
        if (predicted.seconds < t.choices[t.best].seconds) t.best = k;
    }
    *out = t;
    return RELAY_OK;
}
