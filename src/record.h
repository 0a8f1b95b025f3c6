/* SPDX-License-Identifier: BSD-2-Clause */
/* The per-frame record: what the measure stage finds in a picture and the
 * decide stage adds to it, handed from stage to stage and spooled to disk. */
#ifndef SETTLE_RECORD_H
#define SETTLE_RECORD_H

#include <stdint.h>

/* The ways of telling a change, side by side in every record and in the
 * decide stage's trackers. */
enum {
    SETTLE_T_DIFF = 0,
    SETTLE_T_ENTROPY = 1,
    SETTLE_T_BLOCKS = 2,       /* the block test (measure_blocks.h) */
    SETTLE_T_BLOCKS_NOBAR = 3, /* the same, a phone's status bar left out */
    SETTLE_T_DIFF_SOLID = 4,   /* diff without an encoder's re-codes: a frame no pixel
                                * moved strongly in and no block moved in is quiet */
    SETTLE_T_COUNT = 5
};

/* As SETTLE_MAX_REGIONS (checked in lib.c). */
#define SETTLE_RECORD_REGIONS 8

typedef struct SettleRecord {
    int64_t index;     /* read: the picture's number from 0 */
    double time;       /* read: seconds from the first picture */
    int64_t diff;      /* measure: pixels changed beyond --tolerance */
    int64_t strong;    /* measure: pixels changed beyond the strong tolerance */
    int64_t bar_diff;  /* measure: of diff, the pixels in the top band a portrait picture's
                        * block test judges apart (a phone's status bar); 0: no band */
    double entropy;    /* measure: of the colour histogram, in bits */
    double delta;      /* decide: |entropy - mean of the recent history| */
    double marker;     /* measure: the share of the start marker's colour, 0..1 */
    uint8_t keyframe;  /* read: the decoder says a keyframe */
    uint8_t refresh;   /* decide: a codec refresh, not a change */
    double block_peak; /* measure: the block test's largest residual / threshold */
    int32_t blocks_changed; /* measure: blocks over their threshold */
    uint8_t block_change, block_bar; /* measure: content below the top band, in it */
    uint8_t block_edge; /* measure: a change in the right edge's columns, left out */
    uint8_t block_foot; /* measure: a change in the bottom rows, left out */
    uint8_t block_fade; /* measure: below the top band, no block_change but content fading
                         * in (the block test's fade test) */
    uint8_t block_fading; /* measure: below the top band, the fade test saw content fading
                           * in, whether or not the frame is a block_change */
    uint8_t block_revert; /* measure: a block_change that brought every block it moved back
                           * to the picture before the change before (src/blocks_stay.c) */
    int32_t block_kept; /* measure: of the blocks the last block_change moved, how many this
                         * picture still shows moved; -1: no block test */
    int32_t block_kept_prev; /* measure: the same for the block_change before the last
                              * (against the picture before it); -1: no block test */
    uint8_t quiet[SETTLE_T_COUNT]; /* decide: no change, by each SETTLE_T_ */
    double limit;      /* decide: the diff threshold this frame was judged by */
    int box[4];        /* measure: the changed pixels' rectangle x, y, w, h in the input
                        * picture; w 0: none */
    uint8_t local;     /* measure: most of the changed pixels lie in one small place
                        * (src/measure_cells.c), whatever few stray pixels widen box */
    int64_t moved;     /* measure: pixels changed in the cells the change moved the
                        * picture of (settle_cells_moved_pixels); 0 when no area is
                        * looked for */
    int32_t strong_cells; /* measure: the 16x16 cells holding a pixel changed beyond the strong
                           * tolerance (where the strong pixels lie); 0 when no area is
                           * looked for */
    int64_t region[SETTLE_RECORD_REGIONS]; /* measure: each --region area's changed pixels */
} SettleRecord;

#endif
