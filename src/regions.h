/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --region NAME=X,Y,W,H: the stable time of one area, measured as the whole
 * picture is with the diff method: per frame the pixels of the area that
 * changed (on the same pixels, after --ignore and --blur), quiet at or under
 * the diff threshold scaled to the area's share of the picture, and the
 * stable frame the last change after the start (or with --settle the first
 * change followed by that much quiet). The area's own start is the whole
 * picture's.
 */
#ifndef SETTLE_REGIONS_H
#define SETTLE_REGIONS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "settle_quiet.h"
#include "settle/settle.h"

typedef struct SettleRegionTrack {
    int x, y, w, h;          /* within the measured rectangle; w 0: outside it */
    double limit;            /* quiet at or under this many pixels */
    int64_t changed;         /* this frame's changed pixels */
    int box[4];              /* x0, y0, x1, y1 of them this frame (rectangle coordinates) */
    int64_t changes;         /* frames after the start that changed it */
    SettleBox last;          /* its last change after the start */
    SettleQuiet quiet;       /* --settle */
    int still_changing;      /* it changed in the last frame */
} SettleRegionTrack;

typedef struct SettleRegions {
    int n;
    int ox, oy;              /* the measured rectangle in the input picture */
    SettleRegionTrack t[SETTLE_MAX_REGIONS];
    SettleRegionResult res[SETTLE_MAX_REGIONS];
} SettleRegions;

/* The areas of the settings, clipped to the rectangle at ox, oy of w x h
 * whose diff threshold is `limit` pixels. */
void settle_regions_init(SettleRegions *g, const SettleSettings *s, int ox, int oy, int w,
                         int h, double limit);

/* A new frame. */
void settle_regions_clear(SettleRegions *g);

/* Adds the change from prev to cur in rows y0 .. y0 + rows - 1 of the
 * rectangle (cur and prev point at row y0). */
void settle_regions_band(SettleRegions *g, const uint8_t *cur, ptrdiff_t cstride,
                         const uint8_t *prev, ptrdiff_t pstride, int y0, int rows, int tol);

/* The frame is measured; started: the measurement has begun (at or before
 * this frame). */
void settle_regions_frame(SettleRegions *g, int64_t index, double time, int started);

/* Fills g->res for a recording ending at `end` whose start is frame
 * start_frame (-1: none) at start_frame_time, load times counted from
 * start_time (seconds from the first frame); names from the settings. */
void settle_regions_finish(SettleRegions *g, const SettleSettings *s, int64_t start_frame,
                           double start_frame_time, double start_time, double end);

#endif
