/* SPDX-License-Identifier: BSD-2-Clause */
/* What is done to a picture before it is measured: regions masked out
 * (--ignore), a blur against sensor noise (--blur), and finding a device's
 * screen in a camera's picture (--crop auto). Pure functions, no state. */
#ifndef SETTLE_PREFILTER_H
#define SETTLE_PREFILTER_H

#include <stddef.h>
#include <stdint.h>

/* Sets to 0 the pixels of rows [y0, y0 + h) (row 0 of p is row y0) that lie
 * in one of the n rectangles x, y, w, h (the same coordinates as y0; the
 * rectangles must lie within the w_pic columns). */
void settle_mask_rows(uint8_t *p, ptrdiff_t stride, int y0, int h, const int (*rect)[4], int n);

/* Blurs h rows of w RGB24 pixels into dst: the box filter (mean of the
 * (2r+1) x (2r+1) square) or, with median, the median of that square per
 * channel. src holds `top` rows above its row 0 and `bottom` below its row
 * h - 1 that the filter may read; beyond them, and beyond the first and last
 * column, the edge is repeated. r from 1 to 8 (box), 1 or 2 (median).
 * colsum: scratch of 3 * w ints. */
void settle_blur_rgb(const uint8_t *src, ptrdiff_t sstride, int w, int h, int top, int bottom,
                     int median, int r, uint8_t *dst, ptrdiff_t dstride, int *colsum);

/* Finds the device's screen in a camera's picture: the bright, roughly
 * rectangular region against a darker surround. Splits the luma at Otsu's
 * threshold, takes the longest run of rows whose bright share is at least
 * half the largest row's, then the same run of columns within those rows,
 * both again within that box, and keeps a margin of 2 % inside. rect = x, y, w, h. Returns
 * 1 when found, 0 when the picture has no such region (flat, a region that
 * reaches two edges of the picture as in a screen recording or a capture
 * already cropped, or one under a quarter of the picture), rect then the
 * whole picture. */
int settle_find_screen(const uint8_t *rgb, ptrdiff_t stride, int w, int h, int rect[4]);

#endif
