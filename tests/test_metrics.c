/* SPDX-License-Identifier: BSD-2-Clause */
/* The per-pixel kernels on hand-made pictures with known answers. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#include "kernels.h"

#define W 8
#define H 4

static void fill(uint8_t *p, uint8_t r, uint8_t g, uint8_t b)
{
    for (int i = 0; i < W * H; i++) {
        p[3 * i] = r;
        p[3 * i + 1] = g;
        p[3 * i + 2] = b;
    }
}

static void test_changed_count(void **state)
{
    (void)state;
    uint8_t a[W * H * 3], b[W * H * 3];
    int64_t strong = -1;
    fill(a, 100, 100, 100);
    fill(b, 100, 100, 100);
    assert_int_equal(settle_count_changed(a, W * 3, b, W * 3, W, H, 5, 48, &strong), 0);
    assert_int_equal(strong, 0);

    /* exactly at the tolerance does not count, one level more does */
    b[0] = 105;          /* pixel 0: +5 on R */
    b[3 * 1 + 1] = 94;   /* pixel 1: -6 on G */
    b[3 * 2 + 2] = 200;  /* pixel 2: +100 on B only: a colour change counts */
    b[3 * 3 + 0] = 149;  /* pixel 3: +49 on R: strong */
    b[3 * 3 + 2] = 101;
    assert_int_equal(settle_count_changed(a, W * 3, b, W * 3, W, H, 5, 48, &strong), 3);
    assert_int_equal(strong, 2);
    /* tolerance 0: any difference */
    assert_int_equal(settle_count_changed(a, W * 3, b, W * 3, W, H, 0, 255, &strong), 4);
    assert_int_equal(strong, 0);
    /* every pixel changed */
    fill(b, 0, 0, 0);
    assert_int_equal(settle_count_changed(a, W * 3, b, W * 3, W, H, 5, 48, NULL), W * H);
}

static void test_changed_count_stride(void **state)
{
    (void)state;
    /* rows padded to 40 bytes: the padding must be ignored */
    uint8_t a[40 * H], b[40 * H];
    memset(a, 7, sizeof(a));
    memset(b, 7, sizeof(b));
    for (int y = 0; y < H; y++)
        b[y * 40 + 30] = 255; /* padding after 8 pixels (24 bytes) */
    assert_int_equal(settle_count_changed(a, 40, b, 40, W, H, 5, 48, NULL), 0);
    b[40 * 2 + 3] = 200; /* pixel (1, 2) */
    assert_int_equal(settle_count_changed(a, 40, b, 40, W, H, 5, 48, NULL), 1);
}

static double entropy_of(const uint8_t *p, int w, int h)
{
    uint32_t hist[SETTLE_HIST_BINS] = { 0 };
    settle_histogram_rgb(p, (ptrdiff_t)w * 3, w, h, hist);
    return settle_histogram_entropy(hist, SETTLE_HIST_BINS);
}

static void test_entropy_flat(void **state)
{
    (void)state;
    uint8_t p[W * H * 3];
    /* one value per channel: three equally full bins of 768 */
    fill(p, 10, 200, 10);
    assert_near(entropy_of(p, W, H), log2(3.0), 1e-12);
    fill(p, 0, 0, 0);
    assert_near(entropy_of(p, W, H), log2(3.0), 1e-12);
}

static void test_entropy_two_colours(void **state)
{
    (void)state;
    uint8_t p[W * H * 3];
    fill(p, 255, 0, 0);
    for (int i = 0; i < W * H / 2; i++) {
        p[3 * i] = 0;
        p[3 * i + 1] = 0;
        p[3 * i + 2] = 255;
    }
    /* R: 0 and 255, G: 0, B: 0 and 255 -> bins of 1/6, 1/6, 2/6, 1/6, 1/6 */
    double expect = -(4 * (1.0 / 6) * log2(1.0 / 6) + (2.0 / 6) * log2(2.0 / 6));
    assert_near(entropy_of(p, W, H), expect, 1e-12);
    /* two colours with six distinct channel values: six equal bins */
    fill(p, 10, 20, 30);
    for (int i = 0; i < W * H / 2; i++) {
        p[3 * i] = 40;
        p[3 * i + 1] = 50;
        p[3 * i + 2] = 60;
    }
    assert_near(entropy_of(p, W, H), log2(6.0), 1e-12);
}

static void test_entropy_all_grey_levels(void **state)
{
    (void)state;
    static uint8_t p[256 * 3];
    for (int i = 0; i < 256; i++)
        p[3 * i] = p[3 * i + 1] = p[3 * i + 2] = (uint8_t)i;
    /* every one of the 768 bins holds one value: the maximum */
    assert_near(entropy_of(p, 16, 16), log2(768.0), 1e-12);
}

static void test_entropy_empty(void **state)
{
    (void)state;
    uint32_t hist[SETTLE_HIST_BINS] = { 0 };
    assert_near(settle_histogram_entropy(hist, SETTLE_HIST_BINS), 0.0, 0);
}

static void test_count_color(void **state)
{
    (void)state;
    uint8_t p[W * H * 3];
    const uint8_t orange[3] = { 0xde, 0x64, 0x0d };
    fill(p, 0xde, 0x64, 0x0d);
    assert_int_equal(settle_count_color(p, W * 3, W, H, orange, 0), W * H);
    p[0] = 0xde + 10; /* within 10 */
    p[3 + 1] = 0x64 - 11; /* outside 10 */
    assert_int_equal(settle_count_color(p, W * 3, W, H, orange, 10), W * H - 1);
    assert_int_equal(settle_count_color(p, W * 3, W, H, orange, 0), W * H - 2);
}

/* The incremental kernel against the whole-picture reference, bit for bit. */
static void test_delta_matches_reference(void **state)
{
    (void)state;
    enum { DW = 37, DH = 23, ROUNDS = 50 };
    static uint8_t cur[DW * DH * 3], prev[DW * DH * 3], ref_prev[DW * DH * 3];
    const uint8_t marker[3] = { 0xde, 0x64, 0x0d };
    unsigned seed = 7;
    for (int i = 0; i < DW * DH * 3; i++) {
        seed = seed * 1103515245u + 12345u;
        prev[i] = (uint8_t)(seed >> 16);
    }
    memcpy(ref_prev, prev, sizeof(prev));
    uint32_t hist[SETTLE_HIST_BINS] = { 0 };
    settle_histogram_rgb(prev, DW * 3, DW, DH, hist);
    int64_t marker_count = settle_count_color(prev, DW * 3, DW, DH, marker, 30);
    for (int round = 0; round < ROUNDS; round++) {
        memcpy(cur, prev, sizeof(cur));
        /* change some rows wholly, some pixels faintly, some to the marker colour */
        for (int k = 0; k < 40; k++) {
            seed = seed * 1103515245u + 12345u;
            int px = (int)((seed >> 8) % (DW * DH));
            int kind = (int)((seed >> 4) % 4);
            uint8_t *p = cur + 3 * px;
            if (kind == 0)
                memcpy(p, marker, 3);
            else if (kind == 1)
                p[(seed >> 2) % 3] += (uint8_t)((seed >> 20) % 11);
            else
                p[0] = (uint8_t)(seed >> 12), p[1] = (uint8_t)(seed >> 18), p[2] = (uint8_t)seed;
        }
        int64_t strong_ref;
        int64_t changed_ref = settle_count_changed(cur, DW * 3, ref_prev, DW * 3, DW, DH, 5, 96, &strong_ref);
        uint32_t hist_ref[SETTLE_HIST_BINS] = { 0 };
        settle_histogram_rgb(cur, DW * 3, DW, DH, hist_ref);
        int64_t marker_ref = settle_count_color(cur, DW * 3, DW, DH, marker, 30);

        SettleDelta d;
        settle_delta_rgb(cur, DW * 3, prev, DW * 3, DW, DH, 5, 96, marker, 30, hist, NULL, &d);
        marker_count += d.marker;
        assert_int_equal(d.changed, changed_ref);
        assert_int_equal(d.strong, strong_ref);
        assert_memory_equal(hist, hist_ref, sizeof(hist));
        assert_int_equal(marker_count, marker_ref);
        assert_memory_equal(prev, cur, sizeof(cur));
        memcpy(ref_prev, cur, sizeof(cur));
    }
}

/* The band kernel, sparse and dense changes, against the reference, with
 * the kernels of k; with its state kept from one round to the next (a band
 * counted afresh again without looking: also when nothing changed) or none;
 * with no histogram kept (nohist: band_hist NULL) in every other round. */
static void check_update_band(const SettleKernels *k, int BH, int keep_state, int nohist)
{
    uint8_t state = 0;
    enum { BW = 77, MAXH = 80, ROUNDS = 60 };
    static uint8_t cur[BW * MAXH * 3], prev[BW * MAXH * 3], ref_prev[BW * MAXH * 3];
    const uint8_t marker[3] = { 0x2a, 0x6d, 0xf4 };
    unsigned seed = 11;
    for (int i = 0; i < BW * BH * 3; i++) {
        seed = seed * 1103515245u + 12345u;
        prev[i] = (uint8_t)(seed >> 16);
    }
    memcpy(ref_prev, prev, (size_t)BW * BH * 3);
    uint32_t band[SETTLE_HIST_BINS] = { 0 }, total[SETTLE_HIST_BINS] = { 0 };
    settle_histogram_rgb(prev, BW * 3, BW, BH, band);
    /* the total holds other bands too: an offset the band must not disturb */
    for (int i = 0; i < SETTLE_HIST_BINS; i++)
        total[i] = band[i] + 1000;
    int64_t marker_count = settle_count_color(prev, BW * 3, BW, BH, marker, 20);
    int afresh = 0;
    for (int round = 0; round < ROUNDS; round++) {
        memcpy(cur, prev, (size_t)BW * BH * 3);
        int rows = round % 3 == 0 ? 0 : round % 3 == 1 ? 2 : BH; /* none, sparse, dense */
        if (round % 6 == 3) {
            /* a few pixels in a row, at the edges of the steps of 32 pixels
             * and of the masks' words of 16 where settle_update_band begins
             * a row at its first difference, the rest of the row equal */
            static const int at[] = { 0,  1,  15, 16, 31, 32,     33,
                                      47, 48, 63, 64, 65, BW - 2, BW - 1 };
            const int nat = (int)(sizeof(at) / sizeof(at[0]));
            for (int y = 0; y < BH; y++) {
                seed = seed * 1103515245u + 12345u;
                const int a = at[(seed >> 8) % nat], b = at[(seed >> 16) % nat];
                cur[(y * BW + a) * 3 + (int)(seed >> 4) % 3] ^= 0x40;
                if (y % 2)
                    cur[(y * BW + b) * 3 + 1] ^= 0x03;
            }
            rows = 0;
        }
        for (int y = 0; y < rows; y++) {
            seed = seed * 1103515245u + 12345u;
            int row = rows == BH ? y : (int)((seed >> 8) % BH);
            for (int x = 0; x < BW; x++) {
                seed = seed * 1103515245u + 12345u;
                uint8_t *p = cur + (row * BW + x) * 3;
                if ((seed >> 5) % 5 == 0)
                    memcpy(p, marker, 3);
                else if ((seed >> 5) % 5 == 1)
                    p[0] = (uint8_t)(seed >> 16);
                else if ((seed >> 5) % 5 == 2 && rows == BH)
                    p[1] ^= 1; /* dense: most pixels differ */
            }
        }
        int64_t strong_ref;
        int64_t changed_ref = settle_count_changed(cur, BW * 3, ref_prev, BW * 3, BW, BH, 5, 96, &strong_ref);
        uint32_t band_ref[SETTLE_HIST_BINS] = { 0 };
        settle_histogram_rgb(cur, BW * 3, BW, BH, band_ref);
        int64_t marker_ref = settle_count_color(cur, BW * 3, BW, BH, marker, 20);

        SettleDelta d;
        enum { WORDS = (BW + 15) / 16 };
        static uint64_t masks[MAXH * WORDS + 1];
        memset(masks, 0x5a, sizeof(masks));
        /* without a histogram: the same counts, masks and copy, and nothing
         * moved in total; the histogram is then counted afresh */
        const int none = nohist && round % 4 >= 2;
        settle_update_band(k, cur, BW * 3, prev, BW * 3, BW, BH, 5, 96, marker, 20,
                           none ? NULL : band, total, keep_state ? &state : NULL,
                           round % 2 ? masks : NULL, &d);
        if (none) {
            for (int i = 0; i < SETTLE_HIST_BINS; i++)
                assert_int_equal(total[i], band[i] + 1000);
            for (int i = 0; i < SETTLE_HIST_BINS; i++)
                total[i] = band_ref[i] + 1000;
            memcpy(band, band_ref, sizeof(band));
        }
        for (int y = 0; y < BH && round % 2; y++) {
            uint64_t row[WORDS];
            settle_change_masks(cur + y * BW * 3, ref_prev + y * BW * 3, BW, 5, 96, row);
            assert_memory_equal(masks + y * WORDS, row, sizeof(row));
        }
        assert_true(round % 2 == 0 || masks[BH * WORDS] == 0x5a5a5a5a5a5a5a5aull);
        afresh += state;
        marker_count += d.marker;
        assert_int_equal(d.changed, changed_ref);
        assert_int_equal(d.strong, strong_ref);
        assert_memory_equal(band, band_ref, sizeof(band));
        for (int i = 0; i < SETTLE_HIST_BINS; i++)
            assert_int_equal(total[i], band_ref[i] + 1000);
        assert_int_equal(marker_count, marker_ref);
        assert_memory_equal(prev, cur, (size_t)BW * BH * 3);
        memcpy(ref_prev, cur, (size_t)BW * BH * 3);
    }
    /* the dense rounds (all but the first) leave the state set, so that the
     * rounds after them, where nothing changed, take the path without looking */
    if (keep_state && BH <= SETTLE_BAND_MAX && !nohist)
        assert_true(afresh >= ROUNDS / 3 - 1);
}

static void test_update_band_matches_reference(void **state)
{
    (void)state;
    /* scalar, then every instruction set this CPU has, one at a time */
    const unsigned cpu = settle_cpu_flags();
    for (unsigned flags = 0; flags <= cpu; flags = flags * 2 + 1) {
        SettleKernels k;
        settle_kernels_init(&k, flags & cpu);
        for (int keep = 0; keep < 2; keep++)
            for (int nohist = 0; nohist < 2; nohist++) {
                check_update_band(&k, 16, keep, nohist);
                check_update_band(&k, 1, keep, nohist);
                /* taller than a band: the plain incremental path */
                check_update_band(&k, 80, keep, nohist);
            }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_changed_count),
        cmocka_unit_test(test_changed_count_stride),
        cmocka_unit_test(test_entropy_flat),
        cmocka_unit_test(test_entropy_two_colours),
        cmocka_unit_test(test_entropy_all_grey_levels),
        cmocka_unit_test(test_entropy_empty),
        cmocka_unit_test(test_count_color),
        cmocka_unit_test(test_delta_matches_reference),
        cmocka_unit_test(test_update_band_matches_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
