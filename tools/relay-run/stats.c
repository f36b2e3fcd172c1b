/* stats.c — relay-run --stats FILE: where the timed replays spent their
 * time, per rank and message (relay_exec_timings), gathered on rank 0 and
 * written as CSV, atomically.  relay-dump --stats reads the file.
 *
 *   # relay-run --stats: plan 0123456789abcdef, 4 ranks, 10 replays
 *   rank,kind,peer,bytes,pack_s,wait_s,unpack_s
 *   0,send,1,8000,0.000123,0,0
 *
 * One line per row of every rank, ranks in order; kind is send, recv,
 * local or completion (relay/exec.h); seconds are summed over the replays
 * and bytes are per replay. */
#include <inttypes.h>
#include <stdlib.h>

#include "atomic_file.h"
#include "run.h"

static const char *const kind_words[] = {"send", "recv", "local", "completion"};

int stats_start(relay_exec *x, cli_error *e)
{
    relay_status st = relay_exec_time(x, 1);
    if (st == RELAY_ERR_UNSUPPORTED) return cli_fail(e, CLI_USAGE, "--stats: only transform and N-D plans are timed per message");
    return st ? cli_fail_relay(e, CLI_FAILED, st, "--stats") : CLI_OK;
}

/* This rank's rows (malloc'ed) and the replays they sum. */
static relay_exec_timing *own_rows(relay_exec *x, int *count, int64_t *replays)
{
    *count = 0;
    if (relay_exec_timings(x, replays, NULL, count)) return NULL;
    relay_exec_timing *rows = malloc((size_t)*count * sizeof *rows + 1);
    if (rows && relay_exec_timings(x, replays, rows, count)) {
        free(rows);
        rows = NULL;
    }
    return rows;
}

static void write_rows(FILE *f, int rank, const relay_exec_timing *rows, int count)
{
    for (int i = 0; i < count; i++)
        fprintf(f, "%d,%s,%d,%" PRId64 ",%.9g,%.9g,%.9g\n", rank, kind_words[rows[i].kind], rows[i].peer, rows[i].bytes,
                rows[i].pack_s, rows[i].wait_s, rows[i].unpack_s);
}

/* Rows travel to rank 0 in chunks of this many, into one static buffer:
 * gathering needs no memory that could be missing. */
enum { CHUNK_ROWS = 4096 };

static void send_rows(const relay_exec_timing *mine, int count)
{
    MPI_Send(&count, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    for (int at = 0; at < count; at += CHUNK_ROWS) {
        int n = count - at < CHUNK_ROWS ? count - at : CHUNK_ROWS;
        MPI_Send(mine + at, n * (int)sizeof *mine, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
}

/* Rank r's rows, written to f (if any); 0 when r had none to give. */
static int receive_rows(FILE *f, int r)
{
    static relay_exec_timing chunk[CHUNK_ROWS];
    int count;
    MPI_Recv(&count, 1, MPI_INT, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int at = 0; at < count; at += CHUNK_ROWS) {
        int n = count - at < CHUNK_ROWS ? count - at : CHUNK_ROWS;
        MPI_Recv(chunk, n * (int)sizeof *chunk, MPI_BYTE, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (f) write_rows(f, r, chunk, n);
    }
    return count >= 0;
}

/* Rank 0 writes its own rows, then each rank's as they come; the others
 * send theirs (count -1: none to give).  1 when every rank gave its rows. */
static int gather_into(FILE *f, const relay_exec_timing *mine, int count, int rank, int nranks)
{
    if (rank != 0) {
        send_rows(mine, count);
        return count >= 0;
    }
    int ok = count >= 0;
    if (f && ok) write_rows(f, 0, mine, count);
    for (int r = 1; r < nranks; r++) ok = receive_rows(f, r) && ok;
    return ok;
}

int stats_write(relay_exec *x, const relay_plan *p, const char *path, int rank, int nranks, cli_error *e)
{
    int count;
    int64_t replays;
    relay_exec_timing *mine = own_rows(x, &count, &replays);
    if (!mine) count = -1;
    rl_atomic_file af = {0};
    int opened = rank == 0 && rl_atomic_open(&af, path) == RELAY_OK;
    if (opened)
        fprintf(af.file, "# relay-run --stats: plan %016" PRIx64 ", %d ranks, %" PRId64 " replays\n"
                         "rank,kind,peer,bytes,pack_s,wait_s,unpack_s\n",
                relay_plan_fingerprint(p), nranks, replays);
    int ok = gather_into(opened ? af.file : NULL, mine, count, rank, nranks);
    free(mine);
    if (rank != 0) return ok ? CLI_OK : cli_fail(e, CLI_FAILED, "--stats: out of memory for this rank's timings");
    if (!opened) return cli_fail(e, CLI_FAILED, "--stats: %s", relay_last_error());
    if (!ok) {
        rl_atomic_abort(&af);
        return cli_fail(e, CLI_FAILED, "--stats: a rank had no memory for its timings; nothing written");
    }
    return rl_atomic_commit(&af) ? cli_fail(e, CLI_FAILED, "--stats: %s", relay_last_error()) : CLI_OK;
}
