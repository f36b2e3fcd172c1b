/* output.c — what every relay-plan subcommand does with its plan: check the
 * output path before planning, end the planning step, write the file and
 * print the one summary line (see plan.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan.h"

int check_output_path(const char *path, cli_error *e)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return cli_fail(e, CLI_USAGE, "-o: '%s' is a directory", path);
    const char *slash = strrchr(path, '/');
    char dir[4096] = ".";
    if (slash) {
        size_t len = slash == path ? 1 : (size_t)(slash - path);
        if (len >= sizeof dir) return cli_fail(e, CLI_USAGE, "-o: path too long");
        memcpy(dir, path, len);
        dir[len] = '\0';
    }
    if (access(dir, W_OK | X_OK) != 0)
        return cli_fail(e, CLI_FAILED, "cannot write '%s': directory '%s' does not exist or is not writable", path,
                        dir);
    return CLI_OK;
}

static int save_plan(const relay_plan *plan, const char *path, cli_error *e)
{
    progress pr;
    progress_start(&pr, "relay-plan: writing");
    relay_status st = relay_plan_save(plan, path);
    progress_stop(&pr);
    if (!st) return CLI_OK;
    char what[4200];
    snprintf(what, sizeof what, "cannot write '%s'", path);
    return cli_fail_relay(e, CLI_FAILED, st, what);
}

/* What the plan is, before its volumes: an HSUMMA plan's grid, groups and
 * steps; an N-D plan's boxes (products of runs); an index plan's runs and
 * listed items; the pieces of the others. */
static void print_shape(const relay_plan *plan, const relay_plan_stats *s)
{
    relay_hsumma_info h;
    if (relay_plan_get_kind(plan) == RELAY_PLAN_ND) {
        printf("%lld boxes", (long long)s->pieces);
        return;
    }
    if (relay_plan_get_kind(plan) == RELAY_PLAN_INDEX) {
        printf("%lld runs and listed items", (long long)s->pieces);
        return;
    }
    if (relay_plan_get_kind(plan) != RELAY_PLAN_HSUMMA || relay_plan_hsumma_info(plan, &h)) {
        printf("%lld pieces", (long long)s->pieces);
        return;
    }
    if (h.params.group_rows)
        printf("%dx%d grid in %dx%d groups", h.params.grid_rows, h.params.grid_cols, h.params.group_rows, h.params.group_cols);
    else printf("%dx%d grid, groups chosen at bind", h.params.grid_rows, h.params.grid_cols);
    printf(", %lld outer and %lld inner steps", (long long)h.outer_steps, (long long)h.inner_steps);
}

static void print_summary(const relay_plan *plan, const char *path, double plan_s)
{
    relay_plan_stats s;
    relay_plan_get_stats(plan, &s);
    struct stat file;
    int64_t file_bytes = stat(path, &file) == 0 ? (int64_t)file.st_size : -1;
    printf("%s: %d ranks, ", path, relay_plan_nranks(plan));
    print_shape(plan, &s);
    printf(", %lld messages, %lld bytes total (%s), %lld remote (%s), planned in %.3f s, file %lld bytes (%s)\n",
           (long long)s.messages, (long long)s.bytes_total, cli_bytes(s.bytes_total).text, (long long)s.bytes_remote,
           cli_bytes(s.bytes_remote).text, plan_s, (long long)file_bytes, cli_bytes(file_bytes).text);
}

void start_planning(progress *planning) { progress_start(planning, "relay-plan: planning"); }

int finish_plan(progress *planning, relay_status st, relay_plan *plan, const char *path, cli_error *e)
{
    double plan_s = progress_stop(planning);
    int status = st ? cli_fail_relay(e, st == RELAY_ERR_ARG ? CLI_USAGE : CLI_FAILED, st, "cannot plan") : CLI_OK;
    if (!status) status = save_plan(plan, path, e);
    if (!status) print_summary(plan, path, plan_s);
    relay_plan_free(plan);
    return status;
}
