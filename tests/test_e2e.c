/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * End-to-end tests: synthetic start-up captures with an exactly known truth
 * (scene.c), encoded with real codecs (capgen.c), analysed through the public
 * API only. Captures are written into a scratch directory made in the current
 * directory and removed afterwards.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sample.h"

#include "settle/settle.h"
#include "capgen.h"
#include "e2e_common.h"
#include "scene.h"

#define FPS 30
#define W 320
#define H 240

/* The standard start-up: home screen, tap at 10, splash at 14, chrome with a
 * moving skeleton from 30, content at 48 (1.6 s), then 1.4 s of quiet. */
#define TAP 10
#define SPLASH 14
#define CHROME 30
#define CONTENT 48
#define FRAMES 90

#define assert_near(a, b, eps) assert_near_at((a), (b), (eps), #a, __FILE__, __LINE__)

static void assert_near_at(double a, double b, double eps, const char *what, const char *file,
                           int line)
{
    if (!(fabs(a - b) <= eps)) {
        print_error("%s is %.9f, expected %.9f (within %g)\n", what, a, b, eps);
        _fail(file, line);
    }
}

static SceneSpec startup(int w, int h)
{
    SceneSpec s;
    scene_init(&s, w, h);
    s.tap = TAP;
    s.splash = SPLASH;
    s.chrome = CHROME;
    s.content = CONTENT;
    s.progress = 1;
    return s;
}

static void make_capture(const char *path, const char *encoder, int quality, const SceneSpec *s,
                         int nb_frames, const int64_t *time_ms, const int *keyframes)
{
    CapgenSpec c = {
        .path = track(path), .encoder = encoder, .width = s->width, .height = s->height,
        .nb_frames = nb_frames, .fps = FPS, .time_ms = time_ms, .keyframes = keyframes,
        .quality = quality, .draw = scene_draw, .opaque = (void *)s,
    };
    int ret = capgen_write(&c);
    if (ret < 0)
        print_error("capgen_write %s with %s: error %d\n", path, encoder, ret);
    assert_int_equal(ret, 0);
}

/* What every analysis result must satisfy, whatever it found. */
static void assert_coherent(const SettleResult *r, int ret, const char *path)
{
    assert_non_null(r);
    assert_non_null(r->input);
    assert_string_equal(r->input, path);
    if (ret < 0)
        assert_non_null(r->error_message);
    if (r->stable_frame >= 0) {
        assert_true(r->stable_frame < r->frames);
        assert_true(isfinite(r->stable_time));
    } else {
        assert_true(isnan(r->stable_time));
    }
}

/* The standard H.264 capture, made once per test that needs it. */
static void make_main_mp4(const char *path)
{
    SceneSpec s = startup(W, H);
    make_capture(path, "libx264", 20, &s, FRAMES, NULL, NULL);
}

static void test_h264_defaults(void **state)
{
    (void)state;
    const char *path = "main.mp4";
    make_main_mp4(path);
    SettleContext *c = open_with(NULL);
    const SettleResult *r = NULL;
    int ret = settle_analyze_file(c, path, &r);
    assert_coherent(r, ret, path);
    assert_int_equal(ret, 0);
    assert_int_equal(r->method, SETTLE_METHOD_DIFF);
    assert_non_null(r->method_reason);
    assert_int_equal(r->frames, FRAMES);
    assert_int_equal(r->width, W);
    assert_int_equal(r->height, H);
    assert_false(r->partial);
    assert_int_equal(r->error, 0);
    assert_null(r->error_message);
    assert_int_equal(r->start_frame, 0);
    assert_near(r->start_time, 0.0, 1e-9);
    assert_int_equal(r->stable_frame, CONTENT);
    assert_near(r->stable_time, (double)CONTENT / FPS, 1e-6);
    assert_near(r->load_time, r->stable_time, 1e-9);
    /* the tap is the first frame that changes */
    assert_near(r->first_visual_change, (double)TAP / FPS, 1e-6);
    assert_near(r->last_visual_change, (double)CONTENT / FPS, 1e-6);
    assert_near(r->duration, (double)FRAMES / FPS, 1e-6);
    assert_near(r->quiet_tail, (double)(FRAMES - CONTENT) / FPS, 1e-6);
    assert_int_equal(r->codec_refreshes, 0);
    settle_close(&c);
    assert_null(c);
}

static void test_h264_entropy(void **state)
{
    (void)state;
    const char *path = "entropy.mp4";
    make_main_mp4(path);
    static const char *const opts[] = { "method", "entropy", NULL };
    SettleContext *c = open_with(opts);
    const SettleResult *r = NULL;
    int ret = settle_analyze_file(c, path, &r);
    assert_coherent(r, ret, path);
    assert_int_equal(ret, 0);
    assert_int_equal(r->method, SETTLE_METHOD_ENTROPY);
    /* the rolling mean lags the step by up to `window` frames; the library
     * must walk back to the frame where the content appeared */
    assert_int_equal(r->stable_frame, CONTENT);
    assert_near(r->stable_time, (double)CONTENT / FPS, 1e-6);
    /* the walk back was needed: the mean still moved after the content came */
    assert_true(r->last_visual_change > r->stable_time + 0.5 / FPS);
    settle_close(&c);
}

static void check_webm(const char *path, const char *encoder)
{
    SceneSpec s = startup(W, H);
    make_capture(path, encoder, 20, &s, FRAMES, NULL, NULL);
    SettleContext *c = open_with(NULL);
    const SettleResult *r = NULL;
    int ret = settle_analyze_file(c, path, &r);
    assert_coherent(r, ret, path);
    assert_int_equal(ret, 0);
    assert_int_equal(r->method, SETTLE_METHOD_DIFF);
    assert_int_equal(r->frames, FRAMES);
    assert_false(r->partial);
    assert_int_equal(r->start_frame, 0);
    assert_int_equal(r->stable_frame, CONTENT);
    /* Matroska keeps milliseconds */
    assert_near(r->stable_time, (double)CONTENT / FPS, 1e-3);
    assert_near(r->first_visual_change, (double)TAP / FPS, 1e-3);
    settle_close(&c);
}

static void test_vp8_webm(void **state)
{
    (void)state;
    check_webm("vp8.webm", "libvpx");
}

static void test_vp9_webm(void **state)
{
    (void)state;
    check_webm("vp9.webm", "libvpx-vp9");
}

static void test_variable_frame_rate(void **state)
{
    (void)state;
    const char *path = "vfr.mp4";
    static const int gaps[] = { 16, 33, 50, 100, 33, 16, 50 };
    enum { N = 72 };
    int64_t t[N];
    t[0] = 0;
    for (int i = 1; i < N; i++) {
        /* a long stall in the quiet part: stable_time must not be index / fps */
        int gap = i == CONTENT + 10 ? 700 : gaps[i % 7];
        t[i] = t[i - 1] + gap;
    }
    SceneSpec s = startup(W, H);
    make_capture(path, "libx264", 20, &s, N, t, NULL);
    SettleContext *c = open_with(NULL);
    const SettleResult *r = NULL;
    int ret = settle_analyze_file(c, path, &r);
    assert_coherent(r, ret, path);
    assert_int_equal(ret, 0);
    assert_int_equal(r->frames, N);
    assert_false(r->partial);
    assert_int_equal(r->stable_frame, CONTENT);
    assert_near(r->stable_time, t[CONTENT] / 1000.0, 1e-6);
    assert_near(r->load_time, t[CONTENT] / 1000.0, 1e-6);
    assert_near(r->first_visual_change, t[TAP] / 1000.0, 1e-6);
    /* the last frame lasts as long as the one before it */
    assert_near(r->duration, (2 * t[N - 1] - t[N - 2]) / 1000.0, 1e-6);
    settle_close(&c);
}

typedef struct KeyframeCheck {
    int64_t keyframe;
    int64_t content;
    int seen;
    int keyframe_flag, refresh_flag;
    int64_t keyframe_diff;
    int64_t refreshes_after_content, noisy_after_content;
} KeyframeCheck;

static int check_keyframe_row(void *opaque, const SettleFrame *f)
{
    KeyframeCheck *k = opaque;
    if (f->index == k->keyframe) {
        k->seen = 1;
        k->keyframe_flag = f->keyframe;
        k->refresh_flag = f->codec_refresh;
        k->keyframe_diff = f->diff_pixels;
    }
    if (f->index > k->content) {
        k->refreshes_after_content += f->codec_refresh;
        k->noisy_after_content += !f->quiet;
    }
    return 0;
}

/* A keyframe forced into the quiet part re-codes the still content at a
 * quantiser of its own: thousands of pixels move by more than the tolerance,
 * but almost none by more than 96 levels. */
static void check_keyframe_case(const char *path, const char *encoder, int quality, int w, int h)
{
    const int keyframe = CONTENT + 8;
    const int keyframes[] = { keyframe, -1 };
    SceneSpec s = startup(w, h);
    make_capture(path, encoder, quality, &s, FRAMES, NULL, keyframes);

    /* Without the filter the keyframe is a change for diff: the test's
     * premise. */
    static const char *const off[] = { "codec-filter", "off", "method", "diff", NULL };
    SettleContext *c = open_with(off);
    const SettleResult *r = NULL;
    int ret = settle_analyze_file(c, path, &r);
    assert_coherent(r, ret, path);
    assert_int_equal(ret, 0);
    assert_int_equal(r->method, SETTLE_METHOD_DIFF);
    assert_int_equal(r->codec_refreshes, 0);
    assert_true(r->stable_frame >= keyframe);
    KeyframeCheck k = { .keyframe = keyframe, .content = CONTENT };
    assert_int_equal(settle_foreach_frame(c, check_keyframe_row, &k), 0);
    assert_true(k.seen);
    assert_int_equal(k.keyframe_flag, 1);
    assert_int_equal(k.refresh_flag, 0);
    if (k.keyframe_diff <= 4096)
        print_error("keyframe %d changed only %lld pixels\n", keyframe, (long long)k.keyframe_diff);
    assert_true(k.keyframe_diff > 4096);
    settle_close(&c);

    /* With the filter (the default) the keyframe is codec noise. */
    c = open_with(NULL);
    ret = settle_analyze_file(c, path, &r);
    assert_coherent(r, ret, path);
    assert_int_equal(ret, 0);
    assert_int_equal(r->method, SETTLE_METHOD_DIFF);
    assert_int_equal(r->stable_frame, CONTENT);
    assert_near(r->stable_time, (double)CONTENT / FPS, 1e-3);
    assert_true(r->codec_refreshes >= 1);
    KeyframeCheck f = { .keyframe = keyframe, .content = CONTENT };
    assert_int_equal(settle_foreach_frame(c, check_keyframe_row, &f), 0);
    assert_true(f.seen);
    assert_int_equal(f.keyframe_flag, 1);
    assert_int_equal(f.refresh_flag, 1);
    assert_int_equal(f.refreshes_after_content, r->codec_refreshes);
    assert_int_equal(f.noisy_after_content, 0);
    settle_close(&c);
}

static void test_keyframe_in_quiet_part(void **state)
{
    (void)state;
    check_keyframe_case("keyframe-vp8.webm", "libvpx", 40, W, H);
}

/* x264 overshoots on text edges at a keyframe by up to 64 levels: the case
 * that a 48-level strong tolerance got wrong at every crf from 18 to 40. */
static void test_keyframe_in_quiet_part_h264(void **state)
{
    (void)state;
    check_keyframe_case("keyframe-x264-640.mp4", "libx264", 28, 640, 480);
    check_keyframe_case("keyframe-x264-320.mp4", "libx264", 35, W, H);
}

static void test_keyframe_in_quiet_part_vp9(void **state)
{
    (void)state;
    check_keyframe_case("keyframe-vp9.webm", "libvpx-vp9", 33, 480, 270);
}

/* Orange marker frames, then the start-up with a blue splash. */
#define MARKER_FRAMES 8
#define M_TAP 16
#define M_SPLASH 20
#define M_CHROME 36
#define M_CONTENT 54
#define M_FRAMES 96

static void make_marker_capture(const char *path)
{
    SceneSpec s = startup(W, H);
    s.marker_frames = MARKER_FRAMES; /* #de640d from scene_init */
    s.tap = M_TAP;
    s.splash = M_SPLASH;
    s.chrome = M_CHROME;
    s.content = M_CONTENT;
    s.splash_rgb[0] = 0x1a;
    s.splash_rgb[1] = 0x4f;
    s.splash_rgb[2] = 0xd0;
    make_capture(path, "libx264", 20, &s, M_FRAMES, NULL, NULL);
}

static const SettleResult *analyze_with(const char *path, const char *const *opts,
                                        SettleContext **pc, int *pret)
{
    const SettleResult *r = NULL;
    *pc = open_with(opts);
    *pret = settle_analyze_file(*pc, path, &r);
    assert_coherent(r, *pret, path);
    return r;
}

static void test_start_marker_end(void **state)
{
    (void)state;
    const char *path = "marker_end.mp4";
    make_marker_capture(path);
    static const char *const opts[] = { "start", "marker-end:#de640d", NULL };
    SettleContext *c;
    int ret;
    const SettleResult *r = analyze_with(path, opts, &c, &ret);
    assert_int_equal(ret, 0);
    assert_int_equal(r->start_frame, MARKER_FRAMES);
    assert_near(r->start_time, (double)MARKER_FRAMES / FPS, 1e-6);
    assert_int_equal(r->stable_frame, M_CONTENT);
    assert_near(r->stable_time, (double)M_CONTENT / FPS, 1e-6);
    assert_near(r->load_time, (double)(M_CONTENT - MARKER_FRAMES) / FPS, 1e-6);
    /* the end of the marker is the start, not a change; the tap is */
    assert_near(r->first_visual_change, (double)(M_TAP - MARKER_FRAMES) / FPS, 1e-6);
    settle_close(&c);
}

static void test_start_marker(void **state)
{
    (void)state;
    const char *path = "marker.mp4";
    make_marker_capture(path);
    static const char *const opts[] = { "start", "marker:#1a4fd0", NULL };
    SettleContext *c;
    int ret;
    const SettleResult *r = analyze_with(path, opts, &c, &ret);
    assert_int_equal(ret, 0);
    assert_int_equal(r->start_frame, M_SPLASH);
    assert_near(r->start_time, (double)M_SPLASH / FPS, 1e-6);
    assert_int_equal(r->stable_frame, M_CONTENT);
    assert_near(r->load_time, (double)(M_CONTENT - M_SPLASH) / FPS, 1e-6);
    settle_close(&c);
}

static void test_start_first_change(void **state)
{
    (void)state;
    const char *path = "first_change.mp4";
    make_main_mp4(path);
    static const char *const opts[] = { "start", "first-change", NULL };
    SettleContext *c;
    int ret;
    const SettleResult *r = analyze_with(path, opts, &c, &ret);
    assert_int_equal(ret, 0);
    assert_int_equal(r->start_frame, TAP);
    assert_near(r->start_time, (double)TAP / FPS, 1e-6);
    assert_int_equal(r->stable_frame, CONTENT);
    assert_near(r->load_time, (double)(CONTENT - TAP) / FPS, 1e-6);
    /* the next change after the start is the splash */
    assert_near(r->first_visual_change, (double)(SPLASH - TAP) / FPS, 1e-6);
    settle_close(&c);
}

static void test_start_time(void **state)
{
    (void)state;
    const char *path = "start_time.mp4";
    make_main_mp4(path);
    static const char *const opts[] = { "start", "1.0", NULL };
    SettleContext *c;
    int ret;
    const SettleResult *r = analyze_with(path, opts, &c, &ret);
    assert_int_equal(ret, 0);
    assert_int_equal(r->start_frame, FPS); /* the frame at 1.0 s */
    assert_near(r->start_time, 1.0, 1e-9);
    assert_int_equal(r->stable_frame, CONTENT);
    assert_near(r->load_time, r->stable_time - 1.0, 1e-9);
    assert_near(r->load_time, (double)CONTENT / FPS - 1.0, 1e-6);
    settle_close(&c);
}

static void test_settle_toast(void **state)
{
    (void)state;
    const char *path = "toast.mp4";
    /* 640x480 so that the toast (2 % of the picture) changes more than the
     * 4096 pixels of the default threshold */
    SceneSpec s = startup(640, 480);
    s.toast_from = CONTENT + 2 * FPS;
    s.toast_to = s.toast_from + FPS / 2;
    int frames = s.toast_to + FPS;
    make_capture(path, "libx264", 20, &s, frames, NULL, NULL);

    /* The toast leaving is the last change: the picture at toast_to is the
     * content again, but the rule (quiet to the end) reports that frame. */
    SettleContext *c;
    int ret;
    const SettleResult *r = analyze_with(path, NULL, &c, &ret);
    assert_int_equal(ret, 0);
    assert_int_equal(r->frames, frames);
    assert_int_equal(r->stable_frame, s.toast_to);
    assert_near(r->stable_time, (double)s.toast_to / FPS, 1e-6);
    assert_near(r->last_visual_change, (double)s.toast_to / FPS, 1e-6);
    settle_close(&c);

    /* One second of quiet makes the content final before the toast comes. */
    static const char *const opts[] = { "settle", "1.0", NULL };
    r = analyze_with(path, opts, &c, &ret);
    assert_int_equal(ret, 0);
    assert_int_equal(r->stable_frame, CONTENT);
    assert_near(r->stable_time, (double)CONTENT / FPS, 1e-6);
    assert_near(r->load_time, (double)CONTENT / FPS, 1e-6);
    settle_close(&c);
}

static int read_line(FILE *f, char *buf, size_t len)
{
    if (!fgets(buf, (int)len, f))
        return 0;
    buf[strcspn(buf, "\n")] = 0;
    return 1;
}

static void test_never_stable(void **state)
{
    (void)state;
    const char *path = "never.mp4";
    SceneSpec s = startup(W, H);
    enum { N = 60 };
    s.content = N + 1000; /* the skeleton shimmers to the last frame */
    make_capture(path, "libx264", 20, &s, N, NULL, NULL);
    SettleContext *c;
    int ret;
    const SettleResult *r = analyze_with(path, NULL, &c, &ret);
    assert_int_equal(ret, SETTLE_ERR_NOT_STABLE);
    assert_int_equal(r->frames, N);
    assert_false(r->partial);
    assert_int_equal(r->stable_frame, -1);
    assert_true(isnan(r->stable_time));
    assert_true(isnan(r->load_time));
    assert_non_null(r->error_message);

    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(settle_write_json(c, f), 0);
    rewind(f);
    char line[8192];
    assert_true(read_line(f, line, sizeof(line)));
    assert_non_null(strstr(line, "\"stable_frame\":null"));
    assert_non_null(strstr(line, "\"stable_time\":null"));
    fclose(f);
    settle_close(&c);
}

/* Errors: analysed quietly, since libavformat logs about every broken file. */
static int analyze_broken(const char *path, SettleContext **pc, const SettleResult **pr)
{
    settle_codec_log_level(-1);
    *pc = open_with(NULL);
    int ret = settle_analyze_file(*pc, path, pr);
    settle_codec_log_level(SETTLE_LOG_ERROR);
    assert_coherent(*pr, ret, path);
    assert_true(ret < 0);
    assert_int_equal((*pr)->error, ret);
    return ret;
}

static void test_missing_file(void **state)
{
    (void)state;
    SettleContext *c;
    const SettleResult *r;
    int ret = analyze_broken("missing.mp4", &c, &r);
    assert_int_equal(ret, SETTLE_ERR_IO);
    assert_false(r->partial);
    assert_int_equal(r->frames, 0);
    assert_int_equal(r->stable_frame, -1);
    settle_close(&c);
}

static void test_not_media(void **state)
{
    (void)state;
    const char *path = track("fake.mp4");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 50; i++)
        fprintf(f, "This is a text file, not a capture. Line %d.\n", i);
    assert_int_equal(fclose(f), 0);
    SettleContext *c;
    const SettleResult *r;
    int ret = analyze_broken(path, &c, &r);
    assert_int_equal(ret, SETTLE_ERR_FORMAT);
    assert_false(r->partial);
    assert_int_equal(r->frames, 0);
    settle_close(&c);
}

/* An audio-only file: a valid WAV, a second of 8 kHz silence. */
static void put_le(FILE *f, uint32_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        fputc((int)((v >> (8 * i)) & 0xff), f);
}

static void test_audio_only(void **state)
{
    (void)state;
    const char *path = track("audio-only.wav");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    const uint32_t rate = 8000, n = 8000;
    fputs("RIFF", f);
    put_le(f, 36 + 2 * n, 4);
    fputs("WAVEfmt ", f);
    put_le(f, 16, 4);
    put_le(f, 1, 2);        /* PCM */
    put_le(f, 1, 2);        /* mono */
    put_le(f, rate, 4);
    put_le(f, rate * 2, 4); /* bytes a second */
    put_le(f, 2, 2);        /* block align */
    put_le(f, 16, 2);       /* bits */
    fputs("data", f);
    put_le(f, 2 * n, 4);
    for (uint32_t i = 0; i < n; i++)
        put_le(f, 0, 2);
    assert_int_equal(fclose(f), 0);
    SettleContext *c;
    const SettleResult *r;
    int ret = analyze_broken(path, &c, &r);
    assert_int_equal(ret, SETTLE_ERR_NO_VIDEO);
    assert_false(r->partial);
    assert_int_equal(r->frames, 0);
    assert_non_null(strstr(r->error_message, "no video stream"));
    settle_close(&c);
}

static void test_too_short(void **state)
{
    (void)state;
    SceneSpec s = startup(W, H);
    SettleContext *c;
    const SettleResult *r;

    make_capture("empty.mp4", "libx264", 20, &s, 0, NULL, NULL);
    int ret = analyze_broken("empty.mp4", &c, &r);
    assert_int_equal(ret, SETTLE_ERR_TOO_SHORT);
    assert_int_equal(r->frames, 0);
    assert_false(r->partial);
    settle_close(&c);

    make_capture("one.mp4", "libx264", 20, &s, 1, NULL, NULL);
    ret = analyze_broken("one.mp4", &c, &r);
    assert_int_equal(ret, SETTLE_ERR_TOO_SHORT);
    assert_int_equal(r->frames, 1);
    assert_false(r->partial);
    assert_int_equal(r->stable_frame, -1);
    settle_close(&c);
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    fclose(f);
    return n;
}

/* Copies the first `keep` bytes of src to dst, XOR-ing `flip` bytes from `at`. */
static void copy_damaged(const char *src, const char *dst, long keep, long at, long flip)
{
    FILE *in = fopen(src, "rb"), *out = fopen(track(dst), "wb");
    assert_non_null(in);
    assert_non_null(out);
    for (long i = 0; i < keep; i++) {
        int ch = fgetc(in);
        assert_true(ch != EOF);
        if (i >= at && i < at + flip)
            ch ^= 0xa5;
        assert_true(fputc(ch, out) != EOF);
    }
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

static void test_truncated(void **state)
{
    (void)state;
    SettleContext *c;
    const SettleResult *r;
    SceneSpec s = startup(W, H);

    /* mp4: the index (moov) is written last, so 60 % of the file has none
     * and nothing can be read */
    make_capture("whole.mp4", "libx264", 20, &s, FRAMES, NULL, NULL);
    copy_damaged("whole.mp4", "cut.mp4", file_size("whole.mp4") * 6 / 10, 0, 0);
    int ret = analyze_broken("cut.mp4", &c, &r);
    assert_true(ret != 0);
    if (ret == SETTLE_ERR_DECODE) {
        assert_true(r->partial);
        assert_true(r->frames > 0 && r->frames < FRAMES);
    } else {
        assert_int_equal(ret, SETTLE_ERR_FORMAT);
        assert_false(r->partial);
        assert_int_equal(r->frames, 0);
    }
    settle_close(&c);

    /* webm: clusters are self-contained, so the frames before the cut decode */
    make_capture("whole.webm", "libvpx", 20, &s, FRAMES, NULL, NULL);
    copy_damaged("whole.webm", "cut.webm", file_size("whole.webm") * 6 / 10, 0, 0);
    ret = analyze_broken("cut.webm", &c, &r);
    assert_int_equal(ret, SETTLE_ERR_DECODE);
    assert_true(r->partial);
    assert_true(r->frames > 0 && r->frames < FRAMES);
    settle_close(&c);
}

static void test_corrupt_bytes(void **state)
{
    (void)state;
    SettleContext *c;
    const SettleResult *r = NULL;
    SceneSpec s = startup(W, H);
    make_capture("clean.mp4", "libx264", 20, &s, FRAMES, NULL, NULL);
    long n = file_size("clean.mp4");
    /* mdat comes first: the middle of the file is frame data */
    copy_damaged("clean.mp4", "flipped.mp4", n, n / 2, 256);
    settle_codec_log_level(-1);
    c = open_with(NULL);
    int ret = settle_analyze_file(c, "flipped.mp4", &r);
    settle_codec_log_level(SETTLE_LOG_ERROR);
    assert_coherent(r, ret, "flipped.mp4");
    assert_true(r->frames >= 0 && r->frames <= FRAMES);
    if (ret == 0) {
        assert_false(r->partial);
        assert_true(r->stable_frame >= 0);
    }
    if (r->frames > 0 && r->stable_frame >= 0)
        assert_true(r->stable_frame < r->frames);
    settle_close(&c);
}

static void test_csv(void **state)
{
    (void)state;
    const char *path = "csv.mp4";
    make_main_mp4(path);
    SettleContext *c;
    int ret;
    const SettleResult *r = analyze_with(path, NULL, &c, &ret);
    assert_int_equal(ret, 0);
    assert_int_equal(r->method, SETTLE_METHOD_DIFF);
    int64_t stable = r->stable_frame, frames = r->frames;

    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(settle_write_csv(c, f), 0);
    rewind(f);
    char line[512];
    assert_true(read_line(f, line, sizeof(line)));
    assert_string_equal(line,
                        "frame,time,diff_pixels,entropy,entropy_delta,quiet,keyframe,codec_refresh,progress,block_peak,blocks_changed");
    int64_t rows = 0;
    while (read_line(f, line, sizeof(line))) {
        long long index, diff;
        double t, e, d;
        double peak;
        int quiet, key, refresh, blocks, used = 0;
        /* progress is empty without visual metrics */
        int got = sscanf(line, "%lld,%lf,%lld,%lf,%lf,%d,%d,%d,,%lf,%d%n", &index, &t, &diff, &e,
                         &d, &quiet, &key, &refresh, &peak, &blocks, &used);
        if (got != 10 || line[used])
            print_error("bad CSV row: '%s'\n", line);
        assert_int_equal(got, 10);
        assert_true(peak >= 0 && blocks >= 0);
        assert_int_equal(line[used], 0);
        assert_int_equal(index, rows);
        assert_near(t, (double)rows / FPS, 1e-6);
        if (rows == 0)
            assert_int_equal(key, 1);
        if (index == stable)
            assert_int_equal(quiet, 0);
        else if (index > stable)
            assert_int_equal(quiet, 1);
        rows++;
    }
    assert_int_equal(rows, frames);
    fclose(f);
    settle_close(&c);
}

/* A capture in memory, read through settle_analyze_io. */
typedef struct Mem {
    uint8_t *data;
    size_t size, pos;
    int reads;
} Mem;

static int mem_read(void *opaque, uint8_t *buf, int size)
{
    Mem *m = opaque;
    size_t n = m->size - m->pos < (size_t)size ? m->size - m->pos : (size_t)size;
    memcpy(buf, m->data + m->pos, n);
    m->pos += n;
    m->reads++;
    return (int)n;
}

static int64_t mem_seek(void *opaque, int64_t offset, int whence)
{
    Mem *m = opaque;
    int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (int64_t)m->pos : (int64_t)m->size;
    if (base + offset < 0 || base + offset > (int64_t)m->size)
        return -1;
    m->pos = (size_t)(base + offset);
    return (int64_t)m->pos;
}

static void load(const char *path, Mem *m)
{
    memset(m, 0, sizeof(*m));
    m->size = (size_t)file_size(path);
    m->data = malloc(m->size);
    assert_non_null(m->data);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(m->data, 1, m->size, f), m->size);
    fclose(f);
}

/* The same capture from a file and from memory gives the same result; a
 * webm also reads without seeking (a pipe), an mp4 cut before its index not. */
static void test_analyze_io(void **state)
{
    (void)state;
    SceneSpec s = startup(W, H);
    make_capture("io.webm", "libvpx", 20, &s, FRAMES, NULL, NULL);
    SettleContext *c = open_with(NULL);
    const SettleResult *r = NULL;
    assert_int_equal(settle_analyze_file(c, "io.webm", &r), 0);
    int64_t stable = r->stable_frame, frames = r->frames;
    double stable_time = r->stable_time;

    Mem m;
    load("io.webm", &m);
    assert_int_equal(settle_analyze_io(c, "memory.webm", mem_read, mem_seek, &m, &r), 0);
    assert_string_equal(r->input, "memory.webm");
    assert_int_equal(r->frames, frames);
    assert_int_equal(r->stable_frame, stable);
    assert_near(r->stable_time, stable_time, 1e-9);
    assert_true(m.reads > 0);
    /* --scale auto: a clean capture, judged by its first frames */
    assert_null(strstr(r->scale_reason, "read a second time"));

    m.pos = 0;
    assert_int_equal(settle_analyze_io(c, "pipe.webm", mem_read, NULL, &m, &r), 0);
    assert_int_equal(r->frames, frames);
    assert_int_equal(r->stable_frame, stable);
    /* input that cannot be read twice is measured at full size, and says so */
    assert_int_equal(r->scale, 1);
    assert_non_null(strstr(r->scale_reason, "cannot be read a second time"));
    free(m.data);

    assert_int_equal(settle_analyze_io(c, "x", NULL, NULL, NULL, &r), SETTLE_ERR_INVAL);

    /* bytes that are not a capture */
    static uint8_t text[] = "not a capture, just text\n";
    Mem t = { .data = text, .size = sizeof(text) - 1 };
    settle_codec_log_level(-1);
    int ret = settle_analyze_io(c, "text.mp4", mem_read, mem_seek, &t, &r);
    settle_codec_log_level(SETTLE_LOG_ERROR);
    assert_int_equal(ret, SETTLE_ERR_FORMAT);
    assert_int_equal(r->error, SETTLE_ERR_FORMAT);
    assert_string_equal(r->input, "text.mp4");
    settle_close(&c);
}

/* Every frame of an analysis, for settle_foreach_frame. */
typedef struct FrameList {
    SettleFrame f[FRAMES];
    int n;
} FrameList;

static int list_frame(void *opaque, const SettleFrame *f)
{
    FrameList *l = opaque;
    if (l->n < FRAMES)
        l->f[l->n] = *f;
    l->n++;
    return 0;
}

/* One analysis of path with settle_frame_entropy(every): its frames and its
 * JSON line (the caller frees it). */
static char *analyse_frames(const char *path, const char *const *opts, int every, FrameList *l)
{
    SettleContext *c = open_with(opts);
    assert_int_equal(settle_frame_entropy(c, every), 0);
    const SettleResult *r = NULL;
    int ret = settle_analyze_file(c, path, &r);
    assert_coherent(r, ret, path);
    assert_int_equal(ret, 0);
    if (!opts)
        assert_true(r->codec_refreshes >= 1);
    l->n = 0;
    assert_int_equal(settle_foreach_frame(c, list_frame, l), 0);
    assert_int_equal(l->n, FRAMES);
    char *json = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&json, &len);
    assert_non_null(m);
    assert_int_equal(settle_write_json(c, m), 0);
    fclose(m);
    settle_close(&c);
    return json;
}

/* settle_frame_entropy(c, 0) on a VP8 film: the entropy is measured on the
 * frames the codec refresh filter reads (a keyframe, the two frames after it
 * and the window of 5 before it; a frame after one that changed most of its
 * bands only when a delta the filter reads needs it), NaN elsewhere, and
 * every other measure and the result are the same as with every frame's.
 * The keyframes: one within the window of the start, two 2 frames apart in
 * the quiet part (a refresh), the last frame. */
static void test_entropy_where_read(void **state)
{
    (void)state;
    const char *path = "entropy-keys-vp8.webm";
    const int keyframes[] = { 3, CONTENT + 8, CONTENT + 10, FRAMES - 1, -1 };
    SceneSpec s = startup(W, H);
    make_capture(path, "libvpx", 40, &s, FRAMES, NULL, keyframes);
    static FrameList all, some;
    char *ja = analyse_frames(path, NULL, 1, &all);
    char *js = analyse_frames(path, NULL, 0, &some);
    assert_string_equal(ja, js);
    int skipped = 0, refreshes = 0;
    for (int i = 0; i < FRAMES; i++) {
        const SettleFrame *a = &all.f[i], *b = &some.f[i];
        assert_true(isfinite(a->entropy));
        if (i == 0 || !isnan(b->entropy))
            assert_true(a->entropy == b->entropy);
        else
            skipped++;
        if (!isnan(b->entropy_delta))
            assert_true(a->entropy_delta == b->entropy_delta);
        refreshes += a->codec_refresh;
        assert_int_equal(a->keyframe, b->keyframe);
        assert_int_equal(a->codec_refresh, b->codec_refresh);
        assert_int_equal(a->quiet, b->quiet);
        assert_int_equal(a->diff_pixels, b->diff_pixels);
        assert_true(a->time == b->time);
        assert_true(a->block_peak == b->block_peak || (isnan(a->block_peak) && isnan(b->block_peak)));
        assert_int_equal(a->blocks_changed, b->blocks_changed);
    }
    assert_true(refreshes > 0);
    assert_true(skipped > FRAMES / 3);
    free(ja);
    free(js);

    /* a diff threshold over the last keyframe's change: the refresh filter
     * reads its delta against the window of 5 still frames before it, every
     * one measured when it reads it */
    static const char *const wide[] = { "diff-threshold", "10%", NULL };
    ja = analyse_frames(path, wide, 1, &all);
    js = analyse_frames(path, wide, 0, &some);
    assert_string_equal(ja, js);
    assert_true(some.f[FRAMES - 1].entropy_delta == all.f[FRAMES - 1].entropy_delta);
    free(ja);
    free(js);

    /* the entropy method reads every frame's: nothing is left out */
    static const char *const entropy[] = { "method", "entropy", NULL };
    ja = analyse_frames(path, entropy, 1, &all);
    js = analyse_frames(path, entropy, 0, &some);
    assert_string_equal(ja, js);
    for (int i = 0; i < FRAMES; i++)
        assert_true(all.f[i].entropy == some.f[i].entropy);
    free(ja);
    free(js);
}

static int group_setup(void **state)
{
    (void)state;
    return scratch_enter("e2e");
}

static int group_teardown(void **state)
{
    (void)state;
    return scratch_leave();
}

int main(void)
{
    struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h264_defaults),
        cmocka_unit_test(test_h264_entropy),
        cmocka_unit_test(test_vp8_webm),
        cmocka_unit_test(test_vp9_webm),
        cmocka_unit_test(test_variable_frame_rate),
        cmocka_unit_test(test_keyframe_in_quiet_part),
        cmocka_unit_test(test_keyframe_in_quiet_part_h264),
        cmocka_unit_test(test_keyframe_in_quiet_part_vp9),
        cmocka_unit_test(test_start_marker_end),
        cmocka_unit_test(test_start_marker),
        cmocka_unit_test(test_start_first_change),
        cmocka_unit_test(test_start_time),
        cmocka_unit_test(test_settle_toast),
        cmocka_unit_test(test_never_stable),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_not_media),
        cmocka_unit_test(test_audio_only),
        cmocka_unit_test(test_too_short),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_corrupt_bytes),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_analyze_io),
        cmocka_unit_test(test_entropy_where_read),
    };
    /* under memcheck: every error and start, H.264 and VP8 (not VP9, the entropy
     * method, the key frames in other codecs: the same paths again, 40 % of the
     * time; nor --settle's toast, 40 s under it: test_settle_quiet has its rule) */
    static const char *const checked[] = {
        "test_h264_defaults",
        "test_vp8_webm",
        "test_variable_frame_rate",
        "test_keyframe_in_quiet_part",
        "test_start_marker",
        "test_start_first_change",
        "test_start_time",
        "test_never_stable",
        "test_missing_file",
        "test_not_media",
        "test_audio_only",
        "test_too_short",
        "test_truncated",
        "test_corrupt_bytes",
        "test_csv",
        "test_analyze_io",
        NULL,
    };
    size_t n = valgrind_sample(tests, sizeof(tests) / sizeof(tests[0]), checked);
    return _cmocka_run_group_tests("e2e", tests, n, group_setup, group_teardown);
}
