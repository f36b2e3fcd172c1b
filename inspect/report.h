/* report.h — an error waiting to be reported: the convention relay's
 * tools and the views of a plan (dump.h) share, so that relay-dump prints
 * and the Python binding raises the same message.
 *
 * A tool reports one line on stderr, "tool: what is wrong", and exits
 * with CLI_USAGE (2) when the command line itself is wrong, CLI_FAILED (1)
 * when a file or the work failed.  Functions that find an error never
 * print: they fill a cli_error, so that an MPI tool can choose the one
 * rank that reports it (cli.h) and Python can raise it. */
#ifndef RELAY_REPORT_H
#define RELAY_REPORT_H

#include "relay/status.h"

enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

/* An error waiting to be reported: its exit status and its message. */
typedef struct {
    int status;
    char msg[1024];
} cli_error;

/* Records status and the printf-style message; returns status. */
int cli_fail(cli_error *e, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Records a failed relay call: "what: <relay_last_error()>"; returns status. */
int cli_fail_relay(cli_error *e, int status, relay_status st, const char *what);

/* Puts "prefix: " in front of the message. */
void cli_prefix(cli_error *e, const char *prefix);

#endif
