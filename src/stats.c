/* SPDX-License-Identifier: BSD-2-Clause */
/* Statistics for comparing two groups of captures: summaries, the
 * Mann-Whitney U test, a bootstrap interval of the difference of medians. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "random.h"
#include "settle/stats.h"

#define EXACT_MAX_N 50

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static int all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

double settle_percentile(const double *sorted, size_t n, double p)
{
    if (!n || !(p >= 0 && p <= 1))
        return NAN;
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1)
        return sorted[n - 1];
    return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

int settle_summarize(const double *x, size_t n, SettleSummary *s)
{
    if (!s || (n && !x))
        return SETTLE_ERR_INVAL;
    s->n = n;
    s->median = s->mean = s->sd = s->min = s->max = s->p90 = NAN;
    if (!n)
        return 0;
    if (!all_finite(x, n))
        return SETTLE_ERR_INVAL;
    double *v = malloc(n * sizeof(*v));
    if (!v)
        return SETTLE_ERR_NOMEM;
    memcpy(v, x, n * sizeof(*v));
    qsort(v, n, sizeof(*v), cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    double mean = sum / (double)n;
    if (n > 1) {
        double ss = 0;
        for (size_t i = 0; i < n; i++)
            ss += (v[i] - mean) * (v[i] - mean);
        s->sd = sqrt(ss / (double)(n - 1));
    }
    s->mean = mean;
    s->median = settle_percentile(v, n, 0.5);
    s->p90 = settle_percentile(v, n, 0.9);
    s->min = v[0];
    s->max = v[n - 1];
    free(v);
    return 0;
}

/* Exact two-sided p of the rank sum of b, ties included: the share of the
 * C(n, nb) ways to pick nb of the pooled ranks whose sum lies at least as far
 * from its mean as the observed one. Ranks are doubled (tied values share
 * the doubled mid-rank i + j + 2) so that every sum is an integer, and
 * cnt[k][s] counts the k-subsets with sum s. Counts stay below C(50, 25) <
 * 2^53, exact in a double. */
static int exact_p(const int *rank2, size_t n, size_t nb, long w2, double *p)
{
    size_t top = (size_t)(n * (n + 1)); /* every doubled rank together */
    double *cnt = calloc((nb + 1) * (top + 1), sizeof(*cnt));
    if (!cnt)
        return SETTLE_ERR_NOMEM;
    cnt[0] = 1;
    for (size_t i = 0; i < n; i++) {
        size_t r = (size_t)rank2[i];
        for (size_t k = (i + 1 < nb ? i + 1 : nb); k >= 1; k--) {
            double *row = cnt + k * (top + 1), *prev = cnt + (k - 1) * (top + 1);
            for (size_t v = top; v >= r; v--)
                row[v] += prev[v - r];
        }
    }
    double mean = (double)nb * (double)(n + 1), dev = fabs((double)w2 - mean);
    double total = 0, extreme = 0;
    const double *row = cnt + nb * (top + 1);
    for (size_t v = 0; v <= top; v++) {
        total += row[v];
        if (fabs((double)v - mean) >= dev)
            extreme += row[v];
    }
    free(cnt);
    *p = fmin(1.0, extreme / total);
    return 0;
}

int settle_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u,
                        double *p, int *exact)
{
    if (!a || !b || !na || !nb || !u || !p || !all_finite(a, na) || !all_finite(b, nb))
        return SETTLE_ERR_INVAL;
    size_t n = na + nb;
    struct item { double v; int grp; } *all = malloc(n * sizeof(*all));
    double *rank = malloc(n * sizeof(*rank));
    int *rank2 = malloc(n * sizeof(*rank2));
    int ret = SETTLE_ERR_NOMEM;
    if (!all || !rank || !rank2)
        goto fail;
    for (size_t i = 0; i < na; i++)
        all[i] = (struct item){ a[i], 0 };
    for (size_t j = 0; j < nb; j++)
        all[na + j] = (struct item){ b[j], 1 };
    qsort(all, n, sizeof(*all), cmp_double); /* v is the first member */
    double ties = 0; /* sum of t^3 - t over groups of equal values */
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && all[j + 1].v == all[i].v)
            j++;
        double t = (double)(j - i + 1);
        for (size_t k = i; k <= j; k++) {
            rank[k] = (double)(i + j) / 2 + 1;
            rank2[k] = (int)(i + j + 2);
        }
        ties += t * t * t - t;
        i = j + 1;
    }
    double rb = 0;
    long w2 = 0;
    for (size_t i = 0; i < n; i++) {
        if (all[i].grp) {
            rb += rank[i];
            w2 += rank2[i];
        }
    }
    double ub = rb - (double)nb * (double)(nb + 1) / 2;
    double mean = (double)na * (double)nb / 2;
    *u = ub;
    if (n <= EXACT_MAX_N) {
        if ((ret = exact_p(rank2, n, nb, w2, p)) < 0)
            goto fail;
        ret = SETTLE_ERR_NOMEM;
        if (exact)
            *exact = 1;
    } else {
        double nn = (double)n;
        double var = (double)na * (double)nb / 12 * ((nn + 1) - ties / (nn * (nn - 1)));
        double dev = fabs(ub - mean);
        if (var <= 0) {
            *p = 1;
        } else {
            double z = fmax(0, dev - 0.5) / sqrt(var);
            *p = fmin(1.0, erfc(z / sqrt(2)));
        }
        if (exact)
            *exact = 0;
    }
    ret = 0;
fail:
    free(all);
    free(rank);
    free(rank2);
    return ret;
}

/* C - 1 of settle_shift_interval: the 0-based index of its lower end. */
static int shift_rank(size_t m, size_t n, double level, size_t *c)
{
    double tail = (1 - level) / 2, mn = (double)m * (double)n;
    if (mn > 2500) {
        /* z with P(Z > z) = tail, by bisection on erfc */
        double lo = 0, hi = 40;
        for (int i = 0; i < 200; i++) {
            double z = (lo + hi) / 2;
            if (0.5 * erfc(z / sqrt(2)) > tail)
                lo = z;
            else
                hi = z;
        }
        double k = floor(mn / 2 - lo * sqrt(mn * (double)(m + n + 1) / 12) - 0.5);
        *c = k < 0 ? 0 : (size_t)k;
        return 0;
    }
    /* f(i, j, u): the ways of U = u with i values of a and j of b, by
     * f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u), row i kept over j */
    size_t w = (size_t)mn + 1;
    double *prev = calloc((n + 1) * w, sizeof(*prev)), *cur = calloc((n + 1) * w, sizeof(*cur));
    if (!prev || !cur) {
        free(prev);
        free(cur);
        return SETTLE_ERR_NOMEM;
    }
    for (size_t j = 0; j <= n; j++)
        prev[j * w] = 1; /* i = 0: U = 0 */
    for (size_t i = 1; i <= m; i++) {
        memset(cur, 0, (n + 1) * w * sizeof(*cur));
        cur[0] = 1; /* j = 0 */
        for (size_t j = 1; j <= n; j++)
            for (size_t u = 0; u <= i * j; u++)
                cur[j * w + u] = (u >= j ? prev[j * w + u - j] : 0) + cur[(j - 1) * w + u];
        double *t = prev;
        prev = cur, cur = t;
    }
    double total = 0, below = 0;
    for (size_t u = 0; u < w; u++)
        total += prev[n * w + u];
    *c = 0; /* the largest u with P(U <= u) <= tail, else 0 all the same */
    for (size_t u = 0; u < w && (below += prev[n * w + u]) <= tail * total; u++)
        *c = u;
    free(prev);
    free(cur);
    return 0;
}

int settle_shift_interval(const double *a, size_t na, const double *b, size_t nb, double level,
                          double *shift, double *low, double *high)
{
    if (!a || !b || !na || !nb || !(level > 0 && level < 1) || !shift || !low || !high ||
        !all_finite(a, na) || !all_finite(b, nb) || na > SIZE_MAX / nb / sizeof(double))
        return SETTLE_ERR_INVAL;
    size_t n = na * nb, c;
    double *d = malloc(n * sizeof(*d));
    if (!d)
        return SETTLE_ERR_NOMEM;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            d[i * nb + j] = b[j] - a[i];
    qsort(d, n, sizeof(*d), cmp_double);
    int ret = shift_rank(na, nb, level, &c);
    if (ret == 0) {
        c = c >= (n + 1) / 2 ? (n - 1) / 2 : c;
        *shift = settle_percentile(d, n, 0.5);
        *low = d[c];
        *high = d[n - 1 - c];
    }
    free(d);
    return ret;
}

uint64_t settle_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

size_t settle_draw(uint64_t *state, size_t n)
{
    uint64_t lim = UINT64_MAX - UINT64_MAX % n;
    uint64_t r;
    do
        r = settle_splitmix64(state);
    while (r >= lim);
    return (size_t)(r % n);
}

static double resample_median(const double *x, size_t n, double *tmp, uint64_t *state)
{
    for (size_t i = 0; i < n; i++)
        tmp[i] = x[settle_draw(state, n)];
    qsort(tmp, n, sizeof(*tmp), cmp_double);
    return settle_percentile(tmp, n, 0.5);
}

int settle_bootstrap_median_diff(const double *a, size_t na, const double *b, size_t nb,
                                 int resamples, uint64_t seed, double level, double *low,
                                 double *high)
{
    if (!a || !b || !na || !nb || resamples < 1 || !(level > 0 && level < 1) || !low || !high ||
        !all_finite(a, na) || !all_finite(b, nb))
        return SETTLE_ERR_INVAL;
    double *d = malloc((size_t)resamples * sizeof(*d));
    double *tmp = malloc((na > nb ? na : nb) * sizeof(*tmp));
    int ret = SETTLE_ERR_NOMEM;
    if (!d || !tmp)
        goto fail;
    uint64_t state = seed;
    for (int r = 0; r < resamples; r++) {
        double ma = resample_median(a, na, tmp, &state);
        double mb = resample_median(b, nb, tmp, &state);
        d[r] = mb - ma;
    }
    qsort(d, (size_t)resamples, sizeof(*d), cmp_double);
    *low = settle_percentile(d, (size_t)resamples, (1 - level) / 2);
    *high = settle_percentile(d, (size_t)resamples, (1 + level) / 2);
    ret = 0;
fail:
    free(d);
    free(tmp);
    return ret;
}

void settle_compare_default_settings(SettleCompareSettings *s)
{
    memset(s, 0, sizeof(*s));
    s->min_effect = 0;
    s->min_effect_relative = 0;
    s->alpha = 0.05;
    s->level = 0.95;
    s->resamples = 10000;
    s->seed = 0x5e771e;
    s->min_n = 3;
}

int settle_compare(const double *a, size_t na, const double *b, size_t nb,
                   const SettleCompareSettings *s, SettleComparison *out)
{
    if (!s || !out || !(s->min_effect >= 0) || !isfinite(s->min_effect) ||
        !(s->alpha > 0 && s->alpha < 1) || !(s->level > 0 && s->level < 1) ||
        s->resamples < 1 || s->min_n < 1)
        return SETTLE_ERR_INVAL;
    memset(out, 0, sizeof(*out));
    int ret = settle_summarize(a, na, &out->baseline);
    if (!ret)
        ret = settle_summarize(b, nb, &out->candidate);
    if (ret < 0)
        return ret;
    out->difference = out->relative = out->ci_low = out->ci_high = NAN;
    out->u = out->p_value = out->min_effect = NAN;
    out->verdict = SETTLE_VERDICT_TOO_FEW;
    if (na < (size_t)s->min_n || nb < (size_t)s->min_n)
        return 0;
    double ma = out->baseline.median;
    out->difference = out->candidate.median - ma;
    out->relative = ma != 0 ? out->difference / ma : NAN;
    out->min_effect = s->min_effect_relative ? s->min_effect * fabs(ma) : s->min_effect;
    ret = settle_bootstrap_median_diff(a, na, b, nb, s->resamples, s->seed, s->level,
                                       &out->ci_low, &out->ci_high);
    if (!ret)
        ret = settle_mann_whitney(a, na, b, nb, &out->u, &out->p_value, &out->exact);
    if (ret < 0)
        return ret;
    if (out->p_value < s->alpha && out->ci_low > out->min_effect)
        out->verdict = SETTLE_VERDICT_REGRESSION;
    else if (out->p_value < s->alpha && out->ci_high < -out->min_effect)
        out->verdict = SETTLE_VERDICT_IMPROVEMENT;
    else
        out->verdict = SETTLE_VERDICT_NO_CHANGE;
    return 0;
}

const char *settle_verdict_name(SettleVerdict v)
{
    switch (v) {
    case SETTLE_VERDICT_NO_CHANGE: return "no change";
    case SETTLE_VERDICT_REGRESSION: return "regression";
    case SETTLE_VERDICT_IMPROVEMENT: return "improvement";
    case SETTLE_VERDICT_TOO_FEW: return "too few";
    }
    return "?";
}
