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

static char scratch[64];

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
static void film(const char *path, const char *encoder, int quality, double noise,
                 const SceneSpec *s, CameraSpec *cam)
{
    assert_int_equal(camera_init(cam, scene_draw, (void *)s, SW, SH, W, H), 0);
    cam->noise = noise;
    const int keyframes[] = { CHROME, QUIET_KEYFRAME, -1 };
    CapgenSpec c = {
        .path = path, .encoder = encoder, .width = W, .height = H, .nb_frames = FRAMES,
        .fps = FPS, .keyframes = keyframes, .quality = quality, .draw = camera_draw,
        .opaque = cam,
    };
    int ret = capgen_write(&c);
    camera_free(cam);
    if (ret < 0)
        print_error("capgen_write %s with %s: error %d\n", path, encoder, ret);
    assert_int_equal(ret, 0);
}

static SettleContext *open_with(const char *const *opts)
{
    SettleSettings s;
    char err[256] = "";
    settle_default_settings(&s);
    for (; opts && opts[0]; opts += 2) {
        int ret = settle_settings_set(&s, opts[0], opts[1], err, sizeof(err));
        if (ret < 0)
            print_error("--%s %s: %s\n", opts[0], opts[1], err);
        assert_int_equal(ret, 0);
    }
    SettleContext *c = NULL;
    assert_int_equal(settle_open(&c, &s), 0);
    return c;
}

static void check_default(const char *path, const char *encoder, int quality, double noise,
                          SettleMethod want)
{
    SceneSpec s = startup();
    CameraSpec cam;
    film(path, encoder, quality, noise, &s, &cam);
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
    remove(path);
}

/* Noise that the encoder keeps: every quiet frame changes thousands of
 * pixels, so auto must choose entropy. */
static void test_noisy_h264(void **state)
{
    (void)state;
    check_default("cam-noisy.mp4", "libx264", 16, 4, SETTLE_METHOD_ENTROPY);
}

static void test_noisy_vp8(void **state)
{
    (void)state;
    check_default("cam-noisy.webm", "libvpx", 8, 4, SETTLE_METHOD_ENTROPY);
}

/* A good camera, or an encoder that smooths its noise away: as clean as a
 * screen recording, so auto keeps diff. */
static void test_quiet_camera(void **state)
{
    (void)state;
    check_default("cam-quiet.mp4", "libx264", 23, 1, SETTLE_METHOD_DIFF);
}

static int group_setup(void **state)
{
    (void)state;
    snprintf(scratch, sizeof(scratch), "camera-XXXXXX");
    if (!mkdtemp(scratch) || chdir(scratch) < 0)
        return -1;
    settle_codec_log_level(SETTLE_LOG_ERROR);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    if (chdir("..") < 0)
        return -1;
    return rmdir(scratch) < 0 ? -1 : 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_noisy_h264),
        cmocka_unit_test(test_noisy_vp8),
        cmocka_unit_test(test_quiet_camera),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
