/* relay_run_cli.c — relay-run: replays a plan file under MPI.
 *
 *   mpiexec -n P relay-run FILE [--iters K] [--warmup W] [--verify] [--json]
 *
 * Each rank reads only its own section of FILE, binds the plan to
 * MPI_COMM_WORLD, fills its part of every B from a function of the global
 * indices, runs W warm-up and K timed replays of A := op(B) (alpha 1,
 * beta 0) and, with --verify, checks every element of every A.  A step that
 * fails on any rank fails on all of them (they agree with MPI_Allreduce
 * before the next collective step), and the lowest failing rank reports it
 * in one line.  Links relay_exec only.  Reference: docs/cli.md. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "json_out.h"
#include "plan_internal.h"
#include "relay/relay.h"
#include "run_bmmc.h"
#include "run_hsumma.h"

static const char program[] = "relay-run";

static const char help_text[] =
    "NAME\n"
    "    relay-run - replay a relay plan file under MPI, time it and verify the result\n"
    "\n"
    "SYNOPSIS\n"
    "    mpiexec -n P relay-run FILE [--iters K] [--warmup W] [--verify] [--json] [--autotune OUT]\n"
    "    relay-run --help\n"
    "\n"
    "DESCRIPTION\n"
    "    Each of the P ranks (P must be the plan's rank count) reads its own section of the\n"
    "    plan FILE, binds the plan to MPI_COMM_WORLD, fills its part of every source matrix B\n"
    "    from the global indices (i, j) of B:\n"
    "        real part       (7*i + 13*j) mod 1021 - 510\n"
    "        imaginary part  (3*i +  5*j) mod  509 - 254     (complex types only)\n"
    "    (small integers: exact in every element type), sets A to NaN, and runs W warm-up and\n"
    "    K timed replays of A := op(B) (alpha 1, beta 0).  A replay's time is the largest over\n"
    "    the ranks, measured from a barrier.  With --verify every element A(i, j) must equal\n"
    "    op(B)(i, j) exactly: B(i, j) for op N, B(j, i) for T, its conjugate for C.\n"
    "    A BMMC plan (relay-plan bmmc) moves opaque elements instead: the element at global\n"
    "    index x holds x (byte k is byte k mod 8 of x, little-endian; elements under 8 bytes\n"
    "    hold the XOR of x's bytes j with j mod S = k), and --verify checks that index y holds\n"
    "    the element from index x with y = A x XOR c.\n"
    "    An HSUMMA plan (relay-plan hsumma) computes C := A B: A(i, l) = (7i + 13l) mod 61 - 30,\n"
    "    B(l, j) = (5l + 11j) mod 53 - 26 (imaginary parts (3i + 5l) mod 29 - 14 and\n"
    "    (2l + 7j) mod 31 - 15 for complex types), C set to NaN; --verify compares every element\n"
    "    of C with a serial product (exact for doubles, within 4 k epsilon of the terms' sizes\n"
    "    otherwise).  The line also names the groups replayed and the last replay's broadcast\n"
    "    and computation seconds (slowest rank).\n"
    "    Prints one line on stdout (rank 0).\n"
    "\n"
    "OPTIONS\n"
    "    --iters K    timed replays (default 10, at least 1)\n"
    "    --warmup W   untimed replays before them (default 1)\n"
    "    --verify     check every element of A after the last replay\n"
    "    --json       print one JSON object on one line: ranks, iters, warmup, verified,\n"
    "                 verify_requested, wrong_elements, load_s, create_s, run_s_median,\n"
    "                 run_s_min, bytes_remote (seconds and bytes; verified is false unless\n"
    "                 --verify was given and every element matched); HSUMMA plans add\n"
    "                 group_rows, group_cols, comm_s and compute_s\n"
    "    --autotune OUT  HSUMMA plans: time two outer steps of every grouping the grid allows,\n"
    "                 write the plan with the fastest groups to OUT (rank 0) and replay that one\n"
    "    -h, --help   print this help and exit\n"
    "\n"
    "EXIT STATUS\n"
    "    0  every replay ran and, with --verify, every element matched\n"
    "    1  the plan file cannot be read or does not fit the job (rank count, kind), a replay\n"
    "       failed, or verification found wrong elements\n"
    "    2  the command line is wrong (unknown option, missing or bad value, not one FILE)\n"
    "    Errors are one line on stderr, from the lowest rank that saw them; every rank exits\n"
    "    with the same status.\n"
    "\n"
    "EXAMPLES\n"
    "    mpiexec -n 4 relay-run t.plan --verify\n"
    "    mpiexec -n 4 relay-run t.plan --iters 50 --warmup 5 --json\n"
    "\n"
    "SEE ALSO\n"
    "    relay-plan(1), relay-dump(1), docs/cli.md\n";

typedef struct {
    const char *path, *autotune;
    int64_t iters, warmup;
    int verify, json, help;
} run_request;

/* ---- the command line (parsed alike on every rank) ---------------------- */

enum { OPT_ITERS, OPT_WARMUP, OPT_VERIFY, OPT_JSON, OPT_AUTOTUNE, OPT_HELP, OPT_H, OPT_COUNT };
static const cli_option run_options[OPT_COUNT] = {{"--iters", 1}, {"--warmup", 1},   {"--verify", 0}, {"--json", 0},
                                                  {"--autotune", 1}, {"--help", 0}, {"-h", 0}};

static int parse_args(int argc, char **argv, run_request *r, cli_error *e)
{
    *r = (run_request){.iters = 10, .warmup = 1};
    cli_scanner s = cli_scan(argc, argv, 1);
    const char *value;
    for (int i; (i = cli_next(&s, run_options, OPT_COUNT, &value, e)) != CLI_END;) {
        switch (i) {
        case CLI_BAD: return e->status;
        case CLI_POSITIONAL:
            if (r->path) return cli_fail(e, CLI_USAGE, "unexpected argument '%s': one plan FILE at a time", value);
            r->path = value;
            break;
        case OPT_ITERS:
            if (cli_parse_int(value, "--iters", 1, INT_MAX, &r->iters, e)) return e->status;
            break;
        case OPT_WARMUP:
            if (cli_parse_int(value, "--warmup", 0, INT_MAX, &r->warmup, e)) return e->status;
            break;
        case OPT_VERIFY: r->verify = 1; break;
        case OPT_JSON: r->json = 1; break;
        case OPT_AUTOTUNE: r->autotune = value; break;
        default: r->help = 1;
        }
    }
    if (!r->path && !r->help) return cli_fail(e, CLI_USAGE, "missing the plan FILE (see --help)");
    return CLI_OK;
}

/* ---- agreeing on failures ------------------------------------------------- */

/* Every rank learns the worst status of a step; the lowest failing rank
 * reports its message, so that a failure is one line however many ranks
 * saw it. */
static int agree(int status, const cli_error *e)
{
    int rank, size, worst, reporter;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!worst) return CLI_OK;
    int me = status ? rank : size;
    MPI_Allreduce(&me, &reporter, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == reporter) cli_report(program, e);
    return worst;
}

static double max_over_ranks(double v)
{
    double m;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* ---- the fill function and element access ------------------------------- */

typedef struct {
    double re, im;
} value;

/* B(i, j) in B's global indices: small integers, exact in float. */
static value b_value(int64_t i, int64_t j)
{
    value v = {(double)((7 * i + 13 * j) % 1021) - 510, (double)((3 * i + 5 * j) % 509) - 254};
    return v;
}

/* What A(i, j) must hold after A := op(B). */
static value expected_a(relay_op op, int64_t i, int64_t j)
{
    if (op == RELAY_OP_N) return b_value(i, j);
    value v = b_value(j, i);
    if (op == RELAY_OP_C) v.im = -v.im;
    return v;
}

static int is_complex(relay_type t) { return t == RELAY_CFLOAT || t == RELAY_CDOUBLE; }

static void store(void *buf, relay_type t, int64_t idx, value v)
{
    switch (t) {
    case RELAY_FLOAT: ((float *)buf)[idx] = (float)v.re; break;
    case RELAY_DOUBLE: ((double *)buf)[idx] = v.re; break;
    case RELAY_CFLOAT:
        ((float *)buf)[2 * idx] = (float)v.re;
        ((float *)buf)[2 * idx + 1] = (float)v.im;
        break;
    case RELAY_CDOUBLE:
        ((double *)buf)[2 * idx] = v.re;
        ((double *)buf)[2 * idx + 1] = v.im;
        break;
    }
}

static value load(const void *buf, relay_type t, int64_t idx)
{
    switch (t) {
    case RELAY_FLOAT: return (value){((const float *)buf)[idx], 0};
    case RELAY_DOUBLE: return (value){((const double *)buf)[idx], 0};
    case RELAY_CFLOAT: return (value){((const float *)buf)[2 * idx], ((const float *)buf)[2 * idx + 1]};
    default: return (value){((const double *)buf)[2 * idx], ((const double *)buf)[2 * idx + 1]};
    }
}

static void format_value(value v, relay_type t, char *buf, size_t cap)
{
    if (is_complex(t)) snprintf(buf, cap, "%g%+gi", v.re, v.im);
    else snprintf(buf, cap, "%g", v.re);
}

/* ---- visiting the elements this rank holds of a layout ------------------- */

typedef struct {
    const relay_layout *l;
    void *buf;
    relay_type type;
    relay_op op;             /* checking: the op that produced A */
    int64_t checked, wrong;  /* checking: counts, and the first wrong element */
    int64_t bad_i, bad_j;
    value bad_got, bad_want;
} element_visit;

static int64_t element_index(const relay_layout *l, int bi, int bj, int64_t r, int64_t c)
{
    return rl_layout_offset(l, bi, bj) + (l->order == RELAY_COL_MAJOR ? r + c * rl_layout_ld(l, bi, bj)
                                                                        : r * rl_layout_ld(l, bi, bj) + c);
}

static void fill_block(int bi, int bj, void *ctx)
{
    element_visit *v = ctx;
    const relay_layout *l = v->l;
    for (int64_t j = l->col_splits[bj]; j < l->col_splits[bj + 1]; j++)
        for (int64_t i = l->row_splits[bi]; i < l->row_splits[bi + 1]; i++)
            store(v->buf, v->type, element_index(l, bi, bj, i - l->row_splits[bi], j - l->col_splits[bj]),
                  b_value(i, j));
}

static void check_block(int bi, int bj, void *ctx)
{
    element_visit *v = ctx;
    const relay_layout *l = v->l;
    for (int64_t j = l->col_splits[bj]; j < l->col_splits[bj + 1]; j++)
        for (int64_t i = l->row_splits[bi]; i < l->row_splits[bi + 1]; i++) {
            value got = load(v->buf, v->type, element_index(l, bi, bj, i - l->row_splits[bi], j - l->col_splits[bj]));
            value want = expected_a(v->op, i, j);
            if (!is_complex(v->type)) want.im = 0;
            v->checked++;
            if (got.re == want.re && got.im == want.im) continue;
            if (v->wrong++ == 0) {
                v->bad_i = i;
                v->bad_j = j;
                v->bad_got = got;
                v->bad_want = want;
            }
        }
}

/* ---- the replay state ----------------------------------------------------- */

typedef struct {
    relay_plan *plan;
    relay_exec *exec;
    int count;
    void **a, **b;           /* count buffers each */
    double load_s, create_s;
} replay_state;

static int load_section(replay_state *s, const char *path, int rank, cli_error *e)
{
    relay_status st = relay_plan_load(&s->plan, path, rank);
    if (st) {
        char what[600];
        snprintf(what, sizeof what, "cannot load rank %d's section of '%s'", rank, path);
        return cli_fail_relay(e, CLI_FAILED, st, what);
    }
    relay_plan_kind kind = relay_plan_get_kind(s->plan);
    s->count = kind == RELAY_PLAN_BMMC ? 1 : kind == RELAY_PLAN_HSUMMA ? 2 : relay_plan_count(s->plan);
    return CLI_OK;
}

static int create_executor(replay_state *s, cli_error *e)
{
    relay_status st = relay_exec_create(&s->exec, s->plan, MPI_COMM_WORLD);
    return st ? cli_fail_relay(e, CLI_FAILED, st, "cannot bind the plan to the MPI job") : CLI_OK;
}

static void *alloc_elems(int64_t elems, relay_type t)
{
    return malloc((size_t)(elems > 0 ? elems : 1) * relay_type_size(t));
}

/* B from the fill function, A all NaN (a replay must write every element). */
static int prepare_buffers(replay_state *s, int rank, cli_error *e)
{
    relay_type t = relay_plan_type(s->plan);
    s->a = calloc((size_t)s->count, sizeof *s->a);
    s->b = calloc((size_t)s->count, sizeof *s->b);
    if (!s->a || !s->b) return cli_fail(e, CLI_FAILED, "out of memory");
    relay_plan_kind kind = relay_plan_get_kind(s->plan);
    if (kind != RELAY_PLAN_TRANSFORM) {
        int ok = kind == RELAY_PLAN_BMMC ? run_bmmc_buffers(s->plan, rank, &s->b[0], &s->a[0])
                                         : run_hsumma_buffers(s->plan, rank, &s->b[0], &s->b[1], &s->a[0]);
        return ok ? CLI_OK : cli_fail(e, CLI_FAILED, "out of memory on rank %d", rank);
    }
    for (int k = 0; k < s->count; k++) {
        int64_t na = relay_plan_buffer_elems(s->plan, 1, k, rank), nb = relay_plan_buffer_elems(s->plan, 0, k, rank);
        s->a[k] = alloc_elems(na, t);
        s->b[k] = alloc_elems(nb, t);
        if (!s->a[k] || !s->b[k])
            return cli_fail(e, CLI_FAILED, "out of memory for %lld + %lld elements on rank %d", (long long)na,
                            (long long)nb, rank);
        for (int64_t x = 0; x < na; x++) store(s->a[k], t, x, (value){NAN, NAN});
        element_visit v = {.l = relay_plan_src_layout(s->plan, k), .buf = s->b[k], .type = t};
        rl_layout_for_each_block(v.l, rank, fill_block, &v);
    }
    return CLI_OK;
}

static void free_state(replay_state *s)
{
    for (int k = 0; k < s->count; k++) {
        if (s->a) free(s->a[k]);
        if (s->b) free(s->b[k]);
    }
    free(s->a);
    free(s->b);
    relay_exec_free(s->exec);
    relay_plan_free(s->plan);
}

/* ---- replaying and checking ----------------------------------------------- */

/* One replay; its time is the largest over the ranks.  A failure on any
 * rank is known to all by the same reduction. */
static int replay_once(replay_state *s, double *seconds, cli_error *e)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    relay_status st = relay_exec_run(s->exec, s->a, (const void *const *)s->b, NULL, NULL);
    double mine[2] = {MPI_Wtime() - t0, st ? 1.0 : 0.0}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *seconds = all[0];
    if (st) cli_fail_relay(e, CLI_FAILED, st, "replay failed");
    return agree(st ? CLI_FAILED : CLI_OK, e);
}

static int replay_all(replay_state *s, const run_request *r, double *times, cli_error *e)
{
    double t;
    for (int64_t k = 0; k < r->warmup; k++)
        if (replay_once(s, &t, e)) return CLI_FAILED;
    for (int64_t k = 0; k < r->iters; k++)
        if (replay_once(s, &times[k], e)) return CLI_FAILED;
    return CLI_OK;
}

/* Checks every element of every A this rank holds.  Returns the status the
 * ranks agree on: every rank with a wrong element fails, and the lowest one
 * reports the total and its first wrong element. */
static int verify_output(const replay_state *s, int rank, int64_t *wrong_total, cli_error *e)
{
    char first[160];
    int64_t counts[2], totals[2]; /* wrong, checked */
    counts[0] = relay_plan_get_kind(s->plan) == RELAY_PLAN_BMMC
                    ? run_bmmc_check(s->plan, rank, s->a[0], &counts[1], first, sizeof first)
                    : run_hsumma_check(s->plan, rank, s->a[0], &counts[1], first, sizeof first);
    MPI_Allreduce(counts, totals, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    *wrong_total = totals[0];
    if (counts[0])
        cli_fail(e, CLI_FAILED, "verification failed: %lld of %lld elements wrong; first on rank %d: %s", (long long)totals[0],
                 (long long)totals[1], rank, first);
    return agree(counts[0] ? CLI_FAILED : CLI_OK, e);
}

static int verify(const replay_state *s, int rank, int64_t *wrong_total, cli_error *e)
{
    if (relay_plan_get_kind(s->plan) != RELAY_PLAN_TRANSFORM) return verify_output(s, rank, wrong_total, e);
    relay_type t = relay_plan_type(s->plan);
    element_visit first = {0};
    int first_pair = -1;
    int64_t counts[2] = {0, 0}, totals[2]; /* wrong, checked */
    for (int k = 0; k < s->count; k++) {
        element_visit v = {.l = relay_plan_dst_layout(s->plan, k), .buf = s->a[k], .type = t,
                           .op = s->plan->pairs[k].op};
        rl_layout_for_each_block(v.l, rank, check_block, &v);
        if (v.wrong && first_pair < 0) {
            first = v;
            first_pair = k;
        }
        counts[0] += v.wrong;
        counts[1] += v.checked;
    }
    MPI_Allreduce(counts, totals, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    *wrong_total = totals[0];
    if (counts[0]) {
        char got[64], want[64];
        format_value(first.bad_got, t, got, sizeof got);
        format_value(first.bad_want, t, want, sizeof want);
        cli_fail(e, CLI_FAILED,
                 "verification failed: %lld of %lld elements wrong; first on rank %d: A(%lld, %lld) of pair %d "
                 "holds %s instead of %s",
                 (long long)totals[0], (long long)totals[1], rank, (long long)first.bad_i, (long long)first.bad_j,
                 first_pair, got, want);
    }
    return agree(counts[0] ? CLI_FAILED : CLI_OK, e);
}

/* ---- reporting (rank 0) --------------------------------------------------- */

typedef struct {
    int ranks;
    double median, min;
    int64_t wrong, bytes_remote;
    int verified;
    int hsumma;                  /* the HSUMMA report below is filled */
    relay_hsumma_report report;  /* groups replayed; the last replay's seconds, slowest rank */
} run_result;

static int double_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts times in place. */
static void summarise_times(double *times, int64_t n, run_result *res)
{
    qsort(times, (size_t)n, sizeof *times, double_cmp);
    res->min = times[0];
    res->median = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
}

static void print_json(const run_request *r, const replay_state *s, const run_result *res)
{
    json_writer w = json_start(stdout);
    json_begin_object(&w, NULL);
    json_int(&w, "ranks", res->ranks);
    json_int(&w, "iters", r->iters);
    json_int(&w, "warmup", r->warmup);
    json_bool(&w, "verified", res->verified);
    json_bool(&w, "verify_requested", r->verify);
    json_int(&w, "wrong_elements", res->wrong);
    json_double(&w, "load_s", s->load_s);
    json_double(&w, "create_s", s->create_s);
    json_double(&w, "run_s_median", res->median);
    json_double(&w, "run_s_min", res->min);
    json_int(&w, "bytes_remote", res->bytes_remote);
    if (res->hsumma) {
        json_int(&w, "group_rows", res->report.group_rows);
        json_int(&w, "group_cols", res->report.group_cols);
        json_double(&w, "comm_s", res->report.comm_seconds);
        json_double(&w, "compute_s", res->report.compute_seconds);
    }
    json_end_object(&w);
    json_finish(&w);
}

static void print_text(const run_request *r, const replay_state *s, const run_result *res)
{
    const char *verdict = !r->verify ? "not checked (--verify)" : res->verified ? "yes" : "NO";
    printf("%s: %d ranks, %lld replays after %lld warm-up: median %.6f s, min %.6f s; load %.3f s, create %.3f s; "
           "%lld bytes remote (%s) per replay; ",
           r->path, res->ranks, (long long)r->iters, (long long)r->warmup, res->median, res->min, s->load_s,
           s->create_s, (long long)res->bytes_remote, cli_bytes(res->bytes_remote).text);
    if (res->hsumma)
        printf("groups %d x %d, last replay %.6f s in broadcasts and %.6f s computing; ", res->report.group_rows,
               res->report.group_cols, res->report.comm_seconds, res->report.compute_seconds);
    printf("verified: %s\n", verdict);
}

/* The groups an HSUMMA executor replays with and its last replay's
 * seconds, the slowest rank's. */
static void hsumma_report(const replay_state *s, run_result *res)
{
    res->hsumma = relay_exec_hsumma_report(s->exec, &res->report) == RELAY_OK;
    if (!res->hsumma) return;
    res->report.comm_seconds = max_over_ranks(res->report.comm_seconds);
    res->report.compute_seconds = max_over_ranks(res->report.compute_seconds);
}

/* --autotune OUT: times the groupings, rank 0 writes the winner to OUT, and
 * the replays that follow use it. */
static int autotune(replay_state *s, const char *out, int rank, cli_error *e)
{
    if (relay_plan_get_kind(s->plan) != RELAY_PLAN_HSUMMA)
        return cli_fail(e, CLI_USAGE, "--autotune: only HSUMMA plans have groups to tune");
    relay_plan *tuned = NULL;
    relay_status st = relay_hsumma_autotune(&tuned, s->plan, MPI_COMM_WORLD, 2);
    if (st) return cli_fail_relay(e, CLI_FAILED, st, "--autotune");
    relay_plan_free(s->plan);
    s->plan = tuned;
    st = rank == 0 ? relay_plan_save(tuned, out) : RELAY_OK;
    return st ? cli_fail_relay(e, CLI_FAILED, st, "--autotune: cannot write the tuned plan") : CLI_OK;
}

/* ---- main ----------------------------------------------------------------- */

static int replay_file(const run_request *r, int rank, int nranks)
{
    replay_state s = {0};
    cli_error e;
    run_result res = {.ranks = nranks};
    double *times = calloc((size_t)r->iters, sizeof *times);
    double t0 = MPI_Wtime();
    int status = agree(times ? load_section(&s, r->path, rank, &e) : cli_fail(&e, CLI_FAILED, "out of memory"), &e);
    s.load_s = max_over_ranks(MPI_Wtime() - t0);
    if (!status && r->autotune) status = agree(autotune(&s, r->autotune, rank, &e), &e);
    if (!status) {
        t0 = MPI_Wtime();
        status = agree(create_executor(&s, &e), &e);
        s.create_s = max_over_ranks(MPI_Wtime() - t0);
    }
    if (!status) status = agree(prepare_buffers(&s, rank, &e), &e);
    if (!status) status = replay_all(&s, r, times, &e);
    if (!status) {
        relay_plan_stats st;
        relay_plan_get_stats(s.plan, &st);
        res.bytes_remote = st.bytes_remote;
        summarise_times(times, r->iters, &res);
        hsumma_report(&s, &res);
        if (r->verify) status = verify(&s, rank, &res.wrong, &e);
        res.verified = r->verify && !status;
        if (rank == 0) {
            if (r->json) print_json(r, &s, &res);
            else print_text(r, &s, &res);
            fflush(stdout);
        }
    }
    free(times);
    free_state(&s);
    return status;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    run_request r;
    cli_error e;
    int status = parse_args(argc, argv, &r, &e);
    if (status && rank == 0) cli_report(program, &e);
    else if (!status && r.help && rank == 0) fputs(help_text, stdout);
    else if (!status && !r.help) status = replay_file(&r, rank, nranks);
    MPI_Finalize();
    return status;
}
