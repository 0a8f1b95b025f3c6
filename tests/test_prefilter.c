/* SPDX-License-Identifier: BSD-2-Clause */
/* --ignore, --blur and --crop auto on hand-made pictures with known answers. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include "internal.h"

static void fill(uint8_t *p, int w, int h, uint8_t v)
{
    memset(p, v, (size_t)w * h * 3);
}

static void set_px(uint8_t *p, int w, int x, int y, uint8_t r, uint8_t g, uint8_t b)
{
    p[(y * w + x) * 3] = r;
    p[(y * w + x) * 3 + 1] = g;
    p[(y * w + x) * 3 + 2] = b;
}

static void test_box_blur(void **state)
{
    (void)state;
    enum { W = 9, H = 7 };
    uint8_t src[W * H * 3], dst[W * H * 3];
    int col[W * 3];
    /* a flat picture stays flat, edges included */
    fill(src, W, H, 77);
    settle_blur_rgb(src, W * 3, W, H, 0, 0, 0, 2, dst, W * 3, col);
    for (int i = 0; i < W * H * 3; i++)
        assert_int_equal(dst[i], 77);
    /* one bright pixel spreads over its 3x3 square as a ninth */
    fill(src, W, H, 0);
    set_px(src, W, 4, 3, 90, 180, 9);
    settle_blur_rgb(src, W * 3, W, H, 0, 0, 0, 1, dst, W * 3, col);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            int in = abs(x - 4) <= 1 && abs(y - 3) <= 1;
            assert_int_equal(dst[(y * W + x) * 3], in ? 10 : 0);
            assert_int_equal(dst[(y * W + x) * 3 + 1], in ? 20 : 0);
            assert_int_equal(dst[(y * W + x) * 3 + 2], in ? 1 : 0);
        }
    }
    /* rows above and below the band are read when given: rows 0-2 of src
     * blurred as a band of 1 row with one row either side */
    settle_blur_rgb(src + 3 * W * 3, W * 3, W, 1, 1, 1, 0, 1, dst, W * 3, col);
    assert_int_equal(dst[4 * 3 + 1], 20);
    settle_blur_rgb(src + 2 * W * 3, W * 3, W, 1, 1, 1, 0, 1, dst, W * 3, col);
    assert_int_equal(dst[4 * 3 + 1], 20);
    /* without them the edge row repeats: the pixel counts 3 times in its column */
    settle_blur_rgb(src + 3 * W * 3, W * 3, W, 1, 0, 0, 0, 1, dst, W * 3, col);
    assert_int_equal(dst[4 * 3 + 1], 60);
}

static void test_median_blur(void **state)
{
    (void)state;
    enum { W = 8, H = 6 };
    uint8_t src[W * H * 3], dst[W * H * 3];
    int col[W * 3];
    /* a lone noisy pixel disappears */
    fill(src, W, H, 50);
    set_px(src, W, 3, 2, 250, 0, 99);
    settle_blur_rgb(src, W * 3, W, H, 0, 0, 1, 1, dst, W * 3, col);
    for (int i = 0; i < W * H * 3; i++)
        assert_int_equal(dst[i], 50);
    /* a step edge stays where it is */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            set_px(src, W, x, y, x < 4 ? 10 : 200, x < 4 ? 10 : 200, x < 4 ? 10 : 200);
    settle_blur_rgb(src, W * 3, W, H, 0, 0, 1, 2, dst, W * 3, col);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            assert_int_equal(dst[(y * W + x) * 3], x < 4 ? 10 : 200);
}

static void test_mask_rows(void **state)
{
    (void)state;
    enum { W = 6, H = 5 };
    uint8_t p[W * H * 3];
    const int rect[2][4] = { { 1, 1, 2, 2 }, { 4, 3, 2, 5 } };
    fill(p, W, H, 9);
    /* rows 1..4 of the picture given as a band starting at row 1 */
    settle_mask_rows(p + W * 3, W * 3, 1, 4, rect, 2);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int in = (x >= 1 && x < 3 && y >= 1 && y < 3) || (x >= 4 && y >= 3);
            assert_int_equal(p[(y * W + x) * 3 + 2], in ? 0 : 9);
        }
}

static void test_find_screen(void **state)
{
    (void)state;
    enum { W = 200, H = 160 };
    uint8_t *p = malloc(W * H * 3);
    assert_non_null(p);
    int rect[4];
    /* a lit screen at 60..139 x 20..139 on a dark desk, with dark icons on it */
    fill(p, W, H, 25);
    for (int y = 20; y < 140; y++)
        for (int x = 60; x < 140; x++)
            set_px(p, W, x, y, 200, 210, 220);
    for (int y = 40; y < 50; y++)
        for (int x = 70; x < 80; x++)
            set_px(p, W, x, y, 30, 30, 30);
    assert_int_equal(settle_find_screen(p, W * 3, W, H, rect), 1);
    /* inside, by the 2 % margin (2 pixels a side here) */
    assert_int_equal(rect[0], 62);
    assert_int_equal(rect[1], 23);
    assert_int_equal(rect[2], 76);
    assert_int_equal(rect[3], 114);
    /* a flat picture: nothing */
    fill(p, W, H, 128);
    assert_int_equal(settle_find_screen(p, W * 3, W, H, rect), 0);
    assert_int_equal(rect[0], 0);
    assert_int_equal(rect[1], 0);
    assert_int_equal(rect[2], W);
    assert_int_equal(rect[3], H);
    /* a screen recording: a white page with a dark bar along the bottom */
    fill(p, W, H, 250);
    for (int y = 150; y < H; y++)
        for (int x = 0; x < W; x++)
            set_px(p, W, x, y, 20, 20, 20);
    assert_int_equal(settle_find_screen(p, W * 3, W, H, rect), 0);
    /* a bright bar on a dark picture is not a screen */
    fill(p, W, H, 20);
    for (int y = 10; y < 30; y++)
        for (int x = 10; x < 190; x++)
            set_px(p, W, x, y, 240, 240, 240);
    assert_int_equal(settle_find_screen(p, W * 3, W, H, rect), 0);
    assert_int_equal(rect[2], W);
    /* a bright 2x2 in a 4x4 picture leaves nothing inside the margin */
    fill(p, 4, 4, 0);
    for (int y = 1; y < 3; y++)
        for (int x = 1; x < 3; x++)
            set_px(p, 4, x, y, 255, 255, 255);
    assert_int_equal(settle_find_screen(p, 4 * 3, 4, 4, rect), 0);
    assert_int_equal(rect[2], 4);
    assert_int_equal(rect[3], 4);
    free(p);
}

typedef struct Seen {
    int64_t diff[4];
    double entropy[4];
} Seen;

static int keep(void *opaque, const SettleFrame *f)
{
    Seen *s = opaque;
    if (f->index < 4) {
        s->diff[f->index] = f->diff_pixels;
        s->entropy[f->index] = f->entropy;
    }
    return 0;
}

/* --ignore: what changes inside the region counts neither as changed pixels
 * nor in the histogram, from the first frame on and in every band path. */
static void test_ignore(void **state)
{
    (void)state;
    enum { W = 40, H = 40 };
    static uint8_t pic[4][W * H * 3];
    /* frame 0: a gradient; frame 1: the region (x 5..14, y 10..29, across
     * two bands) changes; frame 2: the region and 30 pixels outside it */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            set_px(pic[0], W, x, y, (uint8_t)(x * 6), (uint8_t)(y * 6), 100);
    memcpy(pic[1], pic[0], sizeof(pic[0]));
    for (int y = 10; y < 30; y++)
        for (int x = 5; x < 15; x++)
            set_px(pic[1], W, x, y, 255, 0, (uint8_t)(x + y));
    memcpy(pic[2], pic[1], sizeof(pic[1]));
    for (int x = 0; x < 30; x++)
        set_px(pic[2], W, x, 35, 0, 255, 0);
    memcpy(pic[3], pic[0], sizeof(pic[0]));

    SettleSettings s;
    settle_default_settings(&s);
    char err[128];
    /* two overlapping rectangles that together cover the changing region */
    assert_int_equal(settle_settings_set(&s, "ignore", "5,10,10,12", err, sizeof(err)), 0);
    assert_int_equal(settle_settings_set(&s, "ignore", "5,20,10,10;8,12,3,3", err, sizeof(err)), 0);
    assert_int_equal(s.nignore, 3);
    SettleContext *c = NULL;
    assert_int_equal(settle_open(&c, &s), 0);
    assert_int_equal(settle_begin(c, "ignore", W, H), 0);
    for (int i = 0; i < 4; i++) {
        SettlePicture p = { .rgb = pic[i], .stride = W * 3, .width = W, .height = H,
                            .time = i / 30.0 };
        assert_int_equal(settle_send_picture(c, &p), 0);
    }
    const SettleResult *r;
    settle_finish(c, &r);
    Seen seen;
    assert_int_equal(settle_foreach_frame(c, keep, &seen), 0);
    assert_int_equal(seen.diff[1], 0);
    assert_int_equal(seen.diff[2], 30);
    assert_int_equal(seen.diff[3], 30);
    assert_true(seen.entropy[0] == seen.entropy[1]);
    assert_true(seen.entropy[3] == seen.entropy[0]);

    /* the entropy is that of the pixels outside the region, counted here */
    uint32_t hist[SETTLE_HIST_BINS] = { 0 };
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            if (x >= 5 && x < 15 && y >= 10 && y < 30)
                continue;
            const uint8_t *px = pic[0] + (y * W + x) * 3;
            hist[px[0]]++;
            hist[256 + px[1]]++;
            hist[512 + px[2]]++;
        }
    assert_true(fabs(seen.entropy[0] - settle_histogram_entropy(hist, SETTLE_HIST_BINS)) < 1e-12);
    settle_close(&c);
}

/* --blur: a camera's noise on a still picture stops counting, a real
 * change still counts. */
static void test_blur_measures(void **state)
{
    (void)state;
    enum { W = 64, H = 48 };
    static uint8_t pic[3][W * H * 3];
    /* frame 0: grey; frame 1: the same with one pixel in 16 off by 40
     * levels (a sensor's hot pixels); frame 2: a white block of 16x16 appears */
    for (int f = 0; f < 3; f++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int v = 120 + (f == 1 && x % 4 == 1 && y % 4 == 2 ? ((x + y) & 4 ? 40 : -40) : 0);
                set_px(pic[f], W, x, y, (uint8_t)v, (uint8_t)v, (uint8_t)v);
            }
    for (int y = 16; y < 32; y++)
        for (int x = 24; x < 40; x++)
            set_px(pic[2], W, x, y, 250, 250, 250);
    for (int b = 0; b < 2; b++) {
        SettleSettings s;
        settle_default_settings(&s);
        char err[128];
        assert_int_equal(settle_settings_set(&s, "blur", b ? "median:1" : "box:1", err,
                                             sizeof(err)), 0);
        SettleContext *c = NULL;
        assert_int_equal(settle_open(&c, &s), 0);
        assert_int_equal(settle_begin(c, "blur", W, H), 0);
        for (int i = 0; i < 3; i++) {
            SettlePicture p = { .rgb = pic[i], .stride = W * 3, .width = W, .height = H,
                                .time = i / 30.0 };
            assert_int_equal(settle_send_picture(c, &p), 0);
        }
        const SettleResult *r;
        settle_finish(c, &r);
        Seen seen;
        assert_int_equal(settle_foreach_frame(c, keep, &seen), 0);
        assert_int_equal(seen.diff[1], 0);
        /* the box: the block and its blurred rim; the median rounds off the
         * block's four corner pixels */
        assert_int_equal(seen.diff[2], b ? 16 * 16 - 4 : 18 * 18);
        settle_close(&c);
    }
    /* without the blur every hot pixel counts */
    SettleContext *c = NULL;
    assert_int_equal(settle_open(&c, NULL), 0);
    assert_int_equal(settle_begin(c, "raw", W, H), 0);
    for (int i = 0; i < 2; i++) {
        SettlePicture p = { .rgb = pic[i], .stride = W * 3, .width = W, .height = H,
                            .time = i / 30.0 };
        assert_int_equal(settle_send_picture(c, &p), 0);
    }
    const SettleResult *r;
    settle_finish(c, &r);
    Seen seen;
    assert_int_equal(settle_foreach_frame(c, keep, &seen), 0);
    assert_int_equal(seen.diff[1], W * H / 16);
    settle_close(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_blur),
        cmocka_unit_test(test_median_blur),
        cmocka_unit_test(test_mask_rows),
        cmocka_unit_test(test_find_screen),
        cmocka_unit_test(test_ignore),
        cmocka_unit_test(test_blur_measures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
