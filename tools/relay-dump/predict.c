/* predict.c — relay-dump FILE --predict MACHINE: how long the plan's
 * replay would take on MACHINE (relay_plan_predict, relay/predict.h).
 * Prints the plan's own schedule's prediction in full (the replay time,
 * the slowest ranks, the slowest messages; for an HSUMMA plan its
 * communication and computation, groups and steps), then the time of every
 * schedule the plan can be replayed with (a BMMC or HSUMMA plan: its one
 * way, "auto"; an N-D plan: p2p); --json as one object.  MACHINE is a machine file, or the
 * name of one relay installs (cli_machine_file, tools/common/machine_file.h).
 * Built where SimGrid is; predict_none.c stands in elsewhere. */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX */
#include <limits.h>
#include <stdlib.h>

#include "machine_file.h"
#include "predict.h"
#include "relay/predict.h"

enum { SLOWEST_RANKS = 8 };

/* The n slowest ranks, slowest first (the lower rank on a tie). */
static int slowest_ranks(const double *seconds, int nranks, int *ranks)
{
    int n = 0;
    for (int r = 0; r < nranks; r++) {
        int k = n < SLOWEST_RANKS ? n++ : SLOWEST_RANKS;
        for (; k > 0 && seconds[ranks[k - 1]] < seconds[r]; k--)
            if (k < SLOWEST_RANKS) ranks[k] = ranks[k - 1];
        if (k < SLOWEST_RANKS) ranks[k] = r;
    }
    return n;
}

/* A prediction of every schedule: [0] the plan's own, in full. */
typedef struct {
    relay_prediction each[RELAY_PREDICT_MAX_SCHEDULES];
    int count;
    double *rank_seconds;        /* of each[0] */
    int ranks[SLOWEST_RANKS], nranks_listed;
} predictions;

static int predict_all(const relay_plan *p, const char *path, predictions *out, cli_error *e)
{
    relay_schedule schedules[RELAY_PREDICT_MAX_SCHEDULES];
    relay_status st = relay_predict_schedules(p, schedules, &out->count);
    if (st) return cli_fail_relay(e, CLI_USAGE, st, "--predict");
    for (int k = out->count - 1; k > 0; k--)      /* the plan's own first, the others in order */
        if (schedules[k] == p->schedule) {
            schedules[k] = schedules[k - 1];
            schedules[k - 1] = p->schedule;
        }
    out->rank_seconds = malloc((size_t)p->nranks * sizeof *out->rank_seconds);
    if (!out->rank_seconds) return cli_fail(e, CLI_FAILED, "out of memory");
    for (int k = 0; k < out->count && !st; k++)
        st = relay_plan_predict(p, path, schedules[k], &out->each[k], k ? NULL : out->rank_seconds);
    if (st) return cli_fail_relay(e, st == RELAY_ERR_FORMAT || st == RELAY_ERR_IO ? CLI_USAGE : CLI_FAILED, st, path);
    out->nranks_listed = slowest_ranks(out->rank_seconds, p->nranks, out->ranks);
    return CLI_OK;
}

static void print_text(const dump_request *r, const relay_plan *p, const char *path, const predictions *all, FILE *f)
{
    const relay_prediction *own = &all->each[0];
    fprintf(f, "%s on %s: predicted replay %.6f ms (%s, the plan's schedule; slowest rank %d)\n", r->path, path,
            own->seconds * 1e3, cli_schedule_words[own->schedule], own->slowest_rank);
    if (relay_plan_get_kind(p) == RELAY_PLAN_HSUMMA)
        fprintf(f, "  %-18s%.6f ms communication, %.6f ms computation (slowest ranks'), groups %d x %d, %lld outer steps\n",
                "hsumma", own->comm_seconds * 1e3, own->compute_seconds * 1e3, own->group_rows, own->group_cols,
                (long long)own->steps);
    fprintf(f, "  %-18s%6s %12s\n", "slowest ranks", "rank", "ms");
    for (int i = 0; i < all->nranks_listed; i++)
        fprintf(f, "  %-18s%6d %12.6f\n", "", all->ranks[i], all->rank_seconds[all->ranks[i]] * 1e3);
    fprintf(f, "  %-18s%6s %6s %14s %12s   (%lld messages)\n", "slowest messages", "from", "to", "bytes", "ms",
            (long long)own->messages);
    for (int i = 0; i < own->nslowest; i++)
        fprintf(f, "  %-18s%6d %6d %14lld %12.6f\n", "", own->slowest[i].from, own->slowest[i].to,
                (long long)own->slowest[i].bytes, own->slowest[i].seconds * 1e3);
    fprintf(f, "  %-18s%-10s %12s %6s\n", "every schedule", "schedule", "ms", "rank");
    for (int k = 0; k < all->count; k++)
        fprintf(f, "  %-18s%-10s %12.6f %6d\n", "", cli_schedule_words[all->each[k].schedule], all->each[k].seconds * 1e3,
                all->each[k].slowest_rank);
}

static void print_json(const relay_plan *p, const char *path, const predictions *all, FILE *f)
{
    const relay_prediction *own = &all->each[0];
    json_writer w = dump_json_open(p, cli_kind_words[p->kind], f);
    json_begin_object(&w, "prediction");
    json_string(&w, "machine", path);
    json_string(&w, "schedule", cli_schedule_words[own->schedule]);
    json_double(&w, "seconds", own->seconds);
    json_int(&w, "slowest_rank", own->slowest_rank);
    json_int(&w, "messages", own->messages);
    if (relay_plan_get_kind(p) == RELAY_PLAN_HSUMMA) {
        json_double(&w, "comm_seconds", own->comm_seconds);
        json_double(&w, "compute_seconds", own->compute_seconds);
        json_int(&w, "group_rows", own->group_rows);
        json_int(&w, "group_cols", own->group_cols);
        json_int(&w, "outer_steps", own->steps);
    }
    json_begin_array(&w, "slowest_ranks");
    for (int i = 0; i < all->nranks_listed; i++) {
        json_begin_object(&w, NULL);
        json_int(&w, "rank", all->ranks[i]);
        json_double(&w, "seconds", all->rank_seconds[all->ranks[i]]);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_begin_array(&w, "slowest_messages");
    for (int i = 0; i < own->nslowest; i++) {
        json_begin_object(&w, NULL);
        json_int(&w, "from", own->slowest[i].from);
        json_int(&w, "to", own->slowest[i].to);
        json_int(&w, "bytes", own->slowest[i].bytes);
        json_double(&w, "seconds", own->slowest[i].seconds);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_begin_array(&w, "schedules");
    for (int k = 0; k < all->count; k++) {
        json_begin_object(&w, NULL);
        json_string(&w, "schedule", cli_schedule_words[all->each[k].schedule]);
        json_double(&w, "seconds", all->each[k].seconds);
        json_int(&w, "slowest_rank", all->each[k].slowest_rank);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_end_object(&w);
    json_end_object(&w);
    json_finish(&w);
}

int dump_predict(const dump_request *r, const relay_plan *p, cli_error *e)
{
    char path[PATH_MAX + 64];
    predictions all = {0};
    int status = cli_machine_file("--predict", r->predict, path, sizeof path, e);
    if (!status) status = predict_all(p, path, &all, e);
    if (!status && r->json) print_json(p, path, &all, r->out);
    else if (!status) print_text(r, p, path, &all, r->out);
    free(all.rank_seconds);
    return status;
}
