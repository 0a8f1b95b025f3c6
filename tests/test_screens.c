/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Issue 20 on captures made here (tests/screens.c, lossless ffv1, 30 fps):
 * --settle on presentation times, the deciding change, animated areas and
 * --ignore animated, each against the exact truth of the capture.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sample.h"

#include "capgen.h"
#include "e2e_common.h"
#include "screens.h"
#include "test_util.h"

#define FPS 30

static void make(const char *path, const ScreenSpec *s, int n, const int64_t *time_ms)
{
    CapgenSpec c = {
        .path = track(path), .encoder = "ffv1", .width = SCREEN_W, .height = SCREEN_H,
        .nb_frames = n, .fps = FPS, .time_ms = time_ms, .gop = 100000, /* one keyframe */
        .draw = screen_draw, .opaque = (void *)s,
    };
    int ret = capgen_write(&c);
    if (ret < 0)
        print_error("capgen_write %s: error %d\n", path, ret);
    assert_int_equal(ret, 0);
}

/* --diff-threshold 200: the clock (768 pixels) and the spinner (1600) count
 * on this small screen, as a status-bar clock does at 4096 on a phone's.
 * The codec filter stays on (the default): ffv1 codes every frame as a
 * keyframe, and the spinner's and the carousel's fading steps are faint
 * (under 96 levels), which the filter must not take for an encoder re-coding
 * a still picture in an all-intra stream. */
static const SettleResult *analyze(const char *path, const char *settle, const char *extra,
                                   const char *extra_v, SettleContext **pc, int *pret)
{
    const char *opts[] = { "diff-threshold", "200",
                           "settle", settle ? settle : "0",
                           extra, extra_v, NULL };
    const SettleResult *r = NULL;
    *pc = open_with(opts);
    *pret = settle_analyze_file(*pc, path, &r);
    assert_non_null(r);
    return r;
}

static void expect_change(const SettleResult *r, const int rect[4], int64_t frame)
{
    const SettleChangeArea *d = &r->deciding_change;
    assert_int_equal(d->frame, frame);
    assert_near(d->time, r->stable_time, 1e-9);
    assert_int_equal(d->x, rect[0]);
    assert_int_equal(d->y, rect[1]);
    assert_int_equal(d->width, rect[2]);
    assert_int_equal(d->height, rect[3]);
    assert_int_equal(d->pixels, (int64_t)rect[2] * rect[3]);
}

static void expect_stable(const SettleResult *r, int ret, int64_t frame)
{
    assert_int_equal(ret, 0);
    assert_int_equal(r->stable_frame, frame);
    assert_near(r->stable_time, (double)frame / FPS, 0.0011);
}

/* A toast after the load: the rule "quiet to the end" answers with the toast
 * leaving, and says the toast decided; --settle answers with the content. */
static void test_toast(void **state)
{
    (void)state;
    ScreenSpec s;
    screen_init(&s);
    for (int b = 0; b < SCREEN_BLOCKS; b++)
        s.block_at[b] = 10 * (b + 1);
    s.toast_from = 70;
    s.toast_to = 85;
    make("toast.mkv", &s, 120, NULL);
    SettleContext *c;
    int ret;
    const SettleResult *r = analyze("toast.mkv", NULL, NULL, NULL, &c, &ret);
    expect_stable(r, ret, 85);
    expect_change(r, screen_toast, 85);
    assert_int_equal(r->nanimated, 0); /* a toast comes and goes: not animated */
    settle_close(&c);
    /* 1 s between the last block (40) and the toast (70) */
    r = analyze("toast.mkv", "0.9", NULL, NULL, &c, &ret);
    expect_stable(r, ret, 40);
    expect_change(r, screen_block[3], 40);
    settle_close(&c);
    /* from the toast leaving (85) to the end (120) lasts 35 frames, 1.167 s */
    r = analyze("toast.mkv", "1.1", NULL, NULL, &c, &ret);
    expect_stable(r, ret, 85);
    settle_close(&c);
    r = analyze("toast.mkv", "1.1", "start", "first-change", &c, &ret);
    expect_stable(r, ret, 85);
    settle_close(&c);
    r = analyze("toast.mkv", "1.2", NULL, NULL, &c, &ret);
    assert_int_equal(ret, SETTLE_ERR_NOT_STABLE);
    assert_near(r->longest_quiet, 35.0 / FPS, 0.0011);
    assert_int_equal(r->longest_quiet_frame, 85);
    settle_close(&c);
}

/* A pause inside loading, longer and shorter than --settle; the home screen
 * before the tap is quiet for a third of a second, and is never the answer. */
static void test_pause(void **state)
{
    (void)state;
    ScreenSpec s;
    screen_init(&s);
    s.block_at[0] = 10;
    s.block_at[1] = 20;
    s.block_at[2] = 65; /* a 1.5 s pause */
    s.block_at[3] = 75;
    make("pause.mkv", &s, 150, NULL);
    SettleContext *c;
    int ret;
    const SettleResult *r = analyze("pause.mkv", "1.0", NULL, NULL, &c, &ret);
    expect_stable(r, ret, 20); /* the pause is longer: it ends the measurement */
    expect_change(r, screen_block[1], 20);
    settle_close(&c);
    r = analyze("pause.mkv", "2.0", NULL, NULL, &c, &ret);
    expect_stable(r, ret, 75); /* shorter: loading goes on after it */
    expect_change(r, screen_block[3], 75);
    settle_close(&c);
    r = analyze("pause.mkv", "0.3", NULL, NULL, &c, &ret);
    expect_stable(r, ret, 10); /* never frame 0, quiet for 0.333 s before the tap */
    settle_close(&c);
    /* 75 to the end (150) is 2.5 s */
    r = analyze("pause.mkv", "2.6", NULL, NULL, &c, &ret);
    assert_int_equal(ret, SETTLE_ERR_NOT_STABLE);
    assert_near(r->longest_quiet, 2.5, 0.0011);
    assert_near(r->longest_quiet_time, 2.5, 0.0011);
    assert_int_equal(r->longest_quiet_frame, 75);
    assert_int_equal(r->deciding_change.frame, -1);
    settle_close(&c);
}

/* Variable frame rate: no frame for 3.5 s after frame 2; that gap is quiet. */
static void test_vfr_gap(void **state)
{
    (void)state;
    enum { N = 40 };
    int64_t t[N] = { 0, 100, 200, 3700, 3733, 3766 };
    for (int i = 6; i < N; i++)
        t[i] = 3800 + 100 * (i - 6);
    ScreenSpec s;
    screen_init(&s);
    s.block_at[0] = 1;
    s.block_at[1] = 2;
    s.block_at[2] = 3;
    s.block_at[3] = 5;
    make("vfr.mkv", &s, N, t);
    SettleContext *c;
    int ret;
    const SettleResult *r = analyze("vfr.mkv", "3.4", NULL, NULL, &c, &ret);
    assert_int_equal(ret, 0);
    assert_int_equal(r->stable_frame, 2);
    assert_near(r->stable_time, 0.2, 1e-6);
    expect_change(r, screen_block[1], 2);
    settle_close(&c);
    /* the gap lasts 3.5 s; the quiet after frame 5 to the end (7.2 s) 3.434 s */
    r = analyze("vfr.mkv", "3.6", NULL, NULL, &c, &ret);
    assert_int_equal(ret, SETTLE_ERR_NOT_STABLE);
    assert_near(r->longest_quiet, 3.5, 1e-6);
    assert_near(r->longest_quiet_time, 0.2, 1e-6);
    settle_close(&c);
    r = analyze("vfr.mkv", NULL, NULL, NULL, &c, &ret);
    assert_int_equal(ret, 0);
    assert_int_equal(r->stable_frame, 5);
    settle_close(&c);
}

/* A spinner that fades out over three frames after the content came: the
 * last change is the spinner gone. */
static void test_spinner_fades(void **state)
{
    (void)state;
    ScreenSpec s;
    screen_init(&s);
    s.block_at[0] = 40;
    s.block_at[1] = 42;
    s.block_at[2] = 44;
    s.block_at[3] = 45;
    s.spinner_from = 5;
    s.spinner_fade = 50; /* levels 3, 2, 1 at 50-52, gone at 53 */
    make("spinner.mkv", &s, 150, NULL);
    SettleContext *c;
    int ret;
    const SettleResult *r = analyze("spinner.mkv", NULL, NULL, NULL, &c, &ret);
    expect_stable(r, ret, 53);
    expect_change(r, screen_spinner, 53);
    /* it stopped long before the end, after a third of the recording */
    assert_true(r->animated_known);
    assert_int_equal(r->nanimated, 0);
    settle_close(&c);
}

static void expect_animated(const SettleResult *r, const int rect[4], int64_t changes,
                            int64_t first_frame)
{
    assert_true(r->animated_known);
    assert_int_equal(r->nanimated, 1);
    const SettleAnimatedRegion *g = &r->animated[0];
    assert_int_equal(g->x, rect[0]);
    assert_int_equal(g->y, rect[1]);
    assert_int_equal(g->width, rect[2]);
    assert_int_equal(g->height, rect[3]);
    assert_int_equal(g->changes, changes);
    assert_near(g->first_time, (double)first_frame / FPS, 0.0011);
}

/* A clock in the status bar ticks every second to the end: it decides the
 * answer, is named, and --ignore animated gives the content's time. */
static void test_clock(void **state)
{
    (void)state;
    ScreenSpec s;
    screen_init(&s);
    for (int b = 0; b < SCREEN_BLOCKS; b++)
        s.block_at[b] = 10 * (b + 1);
    s.clock_period = 30;
    s.clock_phase = 15; /* 15, 45, 75, 105, 135 */
    make("clock.mkv", &s, 150, NULL);
    SettleContext *c;
    int ret;
    const SettleResult *r = analyze("clock.mkv", NULL, NULL, NULL, &c, &ret);
    expect_stable(r, ret, 135);
    expect_change(r, screen_clock, 135);
    expect_animated(r, screen_clock, 5, 15);
    assert_false(r->animated_ignored);
    settle_close(&c);
    r = analyze("clock.mkv", NULL, "ignore", "animated", &c, &ret);
    expect_stable(r, ret, 40);
    expect_change(r, screen_block[3], 40);
    expect_animated(r, screen_clock, 5, 15);
    assert_true(r->animated_ignored);
    settle_close(&c);
    /* with --settle too */
    r = analyze("clock.mkv", "0.5", "ignore", "animated", &c, &ret);
    expect_stable(r, ret, 40);
    settle_close(&c);
}

/* A carousel that turns every 20 frames from frame 40 to the end. */
static void test_carousel(void **state)
{
    (void)state;
    ScreenSpec s;
    screen_init(&s);
    for (int b = 0; b < SCREEN_BLOCKS; b++)
        s.block_at[b] = 10 * (b + 1) - 5; /* 5, 15, 25, 35 */
    s.carousel_period = 20;
    s.carousel_from = 40; /* 40, 60, ... 140 */
    make("carousel.mkv", &s, 150, NULL);
    SettleContext *c;
    int ret;
    const SettleResult *r = analyze("carousel.mkv", NULL, NULL, NULL, &c, &ret);
    expect_stable(r, ret, 140);
    expect_change(r, screen_carousel, 140);
    expect_animated(r, screen_carousel, 6, 40);
    settle_close(&c);
    r = analyze("carousel.mkv", NULL, "ignore", "animated", &c, &ret);
    expect_stable(r, ret, 35);
    expect_change(r, screen_block[3], 35);
    settle_close(&c);
    /* turning on the last frame: never stable, unless it is left out */
    make("carousel-end.mkv", &s, 141, NULL);
    r = analyze("carousel-end.mkv", NULL, NULL, NULL, &c, &ret);
    assert_int_equal(ret, SETTLE_ERR_NOT_STABLE);
    expect_animated(r, screen_carousel, 6, 40);
    settle_close(&c);
    r = analyze("carousel-end.mkv", NULL, "ignore", "animated", &c, &ret);
    expect_stable(r, ret, 35);
    settle_close(&c);
}

/* A web page's hero carousel: each turn fades over 6 frames to the next of
 * three slides, whose pictures sit at places of their own, so a cell changes
 * in some turns only and has no rhythm of its own (browsertime's
 * amazon_chrome). Its turns are still the carousel's: named as one area over
 * the three pictures, and --ignore animated gives the content's time. */
static void test_carousel_fades(void **state)
{
    (void)state;
    ScreenSpec s;
    screen_init(&s);
    for (int b = 0; b < SCREEN_BLOCKS; b++)
        s.block_at[b] = 10 * (b + 1) - 5; /* 5, 15, 25, 35 */
    s.carousel_period = 30;
    s.carousel_from = 40; /* turns over 40-45, 70-75, 100-105, 130-135 */
    s.carousel_slide = 6;
    make("carousel-fades.mkv", &s, 150, NULL);
    SettleContext *c;
    int ret;
    const SettleResult *r = analyze("carousel-fades.mkv", NULL, NULL, NULL, &c, &ret);
    expect_stable(r, ret, 135);
    /* the last turn, slide 0 to slide 1: their pictures, 70x80 each, at 36
     * and 126 */
    const SettleChangeArea *d = &r->deciding_change;
    assert_int_equal(d->frame, 135);
    assert_int_equal(d->x, 36);
    assert_int_equal(d->y, 72);
    assert_int_equal(d->width, 160);
    assert_int_equal(d->height, 80);
    assert_int_equal(d->pixels, 2 * 70 * 80);
    /* picture 2 (216,72) changes in turns 2 and 3 only; the area holds it */
    const int pictures[4] = { 36, 72, 250, 80 };
    expect_animated(r, pictures, 18, 40);
    settle_close(&c);
    r = analyze("carousel-fades.mkv", NULL, "ignore", "animated", &c, &ret);
    expect_stable(r, ret, 35);
    expect_change(r, screen_block[3], 35);
    settle_close(&c);
}

/* --region: an area's stable time is its own, before or after the rest of
 * the screen's, whatever happens elsewhere. */
static void test_regions(void **state)
{
    (void)state;
    SettleContext *c;
    int ret;
    const SettleResult *r;
    char list[64], last[64];
    const int *b0 = screen_block[0], *b3 = screen_block[3];
    snprintf(list, sizeof(list), "list=%d,%d,%d,%d", b0[0], b0[1], b0[2],
             screen_block[1][1] + screen_block[1][3] - b0[1]);
    snprintf(last, sizeof(last), "last=%d,%d,%d,%d", b3[0], b3[1], b3[2], b3[3]);
    /* toast.mkv: blocks at 10-40, the toast 70-85 */
    ScreenSpec s;
    screen_init(&s);
    for (int b = 0; b < SCREEN_BLOCKS; b++)
        s.block_at[b] = 10 * (b + 1);
    s.toast_from = 70;
    s.toast_to = 85;
    make("regions.mkv", &s, 120, NULL);
    const char *opts[] = { "diff-threshold", "200", "region", list,
                           "region", last, NULL, NULL, NULL };
    c = open_with(opts);
    ret = settle_analyze_file(c, "regions.mkv", &r);
    expect_stable(r, ret, 85);
    assert_int_equal(r->nregions, 2);
    assert_string_equal(r->regions[0].name, "list");
    assert_int_equal(r->regions[0].stable_frame, 20); /* before the rest */
    assert_near(r->regions[0].load_time, 20.0 / FPS, 0.0011);
    assert_int_equal(r->regions[0].changes, 2);
    assert_int_equal(r->regions[0].deciding_change.y, screen_block[1][1]);
    assert_string_equal(r->regions[1].name, "last");
    assert_int_equal(r->regions[1].stable_frame, 40);
    assert_int_equal(r->regions[1].deciding_change.pixels, b3[2] * b3[3]);
    settle_close(&c);
    /* pause.mkv with --settle 1.0: the whole screen stops at the pause (20);
     * the last block's own time is after it (75) */
    screen_init(&s);
    s.block_at[0] = 10;
    s.block_at[1] = 20;
    s.block_at[2] = 65;
    s.block_at[3] = 75;
    make("regions-pause.mkv", &s, 150, NULL);
    opts[6] = "settle";
    opts[7] = "1.0";
    c = open_with(opts);
    ret = settle_analyze_file(c, "regions-pause.mkv", &r);
    expect_stable(r, ret, 20);
    /* list: 10 and 20 (0.333 s apart), then quiet to the end */
    assert_int_equal(r->regions[0].stable_frame, 20);
    assert_int_equal(r->regions[1].stable_frame, 75);
    settle_close(&c);
    /* a carousel turning on the last frame: no answer for the screen, the
     * list's own is still there */
    screen_init(&s);
    for (int b = 0; b < SCREEN_BLOCKS; b++)
        s.block_at[b] = 10 * (b + 1) - 5;
    s.carousel_period = 20;
    s.carousel_from = 40;
    make("regions-carousel.mkv", &s, 141, NULL);
    char car[64];
    snprintf(car, sizeof(car), "carousel=%d,%d,%d,%d", screen_carousel[0], screen_carousel[1],
             screen_carousel[2], screen_carousel[3]);
    opts[6] = "region";
    opts[7] = car;
    c = open_with(opts);
    ret = settle_analyze_file(c, "regions-carousel.mkv", &r);
    assert_int_equal(ret, SETTLE_ERR_NOT_STABLE);
    assert_int_equal(r->nregions, 3);
    assert_int_equal(r->regions[0].stable_frame, 15);
    assert_int_equal(r->regions[1].stable_frame, 35);
    assert_int_equal(r->regions[2].stable_frame, -1);
    assert_true(isnan(r->regions[2].stable_time));
    assert_int_equal(r->regions[2].changes, 6);
    settle_close(&c);
}

static int group_setup(void **state)
{
    (void)state;
    return scratch_enter("screens");
}

static int group_teardown(void **state)
{
    (void)state;
    if (getenv("SETTLE_TEST_KEEP")) /* to look at the captures after a failure */
        return 0;
    return scratch_leave();
}

int main(void)
{
    struct CMUnitTest tests[] = {
        cmocka_unit_test(test_toast),
        cmocka_unit_test(test_pause),
        cmocka_unit_test(test_vfr_gap),
        cmocka_unit_test(test_spinner_fades),
        cmocka_unit_test(test_clock),
        cmocka_unit_test(test_carousel),
        cmocka_unit_test(test_carousel_fades),
        cmocka_unit_test(test_regions),
    };
    /* under memcheck: the animated areas, the regions (the quiet across gaps has
     * its unit test, settle_quiet) */
    static const char *const checked[] = {
        "test_carousel",
        "test_regions",
        NULL,
    };
    size_t n = valgrind_sample(tests, sizeof(tests) / sizeof(tests[0]), checked);
    return _cmocka_run_group_tests("screens", tests, n, group_setup, group_teardown);
}
