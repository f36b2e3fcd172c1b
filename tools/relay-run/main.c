/* main.c — relay-run: replays a plan file under MPI.
 *
 *   mpiexec -n P relay-run FILE [--iters K] [--warmup W] [--verify] [--json] [--tune=OUT]
 *                            [--stats STATS]
 *   mpiexec -n P relay-run --calibrate OUT
 *
 * Each rank reads only its own section of FILE, fills its inputs by the
 * fill function of the plan's kind (transform.c, bmmc.c, hsumma.c, nd.c), binds
 * the plan to MPI_COMM_WORLD, runs W warm-up and K timed replays and,
 * with --verify, checks every element the replays wrote.  A step that
 * fails on any rank fails on all of them (they agree with MPI_Allreduce
 * before the next collective step), and the lowest failing rank reports it
 * in one line.  Links relay_exec's internal archive, never the planner.
 * --calibrate OUT measures the machine instead and writes a machine file
 * for relay-dump --predict (calibrate.c).  Reference: docs/cli.md. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "json_writer.h"
#include "options.h"
#include "run.h"

static const char program[] = "relay-run";

static const char help_text[] =
    "NAME\n"
    "    relay-run - replay a relay plan file under MPI, time it and verify the result\n"
    "\n"
    "SYNOPSIS\n"
    "    mpiexec -n P relay-run FILE [--iters K] [--warmup W] [--verify] [--json] [--tune=OUT]\n"
    "                                [--stats STATS]\n"
    "    mpiexec -n P relay-run --calibrate OUT\n"
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
    "    An N-D plan (nd: layouts) fills B's element at global index (j0, .., jd-1) of pair k\n"
    "    with (7 j0 + 13 j1 + 29 j2 + 31 j3 + 37 j4 + 41 j5 + 43 j6 + 47 j7 + 17 k) mod 1021\n"
    "    - 510 and the imaginary part (3, 5, 11, 17, 19, 23, 53, 59; 11 k) mod 509 - 254; a\n"
    "    partial source's piece q < P-1 holds ((s + q) mod 3) - 1 of each part's sum s and\n"
    "    the last piece the rest, so the pieces add up exactly.  A's padding holds 2^100,\n"
    "    B's NaN.  --verify checks every A(i) against B(j) with j[perm[k]] = i_k (conjugated\n"
    "    for op C) and that A's padding still holds 2^100.\n"
    "    An index plan fills element e of slot s of rank r's owner buffer with ((5r + 11s +\n"
    "    3e) mod 53) - 26, of its holder buffer with that + 7 before the mod (imaginary parts\n"
    "    ((3r + 5s + 11e) mod 29) - 14, + 1 for holders); a broadcast's holders start as NaN.\n"
    "    --verify checks, from the rank's own section, that each holder slot holds its owner\n"
    "    slot's value (broadcast) or each owner slot its value plus every contribution, added\n"
    "    in the plan's order once per replay (sum).\n"
    "    Prints one line on stdout (rank 0).\n"
    "\n"
    "OPTIONS\n"
    "    --iters K    timed replays (default 10, at least 1)\n"
    "    --warmup W   untimed replays before them (default 1)\n"
    "    --verify     check every element of A after the last replay\n"
    "    --json       print one JSON object on one line: ranks, iters, warmup, verified,\n"
    "                 verify_requested, wrong_elements, load_s, create_s, run_s_median,\n"
    "                 run_s_min, bytes_remote (seconds and bytes; bytes_remote as the ranks\n"
    "                 sent them, not the plan's statistics; verified is false unless\n"
    "                 --verify was given and every element matched); HSUMMA plans add\n"
    "                 group_rows, group_cols, comm_s and compute_s; transform plans add schedule\n"
    "                 (the one replayed: the plan's, or the tuned choice); extra_bytes, the most\n"
    "                 memory one rank's executor holds beyond the matrices\n"
    "    --tune=OUT   choose how to replay on this job and write the plan with the choice to\n"
    "                 OUT (rank 0), then replay that one.  Transform plans: K replays (--iters,\n"
    "                 at most 1000) of each way to replay them (p2p, p2p all packed, rounds,\n"
    "                 alltoallv, neighbor, as they apply), interleaved; every choice's median\n"
    "                 time and the fastest are kept in OUT, used by every job with as many ranks\n"
    "                 per node, and shown by relay-dump.  N-D plans with a replicated destination:\n"
    "                 its replicas receiving directly and forwarding, timed alike.  HSUMMA\n"
    "                 plans: two outer steps of every grouping the grid allows; OUT has the\n"
    "                 fastest groups.  Write the '=':\n"
    "                 Open MPI's mpiexec takes \"--tune FILE\" for itself.  (--autotune is its\n"
    "                 earlier name.)\n"
    "    --stats STATS  transform and N-D plans: write to STATS (CSV, rank 0) the seconds\n"
    "                 each rank's timed replays spent packing each message it sends, waiting for and\n"
    "                 unpacking each it receives, copying its local pieces and waiting for the\n"
    "                 rest (summed over the replays); relay-dump FILE --stats STATS reads it\n"
    "    --calibrate OUT  instead of replaying a plan: measure this machine and write a machine\n"
    "                 file for relay-dump --predict to OUT (rank 0, atomically: a failed run\n"
    "                 leaves no file).  Every rank must be on one node (topology node), P at\n"
    "                 least 2: ping-pong latency and bandwidth between ranks 0 and 1 (8 bytes and\n"
    "                 1 MiB), memory bandwidth from a 32 MiB memcpy by every rank at once, the\n"
    "                 cost of a piece from 16-byte pieces 64 bytes apart copied alike, and the\n"
    "                 cost of a message from 1000 empty messages sent in one burst.  The ranks\n"
    "                 share the node's memory bandwidth (and its cores, when there are more\n"
    "                 ranks than cores): calibrate with as many ranks as the jobs to predict.\n"
    "                 OUT's comments say how and when each value was measured\n"
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
    "    mpiexec -n 4 relay-run t.plan --stats t.csv && relay-dump t.plan --stats t.csv\n"
    "    mpiexec -n 4 relay-run t.plan --tune=tuned.plan && relay-dump tuned.plan\n"
    "    mpiexec -n 4 relay-run --calibrate here.machine && relay-dump t.plan --predict here.machine\n"
    "\n"
    "SEE ALSO\n"
    "    relay-plan(1), relay-dump(1), docs/cli.md\n";

typedef struct {
    const char *path, *tune, *stats, *calibrate;
    int64_t iters, warmup;
    int verify, json;
} run_request;

/* ---- the command line (parsed alike on every rank) ---------------------- */

#define AT(field) offsetof(run_request, field)
static const cli_option run_options[] = {
    CLI_FILE("plan FILE", AT(path)),
    CLI_INT("--iters", AT(iters), 1, INT_MAX),
    CLI_INT("--warmup", AT(warmup), 0, INT_MAX),
    CLI_FLAG("--verify", AT(verify)),
    CLI_FLAG("--json", AT(json)),
    CLI_TEXT("--tune", AT(tune)),
    CLI_TEXT("--autotune", AT(tune)),
    CLI_TEXT("--stats", AT(stats)),
    CLI_END,
};

/* relay-run --calibrate OUT: no plan FILE, no other option. */
static const cli_option calibrate_options[] = {
    CLI_TEXT("--calibrate", AT(calibrate)),
    CLI_END,
};
#undef AT

/* ---- agreeing on failures ------------------------------------------------- */

/* Every rank learns the worst status of a step; the lowest failing rank
 * reports its message, so that a failure is one line however many ranks
 * saw it.  One reduction (the executor's agreement, agree.h). */
static int agree(int status, const cli_error *e)
{
    uint64_t worst = (uint64_t)status;
    int rank, reporter;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rl_agree_first(MPI_COMM_WORLD, status != CLI_OK, &worst, 1, &reporter)) return CLI_FAILED;
    if (rank == reporter) cli_report(program, e);
    return (int)worst;
}

/* ---- the plan kinds ------------------------------------------------------- */

/* Each kind's fill function and check (run.h). */
static const struct {
    int (*prepare)(const relay_plan *p, int rank, run_buffers *buf, cli_error *e);
    int64_t (*check)(const relay_plan *p, int rank, const run_buffers *buf, int64_t *checked, char *first, size_t cap);
} kinds[] = {
    [RELAY_PLAN_TRANSFORM] = {prepare_transform, check_transform},
    [RELAY_PLAN_BMMC] = {prepare_bmmc, check_bmmc},
    [RELAY_PLAN_HSUMMA] = {prepare_hsumma, check_hsumma},
    [RELAY_PLAN_ND] = {prepare_nd, check_nd},
    [RELAY_PLAN_INDEX] = {prepare_index, check_index},
};

/* ---- the replay state ----------------------------------------------------- */

typedef struct {
    relay_plan *plan;
    relay_exec *exec;
    run_buffers buf;
    double load_s, create_s;
} replay_state;

/* The plan's rank count against the job's, from the file's header alone:
 * a plan for another job is refused before any of it is built. */
static int check_job_size(const char *path, cli_error *e)
{
    int planned = 0, nranks;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    relay_status st = relay_plan_file_nranks(path, &planned);
    char what[600];
    if (st) {
        snprintf(what, sizeof what, "cannot read the header of '%s'", path);
        return cli_fail_relay(e, CLI_FAILED, st, what);
    }
    if (planned == nranks) return CLI_OK;
    return cli_fail(e, CLI_FAILED, "'%s' is a plan for %d ranks; this job has %d (run it under mpiexec -n %d)", path, planned,
                    nranks, planned);
}

static int load_section(replay_state *s, const char *path, int rank, cli_error *e)
{
    relay_status st = relay_plan_load(&s->plan, path, rank);
    if (!st) return CLI_OK;
    char what[600];
    snprintf(what, sizeof what, "cannot load rank %d's section of '%s'", rank, path);
    return cli_fail_relay(e, CLI_FAILED, st, what);
}

static int create_executor(replay_state *s, cli_error *e)
{
    relay_status st = relay_exec_create(&s->exec, s->plan, MPI_COMM_WORLD);
    return st ? cli_fail_relay(e, CLI_FAILED, st, "cannot bind the plan to the MPI job") : CLI_OK;
}

static void free_state(replay_state *s)
{
    run_buffers_free(&s->buf);
    relay_exec_free(s->exec);
    relay_plan_free(s->plan);
}

/* ---- replaying and checking ----------------------------------------------- */

/* One replay; its time is the largest over the ranks, and a failure on
 * any rank is known to all by the agreement after it. */
static int replay_once(replay_state *s, double *seconds, cli_error *e)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    relay_status st = relay_exec_run(s->exec, s->buf.a, (const void *const *)s->buf.b, NULL, NULL);
    *seconds = max_over_ranks(MPI_Wtime() - t0);
    if (st) cli_fail_relay(e, CLI_FAILED, st, "replay failed");
    return agree(st ? CLI_FAILED : CLI_OK, e);
}

static int replay_all(replay_state *s, const run_request *r, double *times, cli_error *e)
{
    double t;
    for (int64_t k = 0; k < r->warmup; k++)
        if (replay_once(s, &t, e)) return CLI_FAILED;
    int status = r->stats ? agree(stats_start(s->exec, e), e) : CLI_OK;
    if (status) return status;
    for (int64_t k = 0; k < r->iters; k++)
        if (replay_once(s, &times[k], e)) return CLI_FAILED;
    s->buf.replays = r->warmup + r->iters;
    return CLI_OK;
}

/* Checks every element this rank holds of every output.  Returns the
 * status the ranks agree on: every rank with a wrong element fails, and the
 * lowest one reports the total and its first wrong element. */
static int verify(const replay_state *s, int rank, int64_t *wrong_total, cli_error *e)
{
    char first[256];
    int64_t counts[2], totals[2]; /* wrong, checked */
    counts[0] = kinds[relay_plan_get_kind(s->plan)].check(s->plan, rank, &s->buf, &counts[1], first, sizeof first);
    MPI_Allreduce(counts, totals, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    *wrong_total = totals[0];
    if (counts[0])
        cli_fail(e, CLI_FAILED, "verification failed: %lld of %lld elements wrong; first on rank %d: %s", (long long)totals[0],
                 (long long)totals[1], rank, first);
    return agree(counts[0] ? CLI_FAILED : CLI_OK, e);
}

/* ---- reporting (rank 0) --------------------------------------------------- */

typedef struct {
    int ranks;
    double median, min;
    int64_t wrong, bytes_remote;
    int verified;
    const char *schedule;        /* transform plans: the schedule replayed, else NULL */
    int64_t extra_bytes;         /* the most memory a rank's executor holds beyond the buffers */
    int hsumma;                  /* the HSUMMA report below is filled */
    relay_hsumma_report report;  /* groups replayed; the last replay's seconds, slowest rank */
} run_result;

static int double_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The bytes that crossed ranks in one replay, as the executors moved them
 * rather than as the plan's statistics say (a file's statistics are read,
 * never checked): each rank's executor counts the bytes it sends plus those
 * it receives, so half their sum over the ranks is what all ranks sent. */
static int64_t bytes_sent(const relay_exec_memory *mem)
{
    int64_t moved = 0;
    MPI_Allreduce(&mem->remote_bytes, &moved, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return moved / 2;
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
    if (res->schedule) json_string(&w, "schedule", res->schedule);
    json_int(&w, "extra_bytes", res->extra_bytes);
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
           "%lld bytes remote (%s) per replay, measured; ",
           r->path, res->ranks, (long long)r->iters, (long long)r->warmup, res->median, res->min, s->load_s,
           s->create_s, (long long)res->bytes_remote, cli_bytes(res->bytes_remote).text);
    if (res->schedule) printf("replayed %s; ", res->schedule);
    if (res->hsumma)
        printf("groups %d x %d, last replay %.6f s in broadcasts and %.6f s computing; ", res->report.group_rows,
               res->report.group_cols, res->report.comm_seconds, res->report.compute_seconds);
    printf("verified: %s\n", verdict);
}

/* ---- main ----------------------------------------------------------------- */

/* The steps before the replays, each agreed on: load this rank's section,
 * tune it (--tune), prepare the buffers and bind.  The buffers
 * come before the binding so that a plan whose buffers cannot be allocated
 * is refused before the executor does any work for it. */
static int set_up(replay_state *s, const run_request *r, int rank, cli_error *e)
{
    double t0 = MPI_Wtime();
    int status = agree(check_job_size(r->path, e), e);
    if (!status) status = agree(load_section(s, r->path, rank, e), e);
    s->load_s = max_over_ranks(MPI_Wtime() - t0);
    if (!status && r->tune) status = agree(tune_plan(&s->plan, r->path, r->tune, r->iters, rank, e), e);
    if (!status) status = agree(kinds[relay_plan_get_kind(s->plan)].prepare(s->plan, rank, &s->buf, e), e);
    if (!status) {
        t0 = MPI_Wtime();
        status = agree(create_executor(s, e), e);
        s->create_s = max_over_ranks(MPI_Wtime() - t0);
    }
    return status;
}

/* After the replays: their times, the check (--verify) and the line rank 0
 * prints.  Sorts times. */
static int report_results(const replay_state *s, const run_request *r, int rank, int nranks, double *times, cli_error *e)
{
    run_result res = {.ranks = nranks};
    summarise_times(times, r->iters, &res);
    relay_schedule schedule;
    int packed;
    if (relay_exec_schedule(s->exec, &schedule, &packed) == RELAY_OK) res.schedule = cli_schedule_words[schedule];
    relay_exec_memory mem = {0};
    relay_exec_get_memory(s->exec, &mem);
    MPI_Allreduce(&mem.extra_bytes, &res.extra_bytes, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    res.bytes_remote = bytes_sent(&mem);
    res.hsumma = report_hsumma(s->exec, &res.report);
    int status = r->verify ? verify(s, rank, &res.wrong, e) : CLI_OK;
    res.verified = r->verify && !status;
    if (rank == 0) {
        if (r->json) print_json(r, s, &res);
        else print_text(r, s, &res);
        fflush(stdout);
    }
    return status;
}

static int replay_file(const run_request *r, int rank, int nranks)
{
    replay_state s = {0};
    cli_error e;
    double *times = calloc((size_t)r->iters, sizeof *times);
    int status = agree(times ? CLI_OK : cli_fail(&e, CLI_FAILED, "out of memory"), &e);
    if (!status) status = set_up(&s, r, rank, &e);
    if (!status) status = replay_all(&s, r, times, &e);
    if (!status && r->stats) status = agree(stats_write(s.exec, s.plan, r->stats, rank, nranks, &e), &e);
    if (!status) status = report_results(&s, r, rank, nranks, times, &e);
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
    run_request r = {.iters = 10, .warmup = 1};
    cli_error e;
    int help;
    int calibrating = argc > 1 && !strncmp(argv[1], "--calibrate", strlen("--calibrate"));
    int status = cli_parse_options(argc, argv, 1, calibrating ? calibrate_options : run_options, &r, &help, &e);
    if (status && rank == 0) cli_report(program, &e);
    else if (!status && help && rank == 0) fputs(help_text, stdout);
    else if (!status && !help && calibrating) status = agree(calibrate_machine(r.calibrate, rank, nranks, &e), &e);
    else if (!status && !help) status = replay_file(&r, rank, nranks);
    MPI_Finalize();
    return status;
}
