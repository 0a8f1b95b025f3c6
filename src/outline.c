/* SPDX-License-Identifier: BSD-2-Clause */
/* The answer drawn on a frame: the deciding change, the animated areas and
 * the --region areas outlined, the regions labelled with their names and
 * stable times (settle_outline_answer). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "font.h"
#include "internal.h"
#include "pictures.h"
#include "settle/pictures.h"

static void rgb_of(uint32_t c, uint8_t out[3])
{
    out[0] = (uint8_t)(c >> 16);
    out[1] = (uint8_t)(c >> 8);
    out[2] = (uint8_t)c;
}

static void fill(SettleImage *img, int x0, int y0, int x1, int y1, const uint8_t c[3])
{
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > img->width ? img->width : x1;
    y1 = y1 > img->height ? img->height : y1;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            memcpy(img->rgb + (ptrdiff_t)y * img->stride + (ptrdiff_t)x * 3, c, 3);
}

/* A band of thickness t around the rectangle q (x0, y0, x1, y1 in image
 * pixels, x1 and y1 excluded) grown by `out` bands: out 0 on its edge
 * pixels, 1 just outside it, 2 outside that; kept inside the picture. The
 * grown rectangle in e. */
static void frame_rect(SettleImage *img, const int q[4], int out, int t, const uint8_t c[3],
                       int e[4])
{
    int g = out * t;
    e[0] = q[0] - g >= 0 ? q[0] - g : 0;
    e[1] = q[1] - g >= 0 ? q[1] - g : 0;
    e[2] = q[2] + g <= img->width ? q[2] + g : img->width;
    e[3] = q[3] + g <= img->height ? q[3] + g : img->height;
    fill(img, e[0], e[1], e[2], e[1] + t, c); /* top */
    fill(img, e[0], e[3] - t, e[2], e[3], c); /* bottom */
    fill(img, e[0], e[1], e[0] + t, e[3], c); /* left */
    fill(img, e[2] - t, e[1], e[2], e[3], c); /* right */
}

/* The rectangle x, y, w, h of the input picture in the image's pixels. */
static int scale_rect(const SettleImage *img, const SettleResult *r, int x, int y, int w, int h,
                      int out[4])
{
    if (w <= 0 || h <= 0)
        return 0;
    double sx = (double)img->width / r->width, sy = (double)img->height / r->height;
    out[0] = (int)floor(x * sx);
    out[1] = (int)floor(y * sy);
    out[2] = (int)ceil((x + w) * sx);
    out[3] = (int)ceil((y + h) * sy);
    out[2] = out[2] > out[0] ? out[2] : out[0] + 1;
    out[3] = out[3] > out[1] ? out[3] : out[1] + 1;
    return 1;
}

/* A label on a band of the colour, white letters, at the top left corner of
 * the outline e: above it when there is room, else inside it. */
static void label(SettleImage *img, const int e[4], const char *text, int scale,
                  const uint8_t c[3])
{
    static const uint8_t white[3] = { 0xff, 0xff, 0xff };
    int w = settle_text_width(text, scale) + 2 * scale, h = (SETTLE_FONT_H + 2) * scale;
    int x = e[0];
    int y = e[1] - h >= 0 ? e[1] - h : e[1];
    fill(img, x, y, x + w, y + h, c);
    settle_draw_text(img->rgb, img->stride, img->width, img->height, x + scale, y + scale, text,
                     scale, white);
}

int settle_outline_answer(SettleImage *img, const SettleResult *r)
{
    if (!img || !r || !img->rgb || img->width < 1 || img->height < 1 || r->width < 1 ||
        r->height < 1 || img->stride < (ptrdiff_t)img->width * 3)
        return SETTLE_ERR_INVAL;
    int t = img->width / 320 > 2 ? img->width / 320 : 2;
    int scale = img->width / 480 > 1 ? img->width / 480 : 1;
    uint8_t c[3];
    int q[4], e[4];
    rgb_of(SETTLE_OUTLINE_ANIMATED, c);
    for (int i = 0; i < r->nanimated; i++) {
        const SettleAnimatedRegion *a = &r->animated[i];
        if (scale_rect(img, r, a->x, a->y, a->width, a->height, q))
            frame_rect(img, q, 1, t, c, e);
    }
    rgb_of(SETTLE_OUTLINE_REGION, c);
    for (int i = 0; i < r->nregions; i++) {
        const SettleRegionResult *g = &r->regions[i];
        if (!scale_rect(img, r, g->x, g->y, g->width, g->height, q))
            continue;
        frame_rect(img, q, 2, t, c, e);
        char text[SETTLE_REGION_NAME + 32], tm[32] = "not stable";
        if (isfinite(g->stable_time))
            settle_format_fixed(tm, sizeof(tm), g->stable_time, 3);
        snprintf(text, sizeof(text), "%s %s%s", g->name ? g->name : "", tm,
                 isfinite(g->stable_time) ? " s" : "");
        label(img, e, text, scale, c);
    }
    const SettleChangeArea *d = &r->deciding_change;
    rgb_of(SETTLE_OUTLINE_DECIDING, c);
    if (d->frame >= 0 && scale_rect(img, r, d->x, d->y, d->width, d->height, q))
        frame_rect(img, q, 0, t, c, e);
    return 0;
}

int settle_scale_image(const SettleImage *src, int box, SettleImage *dst)
{
    if (!src || !dst || !src->rgb || src->width < 1 || src->height < 1 || box < 1 || box > 8192)
        return SETTLE_ERR_INVAL;
    memset(dst, 0, sizeof(*dst));
    int ret = settle_thumbnail(src->rgb, src->stride, src->width, src->height, box, dst);
    if (ret < 0)
        return ret;
    dst->role = src->role;
    dst->frame = src->frame;
    dst->time = src->time;
    return 0;
}
