/* SPDX-License-Identifier: BSD-2-Clause */
/* The settle program's shared helpers: signals, exit codes, option tables.
 * A leaf: it calls no command. */
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
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

/* Edits (insert, delete, replace, swap two neighbours) from a to b. */
static size_t distance(const char *a, size_t na, const char *b, size_t nb)
{
    if (na > 64 || nb > 64)
        return (size_t)-1;
    size_t d[65][65];
    for (size_t i = 0; i <= na; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= nb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= na; i++) {
        for (size_t j = 1; j <= nb; j++) {
            size_t v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[na][nb];
}

const char *cli_closest(const char *word, size_t len, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t bd = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t d = distance(word, len, names[i], strlen(names[i]));
        if (d < bd) {
            bd = d;
            best = names[i];
        }
    }
    /* close enough to be a slip of the fingers, not another word */
    size_t limit = len < 4 ? 1 : len < 9 ? 2 : 3;
    return bd <= limit ? best : NULL;
}

void cli_bad_option(const char *command, char **argv, const struct option *longopts, int c)
{
    const char *arg = argv[optind - 1];
    int is_long = !strncmp(arg, "--", 2);
    if (!is_long && optopt > 0 && optopt < 128) {
        if (c == ':')
            fprintf(stderr, "settle: -%c: missing value; see 'settle help %s'\n", optopt, command);
        else
            fprintf(stderr, "settle: -%c: unknown option; see 'settle help %s'\n", optopt, command);
        return;
    }
    const char *name = is_long ? arg + 2 : arg + (arg[0] == '-');
    size_t len = strcspn(name, "=");
    if (c == ':') {
        fprintf(stderr, "settle: --%.*s: missing value; see 'settle help %s'\n", (int)len, name,
                command);
        return;
    }
    size_t n = 0;
    while (longopts[n].name)
        n++;
    const char **names = malloc((n + 1) * sizeof(*names));
    const char *best = NULL;
    int takes_none = 0, ambiguous = 0;
    for (size_t i = 0; names && i < n; i++) {
        names[i] = longopts[i].name;
        if (!strncmp(names[i], name, len) && strlen(names[i]) == len)
            takes_none = longopts[i].has_arg == no_argument;
        else if (!strncmp(names[i], name, len))
            ambiguous++;
    }
    if (names)
        best = cli_closest(name, len, names, n);
    free(names);
    if (takes_none && name[len] == '=')
        fprintf(stderr, "settle: --%.*s: takes no value, got '%s'\n", (int)len, name, name + len + 1);
    else if (ambiguous > 1)
        fprintf(stderr, "settle: %s: ambiguous option; write it in full (see 'settle help %s')\n",
                arg, command);
    else if (best)
        fprintf(stderr, "settle: %.*s: unknown option; did you mean --%s?\n",
                (int)(len + (size_t)(name - arg)), arg, best);
    else
        fprintf(stderr, "settle: %.*s: unknown option; see 'settle help %s'\n",
                (int)(len + (size_t)(name - arg)), arg, command);
}

int cli_file_value(const char *option, const char *value)
{
    if (value[0] == '-' && value[1]) {
        fprintf(stderr, "settle: %s: expected a file name, got '%s', an option; "
                        "write ./%s for a file of that name\n", option, value, value);
        return EXIT_USAGE;
    }
    if (!value[0]) {
        fprintf(stderr, "settle: %s: expected a file name, got ''\n", option);
        return EXIT_USAGE;
    }
    return 0;
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

int cli_parse_number(const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end || errno || !(x >= lo && x <= hi)) {
        fprintf(stderr, "settle: --%s: expected a number from %g to %g, got '%s'\n", opt, lo, hi,
                v);
        return EXIT_USAGE;
    }
    *out = x;
    return 0;
}

int cli_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > CLI_MAX_CONTEXTS ? CLI_MAX_CONTEXTS : (int)n;
}

char *cli_join(const char *dir, const char *stem, const char *ext)
{
    size_t n = strlen(dir) + strlen(stem) + strlen(ext) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s%s", dir, stem, ext);
    return p;
}

char *cli_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int err = 0;
    for (;;) {
        if (n + 4097 > cap) {
            char *b = realloc(buf, cap = cap ? 2 * cap : 65536);
            if (!b) {
                err = ENOMEM;
                break;
            }
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (!got) {
            err = ferror(f) ? EIO : 0;
            break;
        }
    }
    fclose(f);
    if (err) {
        free(buf);
        errno = err;
        return NULL;
    }
    buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}
