/* machine_file.h — where a machine model named on a tool's command line is
 * (relay-dump --predict MACHINE, relay-plan --machine MACHINE): the one
 * lookup both tools use. */
#ifndef RELAY_MACHINE_FILE_H
#define RELAY_MACHINE_FILE_H

#include <stddef.h>

#include "cli.h"

/* The file MACHINE names: itself when it is a file or has a '/', else
 * share/relay/machines/MACHINE.machine of the install the program runs
 * from (RELAY_MACHINES_FROM_BIN, relative to the program's directory), so
 * that any prefix works.  option names the option in the message
 * (CLI_USAGE when neither exists). */
int cli_machine_file(const char *option, const char *machine, char *path, size_t size, cli_error *e);

#endif
