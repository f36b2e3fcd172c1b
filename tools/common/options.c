/* options.c — reading a tool's command line by its option table (see
 * options.h), and the number and keyword parsing the tables use. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

/* --help and -h: every tool's, outside its table; they fill *help. */
static const cli_option help_options[] = {CLI_FLAG("--help", 0), CLI_FLAG("-h", 0), CLI_END};

/* The entry named arg, or arg's part before '=' (*eq set to the '='). */
static const cli_option *find_option(const char *arg, const cli_option *table, const char **eq)
{
    *eq = strchr(arg, '=');
    size_t len = *eq ? (size_t)(*eq - arg) : strlen(arg);
    for (const cli_option *o = table; o->name; o++)
        if (o->value != CLI_VALUE_FILE && strlen(o->name) == len && strncmp(o->name, arg, len) == 0) return o;
    return NULL;
}

/* The field of request that o fills. */
static void *field_of(const cli_option *o, void *request) { return (char *)request + o->field; }

/* Stores value in the field that o names. */
static int store_value(const cli_option *o, const char *value, void *request, cli_error *e)
{
    void *field = field_of(o, request);
    switch (o->value) {
    case CLI_VALUE_FLAG: *(int *)field = 1; return CLI_OK;
    case CLI_VALUE_TEXT:
    case CLI_VALUE_FILE: *(const char **)field = value; return CLI_OK;
    case CLI_VALUE_INT: return cli_parse_int(value, o->name, o->min, o->max, (int64_t *)field, e);
    case CLI_VALUE_KEYWORD: return cli_parse_keyword(value, o->name, o->words, (int *)field, e);
    default: return o->parse(request, value, e); /* CLI_VALUE_CUSTOM */
    }
}

/* A positional argument: the first FILE entry of the table not given yet. */
static int store_positional(const cli_option *table, const char *arg, void *request, cli_error *e)
{
    const cli_option *last = NULL;
    for (const cli_option *o = table; o->name; o++) {
        if (o->value != CLI_VALUE_FILE) continue;
        if (!*(const char **)field_of(o, request)) return store_value(o, arg, request, e);
        last = o;
    }
    if (!last) return cli_fail(e, CLI_USAGE, "unexpected argument '%s' (see --help)", arg);
    return cli_fail(e, CLI_USAGE, "unexpected argument '%s' after the %s", arg, last->name);
}

/* The first FILE entry of the table still missing, or NULL. */
static const cli_option *missing_file(const cli_option *table, void *request)
{
    for (const cli_option *o = table; o->name; o++)
        if (o->value == CLI_VALUE_FILE && !*(const char **)field_of(o, request)) return o;
    return NULL;
}

/* An option argument, its value the rest after '=' or the next argument
 * (argv[*next], then consumed). */
static int store_option(const char *arg, char **argv, int argc, int *next, const cli_option *table, void *request,
                        int *help, cli_error *e)
{
    const char *eq;
    const cli_option *o = find_option(arg, table, &eq);
    if (!o && (o = find_option(arg, help_options, &eq)) != NULL) request = help; /* their field is *help itself */
    if (!o) return cli_fail(e, CLI_USAGE, "unknown option '%s' (see --help)", arg);
    if (o->value == CLI_VALUE_FLAG)
        return eq ? cli_fail(e, CLI_USAGE, "option %s takes no value", o->name) : store_value(o, NULL, request, e);
    if (eq) return store_value(o, eq + 1, request, e);
    if (*next >= argc) return cli_fail(e, CLI_USAGE, "option %s needs a value", o->name);
    return store_value(o, argv[(*next)++], request, e);
}

int cli_parse_options(int argc, char **argv, int first, const cli_option *table, void *request, int *help,
                      cli_error *e)
{
    int options_end = 0; /* after "--" every argument is positional */
    *help = 0;
    for (int next = first; next < argc;) {
        const char *arg = argv[next++];
        int status;
        if (!options_end && strcmp(arg, "--") == 0) {
            options_end = 1;
            continue;
        }
        if (options_end || arg[0] != '-' || arg[1] == '\0') status = store_positional(table, arg, request, e);
        else status = store_option(arg, argv, argc, &next, table, request, help, e);
        if (status) return status;
    }
    const cli_option *missing = *help ? NULL : missing_file(table, request);
    if (missing) return cli_fail(e, CLI_USAGE, "missing the %s (see --help)", missing->name);
    return CLI_OK;
}

/* ---- values -------------------------------------------------------------- */

/* An optional '-' and one or more decimal digits, nothing else. */
static int is_decimal_integer(const char *t)
{
    if (*t == '-') t++;
    if (!*t) return 0;
    for (; *t; t++)
        if (*t < '0' || *t > '9') return 0;
    return 1;
}

int cli_parse_int(const char *text, const char *what, int64_t min, int64_t max, int64_t *out, cli_error *e)
{
    if (!is_decimal_integer(text)) return cli_fail(e, CLI_USAGE, "%s: '%s' is not an integer", what, text);
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    if ((errno == ERANGE && v < 0) || v < min) return cli_fail(e, CLI_USAGE, "%s: %s is less than %lld", what, text, (long long)min);
    if (errno == ERANGE || v > max) return cli_fail(e, CLI_USAGE, "%s: %s is more than %lld", what, text, (long long)max);
    *out = v;
    return CLI_OK;
}

int cli_parse_keyword(const char *text, const char *what, const char *const *words, int *out, cli_error *e)
{
    char list[256] = "";
    for (int i = 0; words[i]; i++) {
        if (strcmp(text, words[i]) == 0) {
            *out = i;
            return CLI_OK;
        }
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", words[i]);
    }
    return cli_fail(e, CLI_USAGE, "%s: '%s' is not one of %s", what, text, list);
}
