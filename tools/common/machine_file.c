/* machine_file.c — finding a machine model by name or path (see
 * machine_file.h): relay-dump --predict and relay-plan --machine. */
#define _XOPEN_SOURCE 700 /* readlink, realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "machine_file.h"

int cli_machine_file(const char *option, const char *machine, char *path, size_t size, cli_error *e)
{
    struct stat st;
    if (strchr(machine, '/') || !stat(machine, &st)) {
        snprintf(path, size, "%s", machine);
        return CLI_OK;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return cli_fail(e, CLI_FAILED, "%s %s: cannot find the program's directory", option, machine);
    exe[n] = '\0';
    *strrchr(exe, '/') = '\0';
    char found[PATH_MAX + 64];
    snprintf(found, sizeof found, "%s/%s/%s.machine", exe, RELAY_MACHINES_FROM_BIN, machine);
    if (stat(found, &st))
        return cli_fail(e, CLI_USAGE, "%s %s: no such file, nor machine %s (tried %s)", option, machine, machine, found);
    char resolved[PATH_MAX];
    snprintf(path, size, "%s", realpath(found, resolved) ? resolved : found); /* without bin/../ */
    return CLI_OK;
}
