/* SPDX-License-Identifier: BSD-2-Clause */
/* The settle program's shared helpers: signals, exit codes, option tables.
 * A leaf: it calls no command. */
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

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
