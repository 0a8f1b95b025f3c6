/* SPDX-License-Identifier: BSD-2-Clause */
/* Option parsing, printing and checks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include "settle/settle.h"

static void test_defaults(void **state)
{
    (void)state;
    SettleSettings s;
    settle_default_settings(&s);
    assert_int_equal(s.method, SETTLE_METHOD_AUTO);
    assert_int_equal(s.tolerance, 5);
    assert_near(s.diff_threshold, 4096, 0);
    assert_near(s.entropy_threshold, 0.05, 0);
    assert_int_equal(s.window, 5);
    assert_int_equal(s.start, SETTLE_START_FIRST_FRAME);
    assert_int_equal(s.codec_filter, 1);
    assert_int_equal(settle_settings_check(&s, NULL, 0), 0);
    /* every option of the table prints its default and reads it back */
    char buf[128], err[256];
    for (const SettleOption *o = settle_options(); o->name; o++) {
        assert_true(settle_settings_get(&s, o->name, buf, sizeof(buf)) > 0);
        SettleSettings t;
        settle_default_settings(&t);
        assert_int_equal(settle_settings_set(&t, o->name, buf, err, sizeof(err)), 0);
        assert_memory_equal(&s, &t, sizeof(s));
        assert_int_equal(settle_settings_set(&t, o->name, o->dflt, err, sizeof(err)), 0);
    }
}

static void test_valid_values(void **state)
{
    (void)state;
    SettleSettings s;
    char err[256], buf[128];
    settle_default_settings(&s);
    assert_int_equal(settle_settings_set(&s, "diff-threshold", "0.5%", err, sizeof(err)), 0);
    assert_near(s.diff_threshold_percent, 0.5, 0);
    settle_settings_get(&s, "diff-threshold", buf, sizeof(buf));
    assert_string_equal(buf, "0.5%");
    assert_int_equal(settle_settings_set(&s, "diff-threshold", "2048", err, sizeof(err)), 0);
    assert_near(s.diff_threshold, 2048, 0);
    assert_near(s.diff_threshold_percent, 0, 0);
    assert_int_equal(settle_settings_set(&s, "start", "marker-end:#DE640D", err, sizeof(err)), 0);
    assert_int_equal(s.start, SETTLE_START_MARKER_END);
    assert_int_equal(s.marker_rgb[0], 0xde);
    assert_int_equal(s.marker_rgb[1], 0x64);
    assert_int_equal(s.marker_rgb[2], 0x0d);
    settle_settings_get(&s, "start", buf, sizeof(buf));
    assert_string_equal(buf, "marker-end:#de640d");
    assert_int_equal(settle_settings_set(&s, "start", "marker:2a6df4", err, sizeof(err)), 0);
    assert_int_equal(s.start, SETTLE_START_MARKER);
    assert_int_equal(settle_settings_set(&s, "start", "3.25", err, sizeof(err)), 0);
    assert_int_equal(s.start, SETTLE_START_TIME);
    assert_near(s.start_time, 3.25, 0);
    assert_int_equal(settle_settings_set(&s, "start", "first-change", err, sizeof(err)), 0);
    assert_int_equal(s.start, SETTLE_START_FIRST_CHANGE);
    assert_int_equal(settle_settings_set(&s, "method", "entropy", err, sizeof(err)), 0);
    assert_int_equal(s.method, SETTLE_METHOD_ENTROPY);
    assert_int_equal(settle_settings_set(&s, "settle", "1.5", err, sizeof(err)), 0);
    assert_near(s.settle, 1.5, 0);
    assert_int_equal(settle_settings_set(&s, "marker-coverage", "75%", err, sizeof(err)), 0);
    assert_near(s.marker_coverage, 0.75, 1e-12);
    assert_int_equal(settle_settings_set(&s, "codec-filter", "off", err, sizeof(err)), 0);
    assert_int_equal(s.codec_filter, 0);
    assert_int_equal(settle_settings_check(&s, err, sizeof(err)), 0);
}

static void expect_invalid(const char *name, const char *value, const char *says)
{
    SettleSettings s, before;
    char err[256] = "";
    settle_default_settings(&s);
    before = s;
    assert_int_equal(settle_settings_set(&s, name, value, err, sizeof(err)), SETTLE_ERR_INVAL);
    assert_non_null(strstr(err, says));
    /* a rejected value leaves the settings as they were */
    assert_memory_equal(&s, &before, sizeof(s));
}

static void test_invalid_values(void **state)
{
    (void)state;
    expect_invalid("diff-threshold", "x", "expected pixels or a percentage, got 'x'");
    expect_invalid("diff-threshold", "-3", "expected pixels or a percentage");
    expect_invalid("diff-threshold", "12.5", "expected pixels or a percentage");
    expect_invalid("diff-threshold", "150%", "expected pixels or a percentage");
    expect_invalid("diff-threshold", "", "expected pixels");
    expect_invalid("tolerance", "256", "expected levels from 0 to 255");
    expect_invalid("tolerance", "5x", "expected levels");
    expect_invalid("entropy-threshold", "nan", "expected bits");
    expect_invalid("window", "0", "expected frames from 1");
    expect_invalid("method", "magic", "expected auto, diff, entropy or blocks");
    expect_invalid("start", "marker:#12345", "expected a colour");
    expect_invalid("start", "marker-end:orange!", "expected a colour");
    expect_invalid("start", "-1", "expected first-frame");
    expect_invalid("start", "soon", "expected first-frame");
    expect_invalid("settle", "-0.5", "expected seconds");
    expect_invalid("settle", "inf", "expected seconds");
    expect_invalid("marker-coverage", "0%", "expected a percentage");
    expect_invalid("codec-filter", "yes", "expected on or off");
    expect_invalid("threads", "1000", "expected a thread count");
    expect_invalid("no-such-option", "1", "unknown option");
}

static void test_check_and_open(void **state)
{
    (void)state;
    SettleSettings s;
    char err[256];
    settle_default_settings(&s);
    s.window = 0;
    assert_int_equal(settle_settings_check(&s, err, sizeof(err)), SETTLE_ERR_INVAL);
    assert_non_null(strstr(err, "--window"));
    SettleContext *c = (SettleContext *)&s; /* must be reset to NULL on failure */
    assert_int_equal(settle_open(&c, &s), SETTLE_ERR_INVAL);
    assert_null(c);
    s.window = 5;
    s.entropy_threshold = NAN;
    assert_int_equal(settle_settings_check(&s, err, sizeof(err)), SETTLE_ERR_INVAL);
    assert_int_equal(settle_open(&c, NULL), 0);
    assert_non_null(c);
    settle_close(&c);
    assert_null(c);
    settle_close(&c); /* safe on NULL */
    assert_string_equal(settle_strerror(SETTLE_ERR_NO_VIDEO), "no video stream");
}

/* --crop auto, --ignore (repeatable, a list read back as written) and --blur. */
static void test_camera_options(void **state)
{
    (void)state;
    SettleSettings s;
    char buf[512], err[256];
    settle_default_settings(&s);
    assert_int_equal(s.nignore, 0);
    assert_int_equal(s.blur, SETTLE_BLUR_NONE);
    assert_int_equal(settle_settings_set(&s, "crop", "auto", err, sizeof(err)), 0);
    assert_int_equal(s.crop, SETTLE_CROP_AUTO);
    assert_true(settle_settings_get(&s, "crop", buf, sizeof(buf)) > 0);
    assert_string_equal(buf, "auto");

    assert_int_equal(settle_settings_set(&s, "ignore", "10,20,30,40", err, sizeof(err)), 0);
    assert_int_equal(settle_settings_set(&s, "ignore", "0,0,5,6;7,8,9,10", err, sizeof(err)), 0);
    assert_int_equal(s.nignore, 3);
    assert_int_equal(s.ignore[2][3], 10);
    assert_true(settle_settings_get(&s, "ignore", buf, sizeof(buf)) > 0);
    assert_string_equal(buf, "10,20,30,40;0,0,5,6;7,8,9,10");
    SettleSettings t;
    settle_default_settings(&t);
    assert_int_equal(settle_settings_set(&t, "ignore", buf, err, sizeof(err)), 0);
    assert_int_equal(t.nignore, 3);
    assert_memory_equal(t.ignore, s.ignore, sizeof(s.ignore));
    assert_int_equal(settle_settings_check(&s, err, sizeof(err)), 0);
    assert_int_equal(settle_settings_set(&s, "ignore", "none", err, sizeof(err)), 0);
    assert_int_equal(s.nignore, 0);
    static const char *const bad_ignore[] = { "", "1,2,3", "1,2,0,4", "-1,2,3,4", "1,2,3,4;",
                                              "1,2,3,4x", " 1,2,3,4", "a" };
    for (size_t i = 0; i < sizeof(bad_ignore) / sizeof(bad_ignore[0]); i++) {
        err[0] = 0;
        assert_int_equal(settle_settings_set(&s, "ignore", bad_ignore[i], err, sizeof(err)),
                         SETTLE_ERR_INVAL);
        assert_non_null(strstr(err, "X,Y,W,H"));
    }
    for (int i = 0; i < SETTLE_MAX_IGNORE; i++)
        assert_int_equal(settle_settings_set(&s, "ignore", "1,1,1,1", err, sizeof(err)), 0);
    assert_int_equal(settle_settings_set(&s, "ignore", "1,1,1,1", err, sizeof(err)),
                     SETTLE_ERR_INVAL);
    assert_int_equal(s.nignore, SETTLE_MAX_IGNORE);

    static const struct { const char *in, *out; SettleBlur kind; int r; } blur[] = {
        { "2", "box:2", SETTLE_BLUR_BOX, 2 },      { "box:8", "box:8", SETTLE_BLUR_BOX, 8 },
        { "median:1", "median:1", SETTLE_BLUR_MEDIAN, 1 },
        { "median:2", "median:2", SETTLE_BLUR_MEDIAN, 2 },
        { "off", "off", SETTLE_BLUR_NONE, 0 },     { "0", "off", SETTLE_BLUR_NONE, 0 },
    };
    for (size_t i = 0; i < sizeof(blur) / sizeof(blur[0]); i++) {
        assert_int_equal(settle_settings_set(&s, "blur", blur[i].in, err, sizeof(err)), 0);
        assert_int_equal(s.blur, blur[i].kind);
        assert_int_equal(s.blur_radius, blur[i].r);
        assert_true(settle_settings_get(&s, "blur", buf, sizeof(buf)) > 0);
        assert_string_equal(buf, blur[i].out);
    }
    static const char *const bad_blur[] = { "9", "box:0", "median:3", "gauss:1", "-1", "" };
    for (size_t i = 0; i < sizeof(bad_blur) / sizeof(bad_blur[0]); i++)
        assert_int_equal(settle_settings_set(&s, "blur", bad_blur[i], err, sizeof(err)),
                         SETTLE_ERR_INVAL);
    assert_int_equal(settle_settings_set(&s, "noise-factor", "2.5", err, sizeof(err)), 0);
    assert_true(s.noise_factor == 2.5);
    assert_int_equal(settle_settings_set(&s, "noise-factor", "-1", err, sizeof(err)),
                     SETTLE_ERR_INVAL);
    assert_int_equal(settle_settings_set(&s, "noise-factor", "x", err, sizeof(err)),
                     SETTLE_ERR_INVAL);
    s.blur = SETTLE_BLUR_MEDIAN;
    s.blur_radius = 3;
    assert_int_equal(settle_settings_check(&s, err, sizeof(err)), SETTLE_ERR_INVAL);
    assert_non_null(strstr(err, "--blur"));
}

/* --ignore animated (beside rectangles) and --region NAME=X,Y,W,H. */
static void test_screen_options(void **state)
{
    (void)state;
    SettleSettings s, t;
    char buf[512], err[256];
    settle_default_settings(&s);
    assert_int_equal(s.ignore_animated, 0);
    assert_int_equal(s.nregions, 0);
    assert_true(settle_settings_get(&s, "region", buf, sizeof(buf)) > 0);
    assert_string_equal(buf, "none");
    assert_int_equal(settle_settings_set(&s, "ignore", "1,2,3,4", err, sizeof(err)), 0);
    assert_int_equal(settle_settings_set(&s, "ignore", "animated", err, sizeof(err)), 0);
    assert_int_equal(s.ignore_animated, 1);
    assert_int_equal(s.nignore, 1);
    assert_true(settle_settings_get(&s, "ignore", buf, sizeof(buf)) > 0);
    assert_string_equal(buf, "animated;1,2,3,4");
    settle_default_settings(&t);
    assert_int_equal(settle_settings_set(&t, "ignore", buf, err, sizeof(err)), 0);
    assert_int_equal(t.ignore_animated, 1);
    assert_int_equal(t.nignore, 1);
    assert_int_equal(settle_settings_set(&s, "ignore", "none", err, sizeof(err)), 0);
    assert_int_equal(s.ignore_animated, 0);
    assert_int_equal(settle_settings_set(&s, "ignore", "animatedx", err, sizeof(err)),
                     SETTLE_ERR_INVAL);

    assert_int_equal(settle_settings_set(&s, "region", "hero=10,20,300,200", err, sizeof(err)), 0);
    assert_int_equal(settle_settings_set(&s, "region", "list-2=0,400,320,80;hero=1,2,3,4", err,
                                         sizeof(err)), 0);
    assert_int_equal(s.nregions, 2); /* hero given again: replaced */
    assert_string_equal(s.region_name[0], "hero");
    assert_int_equal(s.region[0][3], 4);
    assert_true(settle_settings_get(&s, "region", buf, sizeof(buf)) > 0);
    assert_string_equal(buf, "hero=1,2,3,4;list-2=0,400,320,80");
    settle_default_settings(&t);
    assert_int_equal(settle_settings_set(&t, "region", buf, err, sizeof(err)), 0);
    assert_int_equal(t.nregions, 2);
    assert_memory_equal(t.region, s.region, sizeof(s.region));
    assert_int_equal(settle_settings_check(&s, err, sizeof(err)), 0);
    static const char *const bad[] = { "", "=1,2,3,4", "a b=1,2,3,4", "a=1,2,3", "a=1,2,0,4",
                                       "a=1,2,3,4;", "a=-1,2,3,4",
                                       "abcdefghijabcdefghijabcdefghijab=1,1,1,1", "1,2,3,4" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        assert_int_equal(settle_settings_set(&s, "region", bad[i], err, sizeof(err)),
                         SETTLE_ERR_INVAL);
        assert_non_null(strstr(err, "NAME=X,Y,W,H"));
    }
    assert_int_equal(s.nregions, 2); /* a refused value changes nothing */
    for (int i = 2; i < SETTLE_MAX_REGIONS; i++) {
        char v[32];
        snprintf(v, sizeof(v), "r%d=1,1,1,1", i);
        assert_int_equal(settle_settings_set(&s, "region", v, err, sizeof(err)), 0);
    }
    assert_int_equal(settle_settings_set(&s, "region", "more=1,1,1,1", err, sizeof(err)),
                     SETTLE_ERR_INVAL);
    assert_int_equal(settle_settings_set(&s, "region", "none", err, sizeof(err)), 0);
    assert_int_equal(s.nregions, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_valid_values),
        cmocka_unit_test(test_invalid_values),
        cmocka_unit_test(test_check_and_open),
        cmocka_unit_test(test_camera_options),
        cmocka_unit_test(test_screen_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
