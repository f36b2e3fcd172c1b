/* cli_util.h — what the command-line tools (relay-plan, relay-dump,
 * relay-run) share: the error convention, option scanning, number and
 * keyword parsing, and byte counts for people.
 *
 * Error convention: a tool reports one line on stderr, "tool: what is
 * wrong", and exits with CLI_USAGE (2) when the command line itself is
 * wrong, CLI_FAILED (1) when a file or the work failed.  Parsing functions
 * never print: they fill a cli_error, so that an MPI tool can choose the one
 * rank that reports it. */
#ifndef RELAY_CLI_UTIL_H
#define RELAY_CLI_UTIL_H

#include <stdint.h>

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

/* Prints "program: message" as one line on stderr. */
void cli_report(const char *program, const cli_error *e);

/* ---- option scanning --------------------------------------------------- */

/* An option the tool accepts, e.g. {"--ranks", 1} or {"--json", 0}.
 * Values come as the next argument or after '=' ("--ranks=4"). */
typedef struct {
    const char *name;
    int takes_value;
} cli_option;

typedef struct {
    int argc;
    char **argv;
    int next;             /* index of the next argument to look at */
    int positional_only;  /* after "--" */
} cli_scanner;

enum { CLI_END = -1, CLI_POSITIONAL = -2, CLI_BAD = -3 };

/* Starts scanning argv[first..argc). */
cli_scanner cli_scan(int argc, char **argv, int first);

/* The next argument: the index of the option in opts (with *value set when
 * it takes one), CLI_POSITIONAL (*value is the argument), CLI_END, or
 * CLI_BAD for an unknown option or a missing or unexpected value (e filled,
 * status CLI_USAGE). */
int cli_next(cli_scanner *s, const cli_option *opts, int nopts, const char **value, cli_error *e);

/* A decimal integer in [min, max], nothing else around it.  what names the
 * value in the message (e.g. "--ranks"). */
int cli_parse_int(const char *text, const char *what, int64_t min, int64_t max, int64_t *out, cli_error *e);

/* The index of text among nchoices keywords. */
int cli_parse_choice(const char *text, const char *what, const char *const *choices, int nchoices, int *out,
                     cli_error *e);

/* "1536 B", "1.5 KiB", "2.0 MiB" ...: a byte count for people. */
typedef struct {
    char text[32];
} cli_bytes_text;
cli_bytes_text cli_bytes(int64_t bytes);

#endif
