/* cli.c — a tool's error reported on stderr (cli.h). */
#include <stdio.h>

#include "cli.h"

void cli_report(const char *program, const cli_error *e)
{
    /* One line, whatever the message holds. */
    fprintf(stderr, "%s: ", program);
    for (const char *c = e->msg; *c; c++) fputc(*c == '\n' ? ' ' : *c, stderr);
    fputc('\n', stderr);
}
