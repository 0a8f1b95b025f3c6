/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The web's visual metrics (WebPageTest, browsertime): visual progress from
 * colour histograms, first and last visual change, Speed Index and visually
 * complete 85/95/99, computed in the single streaming pass.
 */
#ifndef SETTLE_VISUAL_H
#define SETTLE_VISUAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kernels.h"

/* Longest side of the picture the visual metrics look at, as WebPageTest's
 * filmstrip (its --thumbsize default). */
#define SETTLE_VISUAL_SIZE 400

typedef struct SettleVisual {
    int w, h;               /* the measured picture */
    int tw, th;             /* the scaled-down picture */
    int *xmap, *ymap;       /* source column/row -> scaled column/row */
    uint32_t *cells;        /* source pixels per scaled pixel */
    uint64_t *inv;          /* their reciprocals, see scale_down */
    int *xstart;            /* first source column of each scaled column, tw + 1 entries */
    uint16_t *acc;          /* column sums of the source rows of one scaled row */
    int packed;             /* every cell's sums fit 16 bits: gathered 4 lanes at a time */
    int narrow;             /* every cell is narrow or narrow + 1 columns wide (0: not so) */
    uint8_t *wide;          /* ... 1 for those narrow + 1 wide, tw entries */
    uint16_t *sums;         /* packed: a scaled row's sums, 3 tw + 1 entries */
    float *size;            /* packed: each sum's cell size, 3 tw per count of source
                             * rows from rows_min */
    int32_t *half;          /* ... half of it */
    int rows_min;           /* the fewest source rows of a scaled row */
    const SettleKernels *dsp; /* sum_rows for this CPU */
    uint8_t *cur, *start, *ref, *tmp;
    uint8_t *row;           /* one scaled row, before replace_row puts it into cur */
    int64_t scaled;         /* the frame whose scaled picture cur holds, -1 for none */
    uint32_t hist[SETTLE_HIST_BINS];       /* the current frame's, near-white pixels left out */
    uint32_t start_hist[SETTLE_HIST_BINS]; /* the start frame's */
    uint32_t ref_hist[SETTLE_HIST_BINS];   /* the final picture's (the last visual change) */
    int64_t start_frame;    /* -1 until the start */
    double start_time;
    int64_t first_change, last_change; /* frame indices, -1 when none */
    double first_change_time, last_change_time;
    FILE *spool;            /* index, time and histogram of each frame from the start on */
    int spool_ok;
    FILE *frames;           /* index, time and scaled picture of each frame that changed,
                             * from the first visual change on */
    int frames_ok;
    int64_t stored;         /* records in `frames` */
    int exact_end;          /* the last change is the last stored frame */
    int mobile;             /* an Android recording: no desktop status-line strip */
    int64_t last_content;   /* the last frame from the start on not covered by the start
                             * marker's colour (-1 for none) */
} SettleVisual;

/* One spooled frame. */
typedef struct SettleVisualRecord {
    int64_t index;
    double time;
    uint32_t hist[SETTLE_HIST_BINS];
} SettleVisualRecord;

/* The browser viewport in a picture, found as WebPageTest does: from the
 * centre pixel outwards along the centre row and column, as far as the colour
 * stays within 15 levels (summed over R, G and B) of the centre's. Writes x,
 * y, w, h into rect. */
void settle_find_viewport(const uint8_t *rgb, ptrdiff_t stride, int w, int h, int rect[4]);

/* Prepares for pictures of w x h. mobile: an Android recording, where
 * WebPageTest does not leave out a strip at the bottom. dsp: the kernels to
 * use, kept until settle_visual_free. Returns 0 or SETTLE_ERR_NOMEM. */
int settle_visual_init(SettleVisual *v, int w, int h, int exact_end, int mobile,
                       const SettleKernels *dsp);
void settle_visual_free(SettleVisual *v);

/* Measures one picture. is_start: this frame is the start of the
 * measurement (the frames before it are ignored). start_time: the start, in
 * seconds from the first frame. is_marker: the picture is covered by the
 * start marker's colour; such frames at the end of the capture (WebPageTest's
 * closing orange frames) are left out, as WebPageTest removes them. */
void settle_visual_frame(SettleVisual *v, const uint8_t *rgb, ptrdiff_t stride, int64_t index,
                         double time, int is_start, double start_time, const uint8_t *dirty,
                         int is_marker);

/* dirty: for each band of SETTLE_BAND_ROWS rows, whether any of its pixels
 * differs from the previous frame's (NULL: all may); unchanged rows keep
 * their scaled values, and a picture with no dirty band keeps the previous
 * frame's scaled picture, histogram and decisions. */

/* The visual progress (whole percent) of a spooled frame, once
 * settle_visual_finish has found the final picture. */
int settle_visual_progress(const SettleVisual *v, const SettleVisualRecord *r);

/* Finds the last visual change, then computes Speed Index and visually
 * complete 85/95/99 (seconds from the start; NaN when there was no start)
 * from the spools. Returns 0 or SETTLE_ERR_IO. */
int settle_visual_finish(SettleVisual *v, double *speed_index, double vc[3]);

#endif
