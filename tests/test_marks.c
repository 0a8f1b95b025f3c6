/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The marks parsers on samples written by hand from the documented formats
 * (tests/marks/), malformed and truncated lines, and the placement rules.
 * argv[1]: the folder of samples.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "settle/marks.h"

static const char *samples = "tests/marks";

#define assert_near(a, b) assert_near_at((a), (b), #a, __FILE__, __LINE__)

static void assert_near_at(double a, double b, const char *what, const char *file, int line)
{
    if (!(fabs(a - b) <= 1e-6)) {
        print_error("%s is %.9f, expected %.9f\n", what, a, b);
        _fail(file, line);
    }
}

/* Reads sample `name` into a new set; returns the format. */
static int read_sample(SettleMarks **m, const char *name, char *err, size_t errlen)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", samples, name);
    assert_int_equal(settle_marks_new(m), 0);
    return settle_marks_read(*m, path, err, errlen);
}

static const SettleMark *mark(const SettleMarks *m, int i)
{
    const SettleMark *k = settle_marks_get(m, i);
    assert_non_null(k);
    return k;
}

/* Ends with "name:line" */
static void assert_source(const SettleMark *k, const char *file, long line)
{
    char want[256];
    snprintf(want, sizeof(want), "/%s:%ld", file, line);
    size_t n = strlen(want), len = strlen(k->source);
    if (len < n || strcmp(k->source + len - n, want)) {
        print_error("source is %s, expected ...%s\n", k->source, want);
        fail();
    }
}

static void test_threadtime_android14(void **state)
{
    (void)state;
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(read_sample(&m, "logcat-threadtime-a14.txt", err, sizeof(err)),
                     SETTLE_MARKS_LOGCAT);
    assert_int_equal(settle_marks_count(m), 2);
    const SettleMark *d = mark(m, 0), *f = mark(m, 1);
    assert_string_equal(d->name, "Displayed com.example.app/.MainActivity");
    assert_int_equal(d->clock, SETTLE_MARK_CLOCK_LAUNCH);
    assert_near(d->value, 0.797);
    assert_int_equal(d->stamp_clock, SETTLE_MARK_CLOCK_WALL_NOYEAR);
    /* 23 January 12:34:55.798 */
    assert_near(d->stamp, 22 * 86400.0 + 12 * 3600 + 34 * 60 + 55.798);
    assert_source(d, "logcat-threadtime-a14.txt", 5);
    assert_string_equal(f->name, "Fully drawn com.example.app/.MainActivity");
    assert_near(f->value, 2.234);
    assert_source(f, "logcat-threadtime-a14.txt", 7);
    settle_marks_free(&m);
    assert_null(m);
}

static void test_threadtime_android10(void **state)
{
    (void)state;
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(read_sample(&m, "logcat-threadtime-a10.txt", err, sizeof(err)),
                     SETTLE_MARKS_LOGCAT);
    assert_int_equal(settle_marks_count(m), 2);
    assert_near(mark(m, 0)->value, 1.234);
    assert_near(mark(m, 1)->value, 144.378);
    assert_string_equal(mark(m, 1)->name, "Fully drawn com.example.app/.MainActivity");
    settle_marks_free(&m);
}

static void test_time_android4_total(void **state)
{
    (void)state;
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(read_sample(&m, "logcat-time-a4.txt", err, sizeof(err)),
                     SETTLE_MARKS_LOGCAT);
    assert_int_equal(settle_marks_count(m), 2);
    /* the total is from the launch of the first activity of the chain */
    assert_string_equal(mark(m, 0)->name, "Displayed com.android.calculator2/.Calculator");
    assert_near(mark(m, 0)->value, 1.503);
    assert_near(mark(m, 1)->value, 1.907);
    assert_int_equal(mark(m, 0)->stamp_clock, SETTLE_MARK_CLOCK_WALL_NOYEAR);
    settle_marks_free(&m);
}

static void test_brief_and_tag(void **state)
{
    (void)state;
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(read_sample(&m, "logcat-brief-a4.txt", err, sizeof(err)),
                     SETTLE_MARKS_LOGCAT);
    assert_int_equal(settle_marks_count(m), 2);
    assert_near(mark(m, 0)->value, 144.378);
    assert_near(mark(m, 1)->value, 3723.004);
    assert_int_equal(mark(m, 0)->stamp_clock, SETTLE_MARK_CLOCK_NONE);
    assert_source(mark(m, 1), "logcat-brief-a4.txt", 3);
    settle_marks_free(&m);

    assert_int_equal(read_sample(&m, "logcat-tag.txt", err, sizeof(err)), SETTLE_MARKS_LOGCAT);
    assert_int_equal(settle_marks_count(m), 2);
    assert_near(mark(m, 0)->value, 0);
    assert_near(mark(m, 1)->value, 0);
    settle_marks_free(&m);
}

static void test_epoch_gamebench(void **state)
{
    (void)state;
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(read_sample(&m, "logcat-epoch-a12.txt", err, sizeof(err)),
                     SETTLE_MARKS_LOGCAT);
    assert_int_equal(settle_marks_count(m), 3);
    assert_int_equal(mark(m, 0)->stamp_clock, SETTLE_MARK_CLOCK_EPOCH);
    assert_near(mark(m, 0)->stamp, 1706013296.809);
    assert_string_equal(mark(m, 1)->name, "Login screen start");
    assert_string_equal(mark(m, 2)->name, "Login screen stop");
    assert_int_equal(mark(m, 2)->clock, SETTLE_MARK_CLOCK_EPOCH);
    assert_near(mark(m, 2)->value, 1706013298.351);
    settle_marks_free(&m);

    assert_int_equal(read_sample(&m, "gamebench-brief.txt", err, sizeof(err)),
                     SETTLE_MARKS_LOGCAT);
    assert_int_equal(settle_marks_count(m), 2);
    assert_string_equal(mark(m, 0)->name, "Level 1 start");
    assert_int_equal(mark(m, 0)->clock, SETTLE_MARK_CLOCK_NONE);
    settle_marks_free(&m);
}

static void test_monotonic_year_zone(void **state)
{
    (void)state;
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(read_sample(&m, "logcat-monotonic-a13.txt", err, sizeof(err)),
                     SETTLE_MARKS_LOGCAT);
    assert_int_equal(settle_marks_count(m), 2);
    assert_int_equal(mark(m, 1)->stamp_clock, SETTLE_MARK_CLOCK_MONOTONIC);
    assert_near(mark(m, 1)->stamp, 12347.246);
    settle_marks_free(&m);

    assert_int_equal(read_sample(&m, "logcat-year-usec-zone-uid.txt", err, sizeof(err)),
                     SETTLE_MARKS_LOGCAT);
    assert_int_equal(settle_marks_count(m), 1);
    /* 2024-01-23 12:34:55.798765 +0100 is 11:34:55.798765 UTC */
    assert_int_equal(mark(m, 0)->stamp_clock, SETTLE_MARK_CLOCK_EPOCH);
    assert_near(mark(m, 0)->stamp, 1706009695.798765);
    assert_string_equal(mark(m, 0)->name, "Displayed com.example.app/.MainActivity");
    settle_marks_free(&m);
}

static void test_am_start(void **state)
{
    (void)state;
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(read_sample(&m, "am-start-w.txt", err, sizeof(err)),
                     SETTLE_MARKS_AM_START);
    assert_int_equal(settle_marks_count(m), 2);
    assert_string_equal(mark(m, 0)->name, "TotalTime");
    assert_near(mark(m, 0)->value, 0.797);
    assert_string_equal(mark(m, 1)->name, "WaitTime");
    assert_near(mark(m, 1)->value, 0.812);
    assert_source(mark(m, 1), "am-start-w.txt", 6);
    settle_marks_free(&m);

    assert_int_equal(read_sample(&m, "am-start-w-old.txt", err, sizeof(err)),
                     SETTLE_MARKS_AM_START);
    assert_int_equal(settle_marks_count(m), 3);
    assert_string_equal(mark(m, 0)->name, "ThisTime");
    assert_near(mark(m, 1)->value, 1.503);
    settle_marks_free(&m);
}

static void test_macrobenchmark(void **state)
{
    (void)state;
    SettleMarks *m;
    char err[256] = "";
    const char *f = "StartupBenchmark_startup-benchmarkData.json";
    assert_int_equal(read_sample(&m, f, err, sizeof(err)), SETTLE_MARKS_MACROBENCHMARK);
    assert_int_equal(settle_marks_count(m), 6);
    assert_string_equal(mark(m, 0)->name, "timeToInitialDisplayMs");
    assert_near(mark(m, 0)->value, 0.440035989);
    assert_int_equal(mark(m, 2)->run, 2);
    assert_int_equal(mark(m, 2)->runs, 3);
    assert_non_null(strstr(mark(m, 5)->source, "timeToFullDisplayMs.runs[2]"));
    assert_near(mark(m, 5)->value, 0.963759896);

    /* several iterations and none chosen: not placed, and says why */
    SettleMarkClocks k;
    settle_default_mark_clocks(&k);
    k.launch_time = 0.5;
    assert_int_equal(settle_marks_place(m, &k), 0);
    assert_non_null(strstr(mark(m, 0)->reason, "--mark-run"));
    settle_marks_free(&m);

    assert_int_equal(settle_marks_new(&m), 0);
    settle_marks_set_run(m, 1);
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", samples, f);
    assert_int_equal(settle_marks_read(m, path, err, sizeof(err)), SETTLE_MARKS_MACROBENCHMARK);
    assert_int_equal(settle_marks_count(m), 2);
    assert_int_equal(settle_marks_place(m, &k), 2);
    assert_near(mark(m, 0)->time, 0.5 + 0.459768281);
    assert_near(mark(m, 1)->time, 0.5 + 0.851603906);
    settle_marks_free(&m);

    assert_int_equal(settle_marks_new(&m), 0);
    settle_marks_set_run(m, 3);
    assert_int_equal(settle_marks_read(m, path, err, sizeof(err)), SETTLE_ERR_INVAL);
    assert_non_null(strstr(err, "3 iterations, no iteration 3"));
    assert_int_equal(settle_marks_count(m), 0);
    settle_marks_free(&m);
}

static void test_csv(void **state)
{
    (void)state;
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(read_sample(&m, "marks.csv", err, sizeof(err)), SETTLE_MARKS_CSV);
    assert_int_equal(settle_marks_count(m), 3);
    assert_string_equal(mark(m, 1)->name, "feed, cached");
    assert_string_equal(mark(m, 2)->name, "the \"real\" content");
    assert_int_equal(mark(m, 2)->clock, SETTLE_MARK_CLOCK_CAPTURE);
    SettleMarkClocks k;
    settle_default_mark_clocks(&k);
    assert_int_equal(settle_marks_place(m, &k), 3);
    assert_near(mark(m, 2)->time, 2.125);
    assert_int_equal(mark(m, 2)->placed_by, SETTLE_MARK_BY_CAPTURE);
    settle_marks_set_gaps(m, 2.0);
    assert_near(mark(m, 0)->gap, 1.2);
    assert_near(mark(m, 2)->gap, -0.125);
    settle_marks_free(&m);
}

/* One buffer: the return and, on error, that err contains `want`. */
static void parse_expect(const char *text, int want_ret, const char *want)
{
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(settle_marks_new(&m), 0);
    int ret = settle_marks_parse(m, "bad.txt", text, strlen(text), err, sizeof(err));
    if (ret != want_ret || (want && !strstr(err, want))) {
        print_error("'%s': returned %d (%s), expected %d with '%s'\n", text, ret, err, want_ret,
                    want ? want : "");
        fail();
    }
    if (ret < 0)
        assert_int_equal(settle_marks_count(m), 0);
    settle_marks_free(&m);
}

static void test_malformed(void **state)
{
    (void)state;
    const int E = SETTLE_ERR_INVAL;
    /* truncated in the duration, in the component, at the end of the file */
    parse_expect("01-23 12:34:55.798  1532  1587 I ActivityTaskManager: Displayed com.x/.A: +7",
                 E, "bad.txt:1: malformed Displayed line");
    parse_expect("01-23 12:34:55.798  1532  1587 I ActivityTaskManager: Displayed com.x/.A",
                 E, "bad.txt:1: malformed Displayed");
    parse_expect("01-23 12:34:55.798  1532  1587 I ActivityTaskManager: Displayed com.x/.A: +1s2ms\n"
                 "01-23 12:34:55.9", E, "bad.txt:2: not a logcat line (truncated?)");
    parse_expect("I/ActivityManager(  585): Displayed com.x/.A: +850ms (total +1s5",
                 E, "bad.txt:1: malformed Displayed");
    parse_expect("I/ActivityManager(  585): Fully drawn com.x/.A for user x: +850ms",
                 E, "bad.txt:1: malformed Fully drawn");
    /* units out of order, unknown units */
    parse_expect("I/ActivityManager(  585): Displayed com.x/.A: +5ms3s", E, "malformed");
    parse_expect("I/ActivityManager(  585): Displayed com.x/.A: +5us", E, "malformed");
    parse_expect("I/ActivityManager(  585): Displayed com.x/.A: -5ms", E, "malformed");
    /* a line in another form in the middle of a logcat */
    parse_expect("01-23 12:34:55.798  1532  1587 I ActivityTaskManager: hello\nhello world\n",
                 E, "bad.txt:2: not a logcat line");
    /* clocks mixed in one file */
    parse_expect("1706013296.809  1532  1587 I X: a\n 12345.809  1532  1587 I X: b\n",
                 E, "bad.txt:2: a monotonic time stamp after epoch ones (line 1)");
    parse_expect("I/GameBench( 4242): gb_marker_start - \n", E, "bad.txt:1: gb_marker_start");
    /* am start -W */
    parse_expect("Starting: Intent { cmp=a/.B }\nTotalTime: 7x9\n", E,
                 "bad.txt:2: TotalTime: expected milliseconds");
    parse_expect("Status: ok\nTotalTime: \n", E, "bad.txt:2");
    parse_expect("Starting: Intent { cmp=a/.B }\nsomething else\n", E, "bad.txt:2: not a line");
    /* JSON */
    parse_expect("{\"benchmarks\": [{\"metrics\": {\"timeToInitialDisplayMs\": {\"runs\": [1.5, ",
                 E, "bad.txt: not valid JSON");
    parse_expect("{\"name\": 1}", E, "not Macrobenchmark output");
    parse_expect("{\"benchmarks\": [{\"metrics\": {\"timeToFullDisplayMs\": {\"runs\": [1, \"x\"]}}}]}",
                 E, "timeToFullDisplayMs.runs[1]: expected milliseconds");
    parse_expect("{\"benchmarks\": [{\"metrics\": {\"timeToFullDisplayMs\": {\"runs\": []}}}]}",
                 E, "expected an array");
    parse_expect("{\"benchmarks\": [3]}", E, "benchmarks[0]: expected an object");
    /* CSV */
    parse_expect("time,name\n1.5,a\n2.x,b\n", E, "bad.txt:3: expected seconds,name");
    parse_expect("time,name\n1.5,\n", E, "bad.txt:2: the name is empty");
    parse_expect("1.5,\"a\n", E, "bad.txt:1: the name is empty or badly quoted");
    /* nothing known */
    parse_expect("hello\nworld\n", E, "bad.txt:1: not a logcat, am start -W output");
    parse_expect("", E, "bad.txt: empty");
    parse_expect("\n\n  \n", E, "bad.txt: empty");
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(settle_marks_new(&m), 0);
    assert_int_equal(settle_marks_parse(m, "bin.mp4", "abc\0def", 7, err, sizeof(err)), E);
    assert_non_null(strstr(err, "bin.mp4: binary data"));
    settle_marks_free(&m);
    /* well-formed, no marks: recognised, nothing added */
    parse_expect("01-23 12:34:55.798  1532  1587 I ActivityTaskManager: hello\n",
                 SETTLE_MARKS_LOGCAT, NULL);
    parse_expect("{\"benchmarks\": []}", SETTLE_MARKS_MACROBENCHMARK, NULL);
}

static void test_durations_and_stamps(void **state)
{
    (void)state;
    static const struct { const char *d; double sec; } ok[] = {
        { "+797ms", 0.797 }, { "+1s234ms", 1.234 }, { "+2m24s378ms", 144.378 }, { "+5s", 5 },
        { "+1d1ms", 86400.001 }, { "0", 0 }, { "+0ms", 0 }, { "+1h0m0s5ms", 3600.005 },
    };
    char line[256];
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        SettleMarks *m;
        char err[256] = "";
        snprintf(line, sizeof(line), "I/ActivityManager(  585): Displayed a/.B: %s\n", ok[i].d);
        assert_int_equal(settle_marks_new(&m), 0);
        assert_int_equal(settle_marks_parse(m, "d.txt", line, strlen(line), err, sizeof(err)),
                         SETTLE_MARKS_LOGCAT);
        assert_near(mark(m, 0)->value, ok[i].sec);
        settle_marks_free(&m);
    }
    SettleMarkClock c;
    double v;
    assert_int_equal(settle_marks_parse_stamp("01-23 12:34:55.798", &c, &v), 0);
    assert_int_equal(c, SETTLE_MARK_CLOCK_WALL_NOYEAR);
    assert_near(v, 22 * 86400.0 + 12 * 3600 + 34 * 60 + 55.798);
    assert_int_equal(settle_marks_parse_stamp("1970-01-02 00:00:01.500 +0000", &c, &v), 0);
    assert_int_equal(c, SETTLE_MARK_CLOCK_EPOCH);
    assert_near(v, 86401.5);
    assert_int_equal(settle_marks_parse_stamp("  12345.678", &c, &v), 0);
    assert_int_equal(c, SETTLE_MARK_CLOCK_MONOTONIC);
    assert_int_equal(settle_marks_parse_stamp("1706013296.809123456", &c, &v), 0);
    assert_int_equal(c, SETTLE_MARK_CLOCK_EPOCH);
    static const char *const bad[] = { "", "12", "12.5", "01-23", "13-01 00:00:00.000",
                                       "01-23 12:34:55.79", "01-23 25:00:00.000",
                                       "01-23 12:34:55.798x", "1706013296.809 junk" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (settle_marks_parse_stamp(bad[i], &c, &v) != SETTLE_ERR_INVAL) {
            print_error("stamp '%s' accepted\n", bad[i]);
            fail();
        }
}

static void test_regex(void **state)
{
    (void)state;
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(settle_marks_new(&m), 0);
    assert_int_equal(settle_marks_add_regex(m, "launch=START u0", err, sizeof(err)), 0);
    assert_int_equal(settle_marks_add_regex(m, "feed=FeedLoaded in ([0-9]+ms)", err,
                                            sizeof(err)), 0);
    assert_int_equal(settle_marks_add_regex(m, "=x", err, sizeof(err)), SETTLE_ERR_INVAL);
    assert_int_equal(settle_marks_add_regex(m, "bad=(", err, sizeof(err)), SETTLE_ERR_INVAL);
    assert_non_null(strstr(err, "bad regular expression"));
    const char *log =
        "01-23 12:00:01.000  1532  1560 I ActivityTaskManager: START u0 {cmp=a/.B}\n"
        "01-23 12:00:01.800  1532  1587 I ActivityTaskManager: Displayed a/.B: +800ms\n"
        "01-23 12:00:02.500  4242  4242 I App: FeedLoaded in 1450ms\n";
    assert_int_equal(settle_marks_parse(m, "r.txt", log, strlen(log), err, sizeof(err)),
                     SETTLE_MARKS_LOGCAT);
    assert_int_equal(settle_marks_count(m), 3);
    assert_string_equal(mark(m, 0)->name, "launch");
    assert_int_equal(mark(m, 0)->clock, SETTLE_MARK_CLOCK_WALL_NOYEAR);
    assert_string_equal(mark(m, 2)->name, "feed");
    assert_int_equal(mark(m, 2)->clock, SETTLE_MARK_CLOCK_LAUNCH);
    assert_near(mark(m, 2)->value, 1.45);

    /* the anchor: START seen in the video at 0.4 s */
    SettleMarkClocks k;
    settle_default_mark_clocks(&k);
    k.launch_time = 0.4;
    k.anchor = "launch";
    assert_int_equal(settle_marks_place(m, &k), 3);
    assert_near(mark(m, 0)->time, 0.4);
    assert_int_equal(mark(m, 0)->placed_by, SETTLE_MARK_BY_ANCHOR);
    assert_near(mark(m, 1)->time, 1.2);
    assert_int_equal(mark(m, 1)->placed_by, SETTLE_MARK_BY_LAUNCH);
    assert_near(mark(m, 2)->time, 1.85);

    /* a plain text file where only the expression finds something */
    const char *text = "boot\nFeedLoaded in 300ms\n";
    assert_int_equal(settle_marks_parse(m, "t.txt", text, strlen(text), err, sizeof(err)),
                     SETTLE_MARKS_TEXT);
    assert_int_equal(settle_marks_count(m), 4);
    const char *bad = "01-23 12:00:02.500  4242  4242 I App: FeedLoaded in 14x50ms\n";
    assert_int_equal(settle_marks_add_regex(m, "x=FeedLoaded in ([0-9x]+ms)", err, sizeof(err)), 0);
    assert_int_equal(settle_marks_parse(m, "b.txt", bad, strlen(bad), err, sizeof(err)),
                     SETTLE_ERR_INVAL);
    assert_non_null(strstr(err, "b.txt:1: --mark-regex x: '14x50ms' is not a duration"));
    assert_int_equal(settle_marks_count(m), 4);
    settle_marks_free(&m);
}

static void test_place_rules(void **state)
{
    (void)state;
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(read_sample(&m, "logcat-epoch-a12.txt", err, sizeof(err)),
                     SETTLE_MARKS_LOGCAT);
    SettleMarkClocks k;
    settle_default_mark_clocks(&k);
    /* nothing given: nothing placed, every mark says why */
    assert_int_equal(settle_marks_place(m, &k), 0);
    assert_non_null(strstr(mark(m, 0)->reason, "launch"));
    assert_non_null(strstr(mark(m, 1)->reason, "--marks-zero"));
    /* the launch at 0.25 s and the log's reading at the first frame */
    k.launch_time = 0.25;
    assert_int_equal(settle_marks_parse_stamp("1706013295.762", &k.zero_clock, &k.zero), 0);
    assert_int_equal(settle_marks_place(m, &k), 3);
    assert_near(mark(m, 0)->time, 1.047);
    assert_near(mark(m, 1)->time, 1.339);
    assert_int_equal(mark(m, 1)->placed_by, SETTLE_MARK_BY_ZERO);
    settle_marks_set_gaps(m, 1.5);
    assert_near(mark(m, 0)->gap, 0.453);
    assert_near(mark(m, 2)->gap, 1.5 - 2.589);
    settle_marks_set_gaps(m, NAN);
    assert_true(isnan(mark(m, 0)->gap));
    /* a zero on another clock: refused by name */
    assert_int_equal(settle_marks_parse_stamp("  100.000", &k.zero_clock, &k.zero), 0);
    assert_int_equal(settle_marks_place(m, &k), 1);
    assert_non_null(strstr(mark(m, 1)->reason, "epoch clock, the given zero on the monotonic"));
    /* an anchor that is not there */
    k.anchor = "tap";
    assert_int_equal(settle_marks_place(m, &k), 1);
    assert_non_null(strstr(mark(m, 1)->reason, "--marks-anchor tap"));
    /* an anchor: the marker's start seen at 2.0 s */
    k.anchor = "Login screen start";
    k.anchor_time = 2.0;
    assert_int_equal(settle_marks_place(m, &k), 3);
    assert_near(mark(m, 2)->time, 3.25);
    settle_marks_free(&m);
}

static void test_device_clock_rules(void **state)
{
    (void)state;
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(read_sample(&m, "logcat-monotonic-a13.txt", err, sizeof(err)),
                     SETTLE_MARKS_LOGCAT);
    assert_int_equal(settle_marks_add_regex(m, "x=y", err, sizeof(err)), 0);
    const char *log = " 12345.900  1 2 I X: y\n 12346.000  1 2 I X: y\n 12345.000  1 2 I X: y\n";
    assert_int_equal(settle_marks_parse(m, "d.txt", log, strlen(log), err, sizeof(err)),
                     SETTLE_MARKS_LOGCAT);
    double dev[] = { 12345.100, 12345.500, 12345.950 }, cap[] = { 0, 0.4, 0.85 };
    SettleDeviceTimes d = { .version = 0, .clock = SETTLE_MARK_CLOCK_MONOTONIC,
                            .real_to_boot = NAN, .count = 3, .device = dev, .capture = cap };
    SettleMarkClocks k;
    settle_default_mark_clocks(&k);
    k.device = &d;
    assert_int_equal(settle_marks_place(m, &k), 2);
    /* frame 1 is on screen at 12345.900: 0.4 + 0.4 */
    assert_near(mark(m, 2)->time, 0.8);
    assert_int_equal(mark(m, 2)->placed_by, SETTLE_MARK_BY_DEVICE);
    assert_near(mark(m, 3)->time, 0.9);
    assert_non_null(strstr(mark(m, 4)->reason, "before the recording's first frame"));
    /* launch durations still need the launch */
    assert_non_null(strstr(mark(m, 0)->reason, "launch"));
    d.clock = SETTLE_MARK_CLOCK_BOOT;
    d.version = 2;
    assert_int_equal(settle_marks_place(m, &k), 0);
    assert_non_null(strstr(mark(m, 2)->reason, "-v epoch"));
    settle_marks_free(&m);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        samples = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threadtime_android14),
        cmocka_unit_test(test_threadtime_android10),
        cmocka_unit_test(test_time_android4_total),
        cmocka_unit_test(test_brief_and_tag),
        cmocka_unit_test(test_epoch_gamebench),
        cmocka_unit_test(test_monotonic_year_zone),
        cmocka_unit_test(test_am_start),
        cmocka_unit_test(test_macrobenchmark),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_durations_and_stamps),
        cmocka_unit_test(test_regex),
        cmocka_unit_test(test_place_rules),
        cmocka_unit_test(test_device_clock_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
