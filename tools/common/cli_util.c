/* cli_util.c — the error convention, option scanning and value parsing
 * shared by relay-plan, relay-dump and relay-run (see cli_util.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

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

/* ---- option scanning --------------------------------------------------- */

cli_scanner cli_scan(int argc, char **argv, int first)
{
    return (cli_scanner){argc, argv, first, 0};
}

/* The option whose name is arg, or arg's part before '=' (*eq set to it). */
static int find_option(const char *arg, const cli_option *opts, int nopts, const char **eq)
{
    *eq = strchr(arg, '=');
    size_t len = *eq ? (size_t)(*eq - arg) : strlen(arg);
    for (int i = 0; i < nopts; i++)
        if (strlen(opts[i].name) == len && strncmp(opts[i].name, arg, len) == 0) return i;
    return -1;
}

int cli_next(cli_scanner *s, const cli_option *opts, int nopts, const char **value, cli_error *e)
{
    *value = NULL;
    if (s->next >= s->argc) return CLI_END;
    const char *arg = s->argv[s->next++];
    if (!s->positional_only && strcmp(arg, "--") == 0) {
        s->positional_only = 1;
        return cli_next(s, opts, nopts, value, e);
    }
    if (s->positional_only || arg[0] != '-' || arg[1] == '\0') {
        *value = arg;
        return CLI_POSITIONAL;
    }
    const char *eq;
    int i = find_option(arg, opts, nopts, &eq);
    if (i < 0) {
        cli_fail(e, CLI_USAGE, "unknown option '%s' (see --help)", arg);
        return CLI_BAD;
    }
    if (!opts[i].takes_value) {
        if (eq) {
            cli_fail(e, CLI_USAGE, "option %s takes no value", opts[i].name);
            return CLI_BAD;
        }
        return i;
    }
    if (eq) {
        *value = eq + 1;
    } else if (s->next < s->argc) {
        *value = s->argv[s->next++];
    } else {
        cli_fail(e, CLI_USAGE, "option %s needs a value", opts[i].name);
        return CLI_BAD;
    }
    return i;
}

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

int cli_parse_choice(const char *text, const char *what, const char *const *choices, int nchoices, int *out,
                     cli_error *e)
{
    char list[256] = "";
    for (int i = 0; i < nchoices; i++) {
        if (strcmp(text, choices[i]) == 0) {
            *out = i;
            return CLI_OK;
        }
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", choices[i]);
    }
    return cli_fail(e, CLI_USAGE, "%s: '%s' is not one of %s", what, text, list);
}

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
