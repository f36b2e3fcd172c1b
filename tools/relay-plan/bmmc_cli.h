/* bmmc_cli.h — the `relay-plan bmmc` subcommand (bmmc_cli.c). */
#ifndef RELAY_BMMC_CLI_H
#define RELAY_BMMC_CLI_H

/* The BMMC PLANS section of relay-plan's help. */
extern const char bmmc_help_text[];

/* Runs `relay-plan bmmc ...` (argv[1] is "bmmc"); --help prints full_help. */
int bmmc_main(int argc, char **argv, void (*print_help)(void));

#endif
