/* SPDX-License-Identifier: BSD-2-Clause */
/* Change points (settle/trend.h) and the shift interval (settle/stats.h),
 * against values worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include "settle/stats.h"
#include "settle/trend.h"

static void test_shift_small(void **state)
{
    (void)state;
    const double a[] = { 1, 2, 3 }, b[] = { 11, 12, 13 };
    double s, lo, hi;
    /* 3 against 3: P(U = 0) = 1/20 > 0.025, so the whole range of the 9
     * differences 8 9 9 10 10 10 11 11 12 */
    assert_int_equal(settle_shift_interval(a, 3, b, 3, 0.95, &s, &lo, &hi), 0);
    assert_near(s, 10, 0);
    assert_near(lo, 8, 0);
    assert_near(hi, 12, 0);
    /* at 0.75 the tail is 2.5 of 20 orderings: U <= 1 has 2, U <= 2 has 4 */
    assert_int_equal(settle_shift_interval(a, 3, b, 3, 0.75, &s, &lo, &hi), 0);
    assert_near(lo, 9, 0);
    assert_near(hi, 11, 0);
    assert_int_equal(settle_shift_interval(a, 3, b, 0, 0.95, &s, &lo, &hi), SETTLE_ERR_INVAL);
    assert_int_equal(settle_shift_interval(a, 3, b, 3, 1, &s, &lo, &hi), SETTLE_ERR_INVAL);
    const double nan[] = { 1, NAN, 3 };
    assert_int_equal(settle_shift_interval(a, 3, nan, 3, 0.95, &s, &lo, &hi), SETTLE_ERR_INVAL);
}

static void test_shift_exact(void **state)
{
    (void)state;
    /* 21 against 3: of C(24, 3) = 2024 orderings, U <= 8 has 41 (partitions
     * of 0..8 into at most 3 parts: 1 1 2 3 4 5 7 8 10), U <= 9 has 53;
     * 0.025 * 2024 = 50.6, so the interval is the 9th smallest to the 9th
     * largest of the differences 80..100, 180..200, 280..300 */
    double a[21], s, lo, hi;
    const double b[] = { 100, 200, 300 };
    for (int i = 0; i < 21; i++)
        a[i] = i;
    assert_int_equal(settle_shift_interval(a, 21, b, 3, 0.95, &s, &lo, &hi), 0);
    assert_near(lo, 88, 0);
    assert_near(hi, 292, 0);
    assert_near(s, 190, 0);
}

static void test_shift_normal(void **state)
{
    (void)state;
    /* 60 against 60 (3600 pairs): the normal approximation, symmetric here */
    double a[60], b[60], s, lo, hi;
    for (int i = 0; i < 60; i++)
        a[i] = i, b[i] = i + 10.5;
    assert_int_equal(settle_shift_interval(a, 60, b, 60, 0.95, &s, &lo, &hi), 0);
    assert_near(s, 10.5, 1e-12);
    assert_true(lo < 10.5 && hi > 10.5);
    assert_near(10.5 - lo, hi - 10.5, 1e-9);
    /* about 1.96 standard errors of the shift: sd of the values 17.3,
     * sqrt(2 / 60) * 17.3 * 1.96 = 6.2 */
    assert_true(hi - 10.5 > 5 && hi - 10.5 < 8);
}

/* 8 nights of 3 captures: level + the jitter -0.01, 0, +0.01 (shuffled a
 * night), the level stepping by `step` at night `at`. */
static void series(double *v, SettleTrendPoint *p, double step, int at)
{
    static const double jitter[3][3] = { { -0.01, 0, 0.01 }, { 0.01, -0.01, 0 },
                                         { 0, 0.01, -0.01 } };
    for (int n = 0; n < 8; n++) {
        for (int c = 0; c < 3; c++)
            v[n * 3 + c] = 1.2 + (n >= at ? step : 0) + jitter[n % 3][c] + 0.001 * n * (n % 2);
        p[n] = (SettleTrendPoint){ v + n * 3, 3 };
    }
}

/* What the trend tests start from: the default settings and the series
 * stepping by 0.25 at night 5. */
typedef struct Trend {
    double v[24];
    SettleTrendPoint p[8];
    SettleTrendSettings ts;
    SettleChange ch[8];
    size_t n;
} Trend;

static int setup_trend(void **state)
{
    static Trend t;
    memset(&t, 0, sizeof(t));
    settle_trend_default_settings(&t.ts);
    t.n = 99;
    series(t.v, t.p, 0.25, 5);
    *state = &t;
    return 0;
}

static void test_trend_step(void **state)
{
    Trend *t = *state;
    double *v = t->v;
    SettleTrendPoint *p = t->p;
    SettleChange *ch = t->ch;
    assert_int_equal(settle_trend_changes(p, 8, &t->ts, ch, 8, &t->n), 0);
    assert_int_equal(t->n, 1);
    assert_int_equal(ch[0].at, 5);
    assert_true(fabs(ch[0].step - 0.25) < 0.01);
    assert_true(ch[0].ci_low <= 0.25 && ch[0].ci_high >= 0.25);
    assert_true(ch[0].p < 0.05);
    assert_true(fabs(ch[0].before - 1.2) < 0.01 && fabs(ch[0].after - 1.45) < 0.01);
    /* smaller than the minimum effect: none */
    t->ts.min_effect = 0.3;
    assert_int_equal(settle_trend_changes(p, 8, &t->ts, ch, 8, &t->n), 0);
    assert_int_equal(t->n, 0);
    /* at the newest night */
    settle_trend_default_settings(&t->ts);
    series(v, p, 0.25, 7);
    assert_int_equal(settle_trend_changes(p, 8, &t->ts, ch, 8, &t->n), 0);
    assert_int_equal(t->n, 1);
    assert_int_equal(ch[0].at, 7);
    /* a single odd night at 3: none */
    series(v, p, 0, 8);
    for (int c = 0; c < 3; c++)
        v[9 + c] += 0.3;
    assert_int_equal(settle_trend_changes(p, 8, &t->ts, ch, 8, &t->n), 0);
    assert_int_equal(t->n, 0);
}

static void test_trend_edges(void **state)
{
    Trend *t = *state;
    double *v = t->v;
    SettleTrendPoint *p = t->p;
    SettleChange *ch = t->ch;
    assert_int_equal(settle_trend_changes(p, 1, &t->ts, ch, 8, &t->n), 0);
    assert_int_equal(t->n, 0);
    assert_int_equal(settle_trend_changes(p, 0, &t->ts, ch, 8, &t->n), 0);
    assert_int_equal(t->n, 0);
    t->ts.max_changes = 0;
    assert_int_equal(settle_trend_changes(p, 8, &t->ts, ch, 8, &t->n), 0);
    assert_int_equal(t->n, 0);
    settle_trend_default_settings(&t->ts);
    t->ts.permutations = 10;
    assert_int_equal(settle_trend_changes(p, 8, &t->ts, ch, 8, &t->n), SETTLE_ERR_INVAL);
    settle_trend_default_settings(&t->ts);
    t->ts.alpha = 0;
    assert_int_equal(settle_trend_changes(p, 8, &t->ts, ch, 8, &t->n), SETTLE_ERR_INVAL);
    settle_trend_default_settings(&t->ts);
    p[3].n = 0;
    assert_int_equal(settle_trend_changes(p, 8, &t->ts, ch, 8, &t->n), SETTLE_ERR_INVAL);
    p[3].n = 3;
    v[4] = INFINITY;
    assert_int_equal(settle_trend_changes(p, 8, &t->ts, ch, 8, &t->n), SETTLE_ERR_INVAL);
    /* every value the same: nothing to find */
    for (int i = 0; i < 24; i++)
        v[i] = 2;
    assert_int_equal(settle_trend_changes(p, 8, &t->ts, ch, 8, &t->n), 0);
    assert_int_equal(t->n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shift_small),
        cmocka_unit_test(test_shift_exact),
        cmocka_unit_test(test_shift_normal),
        cmocka_unit_test_setup(test_trend_step, setup_trend),
        cmocka_unit_test_setup(test_trend_edges, setup_trend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
