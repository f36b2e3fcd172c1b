/* report.c — recording an error for its report (report.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

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
