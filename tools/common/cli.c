/* cli.c — the error convention, the words for relay's enums and byte counts
 * shared by relay-plan, relay-dump and relay-run (see cli.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_fail(cli_error *e, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->status = status;
    return status;
}

int cli_fail_relay(cli_error *e, int status, relay_status st, const char *what)
{
    const char *why = relay_last_error();
    return cli_fail(e, status, "%s: %s", what, *why ? why : relay_status_str(st));
}

void cli_prefix(cli_error *e, const char *prefix)
{
    size_t head = strlen(prefix) + 2, cap = sizeof e->msg, len = strlen(e->msg);
    if (head >= cap) return;
    if (head + len >= cap) len = cap - head - 1;
    memmove(e->msg + head, e->msg, len);
    e->msg[head + len] = '\0';
    memcpy(e->msg, prefix, head - 2);
    memcpy(e->msg + head - 2, ": ", 2);
}

void cli_report(const char *program, const cli_error *e)
{
    /* One line, whatever the message holds. */
    fprintf(stderr, "%s: ", program);
    for (const char *c = e->msg; *c; c++) fputc(*c == '\n' ? ' ' : *c, stderr);
    fputc('\n', stderr);
}

/* ---- the words for relay's enums ----------------------------------------- */

const char *const cli_type_words[] = {"s", "d", "c", "z", NULL};
const char *const cli_type_names[] = {"float", "double", "complex float", "complex double", NULL};
const char *const cli_op_words[] = {"N", "T", "C", NULL};
const char *const cli_relabel_words[] = {"none", "greedy", "optimal", NULL};
const char *const cli_schedule_words[] = {"auto", "p2p", "rounds", "alltoallv", "neighbor", NULL};
const char *const cli_order_words[] = {"col", "row", NULL};
const char *const cli_kind_words[] = {"transform", "bmmc", "hsumma", "nd", NULL};
const char *const cli_bcast_words[] = {"vdg", "binomial", NULL};
const char *const cli_replicas_words[] = {"auto", "direct", "forward", NULL};

/* ---- byte counts ------------------------------------------------------- */

cli_bytes_text cli_bytes(int64_t bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    cli_bytes_text t;
    if (bytes < 1024) {
        snprintf(t.text, sizeof t.text, "%lld B", (long long)bytes);
        return t;
    }
    double v = (double)bytes / 1024.0;
    int u = 0;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        u++;
    }
    snprintf(t.text, sizeof t.text, "%.1f %s", v, units[u]);
    return t;
}
