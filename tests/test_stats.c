/* SPDX-License-Identifier: BSD-2-Clause */
/* Statistics for comparisons, against values worked out independently: the
 * Mann-Whitney p-values by enumerating every ordering of the pooled values
 * (and Hollander & Wolfe's example, also in R's ?wilcox.test). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include "settle/stats.h"

static void test_percentile(void **state)
{
    (void)state;
    const double x[] = { 1, 2, 3, 4 };
    assert_near(settle_percentile(x, 4, 0.5), 2.5, 1e-12);
    assert_near(settle_percentile(x, 4, 0.9), 3.7, 1e-12);
    assert_near(settle_percentile(x, 4, 0), 1, 0);
    assert_near(settle_percentile(x, 4, 1), 4, 0);
    const double y[] = { 15, 20, 35, 40, 50 };
    assert_near(settle_percentile(y, 5, 0.9), 46, 1e-12);
    assert_near(settle_percentile(y, 5, 0.5), 35, 0);
    assert_near(settle_percentile(y, 1, 0.9), 15, 0);
    assert_true(isnan(settle_percentile(y, 0, 0.5)));
    assert_true(isnan(settle_percentile(y, 5, 1.5)));
}

static void test_summarize(void **state)
{
    (void)state;
    const double x[] = { 9, 4, 2, 5, 4, 7, 4, 5 };
    SettleSummary s;
    assert_int_equal(settle_summarize(x, 8, &s), 0);
    assert_int_equal(s.n, 8);
    assert_near(s.mean, 5, 1e-12);
    assert_near(s.sd, 2.138089935299395, 1e-12);
    assert_near(s.median, 4.5, 1e-12);
    assert_near(s.min, 2, 0);
    assert_near(s.max, 9, 0);
    assert_near(s.p90, 7.6, 1e-12); /* sorted 2 4 4 4 5 5 7 9: h = 6.3 */
    assert_int_equal(settle_summarize(x, 1, &s), 0);
    assert_true(isnan(s.sd));
    assert_near(s.median, 9, 0);
    assert_int_equal(settle_summarize(NULL, 0, &s), 0);
    assert_true(isnan(s.median) && isnan(s.mean));
    const double bad[] = { 1, NAN };
    assert_int_equal(settle_summarize(bad, 2, &s), SETTLE_ERR_INVAL);
}

static void test_mann_whitney_exact(void **state)
{
    (void)state;
    double u, p;
    int exact;
    const double a1[] = { 1, 2, 3 }, b1[] = { 4, 5, 6 };
    assert_int_equal(settle_mann_whitney(a1, 3, b1, 3, &u, &p, &exact), 0);
    assert_int_equal(exact, 1);
    assert_near(u, 9, 0);
    assert_near(p, 0.1, 1e-12); /* 2 of 20 orderings are as extreme */
    assert_int_equal(settle_mann_whitney(b1, 3, a1, 3, &u, &p, &exact), 0);
    assert_near(u, 0, 0);
    assert_near(p, 0.1, 1e-12);

    const double a2[] = { 1, 2, 3, 4, 5 }, b2[] = { 6, 7, 8, 9, 10 };
    assert_int_equal(settle_mann_whitney(a2, 5, b2, 5, &u, &p, &exact), 0);
    assert_near(p, 2.0 / 252, 1e-12);

    const double a3[] = { 1, 3, 5 }, b3[] = { 2, 4, 6, 7 };
    assert_int_equal(settle_mann_whitney(a3, 3, b3, 4, &u, &p, &exact), 0);
    assert_near(u, 9, 0);
    assert_near(p, 0.4, 1e-12);

    /* Hollander & Wolfe (1973) p. 69: W = 35, one-sided p 0.1272 */
    const double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 };
    const double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
    assert_int_equal(settle_mann_whitney(y, 5, x, 10, &u, &p, &exact), 0);
    assert_int_equal(exact, 1);
    assert_near(u, 35, 0);
    assert_near(p, 0.2544122544122544, 1e-12);
}

static void test_mann_whitney_normal(void **state)
{
    (void)state;
    double u, p;
    int exact;
    /* ties, exactly: 79 of the 462 splits of the mid-ranks are as far from
     * the mean (enumerated); load times in whole frames tie like this */
    const double a[] = { 1, 2, 2, 3, 5 }, b[] = { 2, 3, 3, 4, 6, 7 };
    assert_int_equal(settle_mann_whitney(a, 5, b, 6, &u, &p, &exact), 0);
    assert_int_equal(exact, 1);
    assert_near(u, 23, 0);
    assert_near(p, 79.0 / 462, 1e-12);
    const double fa[] = { 0.8, 0.825, 0.825, 0.9 }, fb[] = { 1.1, 1.2, 1.2, 1.25 };
    assert_int_equal(settle_mann_whitney(fa, 4, fb, 4, &u, &p, &exact), 0);
    assert_near(p, 2.0 / 70, 1e-12);
    /* all equal: nothing to tell apart */
    const double c[] = { 1, 1, 1 };
    assert_int_equal(settle_mann_whitney(c, 3, c, 3, &u, &p, &exact), 0);
    assert_near(p, 1, 0);
    /* large groups use the normal approximation with the tie correction:
     * 30 values 0..29 twice in a, 30 values 0.5..29.5 twice in b (no ties
     * across groups, 60 pairs of ties within): sum of t^3 - t = 60 * 6 */
    double ta[60], tb[60];
    for (int i = 0; i < 60; i++) {
        ta[i] = i / 2;
        tb[i] = i / 2 + 0.5;
    }
    assert_int_equal(settle_mann_whitney(ta, 60, tb, 60, &u, &p, &exact), 0);
    assert_int_equal(exact, 0);
    /* b_j > a_i: b value k+0.5 beats the a values 0..k, twice each: 2 * 2 * (k+1) */
    assert_near(u, 4.0 * 30 * 31 / 2, 0);
    double var = 3600.0 / 12 * (121 - 360.0 / (120.0 * 119));
    assert_near(p, erfc(((1860 - 1800) - 0.5) / sqrt(var) / sqrt(2)), 1e-12);
    /* large groups without ties */
    double big_a[40], big_b[40];
    for (int i = 0; i < 40; i++) {
        big_a[i] = i;
        big_b[i] = i + 0.5;
    }
    assert_int_equal(settle_mann_whitney(big_a, 40, big_b, 40, &u, &p, &exact), 0);
    assert_int_equal(exact, 0);
    assert_near(u, 820, 0); /* b_j > a_i for i <= j: 40 * 41 / 2 */
    /* z = (820 - 800 - 0.5) / sqrt(40 * 40 * 81 / 12) */
    assert_near(p, erfc((19.5 / sqrt(1600.0 * 81 / 12)) / sqrt(2)), 1e-12);
    assert_int_equal(settle_mann_whitney(a, 0, b, 6, &u, &p, NULL), SETTLE_ERR_INVAL);
}

static void test_bootstrap(void **state)
{
    (void)state;
    const double a[] = { 2.48, 2.61, 2.55, 2.40, 2.70, 2.52, 2.46, 2.66, 2.58, 2.50 };
    double b[10], lo, hi, lo2, hi2;
    for (int i = 0; i < 10; i++)
        b[i] = a[(i * 3) % 10] + 0.25;
    assert_int_equal(settle_bootstrap_median_diff(a, 10, b, 10, 10000, 1, 0.95, &lo, &hi), 0);
    assert_true(lo < 0.25 && hi > 0.25);
    assert_true(lo > 0.1 && hi < 0.4);
    /* same seed, same interval */
    assert_int_equal(settle_bootstrap_median_diff(a, 10, b, 10, 10000, 1, 0.95, &lo2, &hi2), 0);
    assert_true(lo == lo2 && hi == hi2);
    /* the seed is used: with 9 resamples, seeds 1..20 do not all agree */
    int differ = 0;
    assert_int_equal(settle_bootstrap_median_diff(a, 10, b, 10, 9, 1, 0.95, &lo, &hi), 0);
    for (uint64_t seed = 2; seed <= 20; seed++) {
        assert_int_equal(settle_bootstrap_median_diff(a, 10, b, 10, 9, seed, 0.95, &lo2, &hi2), 0);
        differ += lo != lo2 || hi != hi2;
    }
    assert_true(differ > 0);
    assert_int_equal(settle_bootstrap_median_diff(a, 10, b, 10, 10000, 1, 0.95, &lo, &hi), 0);
    /* a narrower level gives a narrower interval */
    assert_int_equal(settle_bootstrap_median_diff(a, 10, b, 10, 10000, 1, 0.5, &lo2, &hi2), 0);
    assert_true(lo2 >= lo && hi2 <= hi && hi2 - lo2 < hi - lo);
    /* constant groups: the interval is the difference itself */
    const double c[] = { 1, 1, 1 }, d[] = { 1.25, 1.25, 1.25, 1.25 };
    assert_int_equal(settle_bootstrap_median_diff(c, 3, d, 4, 100, 7, 0.95, &lo, &hi), 0);
    assert_near(lo, 0.25, 1e-12);
    assert_near(hi, 0.25, 1e-12);
    assert_int_equal(settle_bootstrap_median_diff(c, 3, d, 4, 0, 7, 0.95, &lo, &hi), SETTLE_ERR_INVAL);

    /* coverage: over 200 pairs of samples of 10 from known distributions, the
     * 95 % interval holds the true difference of 0.25 most of the time */
    uint64_t st = 12345;
    int hit = 0;
    for (int k = 0; k < 200; k++) {
        double x[10], y[10];
        for (int i = 0; i < 10; i++) {
            /* uniform on [0, 1) from a 64-bit LCG, both groups symmetric */
            st = st * 6364136223846793005ULL + 1442695040888963407ULL;
            x[i] = (double)(st >> 11) / 9007199254740992.0;
            st = st * 6364136223846793005ULL + 1442695040888963407ULL;
            y[i] = (double)(st >> 11) / 9007199254740992.0 + 0.25;
        }
        assert_int_equal(settle_bootstrap_median_diff(x, 10, y, 10, 2000, 99, 0.95, &lo, &hi), 0);
        hit += lo <= 0.25 && 0.25 <= hi;
    }
    /* the percentile bootstrap of a median is a little liberal at n = 10 */
    assert_in_range(hit, 170, 200);
}

static void test_compare_verdicts(void **state)
{
    (void)state;
    const double a[] = { 2.48, 2.61, 2.55, 2.40, 2.70, 2.52, 2.46, 2.66, 2.58, 2.50 };
    double slow[10], fast[10], same[10];
    for (int i = 0; i < 10; i++) {
        slow[i] = a[(i * 7) % 10] + 0.25;
        fast[i] = a[(i * 7) % 10] - 0.25;
        same[i] = a[(i * 7) % 10] + (i % 2 ? 0.01 : -0.01);
    }
    SettleCompareSettings s;
    settle_compare_default_settings(&s);
    assert_int_equal(s.resamples, 10000);
    assert_near(s.alpha, 0.05, 0);
    SettleComparison c;
    assert_int_equal(settle_compare(a, 10, slow, 10, &s, &c), 0);
    assert_int_equal(c.verdict, SETTLE_VERDICT_REGRESSION);
    assert_near(c.difference, 0.25, 1e-9);
    assert_true(c.ci_low < 0.25 && c.ci_high > 0.25);
    assert_true(c.p_value < 0.001);
    assert_int_equal(c.exact, 1);
    assert_near(c.baseline.median, 2.535, 1e-12);

    assert_int_equal(settle_compare(a, 10, fast, 10, &s, &c), 0);
    assert_int_equal(c.verdict, SETTLE_VERDICT_IMPROVEMENT);
    assert_int_equal(settle_compare(a, 10, same, 10, &s, &c), 0);
    assert_int_equal(c.verdict, SETTLE_VERDICT_NO_CHANGE);
    assert_true(c.p_value > 0.5);

    /* a minimum effect larger than the interval's low end: no change */
    s.min_effect = 0.2;
    assert_int_equal(settle_compare(a, 10, slow, 10, &s, &c), 0);
    assert_true(c.ci_low < 0.2);
    assert_int_equal(c.verdict, SETTLE_VERDICT_NO_CHANGE);
    s.min_effect = 0.05;
    assert_int_equal(settle_compare(a, 10, slow, 10, &s, &c), 0);
    assert_int_equal(c.verdict, SETTLE_VERDICT_REGRESSION);
    /* relative: 2 % of 2.535 s = 0.0507 s; 20 % = 0.507 s */
    s.min_effect = 0.02;
    s.min_effect_relative = 1;
    assert_int_equal(settle_compare(a, 10, slow, 10, &s, &c), 0);
    assert_near(c.min_effect, 0.0507, 1e-12);
    assert_int_equal(c.verdict, SETTLE_VERDICT_REGRESSION);
    s.min_effect = 0.2;
    assert_int_equal(settle_compare(a, 10, slow, 10, &s, &c), 0);
    assert_int_equal(c.verdict, SETTLE_VERDICT_NO_CHANGE);

    /* the test must agree too: 3 against 3 can never reach p < 0.05 */
    settle_compare_default_settings(&s);
    const double a3[] = { 1, 1.1, 1.2 }, b3[] = { 2, 2.1, 2.2 };
    assert_int_equal(settle_compare(a3, 3, b3, 3, &s, &c), 0);
    assert_near(c.p_value, 0.1, 1e-12);
    assert_int_equal(c.verdict, SETTLE_VERDICT_NO_CHANGE);
    /* too few */
    assert_int_equal(settle_compare(a3, 2, b3, 3, &s, &c), 0);
    assert_int_equal(c.verdict, SETTLE_VERDICT_TOO_FEW);
    assert_int_equal(c.baseline.n, 2);
    assert_true(isnan(c.difference) && isnan(c.p_value));
    s.alpha = 0;
    assert_int_equal(settle_compare(a, 10, slow, 10, &s, &c), SETTLE_ERR_INVAL);
    assert_string_equal(settle_verdict_name(SETTLE_VERDICT_REGRESSION), "regression");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentile),
        cmocka_unit_test(test_summarize),
        cmocka_unit_test(test_mann_whitney_exact),
        cmocka_unit_test(test_mann_whitney_normal),
        cmocka_unit_test(test_bootstrap),
        cmocka_unit_test(test_compare_verdicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
