/* SPDX-License-Identifier: BSD-2-Clause */
/* The report of settle compare: text for the terminal, Markdown for a CI
 * comment, JSON Lines for automation. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "settle/compare.h"

static const char *source(const SettleReportGroup *g, size_t i)
{
    return g->sources && g->sources[i] ? g->sources[i] : g->results[i].input;
}

static int mixed(const SettleReport *r)
{
    return r->settings_kinds > 1 ? r->settings_kinds : 0;
}

const char *settle_report_not_counted(const SettleReportGroup *g, size_t i, int metric, char *buf,
                                      size_t len)
{
    size_t first = 0;
    const SettleResultInfo *e = &g->results[i];
    switch (settle_result_counts(g->results, g->n, i, metric, &first)) {
    case SETTLE_COUNTED:
        return NULL;
    case SETTLE_NOT_COUNTED_DUPLICATE:
        snprintf(buf, len, "the same input as %s, counted once", source(g, first));
        break;
    case SETTLE_NOT_COUNTED_STATUS:
        snprintf(buf, len, "%s%s%s", e->status, e->error ? ": " : "", e->error ? e->error : "");
        break;
    case SETTLE_NOT_COUNTED_PARTIAL:
        snprintf(buf, len, "partial%s%s", e->error ? ": " : "", e->error ? e->error : "");
        break;
    default:
        if (metric < SETTLE_NB_METRICS)
            snprintf(buf, len, "no %s", settle_metric_name(metric));
        else if (e->slot_region[metric - SETTLE_NB_METRICS])
            snprintf(buf, len, "the region %s has no load time",
                     e->gap_name[metric - SETTLE_NB_METRICS] ? e->gap_name[metric - SETTLE_NB_METRICS] : "?");
        else
            snprintf(buf, len, "no gap to the mark %s",
                     e->gap_name[metric - SETTLE_NB_METRICS] ? e->gap_name[metric - SETTLE_NB_METRICS] : "?");
    }
    return buf;
}

static const char *unit(int metric)
{
    return metric == 3 ? "" : " s"; /* speed_index has no unit of time */
}

static void num(char *buf, size_t len, double x, const char *u, int sign)
{
    if (!isfinite(x))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, sign ? "%+.3f%s" : "%.3f%s", x, u);
}

static void pval(char *buf, size_t len, double p)
{
    if (!isfinite(p))
        snprintf(buf, len, "-");
    else if (p < 0.0001)
        snprintf(buf, len, "%.1e", p);
    else
        snprintf(buf, len, "%.4f", p);
}

/* One sentence: why this verdict. */
static void why(char *buf, size_t len, const SettleReport *r, const SettleMetricComparison *m)
{
    const SettleComparison *c = &m->cmp;
    const char *u = unit(m->metric);
    switch (c->verdict) {
    case SETTLE_VERDICT_REGRESSION:
        snprintf(buf, len, "p < %g and the whole interval lies above +%.3f%s", r->settings->alpha,
                 c->min_effect, u);
        break;
    case SETTLE_VERDICT_IMPROVEMENT:
        snprintf(buf, len, "p < %g and the whole interval lies below -%.3f%s", r->settings->alpha,
                 c->min_effect, u);
        break;
    case SETTLE_VERDICT_NO_CHANGE:
        if (!(c->p_value < r->settings->alpha))
            snprintf(buf, len, "p >= %g: the groups are not told apart", r->settings->alpha);
        else
            snprintf(buf, len, "p < %g, but the interval is not clear of +/-%.3f%s",
                     r->settings->alpha, c->min_effect, u);
        break;
    default:
        snprintf(buf, len, "a verdict needs at least %d values in each group", r->settings->min_n);
    }
}

static void group_line(FILE *f, const char *name, const SettleSummary *s, int metric)
{
    char v[7][32];
    const double x[7] = { s->median, s->mean, s->sd, s->min, s->max, s->p90 };
    for (int i = 0; i < 6; i++)
        num(v[i], sizeof(v[i]), x[i], "", 0);
    (void)metric;
    fprintf(f, "  %-18s %5zu %9s %9s %9s %9s %9s %9s\n", name, s->n, v[0], v[1], v[2], v[3],
            v[4], v[5]);
}

static void status_counts(FILE *f, const SettleReportGroup *g)
{
    const char *names[] = { "stable", "not_stable", "no_start", "partial", "interrupted", "failed" };
    fprintf(f, "%-10s %zu result%s", g->name, g->n, g->n == 1 ? "" : "s");
    const char *sep = ": ";
    for (size_t k = 0; k < sizeof(names) / sizeof(*names); k++) {
        size_t c = 0;
        for (size_t i = 0; i < g->n; i++)
            c += !strcmp(g->results[i].status, names[k]);
        if (c) {
            fprintf(f, "%s%zu %s", sep, c, names[k]);
            sep = ", ";
        }
    }
    size_t dup = 0;
    for (size_t i = 0; i < g->n; i++)
        dup += settle_result_counts(g->results, g->n, i, 0, NULL) == SETTLE_NOT_COUNTED_DUPLICATE;
    if (dup)
        fprintf(f, "%s%zu duplicate%s", sep, dup, dup == 1 ? "" : "s");
    fputc('\n', f);
}

/* Every entry that some metric did not count, with the first reason. */
static void list_not_counted(FILE *f, const SettleReport *r, int md)
{
    int header = 0;
    const SettleReportGroup *gs[2] = { &r->group[0], &r->group[1] };
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < gs[k]->n; i++) {
            char buf[512];
            const char *why_not = NULL;
            for (int j = 0; j < r->nm && !why_not; j++)
                if (r->m[j].compared)
                    why_not = settle_report_not_counted(gs[k], i, r->m[j].metric, buf, sizeof(buf));
            if (!why_not)
                continue;
            if (!header)
                fprintf(f, md ? "\n**Not counted:**\n\n" : "\nnot counted:\n");
            header = 1;
            fprintf(f, md ? "- %s `%s`: %s\n" : "  %-10s %s: %s\n", gs[k]->name,
                    source(gs[k], i), why_not);
        }
    }
}

/* The smallest two-sided p-value of the exact Mann-Whitney test with na and
 * nb values: both orderings at the extremes, 2 / C(na + nb, na). */
static double smallest_p(size_t na, size_t nb)
{
    if (!na || !nb)
        return 1;
    double c = 1;
    for (size_t i = 1; i <= na && c < 1e300; i++)
        c = c * (double)(nb + i) / (double)i;
    return c < 2 ? 1 : 2 / c;
}

/* Appends to buf at *at what fits. */
static void add(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    if (*at >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    if (n > 0)
        *at = *at + (size_t)n < len ? *at + (size_t)n : len;
}

static void effect(char *buf, size_t len, size_t *at, const SettleMetricComparison *m)
{
    char d[32];
    num(d, sizeof(d), m->cmp.difference, unit(m->metric), 1);
    char nbuf[300];
    add(buf, len, at, "%s %s", settle_comparison_name(m, nbuf, sizeof(nbuf)), d);
    if (isfinite(m->cmp.relative))
        add(buf, len, at, " (%+.1f %%)", 100 * m->cmp.relative);
}

int settle_report_verdict(const SettleReport *r, char *buf, size_t len)
{
    int reg = 0, imp = 0, compared = 0;
    const SettleMetricComparison *few = NULL, *absent = NULL;
    for (int j = 0; j < r->nm; j++) {
        const SettleMetricComparison *m = &r->m[j];
        if (!m->compared) {
            if (r->metrics_named && !absent)
                absent = m;
            continue;
        }
        compared++;
        reg += m->cmp.verdict == SETTLE_VERDICT_REGRESSION;
        imp += m->cmp.verdict == SETTLE_VERDICT_IMPROVEMENT;
        if (m->cmp.verdict == SETTLE_VERDICT_TOO_FEW && !few)
            few = m;
    }
    size_t at = 0;
    if (len)
        buf[0] = 0;
    if (reg) {
        add(buf, len, &at, "regression:");
        for (int j = 0, k = 0; j < r->nm; j++) {
            if (!r->m[j].compared || r->m[j].cmp.verdict != SETTLE_VERDICT_REGRESSION)
                continue;
            add(buf, len, &at, k++ ? ", " : " ");
            effect(buf, len, &at, &r->m[j]);
        }
        return 1;
    }
    if (few) {
        size_t na = few->cmp.baseline.n, nb = few->cmp.candidate.n;
        char p[32], nbuf[300];
        pval(p, sizeof(p), smallest_p(na, nb));
        add(buf, len, &at, "too few to tell: %s has %zu baseline and %zu candidate values, "
            "fewer than %d", settle_comparison_name(few, nbuf, sizeof(nbuf)), na, nb,
            r->settings->min_n);
        if (na && nb)
            add(buf, len, &at, "; with %zu and %zu values the smallest p-value is %s (alpha %g)",
                na, nb, p, r->settings->alpha);
        else
            add(buf, len, &at, "; no test is possible without values in both groups");
        return 2;
    }
    if (absent || !compared) {
        char nbuf[300];
        if (absent)
            add(buf, len, &at, "too few to tell: %s is not in both groups' results",
                settle_comparison_name(absent, nbuf, sizeof(nbuf)));
        else
            add(buf, len, &at, "too few to tell: no metric is in both groups' results");
        return 2;
    }
    add(buf, len, &at, "no regression");
    if (imp) {
        add(buf, len, &at, "; improvement:");
        for (int j = 0, k = 0; j < r->nm; j++) {
            if (!r->m[j].compared || r->m[j].cmp.verdict != SETTLE_VERDICT_IMPROVEMENT)
                continue;
            add(buf, len, &at, k++ ? ", " : " ");
            effect(buf, len, &at, &r->m[j]);
        }
    }
    return 0;
}

/* The labels of the results of groups gs[0 .. ng-1]: an object whose keys are
 * the label keys in the order met, each an array of its distinct values. */
static cJSON *collect_labels(const SettleReportGroup *const *gs, int ng)
{
    cJSON *acc = cJSON_CreateObject();
    for (int k = 0; acc && k < ng; k++) {
        for (size_t i = 0; i < gs[k]->n; i++) {
            const char *text = gs[k]->results[i].labels;
            cJSON *o = text && *text ? cJSON_Parse(text) : NULL;
            if (text && *text && !o)
                goto fail;
            const cJSON *e;
            cJSON_ArrayForEach(e, o)
            {
                if (!cJSON_IsString(e))
                    continue;
                cJSON *vals = cJSON_GetObjectItemCaseSensitive(acc, e->string);
                if (!vals && !(vals = cJSON_AddArrayToObject(acc, e->string))) {
                    cJSON_Delete(o);
                    goto fail;
                }
                int seen = 0;
                const cJSON *v;
                cJSON_ArrayForEach(v, vals) seen |= !strcmp(v->valuestring, e->valuestring);
                if (!seen && !cJSON_AddItemToArray(vals, cJSON_CreateString(e->valuestring))) {
                    cJSON_Delete(o);
                    goto fail;
                }
            }
            cJSON_Delete(o);
        }
    }
    return acc;
fail:
    cJSON_Delete(acc);
    return NULL;
}

int settle_report_labels(const SettleReportGroup *g, char *buf, size_t len)
{
    cJSON *acc = collect_labels(&g, 1);
    if (!acc)
        return SETTLE_ERR_NOMEM;
    size_t at = 0;
    int n = 0;
    if (len)
        buf[0] = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, acc)
    {
        add(buf, len, &at, "%s%s=", n++ ? ", " : "", e->string);
        int k = 0;
        const cJSON *v;
        cJSON_ArrayForEach(v, e) add(buf, len, &at, "%s%s", k++ ? "|" : "", v->valuestring);
    }
    cJSON_Delete(acc);
    return n;
}

int settle_report_pooled(const SettleReport *r, char *buf, size_t len)
{
    static const char *const test_keys[] = { "page", "url", "app", "device", "test", "scenario" };
    const SettleReportGroup *gs[2] = { &r->group[0], &r->group[1] };
    cJSON *acc = collect_labels(gs, 2);
    if (!acc)
        return SETTLE_ERR_NOMEM;
    size_t at = 0;
    int pooled = 0;
    if (len)
        buf[0] = 0;
    for (size_t i = 0; i < sizeof(test_keys) / sizeof(*test_keys); i++) {
        const cJSON *vals = cJSON_GetObjectItemCaseSensitive(acc, test_keys[i]);
        if (cJSON_GetArraySize(vals) < 2)
            continue;
        add(buf, len, &at, "%s%s: ", pooled++ ? "; " : "", test_keys[i]);
        int k = 0;
        const cJSON *v;
        cJSON_ArrayForEach(v, vals) add(buf, len, &at, "%s%s", k++ ? ", " : "", v->valuestring);
    }
    cJSON_Delete(acc);
    return pooled > 0;
}

int settle_report_verdict_by(const SettleReport *r, int n, char *buf, size_t len)
{
    int worst = 0, count[3] = { 0, 0, 0 };
    char one[1024];
    for (int i = 0; i < n; i++) {
        int v = settle_report_verdict(&r[i], one, sizeof(one));
        count[v]++;
        worst = v == 1 || worst == 1 ? 1 : v == 2 || worst == 2 ? 2 : 0;
    }
    const char *key = n && r[0].by_key ? r[0].by_key : "";
    size_t at = 0;
    if (len)
        buf[0] = 0;
    if (!worst) {
        add(buf, len, &at, "no regression in %d group%s by %s", n, n == 1 ? "" : "s", key);
        return 0;
    }
    add(buf, len, &at, "%s in %d of %d groups by %s", worst == 1 ? "regression" : "too few to tell",
        count[worst], n, key);
    for (int i = 0; i < n; i++) {
        if (settle_report_verdict(&r[i], one, sizeof(one)) != worst)
            continue;
        /* "page=home: load_time +0.350 s" after the word the line began with */
        const char *colon = strchr(one, ':');
        add(buf, len, &at, "; %s=%s:%s", key, r[i].by_value ? r[i].by_value : "",
            colon ? colon + 1 : "");
    }
    return worst;
}

/* The labels of both sides, and whether different tests are pooled, in text
 * or Markdown. Returns the number of lines written. */
static int labels_lines(FILE *f, const SettleReport *r, int md)
{
    int lines = 0;
    for (int k = 0; k < 2; k++) {
        char l[1024];
        if (settle_report_labels(&r->group[k], l, sizeof(l)) > 0 && ++lines)
            fprintf(f, md ? "%s labels: `%s`  \n" : "%-10s labels: %s\n",
                    md ? (k ? "Candidate" : "Baseline") : r->group[k].name, l);
    }
    char p[1024];
    if (!r->by_key && settle_report_pooled(r, p, sizeof(p)) > 0 && ++lines)
        fprintf(f, md ? "**Warning:** results of different tests are pooled (%s); compare them "
                        "per group with `--by KEY`.\n"
                      : "warning: results of different tests are pooled (%s); compare them per "
                        "group with --by KEY\n",
                p);
    return lines;
}

int settle_write_report_text(const SettleReport *r, FILE *f)
{
    char headline[1024];
    settle_report_verdict(r, headline, sizeof(headline));
    if (r->by_key)
        fprintf(f, "%s=%s: ", r->by_key, r->by_value ? r->by_value : "");
    fprintf(f, "verdict: %s\n", headline);
    labels_lines(f, r, 0);
    status_counts(f, (&r->group[0]));
    status_counts(f, (&r->group[1]));
    if (mixed(r))
        fprintf(f, "warning: the results were analysed with %d different settings\n",
                mixed(r));
    for (int j = 0; j < r->nm; j++) {
        const SettleMetricComparison *m = &r->m[j];
        char nbuf[300];
        const char *name = settle_comparison_name(m, nbuf, sizeof(nbuf));
        if (!m->compared) {
            fprintf(f, "\n%s: not compared, %s\n", name,
                    m->only_in == 1   ? "only in the baseline's results"
                    : m->only_in == 2 ? "only in the candidate's results"
                                      : "in neither group's results");
            continue;
        }
        const SettleComparison *c = &m->cmp;
        const char *u = unit(m->metric);
        if (strlen(name) > 20) { /* a mark's gap: the name on its own line */
            fprintf(f, "\n%s", name);
            name = "";
        }
        fprintf(f, "\n%-20s %5s %9s %9s %9s %9s %9s %9s\n", name, "n", "median", "mean", "sd",
                "min", "max", "p90");
        group_line(f, "baseline", &c->baseline, m->metric);
        group_line(f, "candidate", &c->candidate, m->metric);
        size_t xa = m->not_counted[0], xb = m->not_counted[1];
        if (xa || xb)
            fprintf(f, "  not counted: %zu baseline, %zu candidate (listed below)\n", xa, xb);
        char d[32], lo[32], hi[32], p[32], w[256];
        if (c->verdict != SETTLE_VERDICT_TOO_FEW) {
            num(d, sizeof(d), c->difference, u, 1);
            num(lo, sizeof(lo), c->ci_low, "", 1);
            num(hi, sizeof(hi), c->ci_high, "", 1);
            pval(p, sizeof(p), c->p_value);
            fprintf(f, "  difference of medians %s", d);
            if (isfinite(c->relative))
                fprintf(f, " (%+.1f %%)", 100 * c->relative);
            fprintf(f, ", %g %% CI [%s, %s]%s\n", 100 * r->settings->level, lo, hi, u);
            fprintf(f, "  Mann-Whitney U = %.1f, p = %s (%s)\n", c->u, p,
                    c->exact ? "exact" : "normal approximation");
        }
        why(w, sizeof(w), r, m);
        fprintf(f, "  verdict: %s (%s)\n", settle_verdict_name(c->verdict), w);
    }
    list_not_counted(f, r, 0);
    return ferror(f) ? SETTLE_ERR_IO : 0;
}

int settle_write_report_markdown(const SettleReport *r, FILE *f)
{
    char headline[1024];
    settle_report_verdict(r, headline, sizeof(headline));
    if (r->by_key)
        fprintf(f, "#### %s=%s: %s\n\n", r->by_key, r->by_value ? r->by_value : "", headline);
    else
        fprintf(f, "### settle compare: %s\n\n", headline);
    if (labels_lines(f, r, 1))
        fputc('\n', f);
    fprintf(f, "| metric | baseline median (n) | candidate median (n) | difference | %g %% CI | p | verdict |\n",
            100 * r->settings->level);
    fprintf(f, "|---|---|---|---|---|---|---|\n");
    for (int j = 0; j < r->nm; j++) {
        const SettleMetricComparison *m = &r->m[j];
        char nbuf[300];
        const char *name = settle_comparison_name(m, nbuf, sizeof(nbuf));
        if (!m->compared) {
            fprintf(f, "| %s | | | | | | not compared (%s) |\n", name,
                    m->only_in == 1   ? "only in the baseline"
                    : m->only_in == 2 ? "only in the candidate"
                                      : "in neither group");
            continue;
        }
        const SettleComparison *c = &m->cmp;
        const char *u = unit(m->metric);
        char ma[32], mb[32], d[32], lo[32], hi[32], p[32];
        num(ma, sizeof(ma), c->baseline.median, u, 0);
        num(mb, sizeof(mb), c->candidate.median, u, 0);
        num(d, sizeof(d), c->difference, u, 1);
        num(lo, sizeof(lo), c->ci_low, "", 1);
        num(hi, sizeof(hi), c->ci_high, "", 1);
        pval(p, sizeof(p), c->p_value);
        char rel[32] = "";
        if (isfinite(c->relative))
            snprintf(rel, sizeof(rel), " (%+.1f %%)", 100 * c->relative);
        const char *v = settle_verdict_name(c->verdict);
        fprintf(f, "| %s | %s (%zu) | %s (%zu) | %s%s | [%s, %s] | %s | %s%s%s |\n", name, ma,
                c->baseline.n, mb, c->candidate.n, d, rel, lo, hi, p,
                c->verdict == SETTLE_VERDICT_REGRESSION ? "**" : "", v,
                c->verdict == SETTLE_VERDICT_REGRESSION ? "**" : "");
    }
    fprintf(f, "\n<details><summary>Groups</summary>\n\n");
    fprintf(f, "| metric | group | n | median | mean | sd | min | max | p90 |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|\n");
    for (int j = 0; j < r->nm; j++) {
        const SettleMetricComparison *m = &r->m[j];
        if (!m->compared)
            continue;
        const SettleSummary *ss[2] = { &m->cmp.baseline, &m->cmp.candidate };
        char nbuf[300];
        for (int k = 0; k < 2; k++) {
            char v[6][32];
            const double x[6] = { ss[k]->median, ss[k]->mean, ss[k]->sd, ss[k]->min, ss[k]->max, ss[k]->p90 };
            for (int i = 0; i < 6; i++)
                num(v[i], sizeof(v[i]), x[i], "", 0);
            fprintf(f, "| %s | %s | %zu | %s | %s | %s | %s | %s | %s |\n",
                    settle_comparison_name(m, nbuf, sizeof(nbuf)), k ? "candidate" : "baseline",
                    ss[k]->n, v[0],
                    v[1], v[2], v[3], v[4], v[5]);
        }
    }
    fprintf(f, "\n</details>\n");
    list_not_counted(f, r, 1);
    fprintf(f, "\nVerdict: regression when the Mann-Whitney p < %g and the whole %g %% bootstrap "
               "interval of the difference of medians lies above the minimum effect (%s); "
               "improvement likewise below its negative.\n",
            r->settings->alpha, 100 * r->settings->level, r->min_effect_text);
    if (mixed(r))
        fprintf(f, "\n**Warning:** the results were analysed with %d different settings.\n",
                mixed(r));
    return ferror(f) ? SETTLE_ERR_IO : 0;
}

static cJSON *number(double x, int digits)
{
    if (!isfinite(x))
        return cJSON_CreateNull();
    double k = pow(10, digits);
    return cJSON_CreateNumber(digits ? round(x * k) / k : x);
}

/* A group's labels for the JSON: each key with its value, or the list of its
 * values when they differ. NULL when out of memory. */
static cJSON *labels_json(const SettleReportGroup *g)
{
    cJSON *acc = collect_labels(&g, 1);
    cJSON *out = acc ? cJSON_CreateObject() : NULL;
    const cJSON *e;
    cJSON_ArrayForEach(e, acc)
    {
        cJSON *v = cJSON_GetArraySize(e) == 1 ? cJSON_CreateString(e->child->valuestring)
                                              : cJSON_Duplicate(e, 1);
        if (!out || !v || !cJSON_AddItemToObject(out, e->string, v)) {
            cJSON_Delete(v);
            cJSON_Delete(out);
            out = NULL;
            break;
        }
    }
    cJSON_Delete(acc);
    return out;
}

static cJSON *group_json(const SettleReportGroup *g, const SettleSummary *s, int metric)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    int bad = !cJSON_AddNumberToObject(o, "n", (double)s->n);
    const char *keys[] = { "median", "mean", "sd", "min", "max", "p90" };
    const double x[] = { s->median, s->mean, s->sd, s->min, s->max, s->p90 };
    for (int i = 0; i < 6; i++)
        bad |= !cJSON_AddItemToObject(o, keys[i], number(x[i], 6));
    bad |= !cJSON_AddNumberToObject(o, "results", (double)g->n);
    bad |= !cJSON_AddItemToObject(o, "labels", labels_json(g));
    cJSON *nc = cJSON_AddArrayToObject(o, "not_counted");
    bad |= !nc;
    for (size_t i = 0; nc && i < g->n; i++) {
        char buf[512];
        const char *why_not = settle_report_not_counted(g, i, metric, buf, sizeof(buf));
        if (!why_not)
            continue;
        cJSON *e = cJSON_CreateObject();
        bad |= !e || !cJSON_AddItemToArray(nc, e);
        if (e) {
            bad |= !cJSON_AddStringToObject(e, "source", source(g, i));
            bad |= !cJSON_AddStringToObject(e, "input", g->results[i].input);
            bad |= !cJSON_AddStringToObject(e, "status", g->results[i].status);
            bad |= !cJSON_AddStringToObject(e, "reason", why_not);
        }
    }
    if (bad) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int settle_write_report_json(const SettleReport *r, FILE *f)
{
    for (int j = 0; j < r->nm; j++) {
        const SettleMetricComparison *m = &r->m[j];
        const SettleComparison *c = &m->cmp;
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return SETTLE_ERR_NOMEM;
        char nbuf[300];
        int bad = !cJSON_AddStringToObject(o, "metric", settle_comparison_name(m, nbuf, sizeof(nbuf)));
        if (r->by_key) {
            cJSON *by = cJSON_AddObjectToObject(o, "labels");
            bad |= !by || !cJSON_AddStringToObject(by, r->by_key, r->by_value ? r->by_value : "");
        }
        if (!m->compared) {
            bad |= !cJSON_AddStringToObject(o, "verdict", "not compared");
            bad |= !(m->only_in ? cJSON_AddStringToObject(o, "only_in", m->only_in == 1 ? "baseline" : "candidate")
                                : cJSON_AddNullToObject(o, "only_in"));
        } else {
            cJSON *ga = group_json((&r->group[0]), &c->baseline, m->metric);
            cJSON *gb = group_json((&r->group[1]), &c->candidate, m->metric);
            bad |= !ga || !cJSON_AddItemToObject(o, "baseline", ga);
            bad |= !gb || !cJSON_AddItemToObject(o, "candidate", gb);
            bad |= !cJSON_AddItemToObject(o, "difference", number(c->difference, 6));
            bad |= !cJSON_AddItemToObject(o, "relative", number(c->relative, 6));
            cJSON *ci = cJSON_AddArrayToObject(o, "ci95");
            bad |= !ci || !cJSON_AddItemToArray(ci, number(c->ci_low, 6)) ||
                   !cJSON_AddItemToArray(ci, number(c->ci_high, 6));
            bad |= !cJSON_AddItemToObject(o, "ci_level", number(r->settings->level, 0));
            bad |= !cJSON_AddItemToObject(o, "u", number(c->u, 0));
            bad |= !cJSON_AddItemToObject(o, "p_value", number(c->p_value, 0));
            bad |= !cJSON_AddBoolToObject(o, "p_exact", c->verdict != SETTLE_VERDICT_TOO_FEW && c->exact);
            bad |= !cJSON_AddItemToObject(o, "min_effect", number(c->min_effect, 6));
            bad |= !cJSON_AddItemToObject(o, "alpha", number(r->settings->alpha, 0));
            bad |= !cJSON_AddStringToObject(o, "verdict", settle_verdict_name(c->verdict));
        }
        char *text = bad ? NULL : cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        if (!text)
            return SETTLE_ERR_NOMEM;
        int werr = fputs(text, f) < 0 || fputc('\n', f) == EOF;
        cJSON_free(text);
        if (werr)
            return SETTLE_ERR_IO;
    }
    return 0;
}
