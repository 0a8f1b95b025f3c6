/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The decide stage: the records alone in, the start and the stable frame
 * out. Both trackers run on every frame so that the method can be chosen from
 * the whole capture at the end.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "box.h"
#include "cells.h"
#include "decide.h"
#include "measure_blocks.h"

/* Frames after a faint keyframe that may still be the encoder converging. */
#define REFRESH_FOLLOWERS 2
/* A block whose mean moved by this many times its threshold (40 levels at
 * the 10-level floor) was filled by new content: rows of text, an image, a
 * view sliding in move the blocks they cover by 7 to 20 times the threshold
 * on camera films and re-encoded phone recordings; what is not content stays
 * under 2 (an encoder re-coding, exposure left over from the fit, a touch
 * indicator's thin ring, a status bar's pill) */
#define BLOCK_STRONG 4.0
/* A keyframe whose pixels beyond the strong level are at most a
 * KEY_SCATTER_PART of the threshold, fewer than KEY_SCATTER to a cell they
 * lie in, is the encoder's (filter_refresh) */
#define KEY_SCATTER_PART 4
#define KEY_SCATTER 4
/* ... and auto trusts the block test over diff's threshold only when the
 * picture then stays still this long: blocks filled up to the last second
 * are an animation (an advert, a carousel) or a capture stopped too early,
 * which diff's threshold is there to ride over */
#define BLOCK_QUIET_MIN 1.0
/* seconds without a change before the change that a recording's last frame
 * only finishes (desktop_recoded) */
#define FINISH_PAUSE 0.25
/* seconds without a change the block test saw before a keyframe diff took
 * for a codec refresh, after which blocks over their threshold there may be
 * late content: an encoder re-codes a picture it just drew at its next
 * keyframe, one it has coded for a while it changes less (seed 97's case012,
 * 1 frame after the page; seed 19's case062, 13 frames at 30 fps) */
#define REFRESH_PAUSE 0.25
/* seconds of the encoder's re-coding alone, up to the recording's end, after
 * which diff without it is taken even with no frame still as measured after
 * its last change (desktop_recoded; on a phone, choose_method's re-code rule
 * when no pixel moved strongly in it) */
#define RECODE_TAIL 0.5
/* frames after a landscape picture's strong change in which the encoder may
 * still refine what that change drew (refined): VP9 codes a carousel's new
 * slide coarsely at its edges and sharpens them two frames later, moving a
 * few 4x4 squares' means by 45 levels with no pixel beyond the strong level
 * (screens seed 263's 025) */
#define REFINE_FRAMES 3
/* An encoder coding frames from others lags a fade: its last steps are
 * refined over the next frames (x264's B-frames), faintly and in a part of
 * the area, the edges and coding blocks of what faded in, while a fade's
 * own steps change its whole area each frame. A frame is such a refinement
 * within CONVERGE_FRAMES of the end of a run of CONVERGE_RUN or more frames
 * that both diff and the block test counted, when it moves no pixel beyond
 * the strong level and no 4x4 square's mean, and changes at most
 * 1/CONVERGE_PART of the pixels of the run's last frame, no block by
 * CONVERGE_PEAK times its threshold, and, on a capture the camera test
 * calls a camera's so far, its blocks by at most half as much as that frame
 * did (its peak). On the nine accuracy grids a fade's real last steps change
 * as many pixels as the steps before (257's case021: 45,885 against 45,571;
 * 229's case053 79,042 against 80,392), or as much of the blocks (271's
 * case062, a camera film into a dark page: 7,642 pixels against 23,096, but
 * a peak of 1.13 against 1.26); the refinements 5,690 against 20,368 pixels
 * and 1.51 against 3.61 (277's case062), 8,867 against 178,241 and 1.34
 * against 3.56 (269's case013). A clean capture's blocks have no noise to
 * stand out of: their threshold is the floor of 10 levels, which x264's
 * B-frames at q33 catching up on a screen's fade tip by 1.65 and 1.46
 * against the last step's 2.13, changing 13,679 and 11,279 pixels against
 * its 59,987, none beyond 24 levels (held-out seed 333's case115,
 * fadeconv41) */
#define CONVERGE_RUN 3
#define CONVERGE_FRAMES 3
#define CONVERGE_PART 3
#define CONVERGE_PEAK 2.0
/* The fewest changed pixels that can move a 16x16 block's mean by the block
 * test's floor of 10 levels (256 x 10 / 255): the blocks a few strong pixels
 * can account for (a caret's blink moves one block with 60) */
#define BLOCK_MIN_PIXELS 10
/* A block change on a frame that changed fewer than BLOCK_MIN_PIXELS
 * pixels beyond the tolerance (against the frame before) for each block it
 * moved, with no content fading in there and none in the top band, is no
 * change of this frame's: its blocks moved against the block test's
 * reference, which follows the picture slowly, by what came before, under
 * the tolerance frame by frame: the light drifting or flickering, and an
 * encoder coding it a little at a time. Content that comes that slowly is a
 * fade, which the fade test sees (block_fading). On the landscape grid of
 * seed 229, case013 (x264 at q33, 24 fps, 50 Hz mains): block changes every
 * third frame from 44 to 71, 55 to 154 blocks at 1.7 to 2.3 times their
 * threshold, with 0 to 30 pixels changed beyond the tolerance; case068
 * (VP9 at q32) the same after its last change (drift44). */
static int drift_only(const SettleRecord *r)
{
    return r->block_change && !r->block_fading && !r->block_bar &&
           r->diff < (int64_t)r->blocks_changed * BLOCK_MIN_PIXELS;
}

/* The most 16x16 cells a phone's content under the threshold may hold its
 * strong pixels in and still pass for one small thing the encoder re-coded
 * the page with (under_limit): a block's worth. A caret's blink lies in one
 * or two; a thin line of text, which moves no block's mean by much either,
 * spreads its strong pixels over a row of ten or more (doc/screens.md,
 * screens20) */
#define STRONG_CELLS 4
/* The frames in a row before a faint keyframe in which the block test saw
 * content fading in (its fade test: an area of blocks moving the same way
 * step after step, whether or not their steps passed the block test's
 * threshold), none with more pixels beyond the strong level than a codec
 * refresh has, after which the keyframe, if the fade test sees the fade on
 * it too, goes on with their change (filter_refresh). Seed 311's case080: a
 * text page fades in over 12 frames (17 thousand pixels a step, every one
 * the same way), the block test sees the fade from 54; x264's keyframe lands
 * on the eleventh step (60: the step and the page re-coded, 36,866 pixels)
 * and the last step (61) follows it: both are the fade, not a refresh. Seed
 * 315's case118: a splash cross-fades to its page in steps at 56-62, 181-188
 * thousand pixels each, none beyond the strong level; the steps move 442-908
 * blocks past their threshold (block_change, no block_fade), and the fade
 * test sees 361-441 blocks fading from 58, none moving back; x264's keyframe
 * at 60 is the fifth step. A page animating on a keyframe (an advert on
 * Eideticker's Fennec CNN HDMI captures, VP8 keyframes every 12 frames)
 * changes blocks, but not as a fade does: the fade test never sees it on
 * a keyframe and the two frames before, and its keyframes stay refreshes */
#define FADE_STEPS SETTLE_FADE_STEPS

static void tracker_init(SettleTracker *t, double settle)
{
    t->start_frame = -1;
    t->start_time = t->start_frame_time = NAN;
    t->first_change = t->last_change = t->settled = -1;
    t->first_change_time = t->last_change_time = t->settled_time = NAN;
    t->last_frame = -1;
    t->last_box.frame = -1;
    t->last_box.w = t->last_box.h = 0;
    settle_quiet_init(&t->quiet, settle);
}

void settle_decide_begin(SettleDecide *d, const SettleSettings *s)
{
    d->s = s;
    d->diff_limit = 0;
    d->refresh_limit = 0;
    d->ring_len = d->ring_pos = 0;
    d->marker_first = -1;
    d->common_start = -1;
    d->common_start_time = NAN;
    memset(d->floor_hist, 0, sizeof(d->floor_hist));
    d->floor_n = 0;
    d->local_frames = 0;
    d->repeat_frames = 0;
    for (int i = 0; i < SETTLE_REPEAT_LAG; i++)
        d->recent[i] = -1;
    d->recent_pos = 0;
    d->camera_luma = -1;
    d->luma_floor = NAN;
    d->luma_scale = 1;
    d->refreshes = 0;
    d->since_event = REFRESH_FOLLOWERS + 1;
    d->last_key = INT64_MIN / 2;
    d->prev_keyframe = 0;
    d->fade_steps = 0;
    d->faint_steps = 0;
    memset(d->faint_recent, 0, sizeof(d->faint_recent));
    d->copy_from = INFINITY;
    d->page_prev = 0;
    d->inter_frames = 0;
    d->prev_solid = 0;
    d->last_still = -1;
    d->finish = d->solid_last = d->hard_solid = -1;
    d->run_pixels = 0;
    d->tail_wide = 0;
    settle_box_set(d->run_box, 0, 0, 0, 0);
    d->still_first = 0;
    d->fade_run = 0;
    d->fade_run_pixels = d->conv_pixels = 0;
    d->conv_from = d->conv_last = -1;
    d->fade_run_peak = d->conv_peak = 0;
    d->conv_last_time = NAN;
    tracker_init(&d->before_conv, s->settle);
    d->solid_last_time = d->run_pause = d->finish_pause = NAN;
    for (int i = 0; i < SETTLE_T_COUNT; i++)
        tracker_init(&d->tr[i], s->settle);
    d->which = SETTLE_T_DIFF;
    d->bar_out = 0;
    d->phone_room = 0;
    d->strong_top = 0;
    d->portrait = d->bar_rows = d->blocks_on = 0;
    d->bar_frames = d->faint_frames = d->edge_frames = d->foot_frames = 0;
    d->last_hard = -1;
    d->last_spread = -1;
    d->strong_block = -1;
    d->strong_block_time = d->strong_block_peak = NAN;
    d->strong_block_diff = 0;
    d->strong_block_refresh = 0;
    memset(&d->lt, 0, sizeof(d->lt));
    d->lt.late = d->lt.late_end = -1;
    d->lt.late_time = d->lt.late_peak = NAN;
    d->lt.block_last_time = -INFINITY;
    d->lt_kf = d->lt;
    tracker_init(&d->blk_screen[0], s->settle);
    tracker_init(&d->blk_screen[1], s->settle);
    d->keyframe_quiet = 0;
    d->last_time = NAN;
    d->entropy_of = NULL;
    d->entropy_opaque = NULL;
}

void settle_decide_set_shape(SettleDecide *d, int w, int h, int bar_rows, int blocks_on)
{
    d->blocks_on = blocks_on;
    d->portrait = h > w;
    d->bar_rows = bar_rows;
}

void settle_decide_set_area(SettleDecide *d, int64_t npix)
{
    const SettleSettings *s = d->s;
    d->diff_limit = s->diff_threshold_percent > 0 ? floor(npix * s->diff_threshold_percent / 100.0)
                                                  : s->diff_threshold;
    d->npix = npix;
    /* A keyframe whose strong changes stay under a tenth of the diff
     * threshold (and under 0.2 % of the picture) is codec noise. */
    int64_t lim = (int64_t)(d->diff_limit / 10);
    int64_t share = npix / 500;
    d->refresh_limit = lim < share ? lim : share;
    /* a floor for tiny thresholds, but never over 0.2 % of the picture:
     * on a 3x5 picture (all-intra codecs make every frame a keyframe) a
     * one-pixel change is content, not codec noise */
    if (d->refresh_limit < 16)
        d->refresh_limit = share < 16 ? share : 16;
}

static int floor_bin(int64_t v)
{
    if (v < 64)
        return (int)v;
    int oct = 0;
    while ((v >> (oct + 1)) >= 64)
        oct++;
    /* v in [64 << oct, 128 << oct) */
    int sub = (int)(((v - ((int64_t)64 << oct)) * 16) >> (oct + 6));
    int b = 64 + oct * 16 + sub;
    return b < SETTLE_FLOOR_BINS ? b : SETTLE_FLOOR_BINS - 1;
}

static double floor_bin_value(int b)
{
    if (b < 64)
        return b;
    int oct = (b - 64) / 16, sub = (b - 64) % 16;
    /* the middle of the bin */
    return ldexp(64.0 + (sub + 0.5) * 4.0, oct);
}

double settle_decide_noise_floor(const SettleDecide *d)
{
    if (!d->floor_n)
        return NAN;
    int64_t want = (d->floor_n + 9) / 10, seen = 0;
    for (int b = 0; b < SETTLE_FLOOR_BINS; b++) {
        seen += (int64_t)d->floor_hist[b];
        if (seen >= want)
            return floor_bin_value(b);
    }
    return floor_bin_value(SETTLE_FLOOR_BINS - 1);
}

/* The earliest frame of the recent history that already shows the picture
 * frame `idx` (entropy e) settled on: the rolling mean makes a step look
 * unsettled for up to `window` frames after it happened. */
static void walk_back(const SettleDecide *d, const SettleTracker *t, int64_t idx, double e,
                      double time, int64_t *out, double *out_time)
{
    *out = idx;
    *out_time = time;
    for (int k = 1; k < d->s->window && k < d->ring_len; k++) {
        const SettleHistory *hp =
            &d->ring[(d->ring_pos - 1 - k + 2 * SETTLE_MAX_WINDOW) % SETTLE_MAX_WINDOW];
        if (hp->index <= t->start_frame || fabs(hp->entropy - e) > d->s->entropy_threshold)
            break;
        *out = hp->index;
        *out_time = hp->time;
    }
}

static SettleBox record_box(const SettleRecord *r)
{
    SettleBox b = { .frame = r->index, .time = r->time, .x = r->box[0], .y = r->box[1],
                    .w = r->box[2], .h = r->box[3], .pixels = r->diff };
    return b;
}

/* Content for the block test: a change, or content fading in (many faint
 * steps the same way, which the block test alone takes for a re-code). */
static int block_content(const SettleRecord *r)
{
    return r->block_change || r->block_fade;
}

/* Whether frame r changed nothing of the picture but what an encoder
 * re-codes: no pixel beyond the strong level, no 4x4 square's mean moved by
 * SETTLE_CELL_MOVED (a spinner's turn or a pattern shifting keeps the blocks'
 * means, and its pixels may stay under the strong level), no block's mean
 * moved. Also a frame whose strong pixels and moved cells together stay
 * under the threshold, with no content fading in and no more blocks moved
 * than its strong pixels can move: content under the threshold (a caret's
 * blink, 60 pixels in one block) that the encoder re-coded the page with,
 * which diff counted over it (on a desktop page since screens16; on a phone
 * since screens18, where no block moved by BLOCK_STRONG times its threshold:
 * VP8 re-codes a phone's page with a 2x20 caret's blinks, while a phone's
 * content under the threshold fills blocks, which a blink does not; and
 * since screens20, where the strong pixels lie in STRONG_CELLS cells at
 * most: a late line of text fills no block, but its strong pixels run along
 * it, while an encoder's re-coding adds none). Also when its strong pixels
 * are as few as a refresh's but its moved cells or its blocks are not
 * (since underlimit42: a desktop page's spinner under the threshold, 207
 * strong pixels and 794 moved at half size, that x264 re-codes the page
 * with, 5,800 pixels: browsertime's reddit_chrome at 1366x768). */
static int under_limit(const SettleDecide *d, const SettleRecord *r, double limit)
{
    /* the part of encoder_only (below) for content under the threshold */
    return d->blocks_on && !r->block_bar && !r->block_fade && r->strong <= limit &&
           r->moved <= limit &&
           (int64_t)r->blocks_changed * BLOCK_MIN_PIXELS <= r->strong &&
           (!d->portrait || (r->block_peak < BLOCK_STRONG && r->strong_cells <= STRONG_CELLS));
}

static int encoder_only(const SettleDecide *d, const SettleRecord *r, double limit)
{
    if (!d->blocks_on || r->block_bar)
        return 0;
    if (r->strong <= d->refresh_limit && r->moved <= d->refresh_limit && !block_content(r))
        return 1;
    return under_limit(d, r, limit);
}

/* Whether frame r only refines the strong change of a landscape picture
 * REFINE_FRAMES or fewer frames before it: no pixel beyond the strong level
 * and no block over its threshold (a 4x4 square's mean may move: the edges
 * the encoder drew coarsely), all within that change's rectangle (a cell
 * around it). An encoder draws new content coarsely first and refines it
 * over the next frames; content that appears beside it, or moves a pixel
 * strongly, still counts, and a faint change that goes on past
 * REFINE_FRAMES counts from there. */
/* Whether frame r's changed pixels lie within b (x0, y0, x1, y1) and a cell
 * around it. */
static int within_cell(const SettleRecord *r, const int b[4])
{
    const int m = SETTLE_CELL;
    return r->box[0] >= b[0] - m && r->box[1] >= b[1] - m && r->box[0] + r->box[2] <= b[2] + m &&
           r->box[1] + r->box[3] <= b[3] + m;
}

static int refined(const SettleDecide *d, const SettleRecord *r)
{
    return d->blocks_on && !d->portrait && d->s->codec_filter && d->inter_frames > 0 &&
           d->hard_solid >= 0 && r->index - d->hard_solid <= REFINE_FRAMES &&
           r->strong <= d->refresh_limit && r->blocks_changed == 0 && !block_content(r) &&
           !r->block_bar && r->box[2] > 0 && within_cell(r, d->hard_box);
}

int settle_decide_under_limit(const SettleDecide *d, const SettleRecord *r)
{
    return d->s->codec_filter && d->inter_frames > 0 && !r->quiet[SETTLE_T_DIFF] &&
           under_limit(d, r, r->limit);
}

/* --start first-change: a change that starts the measurement is content for
 * the block test too. Phones' recorders re-code the whole still picture now
 * and then (many pixels by a few levels): diff and entropy count such a
 * frame, and would start seconds before the tap. */
static int starts(const SettleDecide *d, int which, int quiet, const SettleRecord *r)
{
    if (quiet)
        return 0;
    if (!d->blocks_on || which == SETTLE_T_BLOCKS || which == SETTLE_T_BLOCKS_NOBAR)
        return 1;
    return block_content(r) || r->block_bar;
}

/* Moves tracker t (of the kind `which`) on by frame r, quiet or not. */
static void tracker_step(SettleDecide *d, SettleTracker *t, int which, int quiet,
                         const SettleRecord *r)
{
    const SettleSettings *s = d->s;
    t->last_frame = r->index;
    if (t->start_frame < 0) {
        int found = s->start == SETTLE_START_FIRST_CHANGE ? starts(d, which, quiet, r)
                                                          : d->common_start == r->index;
        if (found) {
            t->start_frame = r->index;
            t->start_time = s->start == SETTLE_START_TIME ? s->start_time : r->time;
            t->start_frame_time = r->time;
            /* --settle: a start frame that changes is where loading began */
            SettleBox b = record_box(r);
            if (!quiet && s->settle > 0)
                settle_quiet_change(&t->quiet, &b, r->index, r->time);
        }
        return;
    }
    if (!quiet) {
        if (t->first_change < 0) {
            t->first_change = r->index;
            t->first_change_time = r->time;
        }
        t->last_change = r->index;
        t->last_change_time = r->time;
        /* the entropy method's rolling mean flags frames after a step that
         * change nothing: the step stays the change */
        if (r->box[2] > 0 || t->last_box.frame < 0)
            t->last_box = record_box(r);
        if (which == SETTLE_T_ENTROPY) {
            walk_back(d, t, r->index, r->entropy, r->time, &t->settled, &t->settled_time);
        } else {
            t->settled = r->index;
            t->settled_time = r->time;
        }
        if (s->settle > 0)
            settle_quiet_change(&t->quiet, &t->last_box, t->settled, t->settled_time);
    }
}

static void tracker_frame(SettleDecide *d, int which, const SettleRecord *r)
{
    tracker_step(d, &d->tr[which], which, r->quiet[which], r);
}

/* A keyframe diff took for a codec refresh (no pixel beyond the strong
 * level) in which no block moved by BLOCK_STRONG times its threshold: on a
 * clean capture the encoder re-coding a still picture, whatever blocks its
 * faint changes tipped over their threshold (a camera's keyframe re-codes
 * the noise and what lies under it alike: there the block test judges it) */
static int weak_refresh(const SettleRecord *r)
{
    return r->refresh && !(r->block_peak >= BLOCK_STRONG);
}

/* |entropy - the mean of the window before| (NaN when a frame's entropy was
 * left out). */
static double window_delta(const SettleDecide *d, const SettleRecord *r)
{
    int have = d->ring_len < d->s->window ? d->ring_len : d->s->window;
    double sum = 0;
    for (int k = 0; k < have; k++)
        sum += d->ring[(d->ring_pos - 1 - k + 2 * SETTLE_MAX_WINDOW) % SETTLE_MAX_WINDOW].entropy;
    return fabs(r->entropy - sum / have);
}

/* r's delta where the refresh filter reads it: the entropies left for later
 * (the frame's own, the window's) measured now. */
static double read_delta(SettleDecide *d, SettleRecord *r)
{
    if (!isnan(r->delta) || !d->entropy_of)
        return r->delta;
    if (isnan(r->entropy))
        r->entropy = d->entropy_of(d->entropy_opaque, r->index);
    int have = d->ring_len < d->s->window ? d->ring_len : d->s->window;
    for (int k = 0; k < have; k++) {
        SettleHistory *h = &d->ring[(d->ring_pos - 1 - k + 2 * SETTLE_MAX_WINDOW) % SETTLE_MAX_WINDOW];
        if (isnan(h->entropy))
            h->entropy = d->entropy_of(d->entropy_opaque, h->index);
    }
    r->delta = window_delta(d, r);
    return r->delta;
}

/* the fewest pixels the last FADE_STEPS faint steps changed */
static int64_t faint_least(const SettleDecide *d)
{
    int64_t least = d->faint_recent[0];
    for (int k = 1; k < FADE_STEPS; k++)
        least = d->faint_recent[k] < least ? d->faint_recent[k] : least;
    return least;
}

/* Encoders re-code a still picture at a keyframe and converge on it over the
 * next frames: thousands of pixels move, but only faintly. Content that
 * appears on a screen moves pixels by far more. (Faint frames after a big
 * change that is not a keyframe are not judged: a skeleton's shimmer is as
 * faint as an encoder converging, and it is real.) */
static void filter_refresh(SettleDecide *d, SettleRecord *r, double limit)
{
    int faint = r->strong <= d->refresh_limit;
    /* In an all-intra stream (MJPEG, FFV1, ProRes, raw: every frame a
     * keyframe) each frame is coded alone and a still picture is coded the
     * same each time, so a keyframe there is no re-coding: only a keyframe
     * after a frame that was not one is. */
    int event = r->keyframe && !d->prev_keyframe;
    /* a keyframe at a low quality on a large picture moves more pixels
     * beyond the strong level than a tenth of the threshold, but scattered,
     * one or two in a cell (x264 at CRF 35 on a 1080x1920 page: 873 in 535
     * cells), where content's are many to a cell (a line of text's edges),
     * and with no block moved by BLOCK_STRONG times its threshold (key42) */
    if (event && !faint && d->blocks_on && r->strong <= limit / KEY_SCATTER_PART &&
        r->strong < KEY_SCATTER * (int64_t)r->strong_cells && r->block_peak < BLOCK_STRONG)
        faint = 1;
    /* a keyframe within a fade: the fade test sees the fade on it and on
     * the FADE_STEPS frames before it, each faint as the keyframe (the
     * block test may count the steps as changes): the picture was still
     * changing, the same way, and an encoder re-codes a still one */
    if (r->block_fading && d->fade_steps >= FADE_STEPS)
        faint = 0;
    /* nor a keyframe within a faint change that goes on as diff measures it
     * (the FADE_STEPS frames before it each changed more pixels than its
     * threshold, faintly, and at least half the keyframe's pixels):
     * a splash cross-fading to its page over 10 frames, 170 thousand
     * pixels a step, none beyond the strong level, whose blocks move too far
     * for the fade test to see all its steps (held-out seed 331's case028,
     * x264's keyframe on the ninth step). Only the last steps count: a
     * recorder that repeats frames leaves copies between the fade's steps
     * that the encoder re-codes by a few thousand pixels (held-out seed
     * 337's case116: 5,000-8,600 between 170-thousand steps, the keyframe
     * on the last step but one). An encoder re-codes a still picture, not
     * one still changing; a camera's noise changes every frame faintly, and
     * there a keyframe stays the encoder's */
    if (event && d->faint_steps >= FADE_STEPS && 2 * faint_least(d) >= r->diff &&
        !settle_decide_camera(d, settle_decide_noise_floor(d)))
        faint = 0;
    d->prev_keyframe = r->keyframe;
    d->inter_frames += !r->keyframe;
    if (event)
        d->since_event = faint ? 0 : REFRESH_FOLLOWERS + 1;
    else if (!faint)
        d->since_event = REFRESH_FOLLOWERS + 1;
    else if (d->since_event <= REFRESH_FOLLOWERS)
        d->since_event++;
    int eligible = faint && d->since_event <= REFRESH_FOLLOWERS;
    if (d->s->codec_filter && eligible &&
        (r->diff > limit || read_delta(d, r) > d->s->entropy_threshold)) {
        r->refresh = 1;
        d->refreshes++;
        d->ring_len = 0; /* the entropy baseline restarts from the re-coded picture */
    }
}

/* The start rules that do not depend on the method. */
static void common_start(SettleDecide *d, const SettleRecord *r)
{
    const SettleSettings *s = d->s;
    int is_marker = r->marker >= s->marker_coverage;
    switch (s->start) {
    case SETTLE_START_FIRST_FRAME:
        d->common_start = r->index;
        break;
    case SETTLE_START_TIME:
        if (r->time >= s->start_time - 1e-6)
            d->common_start = r->index;
        break;
    case SETTLE_START_MARKER:
        if (is_marker)
            d->common_start = r->index;
        break;
    case SETTLE_START_MARKER_END:
        if (is_marker && d->marker_first < 0)
            d->marker_first = r->index;
        else if (!is_marker && d->marker_first >= 0)
            d->common_start = r->index;
        break;
    default:
        break;
    }
    if (d->common_start >= 0)
        d->common_start_time = s->start == SETTLE_START_TIME ? s->start_time : r->time;
}

/* Whether a frame changed exactly as many pixels as one of the
 * SETTLE_REPEAT_LAG before it. An encoder re-coding a still page codes it
 * the same way in every frame of a type: x264 with B-frames flickers between
 * its P-frames' and its B-frames' coding of a striped page, 187 and 1577
 * pixels in a 4-frame rhythm, again and again. A camera's sensor noise is
 * drawn anew in every frame: hundreds or thousands of pixels whose count
 * does not come back exactly. */
static int repeats(const SettleDecide *d, int64_t diff)
{
    for (int i = 0; i < SETTLE_REPEAT_LAG; i++)
        if (d->recent[i] == diff)
            return 1;
    return 0;
}

int settle_decide_reads_entropy(const SettleDecide *d, int64_t index, int keyframe,
                                int key_ahead)
{
    /* filter_refresh: frames at and REFRESH_FOLLOWERS after a keyframe
     * against the window before them; the last of them is in no later
     * frame's window, and its own entropy is measured when read
     * (entropy_of) */
    return d->s->codec_filter &&
           (keyframe || key_ahead || index - d->last_key < REFRESH_FOLLOWERS);
}

/* Whether two rectangles (x, y, w, h) share a pixel. */
static int boxes_meet(const int a[4], const int b[4])
{
    return a[2] > 0 && a[3] > 0 && b[2] > 0 && b[3] > 0 && a[0] < b[0] + b[2] &&
           b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];
}

/* The late-content rule's frame (d->lt.late) and how many of its blocks stay. */
static void track_late(SettleDecide *d, SettleLate *l, const SettleRecord *r)
{
    /* a keyframe diff took for a codec refresh, right after a change the
     * block test saw, is the encoder re-coding the picture that change just
     * drew (x264 with B-frames: the page, then a keyframe moving 5 blocks
     * 1.5 times their threshold); after REFRESH_PAUSE without one, the
     * encoder had coded the picture already, and blocks over their
     * threshold there are content that landed on the keyframe, which the
     * late-content rule judges as any other (it must stay). Whether the
     * change before such a re-coding stays is read off that change's own
     * blocks, not the re-coding's (seed 269's case078: late images, then
     * x264's keyframe one frame after, which moves 2 of their blocks).
     * Nor is a weak refresh (no block moved by BLOCK_STRONG times its
     * threshold) late content, however long after the change before, when
     * for REFRESH_PAUSE or more before it the page was copied (no pixel
     * below the top band changed, but for stray ones in a frame between
     * two that changed none: the status bar's pill may pulse): the encoder
     * had stopped coding it, and what the
     * keyframe changes is what its frames before left of the last change
     * (seed 311's case007: x264 at CRF 33 leaves a fade's last steps up to
     * 11 levels short in a block's mean; the keyframe 32 frames later, 0.53 s,
     * brings them to the page, 57,865 pixels, 8 blocks at 1.43 times their
     * threshold). A camera's noise keeps the encoder coding the picture
     * frame after frame, and content that lands on a keyframe there stays
     * late content (seed 19's case062) */
    int late_last = l->late >= 0 && l->late_time == l->block_last_time;
    int recode = weak_refresh(r) && r->time - d->copy_from >= REFRESH_PAUSE;
    if (r->block_change)
        l->late_recoded = 0;
    if (r->block_change && !r->block_revert && !recode &&
        (!r->refresh || r->time - l->block_last_time >= REFRESH_PAUSE)) {
        l->late = l->late_end = r->index;
        memcpy(l->late_box, r->box, sizeof(l->late_box));
        l->late_time = r->time;
        l->late_peak = r->block_peak;
        l->late_blocks = r->blocks_changed;
        l->late_moved = r->block_kept;
        l->late_diff = r->diff;
        l->late_refresh = r->refresh;
    } else if (r->block_change && !r->block_revert && late_last) {
        l->late_recoded = 1;
    } else if (r->block_fade && l->late >= 0 && l->late_end == r->index - 1 &&
               r->diff * 2 >= l->late_diff && boxes_meet(r->box, l->late_box)) {
        /* content fading in, frame after frame, right after the late change
         * and where it was, each step as large (a row that appears, then
         * fades in over 150 ms on a phone filmed by a camera: its steps are
         * under diff's threshold, and the block test takes them for a fade,
         * not a change): the same content, which ends with the fade. A
         * recorder re-coding the page after its last change fades too, but
         * all over the picture and ever fainter (browsertime's
         * sitespeed_android: from 1,799 pixels to 55 in 10 frames) */
        l->late_end = r->index;
    }
    if (r->block_change)
        l->block_last_time = r->time;
    if (r->block_change)
        l->skipped = 0;
    /* after block changes this state does not count (lt_kf's weak
     * refreshes), its change's blocks are the block test's change before
     * the last when one was skipped, unknown after more */
    if (l->skipped)
        l->kept_end = l->skipped == 1 && !l->late_recoded ? r->block_kept_prev : 0;
    else
        l->kept_end = l->late_recoded ? r->block_kept_prev : r->block_kept;
}

/* Both late-content states: lt as the block test judged, lt_kf without the
 * weak refreshes as its changes. */
static void track_lates(SettleDecide *d, const SettleRecord *r)
{
    track_late(d, &d->lt, r);
    if (r->block_change && weak_refresh(r)) {
        SettleRecord q = *r;
        q.block_change = 0;
        d->lt_kf.skipped++;
        track_late(d, &d->lt_kf, &q);
    } else {
        track_late(d, &d->lt_kf, r);
    }
}

/* The frames after a fade that only refine its last step (CONVERGE_RUN);
 * called before the trackers take the frame, so that SETTLE_T_DIFF_SOLID is
 * kept as it was at the run's end. */
static int refines(const SettleDecide *d, const SettleRecord *r, int64_t pixels, double peak)
{
    return r->strong <= d->refresh_limit && r->moved <= d->refresh_limit &&
           r->diff * CONVERGE_PART <= pixels && r->block_peak < CONVERGE_PEAK &&
           (r->block_peak * 2 <= peak || !settle_decide_camera(d, settle_decide_noise_floor(d)));
}

static void track_fade_refined(SettleDecide *d, const SettleRecord *r)
{
    int diff_change = !r->quiet[SETTLE_T_DIFF], both = diff_change && r->block_change;
    if (d->fade_run >= CONVERGE_RUN &&
        (!both || refines(d, r, d->fade_run_pixels, d->fade_run_peak))) {
        d->conv_from = d->conv_last = r->index - 1;
        d->conv_pixels = d->fade_run_pixels;
        d->conv_peak = d->fade_run_peak;
        d->before_conv = d->tr[SETTLE_T_DIFF_SOLID];
        d->fade_run = 0;
    }
    if (d->conv_from >= 0 && (diff_change || block_content(r))) {
        if (r->index - d->conv_from <= CONVERGE_FRAMES &&
            refines(d, r, d->conv_pixels, d->conv_peak)) {
            d->conv_last = r->index;
            d->conv_last_time = r->time;
            return;
        }
        d->conv_from = -1;
    }
    d->fade_run = both ? d->fade_run + 1 : 0;
    if (both) {
        d->fade_run_pixels = r->diff;
        d->fade_run_peak = r->block_peak;
    }
}

/* What the next keyframe is judged by: the frames before it that the fade
 * test saw fading and that diff counted faintly (filter_refresh), and those
 * that copied the page (track_late). */
static void track_steps(SettleDecide *d, const SettleRecord *r, double limit)
{
    d->fade_steps = r->block_fading && r->strong <= d->refresh_limit ? d->fade_steps + 1 : 0;
    if (r->diff > limit && r->strong <= d->refresh_limit && !r->refresh) {
        memmove(d->faint_recent + 1, d->faint_recent,
                (FADE_STEPS - 1) * sizeof(d->faint_recent[0]));
        d->faint_recent[0] = r->diff;
        d->faint_steps++;
    } else {
        d->faint_steps = 0;
    }
    /* the page copied: the encoder codes a phone's pulsing recording pill
     * in every frame, and now and then a few stray pixels around it or
     * elsewhere, in one frame between frames that copy the page (x264 at
     * q33: 14 to 53 in 3 of 22 frames under a pill changing 1,500 a frame,
     * seed 333's case051), while a camera's noise makes it code some pixels
     * in most frames (x265 at q30: 0 to 367 a frame, 6 of 7 frames, seed
     * 333's case049) */
    int64_t page = r->diff - r->bar_diff;
    if (page > d->refresh_limit || (page > 0 && d->page_prev > 0))
        d->copy_from = INFINITY;
    else if (d->copy_from == INFINITY && page == 0)
        d->copy_from = r->time;
    d->page_prev = page;
}

void settle_decide_frame(SettleDecide *d, SettleRecord *r, int first)
{
    const SettleSettings *s = d->s;
    if (d->ring_len > 0)
        r->delta = window_delta(d, r);
    /* --noise-factor: the diff threshold rises with the noise floor measured
     * so far, so that a camera's noise alone never makes a frame a change */
    double limit = d->diff_limit;
    if (s->noise_factor > 0 && d->floor_n > 0) {
        double f = s->noise_factor * settle_decide_noise_floor(d);
        limit = f > limit ? f : limit;
    }
    if (drift_only(r))
        r->block_change = 0;
    if (!first)
        filter_refresh(d, r, limit);
    if (r->keyframe)
        d->last_key = r->index;
    r->quiet[SETTLE_T_DIFF] = r->refresh || r->diff <= limit;
    r->limit = limit;
    r->quiet[SETTLE_T_ENTROPY] = r->refresh || r->delta <= s->entropy_threshold;
    r->quiet[SETTLE_T_BLOCKS] = !block_content(r) && !r->block_bar;
    r->quiet[SETTLE_T_BLOCKS_NOBAR] = !block_content(r);
    /* an encoder re-coding moves pixels by a few levels either way. On a
     * landscape picture such a frame right after one that changed more is
     * the encoder finishing that change (VP8 refines a fade's last step a
     * frame after it, x264's B-frames catch up on a spinner's last step),
     * which counts: only the re-coding that comes later (VP8 and VP9
     * refreshing the page) is left out */
    int recode = encoder_only(d, r, limit) || (!r->quiet[SETTLE_T_DIFF] && refined(d, r));
    if (!r->quiet[SETTLE_T_DIFF] && recode && !d->portrait && d->prev_solid) {
        d->finish = r->index;
        d->before_finish = d->tr[SETTLE_T_DIFF_SOLID];
        d->finish_pause = d->run_pause;
    }
    r->quiet[SETTLE_T_DIFF_SOLID] =
        r->quiet[SETTLE_T_DIFF] || (recode && (d->portrait || !d->prev_solid));
    if (r->quiet[SETTLE_T_DIFF_SOLID] && !d->still_first)
        d->still_first = r->quiet[SETTLE_T_DIFF] ? 1 : 2;
    if (!r->quiet[SETTLE_T_DIFF_SOLID]) {
        int box[4]; /* this frame's changed pixels, x0, y0, x1, y1 */
        settle_box_set(box, r->box[0], r->box[1], r->box[0] + r->box[2], r->box[1] + r->box[3]);
        d->still_first = 0;
        if (d->solid_last != r->index - 1) {
            d->run_pause = d->solid_last < 0 ? INFINITY : r->time - d->solid_last_time;
            memcpy(d->run_box, box, sizeof(box));
            d->run_pixels = 0;
        }
        settle_box_grow(d->run_box, box[0], box[1], box[2], box[3]);
        d->run_pixels = r->diff > d->run_pixels ? r->diff : d->run_pixels;
        d->tail_wide = 0;
        d->solid_last = r->index;
        d->solid_last_time = r->time;
        if (r->strong > d->refresh_limit) {
            d->hard_solid = r->index;
            memcpy(d->hard_box, box, sizeof(box));
        }
    } else if (!r->quiet[SETTLE_T_DIFF] && d->solid_last >= 0) {
        /* the encoder's frames after that run: refining what it drew, or
         * more (tail_wide) */
        d->tail_wide |= r->strong > d->refresh_limit || r->moved > d->refresh_limit ||
                        r->diff * CONVERGE_PART > d->run_pixels || !within_cell(r, d->run_box);
    }
    d->prev_solid = !r->quiet[SETTLE_T_DIFF] && !recode;
    if (r->quiet[SETTLE_T_DIFF])
        d->last_still = r->index;
    int bar_only = r->block_bar && !r->block_change;
    d->bar_frames += bar_only;
    d->edge_frames += r->block_edge && !r->block_change && !r->block_bar;
    d->foot_frames += r->block_foot && !r->block_change && !r->block_fade;
    if (!r->quiet[SETTLE_T_DIFF] && !r->block_change && !bar_only)
        d->faint_frames++;
    if (!r->quiet[SETTLE_T_DIFF] && r->strong > d->refresh_limit && !bar_only)
        d->last_hard = r->index;
    if (!r->quiet[SETTLE_T_DIFF] && !bar_only && (int64_t)r->box[2] * r->box[3] * 16 >= d->npix)
        d->last_spread = r->index;
    if (r->block_change && r->block_peak >= BLOCK_STRONG) {
        d->strong_block = r->index;
        d->strong_block_time = r->time;
        d->strong_block_peak = r->block_peak;
        d->strong_block_diff = r->diff;
        d->strong_block_refresh = r->refresh;
    }
    track_lates(d, r);
    track_fade_refined(d, r);
    track_steps(d, r, limit);

    d->last_time = r->time;
    SettleHistory *hp = &d->ring[d->ring_pos];
    hp->index = r->index;
    hp->time = r->time;
    hp->entropy = r->entropy;
    d->ring_pos = (d->ring_pos + 1) % SETTLE_MAX_WINDOW;
    if (d->ring_len < SETTLE_MAX_WINDOW)
        d->ring_len++;

    if (!first && !r->refresh) {
        d->floor_hist[floor_bin(r->diff)]++;
        d->floor_n++;
        d->local_frames += r->diff > d->diff_limit / 4 &&
                           ((int64_t)r->box[2] * r->box[3] * 16 < d->npix || r->local || bar_only);
        d->repeat_frames += r->diff > d->diff_limit / 4 && repeats(d, r->diff);
    }
    d->recent[d->recent_pos] = r->diff;
    d->recent_pos = (d->recent_pos + 1) % SETTLE_REPEAT_LAG;
    if (d->common_start < 0)
        common_start(d, r);
    for (int i = 0; i < SETTLE_T_COUNT; i++)
        tracker_frame(d, i, r);
    for (int i = 0; i < 2; i++) {
        int which = i ? SETTLE_T_BLOCKS_NOBAR : SETTLE_T_BLOCKS;
        tracker_step(d, &d->blk_screen[i], which, r->quiet[which] || weak_refresh(r), r);
    }
}

void settle_decide_redo_begin(SettleDecide *d)
{
    tracker_init(&d->tr[SETTLE_T_DIFF], d->s->settle);
    tracker_init(&d->tr[SETTLE_T_DIFF_SOLID], d->s->settle);
}

void settle_decide_redo_frame(SettleDecide *d, const SettleRecord *r)
{
    tracker_frame(d, SETTLE_T_DIFF, r);
    tracker_frame(d, SETTLE_T_DIFF_SOLID, r);
}

void settle_decide_redo_blocks_begin(SettleDecide *d, int which)
{
    tracker_init(&d->tr[which], d->s->settle);
}

void settle_decide_redo_blocks_frame(SettleDecide *d, int which, SettleRecord *r)
{
    r->quiet[which] = !block_content(r) && (which == SETTLE_T_BLOCKS_NOBAR || !r->block_bar);
    tracker_step(d, &d->tr[which], which,
                 r->quiet[which] || (d->keyframe_quiet && weak_refresh(r)), r);
}

/* The frame a tracker settled on, or the capture's length when it never did
 * (still changing in the last frame). */
static int64_t tracker_settled_at(const SettleTracker *t, int64_t frames)
{
    if (t->start_frame < 0)
        return frames;
    if (t->last_change < 0)
        return t->start_frame;
    return t->last_change == frames - 1 ? frames : t->settled;
}

static int64_t settled_at(const SettleDecide *d, int which, int64_t frames)
{
    return tracker_settled_at(&d->tr[which], frames);
}

/* Whether a camera-like capture: a clean one repeats a still picture almost
 * exactly; a camera's sensor noise changes pixels in every frame, all over
 * the picture. A clean capture with a spinner that never stops changes as
 * many pixels in every frame, but in one small place: the rectangle of every
 * changed pixel, or of the cells that hold most of them (an encoder's few
 * stray pixels elsewhere, x264's B-frames re-coding the page a little, widen
 * the first), covers less than a 16th of the picture, or the block test saw
 * change in the status bar alone (a phone's pulsing recording pill, 2000
 * pixels a frame on a dark page, while x264 re-codes the page faintly
 * around it: seed 251's case109; a camera's noise tips the bar's blocks
 * over thresholds set from that noise no more than the others'). Nor is a
 * capture a camera's when a quarter of its frames or more change exactly as
 * many pixels as one of the eight before (repeats): an encoder's flicker
 * between two codings of a still page, in the rhythm of its frame types. */
int settle_decide_camera(const SettleDecide *d, double floor)
{
    if (d->camera_luma >= 0)
        return d->camera_luma;
    return !(isnan(floor) || floor <= d->diff_limit / 4) && d->local_frames * 2 < d->floor_n &&
           !SETTLE_REPEATING(d->repeat_frames, d->floor_n);
}

/* Whether the status bar is left out: a portrait screen recording whose top
 * band changed on its own. A capture the camera test calls a camera's keeps
 * its top band (a filmed phone's bar is no band of the picture), unless that
 * band changed on its own in a quarter of the frames compared or more: a
 * camera's noise and drift change the whole picture, not its top band alone,
 * while a heavily re-coded screen recording (VP8 at q39 re-codes every frame
 * by some 1500 pixels, which the camera test counts as noise) has a bar whose
 * recording pill pulses to its end (seed 257's case068). A strong change in
 * the top band (strong_top) says the screen fills the picture to its top, as
 * a recording's does: a filmed phone's bar lies below the room around it
 * (an iPhone recording under a light flickering at 100 Hz, which passes for
 * a camera's). */
int settle_decide_bar_left_out(const SettleDecide *d, double floor)
{
    return (!settle_decide_camera(d, floor) || d->bar_frames * 4 >= d->floor_n || d->strong_top) &&
           d->bar_rows > 0 && d->bar_frames > 0 && d->s->status_bar;
}

/* A late line of small text ("updated just now"), an icon, a badge: content
 * that appears after diff's stable frame in fewer pixels than diff's
 * threshold, which on a clean HDMI capture is there to ride over what is not
 * content (a caret, a cursor, a few pixels of anti-aliasing) but on a phone
 * hides what its user sees appear and stay. The block test judged it content
 * against the capture's own noise (a block over max(6 x noise, 10 levels)
 * twice, two neighbours over it, or a lone pair standing out of the calm
 * pictures before it), it is the block test's last change, and
 * the picture then stays still for BLOCK_QUIET_MIN: the new content
 * persisted. Noise, drift and flicker are under the block test's thresholds;
 * an encoder re-coding is spread (the whole-picture rule) and a status bar is
 * judged apart; a toast, a touch indicator that comes and goes changes the
 * blocks again when it goes. */
static int late_content(const SettleDecide *d, const SettleLate *l, int64_t df, int64_t bf,
                        int64_t frames, const SettleTracker *bt, double bquiet)
{
    return d->portrait && d->blocks_on && l->late > df && df < frames && bf < frames &&
           (bt->last_change == l->late || bt->last_change == l->late_end) &&
           bquiet >= BLOCK_QUIET_MIN && l->late_moved > 0 && l->kept_end * 2 >= l->late_moved;
}

/* What diff made of a frame the block test counted, for a reason: a codec
 * refresh, or pixels under its threshold. */
static void diff_saw(const SettleDecide *d, char *what, size_t n, int refresh, int64_t diff)
{
    if (refresh)
        snprintf(what, n, "which diff took for a codec refresh");
    else
        snprintf(what, n, "where diff counted %lld pixels, under its threshold (%.0f)", (long long)diff,
                 d->diff_limit);
}

static void late_reason(SettleDecide *d, int64_t df, double bquiet)
{
    char what[96];
    diff_saw(d, what, sizeof(what), d->lt.late_refresh, d->lt.late_diff);
    snprintf(d->reason, sizeof(d->reason),
             "clean capture, but diff misses late content: at %.3f s (frame %lld), after diff's "
             "stable frame %lld, the block test saw %lld blocks change (peak %.1f times the "
             "threshold set from the capture's noise) %s, and the picture then stayed still "
             "%.1f s: the block test counts it",
             d->lt.late_time, (long long)d->lt.late, (long long)df, (long long)d->lt.late_blocks,
             d->lt.late_peak, what, bquiet);
    if (d->lt.late_end > d->lt.late) {
        size_t len = strlen(d->reason);
        snprintf(d->reason + len, sizeof(d->reason) - len,
                 "; that content then faded in, frame after frame, to frame %lld (steps under "
                 "diff's threshold)",
                 (long long)d->lt.late_end);
    }
}

/* On a clean phone picture, the block test's decision without the
 * keyframes diff took for a codec refresh in which no block moved by
 * BLOCK_STRONG times its threshold (weak_refresh: x264 re-codes the still
 * page at its GOP's keyframe, 45 thousand pixels by a few levels, and tips
 * a few blocks weakly over their threshold), taken when that is what keeps
 * the late-content rules (content diff's threshold misses, then the
 * picture still BLOCK_QUIET_MIN) from holding: the block test's tracker is
 * then the one without them, and stays so when it is judged again
 * (--ignore animated). The camera path never comes here. 1 when taken. */
static int keyframes_left_out(SettleDecide *d, int blk, int64_t df, int64_t frames)
{
    const SettleTracker *bt = &d->tr[blk];
    const SettleTracker *kt = &d->blk_screen[blk == SETTLE_T_BLOCKS_NOBAR];
    if (!d->portrait || !d->blocks_on || kt->last_change < 0 ||
        kt->last_change == bt->last_change)
        return 0;
    int64_t kf = tracker_settled_at(kt, frames);
    double kquiet = d->last_time - kt->last_change_time;
    int strong = d->strong_block > df && df < frames && kf < frames && kquiet >= BLOCK_QUIET_MIN;
    if (!strong && !late_content(d, &d->lt_kf, df, kf, frames, kt, kquiet))
        return 0;
    d->tr[blk] = *kt;
    d->lt = d->lt_kf;
    d->keyframe_quiet = 1;
    return 1;
}

static void note_keyframes(SettleDecide *d)
{
    size_t len = strlen(d->reason);
    snprintf(d->reason + len, sizeof(d->reason) - len,
             "; the keyframes diff took for a codec refresh, in which no block moved by %.0f "
             "times its threshold, are the encoder re-coding the still picture and left out",
             BLOCK_STRONG);
}

/* Whether SETTLE_T_DIFF_SOLID settled at sf before the last frame and every
 * frame diff counted after it, up to the end, is an encoder refining what
 * the run of changes up to sf drew: the encoder's alone (encoder_only: no
 * pixel beyond the strong level, no 4x4 square's mean moved by
 * SETTLE_CELL_MOVED, no block, no fade), within that run's rectangle and a
 * cell around it, and at most a CONVERGE_PART of its largest frame's
 * pixels (tail_wide). An encoder coding frames from others draws a change
 * coarsely where it lands and sharpens it over the next frames: x264's
 * B-frames before the P-frame they are coded from (4 frames at most with
 * 3 B-frames), VP9 from its hidden reference frames (6 frames after a
 * carousel's fade); a lossless capture stopped a few frames after its last
 * change is answered, with the short-tail warning, and so is this one.
 * Content that appears elsewhere, or changes more than a third of the last
 * change, or moves anything strongly, keeps the picture changing. */
static int refining_tail(const SettleDecide *d, int64_t sf, int64_t frames)
{
    const SettleTracker *st = &d->tr[SETTLE_T_DIFF_SOLID];
    return sf < frames && st->last_change >= 0 && st->last_change == d->solid_last &&
           !d->tail_wide;
}

/* A desktop page that an encoder coding frames from others (not every frame
 * a keyframe: no HDMI or intra-only capture) re-codes long after its last
 * change (VP8's and VP9's refreshes, x264's B-frames): diff without those
 * frames (SETTLE_T_DIFF_SOLID, settled at sf), taken only when a frame still
 * as measured follows its last change (a recording cut short in a scroll's
 * faint frames stays unsettled); --codec-filter off counts what the encoder
 * does, and --ignore animated has its own rules for it. */
static int desktop_recoded(SettleDecide *d, int64_t sf, int64_t df, int64_t frames)
{
    const SettleSettings *s = d->s;
    const SettleTracker *st = &d->tr[SETTLE_T_DIFF_SOLID];
    if (!s->codec_filter || s->ignore_animated || d->portrait || !d->blocks_on ||
        !d->inter_frames)
        return 0;
    /* the recording's last frame only finishes the change in the frame
     * before it (VP8 re-codes a carousel's step faintly in the next frame):
     * that change is the last, and the frame showing it the stable one, when
     * the picture was still for FINISH_PAUSE before that change's run of
     * frames (a carousel's turn on a settled page; a page painting its tiles
     * in a scroll, cut short, changes more often) */
    if (sf == frames && d->finish == frames - 1 && s->settle <= 0 &&
        d->before_finish.last_change == frames - 2 && d->finish_pause >= FINISH_PAUSE) {
        d->tr[SETTLE_T_DIFF_SOLID] = d->before_finish;
        snprintf(d->reason, sizeof(d->reason),
                 "clean capture, re-encoded: the last frame only finishes the change of frame "
                 "%lld (many pixels by a few levels, what moved more under the threshold, "
                 "%.0f, and no block: an encoder re-coding it), which is the last",
                 (long long)(frames - 2), d->diff_limit);
        return 1;
    }
    /* a frame still as measured follows the last change, or the encoder
     * alone changed the picture for RECODE_TAIL up to the end: x264 with
     * B-frames codes a striped page one way in its P-frames and another in
     * its B-frames, and flickers between the two to the end, faintly; a
     * recording cut short in a scroll's faint frames ends a frame or two
     * after its last change */
    if (sf >= df || (d->last_still <= st->last_change &&
                     !(st->last_change >= 0 && d->last_time - st->last_change_time >= RECODE_TAIL) &&
                     !refining_tail(d, sf, frames)))
        return 0;
    if (d->last_still <= st->last_change && d->last_time - st->last_change_time < RECODE_TAIL) {
        snprintf(d->reason, sizeof(d->reason),
                 "clean capture, re-encoded: diff's changes after frame %lld, up to the "
                 "recording's end, are an encoder refining what the changes up to it drew "
                 "(faint: no pixel beyond the strong level, no 4x4 square's mean by %d levels, "
                 "no block; within their rectangle and at most a third of their pixels) and "
                 "are left out",
                 (long long)sf, SETTLE_CELL_MOVED);
        return 1;
    }
    snprintf(d->reason, sizeof(d->reason),
             "clean capture, re-encoded: diff's changes after frame %lld are an encoder "
             "re-coding the page (many pixels by a few levels; what moved more, a pixel "
             "beyond the strong level or a 4x4 square's mean by %d levels, stays under the "
             "threshold, %.0f, and the block test saw no other content) and are left out",
             (long long)sf, SETTLE_CELL_MOVED, d->diff_limit);
    return 1;
}

/* On a clean phone picture, diff's and the block test's last changes only
 * refine a fade's last step (track_fade_refined), and the picture then
 * stays still BLOCK_QUIET_MIN: diff without them (SETTLE_T_DIFF_SOLID as it
 * was at the fade's end, when the measurement had started by then).
 * --ignore animated and --settle keep their own rules. 1 when taken. */
static int fade_refined(SettleDecide *d, int64_t frames)
{
    const SettleSettings *s = d->s;
    const SettleTracker *st = &d->tr[SETTLE_T_DIFF_SOLID];
    if (!d->portrait || !d->blocks_on || !s->codec_filter || s->ignore_animated || s->settle > 0 ||
        d->conv_from < 0 || d->before_conv.start_frame < 0 || d->conv_last <= d->conv_from ||
        st->last_change <= d->conv_from || st->last_change > d->conv_last ||
        d->conv_last >= frames - 1 || !(d->last_time - d->conv_last_time >= BLOCK_QUIET_MIN))
        return 0;
    d->tr[SETTLE_T_DIFF_SOLID] = d->before_conv;
    snprintf(d->reason, sizeof(d->reason),
             "clean capture, re-encoded: diff's changes after frame %lld, the end of a fade, "
             "only refine its last step (faint, at most a third of its last frame's pixels, "
             "no block moved by %.0f times its threshold, on a camera's film at most half its "
             "blocks' move, within %d frames: an encoder catching up) and are left out",
             (long long)d->conv_from, CONVERGE_PEAK, CONVERGE_FRAMES);
    return 1;
}

/* Why diff decides a clean capture. */
static void clean_reason(SettleDecide *d, double floor, const char *after)
{
    int over = !isnan(floor) && floor > d->diff_limit / 4;
    int spread = d->local_frames * 2 < d->floor_n;
    if (over && spread && SETTLE_REPEATING(d->repeat_frames, d->floor_n))
        snprintf(d->reason, sizeof(d->reason),
                 "clean capture: a quiet frame changes about %.0f pixels (10th percentile)%s, "
                 "more than a quarter of the diff threshold (%.0f), but %lld of %lld frames "
                 "change exactly as many pixels as one of the %d before (an encoder flickering "
                 "between two codings of a still picture), which a camera's noise does not",
                 floor, after, d->diff_limit, (long long)d->repeat_frames,
                 (long long)d->floor_n, SETTLE_REPEAT_LAG);
    else if (over && spread) /* the decoder's test on the full-size luma said clean */
        snprintf(d->reason, sizeof(d->reason),
                 "clean capture: a quiet frame changes about %.0f pixels (10th percentile)%s, "
                 "more than a quarter of the diff threshold (%.0f), but in the full-size planes "
                 "(the picture was measured reduced by %d; a quiet frame changes about %.0f "
                 "pixels there) the changes are under a quarter of the threshold, in one small "
                 "place, or repeat exactly (an encoder's flicker), not a camera's noise",
                 floor, after, d->diff_limit, d->luma_scale,
                 isnan(d->luma_floor) ? 0.0 : d->luma_floor);
    else if (over)
        snprintf(d->reason, sizeof(d->reason),
                 "clean capture: a quiet frame changes about %.0f pixels (10th percentile)%s, "
                 "more than a quarter of the diff threshold (%.0f), but most frames change in "
                 "one small place (something moving there), not all over as a camera's noise",
                 floor, after, d->diff_limit);
    else
        snprintf(d->reason, sizeof(d->reason),
                 "clean capture: a quiet frame changes about %.0f pixels (10th percentile)%s, "
                 "within a quarter of the diff threshold (%.0f)",
                 isnan(floor) ? 0.0 : floor, after, d->diff_limit);
}

static int choose_method(SettleDecide *d, double floor, int64_t frames)
{
    const SettleSettings *s = d->s;
    int camera = settle_decide_camera(d, floor);
    int blk = settle_decide_bar_left_out(d, floor) ? SETTLE_T_BLOCKS_NOBAR : SETTLE_T_BLOCKS;
    d->keyframe_quiet = 0;
    if (s->method != SETTLE_METHOD_AUTO) {
        snprintf(d->reason, sizeof(d->reason), "chosen with --method %s",
                 settle_method_name(s->method));
        return s->method == SETTLE_METHOD_DIFF      ? SETTLE_T_DIFF
               : s->method == SETTLE_METHOD_ENTROPY ? SETTLE_T_ENTROPY
                                                    : blk;
    }
    const char *after = s->blur == SETTLE_BLUR_MEDIAN ? " (measured after --blur median)"
                        : s->blur == SETTLE_BLUR_BOX  ? " (measured after --blur box)"
                                                      : "";
    if (camera && d->camera_luma > 0) {
        snprintf(d->reason, sizeof(d->reason),
                 "camera-like capture: even a quiet frame changes about %.0f pixels "
                 "(10th percentile, in the full-size planes; the picture was measured reduced by "
                 "%d), more than a quarter of the diff threshold (%.0f); the block test sets its "
                 "thresholds from the capture's own noise%s",
                 d->luma_floor, d->luma_scale, d->diff_limit,
                 blk == SETTLE_T_BLOCKS_NOBAR ? "; its top band changed on its own in a quarter "
                                                "of the frames or more: a status bar, left out"
                                              : "");
        return blk;
    }
    if (camera) {
        snprintf(d->reason, sizeof(d->reason),
                 "camera-like capture: even a quiet frame changes about %.0f pixels "
                 "(10th percentile)%s, more than a quarter of the diff threshold (%.0f); "
                 "the block test sets its thresholds from the capture's own noise%s",
                 floor, after, d->diff_limit,
                 blk == SETTLE_T_BLOCKS_NOBAR ? "; its top band changed on its own in a quarter "
                                                "of the frames or more: a status bar, left out"
                                              : "");
        return blk;
    }
    /* a phone's picture (portrait): its own recorder re-codes it; HDMI and
     * desktop captures (landscape) keep diff, as before the block test */
    int64_t df = settled_at(d, SETTLE_T_DIFF, frames), bf = settled_at(d, blk, frames);
    /* an encoder re-coding converges; faint changes in one small place to
     * the end are something moving there (a spinner), left to diff, which
     * names it as an animated area */
    int local_to_end = df == frames && d->last_spread <= bf;
    if (d->portrait && bf < df && d->last_hard <= bf && !local_to_end) {
        snprintf(d->reason, sizeof(d->reason),
                 "re-encoded phone picture or status-bar changes: after frame %lld every change "
                 "diff counts is faint (many pixels by a few levels: an encoder re-coding)%s, "
                 "which the block test does not count",
                 (long long)bf, blk == SETTLE_T_BLOCKS_NOBAR ? " or lies only in the status bar" : "");
        return blk;
    }
    int kq = keyframes_left_out(d, blk, df, frames);
    if (kq)
        bf = settled_at(d, blk, frames);
    /* the block test's tracker: its last change and the still picture after */
    const SettleTracker *bt = &d->tr[blk];
    double bquiet = bt->last_change >= 0 ? d->last_time - bt->last_change_time : 0;
    int late = late_content(d, &d->lt, df, bf, frames, bt, bquiet);
    /* diff's last changes are the recorder re-coding the still picture (no
     * pixel moved strongly, no block moved), while the block test settles
     * later on weak changes only (a touch indicator's ring, a scroll bar
     * fading out: no block moved by BLOCK_STRONG times its threshold after,
     * and no late content that stays), and the picture then stays still
     * BLOCK_QUIET_MIN (not a capture cut short in the middle of a change),
     * or the encoder re-coded it only after a frame still as measured (a
     * clock re-coded a few frames after its last tick; a scroll's last
     * frames go on) and the recording ends on a frame diff finds still,
     * or diff still changes in the last frame but only faintly (no pixel
     * beyond the strong level, as last_hard tells) for RECODE_TAIL up to
     * the end: x264 at CRF 32 with B-frames re-codes a carousel's last
     * slide for 0.6 s after it, 39 to 459 pixels a frame, when
     * --diff-threshold is lowered to see a caret (seed 251's case017) */
    int64_t sf = settled_at(d, SETTLE_T_DIFF_SOLID, frames);
    const SettleTracker *st = &d->tr[SETTLE_T_DIFF_SOLID];
    int tail = df == frames && d->last_hard <= sf && d->last_time - st->settled_time >= RECODE_TAIL;
    if (d->portrait && d->blocks_on && sf < df && d->strong_block <= sf && !late &&
        !s->ignore_animated &&
        (d->last_time - st->settled_time >= BLOCK_QUIET_MIN || (df < frames && d->still_first == 1) ||
         tail)) {
        snprintf(d->reason, sizeof(d->reason),
                 "re-encoded phone picture: diff's changes after frame %lld are faint (many pixels "
                 "by a few levels, no block moved: an encoder re-coding) and left out; the block "
                 "test's later changes are weak (no block moved by %.0f times its threshold)",
                 (long long)sf, BLOCK_STRONG);
        return SETTLE_T_DIFF_SOLID;
    }
    /* diff's threshold is a count of pixels: on a phone filmed by a camera
     * (the screen a part of the picture, smoothed by the encoder) or a small
     * picture, a row of new content can change fewer; the block test, which
     * judges areas against the capture's noise, saw it */
    if (d->portrait && d->strong_block > df && df < frames && bf < frames &&
        bquiet >= BLOCK_QUIET_MIN) {
        char what[96];
        diff_saw(d, what, sizeof(what), d->strong_block_refresh, d->strong_block_diff);
        snprintf(d->reason, sizeof(d->reason),
                 "clean capture, but diff misses content: at %.3f s (frame %lld), after diff's "
                 "stable frame %lld, a block's mean moved %.1f times its threshold (content "
                 "filling it), %s; the block test counts it",
                 d->strong_block_time, (long long)d->strong_block, (long long)df,
                 d->strong_block_peak, what);
        if (kq)
            note_keyframes(d);
        return blk;
    }
    if (late) {
        late_reason(d, df, bquiet);
        if (kq)
            note_keyframes(d);
        return blk;
    }
    if (fade_refined(d, frames))
        return SETTLE_T_DIFF_SOLID;
    if (desktop_recoded(d, sf, df, frames))
        return SETTLE_T_DIFF_SOLID;
    clean_reason(d, floor, after);
    return SETTLE_T_DIFF;
}

/* Why no start was found. */
static void no_start(const SettleDecide *d, const SettleCaptureEnd *e, char *msg, size_t len)
{
    const SettleSettings *s = d->s;
    switch (s->start) {
    case SETTLE_START_TIME:
        snprintf(msg, len, "start time %.3f s is after the last frame (%.3f s)", s->start_time,
                 e->last_time);
        break;
    case SETTLE_START_FIRST_CHANGE:
        snprintf(msg, len, "no frame changed, so there is no first change to start from");
        break;
    case SETTLE_START_MARKER:
    case SETTLE_START_MARKER_END: {
        const uint8_t *m = s->marker_rgb;
        if (s->start == SETTLE_START_MARKER_END && d->marker_first >= 0)
            snprintf(msg, len, "marker #%02x%02x%02x never ends", m[0], m[1], m[2]);
        else
            snprintf(msg, len, "no frame is covered by the marker colour #%02x%02x%02x", m[0],
                     m[1], m[2]);
        break;
    }
    default:
        snprintf(msg, len, "no start frame");
    }
}

static void set_change(SettleChangeArea *c, const SettleBox *b)
{
    c->frame = b->frame;
    c->time = b->frame >= 0 ? b->time : NAN;
    c->x = b->x;
    c->y = b->y;
    c->width = b->w;
    c->height = b->h;
    c->pixels = b->frame >= 0 ? b->pixels : 0;
}

/* --settle SECONDS (src/settle_quiet.c): the first change followed by that
 * much quiet, measured to the end of the recording. */
static int quiet_decide(const SettleDecide *d, SettleTracker *t, const SettleCaptureEnd *e,
                               SettleResult *r, char *msg, size_t len)
{
    SettleQuiet *q = &t->quiet;
    if (settle_quiet_end(q, e->duration)) {
        r->stable_frame = q->stable;
        r->stable_time = q->stable_time;
        set_change(&r->deciding_change, &q->deciding);
        return 0;
    }
    r->longest_quiet = q->longest;
    r->longest_quiet_time = q->longest_from;
    r->longest_quiet_frame = q->longest_frame;
    if (!q->have)
        snprintf(msg, len, "nothing changed after the start (%.3f s): --settle answers "
                 "only at or after the first change", t->start_frame_time);
    else
        snprintf(msg, len, "never quiet for %.3f s (--settle): the longest quiet lasts "
                 "%.3f s, from %.3f s (frame %lld)", d->s->settle, q->longest, q->longest_from,
                 (long long)q->longest_frame);
    return SETTLE_ERR_NOT_STABLE;
}

/* The stable frame of tracker t, once the start is known. */
static int stable_frame(const SettleDecide *d, SettleTracker *t, const SettleCaptureEnd *e,
                        SettleResult *r, char *msg, size_t len)
{
    const SettleSettings *s = d->s;
    if (s->settle > 0)
        return quiet_decide(d, t, e, r, msg, len);
    if (t->last_change < 0) {
        r->stable_frame = t->start_frame;
        r->stable_time = t->start_frame_time;
    } else if (t->last_change == e->frames - 1) {
        snprintf(msg, len, "the picture still changes in the last frame (%.3f s)", e->last_time);
        return SETTLE_ERR_NOT_STABLE;
    } else {
        r->stable_frame = t->settled;
        r->stable_time = t->settled_time;
        set_change(&r->deciding_change, &t->last_box);
    }
    return 0;
}

int settle_decide_method(SettleDecide *d, int64_t frames)
{
    int which = choose_method(d, settle_decide_noise_floor(d), frames);
    if (d->phone_room) {
        const int *b = d->phone_box;
        size_t len = strlen(d->reason);
        snprintf(d->reason + len, sizeof(d->reason) - len,
                 "; a phone filmed in a room: every strong change lies in an upright "
                 "%dx%d rectangle of the landscape picture, and the picture around it is no "
                 "flat border (%.0f %% of its blocks within %.0f levels of their median), so "
                 "it is judged as a phone's picture",
                 b[2] - b[0], b[3] - b[1], d->phone_flat * 100, SETTLE_FLAT_LEVELS);
    }
    return which;
}

void settle_decide_phone_in_room(SettleDecide *d, const int box[4], double flat)
{
    d->phone_room = 1;
    d->portrait = 1;
    memcpy(d->phone_box, box, sizeof(d->phone_box));
    d->phone_flat = flat;
}

int settle_decide_finish(SettleDecide *d, int which, const SettleCaptureEnd *e, SettleResult *r,
                         char *msg, size_t len)
{
    d->which = which;
    r->method = which == SETTLE_T_DIFF || which == SETTLE_T_DIFF_SOLID ? SETTLE_METHOD_DIFF
                : which == SETTLE_T_ENTROPY ? SETTLE_METHOD_ENTROPY
                                            : SETTLE_METHOD_BLOCKS;
    r->method_reason = d->reason;
    SettleTracker *t = &d->tr[which];
    r->start_frame = t->start_frame;
    r->start_time = t->start_time;
    r->stable_frame = -1;
    r->stable_time = r->load_time = r->quiet_tail = NAN;
    r->first_visual_change = r->last_visual_change = NAN;
    memset(&r->deciding_change, 0, sizeof(r->deciding_change));
    r->deciding_change.frame = r->longest_quiet_frame = -1;
    r->deciding_change.time = r->longest_quiet = r->longest_quiet_time = NAN;
    if (e->frames < 2) {
        snprintf(msg, len, "%s: nothing to compare",
                 e->frames ? "only one video frame" : "no video frames decoded");
        return SETTLE_ERR_TOO_SHORT;
    }
    if (t->start_frame < 0) {
        no_start(d, e, msg, len);
        return SETTLE_ERR_NO_START;
    }
    if (t->first_change >= 0) {
        r->first_visual_change = t->first_change_time - t->start_time;
        r->last_visual_change = t->last_change_time - t->start_time;
    }
    int ret = stable_frame(d, t, e, r, msg, len);
    if (r->stable_frame >= 0) {
        r->load_time = r->stable_time - r->start_time;
        if (r->load_time < 0)
            r->load_time = 0; /* --start SECONDS between two frames, after the last change */
        r->quiet_tail = e->duration - r->stable_time;
    }
    return ret;
}
