/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The block change test: tells a content change from everything else a
 * camera or an encoder does to a still picture.
 *
 * The picture is reduced to the mean R, G, B of blocks of
 * SETTLE_BLOCK x SETTLE_BLOCK pixels (kept up to date band by band, so that
 * bands the decoder says did not change cost nothing). Each frame is compared
 * with a reference: the picture at the last change, which follows slow
 * changes of single blocks. Before comparing, what a camera does to the
 * whole picture is taken out:
 *   - exposure and white-balance drift: a gain and an offset per channel,
 *     fitted to the blocks that did not change (two rounds of least squares,
 *     outliers dropped), bounded so that no real change of the whole
 *     picture (a splash replaced by a page) passes for one; on a camera
 *     film of a phone in a lit room, two lights: the screen's (the box of
 *     the blocks content filled, grown to the blocks whose light follows
 *     it) and the room's around it, each with its own gain and offset
 *     (src/measure_blocks.c, TWO_SEEN);
 *   - mains flicker seen by a rolling shutter: an offset per row of blocks
 *     (their median), bounded by a few times the noise, so that a line of
 *     content is never taken for it.
 * What remains is compared with the capture's own noise, estimated from
 * the frames read so far per brightness level (8 levels of the reference's
 * luma): a low percentile over the frames of each frame's median residual.
 * A block changed when its residual exceeds SETTLE_BLOCK_K times that noise
 * and at least SETTLE_BLOCK_MIN levels. Encoder refinement (many pixels by a
 * few levels, spread over the picture, on any frame type) moves block means
 * by less than that; content changes coherent areas by a lot: the frame
 * changed when a block changed by twice its threshold or two neighbouring
 * blocks changed, or one or two blocks changed in two
 * pictures running, standing out of the calm pictures before (the lone-pair
 * rule, src/measure_blocks.c).
 *
 * The top rows of a portrait picture (bar_rows rows of blocks, where phones
 * draw their status bar) are judged apart, so that the caller can leave them
 * out when they change on their own.
 */
#ifndef SETTLE_MEASURE_BLOCKS_H
#define SETTLE_MEASURE_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#define SETTLE_BLOCK 16
/* brightness levels of the noise model */
#define SETTLE_BLOCK_LEVELS 8
/* residual histogram: steps of 1/8 level up to 64 levels */
#define SETTLE_BLOCK_RBINS 512
/* the pictures the lone-pair rule looks back on: the window before a pair, and its first */
#define SETTLE_BLOCK_LONE_SEEN 9
/* the pictures a block over its threshold is judged against again, on a
 * camera film: a light's cycle beating with the frame rate (mains at 50 Hz
 * filmed at 24 fps repeats every 6 frames, at 30 and 60 fps every 3) */
#define SETTLE_BLOCK_RECENT 6
/* a block changed by more than max(K x noise, MIN) levels. MIN: an
 * encoder's keyframe or refresh at CRF 28-33 moves the mean of a textured
 * block by 5 to 11 levels where the P-frames before it copied the picture
 * (no noise to learn from); content moves the blocks it touches by 25 to
 * 200 (measured on the scripts/accuracy grid and the real captures) */
#define SETTLE_BLOCK_K 6.0
#define SETTLE_BLOCK_MIN 10.0

/* The line test's state (src/blocks_line.c); its runs' length in blocks. */
#define SETTLE_BLOCK_LINE_RUN 3
typedef struct SettleBlocksLine {
    int on;            /* quarters counted: a landscape picture */
    float *quart;      /* nb * 4: each block's quarters' luma means */
    float *ref;        /* nb * 4: the reference's */
    uint8_t *row;      /* bh: which rows' quarters are this picture's, and their reference */
    int *span;         /* 2 * bh: the columns of blocks each row's quarters were counted in */
    uint16_t *qcol;    /* 4 * (w * 3 + 1): the quarters' column sums */
    float *tmp;        /* 3 * bw: a quarter's block means */
    float *move;       /* nb: scratch, each block's largest profile move */
    int8_t *at;        /* nb: scratch, its quarter (1 to 4; negative: darker) */
    float *sorted;     /* nb: scratch */
    float seen[SETTLE_BLOCK_LONE_SEEN]; /* the last pictures' strengths (0: changed, keyframe) */
    int pos;
    double strength;   /* this picture's */
    int fired;         /* it counted this picture */
    int run_y, run_x;  /* ... by the run at this row and first column */
    /* the last two changes it counted (0 the last): their runs, each
     * block's profile before it and how far it moved at the change */
    int kept_y[2], kept_x[2];
    float kept_before[2][SETTLE_BLOCK_LINE_RUN * 4], kept_move[2][SETTLE_BLOCK_LINE_RUN];
} SettleBlocksLine;

typedef struct SettleBlocks {
    int w, h;          /* the measured picture */
    int bs;            /* a block's side in pixels: SETTLE_BLOCK, or that / F on a
                        * picture reduced by F (the same area of the capture) */
    int bw, bh, nb;    /* blocks across, down, in all */
    int bar_rows;      /* rows of blocks judged apart at the top (0: none) */
    int edge_from;     /* the first column of blocks at the right edge left out below
                        * the top band (a phone's scroll indicator; bw: none, or no
                        * longer: it changed in EDGE_FRAMES pictures) */
    int edge_frames;   /* the pictures in which it changed, left out */
    int foot_from;     /* the first row of blocks at the bottom left out (a phone's home
                        * indicator or gesture handle; bh: none, or no longer: it
                        * changed in FOOT_FRAMES pictures) */
    int foot_frames;   /* the pictures in which they changed on their own, left out */
    float *sum;        /* nb * 3: the current picture's block means */
    float *ref;        /* nb * 3: the reference */
    float *judged;     /* nb * 3: on a picture judged a change or a fade, the reference it
                        * was judged against (the reference then moves to the picture) */
    float *last;       /* nb * 3: the picture at the last change */
    float *recent;     /* SETTLE_BLOCK_RECENT * nb * 3: the last pictures (a ring, at
                        * recent_pos the oldest, its newest the previous picture),
                        * recent_n of them so far */
    int recent_pos, recent_n;
    float *step;       /* nb * 3: the previous picture's step from the one before,
                        * the light taken out (the fade test) */
    uint8_t *run;      /* nb: steps in a row each block went the same way */
    uint8_t *hold;     /* nb: pictures in a row a block of a run did not move */
    float *moved;      /* nb * 3: how far those steps moved it */
    /* two lights (src/measure_blocks.c, TWO_SEEN): the blocks content filled
     * so far by column (bw) and by row (bh), in all, and their box; how far
     * each block's light followed the screen's rather than the room's (nb
     * pairs: a weighted sum, its weights); the screen's box, blocks x0 y0 x1
     * y1 (x0 > x1: none yet, for each box) */
    uint32_t *seen_x, *seen_y;
    uint32_t seen;
    int filled[4];
    float *follow;
    uint32_t *line;    /* bw + bh: the outline's counts by column, then by row */
    int box[4];
    int two;           /* the picture judged last took two lights */
    int apart;         /* ... and they stood TWO_APART apart */
    int lit;           /* still pictures whose lights stood apart, up to TWO_LIT */
    int room;          /* no content lay beside the box content filled (ROOM_MARGIN)
                        * and the picture around it is no flat border
                        * (settle_blocks_flat_outside under SETTLE_ROOM_FLAT) */
    int64_t lit_moved; /* pictures whose light the fit moved (ROOM_LIGHT) */
    int64_t room_stirred; /* pictures whose room stirred (ROOM_STIR) */
    float *res;        /* nb: scratch, the residual of each block */
    uint8_t *lvl;      /* nb: each block's brightness level (of the reference),
                        * for the picture being judged */
    float *scratch;    /* nb + 6 * bw floats */
    uint16_t *colsum;  /* w * 3: a band's column sums */
    /* settle_sum_rows or a faster kernel that gives the same sums (init sets
     * the scalar one; the caller may put its CPU's in) */
    void (*sum_rows)(const uint8_t *p, ptrdiff_t stride, int n, int rows, uint16_t *sums);
    /* settle_fit_sums or a faster kernel that gives the same doubles (as
     * sum_rows) */
    void (*fit_sums)(const float *ref, const float *cur, int n, const double *a,
                     const double *o, const double *lim, double s[5][3]);
    /* settle_select_part or a faster kernel that gives the same value: the
     * rows' offsets' selections (as sum_rows) */
    int (*select_part)(const float *v, int32_t *keys, int n, int k, float *out);
    int32_t *keys;     /* 2 * (nb + 8): the selections' scratch */
    /* settle_block_errors or a faster kernel that gives the same floats:
     * the errors against the reference, a row at a time (as sum_rows) */
    void (*block_errors)(const float *ref, const float *cur, int n, const double *a,
                         const double *o, float *err, float *ch);
    /* settle_block_levels, settle_block_residuals and settle_block_shares or
     * faster kernels that give the same values: each block's level, its
     * residual and its share of its threshold (as sum_rows) */
    void (*block_levels)(const float *ref, int n, uint8_t *lvl);
    void (*block_residuals)(const float *err, int n, int bins, float *res, uint16_t *bin);
    double (*block_shares)(const float *res, const uint8_t *lvl, const double *thr, int n,
                           float low, float *ratio, int counts[3]);
    /* settle_block_means or a faster kernel that gives the same floats: a
     * row of blocks' means from colsum (as sum_rows) */
    void (*block_means)(const uint16_t *sums, int n, int bs, float inv, float *out);
    uint16_t *bin;     /* nb: each block's residual's bin (learn_noise) */
    int have_ref;
    /* the fade test runs (init: on a portrait picture, a phone's: landscape
     * captures, HDMI and desktop, keep the block test of before it) */
    int fade_on;
    int have_step;
    int repeats;       /* pictures in a row that repeated the one before */
    /* the late-content rules run (the lone pair, the split line, the recent
     * pictures' recheck, blocks_stay's light): a phone's picture, portrait
     * or a landscape one whose content filled an upright box (set each
     * picture) */
    int phone;
    /* the lone-pair rule: the peaks of the last SETTLE_BLOCK_LONE_SEEN
     * pictures (a ring, at lone_pos the oldest), pictures in a row with no
     * change, the previous picture's peak when it had a lone block and was
     * no keyframe (0: not), whether the rule counted the picture judged last */
    int keyframe;      /* the picture to judge is the encoder's keyframe (the caller sets it) */
    float lone_seen[SETTLE_BLOCK_LONE_SEEN];
    uint8_t key_seen[SETTLE_BLOCK_LONE_SEEN]; /* which of those were keyframes, or what
                                               * the reference had left of one */
    double key_left;   /* the last keyframe's peak, by what the reference has left of it
                        * since (0: none, or a change since) */
    float *shares;     /* SETTLE_BLOCK_LONE_SEEN * nb: those pictures' blocks' shares of
                        * their threshold (the ring of lone_seen) */
    int lone_pos;
    int64_t calm;
    double lone_prev;
    int lone_fired;
    int area_fired;    /* the split-line rule counted the picture judged last */
    SettleBlocksLine lines; /* the line test (src/blocks_line.c) */
    uint32_t frame_hist[SETTLE_BLOCK_LEVELS][SETTLE_BLOCK_RBINS];
    uint32_t med_hist[SETTLE_BLOCK_LEVELS][SETTLE_BLOCK_RBINS]; /* per-frame medians */
    uint32_t med_n[SETTLE_BLOCK_LEVELS];
    uint32_t all_hist[SETTLE_BLOCK_RBINS]; /* per-frame medians of all levels */
    uint32_t all_n;
    double noise[SETTLE_BLOCK_LEVELS]; /* the estimate (a median residual), -1 = no data */
    double noise_all;
    /* what the capture showed, for the result */
    double gain_min, gain_max;         /* the fitted luma gain against the reference */
    double offset_min, offset_max;
    double row_max;                    /* largest row offset taken out */
    /* the light on frames judged quiet: a screen recording repeats its
     * picture (gain 1, offset 0); a camera's exposure, white balance and
     * flicker move them */
    double quiet_gain_min, quiet_gain_max, quiet_offset_min, quiet_offset_max;
    int64_t frames;
} SettleBlocks;

/* The verdict on one frame. */
typedef struct SettleBlocksFrame {
    int change;        /* a content change below the top band */
    int change_bar;    /* a change within the top band */
    int change_edge;   /* a change within the right edge's columns below it, left out
                        * (edge_from) */
    int change_foot;   /* a change within the bottom rows, left out (foot_from) */
    int changed;       /* blocks over their threshold, in all */
    double peak;       /* largest residual / threshold */
    double gain;       /* luma gain fitted against the reference */
    /* the fade test, below the top band: blocks that moved by more than the
     * fade step both on this picture and on the one before, the light taken
     * out, in the same direction and by at least a third as much (coherent:
     * content going on moving towards its final picture) or the other way
     * (opposed: an encoder re-coding, converging nowhere); fading: coherent
     * on the last FADE_RUN pictures in a row; fading_area: of those, the ones
     * with a fading neighbour */
    int coherent, opposed, fading, fading_area;
    int fading_seen;   /* content fading in: at least FADE_AREA fading blocks
                        * with a fading neighbour, FADE_SHARE times as many as
                        * opposed ones, whether or not the picture is a change
                        * (a fade's steps over a contrasted page move blocks
                        * past their threshold) */
    int fade;          /* fading_seen, and not a change by the block test */
} SettleBlocksFrame;

/* Sets up for w x h pictures; bar_rows rows of blocks at the top judged
 * apart (0: none). Returns 0 or SETTLE_ERR_NOMEM (then settle_blocks_free
 * is still safe). */
int settle_blocks_init(SettleBlocks *b, int w, int h, int bar_rows);
/* The same with blocks of bs x bs pixels (bs divides SETTLE_BLOCK): for a
 * picture reduced by F, SETTLE_BLOCK / F, so that each block covers the same
 * area of the capture. */
int settle_blocks_init_size(SettleBlocks *b, int w, int h, int bar_rows, int bs);
void settle_blocks_free(SettleBlocks *b);

/* Recomputes the block means of rows [y0, y0 + rows) of the picture, whose
 * first row rgb points to; y0 is
 * a multiple of SETTLE_BLOCK and rows is SETTLE_BLOCK or what is left of the
 * picture (with smaller blocks, the rows of SETTLE_BLOCK / bs rows of blocks). Rows not sent keep their means from the previous picture. */
void settle_blocks_rows(SettleBlocks *b, const uint8_t *rgb, ptrdiff_t stride, int y0, int rows);

/* Judges the picture whose rows were sent against the reference, learns
 * the noise from it and updates the reference. The first picture only
 * becomes the reference. */
void settle_blocks_frame(SettleBlocks *b, SettleBlocksFrame *out);

/* The noise estimate of brightness level l (0..SETTLE_BLOCK_LEVELS-1) as a
 * median residual in levels, and the threshold it gives; -1 when the capture
 * had no block of that brightness. */
double settle_blocks_noise(const SettleBlocks *b, int l);
double settle_blocks_threshold(const SettleBlocks *b, int l);
/* The threshold of a block whose picture (3 channel means) is ref: its
 * brightness level's, or the capture's while that level has no noise yet. */
double settle_blocks_threshold_of(const SettleBlocks *b, const float *ref);

/* Of the blocks outside box (x0, y0, x1, y1 exclusive, in the picture's
 * pixels) and a block's margin around it, the share whose reference (the
 * mean of its channels) lies within SETTLE_FLAT_LEVELS of their median: 1
 * for the flat bars of a phone's picture letterboxed on an HDMI output, far
 * under for a room filmed around a phone; NaN with no block outside or no
 * reference yet. */
#define SETTLE_FLAT_LEVELS 3.0
/* ... under this share, the picture around a phone is a room, no flat
 * border */
#define SETTLE_ROOM_FLAT 0.9
double settle_blocks_flat_outside(const SettleBlocks *b, const int box[4]);
/* The light between the picture old (3 channel means a block) and the one
 * judged last, b->sum, below the top band: sum = a * old + o for each
 * channel, fitted as the block test fits its reference (least squares
 * without the blocks far off, bounded); tmp holds 3 * nb floats. */
void settle_blocks_light(const SettleBlocks *b, const float *old, float *tmp, double a[3], double o[3]);

/* What each block did in the picture settle_blocks_frame judged last, a mark
 * per block: SETTLE_BLOCK_OVER over its threshold, SETTLE_BLOCK_TWICE over
 * twice it, SETTLE_BLOCK_FADING in a fade's run (the fade test),
 * SETTLE_BLOCK_LONE over it on a picture the lone-pair rule counted,
 * SETTLE_BLOCK_AREA in a split pair, or in a run of blocks along one row, on a
 * picture the split-line rule counted, SETTLE_BLOCK_LINE in the run of a
 * picture the line test counted.
 * mark: nb. */
#define SETTLE_BLOCK_OVER 1
#define SETTLE_BLOCK_TWICE 2
#define SETTLE_BLOCK_FADING 4
#define SETTLE_BLOCK_LONE 8 /* over its threshold on a picture the lone-pair rule counted */
/* the share of its threshold over which a block counts in the split-line
 * rule (src/measure_blocks.c) */
#define SETTLE_BLOCK_AREA_SHARE 0.5
#define SETTLE_BLOCK_AREA 16 /* in a split pair or a row's run on a picture the split-line rule counted */
#define SETTLE_BLOCK_LINE 32 /* in the run of blocks the line test counted (src/blocks_line.c) */
void settle_blocks_marks(const SettleBlocks *b, uint8_t *mark);

/* The verdict settle_blocks_frame gives from such marks (where some blocks
 * may have been left out: --ignore animated): *change and *bar as
 * SettleBlocksFrame's change and change_bar; *fade: a picture that was
 * judged a fade (was_fade) still is, with no change, from the fading blocks
 * marked. */
void settle_blocks_verdict(const SettleBlocks *b, const uint8_t *mark, int was_fade, int *change,
                           int *bar, int *fade);

#endif
