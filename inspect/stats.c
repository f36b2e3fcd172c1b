/* stats.c — relay-dump --stats STATS: what relay-run --stats measured on a
 * transform plan (its CSV, tools/relay-run/stats.c), checked against the
 * plan and summarised: the slowest ranks and the slowest messages, per
 * replay, as text or --json, and the measured heat map (seconds spent on
 * each sender-receiver pair) that --svg draws beside the volume one. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "relay/exec.h"

enum { SLOWEST = STATS_SLOWEST };

/* Bounds on what a row may say: the file is untrusted, and sums of its
 * values must stay finite (a day per replay is more than any replay). */
#define MAX_SECONDS 1e9
#define MAX_REPLAYS ((int64_t)1 << 40)

static const char *const kind_words[] = {"send", "recv", "local", "completion"};

/* ---- reading the file ----------------------------------------------------- */

static int kind_of(const char *word)
{
    for (int k = 0; k < 4; k++)
        if (strcmp(word, kind_words[k]) == 0) return k;
    return -1;
}

/* The field at *at, ended by `end` (',' or the line's end), as an integer
 * in [lo, hi] or as seconds in [0, MAX_SECONDS]; *at moves past it. */
static int field_end(const char **at, char *stop, char end)
{
    if (stop == *at || (end == ',' ? *stop != ',' : *stop != '\n' && *stop != '\0')) return 0;
    *at = stop + (*stop != '\0');
    return 1;
}

static int int_field(const char **at, int64_t lo, int64_t hi, char end, int64_t *out)
{
    char *stop;
    errno = 0;
    long long v = strtoll(*at, &stop, 10);
    *out = v;
    return errno == 0 && v >= lo && v <= hi && field_end(at, stop, end);
}

static int seconds_field(const char **at, char end, double *out)
{
    char *stop;
    *out = strtod(*at, &stop);
    return isfinite(*out) && *out >= 0 && *out <= MAX_SECONDS && field_end(at, stop, end);
}

static int kind_field(const char **at, int *kind)
{
    const char *comma = strchr(*at, ',');
    char word[16];
    if (!comma || comma - *at >= (ptrdiff_t)sizeof word) return 0;
    memcpy(word, *at, (size_t)(comma - *at));
    word[comma - *at] = '\0';
    *kind = kind_of(word);
    *at = comma + 1;
    return *kind >= 0;
}

/* One data line into *row; 0 when it is not one. */
static int parse_row(const char *line, int nranks, stats_row *row)
{
    const char *at = line;
    int64_t rank = 0, peer = 0;
    int ok = int_field(&at, 0, nranks - 1, ',', &rank) && kind_field(&at, &row->kind) &&
             int_field(&at, 0, nranks - 1, ',', &peer) && int_field(&at, 0, INT64_MAX, ',', &row->bytes) &&
             seconds_field(&at, ',', &row->pack) && seconds_field(&at, ',', &row->wait) &&
             seconds_field(&at, '\n', &row->unpack) && *at == '\0';
    row->rank = (int)rank;
    row->peer = (int)peer;
    return ok;
}

/* Skips the text `word` at *at. */
static int skip(const char **at, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(*at, word, n) != 0) return 0;
    *at += n;
    return 1;
}

/* "# relay-run --stats: plan <16 hex digits>, <ranks> ranks, <replays> replays" */
static int parse_first_line(const char *line, uint64_t *fingerprint, int64_t *ranks, int64_t *replays)
{
    const char *at = line;
    char *stop;
    if (!skip(&at, "# relay-run --stats: plan ")) return 0;
    errno = 0;
    *fingerprint = strtoull(at, &stop, 16);
    if (errno || stop - at != 16) return 0;
    at = stop;
    if (!skip(&at, ", ")) return 0;
    *ranks = strtoll(at, &stop, 10);
    if (errno || stop == at || *ranks < 1 || *ranks > INT32_MAX) return 0;
    at = stop;
    if (!skip(&at, " ranks, ")) return 0;
    *replays = strtoll(at, &stop, 10);
    if (errno || stop == at) return 0;
    at = stop;
    return skip(&at, " replays\n") && *at == '\0';
}

/* The first two lines: the measured plan, its ranks and the replays. */
static int parse_head(FILE *f, const char *path, const relay_plan *p, plan_stats *s, cli_error *e)
{
    char line[256];
    uint64_t fingerprint;
    int64_t ranks;
    if (!fgets(line, sizeof line, f) || !parse_first_line(line, &fingerprint, &ranks, &s->replays) ||
        !fgets(line, sizeof line, f) || strcmp(line, "rank,kind,peer,bytes,pack_s,wait_s,unpack_s\n") != 0)
        return cli_fail(e, CLI_FAILED, "--stats %s: not a file of relay-run --stats (its first two lines)", path);
    if (fingerprint != relay_plan_fingerprint(p) || ranks != p->nranks)
        return cli_fail(e, CLI_FAILED, "--stats %s: measured on another plan (fingerprint %016" PRIx64 ", %" PRId64 " ranks)",
                        path, fingerprint, ranks);
    if (s->replays < 1 || s->replays > MAX_REPLAYS)
        return cli_fail(e, CLI_FAILED, "--stats %s: %" PRId64 " replays timed", path, s->replays);
    return CLI_OK;
}

/* Puts `item` (of `size` bytes) with key t into the list items/keys of
 * *n entries, sorted largest key first and kept to SLOWEST entries: the
 * slowest ranks and the slowest messages are both such lists. */
static void keep_slowest(void *items, size_t size, double *keys, int *n, double t, const void *item)
{
    int at = *n;
    while (at > 0 && keys[at - 1] < t) at--;
    if (at >= SLOWEST) return;
    int last = *n < SLOWEST ? *n : SLOWEST - 1;
    char *base = items;
    memmove(base + (size_t)(at + 1) * size, base + (size_t)at * size, (size_t)(last - at) * size);
    memmove(&keys[at + 1], &keys[at], (size_t)(last - at) * sizeof *keys);
    memcpy(base + (size_t)at * size, item, size);
    keys[at] = t;
    if (*n < SLOWEST) (*n)++;
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
    if (row->kind == RELAY_TIMING_SEND || row->kind == RELAY_TIMING_RECV)
        keep_slowest(s->slow, sizeof *s->slow, s->slow_total, &s->nslow, row->pack + row->wait + row->unpack, row);
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
    double totals[SLOWEST];
    int n = 0;
    for (int r = 0; r < nranks; r++) keep_slowest(out, sizeof *out, totals, &n, rank_total(s, r), &r);
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
