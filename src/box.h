/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Rectangles kept as x0, y0, x1, y1 (the caller says whether x1 and y1 are
 * inside or just past the edge), grown point by point: the changed pixels of
 * a frame (cells.c), of a --region area (regions.c), an animated area's cells
 * (animated.c).
 */
#ifndef SETTLE_BOX_H
#define SETTLE_BOX_H

static inline void settle_box_set(int b[4], int x0, int y0, int x1, int y1)
{
    b[0] = x0;
    b[1] = y0;
    b[2] = x1;
    b[3] = y1;
}

/* Grows b to hold x0, y0, x1, y1. */
static inline void settle_box_grow(int b[4], int x0, int y0, int x1, int y1)
{
    b[0] = x0 < b[0] ? x0 : b[0];
    b[1] = y0 < b[1] ? y0 : b[1];
    b[2] = x1 > b[2] ? x1 : b[2];
    b[3] = y1 > b[3] ? y1 : b[3];
}

#endif
