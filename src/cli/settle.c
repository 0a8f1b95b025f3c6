/* SPDX-License-Identifier: BSD-2-Clause */
/* The settle program: argv, terminal output and exit codes over the library. */
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "plot.h"

volatile sig_atomic_t cli_stop;
static SettleContext *volatile contexts[CLI_MAX_CONTEXTS];

static void on_signal(int sig)
{
    (void)sig;
    cli_stop = 1;
    for (int i = 0; i < CLI_MAX_CONTEXTS; i++)
        if (contexts[i])
            settle_interrupt(contexts[i]);
}

void cli_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void cli_watch_context(int i, SettleContext *ctx)
{
    if (i >= 0 && i < CLI_MAX_CONTEXTS)
        contexts[i] = ctx;
    if (ctx && cli_stop)
        settle_interrupt(ctx);
}

int cli_outcome_code(int ret)
{
    switch (ret) {
    case 0: return EXIT_OK;
    case SETTLE_ERR_NOT_STABLE:
    case SETTLE_ERR_NO_START: return EXIT_NOT_STABLE;
    case SETTLE_ERR_DECODE: return EXIT_PARTIAL;
    case SETTLE_ERR_INTERRUPTED: return EXIT_SIGNAL;
    case SETTLE_ERR_NOMEM:
    case SETTLE_ERR_STATE:
    case SETTLE_ERR_INVAL: return EXIT_INTERNAL;
    default: return EXIT_INPUT;
    }
}

struct option *cli_longopts(const struct option *own, int table_id, int *ntable)
{
    static const struct option common[] = {
        { "quiet", no_argument, NULL, 'q' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
    };
    const SettleOption *table = settle_options();
    int nown = 0, nt = 0;
    while (own[nown].name)
        nown++;
    while (table[nt].name)
        nt++;
    size_t n = (size_t)nown + 3 + (size_t)nt + 1; /* the last one zeroed */
    struct option *o = calloc(n, sizeof(*o));
    if (!o)
        return NULL;
    memcpy(o, own, (size_t)nown * sizeof(*o));
    memcpy(o + nown, common, sizeof(common));
    for (int i = 0; i < nt; i++)
        o[nown + 3 + i] = (struct option){ table[i].name, required_argument, NULL, table_id + i };
    *ntable = nt;
    return o;
}

void cli_bad_option(const char *command, char **argv)
{
    if (optopt)
        fprintf(stderr, "settle: -%c: unknown option or missing value; see 'settle help %s'\n",
                optopt, command);
    else
        fprintf(stderr, "settle: %s: unknown option or missing value; see 'settle help %s'\n",
                argv[optind - 1], command);
}

int cli_set_option(SettleSettings *s, const char *name, const char *value)
{
    char err[256];
    if (settle_settings_set(s, name, value, err, sizeof(err)) < 0) {
        fprintf(stderr, "settle: --%s: %s\n", name, err);
        return EXIT_USAGE;
    }
    return 0;
}

int cli_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > CLI_MAX_CONTEXTS ? CLI_MAX_CONTEXTS : (int)n;
}

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
            "  history add DB RESULT...\n"
            "                       keep results across nights in a SQLite store\n"
            "  trend DB|RESULT...   series by label, the nights where they changed\n"
            "  dashboard -o DIR DB  an HTML folder of charts, one per test\n"
            "  help [COMMAND]       this text, or a command's options\n"
            "  version              print the version\n"
            "\n"
            "Run 'settle help COMMAND' for a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "analyze"))
        return cmd_analyze(argc - 1, argv + 1);
    if (!strcmp(cmd, "compare"))
        return cmd_compare(argc - 1, argv + 1);
    if (!strcmp(cmd, "plot"))
        return cmd_plot(argc - 1, argv + 1);
    if (!strcmp(cmd, "history"))
        return cmd_history(argc - 1, argv + 1);
    if (!strcmp(cmd, "trend"))
        return cmd_trend(argc - 1, argv + 1);
    if (!strcmp(cmd, "dashboard"))
        return cmd_dashboard(argc - 1, argv + 1);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("settle %s\n", SETTLE_VERSION);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        if (argc > 2 && !strcmp(argv[2], "analyze"))
            usage_analyze(stdout);
        else if (argc > 2 && !strcmp(argv[2], "compare"))
            usage_compare(stdout);
        else if (argc > 2 && !strcmp(argv[2], "plot"))
            usage_plot(stdout);
        else if (argc > 2 && !strcmp(argv[2], "history"))
            usage_history(stdout);
        else if (argc > 2 && !strcmp(argv[2], "trend"))
            usage_trend(stdout);
        else if (argc > 2 && !strcmp(argv[2], "dashboard"))
            usage_dashboard(stdout);
        else
            usage(stdout);
        return EXIT_OK;
    }
    fprintf(stderr, "settle: unknown command '%s'; try 'settle help'\n", cmd);
    return EXIT_USAGE;
}
