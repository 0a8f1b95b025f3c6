/* SPDX-License-Identifier: BSD-2-Clause */
/* The settle program: the one main, which hands argv to a command
 * (cmd_*.c). Terminal output and exit codes over the library. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "output.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: settle COMMAND [OPTIONS] ...\n"
            "\n"
            "Commands:\n"
            "  analyze CAPTURE...   report when each capture's screen became stable\n"
            "                       (also spelt analyse)\n"
            "  compare --baseline A... --candidate B...\n"
            "                       did build B get slower than A? statistics and a verdict\n"
            "  record [OPTIONS] -- COMMAND [ARGS...]\n"
            "                       capture the screen, launch COMMAND, stop when the\n"
            "                       screen has settled; the capture and its result\n"
            "  plot RESULT.csv      draw a per-frame CSV with its thresholds, start and\n"
            "                       stable frame (gnuplot)\n"
            "  history add DB RESULT...\n"
            "                       keep results across nights in a SQLite store\n"
            "  trend DB|RESULT...   series by label, the nights where they changed\n"
            "  dashboard -o DIR DB  an HTML folder of charts, one per test\n"
            "  help [COMMAND]       this text, or a command's options\n"
            "  version              print the version\n"
            "\n"
            "Run 'settle help COMMAND' for a command's options.\n");
}

/* The commands with options of their own, under every name they answer to. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *f);
} commands[] = {
    { "analyze", cmd_analyze, usage_analyze },
    { "analyse", cmd_analyze, usage_analyze },
    { "compare", cmd_compare, usage_compare },
    { "record", cmd_record, usage_record },
    { "plot", cmd_plot, usage_plot },
    { "history", cmd_history, usage_history },
    { "trend", cmd_trend, usage_trend },
    { "dashboard", cmd_dashboard, usage_dashboard },
};
#define NCOMMANDS (sizeof(commands) / sizeof(*commands))

/* Every word that is a command, for "did you mean". */
static const char *const words[] = { "analyze", "analyse", "compare",   "record", "plot",
                                     "history", "trend",   "dashboard", "help",   "version" };

static int unknown_command(const char *what, const char *cmd)
{
    const char *best = cli_closest(cmd, strlen(cmd), words, sizeof(words) / sizeof(*words));
    if (best)
        fprintf(stderr, "settle: %s'%s'; did you mean '%s'?\n", what, cmd, best);
    else
        fprintf(stderr, "settle: %s'%s'; try 'settle help'\n", what, cmd);
    return EXIT_USAGE;
}

static int help(int argc, char **argv)
{
    const char *topic = argc > 2 ? argv[2] : NULL;
    if (argc > 3) {
        fprintf(stderr, "settle: help: one command at a time, got '%s' and '%s'\n", argv[2],
                argv[3]);
        return EXIT_USAGE;
    }
    if (!topic || !strcmp(topic, "help") || !strcmp(topic, "version")) {
        usage(stdout);
        return EXIT_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (!strcmp(topic, commands[i].name)) {
            commands[i].usage(stdout);
            return EXIT_OK;
        }
    }
    return unknown_command("help: unknown command ", topic);
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("settle %s\n", settle_version());
        return EXIT_OK;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
        return help(argc, argv);
    if (cmd[0] == '-')
        return unknown_command("expected a command first, got ", cmd);
    return unknown_command("unknown command ", cmd);
}

int main(int argc, char **argv)
{
    /* a reader that went away is an error to report (EPIPE), not a silent death */
    signal(SIGPIPE, SIG_IGN);
    int ret = run(argc, argv);
    int e = out_stdout_error();
    if (e) {
        fprintf(stderr, "settle: stdout: %s\n", strerror(e));
        ret = ret > EXIT_OUTPUT ? ret : EXIT_OUTPUT;
    }
    return ret;
}
