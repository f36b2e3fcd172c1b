/* tuning.c — a transform or N-D plan's tuning (relay_exec_tune, relay-run
 * --tune; or predicted, relay-plan --schedule predicted) in relay-dump's
 * summary and --json. */
#include "dump.h"

/* A choice in words: its schedule, and what it packs, forwards (N-D) or
 * sends through a shared-memory window. */
static void choice_name(const relay_plan *p, const relay_tuning_choice *c, char *buf, size_t cap)
{
    const char *how = p->kind == RELAY_PLAN_ND ? (c->forward ? " forward" : " direct")
                      : c->packed                ? " packed"
                      : c->window                ? " window"
                                                 : "";
    snprintf(buf, cap, "%s%s", cli_schedule_words[c->schedule], how);
}

/* Each choice timed, its time per replay, and how much slower than the
 * best; the plan's own schedule is the one `auto` (or the planner's
 * caller) chose. */
void dump_print_tuning(const relay_plan *p, FILE *out)
{
    const relay_tuning *t = &p->tuning;
    if (!t->ntimed) return;
    const relay_tuning_choice *best = &t->choices[t->best];
    char name[32];
    choice_name(p, best, name, sizeof name);
    if (t->machine[0])
        fprintf(out, "  tuning     %s, predicted on %s for %d-%d ranks per node (one simulated replay of each; the slowest rank):\n",
                name, t->machine, t->ranks_per_node_min, t->ranks_per_node_max);
    else
        fprintf(out, "  tuning     %s, timed on %d-%d ranks per node (%d replays of each; median of the slowest rank):\n", name,
                t->ranks_per_node_min, t->ranks_per_node_max, t->replays);
    for (int i = 0; i < t->ntimed; i++) {
        const relay_tuning_choice *c = &t->choices[i];
        choice_name(p, c, name, sizeof name);
        fprintf(out, "             %-14s %10.3f ms", name, 1e3 * c->seconds);
        if (i == t->best) fprintf(out, "  best");
        else if (best->seconds > 0) fprintf(out, "  %+.0f%%", 100 * (c->seconds / best->seconds - 1));
        if (c->schedule == p->schedule && !c->packed && !c->window && (!p->nd || c->forward == rl_nd_plan_forwards(p->nd)))
            fprintf(out, "  (the plan's own %s)", p->nd ? "replicas" : "schedule");
        fprintf(out, "\n");
    }
}

void dump_json_tuning(json_writer *w, const relay_plan *p)
{
    const relay_tuning *t = &p->tuning;
    if (!t->ntimed) return;
    json_begin_object(w, "tuning");
    json_string(w, "best", cli_schedule_words[t->choices[t->best].schedule]);
    json_bool(w, "best_packed", t->choices[t->best].packed);
    if (!p->nd) json_bool(w, "best_window", t->choices[t->best].window);
    if (p->nd) json_bool(w, "best_forward", t->choices[t->best].forward);
    json_int(w, "ranks_per_node_min", t->ranks_per_node_min);
    json_int(w, "ranks_per_node_max", t->ranks_per_node_max);
    json_int(w, "replays", t->replays);
    if (t->machine[0]) json_string(w, "machine", t->machine); /* predicted there, not timed */
    json_begin_array(w, "choices");
    for (int i = 0; i < t->ntimed; i++) {
        json_begin_object(w, NULL);
        json_string(w, "schedule", cli_schedule_words[t->choices[i].schedule]);
        json_bool(w, "packed", t->choices[i].packed);
        if (p->nd) json_bool(w, "forward", t->choices[i].forward);
        else json_bool(w, "window", t->choices[i].window);
        json_double(w, "seconds", t->choices[i].seconds);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
}

