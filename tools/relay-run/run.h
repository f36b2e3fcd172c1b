/* run.h — what the files of relay-run share: this rank's buffers and their
 * elements (buffers.c), and each plan kind's part of a replay, called by
 * main.c: the fill function that prepares the buffers and the check of
 * what a replay wrote (transform.c, bmmc.c, hsumma.c, nd.c, index.c), --tune (tune.c,
 * HSUMMA's in hsumma.c), HSUMMA's report (hsumma.c), the per-message
 * timings of --stats (stats.c), --calibrate (calibrate.c), and the largest
 * of a value over the ranks (ranks.c). */
#ifndef RELAY_RUN_H
#define RELAY_RUN_H

#include <complex.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "relay/relay.h"

/* ---- this rank's buffers (buffers.c) ------------------------------------- */

/* What one replay reads and writes: b[k] the inputs (B of every pair; A and
 * B of an HSUMMA product), a[k] the outputs (A; C), NULL where a kind has
 * fewer of them. */
typedef struct {
    int count;               /* entries of a and b */
    void **a, **b;
    int64_t replays;         /* replays run over them, for the checks of moves that accumulate (an index sum) */
} run_buffers;

/* count empty entries each. */
int run_buffers_init(run_buffers *buf, int count, cli_error *e);
void run_buffers_free(run_buffers *buf);

/* Room for elems elements of elem_size bytes (at least one element); NULL
 * when memory is short or the byte count does not fit in size_t.  The
 * counts come from a plan file: a product that wrapped would allocate a
 * small buffer that the fill then writes past. */
void *run_alloc(int64_t elems, size_t elem_size);
/* Pair k's A and B of na and nb elements of type t into buf->a[k] and
 * buf->b[k]; CLI_FAILED with one line naming both when either cannot be had. */
int run_alloc_pair(run_buffers *buf, int k, int64_t na, int64_t nb, relay_type t, int rank, cli_error *e);

/* Element idx of a buffer of type t (real types: the real part). */
void run_store(void *buf, relay_type t, int64_t idx, double complex v);
double complex run_load(const void *buf, relay_type t, int64_t idx);

/* ---- the plan kinds ------------------------------------------------------ */

/* Allocates and fills this rank's buffers: the inputs from the kind's fill
 * function, the outputs set so that a replay must write every element. */
int prepare_transform(const relay_plan *p, int rank, run_buffers *buf, cli_error *e);
int prepare_bmmc(const relay_plan *p, int rank, run_buffers *buf, cli_error *e);
int prepare_hsumma(const relay_plan *p, int rank, run_buffers *buf, cli_error *e);
int prepare_nd(const relay_plan *p, int rank, run_buffers *buf, cli_error *e);
int prepare_index(const relay_plan *p, int rank, run_buffers *buf, cli_error *e);

/* Checks every output element this rank holds.  Returns the count of wrong
 * ones and sets *checked to the count checked; the first wrong one is
 * described in first (cap bytes). */
int64_t check_transform(const relay_plan *p, int rank, const run_buffers *buf, int64_t *checked, char *first, size_t cap);
int64_t check_bmmc(const relay_plan *p, int rank, const run_buffers *buf, int64_t *checked, char *first, size_t cap);
int64_t check_hsumma(const relay_plan *p, int rank, const run_buffers *buf, int64_t *checked, char *first, size_t cap);
int64_t check_nd(const relay_plan *p, int rank, const run_buffers *buf, int64_t *checked, char *first, size_t cap);
int64_t check_index(const relay_plan *p, int rank, const run_buffers *buf, int64_t *checked, char *first, size_t cap);

/* --tune OUT for an HSUMMA plan (hsumma.c): times two outer steps of every
 * grouping the grid allows, rank 0 writes the plan with the fastest groups
 * to OUT, and *plan becomes that plan.  Collective. */
int autotune_hsumma(relay_plan **plan, const char *out, int rank, cli_error *e);

/* --tune OUT (tune.c): HSUMMA plans as above; a transform plan (this
 * rank's section of FILE, `path`) is tuned in place with `replays` timed
 * replays of each choice (at most 1000), and rank 0 writes FILE with that
 * tuning to OUT.  Collective; CLI_USAGE for a BMMC plan. */
int tune_plan(relay_plan **plan, const char *path, const char *out, int64_t replays, int rank, cli_error *e);

/* --stats STATS (stats.c): timing starts after the warm-up (CLI_USAGE for
 * plans that are not transforms); after the timed replays every rank's
 * timings go to rank 0, which writes STATS atomically.  Collective. */
int stats_start(relay_exec *x, cli_error *e);
int stats_write(relay_exec *x, const relay_plan *p, const char *path, int rank, int nranks, cli_error *e);

/* v's largest over MPI_COMM_WORLD (ranks.c).  Collective. */
double max_over_ranks(double v);

/* --calibrate OUT (calibrate.c): measures the node every rank runs on and
 * rank 0 writes a machine file for relay-dump --predict to OUT, atomically.
 * Collective; CLI_USAGE for one rank or ranks on several nodes. */
int calibrate_machine(const char *out, int rank, int nranks, cli_error *e);

/* The groups an HSUMMA executor replays with and its last replay's
 * seconds, the slowest rank's.  Collective; 0 when x is not HSUMMA. */
int report_hsumma(const relay_exec *x, relay_hsumma_report *report);

#endif
