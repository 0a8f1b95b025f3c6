/* SPDX-License-Identifier: BSD-2-Clause */
/* Test helper: the drawing primitives the synthetic pictures share (tests/scene.c,
 * tests/grid.c): filled rectangles and discs on an RGB24 picture, clipped to it,
 * and a hash for drawings that look random but are the same every run. */
#ifndef SETTLE_TESTS_CANVAS_H
#define SETTLE_TESTS_CANVAS_H
#include <stdint.h>

/* An RGB24 picture: w x h pixels, rows `stride` bytes apart. */
typedef struct Canvas {
    uint8_t *p;
    int stride, w, h;
} Canvas;

/* Fills [x0, x1) x [y0, y1), clipped to the picture, with col. */
void canvas_rect(const Canvas *c, int x0, int y0, int x1, int y1, const uint8_t col[3]);

/* Fills the pixels within r of (cx, cy), clipped to the picture, with col. */
void canvas_disc(const Canvas *c, int cx, int cy, int r, const uint8_t col[3]);

/* A 32-bit hash of three numbers. */
uint32_t canvas_hash3(uint32_t a, uint32_t b, uint32_t d);

/* v rounded to the nearest level, clamped to 0..255. */
uint8_t canvas_clamp8(double v);

#endif
