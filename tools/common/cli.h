/* cli.h — what the command-line tools (relay-plan, relay-dump, relay-run)
 * share besides their option tables (options.h): the error convention, the
 * words for relay's enums, and byte counts for people.
 *
 * Error convention: a tool reports one line on stderr, "tool: what is
 * wrong", and exits with CLI_USAGE (2) when the command line itself is
 * wrong, CLI_FAILED (1) when a file or the work failed.  Parsing functions
 * never print: they fill a cli_error, so that an MPI tool can choose the one
 * rank that reports it. */
#ifndef RELAY_CLI_H
#define RELAY_CLI_H

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

/* ---- the words for relay's enums ----------------------------------------- */

/* Indexed by the enum value and ended by NULL, so that a keyword option
 * (options.h) reads them and the outputs print them alike. */
extern const char *const cli_type_words[];     /* relay_type: s d c z */
extern const char *const cli_type_names[];     /* relay_type for people: float ... complex double */
extern const char *const cli_op_words[];       /* relay_op: N T C */
extern const char *const cli_relabel_words[];  /* relay_relabel: none greedy optimal */
extern const char *const cli_schedule_words[]; /* relay_schedule: auto p2p rounds alltoallv neighbor */
extern const char *const cli_order_words[];    /* relay_order: col row */
extern const char *const cli_kind_words[];     /* relay_plan_kind: transform bmmc hsumma nd */
extern const char *const cli_bcast_words[];    /* relay_bcast_model: vdg binomial */
extern const char *const cli_replicas_words[]; /* relay_replicas: auto direct forward */

/* ---- byte counts ------------------------------------------------------- */

/* "1536 B", "1.5 KiB", "2.0 MiB" ...: a byte count for people. */
typedef struct {
    char text[32];
} cli_bytes_text;
cli_bytes_text cli_bytes(int64_t bytes);

#endif
