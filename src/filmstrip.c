/* SPDX-License-Identifier: BSD-2-Clause */
/* Thumbnails, and the contact sheet that shows them with their times. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "font.h"
#include "kernels.h"
#include "pictures.h"

#define COLS 6
#define PAD 10
#define OUTLINE 4
#define SCALE 2
#define LINE (SETTLE_FONT_H * SCALE + 5)

static const uint8_t ink[3] = { 0x20, 0x20, 0x20 };
static const uint8_t green[3] = { 0x2a, 0x9d, 0x3f };
static const uint8_t orange[3] = { 0xde, 0x64, 0x0d };

int settle_thumb_begin(SettleThumbRows *t, int w, int h, int box, SettleImage *dst)
{
    double f = fmin(1.0, fmin((double)box / w, (double)box / h));
    int tw = (int)lround(w * f), th = (int)lround(h * f);
    tw = tw < 1 ? 1 : tw;
    th = th < 1 ? 1 : th;
    memset(t, 0, sizeof(*t));
    memset(dst, 0, sizeof(*dst));
    t->w = w;
    t->h = h;
    t->dst = dst;
    t->box_means = settle_box_means;
    dst->rgb = malloc((size_t)tw * th * 3);
    t->x0 = malloc(sizeof(int) * ((size_t)tw + 1));
    t->acc = malloc(sizeof(*t->acc) * ((size_t)w * 3 + 1));
    if (!dst->rgb || !t->x0 || !t->acc) {
        settle_thumb_end(t);
        free(dst->rgb);
        dst->rgb = NULL;
        return SETTLE_ERR_NOMEM;
    }
    for (int x = 0; x <= tw; x++)
        t->x0[x] = (int)((int64_t)x * w / tw);
    dst->width = tw;
    dst->height = th;
    dst->stride = (ptrdiff_t)tw * 3;
    dst->frame = -1;
    dst->time = NAN;
    return 0;
}

int settle_thumb_band_end(const SettleThumbRows *t)
{
    int th = t->dst->height, y = t->y;
    if (y >= th)
        return t->h;
    int ya = (int)((int64_t)y * t->h / th), yb = (int)((int64_t)(y + 1) * t->h / th);
    return yb <= ya ? ya + 1 : yb;
}

/* Each output row sums its band of source rows column by column first, then
 * each box's columns: the same integer sums as a box-by-box loop. 255 times a
 * band's rows fits 32 bits. */
void settle_thumb_rows(SettleThumbRows *t, const uint8_t *rgb, ptrdiff_t stride, int upto)
{
    settle_thumb_band(t, rgb, stride, 0, upto);
}

#define STRIP 64 /* bytes of a row summed down a band at a time */

/* The band's rows [ya, yb) summed column by column into acc: a strip of
 * columns at a time, its sums held in 16 bits (255 times up to 257 rows fits)
 * while every row of the band is added, then widened once, instead of
 * reading and writing the 32-bit sums of the whole row for each row. */
static void band_sums(uint32_t *acc, const uint8_t *src, ptrdiff_t stride, size_t row, int n)
{
    size_t i = 0;
    for (; i + STRIP <= row && n <= 257; i += STRIP) {
        uint16_t s[STRIP];
        for (int j = 0; j < STRIP; j++)
            s[j] = src[i + j];
        for (int sy = 1; sy < n; sy++) {
            const uint8_t *p = src + (ptrdiff_t)sy * stride + i;
            for (int j = 0; j < STRIP; j++)
                s[j] = (uint16_t)(s[j] + p[j]);
        }
        for (int j = 0; j < STRIP; j++)
            acc[i + j] = s[j];
    }
    for (size_t k = i; k < row; k++)
        acc[k] = src[k];
    for (int sy = 1; sy < n; sy++) {
        const uint8_t *p = src + (ptrdiff_t)sy * stride;
        for (size_t k = i; k < row; k++)
            acc[k] += p[k];
    }
}

void settle_thumb_band(SettleThumbRows *t, const uint8_t *band, ptrdiff_t stride, int first,
                       int upto)
{
    const SettleImage *d = t->dst;
    size_t row = (size_t)t->w * 3;
    for (; t->y < d->height && settle_thumb_band_end(t) <= upto; t->y++) {
        int y = t->y, ya = (int)((int64_t)y * t->h / d->height), yb = settle_thumb_band_end(t);
        band_sums(t->acc, band + (ptrdiff_t)(ya - first) * stride, stride, row, yb - ya);
        t->acc[row] = 0; /* read by box_means, not used */
        t->box_means(t->acc, t->x0, d->width, yb - ya, d->rgb + (size_t)y * d->stride);
    }
}

void settle_thumb_copy_row(SettleThumbRows *t, const uint8_t *row)
{
    const SettleImage *d = t->dst;
    if (t->y < d->height)
        memcpy(d->rgb + (size_t)t->y++ * d->stride, row, (size_t)d->stride);
}

void settle_thumb_end(SettleThumbRows *t)
{
    free(t->x0);
    free(t->acc);
    t->x0 = NULL;
    t->acc = NULL;
}

int settle_thumbnail(const uint8_t *rgb, ptrdiff_t stride, int w, int h, int box, SettleImage *dst)
{
    SettleThumbRows t;
    int ret = settle_thumb_begin(&t, w, h, box, dst);
    if (ret < 0)
        return ret;
    settle_thumb_rows(&t, rgb, stride, h);
    settle_thumb_end(&t);
    return 0;
}

static void fill(SettleImage *s, int x, int y, int w, int h, const uint8_t c[3])
{
    for (int yy = y < 0 ? 0 : y; yy < y + h && yy < s->height; yy++)
        for (int xx = x < 0 ? 0 : x; xx < x + w && xx < s->width; xx++)
            memcpy(s->rgb + (ptrdiff_t)yy * s->stride + (ptrdiff_t)xx * 3, c, 3);
}

int settle_filmstrip(const SettleThumb *t, int n, SettleImage *sheet)
{
    memset(sheet, 0, sizeof(*sheet));
    sheet->role = "filmstrip";
    sheet->frame = -1;
    sheet->time = NAN;
    if (n < 1)
        return 0;
    int maxw = settle_text_width("stable", SCALE), maxh = 1;
    char label[48];
    for (int i = 0; i < n; i++) {
        snprintf(label, sizeof(label), "%.3f s", t[i].time);
        int lw = settle_text_width(label, SCALE);
        maxw = t[i].img.width > maxw ? t[i].img.width : maxw;
        maxw = lw > maxw ? lw : maxw;
        maxh = t[i].img.height > maxh ? t[i].img.height : maxh;
    }
    int cols = n < COLS ? n : COLS, rows = (n + COLS - 1) / COLS;
    int cw = maxw + 2 * PAD, ch = maxh + 2 * PAD + 2 * LINE;
    sheet->width = cols * cw;
    sheet->height = rows * ch;
    sheet->stride = (ptrdiff_t)sheet->width * 3;
    sheet->rgb = malloc((size_t)sheet->stride * sheet->height);
    if (!sheet->rgb)
        return SETTLE_ERR_NOMEM;
    memset(sheet->rgb, 0xff, (size_t)sheet->stride * sheet->height);
    for (int i = 0; i < n; i++) {
        const SettleImage *im = &t[i].img;
        int x = (i % COLS) * cw + (cw - im->width) / 2;
        int y = (i / COLS) * ch + PAD + (maxh - im->height) / 2;
        const uint8_t *mark = t[i].stable ? green : t[i].start ? orange : NULL;
        if (mark)
            fill(sheet, x - OUTLINE, y - OUTLINE, im->width + 2 * OUTLINE,
                 im->height + 2 * OUTLINE, mark);
        else /* a hairline, so that white pictures show where they end */
            fill(sheet, x - 1, y - 1, im->width + 2, im->height + 2, (const uint8_t[3]){ 0xc8, 0xc8, 0xc8 });
        for (int r = 0; r < im->height; r++)
            memcpy(sheet->rgb + (ptrdiff_t)(y + r) * sheet->stride + (ptrdiff_t)x * 3,
                   im->rgb + (ptrdiff_t)r * im->stride, (size_t)im->width * 3);
        int ty = (i / COLS) * ch + PAD + maxh + PAD - 2;
        snprintf(label, sizeof(label), "%.3f s", t[i].time);
        int cx = (i % COLS) * cw + cw / 2;
        settle_draw_text(sheet->rgb, sheet->stride, sheet->width, sheet->height,
                         cx - settle_text_width(label, SCALE) / 2, ty, label, SCALE, ink);
        const char *word = t[i].stable ? "stable" : t[i].start ? "start" : NULL;
        if (word)
            settle_draw_text(sheet->rgb, sheet->stride, sheet->width, sheet->height,
                             cx - settle_text_width(word, SCALE) / 2, ty + LINE, word, SCALE, mark);
    }
    return 0;
}
