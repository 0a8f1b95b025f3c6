/* SPDX-License-Identifier: BSD-2-Clause */
/* settle dashboard: the store (or result folders) as an HTML folder. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dashboard.h"
#include "series.h"

void usage_dashboard(FILE *f)
{
    fprintf(f,
            "usage: settle dashboard -o DIR [OPTIONS] DB|RESULT...\n"
            "\n"
            "Writes one self-contained HTML folder from a history store (or result\n"
            "folders, result or JSON Lines files): a chart per test with a line per device,\n"
            "the median of each night, the spread of its captures and the change points\n"
            "that settle trend finds; each night links to a page of its captures with\n"
            "their video, report, result, CSV and filmstrip. Nothing is fetched from the\n"
            "network.\n"
            "  -o, --output DIR  the folder (created; index.html and night/)\n"
            "  --chart KEY       label that makes a chart (default test)\n"
            "  --line KEYS       labels that make a line, comma-separated (default device)\n"
            "  --along KEY       label along the x axis: numbers or dates (default night)\n"
            "  --metric NAME     numeric result field, dotted for a nested one\n"
            "                    (default load_time)\n"
            "  --alpha P         significance level of a change (default 0.05)\n"
            "  --min-effect X    smallest step marked, in the metric's unit (default 0)\n"
            "  --title TEXT      the page's title (default settle nightly)\n"
            "  -q, --quiet       no notes on stderr\n"
            "\n"
            "Exit codes: 0 written   3 a result could not be read   4 the folder could not\n"
            "  be written   64 invalid command line   70 internal error\n");
}

typedef struct DashArgs {
    const char *out, *chart, *line, *title;
    int quiet;
} DashArgs;

/* set->by = the chart key, then the line keys. */
static int make_by(const DashArgs *a, SeriesSet *set)
{
    size_t n = strlen(a->chart) + strlen(a->line) + 2;
    char *by = malloc(n);
    if (!by)
        return -1;
    snprintf(by, n, "%s,%s", a->chart, a->line);
    int ret = series_set_by(set, by);
    free(by);
    return ret;
}

static int parse_args(int argc, char **argv, DashArgs *a, SeriesSet *set,
                      SettleTrendSettings *ts)
{
    enum { OPT_CHART = 1000, OPT_LINE, OPT_TITLE };
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "chart", required_argument, NULL, OPT_CHART },
        { "line", required_argument, NULL, OPT_LINE },
        SERIES_LONGOPTS,
        { "title", required_argument, NULL, OPT_TITLE },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c, r;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:qh", opts, NULL)) != -1) {
        if ((r = series_option(c, optarg, set, ts)) != 0) {
            if (r != 1)
                return r;
            continue;
        }
        switch (c) {
        case 'o': a->out = optarg; break;
        case OPT_CHART: a->chart = optarg; break;
        case OPT_LINE: a->line = optarg; break;
        case OPT_TITLE: a->title = optarg; break;
        case 'q': a->quiet = 1; break;
        case 'h': usage_dashboard(stdout); return -1;
        default: cli_bad_option("dashboard", argv, opts, c); return EXIT_USAGE;
        }
    }
    if (!a->out || !*a->out) {
        fprintf(stderr, "settle: dashboard: expected -o DIR; see 'settle help dashboard'\n");
        return EXIT_USAGE;
    }
    if (!*a->chart || !*a->line || !*set->along || !*set->metric) {
        fprintf(stderr, "settle: dashboard: --chart, --line, --along and --metric cannot be "
                        "empty\n");
        return EXIT_USAGE;
    }
    if (optind >= argc) {
        fprintf(stderr, "settle: dashboard: expected DB or RESULT...; see 'settle help "
                        "dashboard'\n");
        return EXIT_USAGE;
    }
    if (make_by(a, set) < 0) {
        fprintf(stderr, "settle: out of memory\n");
        return EXIT_INTERNAL;
    }
    return 0;
}

int cmd_dashboard(int argc, char **argv)
{
    DashArgs a = { .chart = "test", .line = "device", .title = "settle nightly" };
    SeriesSet set = { .along = "night", .metric = "load_time" };
    SettleTrendSettings ts;
    settle_trend_default_settings(&ts);
    char err[600];
    int ret = parse_args(argc, argv, &a, &set, &ts), f;
    if (ret == 0)
        ret = series_read(&set, argv + optind, argc - optind, &ts, a.quiet);
    if (ret == 0 && (f = dashboard_write(&set, a.out, a.title, err, sizeof(err))) < 0) {
        fprintf(stderr, "settle: %s\n", err);
        ret = f == -2 ? EXIT_INTERNAL : EXIT_OUTPUT;
    }
    if (ret == 0 && !a.quiet)
        fprintf(stderr, "settle: %s/index.html: %zu series written\n", a.out, set.n);
    series_free(&set);
    return ret < 0 ? EXIT_OK : ret;
}
