/* SPDX-License-Identifier: BSD-2-Clause */
/* Comparing two groups of results: which results count for a metric, and
 * each metric's comparison. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settle/compare.h"

SettleCount settle_result_counts(const SettleResultInfo *g, size_t n, size_t i, int m,
                                 size_t *first)
{
    if (!g || i >= n || m < 0 || m >= SETTLE_NB_SLOTS)
        return SETTLE_NOT_COUNTED_NO_VALUE;
    const char *in = g[i].input ? g[i].input : "";
    for (size_t j = 0; j < i; j++) {
        if (!strcmp(g[j].input ? g[j].input : "", in)) {
            if (first)
                *first = j;
            return SETTLE_NOT_COUNTED_DUPLICATE;
        }
    }
    if (!g[i].status || strcmp(g[i].status, "stable"))
        return SETTLE_NOT_COUNTED_STATUS;
    if (g[i].partial)
        return SETTLE_NOT_COUNTED_PARTIAL;
    if (!isfinite(g[i].value[m]))
        return SETTLE_NOT_COUNTED_NO_VALUE;
    return SETTLE_COUNTED;
}

static int present(const SettleResultInfo *g, size_t n, int m)
{
    for (size_t i = 0; i < n; i++)
        if (g[i].present[m])
            return 1;
    return 0;
}

/* The counted values of metric m, and how many did not count. */
static double *counted(const SettleResultInfo *g, size_t n, int m, size_t *nv, size_t *nx)
{
    double *v = malloc((n ? n : 1) * sizeof(*v));
    *nv = *nx = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (settle_result_counts(g, n, i, m, NULL) == SETTLE_COUNTED)
            v[(*nv)++] = g[i].value[m];
        else
            (*nx)++;
    }
    return v;
}

int settle_compare_results(const SettleResultInfo *a, size_t na, const SettleResultInfo *b,
                           size_t nb, const int *want, const SettleCompareSettings *s,
                           SettleMetricComparison *out, int *nout)
{
    if ((na && !a) || (nb && !b) || !s || !out || !nout)
        return SETTLE_ERR_INVAL;
    *nout = 0;
    for (int m = 0; m < SETTLE_NB_SLOTS; m++) {
        int pa = present(a, na, m), pb = present(b, nb, m);
        /* gap slots are asked for by settle_results_set_gaps */
        if ((m < SETTLE_NB_METRICS && want) ? !want[m] : !(pa || pb))
            continue;
        SettleMetricComparison *mc = &out[(*nout)++];
        memset(mc, 0, sizeof(*mc));
        mc->metric = m;
        if (m >= SETTLE_NB_METRICS) {
            int k = m - SETTLE_NB_METRICS;
            mc->gap_name = na ? a[0].gap_name[k] : nb ? b[0].gap_name[k] : NULL;
            mc->region = na ? a[0].slot_region[k] : nb ? b[0].slot_region[k] : 0;
            if (!mc->gap_name)
                mc->gap_name = "?";
        }
        mc->compared = pa && pb;
        if (!mc->compared) {
            mc->only_in = pa ? 1 : pb ? 2 : 0;
            continue;
        }
        size_t ca, cb;
        double *va = counted(a, na, m, &ca, &mc->not_counted[0]);
        double *vb = counted(b, nb, m, &cb, &mc->not_counted[1]);
        int ret = va && vb ? settle_compare(va, ca, vb, cb, s, &mc->cmp) : SETTLE_ERR_NOMEM;
        free(va);
        free(vb);
        if (ret < 0)
            return ret;
    }
    return 0;
}

/* The distinct mark names (regions = 0) or region names (1) of both groups,
 * in the order first seen, at most max. */
static int distinct_names(const SettleResultInfo *a, size_t na, const SettleResultInfo *b,
                          size_t nb, int regions, const char **names, int max)
{
    const SettleResultInfo *g[2] = { a, b };
    size_t n[2] = { na, nb };
    int k = 0;
    for (int x = 0; x < 2; x++) {
        for (size_t i = 0; g[x] && i < n[x]; i++) {
            int count = regions ? g[x][i].nregions : g[x][i].nmarks;
            char *const *list = regions ? g[x][i].region_name : g[x][i].mark_name;
            for (int j = 0; j < count && k < max; j++) {
                int seen = 0;
                for (int q = 0; q < k && !seen; q++)
                    seen = !strcmp(names[q], list[j]);
                if (!seen)
                    names[k++] = list[j];
            }
        }
    }
    return k;
}

int settle_results_gap_names(const SettleResultInfo *a, size_t na, const SettleResultInfo *b,
                             size_t nb, const char **names, int max)
{
    return distinct_names(a, na, b, nb, 0, names, max);
}

int settle_results_set_gaps(SettleResultInfo *g, size_t n, const char *const *names, int nnames)
{
    if ((n && !g) || nnames < 0 || nnames > SETTLE_MAX_GAPS || (nnames && !names))
        return SETTLE_ERR_INVAL;
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < SETTLE_MAX_GAPS; k++) {
            int m = SETTLE_NB_METRICS + k;
            g[i].gap_name[k] = k < nnames ? names[k] : NULL;
            g[i].slot_region[k] = 0;
            g[i].present[m] = 0;
            g[i].value[m] = NAN;
            for (int j = 0; k < nnames && j < g[i].nmarks && !g[i].present[m]; j++) {
                if (strcmp(g[i].mark_name[j], names[k]))
                    continue;
                g[i].present[m] = 1;
                g[i].value[m] = g[i].mark_gap[j];
            }
        }
    }
    return 0;
}

int settle_results_region_names(const SettleResultInfo *a, size_t na, const SettleResultInfo *b,
                                size_t nb, const char **names, int max)
{
    return distinct_names(a, na, b, nb, 1, names, max);
}

int settle_results_set_regions(SettleResultInfo *g, size_t n, const char *const *names,
                               int nnames, int first)
{
    if ((n && !g) || nnames < 0 || first < 0 || first + nnames > SETTLE_MAX_GAPS ||
        (nnames && !names))
        return SETTLE_ERR_INVAL;
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < nnames; k++) {
            int s = first + k, m = SETTLE_NB_METRICS + s;
            g[i].gap_name[s] = names[k];
            g[i].slot_region[s] = 1;
            g[i].present[m] = 0;
            g[i].value[m] = NAN;
            for (int j = 0; j < g[i].nregions && !g[i].present[m]; j++) {
                if (strcmp(g[i].region_name[j], names[k]))
                    continue;
                g[i].present[m] = 1;
                g[i].value[m] = g[i].region_load[j];
            }
        }
    }
    return 0;
}

const char *settle_comparison_name(const SettleMetricComparison *m, char *buf, size_t len)
{
    if (m->metric < SETTLE_NB_METRICS)
        snprintf(buf, len, "%s", settle_metric_name(m->metric));
    else
        snprintf(buf, len, "%s:%s", m->region ? "region" : "gap", m->gap_name ? m->gap_name : "?");
    return buf;
}

int settle_results_settings_kinds(const SettleResultInfo *a, size_t na, const SettleResultInfo *b,
                                  size_t nb)
{
    const SettleResultInfo *g[2] = { a, b };
    size_t n[2] = { na, nb };
    int kinds = 0;
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < n[k]; i++) {
            const char *s = g[k][i].settings;
            if (!s || !*s)
                continue;
            int seen = 0;
            /* new when no earlier result of either group has it */
            for (int k2 = 0; k2 <= k && !seen; k2++)
                for (size_t j = 0; j < (k2 == k ? i : n[k2]) && !seen; j++)
                    seen = g[k2][j].settings && !strcmp(g[k2][j].settings, s);
            kinds += !seen;
        }
    }
    return kinds;
}
