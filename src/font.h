/* SPDX-License-Identifier: BSD-2-Clause */
/* A small bitmap font for the times under the filmstrip's thumbnails and the
 * labels of the outlined answer (src/outline.c). */
#ifndef SETTLE_FONT_H_INCLUDED
#define SETTLE_FONT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#define SETTLE_FONT_W 5
#define SETTLE_FONT_H 7

/* Width in pixels of `s` drawn at `scale` (one column of space between letters). */
int settle_text_width(const char *s, int scale);

/* Draws `s` with its top left corner at x, y, each font pixel a scale x scale
 * square, clipped to the picture. Characters the font lacks are drawn as spaces:
 * it has 0-9 a-z (capitals drawn as small letters) . , : - + ( ) % _ and space. */
void settle_draw_text(uint8_t *rgb, ptrdiff_t stride, int w, int h, int x, int y, const char *s,
                      int scale, const uint8_t color[3]);

#endif
