/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Benchmark (meson test --benchmark), not a test: the per-pixel kernels in
 * pixels per second on a 1920x1080 picture, for the three cases that matter:
 * nothing changed, a tenth of the rows changed (a screen recording),
 * every pixel changed (motion), and a camera's noise (a level up or down on a
 * quarter of the bytes). The whole-picture scalar code
 * is the reference the incremental kernel replaces.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels.h"

enum { W = 1920, H = 1080, ROUNDS = 20 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fill(uint8_t *p, unsigned seed)
{
    for (size_t i = 0; i < (size_t)W * H * 3; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (uint8_t)(seed >> 16);
    }
}

/* prev = base; cur = base changed as `kind` says (0 still, 1 a tenth of the
 * rows, 2 every pixel, 3 a camera's noise); round r varies the change. */
static void prepare(uint8_t *cur, uint8_t *prev, const uint8_t *base, int kind, int r)
{
    memcpy(prev, base, (size_t)W * H * 3);
    memcpy(cur, base, (size_t)W * H * 3);
    if (kind == 1)
        for (int y = 0; y < H; y += 10)
            memset(cur + (size_t)y * W * 3, r & 0xff, (size_t)W * 3);
    else if (kind == 2)
        for (size_t i = 0; i < (size_t)W * H * 3; i += 3)
            cur[i] ^= 0x40;
    else if (kind == 3) /* a camera's noise: a quarter of the bytes a level off */
        for (size_t i = 0, seed = (size_t)r; i < (size_t)W * H * 3; i++) {
            seed = seed * 1103515245u + 12345u;
            if (!(seed >> 16 & 3))
                cur[i] = (uint8_t)(cur[i] + (cur[i] < 255 ? 1 : -1));
        }
}

static const SettleYuvCoef *yuv_coef(void)
{
    static SettleYuvCoef c;
    settle_yuv_coef(&c, 0.2126, 0.0722, 0); /* BT.709, limited range */
    return &c;
}

/* One line for each kind of change with the kernels of k. */
static void run(const SettleKernels *k, const char *path, uint8_t *cur, uint8_t *prev,
                const uint8_t *base)
{
    const double px = (double)W * H * ROUNDS;
    static const char *const names[] = { "still", "a tenth of the rows", "every pixel",
                                         "noise, 1/4 of the bytes" };
    for (int kind = 0; kind < 4; kind++) {
        fill(cur, 2);
        uint32_t hist[SETTLE_HIST_BINS];
        volatile int64_t sink = 0;

        double t = now();
        for (int r = 0; r < ROUNDS; r++) {
            int64_t strong;
            sink += k->count_changed(cur, W * 3, base, W * 3, W, H, 5, 96, &strong);
        }
        double count = px / (now() - t) / 1e6;

        t = now();
        for (int r = 0; r < ROUNDS; r++) {
            memset(hist, 0, sizeof(hist));
            k->histogram_rgb(cur, W * 3, W, H, hist);
        }
        double hrate = px / (now() - t) / 1e6;

        /* the incremental kernel: prev is reset before each round, outside the clock */
        double spent = 0;
        for (int r = 0; r < ROUNDS; r++) {
            prepare(cur, prev, base, kind, r);
            memset(hist, 0, sizeof(hist));
            k->histogram_rgb(prev, W * 3, W, H, hist);
            SettleDelta d;
            t = now();
            k->delta_rgb(cur, W * 3, prev, W * 3, W, H, 5, 96, NULL, 0, hist, NULL, &d);
            spent += now() - t;
            sink += d.changed;
        }
        /* the band kernel, as the analysis uses it: one histogram per 16 rows */
        double bspent = 0;
        static uint32_t bands[(H + 15) / 16][SETTLE_HIST_BINS];
        for (int r = 0; r < ROUNDS; r++) {
            prepare(cur, prev, base, kind, r);
            memset(hist, 0, sizeof(hist));
            for (int b = 0; b * 16 < H; b++) {
                int bh = H - b * 16 < 16 ? H - b * 16 : 16;
                memset(bands[b], 0, sizeof(bands[b]));
                k->histogram_rgb(prev + (size_t)b * 16 * W * 3, W * 3, W, bh, bands[b]);
            }
            t = now();
            for (int b = 0; b * 16 < H; b++) {
                int bh = H - b * 16 < 16 ? H - b * 16 : 16;
                SettleDelta d;
                settle_update_band(k, cur + (size_t)b * 16 * W * 3, W * 3,
                                   prev + (size_t)b * 16 * W * 3, W * 3, W, bh, 5, 96, NULL, 0,
                                   bands[b], hist, NULL, NULL, &d);
                sink += d.changed;
            }
            bspent += now() - t;
        }
        /* 4:2:0 to RGB in bands of 16 rows, as the decoder's planes are
         * converted (the planes: bytes of base; the picture does not matter) */
        const SettleYuvCoef *coef = yuv_coef();
        t = now();
        for (int r = 0; r < ROUNDS; r++)
            for (int y = 0; y < H; y += 16)
                k->yuv420_rgb(cur + (size_t)y * W * 3, W * 3, base + (size_t)y * W, W,
                              base + (size_t)W * H + (size_t)y / 2 * (W / 2), W / 2,
                              base + (size_t)W * H * 5 / 4 + (size_t)y / 2 * (W / 2), W / 2, W,
                              H - y < 16 ? H - y : 16, coef);
        double yrate = px / (now() - t) / 1e6;
        printf("%-7s %-22s %12.0f %12.0f %12.0f %12.0f %12.0f\n", path, names[kind], count, hrate,
               px / spent / 1e6, px / bspent / 1e6, yrate);
        (void)sink;
    }
}

int main(void)
{
    uint8_t *cur = malloc((size_t)W * H * 3), *prev = malloc((size_t)W * H * 3);
    uint8_t *base = malloc((size_t)W * H * 3);
    if (!cur || !prev || !base)
        return 1;
    printf("%-7s %-22s %12s %12s %12s %12s %12s\n", "kernels", "picture changed", "count Mpx/s",
           "hist Mpx/s", "delta Mpx/s", "bands Mpx/s", "yuv Mpx/s");
    fill(base, 1);
    /* scalar (the reference), then each instruction set this CPU has */
    static const char *const paths[] = { "scalar", "sse2", "ssse3", "avx2" };
    const unsigned cpu = settle_cpu_flags();
    for (unsigned flags = 0, i = 0; i < 4 && flags <= cpu; flags = flags * 2 + 1, i++) {
        SettleKernels k;
        settle_kernels_init(&k, flags & cpu);
        run(&k, paths[i], cur, prev, base);
    }
    free(cur);
    free(prev);
    free(base);
    return 0;
}
