/* SPDX-License-Identifier: BSD-2-Clause */
/* Comparing two groups of results: which results count for a metric, and
 * each metric's comparison. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "settle/compare.h"

SettleCount settle_result_counts(const SettleResultInfo *g, size_t n, size_t i, int m,
                                 size_t *first)
{
    if (!g || i >= n || m < 0 || m >= SETTLE_NB_METRICS)
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
    for (int m = 0; m < SETTLE_NB_METRICS; m++) {
        int pa = present(a, na, m), pb = present(b, nb, m);
        if (want ? !want[m] : !(pa || pb))
            continue;
        SettleMetricComparison *mc = &out[(*nout)++];
        memset(mc, 0, sizeof(*mc));
        mc->metric = m;
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
