/* SPDX-License-Identifier: BSD-2-Clause */
#include "screens.h"

#include <stddef.h>
#include <string.h>

const int screen_block[SCREEN_BLOCKS][4] = {
    { 16, 200, 288, 40 }, { 16, 252, 288, 40 }, { 16, 304, 136, 64 }, { 168, 304, 136, 64 },
};
const int screen_toast[4] = { 60, 428, 200, 36 };
const int screen_clock[4] = { 262, 5, 48, 16 };
const int screen_carousel[4] = { 16, 48, 288, 136 };
const int screen_spinner[4] = { 140, 380, 40, 40 };
const int screen_caret[4] = { 40, 384, 2, 20 };
static const int field[4] = { 28, 378, 100, 32 }; /* the caret's text field, still */

static const uint8_t bg[3] = { 240, 240, 240 };
static const uint8_t bar[3] = { 30, 60, 120 };

void screen_init(ScreenSpec *s)
{
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < SCREEN_BLOCKS; i++)
        s->block_at[i] = -1;
}

void screen_rect(const ScreenSpec *s, const int r[4], int out[4])
{
    int w = s->width > 0 ? s->width : SCREEN_W, h = s->height > 0 ? s->height : SCREEN_H;
    out[0] = r[0] * w / SCREEN_W;
    out[1] = r[1] * h / SCREEN_H;
    out[2] = (r[0] + r[2]) * w / SCREEN_W - out[0];
    out[3] = (r[1] + r[3]) * h / SCREEN_H - out[1];
}

void screen_spinner_rect(const ScreenSpec *s, int out[4])
{
    if (s->spinner_at[2] > 0)
        memcpy(out, s->spinner_at, sizeof(s->spinner_at));
    else
        screen_rect(s, screen_spinner, out);
}

static void fill(uint8_t *rgb, int stride, const int r[4], const uint8_t c[3])
{
    for (int y = r[1]; y < r[1] + r[3]; y++)
        for (int x = r[0]; x < r[0] + r[2]; x++)
            memcpy(rgb + y * stride + x * 3, c, 3);
}

/* Two colours in stripes of `period` pixels, phase `ph`: a pattern whose
 * every pixel differs from the same pattern with the colours swapped. */
static void stripes(uint8_t *rgb, int stride, const int r[4], const uint8_t a[3],
                    const uint8_t b[3], int swap)
{
    for (int y = r[1]; y < r[1] + r[3]; y++)
        for (int x = r[0]; x < r[0] + r[2]; x++) {
            int k = ((x - r[0]) / 3 + (y - r[1]) / 5) % 2 ^ swap;
            memcpy(rgb + y * stride + x * 3, k ? a : b, 3);
        }
}

static int spinner_level(const ScreenSpec *s, int index)
{
    /* 4: full, 3..1 fading, 0 gone */
    if (s->spinner_from == s->spinner_fade || index < s->spinner_from)
        return 0;
    if (index < s->spinner_fade)
        return 4;
    int k = 3 - (index - s->spinner_fade);
    return k > 0 ? k : 0;
}

int screen_changes(const ScreenSpec *s, int n, int *out)
{
    int k = 0;
    for (int i = 1; i < n; i++) {
        int ch = 0;
        for (int b = 0; b < SCREEN_BLOCKS; b++)
            ch |= s->block_at[b] == i;
        ch |= s->toast_from != s->toast_to && (i == s->toast_from || i == s->toast_to);
        ch |= s->clock_period > 0 && i >= s->clock_phase &&
              (i - s->clock_phase) % s->clock_period == 0;
        ch |= s->carousel_period > 0 && i >= s->carousel_from &&
              (i - s->carousel_from) % s->carousel_period <
                  (s->carousel_move > 0    ? s->carousel_move
                   : s->carousel_slide > 0 ? s->carousel_slide
                                           : 1);
        ch |= s->caret_period > 0 && i >= s->caret_from &&
              (i - s->caret_from) % s->caret_period == 0;
        ch |= spinner_level(s, i) != spinner_level(s, i - 1) || spinner_level(s, i) == 4;
        if (ch)
            out[k++] = i;
    }
    return k;
}

/* Slide k of a fading carousel: one colour with a dark picture at a place of
 * its own (3 slides), the dark at `dark` sixty-fourths of its full strength. */
static void draw_slide(const ScreenSpec *s, int k, int dark, uint8_t *rgb, int stride)
{
    static const uint8_t ground[3] = { 250, 200, 30 }, ink[3] = { 30, 40, 90 };
    const int *c = screen_carousel;
    const int pic[4] = { c[0] + 20 + 90 * (k % 3), c[1] + 24, 70, 80 };
    int r[4];
    uint8_t mix[3];
    for (int i = 0; i < 3; i++)
        mix[i] = (uint8_t)(ground[i] + (ink[i] - ground[i]) * dark / 64);
    screen_rect(s, pic, r);
    fill(rgb, stride, r, mix);
}

/* The colour of slide k of a sliding carousel at (x, y) of the carousel's
 * w x h rectangle: a ground of its own, a dark picture at a place of its own,
 * three lines of text under it. */
static const uint8_t *slide_pixel(int k, int x, int y, int w, int h)
{
    static const uint8_t ground[3][3] = { { 250, 200, 30 }, { 60, 140, 230 }, { 230, 90, 150 } };
    static const uint8_t ink[3] = { 30, 40, 90 }, text[3] = { 250, 250, 250 };
    int px = w * (16 + 96 * (k % 3)) / 288, py = h * 16 / 136;
    if (x >= px && x < px + w * 80 / 288 && y >= py && y < py + h * 72 / 136)
        return ink;
    for (int line = 0; line < 3; line++) {
        int ty = h * (96 + 12 * line) / 136, tw = w * (200 - 40 * ((k + line) % 3)) / 288;
        if (y >= ty && y < ty + h * 6 / 136 && x >= w * 16 / 288 && x < w * 16 / 288 + tw)
            return text;
    }
    return ground[k % 3];
}

static void draw_moving(const ScreenSpec *s, int index, uint8_t *rgb, int stride)
{
    int r[4], k = 0, off = 0; /* before the first turn: slide 0 at rest */
    screen_rect(s, screen_carousel, r);
    if (index >= s->carousel_from) {
        k = (index - s->carousel_from) / s->carousel_period;
        int p = (index - s->carousel_from) % s->carousel_period;
        if (p < s->carousel_move)
            off = r[2] * (p + 1) / s->carousel_move; /* slide k moves out to the left */
        else
            k++;
    }
    for (int y = 0; y < r[3]; y++)
        for (int x = 0; x < r[2]; x++) {
            int sx = x + off;
            const uint8_t *c = sx < r[2] ? slide_pixel(k, sx, y, r[2], r[3])
                                         : slide_pixel(k + 1, sx - r[2], y, r[2], r[3]);
            memcpy(rgb + (ptrdiff_t)(r[1] + y) * stride + (ptrdiff_t)(r[0] + x) * 3, c, 3);
        }
}

static void draw_fading(const ScreenSpec *s, int index, uint8_t *rgb, int stride)
{
    static const uint8_t ground[3] = { 250, 200, 30 };
    int car[4];
    screen_rect(s, screen_carousel, car);
    fill(rgb, stride, car, ground);
    int k = 0, p = s->carousel_slide; /* before the first turn: slide 0 at rest */
    if (index >= s->carousel_from) {
        k = (index - s->carousel_from) / s->carousel_period;
        p = (index - s->carousel_from) % s->carousel_period;
    }
    if (p >= s->carousel_slide) { /* at rest: the slide of the last turn */
        draw_slide(s, index >= s->carousel_from ? k + 1 : 0, 64, rgb, stride);
        return;
    }
    int in = 64 * (p + 1) / s->carousel_slide; /* slide k fades out as k + 1 fades in */
    draw_slide(s, k, 64 - in, rgb, stride);
    draw_slide(s, k + 1, in, rgb, stride);
}

void screen_draw(void *opaque, int index, uint8_t *rgb, int stride, int w, int h)
{
    const ScreenSpec *s = opaque;
    const int all[4] = { 0, 0, w, h };
    int status[4], r[4];
    screen_rect(s, (const int[4]){ 0, 0, SCREEN_W, 26 }, status);
    fill(rgb, stride, all, bg);
    fill(rgb, stride, status, bar);
    static const uint8_t block_a[3] = { 200, 60, 40 }, block_b[3] = { 40, 160, 90 };
    for (int b = 0; b < SCREEN_BLOCKS; b++)
        if (s->block_at[b] >= 0 && index >= s->block_at[b]) {
            screen_rect(s, screen_block[b], r);
            stripes(rgb, stride, r, block_a, block_b, b & 1);
        }
    if (s->toast_from != s->toast_to && index >= s->toast_from && index < s->toast_to) {
        static const uint8_t toast[3] = { 50, 50, 50 };
        screen_rect(s, screen_toast, r);
        fill(rgb, stride, r, toast);
    }
    if (s->clock_period > 0) {
        int tick = index < s->clock_phase ? 0 : 1 + (index - s->clock_phase) / s->clock_period;
        static const uint8_t d1[3] = { 255, 255, 255 };
        screen_rect(s, screen_clock, r);
        stripes(rgb, stride, r, d1, bar, tick & 1);
    }
    if (s->carousel_period > 0 && s->carousel_move > 0) {
        draw_moving(s, index, rgb, stride);
    } else if (s->carousel_period > 0 && s->carousel_slide > 0) {
        draw_fading(s, index, rgb, stride);
    } else if (s->carousel_period > 0) {
        int slide = index < s->carousel_from ? 0
                                             : 1 + (index - s->carousel_from) / s->carousel_period;
        static const uint8_t sa[3][3] = { { 250, 200, 30 }, { 30, 120, 250 }, { 240, 80, 160 } };
        static const uint8_t sb[3] = { 20, 20, 20 };
        /* consecutive slides differ in colour and in stripe phase */
        screen_rect(s, screen_carousel, r);
        stripes(rgb, stride, r, sa[slide % 3], sb, slide & 1);
    }
    if (s->caret_period > 0) {
        static const uint8_t white[3] = { 255, 255, 255 }, edge[3] = { 150, 150, 150 };
        static const uint8_t ink[3] = { 20, 20, 20 };
        int in[4];
        screen_rect(s, field, r);
        fill(rgb, stride, r, edge);
        in[0] = r[0] + 1, in[1] = r[1] + 1, in[2] = r[2] - 2, in[3] = r[3] - 2;
        fill(rgb, stride, in, white);
        if (index >= s->caret_from && (index - s->caret_from) / s->caret_period % 2 == 0) {
            screen_rect(s, screen_caret, r);
            fill(rgb, stride, r, ink);
        }
    }
    int lv = spinner_level(s, index);
    if (lv) {
        /* spinning: the stripes swap every frame; fading: towards the background */
        uint8_t a[3], b[3];
        for (int k = 0; k < 3; k++) {
            a[k] = (uint8_t)(bg[k] + (0 - bg[k]) * lv / 4);
            b[k] = (uint8_t)(bg[k] + (90 - bg[k]) * lv / 4);
        }
        screen_spinner_rect(s, r);
        stripes(rgb, stride, r, a, b, lv == 4 ? index & 1 : 0);
    }
}
