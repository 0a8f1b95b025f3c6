/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Camera captures: the synthetic start-up (scene.c) filmed by a synthetic
 * camera (camera.c: perspective, a darker surround, lens blur, sensor noise,
 * slow exposure drift), encoded with keyframes, one of them in the quiet
 * part. The truth is exactly known: the content appears at CONTENT.
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
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_noisy_h264),
        cmocka_unit_test(test_noisy_vp8),
        cmocka_unit_test(test_quiet_camera),
        cmocka_unit_test(test_crop_auto),
        cmocka_unit_test(test_blinking_light),
        cmocka_unit_test(test_blur),
        cmocka_unit_test(test_noise_factor),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
