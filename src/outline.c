/* SPDX-License-Identifier: BSD-2-Clause */
/* The answer drawn on a frame: the deciding change, the animated areas and
 * the --region areas outlined, the regions labelled with their names and
 * stable times (settle_outline_answer). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The rows [y0, y1) of a picture of width x height pixels, row y0 at rgb:
 * the whole picture, or a band of it (settle_encode_answer). */
typedef struct Canvas {
    uint8_t *rgb;
    ptrdiff_t stride;
    int width, height;
    int y0, y1;
} Canvas;

static void fill(const Canvas *cv, int x0, int y0, int x1, int y1, const uint8_t c[3])
{
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < cv->y0 ? cv->y0 : y0;
    x1 = x1 > cv->width ? cv->width : x1;
    y1 = y1 > cv->y1 ? cv->y1 : y1;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            memcpy(cv->rgb + (ptrdiff_t)(y - cv->y0) * cv->stride + (ptrdiff_t)x * 3, c, 3);
}

/* A band of thickness t around the rectangle q (x0, y0, x1, y1 in image
 * pixels, x1 and y1 excluded) grown by `out` bands: out 0 on its edge
 * pixels, 1 just outside it, 2 outside that; kept inside the picture. The
 * grown rectangle in e. */
static void frame_rect(const Canvas *cv, const int q[4], int out, int t, const uint8_t c[3],
                       int e[4])
{
    int g = out * t;
    e[0] = q[0] - g >= 0 ? q[0] - g : 0;
    e[1] = q[1] - g >= 0 ? q[1] - g : 0;
    e[2] = q[2] + g <= cv->width ? q[2] + g : cv->width;
    e[3] = q[3] + g <= cv->height ? q[3] + g : cv->height;
    fill(cv, e[0], e[1], e[2], e[1] + t, c); /* top */
    fill(cv, e[0], e[3] - t, e[2], e[3], c); /* bottom */
    fill(cv, e[0], e[1], e[0] + t, e[3], c); /* left */
    fill(cv, e[2] - t, e[1], e[2], e[3], c); /* right */
}

/* The rectangle x, y, w, h of the input picture in the picture's pixels. */
static int scale_rect(const Canvas *cv, const SettleResult *r, int x, int y, int w, int h,
                      int out[4])
{
    if (w <= 0 || h <= 0)
        return 0;
    double sx = (double)cv->width / r->width, sy = (double)cv->height / r->height;
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
static void label(const Canvas *cv, const int e[4], const char *text, int scale,
                  const uint8_t c[3])
{
    static const uint8_t white[3] = { 0xff, 0xff, 0xff };
    int w = settle_text_width(text, scale) + 2 * scale, h = (SETTLE_FONT_H + 2) * scale;
    int x = e[0];
    int y = e[1] - h >= 0 ? e[1] - h : e[1];
    if (y + h <= cv->y0 || y >= cv->y1)
        return; /* the label and its letters lie outside the canvas' rows */
    fill(cv, x, y, x + w, y + h, c);
    /* the letters' pixels outside the canvas' rows are left out one by one */
    settle_draw_text(cv->rgb, cv->stride, cv->width, cv->y1 - cv->y0, x + scale,
                     y + scale - cv->y0, text, scale, white);
}

/* settle_outline_answer on the canvas' rows. */
static void outline(const Canvas *cv, const SettleResult *r)
{
    int t = cv->width / 320 > 2 ? cv->width / 320 : 2;
    int scale = cv->width / 480 > 1 ? cv->width / 480 : 1;
    uint8_t c[3];
    int q[4], e[4];
    rgb_of(SETTLE_OUTLINE_ANIMATED, c);
    for (int i = 0; i < r->nanimated; i++) {
        const SettleAnimatedRegion *a = &r->animated[i];
        if (scale_rect(cv, r, a->x, a->y, a->width, a->height, q))
            frame_rect(cv, q, 1, t, c, e);
    }
    rgb_of(SETTLE_OUTLINE_REGION, c);
    for (int i = 0; i < r->nregions; i++) {
        const SettleRegionResult *g = &r->regions[i];
        if (!scale_rect(cv, r, g->x, g->y, g->width, g->height, q))
            continue;
        frame_rect(cv, q, 2, t, c, e);
        char text[SETTLE_REGION_NAME + 32], tm[32] = "not stable";
        if (isfinite(g->stable_time))
            settle_format_fixed(tm, sizeof(tm), g->stable_time, 3);
        snprintf(text, sizeof(text), "%s %s%s", g->name ? g->name : "", tm,
                 isfinite(g->stable_time) ? " s" : "");
        label(cv, e, text, scale, c);
    }
    const SettleChangeArea *d = &r->deciding_change;
    rgb_of(SETTLE_OUTLINE_DECIDING, c);
    if (d->frame >= 0 && scale_rect(cv, r, d->x, d->y, d->width, d->height, q))
        frame_rect(cv, q, 0, t, c, e);
}

static int valid(const SettleImage *img, const SettleResult *r)
{
    return img && r && img->rgb && img->width >= 1 && img->height >= 1 && r->width >= 1 &&
           r->height >= 1 && img->stride >= (ptrdiff_t)img->width * 3;
}

int settle_outline_answer(SettleImage *img, const SettleResult *r)
{
    if (!valid(img, r))
        return SETTLE_ERR_INVAL;
    const Canvas cv = { .rgb = img->rgb, .stride = img->stride, .width = img->width,
                        .height = img->height, .y0 = 0, .y1 = img->height };
    outline(&cv, r);
    return 0;
}

/* settle_encode_answer's rows: a band of the source's rows copied and
 * outlined at a time, fed to the scaled picture (when made) and handed to
 * the PNG encoder (when made) row by row. */
typedef struct AnswerRows {
    const SettleImage *src;
    const SettleResult *r;
    Canvas cv;          /* the band: rows [cv.y0, cv.y1) */
    int cap;            /* the band's rows at most */
    SettleThumbRows *tr;
} AnswerRows;

/* The band from row y: as many rows as the scaled picture's next row needs
 * (whole bands for settle_thumb_band), else up to cap. */
static void next_band(AnswerRows *a, int y)
{
    const SettleImage *s = a->src;
    int end = a->tr ? settle_thumb_band_end(a->tr) : y + a->cap;
    end = end > s->height ? s->height : end;
    end = end > y ? end : y + 1;
    a->cv.y0 = y;
    a->cv.y1 = end;
    for (int k = y; k < end; k++)
        memcpy(a->cv.rgb + (ptrdiff_t)(k - y) * a->cv.stride, s->rgb + (ptrdiff_t)k * s->stride,
               (size_t)s->width * 3);
    outline(&a->cv, a->r);
    if (a->tr)
        settle_thumb_band(a->tr, a->cv.rgb, a->cv.stride, y, end);
}

static const uint8_t *answer_row(void *opaque, int y)
{
    AnswerRows *a = opaque;
    if (y >= a->cv.y1)
        next_band(a, y);
    return a->cv.rgb + (ptrdiff_t)(y - a->cv.y0) * a->cv.stride;
}

int settle_encode_answer(const SettleImage *src, const SettleResult *r, uint8_t **png,
                         size_t *len, int box, SettleImage *small)
{
    if (png)
        *png = NULL;
    if (len)
        *len = 0;
    if (small)
        memset(small, 0, sizeof(*small));
    if (!valid(src, r) || (png && !len) || (small && (box < 1 || box > 8192)))
        return SETTLE_ERR_INVAL;
    AnswerRows a = { .src = src, .r = r };
    SettleThumbRows tr;
    int ret = 0;
    if (small) {
        if ((ret = settle_thumb_begin(&tr, src->width, src->height, box, small)) < 0)
            return ret;
        a.tr = &tr;
    }
    /* a scaled picture's band: the rows of one of its rows, at most
     * height / its height + 2 */
    a.cap = small ? src->height / small->height + 2 : 16;
    a.cv = (Canvas){ .stride = (ptrdiff_t)src->width * 3, .width = src->width,
                     .height = src->height };
    if (!(a.cv.rgb = malloc((size_t)a.cv.stride * (size_t)a.cap))) {
        ret = SETTLE_ERR_NOMEM;
        goto end;
    }
    if (png) {
        ret = settle_encode_png_rows(src->width, src->height, answer_row, &a, png, len);
    } else {
        for (int y = 0; y < src->height; y = a.cv.y1)
            next_band(&a, y);
    }
end:
    free(a.cv.rgb);
    if (small) {
        settle_thumb_end(&tr);
        if (ret < 0) {
            free(small->rgb);
            memset(small, 0, sizeof(*small));
        } else {
            small->role = src->role;
            small->frame = src->frame;
            small->time = src->time;
        }
    }
    if (ret < 0 && png) {
        free(*png);
        *png = NULL;
        *len = 0;
    }
    return ret;
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
