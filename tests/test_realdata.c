/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Real captures from ../shared/realdata (not part of the project): Mozilla
 * Eideticker's camera and HDMI captures with the results their author
 * published. Skipped (exit 77) when the directory is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "settle/settle.h"
#include "test_util.h"

static const char *dir;

static int analyze(const char *name, const char *const *opts, SettleContext **c,
                   const SettleResult **r)
{
    SettleSettings s;
    char path[4096], err[256];
    settle_default_settings(&s);
    for (int i = 0; opts && opts[i]; i += 2)
        assert_int_equal(settle_settings_set(&s, opts[i], opts[i + 1], err, sizeof(err)), 0);
    snprintf(path, sizeof(path), "%s/eideticker/%s", dir, name);
    assert_int_equal(settle_open(c, &s), 0);
    int ret = settle_analyze_file(*c, path, r);
    printf("# %s: ret %d, %s, frames %lld, stable %lld at %.3f s, noise floor %.0f, %lld codec refreshes\n",
           name, ret, settle_method_name((*r)->method), (long long)(*r)->frames,
           (long long)(*r)->stable_frame, (*r)->stable_time, (*r)->noise_floor,
           (long long)(*r)->codec_refreshes);
    return ret;
}

#define CONTACTS "contacts-b2g-aug30-load-taphomescreen1.webm"

/* Eideticker's author: "All contacts displayed / App loaded" at about 2.9 s,
 * measured with the entropy method, threshold 0.05. */
static void test_contacts_entropy(void **state)
{
    (void)state;
    SettleContext *c;
    const SettleResult *r;
    const char *opts[] = { "method", "entropy", NULL };
    assert_int_equal(analyze(CONTACTS, opts, &c, &r), 0);
    assert_int_equal(r->method, SETTLE_METHOD_ENTROPY);
    assert_int_equal(r->frames, 332);
    assert_true(r->stable_time >= 2.9 && r->stable_time <= 3.0);
    assert_false(r->partial);
    settle_close(&c);
}

static void test_contacts_default(void **state)
{
    (void)state;
    SettleContext *c;
    const SettleResult *r;
    assert_int_equal(analyze(CONTACTS, NULL, &c, &r), 0);
    assert_true(r->stable_time >= 2.9 && r->stable_time <= 3.0);
    /* the VP8 keyframe at frame 256 (4.267 s) is a codec refresh */
    assert_true(r->codec_refreshes >= 1);
    settle_close(&c);
}

/* Without the codec filter the keyframe in the quiet part moves the answer by
 * 1.3 s: the filter is what keeps it right. */
static void test_contacts_keyframe_spike(void **state)
{
    (void)state;
    SettleContext *c;
    const SettleResult *r;
    const char *opts[] = { "method", "diff", "codec-filter", "off", NULL };
    assert_int_equal(analyze(CONTACTS, opts, &c, &r), 0);
    assert_true(r->stable_time >= 4.2);
    settle_close(&c);
    const char *on[] = { "method", "diff", NULL };
    assert_int_equal(analyze(CONTACTS, on, &c, &r), 0);
    assert_true(r->stable_time >= 2.9 && r->stable_time <= 3.0);
    settle_close(&c);
}

/* The Elmo document camera's exposure and white balance drift: frame
 * differences never settle, so auto must choose entropy. */
static void test_elmo_camera(void **state)
{
    (void)state;
    SettleContext *c;
    const SettleResult *r;
    analyze("startup-test-elmo.webm", NULL, &c, &r);
    assert_int_equal(r->method, SETTLE_METHOD_ENTROPY);
    assert_true(r->noise_floor > r->diff_threshold / 4);
    assert_int_equal(r->frames, 440);
    settle_close(&c);
}

/* Cut short in its source repository: 334 frames decode, then the file ends
 * mid-cluster. The result is kept and marked partial. */
static void test_truncated(void **state)
{
    (void)state;
    SettleContext *c;
    const SettleResult *r;
    assert_int_equal(analyze("lotsocheckerboarding.webm", NULL, &c, &r), SETTLE_ERR_DECODE);
    assert_true(r->partial);
    assert_int_equal(r->frames, 334);
    assert_non_null(r->error_message);
    settle_close(&c);
}

/* Every capture: a documented outcome, coherent fields, no crash. */
static void test_all_captures(void **state)
{
    (void)state;
    static const char *const names[] = {
        "almostnocheckerboarding.webm", "b2g-appswitching-video.webm", CONTACTS,
        "contacts-pan-120fps-2014-07-movie.webm", "contacts-scrolling-movie.webm",
        "contacts-scrolling-pointgrey.webm", "elmo-white-balance-problem.webm",
        "native-fennec-cnn.webm", "pointgrey-taskjs.webm", "taskjs_native.webm",
        "taskjs_xul.webm", "xul-fennec-cnn.webm", NULL,
    };
    for (int i = 0; names[i]; i++) {
        SettleContext *c;
        const SettleResult *r;
        int ret = analyze(names[i], NULL, &c, &r);
        assert_true(ret == 0 || ret == SETTLE_ERR_NOT_STABLE);
        assert_false(r->partial);
        assert_true(r->frames > 100);
        if (ret == 0) {
            assert_true(r->stable_frame >= 0 && r->stable_frame < r->frames);
            assert_true(r->stable_time <= r->duration);
        } else {
            assert_int_equal(r->stable_frame, -1);
        }
        settle_close(&c);
    }
}

int main(int argc, char **argv)
{
    struct stat st;
    dir = argc > 1 ? argv[1] : "../shared/realdata";
    char probe[4096];
    snprintf(probe, sizeof(probe), "%s/eideticker/%s", dir, CONTACTS);
    if (stat(probe, &st) < 0) {
        printf("# skipped: no real captures at %s\n", dir);
        return 77;
    }
    /* SETTLE_REALDATA=small (set by `meson test --setup valgrind`): only the
     * small contacts capture, which takes minutes under valgrind instead of
     * the hour the whole set would */
    const char *mode = getenv("SETTLE_REALDATA");
    if (mode && !strcmp(mode, "small")) {
        const struct CMUnitTest small[] = {
            cmocka_unit_test(test_contacts_entropy),
            cmocka_unit_test(test_contacts_default),
            cmocka_unit_test(test_contacts_keyframe_spike),
        };
        return cmocka_run_group_tests_name("realdata (small)", small, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contacts_entropy),
        cmocka_unit_test(test_contacts_default),
        cmocka_unit_test(test_contacts_keyframe_spike),
        cmocka_unit_test(test_elmo_camera),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_all_captures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
