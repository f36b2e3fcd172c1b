/* tune.c — relay-run --tune OUT: an HSUMMA plan's groups (hsumma.c's
 * autotune_hsumma) or the way a transform plan is replayed
 * (relay_exec_tune); rank 0 writes the tuned plan to OUT and the replays
 * that follow use it. */
#include <stdio.h>

#include "run.h"

/* FILE's plan, every section, carrying the tuning this rank's section got. */
static int save_tuned(const relay_plan *tuned, const char *path, const char *out, cli_error *e)
{
    relay_plan *whole = NULL;
    relay_tuning t;
    relay_status st = relay_plan_load(&whole, path, -1);
    if (!st) st = relay_plan_tuning(tuned, &t);
    if (!st) st = relay_plan_set_tuning(whole, &t);
    if (!st) st = relay_plan_save(whole, out);
    relay_plan_free(whole);
    return st ? cli_fail_relay(e, CLI_FAILED, st, "--tune: cannot write the tuned plan") : CLI_OK;
}

int tune_plan(relay_plan **plan, const char *path, const char *out, int64_t replays, int rank, cli_error *e)
{
    relay_plan_kind kind = relay_plan_get_kind(*plan);
    if (kind == RELAY_PLAN_HSUMMA) return autotune_hsumma(plan, out, rank, e);
    if (kind == RELAY_PLAN_BMMC) return cli_fail(e, CLI_USAGE, "--tune: a BMMC plan replays one way; there is nothing to tune");
    if (kind == RELAY_PLAN_INDEX) return cli_fail(e, CLI_USAGE, "--tune: index plans carry no tuning yet (they replay p2p)");
    relay_status st = relay_exec_tune(*plan, MPI_COMM_WORLD, replays < RELAY_TUNE_MAX_REPLAYS ? (int)replays : RELAY_TUNE_MAX_REPLAYS);
    if (st) return cli_fail_relay(e, CLI_FAILED, st, "--tune");
    return rank == 0 ? save_tuned(*plan, path, out, e) : CLI_OK;
}
