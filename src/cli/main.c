/* SPDX-License-Identifier: BSD-2-Clause */
/* The settle program: the one main, which hands argv to a command
 * (cmd_*.c). Terminal output and exit codes over the library. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: settle COMMAND [OPTIONS] ...\n"
            "\n"
            "Commands:\n"
            "  analyze CAPTURE...   report when each capture's screen became stable\n"
            "  compare --baseline A... --candidate B...\n"
            "                       did build B get slower than A? statistics and a verdict\n"
            "  plot RESULT.csv      draw a per-frame CSV with its thresholds, start and\n"
            "                       stable frame (gnuplot)\n"
            "  help [COMMAND]       this text, or a command's options\n"
            "  version              print the version\n"
            "\n"
            "Run 'settle help analyze', 'settle help compare' or 'settle help plot' for their\n"
            "options.\n");
}

/* The commands with options of their own. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *f);
} commands[] = {
    { "analyze", cmd_analyze, usage_analyze },
    { "compare", cmd_compare, usage_compare },
    { "plot", cmd_plot, usage_plot },
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    size_t ncommands = sizeof(commands) / sizeof(*commands);
    for (size_t i = 0; i < ncommands; i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("settle %s\n", settle_version());
        return EXIT_OK;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        for (size_t i = 0; argc > 2 && i < ncommands; i++) {
            if (!strcmp(argv[2], commands[i].name)) {
                commands[i].usage(stdout);
                return EXIT_OK;
            }
        }
        usage(stdout);
        return EXIT_OK;
    }
    fprintf(stderr, "settle: unknown command '%s'; try 'settle help'\n", cmd);
    return EXIT_USAGE;
}
