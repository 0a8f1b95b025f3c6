/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The stability rule, the start rules and the method choice on hand-made
 * series pushed through the public API: each letter of a series is one
 * picture, the same letter the same picture, so every answer is known.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include "settle/settle.h"

#define W 32
#define H 32

/* Letter k uses 4 + 12k grey levels in a pattern that differs from every
 * other letter at nearly every pixel, so entropies differ by far more than
 * 0.05 bits. 'M' is the marker colour #2a6df4, '.' a faint version of 'A'
 * (every value +10 levels), '~' 'A' with noise on a third of its pixels. */
static void draw(uint8_t *p, char letter, unsigned *seed)
{
    if (letter == 'M') {
        for (int i = 0; i < W * H; i++) {
            p[3 * i] = 0x2a;
            p[3 * i + 1] = 0x6d;
            p[3 * i + 2] = 0xf4;
        }
        return;
    }
    int faint = letter == '.', noisy = letter == '~';
    int k = faint || noisy ? 0 : letter - 'A';
    int levels = 4 + 12 * k;
    for (int i = 0; i < W * H; i++) {
        int v = ((i * 7 + k * 3) % levels) * (200 / levels) + 20 + (faint ? 10 : 0);
        if (noisy) {
            *seed = *seed * 1103515245u + 12345u;
            if ((*seed >> 16) % 3 == 0)
                v += (int)((*seed >> 8) % 41) - 20;
        }
        v = v < 0 ? 0 : v > 255 ? 255 : v;
        p[3 * i] = p[3 * i + 1] = p[3 * i + 2] = (uint8_t)v;
    }
}

typedef struct Series {
    const char *letters;
    const double *times;   /* NULL: 0.1 s a frame */
    const char *keyframes; /* NULL or a string of '0'/'1' */
} Series;

/* Sends the series to an open context and finishes. */
static int send_series(SettleContext **pc, const Series *ser, const SettleResult **res)
{
    uint8_t pic[W * H * 3];
    unsigned seed = 1;
    assert_int_equal(settle_begin(*pc, "series", W, H), 0);
    for (int i = 0; ser->letters[i]; i++) {
        draw(pic, ser->letters[i], &seed);
        SettlePicture p = {
            .rgb = pic, .stride = W * 3, .width = W, .height = H,
            .time = ser->times ? ser->times[i] : i * 0.1,
            .keyframe = ser->keyframes && ser->keyframes[i] == '1',
        };
        int ret = settle_send_picture(*pc, &p);
        if (ret < 0)
            return ret;
    }
    return settle_finish(*pc, res);
}

static int run(SettleSettings *s, const Series *ser, const SettleResult **res, SettleContext **pc)
{
    assert_int_equal(settle_open(pc, s), 0);
    return send_series(pc, ser, res);
}

static void settings(SettleSettings *s, SettleMethod m)
{
    settle_default_settings(s);
    s->method = m;
    s->diff_threshold = 64; /* of 1024 pixels */
}

/* Runs the series and checks the stable frame (-1: none) for one method. */
static void expect_stable(SettleMethod m, const char *letters, int64_t stable)
{
    SettleSettings s;
    settings(&s, m);
    SettleContext *c;
    const SettleResult *r;
    Series ser = { letters, NULL, NULL };
    int ret = run(&s, &ser, &r, &c);
    assert_int_equal(r->stable_frame, stable);
    assert_int_equal(ret, stable >= 0 ? 0 : SETTLE_ERR_NOT_STABLE);
    if (stable >= 0) {
        assert_near(r->stable_time, stable * 0.1, 1e-9);
        assert_near(r->load_time, stable * 0.1, 1e-9);
    } else {
        assert_true(isnan(r->stable_time) && isnan(r->load_time));
        assert_non_null(r->error_message);
    }
    settle_close(&c);
}

static void test_rule_diff(void **state)
{
    (void)state;
    expect_stable(SETTLE_METHOD_DIFF, "AAAABBBBCCCCCCCC", 8);
    /* a late spike: the picture settles again on the frame after it */
    expect_stable(SETTLE_METHOD_DIFF, "AAAABBBBBBBBBCBBBB", 14);
    /* all quiet: the first frame is stable */
    expect_stable(SETTLE_METHOD_DIFF, "AAAAAAAA", 0);
    /* never quiet: no frame qualifies */
    expect_stable(SETTLE_METHOD_DIFF, "ABCDABCDABCD", -1);
    /* still changing in the last frame */
    expect_stable(SETTLE_METHOD_DIFF, "AAAABBBBC", -1);
}

static void test_rule_entropy(void **state)
{
    (void)state;
    /* the rolling mean keeps deltas high for up to 5 frames after a step;
     * the stable frame is where the picture changed, not where the mean caught up */
    expect_stable(SETTLE_METHOD_ENTROPY, "AAAAAAAADDDDDDDDDDDD", 8);
    expect_stable(SETTLE_METHOD_ENTROPY, "AAAAAABBBBBBBBEEEEEEEEEEEE", 14);
    expect_stable(SETTLE_METHOD_ENTROPY, "AAAAAAAAAA", 0);
    expect_stable(SETTLE_METHOD_ENTROPY, "ADADADADADADAD", -1);
}

static void test_rule_settle(void **state)
{
    (void)state;
    SettleSettings s;
    SettleContext *c;
    const SettleResult *r;
    /* a toast at frames 14-15 after the content settled at frame 6 */
    Series ser = { "AAAABBCCCCCCCCDDCCCC", NULL, NULL };
    settings(&s, SETTLE_METHOD_DIFF);
    assert_int_equal(run(&s, &ser, &r, &c), 0);
    assert_int_equal(r->stable_frame, 16);
    assert_near(r->last_visual_change, 1.6, 1e-9);
    settle_close(&c);
    s.settle = 0.7; /* 7 quiet frames after frame 6 */
    assert_int_equal(run(&s, &ser, &r, &c), 0);
    assert_int_equal(r->stable_frame, 6);
    assert_near(r->stable_time, 0.6, 1e-9);
    assert_near(r->last_visual_change, 1.6, 1e-9); /* the toast is still seen */
    settle_close(&c);
    /* the quiet after frame 6 lasts from its time to the toast's: 0.8 s */
    s.settle = 0.8;
    assert_int_equal(run(&s, &ser, &r, &c), 0);
    assert_int_equal(r->stable_frame, 6);
    assert_int_equal(r->deciding_change.frame, 6);
    settle_close(&c);
    /* after the toast 0.2 s, after it leaves 0.4 s to the end (2.0 s) */
    s.settle = 0.9;
    assert_int_equal(run(&s, &ser, &r, &c), SETTLE_ERR_NOT_STABLE);
    assert_int_equal(r->stable_frame, -1);
    assert_int_equal(r->deciding_change.frame, -1);
    assert_near(r->longest_quiet, 0.8, 1e-9);
    assert_near(r->longest_quiet_time, 0.6, 1e-9);
    assert_int_equal(r->longest_quiet_frame, 6);
    assert_non_null(strstr(r->error_message, "the longest quiet lasts 0.800 s, from 0.600 s (frame 6)"));
    settle_close(&c);
    /* the quiet at the end lasts to the end of the last frame, as quiet_tail does */
    Series end = { "AAAABBBB", NULL, NULL };
    assert_int_equal(run(&s, &end, &r, &c), SETTLE_ERR_NOT_STABLE);
    settle_close(&c);
    s.settle = 0.4;
    assert_int_equal(run(&s, &end, &r, &c), 0);
    assert_int_equal(r->stable_frame, 4);
    assert_near(r->quiet_tail, 0.4, 1e-9);
    settle_close(&c);
    s.settle = 0.4;
    assert_int_equal(run(&s, &ser, &r, &c), 0);
    assert_int_equal(r->stable_frame, 6);
    settle_close(&c);
}

/* --settle never answers before the first change after the start, and
 * measures quiet on presentation times, gaps and the end included. */
static void test_settle_presentation(void **state)
{
    (void)state;
    SettleSettings s;
    SettleContext *c;
    const SettleResult *r;
    /* a home screen for a second before the tap: quiet, but not loading */
    Series home = { "AAAAAAAAAABBBCCCCCCC", NULL, NULL };
    settings(&s, SETTLE_METHOD_DIFF);
    s.settle = 0.5;
    assert_int_equal(run(&s, &home, &r, &c), 0);
    assert_int_equal(r->stable_frame, 13);
    assert_near(r->stable_time, 1.3, 1e-9);
    assert_int_equal(r->deciding_change.frame, 13);
    assert_near(r->deciding_change.time, 1.3, 1e-9);
    assert_int_equal(r->deciding_change.pixels, 1024);
    settle_close(&c);
    /* the same through the entropy method: its rolling mean flags frames
     * 14-17, which change nothing; the change at 13 decides */
    settings(&s, SETTLE_METHOD_ENTROPY);
    s.settle = 0.5;
    assert_int_equal(run(&s, &home, &r, &c), 0);
    assert_int_equal(r->stable_frame, 13);
    assert_int_equal(r->deciding_change.frame, 13);
    assert_int_equal(r->deciding_change.pixels, 1024);
    settle_close(&c);
    s.settle = 0;
    assert_int_equal(run(&s, &home, &r, &c), 0);
    assert_int_equal(r->stable_frame, 13);
    assert_int_equal(r->deciding_change.frame, 13);
    assert_int_equal(r->deciding_change.width, W);
    settle_close(&c);
    /* nothing changes after the start: no answer, and why */
    settings(&s, SETTLE_METHOD_DIFF);
    s.settle = 0.5;
    Series still = { "AAAAAAAA", NULL, NULL };
    assert_int_equal(run(&s, &still, &r, &c), SETTLE_ERR_NOT_STABLE);
    assert_non_null(strstr(r->error_message, "nothing changed after the start"));
    assert_true(isnan(r->longest_quiet));
    settle_close(&c);
    /* variable frame rate: after the change at 0.2 s the next frame comes
     * 3.5 s later and changes; the recording ends at 4.0 s (the last
     * interval, 0.1 s, after the last frame at 3.9 s) */
    static const double t[] = { 0, 0.1, 0.2, 3.7, 3.8, 3.9 };
    Series gap = { "AABCDD", t, NULL };
    s.settle = 3.5;
    assert_int_equal(run(&s, &gap, &r, &c), 0);
    assert_int_equal(r->stable_frame, 2);
    assert_near(r->stable_time, 0.2, 1e-9);
    settle_close(&c);
    s.settle = 3.6;
    assert_int_equal(run(&s, &gap, &r, &c), SETTLE_ERR_NOT_STABLE);
    assert_near(r->longest_quiet, 3.5, 1e-9);
    assert_near(r->longest_quiet_time, 0.2, 1e-9);
    settle_close(&c);
    /* without --settle the same capture settles on its last change */
    s.settle = 0;
    assert_int_equal(run(&s, &gap, &r, &c), 0);
    assert_int_equal(r->stable_frame, 4);
    assert_int_equal(r->deciding_change.frame, 4);
    settle_close(&c);
}

static void test_start_modes(void **state)
{
    (void)state;
    SettleSettings s;
    SettleContext *c;
    const SettleResult *r;
    char err[256];
    Series ser = { "AAAMMMBBBCCCCCCC", NULL, NULL };

    settings(&s, SETTLE_METHOD_DIFF);
    assert_int_equal(settle_settings_set(&s, "start", "marker:#2a6df4", err, sizeof(err)), 0);
    assert_int_equal(run(&s, &ser, &r, &c), 0);
    assert_int_equal(r->start_frame, 3);
    assert_int_equal(r->stable_frame, 9);
    assert_near(r->load_time, 0.6, 1e-9);
    assert_near(r->first_visual_change, 0.3, 1e-9); /* frame 6, from the start */
    assert_near(r->last_visual_change, 0.6, 1e-9);
    settle_close(&c);

    assert_int_equal(settle_settings_set(&s, "start", "marker-end:#2a6df4", err, sizeof(err)), 0);
    assert_int_equal(run(&s, &ser, &r, &c), 0);
    assert_int_equal(r->start_frame, 6);
    assert_near(r->start_time, 0.6, 1e-9);
    assert_int_equal(r->stable_frame, 9);
    assert_near(r->load_time, 0.3, 1e-9);
    settle_close(&c);

    assert_int_equal(settle_settings_set(&s, "start", "first-change", err, sizeof(err)), 0);
    assert_int_equal(run(&s, &ser, &r, &c), 0);
    assert_int_equal(r->start_frame, 3);
    assert_near(r->first_visual_change, 0.3, 1e-9);
    settle_close(&c);

    assert_int_equal(settle_settings_set(&s, "start", "0.45", err, sizeof(err)), 0);
    assert_int_equal(run(&s, &ser, &r, &c), 0);
    assert_int_equal(r->start_frame, 5);
    assert_near(r->start_time, 0.45, 1e-12);
    assert_near(r->load_time, 0.9 - 0.45, 1e-9);
    settle_close(&c);

    /* starts that are never found are said so, with their own code */
    assert_int_equal(settle_settings_set(&s, "start", "20", err, sizeof(err)), 0);
    assert_int_equal(run(&s, &ser, &r, &c), SETTLE_ERR_NO_START);
    assert_int_equal(r->stable_frame, -1);
    assert_non_null(strstr(r->error_message, "after the last frame"));
    settle_close(&c);
    Series never = { "AAAMMMMMMM", NULL, NULL };
    assert_int_equal(settle_settings_set(&s, "start", "marker-end:#2a6df4", err, sizeof(err)), 0);
    assert_int_equal(run(&s, &never, &r, &c), SETTLE_ERR_NO_START);
    assert_non_null(strstr(r->error_message, "never ends"));
    settle_close(&c);
    Series none = { "AAAABBBB", NULL, NULL };
    assert_int_equal(run(&s, &none, &r, &c), SETTLE_ERR_NO_START);
    settle_close(&c);
    Series flat = { "AAAAAAAA", NULL, NULL };
    assert_int_equal(settle_settings_set(&s, "start", "first-change", err, sizeof(err)), 0);
    assert_int_equal(run(&s, &flat, &r, &c), SETTLE_ERR_NO_START);
    settle_close(&c);
}

static void test_variable_frame_rate(void **state)
{
    (void)state;
    SettleSettings s;
    SettleContext *c;
    const SettleResult *r;
    /* timestamps from 7.0 s: times are from the first frame, never index/fps */
    static const double t[] = { 7.0, 7.016, 7.05, 7.3, 7.31, 8.5, 8.516, 9.9, 10.0 };
    Series ser = { "AAABBCCCC", t, NULL };
    settings(&s, SETTLE_METHOD_DIFF);
    assert_int_equal(run(&s, &ser, &r, &c), 0);
    assert_int_equal(r->stable_frame, 5);
    assert_near(r->stable_time, 1.5, 1e-9);
    assert_near(r->duration, 3.1, 1e-9); /* last frame shown as long as the one before */
    settle_close(&c);
}

static void test_codec_refresh(void **state)
{
    (void)state;
    SettleSettings s;
    SettleContext *c;
    const SettleResult *r;
    /* '.' is 'A' with every value 10 levels up: a faint change of every pixel */
    Series kf = { "BBBBAAAAAA.........", NULL, "0000000000100000000" };
    settings(&s, SETTLE_METHOD_DIFF);
    assert_int_equal(run(&s, &kf, &r, &c), 0);
    assert_int_equal(r->stable_frame, 4);
    assert_int_equal(r->codec_refreshes, 1);
    settle_close(&c);
    /* the same faint change on a frame the source did not mark is a change */
    Series nokf = { "BBBBAAAAAA.........", NULL, NULL };
    assert_int_equal(run(&s, &nokf, &r, &c), 0);
    assert_int_equal(r->stable_frame, 10);
    settle_close(&c);
    /* and with the filter off, the keyframe counts too */
    s.codec_filter = 0;
    assert_int_equal(run(&s, &kf, &r, &c), 0);
    assert_int_equal(r->stable_frame, 10);
    settle_close(&c);
    /* a strong change on a keyframe is a real change */
    s.codec_filter = 1;
    Series strong = { "BBBBAAAAAACCCCCC", NULL, "0000000000100000" };
    assert_int_equal(run(&s, &strong, &r, &c), 0);
    assert_int_equal(r->stable_frame, 10);
    assert_int_equal(r->codec_refreshes, 0);
    settle_close(&c);
    /* the entropy method: the refresh restarts the rolling mean */
    settings(&s, SETTLE_METHOD_ENTROPY);
    assert_int_equal(run(&s, &kf, &r, &c), 0);
    assert_int_equal(r->stable_frame, 4);
    settle_close(&c);
}

static void test_auto_method(void **state)
{
    (void)state;
    SettleSettings s;
    SettleContext *c;
    const SettleResult *r;
    Series clean = { "AAAABBBBCCCCCCCC", NULL, NULL };
    settings(&s, SETTLE_METHOD_AUTO);
    assert_int_equal(run(&s, &clean, &r, &c), 0);
    assert_int_equal(r->method, SETTLE_METHOD_DIFF);
    assert_non_null(strstr(r->method_reason, "clean"));
    assert_int_equal(r->stable_frame, 8);
    settle_close(&c);
    /* sensor noise on a third of the pixels in every frame: never quiet by
     * frame difference, so auto must use the block test, whose thresholds
     * follow the capture's own noise */
    Series noisy = { "~~~~~~~~~~~~~~~~~~~~", NULL, NULL };
    s.entropy_threshold = 0.5;
    assert_int_equal(run(&s, &noisy, &r, &c), 0);
    assert_int_equal(r->method, SETTLE_METHOD_BLOCKS);
    assert_non_null(strstr(r->method_reason, "camera-like"));
    assert_true(r->noise_floor > 64 / 4);
    assert_int_equal(r->stable_frame, 0);
    settle_close(&c);
    s.method = SETTLE_METHOD_DIFF;
    assert_int_equal(run(&s, &noisy, &r, &c), SETTLE_ERR_NOT_STABLE);
    settle_close(&c);
}

/* A phone's picture (portrait, 64x128): a page at frame 5, then a short line
 * (2 x 32 pixels, under the 64-pixel diff threshold) at frame 15 that stays,
 * or goes again at `gone` (a toast; 0: stays). 0.1 s a frame, 40 frames. */
static int run_late(SettleSettings *s, int gone, const SettleResult **res, SettleContext **pc)
{
    enum { PW = 64, PH = 128 };
    static uint8_t pic[PW * PH * 3];
    assert_int_equal(settle_open(pc, s), 0);
    assert_int_equal(settle_begin(*pc, "late", PW, PH), 0);
    for (int f = 0; f < 40; f++) {
        for (int y = 0; y < PH; y++)
            for (int x = 0; x < PW; x++) {
                int v = f < 5 ? 40 : (y / 8) % 2 ? 230 : 200 - x;
                if (f >= 15 && (!gone || f < gone) && y >= 40 && y < 42 && x >= 8 && x < 40)
                    v = 30;
                uint8_t *q = pic + 3 * (y * PW + x);
                q[0] = q[1] = q[2] = (uint8_t)v;
            }
        SettlePicture p = { .rgb = pic, .stride = PW * 3, .width = PW, .height = PH,
                            .time = f * 0.1 };
        int ret = settle_send_picture(*pc, &p);
        if (ret < 0)
            return ret;
    }
    return settle_finish(*pc, res);
}

/* auto: a late line that diff's pixel count misses and that stays is content
 * (the block test's answer); one that comes and goes is not */
static void test_late_content(void **state)
{
    (void)state;
    SettleSettings s;
    SettleContext *c;
    const SettleResult *r;
    settings(&s, SETTLE_METHOD_AUTO);
    assert_int_equal(run_late(&s, 0, &r, &c), 0);
    assert_int_equal(r->method, SETTLE_METHOD_BLOCKS);
    assert_non_null(strstr(r->method_reason, "late content"));
    assert_int_equal(r->stable_frame, 15);
    settle_close(&c);
    assert_int_equal(run_late(&s, 20, &r, &c), 0);
    assert_int_equal(r->method, SETTLE_METHOD_DIFF);
    assert_int_equal(r->stable_frame, 5);
    settle_close(&c);
    /* diff alone misses the line */
    s.method = SETTLE_METHOD_DIFF;
    assert_int_equal(run_late(&s, 0, &r, &c), 0);
    assert_int_equal(r->stable_frame, 5);
    settle_close(&c);
}

/* A phone's picture (portrait, pw x ph, at most 128x256) drawn by
 * `draw_keyed` frame by frame, `n` frames at 0.1 s, keyframes where `keys`
 * has a '1'. */
typedef void (*DrawKeyed)(uint8_t *pic, int f, int pw, int ph);

static int run_keyed_at(SettleSettings *s, DrawKeyed draw_keyed, int pw, int ph, int n,
                        const char *keys, const SettleResult **res, SettleContext **pc)
{
    static uint8_t pic[128 * 256 * 3];
    assert_true(pw * ph <= 128 * 256);
    assert_int_equal(settle_open(pc, s), 0);
    assert_int_equal(settle_begin(*pc, "keyed", pw, ph), 0);
    for (int f = 0; f < n; f++) {
        draw_keyed(pic, f, pw, ph);
        SettlePicture p = { .rgb = pic, .stride = pw * 3, .width = pw, .height = ph,
                            .time = f * 0.1, .keyframe = keys[f] == '1' };
        int ret = settle_send_picture(*pc, &p);
        if (ret < 0)
            return ret;
    }
    return settle_finish(*pc, res);
}

/* ... at 64x128 */
static int run_keyed(SettleSettings *s, DrawKeyed draw_keyed, int n, const char *keys,
                     const SettleResult **res, SettleContext **pc)
{
    return run_keyed_at(s, draw_keyed, 64, 128, n, keys, res, pc);
}

/* A page at frame 5 whose image (32x64 pixels) fades in over frames 15-23,
 * each step 7 levels darker (no pixel beyond the strong level: each step
 * faint, and under the block test's threshold) */
static void draw_fade(uint8_t *pic, int f, int pw, int ph)
{
    int k = f < 15 ? 0 : f < 23 ? f - 14 : 9;
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++) {
            int v = f < 5 ? 40 : (y / 8) % 2 ? 230 : 200 - x;
            if (y >= 48 && y < 112 && x >= 16 && x < 48)
                v -= 7 * k;
            uint8_t *q = pic + 3 * (y * pw + x);
            q[0] = q[1] = q[2] = (uint8_t)v;
        }
}

/* A larger page (128x256) at frame 5 whose image (32x64 pixels, 8 of the
 * page's 128 blocks) fades in over frames 15-21, 20 levels a step: each step
 * moves the image's blocks past their threshold (the block test counts it
 * as a change), and still no pixel beyond the strong level */
static void draw_fade_blocks(uint8_t *pic, int f, int pw, int ph)
{
    int k = f < 15 ? 0 : f < 21 ? f - 14 : 7;
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++) {
            int v = f < 5 ? 40 : 60 + (x / 16 * 5 + y / 16 * 3) % 7 * 25 + (y / 4) % 2 * 10;
            if (f >= 5 && y >= 96 && y < 160 && x >= 32 && x < 64)
                v = 220 + (y / 4) % 2 * 10 - 20 * k;
            uint8_t *q = pic + 3 * (y * pw + x);
            q[0] = q[1] = q[2] = (uint8_t)v;
        }
}

/* A page at frame 5 that the encoder re-codes at the keyframe 25 (a faint
 * change of a 32x32 area, 15 levels: no pixel beyond the strong level, four
 * blocks 1.5 times their threshold); the frames before the keyframe copy
 * the picture exactly, or (`touched` 1) the one before it changes one pixel,
 * or (2) the two before it each change one */
static int touched;

static void draw_recode(uint8_t *pic, int f, int pw, int ph)
{
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++) {
            int v = f < 5 ? 40 : (y / 8) % 2 ? 230 : 200 - x;
            if (f >= 25 && y >= 64 && y < 96 && x >= 16 && x < 48)
                v -= 15;
            if (touched && f >= 24 && y == 120 && x == 2)
                v = 0;
            if (touched > 1 && f >= 23 && y == 120 && x == 3)
                v = 0;
            uint8_t *q = pic + 3 * (y * pw + x);
            q[0] = q[1] = q[2] = (uint8_t)v;
        }
}

/* A page at frame 5 that the encoder re-codes at the keyframe 25 (128x256,
 * 128 cells of 16x16): every pixel moved by 8 levels either way in a
 * checker (faint: all of them counted, none beyond the strong level, the
 * blocks' means kept), and 100 pixels by 120 levels: `scatter` 1, one in
 * each of 100 cells (a keyframe at a low quality on a large picture: key42),
 * 0, one in each 4x4 square of 6 cells and 4 of a seventh (16 to a cell:
 * an edge of content) */
static int scatter;

static void draw_keyscatter(uint8_t *pic, int f, int pw, int ph)
{
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++) {
            int v = f < 5 ? 40 : 60 + (x / 16 + y / 16) % 3 * 20;
            int cell = y / 16 * (pw / 16) + x / 16;
            if (f >= 25) {
                v += (x + y) % 2 ? 8 : -8;
                if (scatter ? cell < 100 && x % 16 == 7 && y % 16 == 7
                            : cell < 7 && x % 4 == 1 && y % 4 == 1 &&
                                  (cell < 6 || (x % 16 < 8 && y % 16 < 8)))
                    v += 120;
            }
            uint8_t *q = pic + 3 * (y * pw + x);
            q[0] = q[1] = q[2] = (uint8_t)v;
        }
}

/* run_keyed_at on 40 pictures of 128x256, --method auto, a diff threshold
 * of 4096 pixels */
static int run_tall(DrawKeyed draw_keyed, const char *keys, const SettleResult **res,
                    SettleContext **pc)
{
    SettleSettings s;
    settings(&s, SETTLE_METHOD_AUTO);
    s.diff_threshold = 4096;
    return run_keyed_at(&s, draw_keyed, 128, 256, 40, keys, res, pc);
}

static void test_keyframe_scatter(void **state)
{
    (void)state;
    SettleContext *c;
    const SettleResult *r;
    const char *keys = "1000000000000000000000000100000000000000";
    /* scattered: the encoder's re-code, however many strong pixels */
    scatter = 1;
    assert_int_equal(run_tall(draw_keyscatter, keys, &r, &c), 0);
    assert_int_equal(r->stable_frame, 5);
    assert_int_equal(r->codec_refreshes, 1);
    settle_close(&c);
    /* as many strong pixels, 16 to a cell: no refresh */
    scatter = 0;
    assert_int_equal(run_tall(draw_keyscatter, keys, &r, &c), 0);
    assert_int_equal(r->codec_refreshes, 0);
    settle_close(&c);
}

/* On a keyframe, the encoder's change or the content's: a fade that runs
 * through a keyframe (the block test saw its steps go the same way before
 * it and on it) is content, not a codec refresh (seed 311's case080); a
 * faint keyframe after a picture the encoder copied (no pixel changed, or
 * a few in one frame between copied ones: pagecopy41) is it re-coding what
 * its frames before had left, however long after the change before, not
 * late content (seed 311's case007) */
static void test_keyframe_content(void **state)
{
    (void)state;
    SettleSettings s;
    SettleContext *c;
    const SettleResult *r;
    settings(&s, SETTLE_METHOD_AUTO);
    const char *fade_keys = "1000000000000000000001000000000000000000";
    assert_int_equal(run_keyed(&s, draw_fade, 40, fade_keys, &r, &c), 0);
    assert_int_equal(r->stable_frame, 23);
    assert_int_equal(r->codec_refreshes, 0);
    settle_close(&c);
    /* the fade's steps past the block test's threshold, a keyframe on its
     * next-to-last step (seed 315's case118) */
    const char *late_keys = "1000000000000000000010000000000000000000";
    assert_int_equal(run_keyed_at(&s, draw_fade_blocks, 128, 256, 40, late_keys, &r, &c), 0);
    assert_int_equal(r->stable_frame, 21);
    assert_int_equal(r->codec_refreshes, 0);
    settle_close(&c);
    const char *recode_keys = "1000000000000000000000000100000000000000";
    touched = 0;
    assert_int_equal(run_keyed(&s, draw_recode, 40, recode_keys, &r, &c), 0);
    assert_int_equal(r->method, SETTLE_METHOD_DIFF);
    assert_int_equal(r->stable_frame, 5);
    settle_close(&c);
    /* one stray pixel in the frame before the keyframe: still copied (a
     * phone's recorder codes a few stray pixels now and then, seed 333's
     * case051) */
    touched = 1;
    assert_int_equal(run_keyed(&s, draw_recode, 40, recode_keys, &r, &c), 0);
    assert_int_equal(r->method, SETTLE_METHOD_DIFF);
    assert_int_equal(r->stable_frame, 5);
    settle_close(&c);
    /* two frames in a row before the keyframe that the encoder did not
     * copy (a camera's noise keeps it coding): what the keyframe changes
     * may be late content */
    touched = 2;
    assert_int_equal(run_keyed(&s, draw_recode, 40, recode_keys, &r, &c), 0);
    assert_int_equal(r->method, SETTLE_METHOD_BLOCKS);
    assert_int_equal(r->stable_frame, 25);
    settle_close(&c);
}

/* A page at frame 5 that cross-fades in steps of 18 levels over the whole
 * picture (each step faint: no pixel beyond the strong level) at frames 15,
 * 16, 18, 19, 20 and 21, as a recorder that repeats frames leaves it: at 17
 * the encoder re-codes the repeat, rows 0-39 by 7 levels (5,120 pixels,
 * over diff's threshold but a sixth of a step). Held-out seed 337's
 * case116, the keyframe on the fade's last step but one */
static void draw_fade_repeats(uint8_t *pic, int f, int pw, int ph)
{
    static const int step[] = { 1, 2, 2, 3, 4, 5, 6 }; /* frames 15-21 */
    int k = f < 15 ? 0 : f > 21 ? 6 : step[f - 15];
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++) {
            int v = f < 5 ? 40 : 150 + (x / 16 * 5 + y / 16 * 3) % 4 * 10 - 18 * k;
            if (f == 17 && y < 40)
                v += 7;
            uint8_t *q = pic + 3 * (y * pw + x);
            q[0] = q[1] = q[2] = (uint8_t)v;
        }
}

static void test_keyframe_fade_repeats(void **state)
{
    (void)state;
    SettleContext *c;
    const SettleResult *r;
    const char *keys = "1000000000000000000010000000000000000000";
    assert_int_equal(run_tall(draw_fade_repeats, keys, &r, &c), 0);
    assert_int_equal(r->method, SETTLE_METHOD_DIFF);
    assert_int_equal(r->stable_frame, 21);
    assert_int_equal(r->codec_refreshes, 0);
    settle_close(&c);
}

static void test_edges(void **state)
{
    (void)state;
    SettleSettings s;
    SettleContext *c;
    const SettleResult *r;
    uint8_t pic[W * H * 3];
    unsigned seed = 1;
    settings(&s, SETTLE_METHOD_DIFF);

    Series one = { "A", NULL, NULL };
    assert_int_equal(run(&s, &one, &r, &c), SETTLE_ERR_TOO_SHORT);
    assert_int_equal(r->frames, 1);
    assert_int_equal(r->stable_frame, -1);
    assert_false(r->partial);
    settle_close(&c);

    /* timestamps that go back are held, not trusted */
    static const double back[] = { 0, 0.1, 0.2, 0.15, 0.3, 0.4, 0.5 };
    Series ser = { "AABBBBB", back, NULL };
    assert_int_equal(run(&s, &ser, &r, &c), 0);
    assert_int_equal(r->stable_frame, 2);
    settle_close(&c);

    /* a damaged source: the result is kept and marked partial */
    assert_int_equal(settle_open(&c, &s), 0);
    assert_int_equal(settle_begin(c, "damaged", W, H), 0);
    for (int i = 0; i < 6; i++) {
        draw(pic, i < 2 ? 'A' : 'B', &seed);
        SettlePicture p = { .rgb = pic, .stride = W * 3, .width = W, .height = H, .time = i * 0.1 };
        assert_int_equal(settle_send_picture(c, &p), 0);
    }
    settle_set_error(c, SETTLE_ERR_DECODE, "cut short");
    assert_int_equal(settle_finish(c, &r), SETTLE_ERR_DECODE);
    assert_true(r->partial);
    assert_int_equal(r->stable_frame, 2);
    assert_string_equal(r->error_message, "cut short");
    settle_close(&c);

    /* interrupted: stops at once, what was measured is partial */
    assert_int_equal(settle_open(&c, &s), 0);
    assert_int_equal(settle_begin(c, "interrupted", W, H), 0);
    draw(pic, 'A', &seed);
    SettlePicture p = { .rgb = pic, .stride = W * 3, .width = W, .height = H, .time = 0 };
    assert_int_equal(settle_send_picture(c, &p), 0);
    settle_interrupt(c);
    p.time = 0.1;
    assert_int_equal(settle_send_picture(c, &p), SETTLE_ERR_INTERRUPTED);
    assert_int_equal(settle_finish(c, &r), SETTLE_ERR_INTERRUPTED);
    assert_true(r->partial);
    settle_close(&c);

    /* wrong use is refused, not crashed on */
    assert_int_equal(settle_open(&c, &s), 0);
    assert_int_equal(settle_send_picture(c, &p), SETTLE_ERR_STATE);
    assert_int_equal(settle_begin(c, "x", 0, 10), SETTLE_ERR_INVAL);
    s.max_pixels = 100;
    settle_close(&c);
    assert_int_equal(settle_open(&c, &s), 0);
    assert_int_equal(settle_begin(c, "x", 11, 10), SETTLE_ERR_LIMIT);
    assert_int_equal(settle_begin(c, "x", 10, 10), 0);
    p.width = 11;
    assert_int_equal(settle_send_picture(c, &p), SETTLE_ERR_INVAL);
    settle_close(&c);
}

static int count_rows(void *opaque, const SettleFrame *f)
{
    int *n = opaque;
    assert_int_equal(f->index, *n);
    (*n)++;
    return 0;
}

/* The block test's CSV columns, with the method that uses it. */
static void block_columns(Series *ser)
{
    SettleSettings s;
    SettleContext *c;
    const SettleResult *r;
    settings(&s, SETTLE_METHOD_BLOCKS);
    assert_int_equal(run(&s, ser, &r, &c), 0);
    assert_true(r->block_test);
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(settle_write_csv(c, f), 0);
    rewind(f);
    char line[256];
    assert_non_null(fgets(line, sizeof(line), f));
    assert_non_null(fgets(line, sizeof(line), f));
    /* the block test has no reference before frame 0: peak 0, no block */
    assert_non_null(strstr(line, ",,0.000,0\n"));
    for (int i = 1; i < 9; i++)
        assert_non_null(fgets(line, sizeof(line), f));
    assert_non_null(strstr(line, "8,0.800000,1024,"));
    /* the block test on a 32x32 picture: its 4 blocks fit a gain and an
     * offset (exposure drift) exactly, so it sees no change: that is why
     * auto keeps diff for pixel-exact captures */
    double peak = atof(strrchr(line, ',') - 5);
    assert_true(peak >= 0 && peak < 1);
    assert_non_null(strstr(line, ",0\n"));
    fclose(f);
    settle_close(&c);
}

static int collect(void *opaque, const SettleFrame *f)
{
    ((SettleFrame *)opaque)[f->index] = *f;
    return 0;
}

/* The entropies left for later (settle_frame_entropy 0): a picture that
 * changed after one that changed most of its bands is kept as a copy, and
 * its entropy measured only when the refresh filter reads it. The keyframe
 * repeats the picture before it, after a window of noisy pictures whose
 * entropy is far from its own: a refresh by its entropy alone, which needs
 * its entropy and the window's, the same as with every frame's measured. */
static void test_entropy_later(void **state)
{
    (void)state;
    Series ser = { "AA~~~~~~BBB~~", NULL, "0000000001000" };
    const int n = 13, key = 9;
    static SettleFrame fr[2][13];
    int64_t refreshes[2], stable[2];
    int ret[2];
    for (int every = 0; every < 2; every++) {
        SettleSettings s;
        settings(&s, SETTLE_METHOD_DIFF);
        SettleContext *c;
        const SettleResult *r;
        assert_int_equal(settle_open(&c, &s), 0);
        assert_int_equal(settle_frame_entropy(c, every), 0);
        ret[every] = send_series(&c, &ser, &r);
        refreshes[every] = r->codec_refreshes;
        stable[every] = r->stable_frame;
        assert_int_equal(settle_foreach_frame(c, collect, fr[every]), 0);
        settle_close(&c);
    }
    assert_int_equal(ret[0], ret[1]);
    assert_int_equal(stable[0], stable[1]);
    assert_int_equal(refreshes[0], 1);
    assert_int_equal(refreshes[1], 1);
    int left = 0;
    for (int i = 0; i < n; i++) {
        assert_int_equal(fr[0][i].codec_refresh, fr[1][i].codec_refresh);
        assert_int_equal(fr[0][i].quiet, fr[1][i].quiet);
        assert_true(isfinite(fr[1][i].entropy));
        if (isnan(fr[0][i].entropy))
            left++;
        else
            assert_true(fr[0][i].entropy == fr[1][i].entropy);
    }
    assert_true(fr[0][key].codec_refresh);
    assert_true(fr[0][key].entropy_delta == fr[1][key].entropy_delta);
    assert_true(fr[0][key].entropy_delta > 0.05); /* the default threshold */
    /* the noisy pictures after the refresh were never read */
    assert_true(left >= 2);
}

static void test_outputs(void **state)
{
    (void)state;
    SettleSettings s;
    SettleContext *c;
    const SettleResult *r;
    Series ser = { "AAAABBBBCCCCCCCC", NULL, NULL };
    settings(&s, SETTLE_METHOD_DIFF);
    assert_int_equal(run(&s, &ser, &r, &c), 0);
    int n = 0;
    assert_int_equal(settle_foreach_frame(c, count_rows, &n), 0);
    assert_int_equal(n, 16);

    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(settle_write_csv(c, f), 0);
    rewind(f);
    char line[256];
    assert_non_null(fgets(line, sizeof(line), f));
    assert_string_equal(line, "frame,time,diff_pixels,entropy,entropy_delta,quiet,keyframe,codec_refresh,progress,block_peak,blocks_changed\n");
    assert_non_null(fgets(line, sizeof(line), f));
    /* A: 4 grey levels in equal shares in R, G and B: 12 equal bins, log2(12) bits */
    /* progress is empty without visual metrics */
    /* --method diff does not run the block test: its columns are empty */
    assert_string_equal(line, "0,0.000000,0,3.584963,0.000000,1,0,0,,,\n");
    for (int i = 1; i < 8; i++)
        assert_non_null(fgets(line, sizeof(line), f));
    /* frame 8: C replaces B at every pixel */
    assert_non_null(fgets(line, sizeof(line), f));
    assert_non_null(strstr(line, "8,0.800000,1024,"));
    assert_non_null(strstr(line, ",0,0,0,,,\n"));
    fclose(f);
    block_columns(&ser);

    f = tmpfile();
    assert_non_null(f);
    assert_int_equal(settle_write_json(c, f), 0);
    rewind(f);
    static char json[4096];
    size_t len = fread(json, 1, sizeof(json) - 1, f);
    json[len] = 0;
    fclose(f);
    assert_non_null(strstr(json, "\"input\":\"series\""));
    assert_non_null(strstr(json, "\"stable_frame\":8,"));
    assert_non_null(strstr(json, "\"stable_time\":0.8,"));
    assert_non_null(strstr(json, "\"method\":\"diff\""));
    /* the block test did not run */
    assert_non_null(strstr(json, "\"blocks\":null,\"status_bar\":null"));
    assert_non_null(strstr(json, "\"diff-threshold\":\"64\""));
    assert_non_null(strstr(json, "\"partial\":false"));
    assert_non_null(strstr(json, "\"error\":null"));
    /* letters differ at nearly every pixel: the change from B to C spans the picture */
    assert_non_null(strstr(json, "\"deciding_change\":{\"x\":0,\"y\":0,\"width\":32,\"height\":32,"));
    assert_non_null(strstr(json, ",\"time\":0.8,\"frame\":8}"));
    assert_non_null(strstr(json, "\"longest_quiet\":null,\"longest_quiet_time\":null"));
    assert_int_equal(strchr(json, '\n') - json, (long)len - 1); /* one line */
    settle_close(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_diff),
        cmocka_unit_test(test_rule_entropy),
        cmocka_unit_test(test_rule_settle),
        cmocka_unit_test(test_settle_presentation),
        cmocka_unit_test(test_start_modes),
        cmocka_unit_test(test_variable_frame_rate),
        cmocka_unit_test(test_codec_refresh),
        cmocka_unit_test(test_keyframe_scatter),
        cmocka_unit_test(test_auto_method),
        cmocka_unit_test(test_late_content),
        cmocka_unit_test(test_keyframe_content),
        cmocka_unit_test(test_keyframe_fade_repeats),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_outputs),
        cmocka_unit_test(test_entropy_later),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
