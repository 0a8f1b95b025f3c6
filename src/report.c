/* SPDX-License-Identifier: BSD-2-Clause */
/* The report of settle compare: text for the terminal, Markdown for a CI
 * comment, JSON Lines for automation. */
#include <math.h>
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

int settle_write_report_text(const SettleReport *r, FILE *f)
{
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
    int reg = 0;
    for (int j = 0; j < r->nm; j++)
        reg |= r->m[j].compared && r->m[j].cmp.verdict == SETTLE_VERDICT_REGRESSION;
    fprintf(f, "### settle compare: %s\n\n", reg ? "regression" : "no regression");
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
