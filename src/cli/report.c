/* SPDX-License-Identifier: BSD-2-Clause */
/* The report of settle compare: text for the terminal, Markdown for a CI
 * comment, JSON Lines for automation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "compare.h"

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
static void why(char *buf, size_t len, const Report *r, const SettleMetricComparison *m)
{
    const SettleComparison *c = &m->cmp;
    const char *u = unit(m->metric);
    switch (c->verdict) {
    case SETTLE_VERDICT_REGRESSION:
        snprintf(buf, len, "p < %g and the whole interval lies above +%.3f%s", r->cs->alpha,
                 c->min_effect, u);
        break;
    case SETTLE_VERDICT_IMPROVEMENT:
        snprintf(buf, len, "p < %g and the whole interval lies below -%.3f%s", r->cs->alpha,
                 c->min_effect, u);
        break;
    case SETTLE_VERDICT_NO_CHANGE:
        if (!(c->p_value < r->cs->alpha))
            snprintf(buf, len, "p >= %g: the groups are not told apart", r->cs->alpha);
        else
            snprintf(buf, len, "p < %g, but the interval is not clear of +/-%.3f%s",
                     r->cs->alpha, c->min_effect, u);
        break;
    default:
        snprintf(buf, len, "a verdict needs at least %d values in each group", r->cs->min_n);
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

static void status_counts(FILE *f, const Group *g)
{
    const char *names[] = { "stable", "not_stable", "no_start", "partial", "interrupted", "failed" };
    fprintf(f, "%-10s %zu result%s", g->name, g->n, g->n == 1 ? "" : "s");
    const char *sep = ": ";
    for (size_t k = 0; k < sizeof(names) / sizeof(*names); k++) {
        size_t c = 0;
        for (size_t i = 0; i < g->n; i++)
            c += !strcmp(g->info[i].status, names[k]);
        if (c) {
            fprintf(f, "%s%zu %s", sep, c, names[k]);
            sep = ", ";
        }
    }
    size_t dup = 0;
    for (size_t i = 0; i < g->n; i++)
        dup += settle_result_counts(g->info, g->n, i, 0, NULL) == SETTLE_NOT_COUNTED_DUPLICATE;
    if (dup)
        fprintf(f, "%s%zu duplicate%s", sep, dup, dup == 1 ? "" : "s");
    fputc('\n', f);
}

/* Every entry that some metric did not count, with the first reason. */
static void list_not_counted(FILE *f, const Report *r, int md)
{
    int header = 0;
    const Group *gs[2] = { r->a, r->b };
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < gs[k]->n; i++) {
            char buf[512];
            const char *why_not = NULL;
            for (int j = 0; j < r->nm && !why_not; j++)
                if (r->m[j].compared)
                    why_not = entry_excluded(gs[k], i, r->m[j].metric, buf, sizeof(buf));
            if (!why_not)
                continue;
            if (!header)
                fprintf(f, md ? "\n**Not counted:**\n\n" : "\nnot counted:\n");
            header = 1;
            fprintf(f, md ? "- %s `%s`: %s\n" : "  %-10s %s: %s\n", gs[k]->name,
                    gs[k]->source[i], why_not);
        }
    }
}

void report_text(FILE *f, const Report *r)
{
    status_counts(f, r->a);
    status_counts(f, r->b);
    if (r->mixed_settings)
        fprintf(f, "warning: the results were analysed with %d different settings\n",
                r->mixed_settings);
    for (int j = 0; j < r->nm; j++) {
        const SettleMetricComparison *m = &r->m[j];
        const char *name = settle_metric_name(m->metric);
        if (!m->compared) {
            fprintf(f, "\n%s: not compared, %s\n", name,
                    m->only_in == 1   ? "only in the baseline's results"
                    : m->only_in == 2 ? "only in the candidate's results"
                                      : "in neither group's results");
            continue;
        }
        const SettleComparison *c = &m->cmp;
        const char *u = unit(m->metric);
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
            fprintf(f, ", %g %% CI [%s, %s]%s\n", 100 * r->cs->level, lo, hi, u);
            fprintf(f, "  Mann-Whitney U = %.1f, p = %s (%s)\n", c->u, p,
                    c->exact ? "exact" : "normal approximation");
        }
        why(w, sizeof(w), r, m);
        fprintf(f, "  verdict: %s (%s)\n", settle_verdict_name(c->verdict), w);
    }
    list_not_counted(f, r, 0);
}

void report_markdown(FILE *f, const Report *r)
{
    int reg = 0;
    for (int j = 0; j < r->nm; j++)
        reg |= r->m[j].compared && r->m[j].cmp.verdict == SETTLE_VERDICT_REGRESSION;
    fprintf(f, "### settle compare: %s\n\n", reg ? "regression" : "no regression");
    fprintf(f, "| metric | baseline median (n) | candidate median (n) | difference | %g %% CI | p | verdict |\n",
            100 * r->cs->level);
    fprintf(f, "|---|---|---|---|---|---|---|\n");
    for (int j = 0; j < r->nm; j++) {
        const SettleMetricComparison *m = &r->m[j];
        const char *name = settle_metric_name(m->metric);
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
        for (int k = 0; k < 2; k++) {
            char v[6][32];
            const double x[6] = { ss[k]->median, ss[k]->mean, ss[k]->sd, ss[k]->min, ss[k]->max, ss[k]->p90 };
            for (int i = 0; i < 6; i++)
                num(v[i], sizeof(v[i]), x[i], "", 0);
            fprintf(f, "| %s | %s | %zu | %s | %s | %s | %s | %s | %s |\n",
                    settle_metric_name(m->metric), k ? "candidate" : "baseline", ss[k]->n, v[0],
                    v[1], v[2], v[3], v[4], v[5]);
        }
    }
    fprintf(f, "\n</details>\n");
    list_not_counted(f, r, 1);
    fprintf(f, "\nVerdict: regression when the Mann-Whitney p < %g and the whole %g %% bootstrap "
               "interval of the difference of medians lies above the minimum effect (%s); "
               "improvement likewise below its negative.\n",
            r->cs->alpha, 100 * r->cs->level, r->min_effect_text);
    if (r->mixed_settings)
        fprintf(f, "\n**Warning:** the results were analysed with %d different settings.\n",
                r->mixed_settings);
}

static cJSON *number(double x, int digits)
{
    if (!isfinite(x))
        return cJSON_CreateNull();
    double k = pow(10, digits);
    return cJSON_CreateNumber(digits ? round(x * k) / k : x);
}

static cJSON *group_json(const Group *g, const SettleSummary *s, int metric)
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
        const char *why_not = entry_excluded(g, i, metric, buf, sizeof(buf));
        if (!why_not)
            continue;
        cJSON *e = cJSON_CreateObject();
        bad |= !e || !cJSON_AddItemToArray(nc, e);
        if (e) {
            bad |= !cJSON_AddStringToObject(e, "source", g->source[i]);
            bad |= !cJSON_AddStringToObject(e, "input", g->info[i].input);
            bad |= !cJSON_AddStringToObject(e, "status", g->info[i].status);
            bad |= !cJSON_AddStringToObject(e, "reason", why_not);
        }
    }
    if (bad) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int report_json(FILE *f, const Report *r)
{
    for (int j = 0; j < r->nm; j++) {
        const SettleMetricComparison *m = &r->m[j];
        const SettleComparison *c = &m->cmp;
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return -1;
        int bad = !cJSON_AddStringToObject(o, "metric", settle_metric_name(m->metric));
        if (!m->compared) {
            bad |= !cJSON_AddStringToObject(o, "verdict", "not compared");
            bad |= !(m->only_in ? cJSON_AddStringToObject(o, "only_in", m->only_in == 1 ? "baseline" : "candidate")
                                : cJSON_AddNullToObject(o, "only_in"));
        } else {
            cJSON *ga = group_json(r->a, &c->baseline, m->metric);
            cJSON *gb = group_json(r->b, &c->candidate, m->metric);
            bad |= !ga || !cJSON_AddItemToObject(o, "baseline", ga);
            bad |= !gb || !cJSON_AddItemToObject(o, "candidate", gb);
            bad |= !cJSON_AddItemToObject(o, "difference", number(c->difference, 6));
            bad |= !cJSON_AddItemToObject(o, "relative", number(c->relative, 6));
            cJSON *ci = cJSON_AddArrayToObject(o, "ci95");
            bad |= !ci || !cJSON_AddItemToArray(ci, number(c->ci_low, 6)) ||
                   !cJSON_AddItemToArray(ci, number(c->ci_high, 6));
            bad |= !cJSON_AddItemToObject(o, "ci_level", number(r->cs->level, 0));
            bad |= !cJSON_AddItemToObject(o, "u", number(c->u, 0));
            bad |= !cJSON_AddItemToObject(o, "p_value", number(c->p_value, 0));
            bad |= !cJSON_AddBoolToObject(o, "p_exact", c->verdict != SETTLE_VERDICT_TOO_FEW && c->exact);
            bad |= !cJSON_AddItemToObject(o, "min_effect", number(c->min_effect, 6));
            bad |= !cJSON_AddItemToObject(o, "alpha", number(r->cs->alpha, 0));
            bad |= !cJSON_AddStringToObject(o, "verdict", settle_verdict_name(c->verdict));
        }
        char *text = bad ? NULL : cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        if (!text)
            return -1;
        int werr = fputs(text, f) < 0 || fputc('\n', f) == EOF;
        cJSON_free(text);
        if (werr)
            return -1;
    }
    return 0;
}
