/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Whether the block test's last content change stays: new content persists,
 * where a toast or a touch indicator comes and goes and a scroll bar fades
 * out. Kept beside the block test (src/measure_blocks.c), reading its block
 * means and noise after each of its verdicts.
 */
#ifndef SETTLE_BLOCKS_STAY_H
#define SETTLE_BLOCKS_STAY_H
#include <stdint.h>

#include "measure_blocks.h"

typedef struct SettleBlocksStay {
    int nb;
    float *before;   /* nb * 3: the picture before the last change below the top band */
    float *before2;  /* nb * 3: the picture before the change before that */
    float *prev;     /* nb * 3: the previous picture */
    float *prev2;    /* nb * 3: the picture before it */
    uint8_t *mask;   /* nb: the blocks that last change moved over their threshold */
    uint8_t *mask_prev; /* nb: ... and the change before it */
    /* the blocks set in mask and mask_prev, in order, and how many: the
     * pictures between two changes look at those blocks only */
    int32_t *list, *list_prev;
    int nlist, nlist_prev;
    float *tmp;         /* nb * 3: the light's fit's scratch */
    int keyframe;       /* the last change came on the encoder's keyframe */
    double share, share_prev; /* the share of their threshold its blocks moved by (1, or
                                 SETTLE_BLOCK_AREA_SHARE: the split-line rule); the change before */
    int have_prev, have_prev2, have_before, have_before2;
    int have_ref; /* the block test had a reference before this picture (on a change, b->judged) */
    int line, line_prev; /* the line test counted the last change, the change before
                          * (their blocks: its runs, settle_blocks_line_kept) */
    int line_last;       /* ... the last change, a revert too */
} SettleBlocksStay;

/* Returns 0 or SETTLE_ERR_NOMEM (then settle_blocks_stay_free is still safe). */
int settle_blocks_stay_init(SettleBlocksStay *s, int nb);
void settle_blocks_stay_free(SettleBlocksStay *s);
/* After settle_blocks_frame judged the picture in b->sum: change is its
 * verdict (a content change below the top band). *kept: of the blocks the
 * last such change moved over their threshold (against the picture before
 * it; for a change the lone-pair rule counted, b->lone_fired, the picture
 * before the pair's first; for a change that moved no block from that
 * picture, content that came over several pictures, the block test's
 * reference it was judged against), how many this picture still shows moved
 * (on a portrait picture, for a change on no keyframe, when fewer than half
 * are, also counting those that are with the light since that picture taken
 * out; for a change the split-line rule counted,
 * b->area_fired, by SETTLE_BLOCK_AREA_SHARE of their threshold);
 * *kept_prev: the same for the change before it (against the picture before
 * that one);
 * *revert: this picture is
 * such a change and brings every block it moved, each one the change
 * before had moved, back to the picture before the change before (something that came and went: then nothing of it is
 * kept, and the picture before it is the one later pictures are compared
 * with). */
void settle_blocks_stay_frame(SettleBlocksStay *s, const SettleBlocks *b, int change, int32_t *kept,
                              int32_t *kept_prev, uint8_t *revert);
#endif
