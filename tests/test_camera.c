/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Camera captures: the synthetic start-up (scene.c) filmed by a synthetic
 * camera (camera.c: perspective, a darker surround, lens blur, sensor noise,
 * slow exposure drift), encoded with keyframes, one of them in the quiet
 * part. The truth is exactly known: the content appears at CONTENT.
 */
#include <math.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sample.h"

#include "settle/pictures.h"
#include "settle/settle.h"
#include "camera.h"
#include "capgen.h"
#include "e2e_common.h"
#include "scene.h"

#define FPS 30
#define SW 180 /* the device's screen */
#define SH 320
#define W 320  /* the camera's picture */
#define H 360
#define TAP 10
#define SPLASH 14
#define CHROME 30
#define CONTENT 48
#define FRAMES 90
#define QUIET_KEYFRAME 70
/* the promise: the default analysis within 0.15 s of the truth */
#define WITHIN 0.15

static SceneSpec startup(void)
{
    SceneSpec s;
    scene_init(&s, SW, SH);
    s.tap = TAP;
    s.splash = SPLASH;
    s.chrome = CHROME;
    s.content = CONTENT;
    s.progress = 1;
    return s;
}

/* Films the start-up: `noise` levels of sensor noise, encoded at `quality`
 * with keyframes at the chrome and in the quiet part. */
static void film_led(const char *path, const char *encoder, int quality, double noise,
                     const SceneSpec *s, CameraSpec *cam, int led_period)
{
    assert_int_equal(camera_init(cam, scene_draw, (void *)s, SW, SH, W, H), 0);
    cam->noise = noise;
    /* a blinking light on the desk, left of the screen */
    cam->led[0] = 12;
    cam->led[1] = 150;
    cam->led[2] = cam->led[3] = led_period ? 40 : 0;
    cam->led_period = led_period;
    const int keyframes[] = { CHROME, QUIET_KEYFRAME, -1 };
    CapgenSpec c = {
        .path = track(path), .encoder = encoder, .width = W, .height = H, .nb_frames = FRAMES,
        .fps = FPS, .keyframes = keyframes, .quality = quality, .draw = camera_draw,
        .opaque = cam,
    };
    int ret = capgen_write(&c);
    free(cam->screen);
    cam->screen = NULL;
    if (ret < 0)
        print_error("capgen_write %s with %s: error %d\n", path, encoder, ret);
    assert_int_equal(ret, 0);
}

static void film(const char *path, const char *encoder, int quality, double noise,
                 const SceneSpec *s, CameraSpec *cam)
{
    film_led(path, encoder, quality, noise, s, cam, 0);
}

/* The noisy H.264 capture most tests use, filmed once (encoding dominates
 * the test's time, ten times over under valgrind). `cam` gets the camera's
 * geometry. Removed by the group teardown. */
#define NOISY "cam-noisy.mp4"
static int noisy_made;

static const char *noisy_capture(CameraSpec *cam)
{
    static SceneSpec s;
    s = startup();
    if (!noisy_made) {
        film(NOISY, "libx264", 16, 4, &s, cam);
        noisy_made = 1;
    } else {
        assert_int_equal(camera_init(cam, scene_draw, &s, SW, SH, W, H), 0);
        camera_free(cam);
    }
    return NOISY;
}

static void check_default_file(const char *path, SettleMethod want)
{
    SettleContext *c = open_with(NULL);
    const SettleResult *r = NULL;
    int ret = settle_analyze_file(c, path, &r);
    print_message("%s: %s, noise floor %.0f, stable frame %lld (%.3f s), truth %d (%.3f s): %s\n",
                  path, settle_method_name(r->method), r->noise_floor, (long long)r->stable_frame,
                  r->stable_time, CONTENT, (double)CONTENT / FPS, r->method_reason);
    assert_int_equal(ret, 0);
    assert_int_equal(r->method, want);
    assert_non_null(r->method_reason);
    assert_true(fabs(r->stable_time - (double)CONTENT / FPS) <= WITHIN);
    settle_close(&c);
}

static void check_default(const char *path, const char *encoder, int quality, double noise,
                          SettleMethod want)
{
    SceneSpec s = startup();
    CameraSpec cam;
    film(path, encoder, quality, noise, &s, &cam);
    check_default_file(path, want);
    remove(path);
}

/* Noise that the encoder keeps: every quiet frame changes thousands of
 * pixels, so auto must choose the block test, which sets its thresholds
 * from the capture's own noise. */
static void test_noisy_h264(void **state)
{
    (void)state;
    CameraSpec cam;
    check_default_file(noisy_capture(&cam), SETTLE_METHOD_BLOCKS);
}

static void test_noisy_vp8(void **state)
{
    (void)state;
    check_default("cam-noisy-vp8.webm", "libvpx", 8, 4, SETTLE_METHOD_BLOCKS);
}

/* A good camera, or an encoder that smooths its noise away: as clean as a
 * screen recording, so auto keeps diff. */
static void test_quiet_camera(void **state)
{
    (void)state;
    check_default("cam-quiet.mp4", "libx264", 23, 1, SETTLE_METHOD_DIFF);
}

static const SettleResult *analyze(SettleContext *c, const char *path, int *ret)
{
    const SettleResult *r = NULL;
    *ret = settle_analyze_file(c, path, &r);
    assert_non_null(r);
    print_message("%s: %s, noise floor %.0f, crop %d,%d,%d,%d, stable frame %lld (%.3f s): %s\n",
                  path, settle_method_name(r->method), r->noise_floor, r->crop_x, r->crop_y,
                  r->crop_w, r->crop_h, (long long)r->stable_frame, r->stable_time,
                  r->error_message ? r->error_message : r->method_reason);
    return r;
}

/* --crop auto finds the screen: its rectangle holds most of the screen's
 * inner box and little else, and the stable frame is right. */
static void test_crop_auto(void **state)
{
    (void)state;
    CameraSpec cam;
    const char *path = noisy_capture(&cam);
    int box[4];
    camera_screen_box(&cam, box);
    static const char *const opts[] = { "crop", "auto", NULL };
    SettleContext *c = open_with(opts);
    int ret;
    const SettleResult *r = analyze(c, path, &ret);
    assert_int_equal(ret, 0);
    int ix0 = r->crop_x > box[0] ? r->crop_x : box[0];
    int iy0 = r->crop_y > box[1] ? r->crop_y : box[1];
    int ix1 = r->crop_x + r->crop_w < box[0] + box[2] ? r->crop_x + r->crop_w : box[0] + box[2];
    int iy1 = r->crop_y + r->crop_h < box[1] + box[3] ? r->crop_y + r->crop_h : box[1] + box[3];
    double inter = ix1 > ix0 && iy1 > iy0 ? (double)(ix1 - ix0) * (iy1 - iy0) : 0;
    print_message("screen box %d,%d,%d,%d, %.0f %% of it inside the crop\n", box[0], box[1],
                  box[2], box[3], 100 * inter / ((double)box[2] * box[3]));
    assert_true(inter >= 0.85 * box[2] * box[3]);
    assert_true((double)r->crop_w * r->crop_h <= 1.15 * box[2] * box[3]);
    assert_true(fabs(r->stable_time - (double)CONTENT / FPS) <= WITHIN);
    settle_close(&c);
}

/* A light that blinks beside the screen to the end: over the whole picture
 * the capture never settles; cropped to the screen, or with the light
 * ignored, it settles at the content. */
static void test_blinking_light(void **state)
{
    (void)state;
    const char *path = "cam-led.mp4";
    SceneSpec s = startup();
    CameraSpec cam;
    film_led(path, "libx264", 16, 4, &s, &cam, 8);
    int ret;
    SettleContext *c = open_with(NULL);
    const SettleResult *r = analyze(c, path, &ret);
    /* the test's premise: the light alone makes the whole picture wrong */
    assert_false(ret == 0 && fabs(r->stable_time - (double)CONTENT / FPS) <= WITHIN);
    settle_close(&c);

    static const char *const crop[] = { "crop", "auto", NULL };
    c = open_with(crop);
    r = analyze(c, path, &ret);
    assert_int_equal(ret, 0);
    assert_true(fabs(r->stable_time - (double)CONTENT / FPS) <= WITHIN);
    settle_close(&c);

    /* the light with the blur's reach around it */
    char rect[64];
    snprintf(rect, sizeof(rect), "%d,%d,%d,%d", cam.led[0] - 4, cam.led[1] - 4, cam.led[2] + 8,
             cam.led[3] + 8);
    const char *const ignore[] = { "ignore", rect, NULL };
    c = open_with(ignore);
    r = analyze(c, path, &ret);
    assert_int_equal(ret, 0);
    assert_true(fabs(r->stable_time - (double)CONTENT / FPS) <= WITHIN);
    settle_close(&c);
    remove(path);
}

/* --blur takes the sensor noise out of the changed-pixel count: the noise
 * floor falls, auto chooses diff, and the stable frame stays right. */
static void test_blur(void **state)
{
    (void)state;
    CameraSpec cam;
    const char *path = noisy_capture(&cam);
    int ret;
    SettleContext *c = open_with(NULL);
    const SettleResult *r = analyze(c, path, &ret);
    assert_int_equal(ret, 0);
    double raw_floor = r->noise_floor;
    assert_int_equal(r->method, SETTLE_METHOD_BLOCKS);
    settle_close(&c);
    static const char *const box[] = { "blur", "1", NULL };
    c = open_with(box);
    r = analyze(c, path, &ret);
    assert_int_equal(ret, 0);
    assert_true(r->noise_floor < raw_floor / 4);
    assert_int_equal(r->method, SETTLE_METHOD_DIFF);
    assert_true(fabs(r->stable_time - (double)CONTENT / FPS) <= WITHIN);
    settle_close(&c);
    static const char *const median[] = { "blur", "median:1", NULL };
    c = open_with(median);
    r = analyze(c, path, &ret);
    assert_int_equal(ret, 0);
    assert_true(r->noise_floor < raw_floor);
    assert_true(fabs(r->stable_time - (double)CONTENT / FPS) <= WITHIN);
    settle_close(&c);
}

/* --noise-factor: the fixed diff threshold never settles on sensor noise;
 * one that follows the noise floor finds the content. */
static void test_noise_factor(void **state)
{
    (void)state;
    CameraSpec cam;
    const char *path = noisy_capture(&cam);
    int ret;
    static const char *const fixed[] = { "method", "diff", NULL };
    SettleContext *c = open_with(fixed);
    const SettleResult *r = analyze(c, path, &ret);
    assert_int_equal(ret, SETTLE_ERR_NOT_STABLE);
    settle_close(&c);
    static const char *const follow[] = { "method", "diff", "noise-factor", "3", NULL };
    c = open_with(follow);
    r = analyze(c, path, &ret);
    assert_int_equal(ret, 0);
    assert_int_equal(r->method, SETTLE_METHOD_DIFF);
    assert_true(fabs(r->stable_time - (double)CONTENT / FPS) <= WITHIN);
    settle_close(&c);
}

/* --scale auto's probe holds a camera film's first frames reduced (what the
 * reading measures when the probe chooses to reduce) once its faint frames
 * look like a camera's, and reads the capture again from its start when it
 * then chooses full size after all (src/decode.c: probe_frame). Whatever it
 * held, auto's frames are those of the scale it chose, set by hand. */

/* The camera of the start-up whose sensor noise stops at frame `quiet`. */
typedef struct Quieting {
    CameraSpec cam;
    int quiet;
    double noise;
} Quieting;

static void quieting_draw(void *opaque, int index, uint8_t *rgb, int stride, int w, int h)
{
    Quieting *q = opaque;
    q->cam.noise = index < q->quiet ? q->noise : 0;
    camera_draw(&q->cam, index, rgb, stride, w, h);
}

static void film_quieting(const char *path, int frames, int quiet)
{
    static SceneSpec s;
    s = startup();
    Quieting q = { .quiet = quiet, .noise = 4 };
    assert_int_equal(camera_init(&q.cam, scene_draw, &s, SW, SH, W, H), 0);
    CapgenSpec c = {
        .path = track(path), .encoder = "libx264", .width = W, .height = H,
        .nb_frames = frames, .fps = FPS, .quality = 16, .draw = quieting_draw, .opaque = &q,
    };
    int ret = capgen_write(&c);
    camera_free(&q.cam);
    assert_int_equal(ret, 0);
}

typedef struct Reading {
    char *csv;
    int scale, reread;
    char reason[512];
} Reading;

/* `path` analysed with --scale `scale`: its CSV and how it was scaled. */
static void read_at(const char *path, const char *scale, Reading *out)
{
    const char *const opts[] = { "scale", scale, NULL };
    SettleContext *c = open_with(opts);
    const SettleResult *r = NULL;
    int ret = settle_analyze_file(c, path, &r);
    assert_true(ret == 0 || ret == SETTLE_ERR_NOT_STABLE);
    out->scale = r->scale;
    out->reread = r->scale_reread;
    snprintf(out->reason, sizeof(out->reason), "%s", r->scale_reason ? r->scale_reason : "");
    size_t len = 0;
    out->csv = NULL;
    FILE *f = open_memstream(&out->csv, &len);
    assert_non_null(f);
    assert_int_equal(settle_write_csv(c, f), 0);
    assert_int_equal(fclose(f), 0);
    assert_true(len > 0);
    settle_close(&c);
}

/* auto's reading of `path` against the same scale set by hand: the same
 * frames, byte for byte. Returns the scale auto chose. */
static int check_auto(const char *path, Reading *a)
{
    Reading fixed;
    read_at(path, "auto", a);
    read_at(path, a->scale == 1 ? "full" : "2", &fixed);
    print_message("%s: scale %d, %s\n", path, a->scale, a->reason);
    assert_string_equal(a->csv, fixed.csv);
    free(fixed.csv);
    return a->scale;
}

static void test_probe_holds(void **state)
{
    (void)state;
    CameraSpec cam;
    Reading a;
    /* noisy throughout: reduced, from frames held reduced */
    assert_int_equal(check_auto(noisy_capture(&cam), &a), 2);
    assert_int_equal(a.reread, 0);
    free(a.csv);
    /* shorter than the probe's second: what it held goes to the analysis */
    film_quieting("cam-short.mp4", 24, 24);
    assert_int_equal(check_auto("cam-short.mp4", &a), 2);
    free(a.csv);
    remove("cam-short.mp4");
    /* noisy for half a second, then clean: the frames held reduced by then
     * are not the full-size picture the probe chooses, so the capture is
     * read again, and says what the probe found, not a second reading's */
    film_quieting("cam-quieting.mp4", 45, 16);
    assert_int_equal(check_auto("cam-quieting.mp4", &a), 1);
    assert_int_equal(a.reread, 0);
    assert_non_null(strstr(a.reason, "clean capture"));
    free(a.csv);
    remove("cam-quieting.mp4");
}

/* probe47: a clean capture is known to be clean once 6 of the probe's faint
 * frames (and 8 in all) changed within a quarter of the threshold, as no
 * later frame can lift the 10th percentile of at most 59 over it; the probe
 * decides then, on its first 9 frames rather than its first second (30
 * frames here: the build before held them all), and the frames are the
 * same, byte for byte, as --scale full's. */
static void test_probe_clean_early(void **state)
{
    (void)state;
    Reading a;
    film_quieting("cam-clean.mp4", 3 * FPS, 0);
    assert_int_equal(check_auto("cam-clean.mp4", &a), 1);
    assert_int_equal(a.reread, 0);
    const char *at = strstr(a.reason, "of the first ");
    assert_non_null(at);
    const long held = strtol(at + strlen("of the first "), NULL, 10);
    print_message("held %ld frames: %s\n", held, a.reason);
    assert_true(held >= 9 && held < FPS);
    free(a.csv);
    remove("cam-clean.mp4");
}

/* A --diff-threshold in per cent is the threshold of as many pixels of the
 * picture: --scale auto's probe judges the faint frames against it before
 * the reading has begun (before: against 0 pixels, so that a film whose
 * faint frames change a few hundred pixels, a quarter of the threshold or
 * less, was taken for a camera's and reduced). The same scale, reasons and
 * frames either way. */
static void test_threshold_percent(void **state)
{
    (void)state;
    SceneSpec s = startup();
    CameraSpec cam;
    film("cam-pct.mp4", "libx264", 16, 3, &s, &cam);
    /* 4096 pixels of 320 x 360 */
    const char *const opts[2][3] = { { "diff-threshold", "4096", NULL },
                                     { "diff-threshold", "3.555556%", NULL } };
    char *csv[2], *why[2], *method[2];
    int scale[2];
    for (int k = 0; k < 2; k++) {
        SettleContext *c = open_with(opts[k]);
        const SettleResult *r = NULL;
        int ret = settle_analyze_file(c, "cam-pct.mp4", &r);
        assert_true(ret == 0 || ret == SETTLE_ERR_NOT_STABLE);
        print_message("--diff-threshold %s: scale %d, %s; %s\n", opts[k][1], r->scale,
                      r->scale_reason ? r->scale_reason : "", r->method_reason);
        scale[k] = r->scale;
        why[k] = strdup(r->scale_reason ? r->scale_reason : "");
        method[k] = strdup(r->method_reason ? r->method_reason : "");
        size_t len = 0;
        FILE *f = open_memstream(&csv[k], &len);
        assert_non_null(f);
        assert_int_equal(settle_write_csv(c, f), 0);
        assert_int_equal(fclose(f), 0);
        settle_close(&c);
    }
    assert_int_equal(scale[0], 1); /* faint frames within a quarter of 4096 */
    assert_int_equal(scale[1], scale[0]);
    assert_string_equal(why[1], why[0]);
    assert_string_equal(method[1], method[0]);
    assert_string_equal(csv[1], csv[0]);
    for (int k = 0; k < 2; k++) {
        free(csv[k]);
        free(why[k]);
        free(method[k]);
    }
    remove("cam-pct.mp4");
}

/* A capture read through settle_analyze_io: where the reading is, and
 * where it was at each picture measured (progress_cb, on the analysis
 * thread). */
typedef struct Reader {
    FILE *f;
    atomic_long pos;
    long at[FRAMES];
    int n;
} Reader;

static int reader_read(void *opaque, uint8_t *buf, int size)
{
    Reader *r = opaque;
    size_t n = fread(buf, 1, (size_t)size, r->f);
    atomic_fetch_add(&r->pos, (long)n);
    return ferror(r->f) ? -1 : (int)n;
}

static int64_t reader_seek(void *opaque, int64_t offset, int whence)
{
    Reader *r = opaque;
    if (fseek(r->f, (long)offset, whence) < 0)
        return -1;
    atomic_store(&r->pos, ftell(r->f));
    return atomic_load(&r->pos);
}

static void reader_progress(void *opaque, double time, double duration, int64_t frames)
{
    (void)time;
    (void)duration;
    (void)frames;
    Reader *r = opaque;
    if (r->n < FRAMES)
        r->at[r->n++] = atomic_load(&r->pos);
}

/* `path` analysed at `scale` with one decoder thread, read through
 * settle_analyze_io: r->at[i], where the reading was when picture i was
 * measured. */
static void read_positions(const char *path, const char *scale, Reader *r)
{
    SettleSettings s;
    char err[256] = "";
    settle_default_settings(&s);
    assert_int_equal(settle_settings_set(&s, "scale", scale, err, sizeof(err)), 0);
    s.threads = 1;
    s.progress_cb = reader_progress;
    s.progress_opaque = r;
    memset(r, 0, sizeof(*r));
    atomic_init(&r->pos, 0);
    assert_non_null(r->f = fopen(path, "rb"));
    SettleContext *c = NULL;
    assert_int_equal(settle_open(&c, &s), 0);
    const SettleResult *res = NULL;
    int ret = settle_analyze_io(c, path, reader_read, reader_seek, r, &res);
    assert_true(ret == 0 || ret == SETTLE_ERR_NOT_STABLE);
    assert_int_equal(res->scale, 2);
    assert_int_equal(r->n, FRAMES);
    settle_close(&c);
    fclose(r->f);
}

/* Once the probe holds a camera film reduced, its frames go to the analysis
 * as they come, not only when its second is read: the analysis measures the
 * first picture (through the probe) before the reading is where a reading
 * without a probe was when it measured picture PROBE_EARLY, well before the
 * probe's 30th frame. */
#define PROBE_EARLY 20
static void test_probe_early(void **state)
{
    (void)state;
    CameraSpec cam;
    const char *path = noisy_capture(&cam);
    static Reader fixed, probed;
    read_positions(path, "2", &fixed);
    read_positions(path, "auto", &probed);
    print_message("%s: first picture measured at byte %ld with the probe; without, picture "
                  "%d at byte %ld, picture 30 at %ld\n",
                  path, probed.at[0], PROBE_EARLY, fixed.at[PROBE_EARLY], fixed.at[30]);
    assert_true(probed.at[0] < fixed.at[PROBE_EARLY]);
}

static void assert_same_picture(const SettleImage *a, const SettleImage *b)
{
    assert_int_equal(a->frame, b->frame);
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->height, b->height);
    for (int y = 0; y < a->height; y++)
        if (memcmp(a->rgb + (ptrdiff_t)y * a->stride, b->rgb + (ptrdiff_t)y * b->stride,
                   (size_t)a->width * 3))
            fail_msg("frame %lld: row %d differs", (long long)a->frame, y);
}

/* The pictures of path kept in the reading against a second reading's: the
 * probe holds the frames of a camera's first second reduced with pictures
 * kept too, and those of them that become pictures (here the splash and the
 * chrome, inside the first second) are converted at full size from the
 * decoder's frames as they go to the analysis. */
static void pictures_once(const char *path)
{
    SettleContext *c = open_with(NULL);
    SettlePictures *p[2] = { NULL, NULL };
    const SettleResult *r = NULL;
    for (int keep = 1; keep >= 0; keep--) {
        assert_int_equal(settle_keep_pictures(c, keep), 0);
        int ret = settle_analyze_file(c, path, &r);
        assert_true(ret == 0 || ret == SETTLE_ERR_NOT_STABLE);
        assert_int_equal(r->scale, 2);
        assert_int_equal(settle_grab_pictures(c, &p[keep]), 0);
        assert_int_equal(p[keep]->reread, !keep);
    }
    assert_true(p[1]->nframes >= 2);
    assert_int_equal(p[0]->nframes, p[1]->nframes);
    for (int k = 0; k < p[0]->nframes; k++)
        assert_same_picture(&p[0]->frame[k], &p[1]->frame[k]);
    assert_int_equal(p[0]->thumbs, p[1]->thumbs);
    assert_same_picture(&p[0]->filmstrip, &p[1]->filmstrip);
    settle_pictures_free(&p[0]);
    settle_pictures_free(&p[1]);
    settle_close(&c);
}

static void test_probe_pictures(void **state)
{
    (void)state;
    CameraSpec cam;
    pictures_once(noisy_capture(&cam)); /* H.264 with B-frames */
    SceneSpec s = startup();
    film("cam-pictures-vp8.webm", "libvpx", 8, 4, &s, &cam);
    pictures_once("cam-pictures-vp8.webm");
    remove("cam-pictures-vp8.webm");
}

static int group_setup(void **state)
{
    (void)state;
    return scratch_enter("camera");
}

static int group_teardown(void **state)
{
    (void)state;
    return scratch_leave();
}

int main(void)
{
    struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threshold_percent),
        cmocka_unit_test(test_noisy_h264),
        cmocka_unit_test(test_noisy_vp8),
        cmocka_unit_test(test_quiet_camera),
        cmocka_unit_test(test_crop_auto),
        cmocka_unit_test(test_blinking_light),
        cmocka_unit_test(test_blur),
        cmocka_unit_test(test_noise_factor),
        cmocka_unit_test(test_probe_holds),
        cmocka_unit_test(test_probe_clean_early),
        cmocka_unit_test(test_probe_early),
        cmocka_unit_test(test_probe_pictures),
    };
    /* under memcheck: the block test on H.264 with B-frames (each case films
     * and encodes a capture: 60 s under it) */
    static const char *const checked[] = {
        "test_noisy_h264",
        NULL,
    };
    size_t n = valgrind_sample(tests, sizeof(tests) / sizeof(tests[0]), checked);
    return _cmocka_run_group_tests("tests", tests, n, group_setup, group_teardown);
}
