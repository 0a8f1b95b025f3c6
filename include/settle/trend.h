/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * settle trend: change points of a series of samples, such as the load times
 * of a test on one device night after night, several captures a night.
 *
 *     SettleTrendPoint night[8] = { { x0, 3 }, { x1, 3 }, ... };
 *     SettleTrendSettings ts;
 *     settle_trend_default_settings(&ts);
 *     SettleChange ch[8];
 *     size_t n;
 *     if (settle_trend_changes(night, 8, &ts, ch, 8, &n) == 0)
 *         ... ch[i].at, ch[i].step, ch[i].ci_low, ch[i].ci_high, ch[i].p ...
 *
 * The method (binary segmentation, median cost, permutation and rank tests):
 *  1. A segment of points (at first the whole series) is split where two
 *     levels fit its captures best: the split k that most reduces the sum of
 *     absolute deviations from the median (one median for points [lo, hi)
 *     against one for [lo, k) and one for [k, hi)), robust to a stray
 *     capture. Each side must hold at least min_points points, except the
 *     newest side of the series, which may be the newest point alone: a
 *     single odd point inside a series can never be a level of its own, the
 *     newest point can (it is the alert of the next morning).
 *  2. The split is a change when all of these hold:
 *     a. its p value is below alpha: the share of `permutations` random
 *        reassignments of the segment's captures to its points whose best
 *        split reduces the cost as much ((1 + count) / (1 + permutations),
 *        stopped early once it cannot fall below alpha), which accounts for
 *        having searched every split;
 *     b. the captures just around it differ by an exact Mann-Whitney test
 *        (p < alpha): the points nearest before and after k, at least
 *        local_points points and local_captures captures a side where the
 *        segment has them;
 *     c. two levels fit the segment better than one straight line (x = the
 *        point's index) by the BIC, n ln(RSS line / RSS levels) > ln n, the
 *        step paying for its position: a slow drift is not a step;
 *     d. |median after - median before| >= min_effect.
 *  3. Both sides of a change are segmented again, until no split is a change
 *     or max_changes are found.
 * Each change's step is the Hodges-Lehmann shift between the captures of the
 * two levels it separates (from the neighbouring changes or the ends) with
 * its exact Mann-Whitney interval (settle_shift_interval); before and after
 * are the two levels' medians.
 *
 * Assumptions: the captures of a point are independent draws of its level
 * (no effect shared by a whole night beyond the level itself), the levels
 * are flat between changes, and the points are ordered (builds, nights).
 * With one capture a point, the newest point alone can never be shown to
 * differ; three captures are the fewest for an alert at alpha 0.05.
 *
 * Pure functions: no global state, the same numbers on every machine.
 */
#ifndef SETTLE_TREND_H
#define SETTLE_TREND_H

#include <stddef.h>
#include <stdint.h>

#include "settle/settle.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One point of a series: its captures' values (finite), n >= 1. */
typedef struct SettleTrendPoint {
    const double *x;
    size_t n;
} SettleTrendPoint;

typedef struct SettleTrendSettings {
    double alpha;        /* significance level, 0 < alpha < 1; default 0.05 */
    double level;        /* confidence level of the step's interval; default 0.95 */
    int permutations;    /* for the p value of a split, >= 99; default 1999 */
    uint64_t seed;       /* random numbers come from it alone; default 0x5e771e */
    int min_points;      /* points a level needs inside the series, >= 1; default 2 */
    int local_points;    /* points a side of the local test, >= 1; default 2 */
    int local_captures;  /* captures a side of the local test, >= 1; default 6 */
    double min_effect;   /* smallest |step| reported, >= 0, in the values' unit; default 0 */
    int max_changes;     /* default 16 */
    /* Room for settings added later without changing the structure's size
     * (callers allocate it): zeroed by settle_trend_default_settings, leave it so. */
    uint8_t reserved[64];
} SettleTrendSettings;

SETTLE_API void settle_trend_default_settings(SettleTrendSettings *s);

typedef struct SettleChange {
    size_t at;              /* index of the first point of the new level, >= 1 */
    double before, after;   /* medians of the captures of the two levels */
    double step;            /* Hodges-Lehmann shift of after against before */
    double ci_low, ci_high; /* its interval at `level` */
    double p;               /* permutation p value of the split, step 2a */
} SettleChange;

/* Finds the changes of the series p[0 .. np - 1] (oldest first) and writes
 * them to out[0 .. *nout - 1] in the order of `at`, at most maxout. A series
 * of fewer than 2 points has none. Returns 0, SETTLE_ERR_INVAL (bad settings,
 * a point without captures, a non-finite value) or SETTLE_ERR_NOMEM. */
SETTLE_API int settle_trend_changes(const SettleTrendPoint *p, size_t np,
                                    const SettleTrendSettings *s, SettleChange *out,
                                    size_t maxout, size_t *nout);

#ifdef __cplusplus
}
#endif

#endif /* SETTLE_TREND_H */
