/* stats.c — relay-dump --stats STATS: what relay-run --stats measured on a
 * transform plan (its CSV, tools/relay-run/stats.c), checked against the
 * plan and summarised: the slowest ranks and the slowest messages, per
 * replay, as text or --json, and the measured heat map (seconds spent on
 * each sender-receiver pair) that --svg draws beside the volume one. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "relay/exec.h"

enum { SLOWEST = STATS_SLOWEST };

static const char *const kind_words[] = {"send", "recv", "local", "completion"};

/* ---- reading the file ----------------------------------------------------- */

static int kind_of(const char *word)
{
    for (int k = 0; k < 4; k++)
        if (strcmp(word, kind_words[k]) == 0) return k;
    return -1;
}

static int valid_seconds(double s) { return isfinite(s) && s >= 0; }

/* One data line into *row; 0 when it is not one. */
static int parse_row(const char *line, int nranks, stats_row *row)
{
    char kind[16];
    int used = 0;
    if (sscanf(line, "%d,%15[a-z],%d,%" SCNd64 ",%lf,%lf,%lf%n", &row->rank, kind, &row->peer, &row->bytes, &row->pack,
               &row->wait, &row->unpack, &used) != 7)
        return 0;
    row->kind = kind_of(kind);
    return line[used] == '\n' && row->kind >= 0 && row->rank >= 0 && row->rank < nranks && row->peer >= 0 &&
           row->peer < nranks && row->bytes >= 0 && valid_seconds(row->pack) && valid_seconds(row->wait) &&
           valid_seconds(row->unpack);
}

/* The first two lines: the measured plan, its ranks and the replays. */
static int parse_head(FILE *f, const char *path, const relay_plan *p, plan_stats *s, cli_error *e)
{
    char line[256];
    uint64_t fingerprint;
    int ranks;
    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "# relay-run --stats: plan %" SCNx64 ", %d ranks, %" SCNd64 " replays", &fingerprint, &ranks,
               &s->replays) != 3 ||
        !fgets(line, sizeof line, f) || strcmp(line, "rank,kind,peer,bytes,pack_s,wait_s,unpack_s\n") != 0)
        return cli_fail(e, CLI_FAILED, "--stats %s: not a file of relay-run --stats (its first two lines)", path);
    if (fingerprint != relay_plan_fingerprint(p) || ranks != p->nranks)
        return cli_fail(e, CLI_FAILED, "--stats %s: measured on another plan (fingerprint %016" PRIx64 ", %d ranks)", path,
                        fingerprint, ranks);
    if (s->replays < 1) return cli_fail(e, CLI_FAILED, "--stats %s: %" PRId64 " replays timed", path, s->replays);
    return CLI_OK;
}

/* Keeps the SLOWEST rows by total time, slowest first. */
static void keep_if_slow(plan_stats *s, const stats_row *row)
{
    double t = row->pack + row->wait + row->unpack;
    int at = s->nslow;
    while (at > 0 && s->slow[at - 1].pack + s->slow[at - 1].wait + s->slow[at - 1].unpack < t) at--;
    if (at >= SLOWEST) return;
    int last = s->nslow < SLOWEST ? s->nslow : SLOWEST - 1;
    memmove(&s->slow[at + 1], &s->slow[at], (size_t)(last - at) * sizeof *s->slow);
    s->slow[at] = *row;
    if (s->nslow < SLOWEST) s->nslow++;
}

/* A row into the rank's sums, the slowest messages and the map: a send's
 * packing on (rank, peer), a receive's waiting and unpacking on (peer,
 * rank), local copies on the diagonal; completion has no cell. */
static void add_row(plan_stats *s, const stats_row *row)
{
    double *t = &s->per_rank[3 * (size_t)row->rank], per = 1.0 / (double)s->replays;
    t[0] += row->pack;
    t[1] += row->wait;
    t[2] += row->unpack;
    if (row->kind == RELAY_TIMING_SEND || row->kind == RELAY_TIMING_RECV) keep_if_slow(s, row);
    if (row->kind == RELAY_TIMING_SEND) volume_matrix_add(&s->seconds, row->rank, row->peer, row->pack * per);
    if (row->kind == RELAY_TIMING_RECV) volume_matrix_add(&s->seconds, row->peer, row->rank, (row->wait + row->unpack) * per);
    if (row->kind == RELAY_TIMING_LOCAL) volume_matrix_add(&s->seconds, row->rank, row->rank, row->unpack * per);
}

int plan_stats_read(plan_stats *s, const char *path, const relay_plan *p, cli_error *e)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "r");
    if (!f) return cli_fail(e, CLI_FAILED, "--stats %s: cannot open it", path);
    int status = parse_head(f, path, p, s, e);
    s->per_rank = status ? NULL : calloc(3 * (size_t)p->nranks + 1, sizeof *s->per_rank);
    if (!status && !s->per_rank) status = cli_fail(e, CLI_FAILED, "out of memory for the timings of %d ranks", p->nranks);
    if (!status) status = volume_matrix_init(&s->seconds, p->nranks, e);
    s->seconds.seconds = 1;
    char line[256];
    for (int64_t n = 3; !status && fgets(line, sizeof line, f); n++) {
        stats_row row;
        if (!parse_row(line, p->nranks, &row))
            status = cli_fail(e, CLI_FAILED, "--stats %s: line %" PRId64 " is not a row of timings", path, n);
        else add_row(s, &row);
    }
    fclose(f);
    if (status) plan_stats_free(s);
    return status;
}

void plan_stats_free(plan_stats *s)
{
    free(s->per_rank);
    s->per_rank = NULL;
    volume_matrix_free(&s->seconds);
}

/* ---- the report ------------------------------------------------------------- */

static double rank_total(const plan_stats *s, int r)
{
    const double *t = &s->per_rank[3 * (size_t)r];
    return t[0] + t[1] + t[2];
}

/* The SLOWEST ranks by total time, slowest first; returns how many. */
static int slowest_ranks(const plan_stats *s, int nranks, int *out)
{
    int n = 0;
    for (int r = 0; r < nranks; r++) {
        int at = n;
        while (at > 0 && rank_total(s, out[at - 1]) < rank_total(s, r)) at--;
        if (at >= SLOWEST) continue;
        int last = n < SLOWEST ? n : SLOWEST - 1;
        memmove(&out[at + 1], &out[at], (size_t)(last - at) * sizeof *out);
        out[at] = r;
        if (n < SLOWEST) n++;
    }
    return n;
}

void plan_stats_print(const plan_stats *s, const char *path, int nranks, FILE *f)
{
    double ms = 1e3 / (double)s->replays;
    int ranks[SLOWEST], n = slowest_ranks(s, nranks, ranks);
    fprintf(f, "  measured   %s: %" PRId64 " replays timed by relay-run --stats; milliseconds per replay\n", path,
            s->replays);
    fprintf(f, "  %-18s%6s %10s %10s %10s %10s\n", "slowest ranks", "rank", "total", "pack", "wait", "unpack");
    for (int i = 0; i < n; i++) {
        const double *t = &s->per_rank[3 * (size_t)ranks[i]];
        fprintf(f, "  %-18s%6d %10.3f %10.3f %10.3f %10.3f\n", "", ranks[i], rank_total(s, ranks[i]) * ms, t[0] * ms,
                t[1] * ms, t[2] * ms);
    }
    fprintf(f, "  %-18s%6s %6s %-4s %12s %10s %10s %10s %10s\n", "slowest messages", "rank", "peer", "kind", "bytes", "total",
            "pack", "wait", "unpack");
    for (int i = 0; i < s->nslow; i++) {
        const stats_row *m = &s->slow[i];
        fprintf(f, "  %-18s%6d %6d %-4s %12" PRId64 " %10.3f %10.3f %10.3f %10.3f\n", "", m->rank, m->peer,
                kind_words[m->kind], m->bytes, (m->pack + m->wait + m->unpack) * ms, m->pack * ms, m->wait * ms,
                m->unpack * ms);
    }
}

void plan_stats_json(json_writer *w, const plan_stats *s, int nranks)
{
    double per = 1.0 / (double)s->replays;
    int ranks[SLOWEST], n = slowest_ranks(s, nranks, ranks);
    json_begin_object(w, "stats");
    json_int(w, "replays", s->replays);
    json_begin_array(w, "slowest_ranks");
    for (int i = 0; i < n; i++) {
        const double *t = &s->per_rank[3 * (size_t)ranks[i]];
        json_begin_object(w, NULL);
        json_int(w, "rank", ranks[i]);
        json_double(w, "total_s", rank_total(s, ranks[i]) * per);
        json_double(w, "pack_s", t[0] * per);
        json_double(w, "wait_s", t[1] * per);
        json_double(w, "unpack_s", t[2] * per);
        json_end_object(w);
    }
    json_end_array(w);
    json_begin_array(w, "slowest_messages");
    for (int i = 0; i < s->nslow; i++) {
        const stats_row *m = &s->slow[i];
        json_begin_object(w, NULL);
        json_int(w, "rank", m->rank);
        json_int(w, "peer", m->peer);
        json_string(w, "kind", kind_words[m->kind]);
        json_int(w, "bytes", m->bytes);
        json_double(w, "pack_s", m->pack * per);
        json_double(w, "wait_s", m->wait * per);
        json_double(w, "unpack_s", m->unpack * per);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
}
