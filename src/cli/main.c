/* main.c - the tracesync command: dispatches to the subcommands of commands.c. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: tracesync COMMAND [ARGS]\n\n"
                 "Gives event traces recorded on many unsynchronized clocks one time axis.\n\n"
                 "Commands:\n");
    for (size_t i = 0; i < cli_command_count; i++)
        fprintf(out, "  %-10s %s\n", cli_commands[i].name, cli_commands[i].summary);
    fprintf(out, "\nRun 'tracesync help COMMAND' (or 'tracesync COMMAND --help') for its options,\n"
                 "exit status and an example.\n");
}

int main(int argc, char **argv)
{
    const struct cli_command *cmd;
    int rc;
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        (strcmp(argv[1], "help") == 0 && argc == 2)) {
        usage(stdout);
        return cli_finish_stdout(NULL) ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("tracesync %s\n", tsync_version());
        return cli_finish_stdout(NULL) ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "help") == 0) {
        if (!(cmd = cli_find(argv[2]))) {
            fprintf(stderr, "tracesync help: unknown command '%s'\n\n", argv[2]);
            usage(stderr);
            return EXIT_USAGE;
        }
        cli_print_help(cmd, stdout);
        return cli_finish_stdout("help") ? EXIT_USAGE : EXIT_OK;
    }
    cmd = cli_find(argv[1]);
    if (!cmd) {
        fprintf(stderr, "tracesync: unknown command '%s'\n\n", argv[1]);
        usage(stderr);
        return EXIT_USAGE;
    }
    /* A result that could not be printed is a failure, whatever the command did. */
    rc = cli_wants_help(argc - 1, argv + 1, cmd->name) ? EXIT_OK : cmd->run(argc - 1, argv + 1);
    return cli_finish_stdout(cmd->name) ? EXIT_USAGE : rc;
}
