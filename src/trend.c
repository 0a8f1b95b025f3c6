/* SPDX-License-Identifier: BSD-2-Clause */
/* Change points of a series of samples: binary segmentation with a median
 * (L1) cost, a permutation p value and three checks, one of them a
 * Mann-Whitney test (see settle/trend.h for the method). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "random.h"
#include "settle/stats.h"
#include "settle/trend.h"

void settle_trend_default_settings(SettleTrendSettings *s)
{
    if (!s)
        return;
    *s = (SettleTrendSettings){
        .alpha = 0.05, .level = 0.95, .permutations = 1999,
        .seed = 0x5e771e, .min_points = 2, .local_points = 2, .local_captures = 6,
        .min_effect = 0, .max_changes = 16,
    };
}

/* The series flattened: captures of point j are v[off[j] .. off[j + 1]). */
typedef struct Series {
    const SettleTrendPoint *p;
    size_t np;
    double *v;
    size_t *off;
    const SettleTrendSettings *s;
    /* scratch of the length of the series */
    double *perm, *tmp;
} Series;

/* Whether a split at point k of the segment [lo, hi) of points is allowed. */
static int candidate(const Series *S, size_t lo, size_t hi, size_t k)
{
    size_t m = (size_t)S->s->min_points;
    if (k - lo < m)
        return 0;
    return hi - k >= m || hi == S->np;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sum of absolute deviations from the median of x[0 .. n), using tmp. */
static double l1_cost(const double *x, size_t n, double *tmp)
{
    memcpy(tmp, x, n * sizeof(*tmp));
    qsort(tmp, n, sizeof(*tmp), cmp_double);
    double med = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2, c = 0;
    for (size_t i = 0; i < n; i++)
        c += fabs(tmp[i] - med);
    return c;
}

/* The split of the segment [lo, hi) whose two levels (medians) cut the sum
 * of absolute deviations most, for the captures x in point order; *at gets
 * it. Returns the cut, -1 when no split is allowed. */
static double best_split(const Series *S, size_t lo, size_t hi, const double *x, size_t *at)
{
    size_t base = S->off[lo], n = S->off[hi] - base;
    double whole = l1_cost(x, n, S->tmp), best = -1;
    for (size_t k = lo + 1; k < hi; k++) {
        if (!candidate(S, lo, hi, k))
            continue;
        size_t na = S->off[k] - base;
        double cut = whole - l1_cost(x, na, S->tmp) - l1_cost(x + na, n - na, S->tmp);
        if (cut > best + 1e-12 * fabs(whole)) {
            best = cut;
            *at = k;
        }
    }
    return best;
}

static double median_of(Series *S, size_t a, size_t b)
{
    size_t n = b - a;
    memcpy(S->tmp, S->v + a, n * sizeof(*S->tmp));
    SettleSummary sum;
    return settle_summarize(S->tmp, n, &sum) == 0 ? sum.median : NAN;
}

/* Check 2c: two levels against one line by their residual sums of squares,
 * x the point index. */
static int step_beats_line(const Series *S, size_t lo, size_t k, size_t hi)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0, m[2] = { 0, 0 }, c[2] = { 0, 0 };
    for (size_t j = lo; j < hi; j++)
        for (size_t i = S->off[j]; i < S->off[j + 1]; i++) {
            double x = (double)j, y = S->v[i];
            sx += x, sy += y, sxx += x * x, sxy += x * y, n++;
            m[j >= k] += y, c[j >= k]++;
        }
    m[0] /= c[0], m[1] /= c[1];
    double d = n * sxx - sx * sx;
    double slope = d > 0 ? (n * sxy - sx * sy) / d : 0, icpt = (sy - slope * sx) / n;
    double line = 0, step = 0;
    for (size_t j = lo; j < hi; j++)
        for (size_t i = S->off[j]; i < S->off[j + 1]; i++) {
            double el = S->v[i] - (icpt + slope * (double)j), es = S->v[i] - m[j >= k];
            line += el * el, step += es * es;
        }
    /* BIC: the step has one parameter more (where it is) */
    return step <= 0 ? line > 0 : n * log(line / step) > log(n);
}

/* Check 2b: the captures of the points nearest the split, each side. */
static int local_differs(const Series *S, size_t lo, size_t k, size_t hi)
{
    size_t a = k, b = k;
    const SettleTrendSettings *s = S->s;
    while (a > lo && (k - a < (size_t)s->local_points ||
                      S->off[k] - S->off[a] < (size_t)s->local_captures))
        a--;
    while (b < hi && (b - k < (size_t)s->local_points ||
                      S->off[b] - S->off[k] < (size_t)s->local_captures))
        b++;
    double u, p;
    if (settle_mann_whitney(S->v + S->off[a], S->off[k] - S->off[a], S->v + S->off[k],
                            S->off[b] - S->off[k], &u, &p, NULL) < 0)
        return -1;
    return p < s->alpha;
}

/* Tests the best split of the segment [lo, hi): 1 with *at and *p when it is
 * a change, 0 when not, or a negative error. */
static int test_segment(Series *S, size_t lo, size_t hi, uint64_t *seed, size_t *at, double *p)
{
    size_t n = S->off[hi] - S->off[lo], k = 0, kk = 0;
    const double *x = S->v + S->off[lo];
    double obs = best_split(S, lo, hi, x, &k);
    if (obs < 0)
        return 0;
    long reach = 0, stop = (long)ceil(S->s->alpha * (S->s->permutations + 1)) - 1;
    stop = stop < 1 ? 1 : stop;
    int done = 0;
    memcpy(S->perm, x, n * sizeof(*S->perm));
    /* stops early once the p value cannot fall below alpha any more */
    for (; done < S->s->permutations && reach < stop; done++) {
        for (size_t j = n - 1; j > 0; j--) {
            size_t o = settle_draw(seed, j + 1);
            double t = S->perm[j];
            S->perm[j] = S->perm[o];
            S->perm[o] = t;
        }
        reach += best_split(S, lo, hi, S->perm, &kk) >= obs - 1e-12 * fabs(obs);
    }
    *p = (double)(1 + reach) / (double)(1 + done);
    *at = k;
    if (reach >= stop || !step_beats_line(S, lo, k, hi))
        return 0;
    double step = median_of(S, S->off[k], S->off[hi]) - median_of(S, S->off[lo], S->off[k]);
    if (!(fabs(step) >= S->s->min_effect))
        return 0;
    return local_differs(S, lo, k, hi);
}

static int cmp_at(const void *a, const void *b)
{
    size_t x = ((const SettleChange *)a)->at, y = ((const SettleChange *)b)->at;
    return (x > y) - (x < y);
}

/* Segments until no split is a change; fills out[].at and .p. */
static int segment(Series *S, SettleChange *out, size_t maxout, size_t *nout)
{
    size_t cap = S->np * 2 + 2, top = 0, n = 0;
    size_t *stack = malloc(cap * sizeof(*stack));
    if (!stack)
        return SETTLE_ERR_NOMEM;
    uint64_t seed = S->s->seed;
    stack[top++] = 0;
    stack[top++] = S->np;
    int ret = 0;
    while (top && n < maxout && n < (size_t)S->s->max_changes) {
        size_t hi = stack[--top], lo = stack[--top], at;
        double p;
        int r = test_segment(S, lo, hi, &seed, &at, &p);
        if (r < 0) {
            ret = r;
            break;
        }
        if (!r)
            continue;
        out[n++] = (SettleChange){ .at = at, .p = p };
        stack[top++] = lo, stack[top++] = at;
        stack[top++] = at, stack[top++] = hi;
    }
    free(stack);
    qsort(out, n, sizeof(*out), cmp_at);
    *nout = n;
    return ret;
}

/* Step, interval and medians of each change between its neighbours. */
static int measure(Series *S, SettleChange *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t lo = S->off[i ? c[i - 1].at : 0], mid = S->off[c[i].at];
        size_t hi = S->off[i + 1 < n ? c[i + 1].at : S->np];
        c[i].before = median_of(S, lo, mid);
        c[i].after = median_of(S, mid, hi);
        int r = settle_shift_interval(S->v + lo, mid - lo, S->v + mid, hi - mid, S->s->level,
                                      &c[i].step, &c[i].ci_low, &c[i].ci_high);
        if (r < 0)
            return r;
    }
    return 0;
}

static int check(const SettleTrendPoint *p, size_t np, const SettleTrendSettings *s)
{
    if (!(s->alpha > 0 && s->alpha < 1) || !(s->level > 0 && s->level < 1) ||
        s->permutations < 99 || s->min_points < 1 || s->local_points < 1 ||
        s->local_captures < 1 || !(s->min_effect >= 0) || s->max_changes < 0)
        return SETTLE_ERR_INVAL;
    for (size_t j = 0; j < np; j++) {
        if (!p[j].x || !p[j].n)
            return SETTLE_ERR_INVAL;
        for (size_t i = 0; i < p[j].n; i++)
            if (!isfinite(p[j].x[i]))
                return SETTLE_ERR_INVAL;
    }
    return 0;
}

int settle_trend_changes(const SettleTrendPoint *p, size_t np, const SettleTrendSettings *s,
                         SettleChange *out, size_t maxout, size_t *nout)
{
    if (!nout || (np && !p) || !s || (maxout && !out))
        return SETTLE_ERR_INVAL;
    *nout = 0;
    int ret = check(p, np, s);
    if (ret < 0 || np < 2 || !maxout)
        return ret;
    Series S = { .p = p, .np = np, .s = s };
    size_t total = 0;
    S.off = malloc((np + 1) * sizeof(*S.off));
    for (size_t j = 0; S.off && j < np; j++) {
        S.off[j] = total;
        total += p[j].n;
    }
    ret = SETTLE_ERR_NOMEM;
    if (!S.off)
        goto end;
    S.off[np] = total;
    S.v = malloc(total * sizeof(*S.v));
    S.perm = malloc(total * sizeof(*S.perm));
    S.tmp = malloc(total * sizeof(*S.tmp));
    if (!S.v || !S.perm || !S.tmp)
        goto end;
    for (size_t j = 0; j < np; j++)
        memcpy(S.v + S.off[j], p[j].x, p[j].n * sizeof(*S.v));
    ret = segment(&S, out, maxout, nout);
    if (ret == 0)
        ret = measure(&S, out, *nout);
    if (ret < 0)
        *nout = 0;
end:
    free(S.off);
    free(S.v);
    free(S.perm);
    free(S.tmp);
    return ret;
}
