/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * settle statistics: comparing the load times (or any metric) of two groups
 * of captures, a baseline A and a candidate B.
 *
 *     SettleCompareSettings cs;
 *     settle_compare_default_settings(&cs);
 *     cs.min_effect = 0.1;                      // seconds
 *     SettleComparison cmp;
 *     if (settle_compare(a, na, b, nb, &cs, &cmp) == 0)
 *         ... cmp.difference, cmp.ci_low, cmp.ci_high, cmp.p_value, cmp.verdict ...
 *
 * Every function is pure: no global state, no allocation kept after return,
 * safe to call from several threads. Values must be finite; the caller
 * decides what to do with captures that have no value (and should say so).
 */
#ifndef SETTLE_STATS_H
#define SETTLE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "settle/settle.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Summary of one group. For n == 0 every value is NaN; sd is NaN for n < 2. */
typedef struct SettleSummary {
    size_t n;
    double median;
    double mean;
    double sd;   /* sample standard deviation (divides by n - 1) */
    double min, max;
    double p90;  /* 90th percentile, see settle_percentile */
} SettleSummary;

/* The p-th quantile (0 <= p <= 1) of n sorted values by linear interpolation
 * between closest ranks: h = (n - 1) * p, x[floor h] + (h - floor h) *
 * (x[floor h + 1] - x[floor h]) (Hyndman & Fan type 7, the default of R and
 * NumPy). NaN when n == 0. */
SETTLE_API double settle_percentile(const double *sorted, size_t n, double p);

/* Fills *s for the n values x (any order). Returns 0, SETTLE_ERR_INVAL for a
 * NaN or infinite value, SETTLE_ERR_NOMEM. */
SETTLE_API int settle_summarize(const double *x, size_t n, SettleSummary *s);

/* Mann-Whitney U test (Wilcoxon rank-sum), two-sided, of a against b.
 * *u is U of b: the number of pairs (a_i, b_j) with b_j > a_i, ties counting
 * one half (so *u > na * nb / 2 when b tends to be larger). *p is the
 * two-sided p-value, P(|U - na nb / 2| >= |u - na nb / 2|) when the groups
 * do not differ: exact when na + nb <= 50, from all C(na + nb, nb) ways to
 * split the pooled (mid-)ranks, so ties are handled exactly too; else the
 * normal approximation with the tie correction of the variance and a
 * continuity correction of 0.5. *exact says which (may be NULL).
 * Needs na >= 1 and nb >= 1. Returns 0, SETTLE_ERR_INVAL or SETTLE_ERR_NOMEM. */
SETTLE_API int settle_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                                   double *u, double *p, int *exact);

/* Percentile bootstrap confidence interval of median(b) - median(a): draws
 * `resamples` times na values of a and nb values of b with replacement,
 * independently, and returns the (1 - level) / 2 and (1 + level) / 2
 * quantiles (settle_percentile) of the differences of medians. The random
 * numbers come from `seed` alone (splitmix64), so the same call gives the same
 * interval on every machine. Needs na, nb >= 1, resamples >= 1,
 * 0 < level < 1. Returns 0, SETTLE_ERR_INVAL or SETTLE_ERR_NOMEM. */
SETTLE_API int settle_bootstrap_median_diff(const double *a, size_t na, const double *b,
                                            size_t nb, int resamples, uint64_t seed,
                                            double level, double *low, double *high);

/* The Hodges-Lehmann shift of b against a and its distribution-free
 * confidence interval, the one that goes with the Mann-Whitney test: *shift
 * is the median of the na * nb differences b_j - a_i, and the interval runs
 * from the C-th smallest to the C-th largest difference, C - 1 the largest U
 * with P(U <= C - 1) <= (1 - level) / 2 (exact U distribution when
 * na * nb <= 2500, else its normal approximation). When even C = 1 does not
 * reach the level (3 against 3 at 0.95), the interval is the smallest and
 * largest difference. Covers the true shift with the level's probability
 * when b is a shifted a (continuous values, independent draws). Needs
 * na, nb >= 1, 0 < level < 1. Returns 0, SETTLE_ERR_INVAL or SETTLE_ERR_NOMEM. */
SETTLE_API int settle_shift_interval(const double *a, size_t na, const double *b, size_t nb,
                                     double level, double *shift, double *low, double *high);

typedef enum SettleVerdict {
    SETTLE_VERDICT_NO_CHANGE = 0, /* no difference shown larger than the minimum effect */
    SETTLE_VERDICT_REGRESSION,    /* the candidate is slower: see settle_compare */
    SETTLE_VERDICT_IMPROVEMENT,   /* the candidate is faster */
    SETTLE_VERDICT_TOO_FEW        /* a group has fewer than min_n values: nothing decided */
} SettleVerdict;

typedef struct SettleCompareSettings {
    /* Smallest difference of medians that matters, >= 0. In seconds, or when
     * min_effect_relative is 1, as a fraction of the baseline's median (0.05 =
     * 5 %). Default 0. */
    double min_effect;
    int min_effect_relative;
    /* Significance level of the Mann-Whitney test, 0 < alpha < 1. Default 0.05. */
    double alpha;
    /* Confidence level of the bootstrap interval, default 0.95. */
    double level;
    /* Bootstrap resamples (default 10000) and seed (default 0x5e771e). */
    int resamples;
    uint64_t seed;
    /* Fewest values a group needs for a verdict, >= 1. Default 3. */
    int min_n;
    /* Room for settings added later without changing the structure's size
     * (callers allocate it): zeroed by settle_compare_default_settings, leave it so. */
    uint8_t reserved[64];
} SettleCompareSettings;

SETTLE_API void settle_compare_default_settings(SettleCompareSettings *s);

typedef struct SettleComparison {
    SettleSummary baseline, candidate;
    double difference;  /* median(candidate) - median(baseline) */
    double relative;    /* difference / median(baseline), NaN when that is 0 */
    double ci_low, ci_high; /* bootstrap interval of the difference */
    double u;           /* Mann-Whitney U of the candidate */
    double p_value;     /* two-sided */
    int exact;          /* p_value is exact, not the normal approximation */
    double min_effect;  /* in the metric's unit (seconds), after resolving a relative one */
    SettleVerdict verdict;
} SettleComparison;

/* Compares candidate b against baseline a. With E = the minimum effect in
 * seconds (min_effect, or min_effect * |median(a)| when relative):
 *   regression  when p_value < alpha and ci_low > E  (the whole interval lies
 *               above +E: b is slower by more than E, with confidence)
 *   improvement when p_value < alpha and ci_high < -E
 *   no change   otherwise, including an interval that straddles E
 *   too few     when na or nb < min_n; then only the summaries are filled and
 *               every other number is NaN
 * Returns 0, SETTLE_ERR_INVAL (bad settings or a non-finite value) or
 * SETTLE_ERR_NOMEM. */
SETTLE_API int settle_compare(const double *a, size_t na, const double *b, size_t nb,
                              const SettleCompareSettings *s, SettleComparison *out);

/* "no change", "regression", "improvement", "too few". Static. */
SETTLE_API const char *settle_verdict_name(SettleVerdict v);

#ifdef __cplusplus
}
#endif

#endif /* SETTLE_STATS_H */
