/* dump.h — the views of a loaded plan, as relay-dump prints them and the
 * Python binding returns them: the request (relay-dump's options, read by
 * its main.c), what it asks of a plan (views.c), the view of each plan
 * kind (transform.c, bmmc.c, hsumma.c, nd.c with nd_rank.c and
 * nd_text.c, index.c), a transform section's volumes and detail (section.c), the
 * first lines and per-rank table of a summary (summary.c), a plan's
 * tuning (tuning.c), the keys every --json object carries (json.c), the
 * steps of a rounds schedule (steps.c), the heat map of --svg
 * (heatmap_svg.c) and relay-run's measured timings (stats.c). */
#ifndef RELAY_DUMP_H
#define RELAY_DUMP_H

#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "json_writer.h"
#include "plan_internal.h"
#include "report.h"
#include "words.h"

/* relay-dump FILE [--json] [--rank R] [--svg OUT.svg] [--limit N] [--stats STATS]
 *                 [--predict MACHINE] */
typedef struct {
    const char *path, *svg, *stats;
    const char *predict;     /* --predict MACHINE, or NULL */
    int json;
    int64_t rank;            /* -1: the whole plan */
    int64_t limit;           /* entries per list of ranks or steps in --json; 0: all */
    FILE *out;               /* where the views write: stdout for relay-dump, a
                                memory stream for the Python binding */
} dump_request;

/* A plan file of a few hundred bytes may describe millions of ranks or
 * steps: --json lists at most --limit entries of per_rank, sigma and steps
 * (the first ones), and says how many it left out, so that what relay-dump
 * writes, and the time it takes, stay bounded unless all is asked for. */
enum { DUMP_DEFAULT_LIMIT = 4096 };

/* How many of n entries a list shows. */
int64_t dump_listed(const dump_request *r, int64_t n);

/* A transform or N-D plan's tuning, when it has one: each choice timed in
 * the summary, and the "tuning" object of --json. */
void dump_print_tuning(const relay_plan *p, FILE *out);
void dump_json_tuning(json_writer *w, const relay_plan *p);

/* ---- the plan kinds ------------------------------------------------------ */

/* What the request asks of plan p, written to r->out (views.c): the view
 * of p's kind, or CLI_USAGE for what the kind does not show (--svg of
 * anything but a transform, --stats of anything but a whole transform).
 * r->path names the plan in the text views and --svg's title. */
int dump_plan(const dump_request *r, const relay_plan *p, cli_error *e);

/* What the request asks of a plan of each kind, on r->out: the summary for
 * people, --json, one rank's part (--rank), and for transforms the heat
 * map (--svg).  A plan loaded for one rank holds only that rank's section. */
int dump_transform(const dump_request *r, const relay_plan *p, cli_error *e);
int dump_bmmc(const dump_request *r, const relay_plan *p, cli_error *e);
int dump_hsumma(const dump_request *r, const relay_plan *p, cli_error *e);
int dump_nd(const dump_request *r, const relay_plan *p, cli_error *e);
int dump_index(const dump_request *r, const relay_plan *p, cli_error *e);

/* CLI_USAGE unless a transform plan holds the sections the request reads:
 * every one for the whole plan's views, R's for --rank R.  A plan read or
 * planned for one rank holds that rank's alone. */
int transform_check_sections(const dump_request *r, const relay_plan *p, cli_error *e);

/* ---- one transform section (section.c) ----------------------------------- */

/* What a section moves in one replay, counted from its messages and
 * lattices: bytes, messages, pieces (count_r * count_c per lattice) and
 * lattices. */
typedef struct {
    int64_t send_bytes, recv_bytes, send_msgs, recv_msgs, local_bytes;
    int64_t send_pieces, recv_pieces, local_pieces;
    int64_t send_lattices, recv_lattices, local_lattices;
} rank_volume;

/* Fills v; CLI_FAILED when a byte count overflows 64 bits (the plan
 * describes more than 8 EiB on one rank: refused, not printed wrapped). */
int section_volume(const rl_section *s, int64_t esz, rank_volume *v, cli_error *e);
/* The summary's first lines (summary.c): file, format, fingerprint, kind,
 * ranks and type. */
void summary_print_head(const char *path, const relay_plan *p, FILE *out);
/* The per-rank table (summary.c): rows[i] is rank ranks[i]'s (ranks
 * NULL: rank i's), in increasing rank order.  When the rows hold every one
 * of more than RANK_TABLE_FULL_MAX ranks: the first and last
 * RANK_TABLE_EDGE_ROWS rows, then min/median/max; else every row given.
 * A line says how many ranks each gap leaves out. */
enum { RANK_TABLE_FULL_MAX = 32, RANK_TABLE_EDGE_ROWS = 8 };
int rank_table_print(const rank_volume *rows, const int *ranks, int nrows, int nranks, FILE *out, cli_error *e);

/* Pieces of lattices [first, first + count). */
int64_t lattice_pieces(const rl_span *spans, int64_t first, int64_t count);
/* --rank R: that rank's buffers, messages with their lattices, and local
 * lattices, as text or (--json) one object. */
int dump_rank_section(const dump_request *r, const relay_plan *p, cli_error *e);

/* ---- N-D plans (nd.c, nd_rank.c; their text in nd_text.c) --------------- */

/* Text built piece by piece; cut when it outgrew s (nd_text.c). */
typedef struct {
    char s[4096];
    size_t len;
    int cut;
} nd_text;
void nd_put(nd_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* v[0..n) joined by sep. */
void nd_put_list(nd_text *t, const int64_t *v, int n, const char *sep);
/* "(c0, c1, ..)": the mesh coordinates of a mesh position of l. */
void nd_put_mesh_coords(nd_text *t, const relay_nd_layout *l, int64_t position);

/* One rank's volumes in one replay, from its transfers (derived from the
 * header): bytes and messages (peers) each way, local bytes, boxes as
 * pieces and transfers as lattices; *work: what deriving and counting
 * them cost, in steps (the derivation's own count plus one per transfer;
 * nd_rank.c). */
int nd_rank_volume(const relay_plan *p, int rank, rank_volume *v, int64_t *work, cli_error *e);
/* --rank R of an N-D plan (nd_rank.c). */
int dump_nd_rank(const dump_request *r, const relay_plan *p, int rank, cli_error *e);

/* ---- the keys every --json object carries (json.c) ---------------------- */

/* Starts the object on out: format_version, kind, ranks and fingerprint. */
json_writer dump_json_open(const relay_plan *p, const char *kind, FILE *out);
/* "sigma" (the listed ranks' entries; NULL: the identity) and
 * "sigma_left_out". */
void dump_json_sigma(json_writer *w, const dump_request *r, const relay_plan *p, const int *sigma);
/* "op": the op of a plan of one pair, else an array of every pair's
 * (transform and N-D plans). */
void dump_json_ops(json_writer *w, const relay_plan *p);
/* For kinds without relabeling (BMMC, HSUMMA): type, op N, relabel none,
 * the identity sigma, schedule and rounds. */
void dump_json_no_relabel(json_writer *w, const dump_request *r, const relay_plan *p, const char *type,
                          const char *schedule, int64_t rounds);
/* One per_rank entry: rank, send_bytes, recv_bytes, send_msgs, recv_msgs,
 * local_bytes. */
void dump_json_rank(json_writer *w, int rank, int64_t send_bytes, int64_t recv_bytes, int64_t send_msgs,
                    int64_t recv_msgs, int64_t local_bytes);
/* bytes_total, bytes_remote, bytes_remote_identity, messages, pieces. */
void dump_json_volumes(json_writer *w, int64_t total, int64_t remote, int64_t remote_identity, int64_t messages,
                       int64_t pieces);

/* ---- the steps of a rounds schedule (steps.c) ---------------------------- */

/* One transfer of a step: a message from -> to, or a local copy (from == to). */
typedef struct {
    int64_t step;
    int32_t from, to;
} step_transfer;

/* What each rank does in each step, read back from the sections. */
typedef struct {
    step_transfer *t;        /* by step, then sender */
    int64_t n;
    int contention_free;     /* every rank sends <= 1 and receives <= 1 per step,
                                and sender and receiver agree on each step */
} step_view;

/* Builds the view from every section (all must be loaded); 0 on success,
 * -1 when out of memory. */
int step_view_build(step_view *v, const relay_plan *p);
void step_view_free(step_view *v);

/* The text block of the summary (up to 16 steps, 12 transfers a step). */
void step_view_print(const step_view *v, const relay_plan *p, FILE *out);

/* "contention_free", "superblock" (block-cyclic pairs), "steps": the
 * first `listed` steps as [{"step", "copies": [ranks], "sends": [[from,
 * to], ...]}], and "steps_left_out". */
void step_view_json(json_writer *w, const step_view *v, const relay_plan *p, int64_t listed);

/* ---- the heat map of --svg (heatmap_svg.c) ------------------------------- */

/* The rank-to-rank volumes: sender rows, receiver columns, a log-scaled
 * colour per cell, a legend in bytes and labelled axes. */
enum { VOLUME_MAX_BINS = 256 };

/* bytes[s*nbins + d]: bytes that senders in bin s send to receivers in bin
 * d, a bin being bin_ranks consecutive ranks (1 up to 256 ranks). */
typedef struct {
    int nranks;
    int nbins;
    int bin_ranks;
    double *bytes;           /* or seconds, for a measured map */
    int seconds;             /* the values are seconds, not bytes */
} volume_matrix;

/* An empty matrix for nranks ranks, binned to at most VOLUME_MAX_BINS. */
int volume_matrix_init(volume_matrix *m, int nranks, cli_error *e);
void volume_matrix_add(volume_matrix *m, int from, int to, double bytes);
void volume_matrix_free(volume_matrix *m);

/* The volume matrix of a transform plan holding every section (CLI_USAGE
 * otherwise): what --svg draws, for the Python binding's heat map. */
int dump_volume_matrix(const relay_plan *p, volume_matrix *m, cli_error *e);

/* Writes the heat map atomically (temporary file + rename); title and
 * subtitle head the picture.  `beside` (or NULL), a map of the same ranks,
 * is drawn to the right of m, each under its own heading. */
int heatmap_svg_write(const char *path, const volume_matrix *m, const char *title, const char *subtitle,
                      const volume_matrix *beside, cli_error *e);

/* ---- what relay-run --stats measured (stats.c) --------------------------- */

enum { STATS_SLOWEST = 10 };   /* ranks and messages a report lists */

/* One row of the file (relay/exec.h's relay_exec_timing, with its rank). */
typedef struct {
    int rank, kind, peer;
    int64_t bytes;
    double pack, wait, unpack;
} stats_row;

typedef struct {
    int64_t replays;
    double *per_rank;        /* 3 per rank: pack, wait, unpack (local copies in unpack) */
    stats_row slow[STATS_SLOWEST]; /* the slowest messages, slowest first */
    double slow_total[STATS_SLOWEST]; /* ... and their seconds */
    int nslow;
    volume_matrix seconds;   /* per replay, on each message's (sender, receiver) cell */
} plan_stats;

/* Reads STATS for plan p (whose fingerprint and rank count it must carry);
 * CLI_FAILED with the line at fault otherwise. */
int plan_stats_read(plan_stats *s, const char *path, const relay_plan *p, cli_error *e);
void plan_stats_free(plan_stats *s);
/* The slowest ranks and messages, milliseconds per replay; as text, or the
 * "stats" object of --json (seconds per replay). */
void plan_stats_print(const plan_stats *s, const char *path, int nranks, FILE *f);
void plan_stats_json(json_writer *w, const plan_stats *s, int nranks);

#endif
