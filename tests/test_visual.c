/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Visual metrics (visual progress, Speed Index, visually complete, first and
 * last visual change), the crop and the viewport, through the public API:
 * hand-made pictures whose answers are known exactly, and the 18 filmstrip
 * frames browsertime pins its own values on (read with libpng; skipped when
 * ../shared/realdata is absent).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <png.h>

#include "test_util.h"

#include "settle/settle.h"

static const char *dir;

#define W 200
#define H 100

static void fill(uint8_t *p, int w, int x0, int y0, int x1, int y1, const uint8_t rgb[3])
{
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            memcpy(p + ((size_t)y * w + x) * 3, rgb, 3);
}

/* A white page with up to four blocks of distinct colours (in every channel)
 * of 2400, 1200, 360 and 40 pixels: a frame showing some of them has moved
 * exactly their share of 4000 pixels towards the page with all four. */
static void page_scaled(uint8_t *p, const char *blocks, int k)
{
    static const uint8_t white[3] = { 255, 255, 255 };
    static const uint8_t col[4][3] = { { 10, 20, 30 }, { 40, 50, 60 }, { 70, 80, 90 },
                                       { 100, 110, 120 } };
    static const int x[4][2] = { { 10, 70 }, { 80, 110 }, { 120, 129 }, { 140, 141 } };
    fill(p, k * W, 0, 0, k * W, k * H, white);
    for (const char *b = blocks; *b; b++)
        fill(p, k * W, k * x[*b - 'A'][0], k * 10, k * x[*b - 'A'][1], k * 50, col[*b - 'A']);
}

static void page(uint8_t *p, const char *blocks)
{
    page_scaled(p, blocks, 1);
}

typedef struct Collect {
    int n;
    double progress[64];
} Collect;

static int collect(void *opaque, const SettleFrame *f)
{
    Collect *k = opaque;
    if (k->n < 64)
        k->progress[k->n++] = f->progress;
    return 0;
}

/* scale 4: an 800x400 picture, scaled down to 400x200 by 2x2 boxes that never
 * straddle a block's edge, so the answers are the same. */
static void progress_exact(int scale)
{
    static const char *const frames[] = { "", "A", "ABC", "AB", "ABC", "ABCD", "ABCD", "ABCD" };
    static const double times[] = { 0, 0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8 };
    static const int progress[] = { 0, 60, 99, 90, 99, 100, 100, 100 };
    static uint8_t pic[16 * W * H * 3];
    SettleSettings s;
    char err[128];
    settle_default_settings(&s);
    assert_int_equal(settle_settings_set(&s, "visual-metrics", "on", err, sizeof(err)), 0);
    SettleContext *c;
    const SettleResult *r;
    assert_int_equal(settle_open(&c, &s), 0);
    assert_int_equal(settle_begin(c, "blocks", scale * W, scale * H), 0);
    for (int i = 0; i < 8; i++) {
        page_scaled(pic, frames[i], scale);
        SettlePicture p = { .rgb = pic, .stride = scale * W * 3, .width = scale * W,
                            .height = scale * H, .time = times[i] };
        assert_int_equal(settle_send_picture(c, &p), 0);
    }
    assert_int_equal(settle_finish(c, &r), 0);
    Collect k = { 0 };
    assert_int_equal(settle_foreach_frame(c, collect, &k), 0);
    assert_int_equal(k.n, 8);
    for (int i = 0; i < 8; i++)
        assert_near(k.progress[i], progress[i], 0);
    assert_near(r->first_visual_change, 0.1, 1e-9);
    assert_near(r->last_visual_change, 0.6, 1e-9);
    /* 0.1 s at 0 %, 0.1 at 60, 0.1 at 99, 0.1 at 90, 0.2 at 99 */
    assert_near(r->speed_index, 0.1 + 0.1 * 0.4 + 0.1 * 0.01 + 0.1 * 0.1 + 0.2 * 0.01, 1e-9);
    /* 85 % is reached at 0.2 s and held; 95 and 99 are lost at 0.3 s */
    assert_near(r->visually_complete_85, 0.2, 1e-9);
    assert_near(r->visually_complete_95, 0.4, 1e-9);
    assert_near(r->visually_complete_99, 0.4, 1e-9);
    settle_close(&c);
}

static void test_progress_exact(void **state)
{
    (void)state;
    progress_exact(1);
}

static void test_progress_scaled(void **state)
{
    (void)state;
    progress_exact(4);
}

/* Without visual metrics: no progress, no Speed Index, and first/last visual
 * change keep their meaning of the first and last frame that is not quiet. */
static void test_progress_off(void **state)
{
    (void)state;
    uint8_t pic[W * H * 3];
    SettleSettings s;
    settle_default_settings(&s);
    s.diff_threshold = 100;
    SettleContext *c;
    const SettleResult *r;
    assert_int_equal(settle_open(&c, &s), 0);
    assert_int_equal(settle_begin(c, "blocks", W, H), 0);
    static const char *const frames[] = { "", "A", "ABC", "ABCD", "ABCD", "ABCD" };
    for (int i = 0; i < 6; i++) {
        page(pic, frames[i]);
        SettlePicture p = { .rgb = pic, .stride = W * 3, .width = W, .height = H, .time = i * 0.1 };
        assert_int_equal(settle_send_picture(c, &p), 0);
    }
    assert_int_equal(settle_finish(c, &r), 0);
    Collect k = { 0 };
    assert_int_equal(settle_foreach_frame(c, collect, &k), 0);
    assert_true(isnan(k.progress[3]));
    assert_true(isnan(r->speed_index) && isnan(r->visually_complete_85));
    assert_near(r->first_visual_change, 0.1, 1e-9);
    /* block D (40 pixels) is under the diff threshold: the last change is C */
    assert_near(r->last_visual_change, 0.2, 1e-9);
    settle_close(&c);
}

/* A browser window: grey chrome around an orange viewport, then the page
 * loads inside it while the chrome's clock changes outside. */
static void test_viewport_orange(void **state)
{
    (void)state;
    enum { VW = 320, VH = 240 };
    static uint8_t pic[VW * VH * 3];
    static const uint8_t grey[3] = { 128, 128, 128 }, orange[3] = { 222, 100, 13 },
                         white[3] = { 255, 255, 255 }, ink[3] = { 20, 20, 20 },
                         dark[3] = { 0, 0, 0 };
    SettleSettings s;
    char err[128];
    settle_default_settings(&s);
    assert_int_equal(settle_settings_set(&s, "start", "orange", err, sizeof(err)), 0);
    assert_int_equal(settle_settings_set(&s, "crop", "viewport", err, sizeof(err)), 0);
    assert_int_equal(settle_settings_set(&s, "visual-metrics", "on", err, sizeof(err)), 0);
    char v[64];
    assert_true(settle_settings_get(&s, "start", v, sizeof(v)) > 0);
    assert_string_equal(v, "marker-end:#de640d");
    SettleContext *c;
    const SettleResult *r;
    assert_int_equal(settle_open(&c, &s), 0);
    assert_int_equal(settle_begin(c, "window", VW, VH), 0);
    for (int i = 0; i < 12; i++) {
        fill(pic, VW, 0, 0, VW, VH, grey);
        /* the viewport: x 20-299, y 30-229 */
        fill(pic, VW, 20, 30, 300, 230, i < 3 ? orange : white);
        if (i >= 6)
            fill(pic, VW, 40, 60, 200, 120, ink);
        /* a clock in the chrome that ticks every frame */
        fill(pic, VW, 2 + i, 2, 12 + i, 12, dark);
        SettlePicture p = { .rgb = pic, .stride = VW * 3, .width = VW, .height = VH,
                            .time = i * 0.1 };
        assert_int_equal(settle_send_picture(c, &p), 0);
    }
    assert_int_equal(settle_finish(c, &r), 0);
    /* WebPageTest's rectangle (one column and row short); pictures pushed
     * through the API are not Android recordings, so no rows are left out */
    assert_int_equal(r->crop_x, 20);
    assert_int_equal(r->crop_y, 30);
    assert_int_equal(r->crop_w, 279);
    assert_int_equal(r->crop_h, 199);
    assert_int_equal(r->width, VW);
    assert_int_equal(r->start_frame, 3);
    assert_near(r->first_visual_change, 0.3, 1e-9);
    assert_near(r->last_visual_change, 0.3, 1e-9);
    assert_near(r->speed_index, 0.3, 1e-9);
    /* the clock is outside the crop: the page is stable where the ink appeared */
    assert_int_equal(r->stable_frame, 6);
    settle_close(&c);
}

/* WebPageTest's captures end with orange frames too: those are not the
 * final picture, the last frame before them is. */
static void test_closing_orange(void **state)
{
    (void)state;
    enum { VW = 320, VH = 240 };
    static uint8_t pic[VW * VH * 3];
    static const uint8_t grey[3] = { 128, 128, 128 }, orange[3] = { 222, 100, 13 },
                         white[3] = { 255, 255, 255 }, ink[3] = { 20, 20, 20 };
    SettleSettings s;
    char err[128];
    settle_default_settings(&s);
    assert_int_equal(settle_settings_set(&s, "start", "orange", err, sizeof(err)), 0);
    assert_int_equal(settle_settings_set(&s, "crop", "viewport", err, sizeof(err)), 0);
    assert_int_equal(settle_settings_set(&s, "visual-metrics", "on", err, sizeof(err)), 0);
    SettleContext *c;
    const SettleResult *r;
    assert_int_equal(settle_open(&c, &s), 0);
    assert_int_equal(settle_begin(c, "window", VW, VH), 0);
    for (int i = 0; i < 14; i++) {
        fill(pic, VW, 0, 0, VW, VH, grey);
        /* orange 0-2, white 3-5, ink from 6 on, orange again from 12 on */
        fill(pic, VW, 20, 30, 300, 230, i < 3 || i >= 12 ? orange : white);
        if (i >= 6 && i < 12)
            fill(pic, VW, 40, 60, 200, 120, ink);
        SettlePicture p = { .rgb = pic, .stride = VW * 3, .width = VW, .height = VH,
                            .time = i * 0.1 };
        assert_int_equal(settle_send_picture(c, &p), 0);
    }
    int ret = settle_finish(c, &r);
    assert_true(ret == 0 || ret == SETTLE_ERR_NOT_STABLE);
    assert_int_equal(r->start_frame, 3);
    assert_near(r->first_visual_change, 0.3, 1e-9);
    /* the ink at 0.6 s, not the orange at 1.2 s, is the final picture */
    assert_near(r->last_visual_change, 0.3, 1e-9);
    assert_near(r->speed_index, 0.3, 1e-9);
    Collect k = { 0 };
    assert_int_equal(settle_foreach_frame(c, collect, &k), 0);
    assert_near(k.progress[11], 100, 1e-9);
    settle_close(&c);
}

static void test_crop_rect(void **state)
{
    (void)state;
    uint8_t pic[W * H * 3];
    SettleSettings s;
    char err[128];
    settle_default_settings(&s);
    assert_int_equal(settle_settings_set(&s, "crop", "0,0,60,100", err, sizeof(err)), 0);
    s.diff_threshold = 100;
    SettleContext *c;
    const SettleResult *r;
    assert_int_equal(settle_open(&c, &s), 0);
    assert_int_equal(settle_begin(c, "blocks", W, H), 0);
    /* block A (x 10-69) starts inside the crop; B, C, D are outside it */
    static const char *const frames[] = { "", "", "A", "A", "AB", "ABC", "ABCD", "ABCD" };
    for (int i = 0; i < 8; i++) {
        page(pic, frames[i]);
        SettlePicture p = { .rgb = pic, .stride = W * 3, .width = W, .height = H, .time = i * 0.1 };
        assert_int_equal(settle_send_picture(c, &p), 0);
    }
    assert_int_equal(settle_finish(c, &r), 0);
    assert_int_equal(r->stable_frame, 2);
    assert_int_equal(r->crop_w, 60);
    settle_close(&c);

    /* a crop that does not fit the picture */
    assert_int_equal(settle_settings_set(&s, "crop", "150,0,60,100", err, sizeof(err)), 0);
    assert_int_equal(settle_open(&c, &s), 0);
    assert_int_equal(settle_begin(c, "blocks", W, H), SETTLE_ERR_CROP);
    /* the context is begun all the same, so the result says why */
    assert_int_equal(settle_finish(c, &r), SETTLE_ERR_CROP);
    assert_int_equal(r->error, SETTLE_ERR_CROP);
    assert_non_null(strstr(r->error_message, "does not fit the 200x100 picture"));
    assert_int_equal(r->stable_frame, -1);
    settle_close(&c);
    assert_int_not_equal(settle_settings_set(&s, "crop", "1,2,3", err, sizeof(err)), 0);
    assert_int_not_equal(settle_settings_set(&s, "crop", "1,2,0,4", err, sizeof(err)), 0);
}

/* Reads an 8-bit PNG as RGB24 (grey and palette expanded, alpha dropped). */
static uint8_t *read_png(const char *path, int *w, int *h)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    uint8_t *pix = NULL;
    png_bytep *rows = NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        free(pix);
        pix = NULL;
        goto done;
    }
    png_init_io(png, f);
    png_read_info(png, info);
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_strip_alpha(png);
    png_read_update_info(png, info);
    *w = (int)png_get_image_width(png, info);
    *h = (int)png_get_image_height(png, info);
    if (png_get_rowbytes(png, info) != (size_t)*w * 3)
        goto done;
    pix = malloc((size_t)*w * *h * 3);
    rows = malloc(sizeof(*rows) * (size_t)*h);
    if (!pix || !rows) {
        free(pix);
        pix = NULL;
        goto done;
    }
    for (int y = 0; y < *h; y++)
        rows[y] = pix + (size_t)y * *w * 3;
    png_read_image(png, rows);
done:
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
    return pix;
}

/* browsertime's test_visualmetrics.py pins these on its 18 filmstrip frames. */
static void test_browsertime_frames(void **state)
{
    (void)state;
    static const int ms[] = { 0, 920, 1000, 1080, 1200, 1240, 1280, 1360, 1400, 1520,
                              2040, 2600, 3160, 3720, 4280, 4880, 5440, 6000 };
    static const int golden[] = { 0, 69, 69, 69, 72, 73, 88, 90, 91, 98,
                                  98, 98, 98, 98, 99, 99, 99, 100 };
    enum { N = sizeof(ms) / sizeof(ms[0]) };
    char path[4096];
    struct stat st;
    snprintf(path, sizeof(path), "%s/browsertime/test_data_frames/ms_000000.png", dir);
    if (stat(path, &st) < 0) {
        printf("# skipped: no frames at %s\n", path);
        skip();
    }
    SettleSettings s;
    char err[128];
    settle_default_settings(&s);
    assert_int_equal(settle_settings_set(&s, "visual-metrics", "on", err, sizeof(err)), 0);
    /* a filmstrip: WebPageTest already dropped the duplicates */
    assert_int_equal(settle_settings_set(&s, "last-change", "exact", err, sizeof(err)), 0);
    SettleContext *c;
    const SettleResult *r;
    assert_int_equal(settle_open(&c, &s), 0);
    for (int i = 0; i < N; i++) {
        int w = 0, h = 0;
        snprintf(path, sizeof(path), "%s/browsertime/test_data_frames/ms_%06d.png", dir, ms[i]);
        uint8_t *pix = read_png(path, &w, &h);
        assert_non_null(pix);
        if (i == 0)
            assert_int_equal(settle_begin(c, "test_data_frames", w, h), 0);
        SettlePicture p = { .rgb = pix, .stride = (ptrdiff_t)w * 3, .width = w, .height = h,
                            .time = ms[i] / 1000.0 };
        assert_int_equal(settle_send_picture(c, &p), 0);
        free(pix);
    }
    settle_finish(c, &r);
    Collect k = { 0 };
    assert_int_equal(settle_foreach_frame(c, collect, &k), 0);
    assert_int_equal(k.n, N);
    printf("# visual progress (settle / browsertime):");
    int exact = 0;
    for (int i = 0; i < N; i++) {
        printf(" %d=%.0f/%d", ms[i], k.progress[i], golden[i]);
        exact += k.progress[i] == golden[i];
    }
    printf("\n# %d of %d exact; FVC %.3f s, LVC %.3f s, SI %.4f s (browsertime 0.920, 6.000, 1.125)\n",
           exact, N, r->first_visual_change, r->last_visual_change, r->speed_index);
    for (int i = 0; i < N; i++)
        assert_near(k.progress[i], golden[i], 1);
    assert_near(r->first_visual_change, 0.920, 1e-9);
    assert_near(r->last_visual_change, 6.000, 1e-9);
    assert_near(r->speed_index, 1.125, 1.125 * 0.01);
    settle_close(&c);
}

int main(int argc, char **argv)
{
    dir = argc > 1 ? argv[1] : "../shared/realdata";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_progress_exact),
        cmocka_unit_test(test_progress_scaled),
        cmocka_unit_test(test_progress_off),
        cmocka_unit_test(test_viewport_orange),
        cmocka_unit_test(test_closing_orange),
        cmocka_unit_test(test_crop_rect),
        cmocka_unit_test(test_browsertime_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
