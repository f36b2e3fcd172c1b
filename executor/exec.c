/* exec.c — the executor's facade: binding a plan to a communicator and
 * replaying it, whatever the plan's kind (relay/exec.h).
 *
 * relay_exec_create (collective) chooses the plan kind's table of
 * operations (exec_kind.h), lets the kind prepare this rank's part, agrees
 * with every other rank on the plan (fingerprint and what its tuning
 * chooses, communicator size, each rank's section where the kind needs
 * one, the job's ranks per node, and every rank's preparation: one
 * MPI_Allreduce), tells the kind how to replay (the tuned choice in a job
 * of the tuning's shape, else the plan's schedule), lets the kind check
 * its part against the peers'
 * (sections that disagree), duplicates the communicator and lets the kind
 * bind on the duplicate, replays included.  relay_internal_exec_create may leave
 * the duplicate and the binding of replays to the second replay, the first
 * running on the caller's communicator (exec_internal.h).  Start, wait, memory and free check what is common
 * to all kinds and hand the rest to the kind.
 *
 * A replay past its deadline (relay_exec_set_deadline, RELAY_DEADLINE)
 * leaves the executor unusable but for freeing; its diagnosis adds what
 * only the facade sees: another live executor of this process holding a
 * message this rank has not received, the sign of executors replayed in
 * different orders on different ranks. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "device_kind.h"
#include "error.h"
#include "exec_internal.h"
#include "exec_kind.h"
#include "index_plan.h"
#include "mpi_error.h"
#include "relay/exec.h"
#include "team.h"

struct relay_exec {
    const rl_exec_kind *kind;
    void *state;        /* the kind's, made by its prepare */
    MPI_Comm comm;      /* the executor's own duplicate, errors returned; the caller's
                           until the replays are bound, for an executor bound on repeat */
    int owns_comm;      /* comm is the duplicate */
    int replays_bound;  /* the kind's bind_replays has run */
    relay_status bind_status; /* ... and how: after a failure no replay follows */
    int node_fewest, node_most; /* the job's shape: comm's ranks on one node, agreed */
    long long replays;  /* replays started */
    int active;         /* a replay is in flight */
    relay_status broken; /* a replay passed its deadline: only freeing is left */
    long long serial;   /* this process's executors numbered in creation order, from 1 */
    relay_exec *prev, *next; /* the live executors of this process (none shared between threads) */
};

static relay_exec *live;
static long long created;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER; /* executors of one process may be made on several threads */

static void enlist(relay_exec *e)
{
    pthread_mutex_lock(&live_lock);
    e->serial = ++created;
    e->next = live;
    if (live) live->prev = e;
    live = e;
    pthread_mutex_unlock(&live_lock);
}

static void delist(relay_exec *e)
{
    pthread_mutex_lock(&live_lock);
    if (e->prev) e->prev->next = e->next;
    else if (live == e) live = e->next;
    if (e->next) e->next->prev = e->prev;
    pthread_mutex_unlock(&live_lock);
}

/* RELAY_DEADLINE: seconds, unset or empty for none. */
static relay_status deadline_from_env(double *seconds)
{
    const char *v = getenv("RELAY_DEADLINE");
    *seconds = 0;
    if (!v || !*v) return RELAY_OK;
    char *end;
    errno = 0;
    *seconds = strtod(v, &end);
    if (errno || *end || !isfinite(*seconds) || *seconds < 0)
        return rl_fail(RELAY_ERR_ARG, "RELAY_DEADLINE=\"%s\" is not a number of seconds (0 or more; unset: no deadline)", v);
    return RELAY_OK;
}

static const relay_exec_options host_memory = RELAY_EXEC_OPTIONS_INIT;

static const rl_exec_kind *kind_of(const relay_plan *p)
{
    switch (p->kind) {
    case RELAY_PLAN_BMMC: return &rl_exec_bmmc;
    case RELAY_PLAN_HSUMMA: return &rl_exec_hsumma;
    case RELAY_PLAN_ND: return &rl_exec_nd;
    case RELAY_PLAN_INDEX: return &rl_exec_index;
    default: return &rl_exec_transform;
    }
}

/* Whether the plan holds rank's section (an index plan keeps its own). */
static int holds_section(const relay_plan *p, int rank)
{
    return p->index ? p->index->sections[rank] != NULL : p->sections[rank] != NULL;
}

/* What ranks agree on at create, reduced by maximum alongside the verdict:
 * the plan (its fingerprint and what its tuning would choose), whether it
 * fits, the memory kind and transport the ranks bind with, and the job's
 * shape (the most and, as its complement, the fewest of comm's ranks on
 * one node). */
enum { AGREE_FP, AGREE_OPTIONS = AGREE_FP + RL_AGREE_SAME, AGREE_SIZE = AGREE_OPTIONS + RL_AGREE_SAME, AGREE_SECTION,
       AGREE_NODE_MOST, AGREE_NODE_FEWEST, AGREE_N };

static const char agreeing_on[] = "preparing its part of the plan";

/* The fingerprint, mixed with what the plan's tuning decides (the tuning
 * is outside the fingerprint, tuning.c): ranks whose tunings choose
 * differently or for different job shapes hold different plans, even in
 * a job where neither tuning applies (refused, safely). */
static uint64_t plan_identity(const relay_plan *p)
{
    const relay_tuning *t = &p->tuning;
    if (!t->ntimed) return p->fingerprint;
    const relay_tuning_choice *c = &t->choices[t->best];
    uint64_t z = (uint64_t)c->schedule << 56 ^ (uint64_t)c->packed << 48 ^ (uint64_t)c->forward << 52 ^ (uint64_t)c->window << 44 ^
                 (uint64_t)t->ranks_per_node_min << 24 ^ (uint64_t)t->ranks_per_node_max;
    z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9u; /* splitmix64's finaliser */
    z = (z ^ z >> 27) * 0x94d049bb133111ebu;
    return p->fingerprint ^ (z ^ z >> 31);
}

/* The tuned choice in a job of the tuning's shape, else the plan's own
 * schedule; `forced` (relay_exec_tune's candidates) above both. */
static relay_tuning_choice choose(const relay_plan *p, const uint64_t *v, const relay_tuning_choice *forced)
{
    const relay_tuning *t = &p->tuning;
    int most = (int)v[AGREE_NODE_MOST], fewest = INT32_MAX - (int)v[AGREE_NODE_FEWEST];
    if (forced) return *forced;
    if (t->ntimed && t->ranks_per_node_min == fewest && t->ranks_per_node_max == most) return t->choices[t->best];
    return (relay_tuning_choice){.schedule = p->schedule, .forward = p->nd && rl_nd_plan_forwards(p->nd)};
}

/* Every rank learns whether all can bind the plan, and how to replay it.
 * The verdicts in order: this rank's own failure, a communicator size a
 * rank's plan was not made for, different plans, a missing section,
 * another rank's failure. */
static relay_status agree_on_plan(relay_exec *e, MPI_Comm comm, const relay_plan *p, int size, int has_part, int node_ranks,
                                  const relay_exec_options *opt, relay_status local, const relay_tuning_choice *forced,
                                  relay_tuning_choice *choice)
{
    uint64_t v[AGREE_N];
    rl_agree_same_init(&v[AGREE_FP], plan_identity(p));
    uint64_t transport = opt->memory == RELAY_MEMORY_HOST ? 0 : (uint64_t)opt->transport; /* host memory ignores it */
    rl_agree_same_init(&v[AGREE_OPTIONS], (uint64_t)opt->memory << 8 | transport);
    v[AGREE_SIZE] = size != p->nranks;
    v[AGREE_SECTION] = !has_part;
    v[AGREE_NODE_MOST] = (uint64_t)node_ranks;
    v[AGREE_NODE_FEWEST] = (uint64_t)(INT32_MAX - node_ranks);
    relay_status st = rl_agree_values(comm, local, v, AGREE_N, agreeing_on);
    if (local || st == RELAY_ERR_MPI) return st; /* a failing rank keeps its own message */
    if (v[AGREE_SIZE])
        return rl_fail(RELAY_ERR_MISMATCH, "the communicator has %d ranks but a rank's plan was made for a different count (this rank's: %d)",
                       size, p->nranks);
    if (!rl_agree_same(&v[AGREE_FP]))
        return rl_fail(RELAY_ERR_MISMATCH, "ranks hold different plans (fingerprints differ, or tunings that choose differently)");
    if (!rl_agree_same(&v[AGREE_OPTIONS]))
        return rl_fail(RELAY_ERR_MISMATCH, "ranks bind with different memory kinds or transports (this rank: %s memory, transport %d)",
                       opt->memory == RELAY_MEMORY_CUDA ? "CUDA" : "host", (int)opt->transport);
    if (v[AGREE_SECTION]) return rl_fail(RELAY_ERR_MISMATCH, "a rank's plan lacks that rank's own section");
    *choice = choose(p, v, forced);
    e->node_most = (int)v[AGREE_NODE_MOST];
    e->node_fewest = INT32_MAX - (int)v[AGREE_NODE_FEWEST];
    return st;
}

/* Zeros leave every maximum as the planning ranks make it; the team's
 * collective comes first, as in relay_internal_exec_create. */
relay_status relay_internal_exec_join_failed(MPI_Comm comm, relay_status local)
{
    int node_ranks;
    (void)rl_team_size(comm, &node_ranks);
    uint64_t v[AGREE_N] = {0};
    relay_status st = rl_agree_values(comm, local, v, AGREE_N, agreeing_on);
    return st ? st : local;
}

static relay_status dup_comm(MPI_Comm comm, MPI_Comm *own)
{
    int rc = MPI_Comm_dup(comm, own);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(*own, MPI_ERRORS_RETURN);
    return rc == MPI_SUCCESS ? RELAY_OK : rl_mpi_fail(rc, "MPI_Comm_dup");
}

/* On the executor's own duplicate, made now if the executor still replays
 * on its caller's communicator.  Once: a kind's partial binding is not
 * tried again. */
static relay_status bind_replays(relay_exec *e)
{
    MPI_Comm own = MPI_COMM_NULL;
    relay_status st = e->owns_comm ? RELAY_OK : dup_comm(e->comm, &own);
    if (!st && !e->owns_comm) {
        e->comm = own;
        e->owns_comm = 1;
    }
    if (!st && e->kind->bind_replays) st = e->kind->bind_replays(e->state, e->comm);
    e->replays_bound = 1;
    e->bind_status = st;
    return st;
}

/* relay_internal_exec_create, replaying as `forced` says if not NULL. */
/* Memory other than the host's, for a plan kind that cannot replay over it. */
static relay_status check_memory_kind(const relay_exec *e, const relay_exec_options *opt)
{
    if (opt->memory == RELAY_MEMORY_HOST) return RELAY_OK;
    if (opt->memory != RELAY_MEMORY_CUDA || (unsigned)opt->transport > RELAY_TRANSPORT_DIRECT)
        return rl_fail(RELAY_ERR_ARG, "relay_exec_create_with: unknown memory kind %d or transport %d", (int)opt->memory,
                       (int)opt->transport);
    if (e->kind != &rl_exec_transform)
        return rl_fail(RELAY_ERR_UNSUPPORTED, "relay_exec_create_with: only 2-D transform plans replay over CUDA memory yet "
                                              "(BMMC, HSUMMA, N-D and index plans replay over host memory)");
    return RELAY_OK;
}

static relay_status create(relay_exec **out, const relay_plan *p, MPI_Comm comm, unsigned flags, relay_internal_scratch *scratch,
                           const relay_tuning_choice *forced, const relay_exec_options *opt)
{
    if (!out || !p) return rl_fail(RELAY_ERR_ARG, "relay_exec_create: NULL argument");
    if (comm == MPI_COMM_NULL) return rl_fail(RELAY_ERR_ARG, "relay_exec_create: the communicator is MPI_COMM_NULL");
    relay_exec *e = calloc(1, sizeof *e);
    if (!e) return RL_NOMEM();
    e->kind = kind_of(p);
    e->comm = MPI_COMM_NULL;
    int rank, size;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    int has_part = !e->kind->needs_section || (size == p->nranks && holds_section(p, rank));
    int on_repeat = (flags & RL_EXEC_BIND_ON_REPEAT) != 0, peers_checked = !on_repeat && e->kind->check_peers;
    int node_ranks;
    rl_exec_setup setup = {.rank = rank, .nranks = size, .peers_checked = peers_checked,
                           .shared_landings = (flags & RL_EXEC_SHARED_LANDINGS) != 0,
                           .team = rl_team_size(comm, &node_ranks), .options = opt};
    double deadline = 0;
    relay_status st = check_memory_kind(e, opt);
    if (!st) st = deadline_from_env(&deadline);
    if (!st && has_part) st = e->kind->prepare(&e->state, p, &setup);
    relay_tuning_choice choice;
    st = agree_on_plan(e, comm, p, size, has_part, node_ranks, opt, st, forced, &choice);
    if (!st && e->kind->choose) e->kind->choose(e->state, &choice);
    if (!st && peers_checked) st = e->kind->check_peers(e->state, comm);
    if (!st && on_repeat) e->comm = comm;
    if (!st && !on_repeat) st = dup_comm(comm, &e->comm);
    e->owns_comm = !on_repeat;
    if (!st) st = e->kind->bind(e->state, e->comm, on_repeat ? scratch : NULL);
    if (!st && !on_repeat) st = bind_replays(e);
    if (st) {
        relay_exec_free(e);
        return st;
    }
    if (deadline > 0 && e->kind->deadline) e->kind->deadline(e->state, deadline); /* the kinds without one ignore it */
    enlist(e);
    *out = e;
    return RELAY_OK;
}

relay_status relay_internal_exec_create(relay_exec **out, const relay_plan *p, MPI_Comm comm, unsigned flags,
                                        relay_internal_scratch *scratch)
{
    return create(out, p, comm, flags, scratch, NULL, &host_memory);
}

relay_status relay_exec_create(relay_exec **out, const relay_plan *p, MPI_Comm comm)
{
    return create(out, p, comm, 0, NULL, NULL, &host_memory);
}

relay_status relay_exec_create_with(relay_exec **out, const relay_plan *p, MPI_Comm comm, const relay_exec_options *opt)
{
    return create(out, p, comm, 0, NULL, NULL, opt ? opt : &host_memory);
}

relay_status rl_exec_create_choosing(relay_exec **out, const relay_plan *p, MPI_Comm comm, const relay_tuning_choice *choice)
{
    return create(out, p, comm, 0, NULL, choice, &host_memory);
}

relay_status relay_exec_options_get(const relay_exec *e, relay_exec_options *opt)
{
    if (!e || !opt) return rl_fail(RELAY_ERR_ARG, "relay_exec_options_get: NULL argument");
    *opt = host_memory;
    if (e->kind->options) e->kind->options(e->state, opt);
    return RELAY_OK;
}

relay_status relay_memory_supported(relay_memory m, int *yes)
{
    if (!yes) return rl_fail(RELAY_ERR_ARG, "relay_memory_supported: NULL argument");
    const rl_device_kind *k = rl_device_kind_of(m);
    *yes = m == RELAY_MEMORY_HOST;
    return k ? k->supported(yes) : RELAY_OK;
}

/* Another live executor of this process (bound for good, not replaying)
 * holding a message: its sender replays it while this rank waits in e. */
static long long waiting_elsewhere(const relay_exec *e, int *sender)
{
    long long serial = 0;
    pthread_mutex_lock(&live_lock);
    for (const relay_exec *f = live; f && !serial; f = f->next) {
        int flag = 0;
        MPI_Status status;
        if (f == e || f->active || !f->owns_comm || f->broken) continue;
        if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, f->comm, &flag, &status) == MPI_SUCCESS && flag) {
            *sender = status.MPI_SOURCE;
            serial = f->serial;
        }
    }
    pthread_mutex_unlock(&live_lock);
    return serial;
}

/* A timed-out replay: the executor broken, and the kind's diagnosis
 * completed with executors replayed in different orders where seen. */
static relay_status timed_out(relay_exec *e)
{
    e->broken = RELAY_ERR_TIMEOUT;
    int sender;
    long long other = waiting_elsewhere(e, &sender);
    if (!other) return RELAY_ERR_TIMEOUT;
    char said[1024];
    snprintf(said, sizeof said, "%s", relay_last_error());
    return rl_fail(RELAY_ERR_TIMEOUT, "%s; meanwhile rank %d sent this rank a message of another executor (this process's "
                   "executor #%lld; this one is #%lld), which this rank has not replayed yet: ranks replay the executors in "
                   "different orders",
                   said, sender, other, e->serial);
}

/* A start refused on this rank alone (its arguments) still exchanges, over
 * NaN (stand_in.c): the other ranks, whose start succeeded, complete. */
static relay_status stand_in(relay_exec *e, relay_status refusal)
{
    char why[1024];
    snprintf(why, sizeof why, "%s", relay_last_error());
    relay_status st = e->kind->stand_in(e->state);
    if (st == RELAY_ERR_TIMEOUT) e->broken = st;
    if (st) return rl_fail(refusal, "%s (and the stand-in replay for the other ranks failed: %s: %s)", why, relay_status_str(st),
                           relay_last_error());
    return refusal;
}

relay_status relay_exec_start(relay_exec *e, void *const *dst, const void *const *src, const void *alpha, const void *beta)
{
    if (!e) return rl_fail(RELAY_ERR_ARG, "relay_exec_start: executor is NULL");
    if (e->active) return rl_fail(RELAY_ERR_ARG, "relay_exec_start: a replay is already in flight; call relay_exec_wait first");
    if (e->broken)
        return rl_fail(e->broken, "relay_exec_start: replay %lld passed its deadline; the executor can only be freed", e->replays);
    if (e->bind_status)
        return rl_fail(e->bind_status, "relay_exec_start: binding the executor's replays failed earlier (%s)",
                       relay_status_str(e->bind_status));
    relay_status st = e->replays && !e->replays_bound ? bind_replays(e) : RELAY_OK;
    if (st) return st;
    e->replays++; /* the stand-in of a refused start counts, as the peers' replay does */
    st = !dst || !src ? rl_fail(RELAY_ERR_ARG, "relay_exec_start: the dst or src array is NULL")
                      : e->kind->start(e->state, dst, src, alpha, beta);
    e->active = st == RELAY_OK;
    if (st == RELAY_ERR_TIMEOUT) return timed_out(e); /* a window's sender waited for its receiver */
    return st == RELAY_ERR_ARG ? stand_in(e, st) : st;
}

relay_status relay_exec_wait(relay_exec *e)
{
    if (!e) return rl_fail(RELAY_ERR_ARG, "relay_exec_wait: executor is NULL");
    if (!e->active) return rl_fail(RELAY_ERR_ARG, "relay_exec_wait: no replay is in flight");
    e->active = 0;
    relay_status st = e->kind->wait(e->state);
    return st == RELAY_ERR_TIMEOUT ? timed_out(e) : st;
}

relay_status relay_exec_set_deadline(relay_exec *e, double seconds)
{
    if (!e) return rl_fail(RELAY_ERR_ARG, "relay_exec_set_deadline: executor is NULL");
    if (!isfinite(seconds) || seconds < 0)
        return rl_fail(RELAY_ERR_ARG, "relay_exec_set_deadline: %g is not a number of seconds (0: none)", seconds);
    if (e->active) return rl_fail(RELAY_ERR_ARG, "relay_exec_set_deadline: a replay is in flight");
    if (!e->kind->deadline)
        return rl_fail(RELAY_ERR_UNSUPPORTED, "relay_exec_set_deadline: only transform plans' replays take a deadline yet "
                                              "(BMMC, HSUMMA and N-D replays wait without one)");
    e->kind->deadline(e->state, seconds);
    return RELAY_OK;
}

relay_status relay_exec_run(relay_exec *e, void *const *dst, const void *const *src, const void *alpha, const void *beta)
{
    relay_status st = relay_exec_start(e, dst, src, alpha, beta);
    return st ? st : relay_exec_wait(e);
}

relay_status relay_exec_get_memory(const relay_exec *e, relay_exec_memory *m)
{
    if (!e || !m) return rl_fail(RELAY_ERR_ARG, "relay_exec_get_memory: NULL argument");
    e->kind->memory(e->state, m);
    return RELAY_OK;
}

relay_status relay_exec_hsumma_report(const relay_exec *e, relay_hsumma_report *r)
{
    if (!e || !r) return rl_fail(RELAY_ERR_ARG, "relay_exec_hsumma_report: NULL argument");
    if (!e->kind->hsumma_report)
        return rl_fail(RELAY_ERR_ARG, "relay_exec_hsumma_report: the executor does not replay an HSUMMA plan");
    e->kind->hsumma_report(e->state, r);
    return RELAY_OK;
}

static relay_status timed_kind(const relay_exec *e, const char *what)
{
    if (!e) return rl_fail(RELAY_ERR_ARG, "%s: NULL executor", what);
    if (!e->kind->time) return rl_fail(RELAY_ERR_UNSUPPORTED, "%s: only transform and N-D replays are timed", what);
    return RELAY_OK;
}

relay_status relay_exec_time(relay_exec *e, int on)
{
    relay_status st = timed_kind(e, "relay_exec_time");
    if (!st && e->active) st = rl_fail(RELAY_ERR_ARG, "relay_exec_time: a replay is in flight");
    return st ? st : e->kind->time(e->state, on != 0);
}

relay_status relay_exec_timings(const relay_exec *e, int64_t *replays, relay_exec_timing *out, int *count)
{
    relay_status st = timed_kind(e, "relay_exec_timings");
    if (!st && (!replays || !count || *count < 0))
        st = rl_fail(RELAY_ERR_ARG, "relay_exec_timings: NULL replays or count, or a negative count");
    if (!st) e->kind->timings(e->state, replays, out, count);
    return st;
}

void rl_exec_replayed(const relay_exec *e, relay_tuning_choice *c)
{
    *c = (relay_tuning_choice){0};
    if (e->kind->replayed) e->kind->replayed(e->state, c);
}

relay_status relay_exec_schedule(const relay_exec *e, relay_schedule *schedule, int *packed)
{
    if (!e || !schedule || !packed) return rl_fail(RELAY_ERR_ARG, "relay_exec_schedule: NULL argument");
    if (!e->kind->replayed)
        return rl_fail(RELAY_ERR_UNSUPPORTED, "relay_exec_schedule: only transform plans have a schedule to choose");
    relay_tuning_choice c;
    e->kind->replayed(e->state, &c);
    *schedule = c.schedule;
    *packed = c.packed;
    return RELAY_OK;
}

void rl_exec_job_shape(const relay_exec *e, int *fewest, int *most)
{
    *fewest = e->node_fewest;
    *most = e->node_most;
}

void relay_exec_free(relay_exec *e)
{
    if (!e) return;
    if (e->active) relay_exec_wait(e);
    delist(e);
    e->kind->free(e->state);
    /* A timed-out executor's communicator is left to MPI: a receive MPI
     * could not cancel stays posted on it, and a later communicator that
     * reused its context would see its messages taken by that receive. */
    if (e->owns_comm && e->comm != MPI_COMM_NULL && !e->broken) MPI_Comm_free(&e->comm);
    free(e);
}
