/* SPDX-License-Identifier: BSD-2-Clause */
/* settle trend: series by label from the store or result folders, their
 * change points, text / Markdown / JSON Lines, and the exports. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "export.h"
#include "series.h"

void usage_trend(FILE *f)
{
    fprintf(f,
            "usage: settle trend [OPTIONS] DB|RESULT...\n"
            "\n"
            "Groups results (a history store, result folders, result or JSON Lines files)\n"
            "into series by labels, orders each series along a label, and finds the\n"
            "points where it changed level: the step, its 95%% interval and p value.\n"
            "Several captures a night are a sample; a single odd night inside a series\n"
            "is not a change, a step at the newest night is.\n"
            "  --by KEYS         labels that make a series, comma-separated\n"
            "                    (default test,device)\n"
            "  --along KEY       label the series is ordered along: numbers or dates\n"
            "                    YYYY-MM-DD (default night)\n"
            "  --metric NAME     numeric result field, dotted for a nested one\n"
            "                    (default load_time)\n"
            "  --format FORMAT   text, markdown or json (JSON Lines, one series a line)\n"
            "                    (default text)\n"
            "  --alpha P         significance level of a change (default 0.05)\n"
            "  --min-effect X    smallest step reported, in the metric's unit (default 0)\n"
            "  --permutations N  of the p value of a change, 99-1000000 (default 1999)\n"
            "  --influx URL      also write the nights to InfluxDB 1.x:\n"
            "                    http://HOST[:PORT][/write?db=NAME] (default db settle)\n"
            "  --graphite HOST:PORT\n"
            "                    also send them to Graphite (carbon plaintext)\n"
            "  --graphite-prefix P  first part of the Graphite paths (default settle)\n"
            "  -q, --quiet       no notes on stderr\n"
            "\n"
            "Exit codes: 0 no regression at the newest night   1 a series got worse\n"
            "  (higher) at its newest night   3 a result could not be read\n"
            "  4 an export failed   64 invalid command line   70 internal error\n");
}

typedef struct TrendArgs {
    const char *format, *influx, *graphite, *prefix;
    int quiet;
} TrendArgs;

/* Values of the metric to the microsecond, as analyze writes them. */
static double micro(double x)
{
    return isfinite(x) ? round(x * 1e6) / 1e6 : NAN;
}

static cJSON *along_json(const SeriesSet *set, const Point *p)
{
    return set->numeric ? cJSON_CreateNumber(p->num) : cJSON_CreateString(p->along);
}

static int put_series_json(const SeriesSet *set, const Series *s, FILE *f)
{
    cJSON *o = cJSON_CreateObject(), *labels = cJSON_AddObjectToObject(o, "labels");
    cJSON *pts = NULL, *chs = NULL;
    for (int k = 0; labels && k < set->nby; k++)
        cJSON_AddItemToObject(labels, set->by[k], s->values[k]
                                                      ? cJSON_CreateString(s->values[k])
                                                      : cJSON_CreateNull());
    if (labels && s->region)
        cJSON_AddStringToObject(labels, "region", s->region);
    cJSON_AddStringToObject(o, "metric", set->metric);
    cJSON_AddStringToObject(o, "along", set->along);
    pts = cJSON_AddArrayToObject(o, "points");
    for (size_t j = 0; pts && j < s->np; j++) {
        const Point *p = &s->p[j];
        cJSON *q = cJSON_CreateObject();
        cJSON_AddItemToArray(pts, q);
        cJSON_AddItemToObject(q, "at", along_json(set, p));
        cJSON_AddNumberToObject(q, "n", (double)p->nx);
        cJSON_AddNumberToObject(q, "median", micro(p->sum.median));
        cJSON_AddNumberToObject(q, "min", micro(p->sum.min));
        cJSON_AddNumberToObject(q, "max", micro(p->sum.max));
        cJSON_AddItemToObject(q, "values", cJSON_CreateDoubleArray(p->x, (int)p->nx));
        cJSON_AddNumberToObject(q, "not_counted", (double)(p->n - p->nx));
    }
    chs = cJSON_AddArrayToObject(o, "changes");
    for (size_t i = 0; chs && i < s->nch; i++) {
        const SettleChange *c = &s->ch[i];
        cJSON *q = cJSON_CreateObject();
        cJSON_AddItemToArray(chs, q);
        cJSON_AddItemToObject(q, "at", along_json(set, &s->p[c->at]));
        cJSON_AddNumberToObject(q, "step", micro(c->step));
        const double ci[2] = { micro(c->ci_low), micro(c->ci_high) };
        cJSON_AddItemToObject(q, "ci95", cJSON_CreateDoubleArray(ci, 2));
        cJSON_AddNumberToObject(q, "p", c->p);
        cJSON_AddNumberToObject(q, "before", micro(c->before));
        cJSON_AddNumberToObject(q, "after", micro(c->after));
        cJSON_AddBoolToObject(q, "newest", c->at == s->idx[s->nidx - 1]);
    }
    cJSON_AddBoolToObject(o, "regression", s->regression);
    char *text = cJSON_PrintUnformatted(o);
    int ret = text && fprintf(f, "%s\n", text) > 0 ? 0 : -1;
    free(text);
    cJSON_Delete(o);
    return ret;
}

static void put_change_text(const SeriesSet *set, const Series *s, const SettleChange *c,
                            FILE *f, int md)
{
    int newest = c->at == s->idx[s->nidx - 1];
    fprintf(f, "%s%s %s %s: %+.3f (%.3f -> %.3f), CI95 [%+.3f, %+.3f], p %.4f%s", md ? "" : "  ",
            newest ? "change at the newest" : "change at", set->along, s->p[c->at].along, c->step,
            c->before, c->after, c->ci_low, c->ci_high, c->p,
            newest && c->step > 0 ? (md ? " **regression**" : "  REGRESSION") : "");
}

static int put_text(const SeriesSet *set, FILE *f)
{
    for (size_t i = 0; i < set->n; i++) {
        const Series *s = &set->s[i];
        char *name = series_name(set, s, " ");
        size_t nc = 0;
        for (size_t j = 0; j < s->np; j++)
            nc += s->p[j].nx;
        fprintf(f, "%s: %s, %zu %ss, %zu captures", name ? name : "?", set->metric, s->nidx,
                set->along, nc);
        if (s->nidx)
            fprintf(f, ", newest %s %s: median %.3f (n %zu)", set->along,
                    s->p[s->idx[s->nidx - 1]].along, s->p[s->idx[s->nidx - 1]].sum.median,
                    s->p[s->idx[s->nidx - 1]].nx);
        fputc('\n', f);
        for (size_t c = 0; c < s->nch; c++) {
            put_change_text(set, s, &s->ch[c], f, 0);
            fputc('\n', f);
        }
        if (!s->nch)
            fprintf(f, "  %s\n", s->nidx < 2 ? "too few points for changes" : "no change");
        free(name);
    }
    return ferror(f) ? -1 : 0;
}

static int put_markdown(const SeriesSet *set, FILE *f)
{
    fprintf(f, "| series | %ss | newest | changes |\n|---|---:|---|---|\n", set->along);
    for (size_t i = 0; i < set->n; i++) {
        const Series *s = &set->s[i];
        char *name = series_name(set, s, ", ");
        fprintf(f, "| %s | %zu | ", name ? name : "?", s->nidx);
        if (s->nidx) {
            const Point *p = &s->p[s->idx[s->nidx - 1]];
            fprintf(f, "%s: %.3f (n %zu)", p->along, p->sum.median, p->nx);
        }
        fputs(" | ", f);
        for (size_t c = 0; c < s->nch; c++) {
            fputs(c ? "<br>" : "", f);
            put_change_text(set, s, &s->ch[c], f, 1);
        }
        fputs(s->nch ? " |\n" : "none |\n", f);
        free(name);
    }
    return ferror(f) ? -1 : 0;
}

/* The lines of an export in memory, then sent. Returns an exit code. */
static int export(const SeriesSet *set, const TrendArgs *a, int graphite)
{
    char *buf = NULL, err[512];
    size_t len = 0;
    long n = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m || (graphite ? graphite_lines(set, a->prefix, m, &n) : influx_lines(set, m, &n)) < 0) {
        if (m)
            fclose(m);
        free(buf);
        fprintf(stderr, "settle: out of memory\n");
        return EXIT_INTERNAL;
    }
    fclose(m);
    int r = !n ? 0 : graphite ? graphite_send(a->graphite, buf, len, err, sizeof(err))
                              : influx_post(a->influx, buf, len, err, sizeof(err));
    free(buf);
    if (r < 0) {
        fprintf(stderr, "settle: %s\n", err);
        return EXIT_OUTPUT;
    }
    if (!a->quiet)
        fprintf(stderr, "settle: %s: %ld %s written\n", graphite ? a->graphite : a->influx, n,
                graphite ? "values" : "points");
    return 0;
}

static int parse_args(int argc, char **argv, TrendArgs *a, SeriesSet *set,
                      SettleTrendSettings *ts)
{
    enum { OPT_BY = 1000, OPT_FORMAT, OPT_INFLUX, OPT_GRAPHITE, OPT_PREFIX };
    static const struct option opts[] = {
        { "by", required_argument, NULL, OPT_BY },
        SERIES_LONGOPTS,
        { "format", required_argument, NULL, OPT_FORMAT },
        SERIES_LONGOPT_PERMUTATIONS,
        { "influx", required_argument, NULL, OPT_INFLUX },
        { "graphite", required_argument, NULL, OPT_GRAPHITE },
        { "graphite-prefix", required_argument, NULL, OPT_PREFIX },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *by = "test,device";
    int c, r;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
        if ((r = series_option(c, optarg, set, ts)) != 0) {
            if (r != 1)
                return r;
            continue;
        }
        switch (c) {
        case OPT_BY: by = optarg; break;
        case OPT_FORMAT: a->format = optarg; break;
        case OPT_INFLUX: a->influx = optarg; break;
        case OPT_GRAPHITE: a->graphite = optarg; break;
        case OPT_PREFIX: a->prefix = optarg; break;
        case 'q': a->quiet = 1; break;
        case 'h': usage_trend(stdout); return -1;
        default: cli_bad_option("trend", argv, opts, c); return EXIT_USAGE;
        }
    }
    if (strcmp(a->format, "text") && strcmp(a->format, "markdown") && strcmp(a->format, "json")) {
        fprintf(stderr, "settle: --format: expected text, markdown or json, got '%s'\n",
                a->format);
        return EXIT_USAGE;
    }
    char err[600];
    if (export_check(a->influx, a->graphite, err, sizeof(err)) < 0) {
        fprintf(stderr, "settle: %s\n", err);
        return EXIT_USAGE;
    }
    if (!*by || !*set->along || !*set->metric || !*a->prefix) {
        fprintf(stderr, "settle: trend: --by, --along, --metric and --graphite-prefix cannot "
                        "be empty\n");
        return EXIT_USAGE;
    }
    if (optind >= argc) {
        fprintf(stderr, "settle: trend: expected DB or RESULT...; see 'settle help trend'\n");
        return EXIT_USAGE;
    }
    if (series_set_by(set, by) < 0) {
        fprintf(stderr, "settle: out of memory\n");
        return EXIT_INTERNAL;
    }
    return 0;
}

static int output(const SeriesSet *set, const TrendArgs *a)
{
    int r = 0;
    if (!strcmp(a->format, "json"))
        for (size_t i = 0; i < set->n && r == 0; i++)
            r = put_series_json(set, &set->s[i], stdout);
    else if (!strcmp(a->format, "markdown"))
        r = put_markdown(set, stdout);
    else
        r = put_text(set, stdout);
    if (fflush(stdout) == EOF || r < 0) {
        fprintf(stderr, "settle: trend: cannot write the output: %s\n", strerror(errno));
        return EXIT_OUTPUT;
    }
    return 0;
}

int cmd_trend(int argc, char **argv)
{
    TrendArgs a = { .format = "text", .prefix = "settle" };
    SeriesSet set = { .along = "night", .metric = "load_time" };
    SettleTrendSettings ts;
    settle_trend_default_settings(&ts);
    int ret = parse_args(argc, argv, &a, &set, &ts);
    if (ret || (ret = series_read(&set, argv + optind, argc - optind, &ts, a.quiet)) != 0)
        goto end;
    if ((ret = output(&set, &a)) != 0)
        goto end;
    if (a.influx && (ret = export(&set, &a, 0)) != 0)
        goto end;
    if (a.graphite && (ret = export(&set, &a, 1)) != 0)
        goto end;
    for (size_t i = 0; i < set.n; i++)
        if (set.s[i].regression)
            ret = 1;
end:
    series_free(&set);
    return ret < 0 ? EXIT_OK : ret;
}
