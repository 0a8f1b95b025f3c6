/* SPDX-License-Identifier: BSD-2-Clause */
/* The visual metrics' scaled picture and its histogram (src/visual.c), kept up
 * to date row by row as bands of the source change: after every frame, the
 * histogram is the one of the scaled picture computed afresh, and the scaled
 * picture the one of the source scaled afresh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include "internal.h"
#include "visual.h"

/* src/visual.c's near-white level: pixels with R, G and B at or above it are
 * left out of the histogram */
#define WHITE 250

static uint32_t next(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

static void fresh_histogram(const SettleVisual *v, uint32_t hist[SETTLE_HIST_BINS])
{
    memset(hist, 0, sizeof(uint32_t) * SETTLE_HIST_BINS);
    for (size_t i = 0; i < (size_t)v->tw * v->th; i++) {
        const uint8_t *p = v->cur + 3 * i;
        if (p[0] < WHITE || p[1] < WHITE || p[2] < WHITE) {
            hist[p[0]]++;
            hist[256 + p[1]]++;
            hist[512 + p[2]]++;
        }
    }
}

/* Frames that repaint random rectangles of a white page, with values around
 * the near-white level; the first frame, and some later ones, sent without
 * bands (as src/analyze.c sends its first), some frames skipped. */
static void check_size(int w, int h)
{
    SettleKernels k;
    settle_kernels_init(&k, settle_cpu_flags());
    SettleVisual v, fresh;
    const int bands = (h + SETTLE_BAND_ROWS - 1) / SETTLE_BAND_ROWS;
    uint8_t *pic = malloc((size_t)w * h * 3);
    uint8_t *dirty = malloc((size_t)bands);
    uint32_t hist[SETTLE_HIST_BINS];
    assert_non_null(pic);
    assert_non_null(dirty);
    assert_int_equal(settle_visual_init(&v, w, h, 0, 0, &k), 0);
    assert_int_equal(settle_visual_init(&fresh, w, h, 0, 0, &k), 0);
    memset(pic, 255, (size_t)w * h * 3);
    uint32_t seed = (uint32_t)(w * 7919 + h);
    int64_t index = 0;
    for (int f = 0; f < 60; f++, index++) {
        memset(dirty, 0, (size_t)bands);
        for (int r = (int)(next(&seed) % 4); r > 0; r--) {
            int x0 = (int)(next(&seed) % (uint32_t)w), y0 = (int)(next(&seed) % (uint32_t)h);
            int x1 = x0 + 1 + (int)(next(&seed) % (uint32_t)(w - x0));
            int y1 = y0 + 1 + (int)(next(&seed) % (uint32_t)(h / 4 + 1));
            y1 = y1 < h ? y1 : h;
            uint8_t c[3];
            for (int i = 0; i < 3; i++)
                c[i] = (uint8_t)(next(&seed) % 2 ? 240 + next(&seed) % 16 : next(&seed) % 256);
            for (int y = y0; y < y1; y++)
                for (int x = x0; x < x1; x++)
                    memcpy(pic + ((size_t)y * w + x) * 3, c, 3);
            for (int b = y0 / SETTLE_BAND_ROWS; b <= (y1 - 1) / SETTLE_BAND_ROWS; b++)
                dirty[b] = 1;
        }
        if (f % 17 == 16)
            index++; /* a frame that did not reach the visual metrics */
        settle_visual_frame(&v, pic, (ptrdiff_t)w * 3, index, f * 0.1, f == 0, 0,
                            f == 0 || f % 13 == 12 ? NULL : dirty, 0);
        /* the same picture scaled whole */
        settle_visual_frame(&fresh, pic, (ptrdiff_t)w * 3, 0, 0, 1, 0, NULL, 0);
        assert_memory_equal(v.cur, fresh.cur, (size_t)v.tw * v.th * 3);
        fresh_histogram(&v, hist);
        assert_memory_equal(v.hist, hist, sizeof(hist));
    }
    settle_visual_free(&v);
    settle_visual_free(&fresh);
    free(pic);
    free(dirty);
}

/* scaled down by cells 2 or 3 columns and rows wide */
static void test_scaled_down(void **state)
{
    (void)state;
    check_size(1000, 600);
}

/* Android-like: 1080 x 2021 to 213 x 400, cells 5 or 6 wide */
static void test_scaled_portrait(void **state)
{
    (void)state;
    check_size(1080, 2021);
}

/* small enough not to be scaled: rows copied */
static void test_not_scaled(void **state)
{
    (void)state;
    check_size(97, 61);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scaled_down),
        cmocka_unit_test(test_scaled_portrait),
        cmocka_unit_test(test_not_scaled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
