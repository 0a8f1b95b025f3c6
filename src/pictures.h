/* SPDX-License-Identifier: BSD-2-Clause */
/* Internal: thumbnails and the filmstrip's contact sheet. */
#ifndef SETTLE_PICTURES_INTERNAL_H
#define SETTLE_PICTURES_INTERNAL_H

#include <stdint.h>

#include "settle/pictures.h"

/* A thumbnail on the filmstrip. */
typedef struct SettleThumb {
    int64_t frame;
    double time;
    int start, stable;  /* outlined and named */
    int key;            /* a key frame: always shown */
    SettleImage img;    /* rgb owned, unless borrowed */
    int borrowed;       /* img is a kept thumbnail's (keep.c), read in place */
} SettleThumb;

/* Scales the picture down (area average) to fit a box of `box` pixels a side,
 * never up. Returns 0 or SETTLE_ERR_NOMEM; dst->rgb is allocated. */
int settle_thumbnail(const uint8_t *rgb, ptrdiff_t stride, int w, int h, int box, SettleImage *dst);

/* settle_thumbnail made band by band, as the picture's rows become ready
 * (while they are in the cache): begin, then rows (any number of times, upto
 * growing to h), then end. The same pixels as settle_thumbnail. */
typedef struct SettleThumbRows {
    int w, h;
    int y;              /* the next thumbnail row */
    int *x0;            /* each thumbnail column's first source column */
    uint32_t *acc;      /* a band's column sums (and one value more: box_means) */
    /* a thumbnail row from acc: settle_box_means, or a faster SettleKernels'
     * (the caller may set it after settle_thumb_begin) */
    void (*box_means)(const uint32_t *acc, const int *x0, int n, int rows, uint8_t *out);
    SettleImage *dst;
} SettleThumbRows;

/* Readies t for a w x h picture; dst->rgb is allocated (its pixels made by
 * settle_thumb_rows). Returns 0 or SETTLE_ERR_NOMEM (t then holds nothing). */
int settle_thumb_begin(SettleThumbRows *t, int w, int h, int box, SettleImage *dst);
/* The picture's row at which the next thumbnail row's band ends (h when done). */
int settle_thumb_band_end(const SettleThumbRows *t);
/* Makes every thumbnail row whose band lies in the picture's rows [0, upto). */
void settle_thumb_rows(SettleThumbRows *t, const uint8_t *rgb, ptrdiff_t stride, int upto);
/* The same from a band of the picture's rows: band holds rows [first, upto),
 * and every thumbnail row still to make has its band at or after first. */
void settle_thumb_band(SettleThumbRows *t, const uint8_t *band, ptrdiff_t stride, int first,
                       int upto);
/* The next thumbnail row as a copy of `row` (that row of a thumbnail of a
 * picture whose rows in this band are the same). */
void settle_thumb_copy_row(SettleThumbRows *t, const uint8_t *row);
/* Frees t's work space (not dst). */
void settle_thumb_end(SettleThumbRows *t);

/* The PNG of a picture whose rows come from row(opaque, y), asked once each
 * in order (y from 0 to h - 1): settle_encode_png's bytes for the picture of
 * those rows. Returns 0, SETTLE_ERR_INVAL or SETTLE_ERR_NOMEM (*png NULL). */
int settle_encode_png_rows(int w, int h, const uint8_t *(*row)(void *opaque, int y),
                           void *opaque, uint8_t **png, size_t *len);

/* Lays out `n` thumbnails (in order) on one contact sheet. Returns 0 or
 * SETTLE_ERR_NOMEM; sheet->rgb is allocated. */
int settle_filmstrip(const SettleThumb *t, int n, SettleImage *sheet);

#endif
