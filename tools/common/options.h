/* options.h — a tool's command line, read by one table: each entry names an
 * option, the field of the tool's request its value goes to, and how the
 * value reads.  relay-plan, relay-dump and relay-run all parse this way.
 *
 * Values come as the next argument or after '=' ("--ranks=4"); "--" ends
 * the options.  Every tool takes --help and -h: they set *help, and the
 * tool prints its help once the whole line has parsed.  A wrong line fills
 * the cli_error with CLI_USAGE (unknown option, missing or unexpected value,
 * bad number or keyword, a positional argument where none goes). */
#ifndef RELAY_OPTIONS_H
#define RELAY_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"

/* How an option's value reads, and the type of the field it fills. */
typedef enum {
    CLI_VALUE_FLAG,     /* no value: the int field becomes 1 */
    CLI_VALUE_TEXT,     /* the value as given: a const char * field */
    CLI_VALUE_INT,      /* a decimal integer in [min, max]: an int64_t field */
    CLI_VALUE_KEYWORD,  /* one of words: its index, in an int field */
    CLI_VALUE_CUSTOM,   /* parse(request, value, e) reads it */
    CLI_VALUE_FILE      /* no option: a positional argument, a const char *
                           field; name says what it is.  Several are
                           filled in the table's order */
} cli_value;

typedef struct {
    const char *name;                /* "--ranks"; NULL ends the table */
    cli_value value;
    size_t field;                    /* offsetof(the request type, the field) */
    int64_t min, max;                /* CLI_VALUE_INT */
    const char *const *words;        /* CLI_VALUE_KEYWORD, ended by NULL */
    int (*parse)(void *request, const char *value, cli_error *e); /* CLI_VALUE_CUSTOM */
} cli_option;

/* The entries of a table; at is offsetof(the request type, the field). */
#define CLI_FLAG(name, at) {name, CLI_VALUE_FLAG, at, 0, 0, NULL, NULL}
#define CLI_TEXT(name, at) {name, CLI_VALUE_TEXT, at, 0, 0, NULL, NULL}
#define CLI_INT(name, at, min, max) {name, CLI_VALUE_INT, at, min, max, NULL, NULL}
#define CLI_KEYWORD(name, at, words) {name, CLI_VALUE_KEYWORD, at, 0, 0, words, NULL}
#define CLI_CUSTOM(name, parse) {name, CLI_VALUE_CUSTOM, 0, 0, 0, NULL, parse}
#define CLI_FILE(what, at) {what, CLI_VALUE_FILE, at, 0, 0, NULL, NULL}
#define CLI_END {NULL, CLI_VALUE_FLAG, 0, 0, 0, NULL, NULL}

/* Reads argv[first..argc) into request by table.  Without a CLI_FILE entry
 * no positional argument is taken; with some, exactly one per entry is
 * needed (unless --help is given). */
int cli_parse_options(int argc, char **argv, int first, const cli_option *table, void *request, int *help,
                      cli_error *e);

/* A decimal integer in [min, max], nothing else around it.  what names the
 * value in the message (e.g. "--ranks"). */
int cli_parse_int(const char *text, const char *what, int64_t min, int64_t max, int64_t *out, cli_error *e);

/* The index of text among words (ended by NULL). */
int cli_parse_keyword(const char *text, const char *what, const char *const *words, int *out, cli_error *e);

#endif
