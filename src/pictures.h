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
    SettleImage img;    /* rgb owned */
} SettleThumb;

/* Scales the picture down (area average) to fit a box of `box` pixels a side,
 * never up. Returns 0 or SETTLE_ERR_NOMEM; dst->rgb is allocated. */
int settle_thumbnail(const uint8_t *rgb, ptrdiff_t stride, int w, int h, int box, SettleImage *dst);

/* Lays out `n` thumbnails (in order) on one contact sheet. Returns 0 or
 * SETTLE_ERR_NOMEM; sheet->rgb is allocated. */
int settle_filmstrip(const SettleThumb *t, int n, SettleImage *sheet);

#endif
