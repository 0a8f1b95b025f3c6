/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --settle SECONDS on presentation times (src/settle_quiet.c), on hand-made
 * series of changes: each answer is worked out by hand in the comments.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_util.h"

#include "settle_quiet.h"

/* Feeds the changes at times[0..n) (frame i at times[i]) and the end. */
static int run(SettleQuiet *q, double seconds, const double *times, int n, double end)
{
    settle_quiet_init(q, seconds);
    for (int i = 0; i < n; i++) {
        SettleBox b = { .frame = i, .time = times[i], .x = i, .y = 0, .w = 1, .h = 1,
                        .pixels = 100 + i };
        settle_quiet_change(q, &b, i, times[i]);
    }
    return settle_quiet_end(q, end);
}

static void test_gap_is_quiet(void **state)
{
    (void)state;
    SettleQuiet q;
    /* variable frame rate: after the change at 1.0 s no frame comes for
     * 3.5 s; the next frame (4.5 s) changes. 3.5 s of quiet. */
    const double t[] = { 0.2, 1.0, 4.5, 4.6 };
    assert_int_equal(run(&q, 3.0, t, 4, 5.0), 1);
    assert_int_equal(q.stable, 1);
    assert_near(q.stable_time, 1.0, 1e-12);
    assert_int_equal(q.deciding.frame, 1);
    assert_int_equal(q.deciding.pixels, 101);
    /* exactly 3.5 s counts */
    assert_int_equal(run(&q, 3.5, t, 4, 5.0), 1);
    assert_int_equal(q.stable, 1);
    /* 3.6 s: not after 1.0 (3.5 s), not after 4.6 (0.4 s to the end) */
    assert_int_equal(run(&q, 3.6, t, 4, 5.0), 0);
    assert_int_equal(q.stable, -1);
    assert_near(q.longest, 3.5, 1e-12);
    assert_near(q.longest_from, 1.0, 1e-12);
    assert_int_equal(q.longest_frame, 1);
}

static void test_end_is_quiet(void **state)
{
    (void)state;
    SettleQuiet q;
    /* the last change at 2.0 s, the recording ends at 4.0 s (the last
     * frame's time plus its duration): 2 s of quiet */
    const double t[] = { 0.5, 1.0, 2.0 };
    assert_int_equal(run(&q, 2.0, t, 3, 4.0), 1);
    assert_int_equal(q.stable, 2);
    assert_int_equal(run(&q, 2.01, t, 3, 4.0), 0);
    assert_near(q.longest, 2.0, 1e-12);
    assert_int_equal(q.longest_frame, 2);
    /* the last frame changes and lasts to the end */
    const double u[] = { 2.5, 3.0 };
    assert_int_equal(run(&q, 1.0, u, 2, 4.0), 1);
    assert_int_equal(q.stable, 1);
}

static void test_pause_in_loading(void **state)
{
    (void)state;
    SettleQuiet q;
    /* loading: changes at 0.5 and 1.0, a pause of 2.5 s, changes at 3.5
     * and 4.0, then nothing to the end at 8.0 s */
    const double t[] = { 0.5, 1.0, 3.5, 4.0 };
    /* a pause longer than SECONDS ends the measurement there */
    assert_int_equal(run(&q, 2.0, t, 4, 8.0), 1);
    assert_int_equal(q.stable, 1);
    assert_near(q.stable_time, 1.0, 1e-12);
    /* a pause shorter than SECONDS does not */
    assert_int_equal(run(&q, 3.0, t, 4, 8.0), 1);
    assert_int_equal(q.stable, 3);
    assert_near(q.stable_time, 4.0, 1e-12);
    assert_int_equal(q.deciding.frame, 3);
    /* the first stretch found is the answer, not the longest */
    assert_int_equal(run(&q, 0.5, t, 4, 8.0), 1);
    assert_int_equal(q.stable, 0);
}

static void test_nothing_changed(void **state)
{
    (void)state;
    SettleQuiet q;
    assert_int_equal(run(&q, 1.0, NULL, 0, 10.0), 0);
    assert_int_equal(q.have, 0);
    assert_true(isnan(q.longest));
    assert_int_equal(q.stable, -1);
}

static void test_never_before_first(void **state)
{
    (void)state;
    SettleQuiet q;
    settle_quiet_init(&q, 1.0);
    /* the rolling mean places the picture before the change: held at the change */
    SettleBox a = { .frame = 7, .time = 0.7, .w = 0 };
    settle_quiet_change(&q, &a, 5, 0.5);
    assert_int_equal(settle_quiet_end(&q, 3.0), 1);
    assert_int_equal(q.stable, 7);
    assert_near(q.stable_time, 0.7, 1e-12);
    /* a later change may settle earlier than itself, but not before the first */
    settle_quiet_init(&q, 1.0);
    SettleBox b = { .frame = 9, .time = 0.9, .w = 0 };
    settle_quiet_change(&q, &a, 7, 0.7);
    settle_quiet_change(&q, &b, 8, 0.8);
    assert_int_equal(settle_quiet_end(&q, 3.0), 1);
    assert_int_equal(q.stable, 8);
    assert_int_equal(q.deciding.frame, 9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gap_is_quiet),
        cmocka_unit_test(test_end_is_quiet),
        cmocka_unit_test(test_pause_in_loading),
        cmocka_unit_test(test_nothing_changed),
        cmocka_unit_test(test_never_before_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
