/* hsumma_cli.h — the `relay-plan hsumma` subcommand (hsumma_cli.c). */
#ifndef RELAY_HSUMMA_CLI_H
#define RELAY_HSUMMA_CLI_H

/* The HSUMMA PLANS section of relay-plan's help. */
extern const char hsumma_help_text[];

/* Runs `relay-plan hsumma ...` (argv[1] is "hsumma"); --help prints full_help. */
int hsumma_main(int argc, char **argv, void (*print_help)(void));

#endif
