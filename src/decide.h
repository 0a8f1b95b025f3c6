/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The decide stage: from the measures alone (records), the noise floor, the
 * codec refresh filter, the start rules, the two stability trackers (diff and
 * entropy, side by side so that the method can be chosen at the end without a
 * second pass), the choice of the method and the stable frame.
 */
#ifndef SETTLE_DECIDE_H
#define SETTLE_DECIDE_H

#include <stddef.h>
#include <stdint.h>

#include "settle/settle.h"
#include "record.h"
#include "settle_quiet.h"

#define SETTLE_MAX_WINDOW 120
/* the frames before a keyframe that judge it part of a fade (decide.c) */
#define SETTLE_FADE_STEPS 2
/* Diff-count histogram for the noise floor: exact below 64, then 16 bins an octave. */
#define SETTLE_FLOOR_BINS (64 + 16 * 40)

/* The stability decision for one method, fed frame by frame. */
typedef struct SettleTracker {
    int64_t start_frame;   /* -1 until the start is found */
    double start_time;     /* the start: --start SECONDS, or the start frame's time */
    double start_frame_time;
    int64_t first_change;  /* first non-quiet frame after the start, -1 if none */
    double first_change_time;
    int64_t last_change;   /* last non-quiet frame after the start, -1 if none */
    double last_change_time;
    int64_t settled;       /* the frame showing the picture last_change settled on */
    double settled_time;
    SettleBox last_box;    /* the change of last_change */
    SettleQuiet quiet;     /* --settle (src/settle_quiet.c) */
    int64_t last_frame;
} SettleTracker;

typedef struct SettleHistory {
    int64_t index;
    double time;
    double entropy;
} SettleHistory;

/* How many frames back a frame's changed-pixel count is compared with: an
 * encoder coding its frames in a fixed pattern of types (x264's B-frames:
 * P B B B) flickers between codings in that pattern */
#define SETTLE_REPEAT_LAG 8
/* ... and a capture in which one frame in SETTLE_REPEAT_SHARE (or more)
 * changes exactly as many pixels as one of those is no camera's, whatever
 * its noise floor (settle_decide_camera and the decoder's test on the
 * full-size luma) */
#define SETTLE_REPEAT_SHARE 4
/* ... and SETTLE_REPEAT_MIN of them at least (two rounds of x264's four
 * frame types: a camera's counts meet one of the eight before now and then,
 * 10 of 84 frames of the decoder's sample of a camera film at most on the
 * accuracy grid) */
#define SETTLE_REPEAT_MIN 8
#define SETTLE_REPEATING(rep, n) ((rep) >= SETTLE_REPEAT_MIN && (rep) * SETTLE_REPEAT_SHARE >= (n))

/* The late-content rule's state (SettleDecide's lt, described there). */
typedef struct SettleLate {
    int64_t late, late_end;
    int late_box[4];
    double late_time, late_peak;
    int64_t late_blocks, late_moved, late_diff, kept_end;
    int late_refresh, late_recoded;
    double block_last_time;
    int skipped;
} SettleLate;

typedef struct SettleDecide {
    const SettleSettings *s;
    double diff_limit;     /* effective diff threshold in pixels */
    int64_t refresh_limit; /* most strongly-changed pixels a codec refresh may have */

    /* entropy history since the start or the last codec refresh */
    SettleHistory ring[SETTLE_MAX_WINDOW];
    int ring_len, ring_pos;

    int64_t marker_first;      /* frame index, -1 when not seen */
    int64_t common_start;      /* start for rules that do not depend on the method */
    double common_start_time;

    SettleTracker tr[SETTLE_T_COUNT]; /* one for each way of telling a change */
    int which;                 /* the tracker decided on */
    int bar_out;               /* the diff trackers were decided again with the status
                                * bar left out (set by the caller, src/lib.c) */
    /* a landscape picture of a phone filmed in a room
     * (settle_decide_phone_in_room): judged as a portrait one, with the
     * rectangle of its strong changes (x0, y0, x1, y1) and the share of
     * flat blocks around it */
    int phone_room;
    int phone_box[4];
    double phone_flat;
    /* a pixel changed strongly in the top band (set by the caller at the
     * end, src/lib.c): the screen's picture reaches the top of the capture's */
    int strong_top;
    /* the block test: what auto needs to know of it */
    int portrait;              /* the measured rectangle is taller than wide (a phone) */
    int blocks_on;             /* the block test runs: its verdicts are in the records */
    int bar_rows;              /* rows of blocks judged apart at the top */
    int64_t bar_frames;        /* frames in which only the top band changed */
    int64_t edge_frames;       /* frames in which only the right edge changed (of what the
                                * block test judges; left out) */
    int64_t foot_frames;       /* frames in which the bottom rows changed with no content
                                * elsewhere (left out) */
    int64_t faint_frames;      /* diff changes that the block test judged not content */
    int64_t last_hard;         /* last strong diff change not only in the top band */
    int64_t last_spread;       /* last diff change not only in the top band whose changed
                                * pixels' rectangle covers a sixteenth of the picture or more */
    /* the last frame where the block test saw a block below the top band
     * move by far more than its threshold (content filling a block), with
     * that frame's time, peak and diff count */
    int64_t strong_block;
    double strong_block_time, strong_block_peak;
    int64_t strong_block_diff;
    int strong_block_refresh;  /* diff took that frame for a codec refresh */
    /* the last frame where the block test saw a content change below the
     * top band that did not bring the picture back to what it was (not a
     * revert) and that is not a codec refresh diff took right after the
     * block test's change before (REFRESH_PAUSE), with its time, peak, blocks
     * over their threshold, the blocks it moved from the picture before,
     * diff's count and whether diff took it for a refresh: the late-content
     * rule; kept_end: of those blocks, the ones the last frame still shows
     * moved (late_recoded: the block test's last change is such a refresh
     * right after that frame, so they are read from the change before the
     * last); block_last_time: the time of the block test's last change;
     * late_end: the last frame of the content fading in that follows that
     * change frame by frame (block_fade) in its place and by at least
     * half its pixels, else the change's own frame; late_box: the change's
     * rectangle (SettleRecord's box) */
    SettleLate lt;
    /* the same with the keyframes diff took for a codec refresh in which no
     * block moved by BLOCK_STRONG times its threshold not counted as the
     * block test's changes, as blk_screen's trackers below (lt_kf.skipped:
     * such keyframes since its late change) */
    SettleLate lt_kf;
    /* the block test's trackers (SETTLE_T_BLOCKS, SETTLE_T_BLOCKS_NOBAR)
     * without the keyframes diff took for a codec refresh in which no block
     * moved by BLOCK_STRONG times its threshold: what a screen's encoder
     * does to a still picture (the late-content rule reads them on a clean
     * capture only); keyframe_quiet: the block test's decision is read so
     * (set by the method choice, kept by settle_decide_redo_blocks_frame) */
    SettleTracker blk_screen[2];
    int keyframe_quiet;
    double last_time;          /* the time of the last frame decided on */
    uint64_t floor_hist[SETTLE_FLOOR_BINS];
    int64_t floor_n;
    int64_t npix;              /* the measured rectangle's pixels */
    int64_t local_frames;      /* of floor_n, frames changing over a quarter of the diff
                                * threshold within a sixteenth of the picture, or in the
                                * status bar alone for the block test: something moving
                                * in one place (a spinner, a recording pill), not a
                                * camera's noise */
    int64_t repeat_frames;     /* of floor_n, frames changing over a quarter of the diff
                                * threshold by exactly as many pixels as a frame of the
                                * last SETTLE_REPEAT_LAG did (an encoder's flicker) */
    int64_t recent[SETTLE_REPEAT_LAG]; /* the last frames' changed pixels, -1: none */
    int recent_pos;
    int64_t refreshes;
    int since_event;           /* frames since a faint keyframe */
    int prev_keyframe;         /* the frame before was a keyframe */
    int fade_steps;            /* frames in a row up to the last in which the block test
                                * saw content fading in, each faint (filter_refresh) */
    int faint_steps;           /* frames in a row up to the last that changed more pixels
                                * than diff's threshold, none beyond the strong level, no
                                * codec refresh; the pixels the last SETTLE_FADE_STEPS of
                                * them changed (faint_recent[0] the last) */
    int64_t faint_recent[SETTLE_FADE_STEPS];
    double copy_from;          /* the time of the first of the frames up to the last that
                                * copied the page: no pixel below the top band changed, or
                                * stray ones in a frame between two that changed none
                                * (INFINITY: the last one changed more) */
    int64_t page_prev;         /* the pixels the frame before changed below the top band */
    int64_t last_key;          /* the last keyframe's index */
    int64_t inter_frames;      /* frames the decoder did not call keyframes: an encoder
                                * coding frames from others (x264, VP8, VP9), which
                                * re-codes a still page in them */
    int prev_solid;            /* the frame before changed more than an encoder re-coding */
    int64_t last_still;        /* the last frame still as measured (diff), -1: none */
    int64_t finish;            /* the last frame that only finished the change before it
                                * (faint, right after it: counted on a landscape picture),
                                * -1: none */
    SettleTracker before_finish; /* SETTLE_T_DIFF_SOLID before that frame */
    int64_t solid_last;        /* the last frame SETTLE_T_DIFF_SOLID counted, -1: none */
    int64_t hard_solid;        /* the last such frame with pixels beyond the strong level,
                                * -1: none (refined) */
    int hard_box[4];           /* its changed pixels' rectangle, x0, y0, x1, y1 */
    double solid_last_time;
    /* the rectangle (x0, y0, x1, y1) of the run of consecutive frames up to
     * solid_last and its largest frame's changed pixels; 1 when a frame
     * diff counted after that run moved a pixel beyond the strong level or
     * a 4x4 square's mean, lay outside it or changed more than a
     * CONVERGE_PART of that (settle_decide_frame; desktop_recoded) */
    int run_box[4];
    int64_t run_pixels;
    int tail_wide;
    double run_pause;          /* the still time before its run of consecutive changes */
    double finish_pause;       /* run_pause when the frame `finish` came */
    /* a fade's last steps refined by the encoder (fade_refined): frames in
     * a row that both diff and the block test counted, with the last one's
     * changed pixels and block peak; the last frame of such a run of CONVERGE_RUN or more
     * (-1: none, or a change came after it that is no refinement), its
     * pixels and peak, the last refinement after it and SETTLE_T_DIFF_SOLID as it
     * was at the run's end */
    int fade_run;
    int64_t fade_run_pixels;
    double fade_run_peak;
    int64_t conv_from, conv_pixels, conv_last;
    double conv_peak, conv_last_time;
    SettleTracker before_conv;
    int still_first;           /* after SETTLE_T_DIFF_SOLID's last change: 0 nothing yet,
                                * 1 a frame still as measured came first, 2 a change */
    char reason[768];          /* why the method was chosen */
    /* a reduced picture (SettleSettings.scale) hides the noise the floor
     * measures: the decoder's verdict on the full-size luma instead, 1
     * camera-like, 0 clean, -1 none (the floor decides), with its floor
     * (pixels, 10th percentile) and the reduction */
    int camera_luma;
    double luma_floor;
    int luma_scale;
    /* a frame's entropy left for later (NaN in its record, the reading
     * stage's settle_frame_entropy): measured by entropy_of(entropy_opaque,
     * index) when the refresh filter reads a delta that needs it; NULL: none
     * is left for later (settle_decide_begin) */
    double (*entropy_of)(void *opaque, int64_t index);
    void *entropy_opaque;
} SettleDecide;

/* Readies d for a new capture under settings s (kept by pointer: they must
 * outlive d's use). */
void settle_decide_begin(SettleDecide *d, const SettleSettings *s);

/* The thresholds that depend on the measured rectangle's npix pixels. */
void settle_decide_set_area(SettleDecide *d, int64_t npix);

/* The measured rectangle's shape and the block test's top band (rows of
 * blocks), for the method choice; blocks_on: whether the block test runs
 * (its verdicts then also decide --start first-change). */
void settle_decide_set_shape(SettleDecide *d, int w, int h, int bar_rows, int blocks_on);

/* Whether the decision may read the entropy of frame `index` (the next one;
 * a keyframe or not) once a later frame came, given whether a keyframe
 * comes within the s->window frames after it (key_ahead: 1 then, or when not
 * known; the reader may say 1 a few frames earlier): the codec refresh
 * filter compares the frames at a keyframe and the two after with the
 * window before them. A frame's own entropy, when the filter reads it and it
 * was not measured, is measured then (entropy_of), so the last frame after a
 * keyframe is not one of these. Every other reader (the entropy method, the
 * per-frame records) wants every frame's. */
int settle_decide_reads_entropy(const SettleDecide *d, int64_t index, int keyframe,
                                int key_ahead);

/* Decides on one record, frames in order (first: the capture's first):
 * fills r->delta, r->refresh and r->quiet, and moves the start and the
 * trackers on. */
void settle_decide_frame(SettleDecide *d, SettleRecord *r, int first);

/* The 10th percentile of the changed-pixel counts: what a quiet frame of this
 * capture looks like; NaN before any. */
double settle_decide_noise_floor(const SettleDecide *d);

/* The method the records so far (`frames` of them) would choose (a
 * SETTLE_T_), for a caller deciding while the pictures arrive; with
 * --method auto it can change until the end. */
int settle_decide_method(SettleDecide *d, int64_t frames);

/* The capture, a landscape picture, is a phone filmed in a room: every
 * strong change lies in the upright rectangle box (x0, y0, x1, y1) and the
 * picture around it is no flat border (flat: the share of its blocks near
 * their median, settle_blocks_flat_outside). The method is then chosen as
 * for a portrait picture (a phone's), and its reason says so. Called before
 * the choice at the end of the capture. */
void settle_decide_phone_in_room(SettleDecide *d, const int box[4], double flat);

/* The diff method's decision (both diff trackers: SETTLE_T_DIFF and
 * SETTLE_T_DIFF_SOLID) again from the first record (--ignore animated):
 * settle_decide_redo_begin, then settle_decide_redo_frame for each record in
 * order, with r->quiet[SETTLE_T_DIFF] and r->quiet[SETTLE_T_DIFF_SOLID] as
 * they should now count. */
void settle_decide_redo_begin(SettleDecide *d);
void settle_decide_redo_frame(SettleDecide *d, const SettleRecord *r);
/* The same for the block test's tracker `which` (SETTLE_T_BLOCKS or
 * SETTLE_T_BLOCKS_NOBAR), with r->block_change, r->block_bar and
 * r->block_fade as they should now count (the frame's quiet is set from
 * them). */
void settle_decide_redo_blocks_begin(SettleDecide *d, int which);
void settle_decide_redo_blocks_frame(SettleDecide *d, int which, SettleRecord *r);

/* What the capture as a whole says. */
typedef struct SettleCaptureEnd {
    int64_t frames;        /* records decided on */
    double last_time;      /* the last frame's time */
    double duration;       /* to the end of the last frame */
} SettleCaptureEnd;

/* Whether the capture is camera-like by its noise floor, and whether the
 * block test leaves the status bar out. */
int settle_decide_camera(const SettleDecide *d, double floor);
/* 1 when the decided frame r of an inter-coded capture (the codec
 * filter on) changed content under the threshold alone (its strong pixels and
 * moved cells together under it, no fade, no more blocks moved than those
 * pixels can move: a caret's blink) and diff counted it over the threshold
 * only with the encoder's faint re-coding of the page around it. */
int settle_decide_under_limit(const SettleDecide *d, const SettleRecord *r);
int settle_decide_bar_left_out(const SettleDecide *d, double floor);

/* The decision at the end of the capture by the method `which` (a SETTLE_T_,
 * from settle_decide_method on all the records, before any
 * settle_decide_redo_begin: leaving animated areas out redoes the diff
 * or block decision, not the choice of method): fills r's method, method_reason
 * (pointing into d, valid until the next settle_decide_begin), start,
 * stable frame, load time, quiet tail, deciding change, longest quiet
 * (--settle), and the first and last change by the chosen method. Returns
 * 0, or SETTLE_ERR_TOO_SHORT, SETTLE_ERR_NO_START or SETTLE_ERR_NOT_STABLE
 * with the reason in msg (len bytes). */
int settle_decide_finish(SettleDecide *d, int which, const SettleCaptureEnd *e, SettleResult *r,
                         char *msg, size_t len);

#endif
