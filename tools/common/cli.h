/* cli.h — what the command-line tools (relay-plan, relay-dump, relay-run)
 * share besides their option tables (options.h): the error convention
 * (report.h) with its one report on stderr, and the words for relay's
 * enums and byte counts (words.h). */
#ifndef RELAY_CLI_H
#define RELAY_CLI_H

#include "report.h"
#include "words.h"

/* Prints "program: message" as one line on stderr. */
void cli_report(const char *program, const cli_error *e);

#endif
