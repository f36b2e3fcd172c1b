/* tuning.c — a transform or N-D plan's tuning: what relay_exec_tune measured on a
 * job (or relay_predict_tuning predicted on a machine model), the choice relay_exec_create replays on jobs of the same shape
 * (relay/plan.h), and the check that a tuning is one the plan can carry,
 * shared by relay_plan_set_tuning and the file reader (codec_read.c).
 *
 * The tuning is outside the plan's fingerprint: it changes how the same
 * sections are replayed, not what they move, so a tuned plan and its
 * untuned original are the same plan to relay_exec_create's agreement
 * (which compares the tuned choice separately, exec.c). */
#include <string.h>

#include "error.h"
#include "plan_internal.h"

enum { MAX_SECONDS = 1000000000 }; /* a replay's seconds beyond this are not a measurement */

/* Whether the executor can replay an N-D plan as c says: point to point,
 * forwarding only where a destination is replicated. */
static const char *nd_choice_flaw(const relay_plan *p, const relay_tuning_choice *c)
{
    if (c->schedule != RELAY_SCHED_P2P || c->packed || c->window) return "an N-D plan's choice is not p2p with packed 0 and window 0";
    if (c->forward != 0 && c->forward != 1) return "a choice's forward flag is not 0 or 1";
    if (c->forward && !rl_nd_plan_replicated(p->nd)) return "a choice forwards, but no destination of the plan is replicated";
    return NULL;
}

/* Whether two choices are the same way to replay. */
static int same_choice(const relay_tuning_choice *a, const relay_tuning_choice *b)
{
    return a->schedule == b->schedule && a->packed == b->packed && a->forward == b->forward && a->window == b->window;
}

/* Whether the executor can replay p's sections as c says. */
static const char *choice_flaw(const relay_plan *p, const relay_tuning_choice *c)
{
    if (!(c->seconds >= 0 && c->seconds <= MAX_SECONDS)) return "a choice's seconds are negative, not finite or beyond 1e9";
    if (p->kind == RELAY_PLAN_ND) return nd_choice_flaw(p, c);
    if (c->forward) return "a choice forwards, but only N-D plans forward";
    switch (c->schedule) {
    case RELAY_SCHED_P2P:
    case RELAY_SCHED_ALLTOALLV:
    case RELAY_SCHED_NEIGHBOR: break;
    case RELAY_SCHED_ROUNDS:
        if (p->schedule != RELAY_SCHED_ROUNDS) return "a choice is rounds, but the plan's sections hold no steps (it was not made with rounds)";
        break;
    default: return "a choice's schedule is not p2p, rounds, alltoallv or neighbor";
    }
    if (p->max_buffer_bytes && c->schedule != RELAY_SCHED_ROUNDS)
        return "a choice is not rounds, but the plan's memory cap replays in rounds only";
    if (c->packed != 0 && c->packed != 1) return "a choice's packed flag is not 0 or 1";
    if (c->packed && c->schedule != RELAY_SCHED_P2P) return "a choice packs every message under a schedule other than p2p";
    if (c->window != 0 && c->window != 1) return "a choice's window flag is not 0 or 1";
    if (c->window && c->schedule != (p->max_buffer_bytes ? RELAY_SCHED_ROUNDS : RELAY_SCHED_P2P))
        return "a choice goes through a shared-memory window under a schedule other than p2p (rounds under a memory cap)";
    return NULL;
}

/* Whether a predicted tuning's machine name is printable ASCII ended by a
 * NUL within its array (a timed tuning's is empty). */
static int machine_name_ok(const char *name)
{
    for (int i = 0; i < RELAY_TUNING_MACHINE_MAX; i++) {
        if (!name[i]) return 1;
        if (name[i] < 0x20 || name[i] > 0x7e) return 0;
    }
    return 0;
}

const char *rl_tuning_flaw(const relay_plan *p, const relay_tuning *t)
{
    if (p->kind != RELAY_PLAN_TRANSFORM && p->kind != RELAY_PLAN_ND)
        return "only transform and N-D plans carry a tuning (an HSUMMA plan's groups are tuned by relay_hsumma_autotune)";
    if (t->ntimed < 1 || t->ntimed > RELAY_TUNING_MAX_CHOICES) return "its count of choices is not between 1 and 8";
    if (t->best < 0 || t->best >= t->ntimed) return "its best choice is not one of its choices";
    if (t->ranks_per_node_min < 1 || t->ranks_per_node_min > t->ranks_per_node_max || t->ranks_per_node_max > p->nranks)
        return "its ranks per node are not 1 <= fewest <= most <= the plan's ranks";
    if (t->replays < 1) return "it timed no replay";
    if (!machine_name_ok(t->machine)) return "its machine name is not printable ASCII of at most 31 characters";
    for (int i = 0; i < t->ntimed; i++) {
        const char *flaw = choice_flaw(p, &t->choices[i]);
        if (flaw) return flaw;
        for (int j = 0; j < i; j++)
            if (same_choice(&t->choices[j], &t->choices[i]))
                return "it times one choice twice";
    }
    return NULL;
}

relay_status relay_plan_tuning(const relay_plan *p, relay_tuning *t)
{
    if (!p || !t) return rl_fail(RELAY_ERR_ARG, "relay_plan_tuning: NULL argument");
    *t = p->tuning;
    return RELAY_OK;
}

relay_status relay_plan_set_tuning(relay_plan *p, const relay_tuning *t)
{
    if (!p) return rl_fail(RELAY_ERR_ARG, "relay_plan_set_tuning: plan is NULL");
    relay_tuning kept;
    memset(&kept, 0, sizeof kept); /* choices past ntimed stay zero: plans compare and encode alike */
    if (t && t->ntimed) {
        const char *flaw = rl_tuning_flaw(p, t);
        if (flaw) return rl_fail(RELAY_ERR_ARG, "relay_plan_set_tuning: %s", flaw);
        kept = *t;
        for (int i = t->ntimed; i < RELAY_TUNING_MAX_CHOICES; i++) kept.choices[i] = (relay_tuning_choice){0};
        size_t used = strlen(t->machine);
        memset(kept.machine + used, 0, sizeof kept.machine - used);
    }
    p->tuning = kept;
    return RELAY_OK;
}
