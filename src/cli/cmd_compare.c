/* SPDX-License-Identifier: BSD-2-Clause */
/* settle compare: reads (or analyses) two groups of captures and compares
 * each metric with the library's statistics. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"
#include "settle/compare.h"
#include "output.h"
#include "plot.h"

/* scripts/compare.gp, compiled in by tools/embed.c */
extern const char settle_compare_gp[];

/* The results of one group, in the order read, and where each came from. */
typedef struct Group {
    const char *name;       /* "baseline", "candidate" */
    SettleResultInfo *info;
    char **source;          /* a capture, a file, or file:line */
    size_t n, cap;
} Group;

/* Exit codes of compare; errors outrank verdicts, and 1 outranks 2. */
enum {
    CMP_OK = 0,          /* no regression in any metric compared */
    CMP_REGRESSION = 1,  /* a regression in at least one metric */
    CMP_TOO_FEW = 2,     /* no verdict: a group has fewer than --min-n values */
    CMP_INPUT = 3,       /* an item could not be read: missing, or not a result */
    CMP_OUTPUT = 4,      /* a report could not be written */
};

void usage_compare(FILE *f)
{
    fprintf(f,
            "usage: settle compare [OPTIONS] --baseline ITEM... --candidate ITEM...\n"
            "\n"
            "Did the candidate (build B) get slower than the baseline (build A)? For each\n"
            "metric: n, median, mean, sd, min, max, p90 per group, the difference of medians\n"
            "(candidate - baseline) with a bootstrap confidence interval, a Mann-Whitney U\n"
            "p-value, and a verdict. An ITEM is a capture (analysed here with the analysis\n"
            "options), a result JSON file (one result a line), or a directory of them.\n"
            "Only captures with status \"stable\" count; the others are listed, not dropped.\n"
            "\n"
            "Verdict, with E = --min-effect:\n"
            "  regression   p < alpha and the whole interval lies above +E\n"
            "  improvement  p < alpha and the whole interval lies below -E\n"
            "  no change    otherwise     too few   a group has fewer than --min-n values\n"
            "\n"
            "Options:\n"
            "  --min-effect SECONDS|PERCENT%%  smallest difference that matters (default 0)\n"
            "  --alpha P         significance level of the test (default 0.05)\n"
            "  --min-n N         fewest values a group needs for a verdict (default 3)\n"
            "  --metric NAME     compare only this metric (repeatable): load_time,\n"
            "                    first_visual_change, last_visual_change, speed_index,\n"
            "                    or gaps: the gap of each of the app's marks (results of\n"
            "                    analyze --marks), as gap:NAME; or regions: the load\n"
            "                    time of each --region area, as region:NAME; default:\n"
            "                    every metric, gap and region present in both groups\n"
            "  --resamples N     bootstrap resamples (default 10000)\n"
            "  --seed N          bootstrap seed (default 6190878), fixed so reruns agree\n"
            "  --markdown FILE   the report as Markdown, for a CI comment ('-' = stdout)\n"
            "  --json FILE       one JSON object per metric, one a line ('-' = stdout)\n"
            "  --plot FILE       each metric's counted values of both groups as a box plot\n"
            "                    with every value over it, drawn by gnuplot: PNG, or SVG\n"
            "                    when FILE ends in .svg\n"
            "  --plot-script FILE  a gnuplot script instead of the built-in scripts/compare.gp\n"
            "  --by KEY          compare per value of the label KEY (page, app, device...):\n"
            "                    one comparison per group, the verdict over all of them;\n"
            "                    without it, results of different tests are pooled with a\n"
            "                    warning\n"
            "  -j, --jobs N      captures analysed in parallel (default: the cores)\n"
            "  -q, --quiet       no text report\n"
            "  plus the analysis options of 'settle help analyze' for captures\n"
            "\n"
            "Exit codes:\n"
            "  0 no regression   1 a regression   2 too few values for a verdict\n"
            "  3 an item could not be read   4 a report or the plot could not be written\n"
            "  64 invalid command line   70 internal error   130 interrupted\n"
            "Errors (3 and up) outrank verdicts; 1 outranks 2.\n");
}

static int worse(int a, int b)
{
    return a > b ? a : b;
}

/* Appends an empty result; its source is set by the caller. */
static SettleResultInfo *group_add(Group *g, const char *source)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 32;
        SettleResultInfo *info = realloc(g->info, cap * sizeof(*info));
        if (info)
            g->info = info;
        char **src = info ? realloc(g->source, cap * sizeof(*src)) : NULL;
        if (!src)
            return NULL;
        g->source = src;
        g->cap = cap;
    }
    char *copy = strdup(source);
    if (!copy)
        return NULL;
    memset(&g->info[g->n], 0, sizeof(*g->info));
    g->source[g->n] = copy;
    return &g->info[g->n++];
}

static void group_free(Group *g)
{
    for (size_t i = 0; i < g->n; i++) {
        settle_result_info_free(&g->info[i]);
        free(g->source[i]);
    }
    free(g->info);
    free(g->source);
    g->info = NULL;
    g->source = NULL;
    g->n = g->cap = 0;
}

/* Reads every result line of a JSON Lines file. */
static int load_json(Group *g, const char *path, const char *text)
{
    int nlines = 0;
    for (const char *p = text; *p; p++)
        nlines += *p == '\n';
    int line = 0;
    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        line++;
        size_t k = 0;
        while (k < len && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r'))
            k++;
        if (k < len) {
            char src[4096];
            snprintf(src, sizeof(src), nlines > 1 ? "%s:%d" : "%s", path, line);
            SettleResultInfo *info = group_add(g, src);
            if (!info)
                return EXIT_INTERNAL;
            int r = settle_result_info_parse(p, len, info);
            if (r == SETTLE_ERR_NOMEM)
                return EXIT_INTERNAL;
            if (r < 0) {
                fprintf(stderr, "settle: %s:%d: not a settle result\n", path, line);
                return CMP_INPUT;
            }
        }
        p += len + (end ? 1 : 0);
    }
    return 0;
}

static char *read_text(const char *path, int *is_json)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) {
        fclose(f);
        return NULL;
    }
    char chunk[65536];
    size_t got;
    int first = 1;
    *is_json = 0;
    while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (first) {
            size_t k = 0;
            while (k < got && (chunk[k] == ' ' || chunk[k] == '\n' || chunk[k] == '\t' || chunk[k] == '\r'))
                k++;
            *is_json = k < got && chunk[k] == '{';
            first = 0;
            if (!*is_json)
                break; /* a capture: no need to read it here */
        }
        fwrite(chunk, 1, got, m);
    }
    int bad = ferror(f);
    fclose(f);
    fclose(m);
    if (bad) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    return buf;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A capture to analyse: its slot in a group, filled once every item is read. */
typedef struct Pending {
    Group *g;
    size_t index;
} Pending;

typedef struct Loader {
    SettleSettings s;
    int verbose, jobs;
    Pending *pending;
    size_t npending, cap, next;
    pthread_mutex_t lock;
    int ret;
} Loader;

static int load_capture(Loader *l, Group *g, const char *path)
{
    if (l->npending == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 32;
        Pending *p = realloc(l->pending, cap * sizeof(*p));
        if (!p)
            return EXIT_INTERNAL;
        l->pending = p;
        l->cap = cap;
    }
    if (!group_add(g, path))
        return EXIT_INTERNAL;
    l->pending[l->npending++] = (Pending){ g, g->n - 1 };
    return 0;
}

typedef struct Analyst {
    Loader *l;
    int id;
    pthread_t thread;
    int started;
} Analyst;

/* Analyses pending captures, one context a thread, until none are left. */
static void *analyst_main(void *opaque)
{
    Analyst *a = opaque;
    Loader *l = a->l;
    SettleContext *ctx = NULL;
    int ret = settle_open(&ctx, &l->s) < 0 ? EXIT_INTERNAL : 0;
    cli_watch_context(a->id, ctx);
    while (!ret) {
        pthread_mutex_lock(&l->lock);
        size_t i = l->next < l->npending && !cli_stop && !l->ret ? l->next++ : l->npending;
        pthread_mutex_unlock(&l->lock);
        if (i >= l->npending)
            break;
        Group *g = l->pending[i].g;
        size_t k = l->pending[i].index;
        const SettleResult *r = NULL;
        int ar = settle_analyze_file(ctx, g->source[k], &r);
        if (ar == SETTLE_ERR_INTERRUPTED || cli_stop)
            ret = EXIT_SIGNAL;
        else if (settle_result_info_get(ctx, &g->info[k]) < 0)
            ret = EXIT_INTERNAL;
        else if (l->verbose)
            fprintf(stderr, "settle: %s: %s, load time %.3f s\n", g->source[k], g->info[k].status,
                    g->info[k].value[0]);
    }
    cli_watch_context(a->id, NULL);
    settle_close(&ctx);
    pthread_mutex_lock(&l->lock);
    if (ret > l->ret)
        l->ret = ret;
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

static int analyse_pending(Loader *l)
{
    if (!l->npending)
        return 0;
    int jobs = l->jobs ? l->jobs : cli_cores();
    if ((size_t)jobs > l->npending)
        jobs = (int)l->npending;
    /* share the cores between the decoders unless told otherwise */
    if (jobs > 1 && l->s.threads == 0)
        l->s.threads = cli_cores() / jobs > 1 ? cli_cores() / jobs : 1;
    Analyst *an = calloc((size_t)jobs, sizeof(*an));
    if (!an)
        return EXIT_INTERNAL;
    pthread_mutex_init(&l->lock, NULL);
    for (int i = 0; i < jobs; i++) {
        an[i] = (Analyst){ .l = l, .id = i };
        if (i)
            an[i].started = pthread_create(&an[i].thread, NULL, analyst_main, &an[i]) == 0;
    }
    analyst_main(&an[0]);
    for (int i = 1; i < jobs; i++)
        if (an[i].started)
            pthread_join(an[i].thread, NULL);
    pthread_mutex_destroy(&l->lock);
    free(an);
    if (!l->ret && l->next < l->npending)
        l->ret = cli_stop ? EXIT_SIGNAL : EXIT_INTERNAL;
    return l->ret;
}

static int load_item(Loader *l, Group *g, const char *item)
{
    struct stat st;
    if (stat(item, &st) < 0) {
        fprintf(stderr, "settle: %s: %s\n", item, strerror(errno));
        return CMP_INPUT;
    }
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(item);
        if (!d) {
            fprintf(stderr, "settle: %s: %s\n", item, strerror(errno));
            return CMP_INPUT;
        }
        char **names = NULL;
        size_t n = 0, cap = 0;
        int ret = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
            size_t len = strlen(de->d_name);
            if (len < 6 || strcmp(de->d_name + len - 5, ".json") || de->d_name[0] == '.')
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                char **nn = realloc(names, cap * sizeof(*nn));
                if (!nn) {
                    ret = EXIT_INTERNAL;
                    break;
                }
                names = nn;
            }
            size_t pl = strlen(item) + len + 2;
            if (!(names[n] = malloc(pl))) {
                ret = EXIT_INTERNAL;
                break;
            }
            snprintf(names[n++], pl, "%s/%s", item, de->d_name);
        }
        closedir(d);
        if (!ret && names)
            qsort(names, n, sizeof(*names), cmp_name);
        for (size_t i = 0; i < n; i++) {
            if (!ret)
                ret = load_item(l, g, names[i]);
            free(names[i]);
        }
        free(names);
        if (!ret && !n)
            fprintf(stderr, "settle: warning: %s: no .json results in this directory\n", item);
        return ret;
    }
    int is_json = 0;
    char *text = read_text(item, &is_json);
    if (!text) {
        fprintf(stderr, "settle: %s: %s\n", item, strerror(errno));
        return CMP_INPUT;
    }
    int ret = is_json ? load_json(g, item, text) : load_capture(l, g, item);
    free(text);
    return ret;
}

/* The reports of the n groups (one without --by) into one file; with --by the
 * Markdown opens with the verdict over every group. */
static int write_report(const char *path, const SettleReport *r, int n, const char *overall,
                        int json)
{
    const char *opt = json ? "--json" : "--markdown", *name = strcmp(path, "-") ? path : "stdout";
    OutFile o;
    if (out_open(&o, path) < 0) {
        fprintf(stderr, "settle: %s: %s: %s\n", opt, name, strerror(errno));
        return CMP_OUTPUT;
    }
    int bad = 0;
    if (!json && r[0].by_key)
        fprintf(o.f, "### settle compare: %s\n\n", overall);
    for (int i = 0; i < n && !bad; i++) {
        if (!json && i)
            fputc('\n', o.f);
        bad = json ? settle_write_report_json(&r[i], o.f) : settle_write_report_markdown(&r[i], o.f);
    }
    if (bad < 0) {
        out_abort(&o);
        fprintf(stderr, "settle: %s: %s: out of memory\n", opt, name);
        return EXIT_INTERNAL;
    }
    if (out_commit(&o) < 0) {
        fprintf(stderr, "settle: %s: %s: %s\n", opt, name, strerror(errno));
        return CMP_OUTPUT;
    }
    return 0;
}

/* --plot: the counted values of each compared metric (of each group), by gnuplot. */
static int write_plot(const char *path, const char *script, const SettleReport *reps, int nreps,
                      const char *overall)
{
    char *data = plot_temp_file("cmp"), *vars = NULL;
    size_t vlen = 0;
    int ret = CMP_OUTPUT, n = 0;
    FILE *d = data ? fopen(data, "w") : NULL;
    FILE *v = d ? open_memstream(&vars, &vlen) : NULL;
    char msg[512];
    if (!v) {
        fprintf(stderr, "settle: --plot: cannot make a temporary file: %s\n", strerror(errno));
        goto end;
    }
    for (int q = 0; q < nreps; q++)
    for (int j = 0; j < reps[q].nm; j++) {
        const SettleReport *r = &reps[q];
        const SettleMetricComparison *mc = &r->m[j];
        if (!mc->compared || !mc->cmp.baseline.n || !mc->cmp.candidate.n)
            continue;
        /* one block of values per group, two blank lines apart (gnuplot's index) */
        for (int g = 0; g < 2; g++) {
            const SettleReportGroup *grp = &r->group[g];
            if (n || g)
                fputs("\n\n", d);
            for (size_t i = 0; i < grp->n; i++) {
                if (settle_result_counts(grp->results, grp->n, i, mc->metric, NULL) != SETTLE_COUNTED)
                    continue;
                /* the program never sets LC_NUMERIC: '.' is the decimal point */
                fprintf(d, "%.6f\n", grp->results[i].value[mc->metric]);
            }
        }
        n++;
        char line[160];
        if (isfinite(mc->cmp.difference))
            snprintf(line, sizeof(line), "%s, median %+.3f%s", settle_verdict_name(mc->cmp.verdict),
                     mc->cmp.difference, mc->metric != 3 ? " s" : "");
        else
            snprintf(line, sizeof(line), "%s", settle_verdict_name(mc->cmp.verdict));
        char title[640], nbuf[300];
        snprintf(title, sizeof(title), "%s%s%s%s", r->by_key ? r->by_key : "", r->by_key ? "=" : "",
                 r->by_key ? r->by_value : "", r->by_key ? " " : "");
        snprintf(title + strlen(title), sizeof(title) - strlen(title), "%s",
                 settle_comparison_name(mc, nbuf, sizeof(nbuf)));
        fprintf(v, "metric_%d = ", n);
        plot_put_string(v, title);
        fprintf(v, "\nverdict_%d = ", n);
        plot_put_string(v, line);
        fputc('\n', v);
    }
    fputs("overall = ", v);
    plot_put_string(v, overall);
    fprintf(v, "\nn = %d\ndata = ", n);
    plot_put_string(v, data);
    fputc('\n', v);
    int bad = fclose(d) != 0;
    d = NULL;
    bad |= fclose(v) != 0;
    v = NULL;
    if (bad) {
        fprintf(stderr, "settle: --plot: cannot write a temporary file\n");
        goto end;
    }
    if (!n) {
        fprintf(stderr, "settle: --plot: %s: no metric has values in both groups\n", path);
        goto end;
    }
    if (plot_render(vars, settle_compare_gp, script, path, msg, sizeof(msg)) < 0) {
        fprintf(stderr, "settle: --plot: %s: %s\n", path, msg);
        goto end;
    }
    ret = 0;
end:
    if (d)
        fclose(d);
    if (v)
        fclose(v);
    if (data)
        unlink(data);
    free(data);
    free(vars);
    return ret;
}

/* The files the items name (a directory's results too): no output may be one. */
static int guard_items(OutGuard *g, const char **items[2], const size_t nitems[2],
                       const char *plot_script)
{
    if (plot_script && out_guard_add(g, plot_script) < 0)
        return EXIT_INTERNAL;
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < nitems[k]; i++) {
            if (out_guard_add(g, items[k][i]) < 0)
                return EXIT_INTERNAL;
            DIR *d = opendir(items[k][i]);
            struct dirent *de;
            while (d && (de = readdir(d))) {
                size_t n = strlen(items[k][i]) + strlen(de->d_name) + 2;
                char *p = malloc(n);
                if (!p) {
                    closedir(d);
                    return EXIT_INTERNAL;
                }
                snprintf(p, n, "%s/%s", items[k][i], de->d_name);
                int r = de->d_name[0] == '.' ? 0 : out_guard_add(g, p);
                free(p);
                if (r < 0) {
                    closedir(d);
                    return EXIT_INTERNAL;
                }
            }
            if (d)
                closedir(d);
        }
    }
    return 0;
}

/* Where compare's results go. */
typedef struct CompareOut {
    const char *markdown, *json, *plot, *plot_script, *by;
    int quiet;
} CompareOut;

/* The results of group g whose label `key` has `value` ("(none)": no such
 * label): shallow copies, owned by the group. */
static size_t select_by(const Group *g, const char *key, const char *value, SettleResultInfo *info,
                        const char **src)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++) {
        char v[1024];
        int has = settle_result_label(&g->info[i], key, v, sizeof(v));
        if (!strcmp(has > 0 ? v : "(none)", value)) {
            info[n] = g->info[i];
            src[n++] = g->source[i];
        }
    }
    return n;
}

/* The values of label `key` in both groups, in the order met: an array of
 * strdup'd strings, NULL-terminated, or NULL when out of memory. */
static char **by_values(const Group *ga, const Group *gb, const char *key, int *nv)
{
    char **vals = calloc(ga->n + gb->n + 1, sizeof(*vals));
    *nv = 0;
    for (int k = 0; vals && k < 2; k++) {
        const Group *g = k ? gb : ga;
        for (size_t i = 0; i < g->n; i++) {
            char v[1024];
            const char *val = settle_result_label(&g->info[i], key, v, sizeof(v)) > 0 ? v : "(none)";
            int seen = 0;
            for (int j = 0; j < *nv && !seen; j++)
                seen = !strcmp(vals[j], val);
            if (!seen && !(vals[(*nv)++] = strdup(val))) {
                for (int j = 0; j < *nv; j++)
                    free(vals[j]);
                free(vals);
                return NULL;
            }
        }
    }
    return vals;
}

/* Compares the groups (once, or per value of --by) and writes every output.
 * Returns the exit code: an output's error, else the verdict. */
static int compare_and_write(const Group *ga, const Group *gb, const int *want,
                             const SettleCompareSettings *cs, const char *min_effect_text,
                             const CompareOut *co)
{
    int nv = 1, ret = EXIT_INTERNAL;
    char **vals = co->by ? by_values(ga, gb, co->by, &nv) : NULL;
    SettleReport *reps = calloc((size_t)nv, sizeof(*reps));
    SettleMetricComparison *mcs = calloc((size_t)nv * SETTLE_NB_SLOTS, sizeof(*mcs));
    if ((co->by && !vals) || !reps || !mcs)
        goto end;
    int kinds = settle_results_settings_kinds(ga->info, ga->n, gb->info, gb->n);
    for (int i = 0; i < nv; i++) {
        SettleReport *r = &reps[i];
        SettleResultInfo *ia, *ib;
        const char **sa, **sb;
        size_t na = ga->n, nb = gb->n;
        if (co->by) {
            /* the copies live until the writers are done: a stretch per group */
            ia = calloc(ga->n + gb->n + 1, sizeof(*ia));
            sa = calloc(ga->n + gb->n + 1, sizeof(*sa));
            if (!ia || !sa) {
                free(ia);
                free((void *)sa);
                nv = i;
                goto end;
            }
            na = select_by(ga, co->by, vals[i], ia, sa);
            nb = select_by(gb, co->by, vals[i], ia + na, sa + na);
            ib = ia + na;
            sb = sa + na;
        } else {
            ia = ga->info;
            sa = (const char **)ga->source;
            ib = gb->info;
            sb = (const char **)gb->source;
        }
        *r = (SettleReport){
            .group = { { "baseline", ia, na, sa }, { "candidate", ib, nb, sb } },
            .m = mcs + (size_t)i * SETTLE_NB_SLOTS, .settings = cs,
            .min_effect_text = min_effect_text, .settings_kinds = kinds,
            .metrics_named = want != NULL, .by_key = co->by, .by_value = vals ? vals[i] : NULL,
        };
        if (settle_compare_results(ia, na, ib, nb, want, cs, mcs + (size_t)i * SETTLE_NB_SLOTS,
                                   &r->nm) < 0) {
            nv = i + 1;
            goto end;
        }
    }
    char overall[2048];
    /* the exit code is the verdict every format opens with */
    int verdict = co->by ? settle_report_verdict_by(reps, nv, overall, sizeof(overall))
                         : settle_report_verdict(reps, overall, sizeof(overall));
    if (kinds > 1)
        fprintf(stderr, "settle: warning: the results were analysed with %d different settings\n",
                kinds);
    char pooled[1024];
    if (!co->by && settle_report_pooled(reps, pooled, sizeof(pooled)) > 0)
        fprintf(stderr, "settle: warning: results of different tests are pooled (%s); compare "
                        "them per group with --by KEY\n", pooled);
    int stdout_taken = (co->markdown && !strcmp(co->markdown, "-")) ||
                       (co->json && !strcmp(co->json, "-"));
    FILE *text = stdout_taken ? stderr : stdout;
    if (!co->quiet && co->by)
        fprintf(text, "verdict: %s\n", overall);
    for (int i = 0; i < nv && !co->quiet; i++) {
        if (co->by)
            fputc('\n', text);
        settle_write_report_text(&reps[i], text);
    }
    int out = 0;
    if (co->markdown)
        out = worse(out, write_report(co->markdown, reps, nv, overall, 0));
    if (co->json)
        out = worse(out, write_report(co->json, reps, nv, overall, 1));
    if (co->plot)
        out = worse(out, write_plot(co->plot, co->plot_script, reps, nv, overall));
    ret = out ? out : verdict;
end:
    for (int i = 0; co->by && reps && i < nv; i++) {
        free((void *)reps[i].group[0].results);
        free((void *)reps[i].group[0].sources);
    }
    for (int i = 0; vals && vals[i]; i++)
        free(vals[i]);
    free(vals);
    free(reps);
    free(mcs);
    return ret;
}

/* A whole number in [lo, hi] for --NAME. Returns 0 or EXIT_USAGE (said). */
static int parse_whole(const char *opt, const char *v, double lo, double hi, int *out)
{
    double x;
    int ret = cli_parse_number(opt, v, lo, hi, &x);
    if (ret || x != floor(x)) {
        if (!ret)
            fprintf(stderr, "settle: --%s: expected a whole number, got '%s'\n", opt, v);
        return EXIT_USAGE;
    }
    *out = (int)x;
    return 0;
}

/* What the command line says besides the analysis settings. */
typedef struct CompareArgs {
    SettleCompareSettings cs;
    const char **items[2];   /* the baseline's and the candidate's, as given */
    size_t nitems[2];
    int group;               /* the group items go to: -1 none yet, 0 baseline, 1 candidate */
    const char *markdown, *json, *min_effect_text;
    const char *plot, *plot_script;
    const char *by;          /* --by KEY: one comparison per value of that label */
    int quiet, want_metric[SETTLE_NB_METRICS], any_metric;
    int want_gaps;           /* --metric gaps: the gaps of the app's marks */
    int want_regions;        /* --metric regions: the load times of the --region areas */
} CompareArgs;

/* Returned by the parsers for --help: done, exit 0. */
#define ARGS_HELP (-1)

enum { OPT_BASE = 1000, OPT_CAND, OPT_MIN_EFFECT, OPT_ALPHA, OPT_MIN_N, OPT_METRIC,
       OPT_RESAMPLES, OPT_SEED, OPT_MD, OPT_JSON, OPT_PLOT, OPT_PLOT_SCRIPT, OPT_BY, OPT_TABLE };

/* --min-effect SECONDS or PERCENT%. */
static int parse_min_effect(CompareArgs *a, const char *v)
{
    size_t len = strlen(v);
    int pct = len > 0 && v[len - 1] == '%';
    char num[64];
    snprintf(num, sizeof(num), "%.*s", (int)(pct ? len - 1 : len), v);
    char *end;
    double x = strtod(num, &end);
    if (!*num || *end || !(x >= 0 && x < 1e6)) {
        fprintf(stderr, "settle: --min-effect: expected seconds or a percentage, got '%s'\n", v);
        return EXIT_USAGE;
    }
    a->cs.min_effect = pct ? x / 100 : x;
    a->cs.min_effect_relative = pct;
    a->min_effect_text = v;
    return 0;
}

/* --seed N and --metric NAME. */
static int parse_seed(CompareArgs *a, const char *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (end == v || *end || errno || v[0] == '-') {
        fprintf(stderr, "settle: --seed: expected a whole number, got '%s'\n", v);
        return EXIT_USAGE;
    }
    a->cs.seed = x;
    return 0;
}

static int parse_metric(CompareArgs *a, const char *v)
{
    int m = 0;
    while (m < SETTLE_NB_METRICS && strcmp(settle_metric_name(m), v))
        m++;
    if (m == SETTLE_NB_METRICS && strcmp(v, "gaps") && strcmp(v, "regions")) {
        fprintf(stderr, "settle: --metric: expected load_time, first_visual_change, "
                        "last_visual_change, regions, speed_index or gaps, got '%s'\n", v);
        return EXIT_USAGE;
    }
    if (m < SETTLE_NB_METRICS)
        a->want_metric[m] = 1;
    else if (!strcmp(v, "gaps"))
        a->want_gaps = 1;
    else
        a->want_regions = 1;
    a->any_metric = 1;
    return 0;
}

/* One answer of getopt_long. Returns 0, an exit code or ARGS_HELP. */
static int parse_option(Loader *l, CompareArgs *a, int c, char **argv,
                        const struct option *longopts, int ntable)
{
    const char *fopt = c == OPT_MD ? "--markdown" : c == OPT_JSON ? "--json"
                     : c == OPT_PLOT ? "--plot" : c == OPT_PLOT_SCRIPT ? "--plot-script" : NULL;
    int ret;
    if (fopt && (ret = cli_file_value(fopt, optarg)))
        return ret;
    switch (c) {
    case 1:
        if (a->group < 0) {
            fprintf(stderr, "settle: compare: '%s': say --baseline or --candidate first\n", optarg);
            return EXIT_USAGE;
        }
        a->items[a->group][a->nitems[a->group]++] = optarg;
        return 0;
    case OPT_BASE: a->group = 0; return 0;
    case OPT_CAND: a->group = 1; return 0;
    case OPT_MIN_EFFECT: return parse_min_effect(a, optarg);
    case OPT_ALPHA: return cli_parse_number("alpha", optarg, 1e-9, 0.5, &a->cs.alpha);
    case OPT_MIN_N: return parse_whole("min-n", optarg, 1, 1e6, &a->cs.min_n);
    case OPT_RESAMPLES: return parse_whole("resamples", optarg, 100, 1e7, &a->cs.resamples);
    case OPT_SEED: return parse_seed(a, optarg);
    case OPT_METRIC: return parse_metric(a, optarg);
    case 'j': return parse_whole("jobs", optarg, 1, CLI_MAX_CONTEXTS, &l->jobs);
    case OPT_MD: a->markdown = optarg; return 0;
    case OPT_JSON: a->json = optarg; return 0;
    case OPT_PLOT: a->plot = optarg; return 0;
    case OPT_PLOT_SCRIPT: a->plot_script = optarg; return 0;
    case OPT_BY:
        if (!*optarg || optarg[0] == '-') {
            fprintf(stderr, "settle: --by: expected a label key, got '%s'\n", optarg);
            return EXIT_USAGE;
        }
        a->by = optarg;
        return 0;
    case 'q': a->quiet = 1; return 0;
    case 'v': l->verbose++; return 0;
    case 'h':
        usage_compare(stdout);
        return ARGS_HELP;
    case '?':
    case ':':
        cli_bad_option("compare", argv, longopts, c);
        return EXIT_USAGE;
    default:
        if (c >= OPT_TABLE && c < OPT_TABLE + ntable)
            return cli_set_option(&l->s, settle_options()[c - OPT_TABLE].name, optarg);
        return 0;
    }
}

/* The command line into l's settings and a. Returns 0, an exit code or ARGS_HELP. */
static int parse_args(Loader *l, CompareArgs *a, int argc, char **argv)
{
    static const struct option own[] = {
        { "baseline", no_argument, NULL, OPT_BASE },
        { "candidate", no_argument, NULL, OPT_CAND },
        { "min-effect", required_argument, NULL, OPT_MIN_EFFECT },
        { "alpha", required_argument, NULL, OPT_ALPHA },
        { "min-n", required_argument, NULL, OPT_MIN_N },
        { "metric", required_argument, NULL, OPT_METRIC },
        { "resamples", required_argument, NULL, OPT_RESAMPLES },
        { "seed", required_argument, NULL, OPT_SEED },
        { "markdown", required_argument, NULL, OPT_MD },
        { "json", required_argument, NULL, OPT_JSON },
        { "plot", required_argument, NULL, OPT_PLOT },
        { "plot-script", required_argument, NULL, OPT_PLOT_SCRIPT },
        { "by", required_argument, NULL, OPT_BY },
        { "jobs", required_argument, NULL, 'j' },
        { NULL, 0, NULL, 0 },
    };
    int ntable = 0, ret = 0;
    struct option *longopts = cli_longopts(own, OPT_TABLE, &ntable);
    a->items[0] = calloc((size_t)argc, sizeof(char *));
    a->items[1] = calloc((size_t)argc, sizeof(char *));
    if (!longopts || !a->items[0] || !a->items[1]) {
        free(longopts);
        return EXIT_INTERNAL;
    }
    int c;
    optind = 1;
    opterr = 0;
    /* '-': items come back in order as argument 1, after --baseline or --candidate */
    while (!ret && (c = getopt_long(argc, argv, "-:qvhj:", longopts, NULL)) != -1)
        ret = parse_option(l, a, c, argv, longopts, ntable);
    free(longopts);
    if (ret)
        return ret;
    if (!a->nitems[0] || !a->nitems[1]) {
        fprintf(stderr, "settle: compare: needs --baseline ITEM... and --candidate ITEM...; "
                        "see 'settle help compare'\n");
        return EXIT_USAGE;
    }
    if (a->markdown && a->json && !strcmp(a->markdown, "-") && !strcmp(a->json, "-")) {
        fprintf(stderr, "settle: --markdown and --json cannot both go to stdout\n");
        return EXIT_USAGE;
    }
    char err[256];
    if (settle_settings_check(&l->s, err, sizeof(err)) < 0) {
        fprintf(stderr, "settle: %s\n", err);
        return EXIT_USAGE;
    }
    return 0;
}

/* No output may be an input, a video or another output; each output's
 * folder is ready. Returns 0 or the exit code (said). */
static int check_outputs(CompareArgs *a, OutGuard *guard)
{
    int ret;
    const char *outs[3][2] = { { "--markdown", a->markdown }, { "--json", a->json },
                               { "--plot", a->plot } };
    if ((ret = guard_items(guard, a->items, a->nitems, a->plot_script)))
        return ret;
    for (int k = 0; k < 3; k++) {
        if (outs[k][1] && out_guard_hit(guard, outs[k][1])) {
            fprintf(stderr, "settle: %s: %s is one of the inputs; refusing to overwrite it\n",
                    outs[k][0], outs[k][1]);
            ret = EXIT_USAGE;
        }
        else if (outs[k][1] && out_is_video(outs[k][1])) {
            fprintf(stderr, "settle: %s: %s is a video, not a result of settle; refusing to "
                            "overwrite it\n", outs[k][0], outs[k][1]);
            ret = EXIT_USAGE;
        }
        for (int q = 0; q < k && outs[k][1] && strcmp(outs[k][1], "-"); q++) {
            if (outs[q][1] && !strcmp(outs[q][1], outs[k][1])) {
                fprintf(stderr, "settle: %s would be written twice (%s, %s)\n", outs[k][1],
                        outs[q][0], outs[k][0]);
                ret = EXIT_USAGE;
            }
        }
    }
    for (int k = 0; k < 3 && !ret; k++) {
        if (outs[k][1] && out_prepare(outs[k][1]) < 0) {
            fprintf(stderr, "settle: %s: %s: %s\n", outs[k][0], outs[k][1], strerror(errno));
            ret = CMP_OUTPUT;
        }
    }
    return ret;
}

/* The gaps of the app's marks (analyze --marks) and the load times of the
 * --region areas are compared like metrics: one slot per mark name and per
 * region name of both groups (the regions first served: up to
 * SETTLE_MAX_REGIONS of the SETTLE_MAX_GAPS slots), unless --metric left them
 * out. */
static void gap_slots(Group *ga, Group *gb, const CompareArgs *a)
{
    const char *gap_names[SETTLE_MAX_GAPS], *region_names[SETTLE_MAX_REGIONS];
    int nregions = !a->any_metric || a->want_regions
                       ? settle_results_region_names(ga->info, ga->n, gb->info, gb->n,
                                                     region_names, SETTLE_MAX_REGIONS)
                       : 0;
    int ngaps = !a->any_metric || a->want_gaps
                    ? settle_results_gap_names(ga->info, ga->n, gb->info, gb->n, gap_names,
                                               SETTLE_MAX_GAPS - nregions)
                    : 0;
    settle_results_set_gaps(ga->info, ga->n, gap_names, ngaps);
    settle_results_set_gaps(gb->info, gb->n, gap_names, ngaps);
    settle_results_set_regions(ga->info, ga->n, region_names, nregions, ngaps);
    settle_results_set_regions(gb->info, gb->n, region_names, nregions, ngaps);
}

int cmd_compare(int argc, char **argv)
{
    Loader l;
    memset(&l, 0, sizeof(l));
    settle_default_settings(&l.s);
    CompareArgs a = { .group = -1, .min_effect_text = "0" };
    settle_compare_default_settings(&a.cs);
    Group ga = { .name = "baseline" }, gb = { .name = "candidate" };
    OutGuard guard = { 0 };
    int ret = parse_args(&l, &a, argc, argv);
    if (ret == ARGS_HELP) {
        ret = 0;
        goto end;
    }
    if (ret || (ret = check_outputs(&a, &guard)))
        goto end;
    settle_codec_log_level(l.verbose > 1 ? SETTLE_LOG_WARNING : l.verbose ? SETTLE_LOG_ERROR : -1);
    cli_catch_signals();

    for (int g = 0; g < 2; g++)
        for (size_t i = 0; i < a.nitems[g] && !ret; i++)
            ret = load_item(&l, g ? &gb : &ga, a.items[g][i]);
    if (!ret)
        ret = analyse_pending(&l);
    if (!ret) {
        gap_slots(&ga, &gb, &a);
        CompareOut co = { a.markdown, a.json, a.plot, a.plot_script, a.by, a.quiet };
        ret = compare_and_write(&ga, &gb, a.any_metric ? a.want_metric : NULL, &a.cs,
                                a.min_effect_text, &co);
    }
end:
    out_guard_free(&guard);
    free(l.pending);
    if (cli_stop)
        ret = EXIT_SIGNAL;
    group_free(&ga);
    group_free(&gb);
    free(a.items[0]);
    free(a.items[1]);
    return ret;
}
