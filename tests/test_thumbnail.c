/* SPDX-License-Identifier: BSD-2-Clause */
/* settle_thumbnail against the plain box-by-box area average it replaced,
 * byte for byte, on random pictures of many shapes, padded and bottom-up
 * strides, and boxes larger than the picture. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pictures.h"

/* Each output pixel the rounded mean of its box, summed pixel by pixel. */
static void reference(const uint8_t *rgb, ptrdiff_t stride, int w, int h, int box, uint8_t *out,
                      int *tw_out, int *th_out)
{
    double f = fmin(1.0, fmin((double)box / w, (double)box / h));
    int tw = (int)lround(w * f), th = (int)lround(h * f);
    tw = tw < 1 ? 1 : tw;
    th = th < 1 ? 1 : th;
    for (int y = 0; y < th; y++) {
        int ya = (int)((int64_t)y * h / th), yb = (int)((int64_t)(y + 1) * h / th);
        if (yb <= ya)
            yb = ya + 1;
        for (int x = 0; x < tw; x++) {
            int xa = (int)((int64_t)x * w / tw), xn = (int)((int64_t)(x + 1) * w / tw);
            int xb = xn > xa ? xn : xa + 1;
            uint64_t sum[3] = { 0, 0, 0 };
            for (int sy = ya; sy < yb; sy++)
                for (int sx = xa; sx < xb; sx++)
                    for (int k = 0; k < 3; k++)
                        sum[k] += rgb[(ptrdiff_t)sy * stride + sx * 3 + k];
            uint64_t area = (uint64_t)(yb - ya) * (uint64_t)(xb - xa);
            for (int k = 0; k < 3; k++)
                out[((size_t)y * tw + x) * 3 + k] = (uint8_t)((sum[k] + area / 2) / area);
        }
    }
    *tw_out = tw;
    *th_out = th;
}

static uint32_t rnd_state = 12345;
static uint8_t rnd(void)
{
    rnd_state = rnd_state * 1664525u + 1013904223u;
    return (uint8_t)(rnd_state >> 24);
}

static void check(int w, int h, int box, int pad, int bottom_up)
{
    ptrdiff_t row = (ptrdiff_t)w * 3 + pad;
    uint8_t *buf = malloc((size_t)row * h);
    assert_non_null(buf);
    for (size_t i = 0; i < (size_t)row * h; i++)
        buf[i] = rnd();
    /* a bottom-up picture: its first row is the buffer's last */
    const uint8_t *rgb = bottom_up ? buf + (ptrdiff_t)(h - 1) * row : buf;
    ptrdiff_t stride = bottom_up ? -row : row;
    SettleImage img;
    assert_int_equal(settle_thumbnail(rgb, stride, w, h, box, &img), 0);
    uint8_t *want = malloc((size_t)w * h * 3);
    assert_non_null(want);
    int tw, th;
    reference(rgb, stride, w, h, box, want, &tw, &th);
    assert_int_equal(img.width, tw);
    assert_int_equal(img.height, th);
    assert_int_equal(img.stride, (ptrdiff_t)tw * 3);
    assert_memory_equal(img.rgb, want, (size_t)tw * th * 3);
    free(img.rgb);
    free(want);
    free(buf);
}

static void test_shapes(void **state)
{
    (void)state;
    static const int shapes[][3] = {
        { 2732, 1536, 200 }, { 1280, 720, 200 }, { 480, 270, 200 }, { 720, 1280, 200 },
        { 200, 113, 200 }, { 150, 90, 200 }, { 1, 1, 200 }, { 1, 999, 200 }, { 999, 1, 200 },
        { 401, 399, 200 }, { 641, 3, 640 }, { 5000, 7, 2 }, { 7, 5000, 3 }, { 33, 17, 1 },
        /* bands of 257 rows (the most summed in 16 bits) and of 300 */
        { 300, 514, 2 }, { 100, 600, 2 }, { 131, 514, 1 },
    };
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
        for (int pad = 0; pad <= 5; pad += 5)
            for (int up = 0; up <= 1; up++)
                check(shapes[i][0], shapes[i][1], shapes[i][2], pad, up);
}

/* Every pixel 255: the widest sums, the exact mean; bands of 428 rows, and
 * of 257 (255 times 257: the most a column's 16-bit band sum holds) and 258. */
static void test_white(void **state)
{
    (void)state;
    static const int shapes[][3] = { { 3001, 2999, 7 }, { 300, 514, 2 }, { 300, 516, 2 }, { 4000, 257, 1 } };
    for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
        int w = shapes[k][0], h = shapes[k][1];
        uint8_t *buf = malloc((size_t)w * h * 3);
        assert_non_null(buf);
        memset(buf, 255, (size_t)w * h * 3);
        SettleImage img;
        assert_int_equal(settle_thumbnail(buf, (ptrdiff_t)w * 3, w, h, shapes[k][2], &img), 0);
        for (int i = 0; i < img.width * img.height * 3; i++)
            assert_int_equal(img.rgb[i], 255);
        free(img.rgb);
        free(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_white),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
