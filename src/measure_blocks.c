/* SPDX-License-Identifier: BSD-2-Clause */
#include "measure_blocks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blocks_line.h"
#include "kernels.h"
#include "select.h"
#include "settle/settle.h"

/* Bounds of what passes for the camera: beyond them a change of the whole
 * picture is content (a splash replaced by a page, a dimmed backdrop). */
#define GAIN_LO 0.6
#define GAIN_HI 1.6
#define OFFSET_MAX 40.0
/* A light moves every block it falls on, but for those it drives to black
 * or white (a channel of the reference under LIGHT_CLIP_LO or over
 * LIGHT_CLIP_HI). A gain and an offset that would move LIGHT_STILL blocks
 * or more past their threshold, while each of them stayed within
 * LIGHT_STILL_LEVEL of the reference in every channel, are no light: the
 * picture did not change there, and what moved elsewhere is content. A
 * cross-fade on a white page is such a fit: each step scales the distance
 * from white (a gain over 1 and an offset under 0), which takes its last,
 * faint steps out as the camera's exposure, while its unchanged header
 * came out as changed (held-out seed 339's case063, VP8 at q26: 62 blocks
 * of the app bar, none of them moved, at 1.17-1.49 times their threshold
 * under a gain of 1.07-1.09, the three last steps of the fade lost). On
 * the accuracy grids' camera films and the real recordings, a fit leaves
 * that many blocks still only on the frame of a large change (the page
 * drawn, a splash replaced), which is content either way. */
#define LIGHT_STILL 8
#define LIGHT_STILL_LEVEL 0.1
#define LIGHT_CLIP_LO 4.0f
#define LIGHT_CLIP_HI 251.0f
/* row offsets (a rolling shutter's flicker): at most this many times the
 * noise, and never more than ROW_CAP levels */
#define ROW_NOISE 4.0
#define ROW_CAP 8.0
/* the noise is this percentile of the frames' median residuals */
#define NOISE_PERCENTILE 0.3
/* a brightness level's median counts once it has this many blocks in a frame */
#define LEVEL_MIN_BLOCKS 8
/* on a frame that is no change, every block follows the picture by 1/LEAK a
 * frame, a lone block over its threshold too: held where it was, a block that
 * a re-code or moire put just over its threshold drifts further from it with
 * the light, until a neighbour passes its own and the pair counts as content */
#define LEAK 8.0
/* an encoder's re-coding (a keyframe, a refresh, B-frames catching up) moves
 * every block a little: a block counts against SPREAD times the frame's own
 * median residual, when that is larger than the noise model's threshold */
#define SPREAD 6.0
/* the fade test: a block moved when its step from the previous picture (the
 * light taken out) is over max(FADE_K x noise, FADE_MIN) levels */
#define FADE_K 3.0
#define FADE_MIN 1.5
/* ... for FADE_RUN steps in a row; a picture whose blocks all moved by less
 * than FADE_REPEAT levels repeats the previous one */
#define FADE_RUN 2
#define FADE_REPEAT 0.5
/* ... and more than FADE_HOLD repeats in a row are a still picture */
#define FADE_HOLD 2
/* a picture is a change when at least FADE_AREA fading blocks have a fading
 * neighbour and the fading blocks are FADE_SHARE times those that moved back */
#define FADE_AREA 4
#define FADE_SHARE 2
/* ... and a fading block moved in all by FADE_FAR times its threshold (20
 * levels at the 10-level floor): content moves the blocks it touches by 25
 * to 200; an encoder whose B-frames converge on the next keyframe's
 * re-coding moves a few by 10-15 over three frames the same way */
#define FADE_FAR 2.0
/* the lone-pair rule: one or two blocks over their threshold (under twice
 * it, no neighbour over its own) in two pictures running, each picture's
 * peak LONE_STAND times the largest of the SETTLE_BLOCK_LONE_SEEN - 1
 * pictures before the pair, none of them a change, is content (a late line
 * tipping a block just over its threshold, decaying after). Noise, drift and
 * an encoder tip lone blocks too, but out of pictures whose peaks run close
 * to them: on the five accuracy grids' camera films, such pairs after the
 * truth stand at most 1.8 times the window's largest peak, the content pairs
 * that the block test missed 4.5 times it; 3 lies between with a margin of
 * 1.5 either way. The window, all of it no change, keeps out an encoder
 * refining a change it has just drawn (x264's B-frames tip a block 1.4 then
 * 1.2 times its threshold two frames after a splash); and neither picture
 * may be a keyframe, where an encoder re-codes the whole picture (x265's,
 * 25 frames after a still screen's last change, tips a block 1.12 times its
 * threshold, which leaks back under it a frame later) */
#define LONE_STAND 3.0
/* a block under RECENT_MAX times its threshold is judged again against the
 * last pictures (recheck_recent): a light's cycle tips blocks a little over
 * their threshold, content fills a block beyond twice it (which alone makes
 * a change) */
#define RECENT_MAX 2.0
/* the split-line rule: a thin line of text that straddles two rows of
 * blocks splits its change between them and may move none of them over its
 * threshold (held-out seed 271's case025: a late line under the header moves
 * 14 blocks in two rows by 0.37 to 0.95 times it, the 9 pictures before at
 * 0.35 at most). A split pair is a block and the one below it, both over
 * AREA_SHARE times their threshold and their shares together over 1 (what
 * one block would have shown); AREA_PAIRS split
 * pairs side by side in a picture whose peak stands AREA_STAND times the
 * largest of the SETTLE_BLOCK_LONE_SEEN pictures before it, none of them a
 * change, and no keyframe, with no other block over AREA_SHARE outside the
 * pairs' two rows (a line), are content: the picture is a change. On the
 * eight accuracy grids (960 captures, main's build), pictures with 4 blocks
 * over half their threshold each beside another (looser than the pairs)
 * after the truth (609 in 96 films: noise, drift, an encoder's updates)
 * stand at most 1.84 times the window's largest peak, content at the truth
 * 1.48 to 5.1 times; AREA_STAND lies between 1.84 and case025's 2.75, 1.22
 * from each. Without the pairs (any 4 such blocks) the rule also counted a
 * faint step of stagesepx's video_for_forecast's load */
#define AREA_SHARE SETTLE_BLOCK_AREA_SHARE
#define AREA_PAIRS 2
#define AREA_STAND 2.25
/* ... or a line that lies along one row of blocks (its lower edge a pixel
 * or two into the row below, under AREA_SHARE there): AREA_RUN blocks side
 * by side in one row, each over AREA_SHARE, as many blocks as AREA_PAIRS
 * split pairs hold (held-out seed 283's case045: a late line of 98 x 7
 * pixels moves 6 blocks of one row by 0.68 to 1.05 times their threshold,
 * those below by 0.35-0.42, the 9 pictures before at 0.25 at most). On the
 * eleven accuracy grids (main's build), the pictures after the truth that
 * the rule's other conditions let through with such a line (41, in 23
 * films) stand at most 1.46 times the window's largest peak, the lines at
 * their truth 3.96 to 6.49 times: AREA_STAND lies 1.54 and 1.76 from each.
 * Since tilt43 the run is of AREA_RUN columns side by side, each with such
 * a block in the row or a row beside it: a phone filmed at an angle steps
 * a line from one row to the next (landscape seed 251's case045: 1.04 and
 * 0.72 in row 6, then 0.65, 0.82 and 0.70 in row 7, no split pair) */
#define AREA_RUN (2 * AREA_PAIRS)
/* ... of AREA_LINE columns at least (line44): a short line's first picture
 * lifts three blocks side by side, a fourth only as the encoder refines it
 * a picture later, when the first is in the window and the line no longer
 * stands out of it (held-out landscape seed 263's case041, x265: 0.72-0.82
 * in three blocks of row 7 at its truth against a window at 0.45 at most,
 * 0.89 and 0.68 in a fourth a picture later; 263's case107 and 241's
 * case030 the same). On the fourteen accuracy grids (seeds 333, 331, 311,
 * 315, 41, 73, 339, 341, landscape 19, 229, 241, 251, 257, 263), the
 * pictures ten or more after the truth that the rule's other conditions
 * let through: 174 with three columns, 120 with four; they stand at most
 * 1.71 times the whole window's peak (AREA_STAND asks 2.25, AREA_WIDE 1.75),
 * and those at 1.5 times or more at most 2.19 times their rows' window */
#define AREA_LINE 3
/* ... once AREA_CALM still pictures followed the last change, the window
 * being those (up to SETTLE_BLOCK_LONE_SEEN): a late line that comes 7 or 8
 * pictures after the page (landscape seeds 19's case034, 229's case116,
 * 257's case092, each a run of 4-5 blocks at 0.8-1.2 against a window at
 * 0.4 at most) was judged by nothing until the ninth, by which time it was
 * in the window itself. An encoder refining what it has just drawn tips
 * blocks two frames after a splash (the lone-pair rule's window); on the
 * eleven accuracy grids and five screens grids no answer moved with 3
 * pictures instead of 5 (calm43) */
#define AREA_CALM 5
/* ... or a line whose run stands RUN_STAND times the window's runs at its
 * rows (run_level: over AREA_RUN columns side by side, the least of their
 * largest shares; noise rarely lifts four blocks side by side at once, a
 * line does), and AREA_WIDE times the whole window's largest peak. A line
 * whose largest block stands out of the window less than AREA_STAND times
 * may still stand out as a run (landscape seed 257's case010: a line split
 * between rows 3 and 4, its largest share 0.92 against the window's 0.41
 * there, its run 0.59 against 0.20; 241's case016: 0.99 against 0.48, its
 * run 0.77 against 0.22). On the twelve accuracy grids (seeds 333, 331,
 * 311, 315, 41, 73, 337, landscape 19, 229, 241, 251, 257), the pictures
 * after the truth that the rule's other conditions let through (136) stand
 * at most 1.67 times the whole window's peak (AREA_WIDE keeps them all
 * out); those at 1.5 or more, 2.30 times their rows' runs; the lines at
 * their truth that the rule missed before, 2.94 and 3.43 (calm43, run43) */
#define RUN_STAND 2.6
/* ... or a line that stands AREA_STAND times the largest share the window's
 * pictures had within AREA_ROWS rows of its own, and AREA_WIDE times the
 * whole window's largest peak. A change of the light over the whole
 * picture (an auto-exposure step) leaves a residual after the gain fit
 * wherever the picture's brightness sits off the fit, and so does what the
 * reference has not yet caught of a fade elsewhere: either raises the
 * whole window's peak far from the line (held-out seed 313's case117, VP9:
 * an exposure step 5 pictures before a late line left 4 blocks of row 6 at
 * 0.52-0.58; the line, 6 blocks of row 10 at 0.53-1.24, stands 2.15 times
 * the whole window, 5.20 times rows 9-11's; seed 311's case042, x265, 2.17
 * and 9.78, a fade's end in rows 20-27; 269's case100, x264, 1.82 and 3.61). On all of seeds 311 and
 * 313 and the late camera films of fifteen accuracy grids (the pictures the
 * rule's other conditions let through), no picture after the truth stood
 * AREA_STAND times its rows' window (2.06 at most, 299's case091, which
 * stands as much against the whole window; then 1.85); the real captures
 * held one such picture, a scroll of Eideticker's contacts-scrolling-movie,
 * 2.25 times its rows' window and 1.03 times the whole one, which
 * AREA_WIDE keeps out: it lies between that and the lines' 1.82-2.17 */
#define AREA_ROWS 1
#define AREA_WIDE 1.75
/* ... and so does a still picture after it whose peak is at most KEY_SLACK
 * times what the reference has left of the keyframe's peak: what it shows
 * is that re-code, as the reference catches up with it (an encoder that
 * copies a camera's picture after its keyframe, x264 at q23, leaves that
 * residual alone, falling by 1/LEAK a picture: held-out seed 333's case116,
 * 0.55 at the keyframe, then 0.48, 0.42, 0.37, 0.32, 0.28, 0.24, 0.21, and a
 * late line at 0.65 nine pictures after it, 1.34 times the largest of them
 * and 2.85 times the window so counted; the slack lets a camera's noise
 * ride on that fall) */
#define KEY_SLACK 1.15
/* A scroll indicator at the right edge (indicators_apart) is drawn at once and
 * fades out step by step: on browsertime's Android recordings and their
 * perturbed variants (scripts/perturb-real: re-encoded, noise, flicker,
 * frame rates), its appearance moves the edge's blocks by 5.5 to 6.4 times
 * their threshold, its fade-out's steps by 1.0 to 2.4 */
#define EDGE_STRONG 4.0
/* ... and changes on its own for a few pictures after a page grows or
 * scrolls (4 to 6 on those recordings and variants, up to 19 counting
 * every picture the edge changed in with weak steps). An edge that keeps
 * changing is kept from the EDGE_FRAMES-th picture on: Eideticker's HDMI
 * capture native-fennec-cnn.webm has its last 3 columns of pixels flicker
 * in over 100 pictures while the page pans, at up to 4.4 times their
 * threshold, and its answer stays as it was */
#define EDGE_FRAMES 30
/* The bottom rows where iOS draws its home indicator (a pill 134 x 5 pt,
 * 8 pt above the screen's bottom: its 1 to 1.5 %) and Android its gesture
 * handle (in a navigation bar of 24-48 dp, 3 to 6 %), whose colour follows
 * what lies under it, in steps or in one, up to a second after the screen
 * changed (stagesepx's iPhone recording long.mp4: 1.1 s after its page, 15
 * levels in one step on x264 at CRF 28-35, a few levels a picture
 * otherwise); the safe area around it holds no content. Left out like the
 * scroll indicator's edge, with no strong change kept (the pill turning
 * from light to dark is as strong as content), and kept from the
 * FOOT_FRAMES-th picture in which they changed on their own on */
#define FOOT_FRAMES 30
/* A keyframe in the window counts by what of its peak the reference, which
 * follows the picture by 1/LEAK a frame, has left since: a keyframe
 * re-codes the whole picture once, and a faint line a few pictures after
 * one has to stand out of the pictures around it and of what is left of
 * that re-code, not of the re-code itself (held-out seed 283's case022: a
 * dark late line at 0.86 times the threshold, four split pairs, 8 pictures
 * after a keyframe at 0.40, the other pictures at 0.33 at most: 2.17 times
 * with the keyframe's whole peak, 2.64 with what is left of it). The
 * pictures after the truth of the eleven grids that the line rule's other
 * conditions let through stand at most 1.46 times such a window, as with
 * whole peaks; leaving keyframes out altogether would let one just after
 * a keyframe stand out of the pictures before it while it carries the
 * re-code (seed 271's case074, VP8: 3.6 times, three blocks side by side,
 * one short of a line) */
/* Two lights: a phone filmed in a lit room shows the screen's own light and
 * the room's, reflected; mains flicker and auto exposure move the room's
 * offset about 3.6 times the screen's, so one gain and offset per channel
 * over both leave the room's blocks a level or two under and the screen's
 * over, split at the phone's edges: enough to tip a dark page's blocks
 * (the grid's camera, tests/grid.c film; seed 281's case095). The screen is
 * the box of the blocks content filled (over twice their threshold with a
 * neighbour over its own, in changes of under 1/BOX_SHARE of the picture),
 * without TWO_CUT of them at each side, once there were TWO_SEEN; the room
 * is the rest below the top band. While both hold an eighth of the blocks
 * and TWO_GROUP, each gets its own gain and offset per channel on every
 * picture; on a phone filmed in a room on a landscape picture (b->room,
 * ROOM_MARGIN), TWO_GROUP alone: its screen may hold a tenth of the
 * picture or less, the room the rest, lit by the mains (seed 251's case008:
 * a screen's box of 10 x 13 blocks, 130 of 1,296; the room swings by 33
 * levels in a cycle of 6 frames while the screen holds within 6, and one
 * light over both tips 60 to 120 of the screen's blocks 2.3 to 2.9 times
 * their threshold every third frame to the capture's end). Once TWO_LIT
 * pictures judged no change showed the two lights
 * TWO_APART levels apart in a channel at the screen's mean, in a capture of
 * a camera's noise (TWO_NOISE), the capture has two lights: from then on
 * they replace the whole picture's fit (no longer made) on every picture
 * whose screen's second round kept over half of its blocks (no change
 * filled the box). A screen recording has one light (a still picture fits
 * both groups alike) and little noise: it keeps the one fit. */
#define TWO_SEEN 16
/* A change of the whole picture (the light, a splash replaced on a phone
 * recording) fills no box; a phone filmed upright in a room on a landscape
 * picture fills a fifth to a third of it as its page appears (held-out
 * seed 487's case024: a phone of 198 x 343 pixels in 768 x 432, its page's
 * change 334 blocks of 1,296, every other change under twice the
 * threshold; with a quarter no box, no second light, and the screen's
 * blocks tipped by the room's 50 Hz light every fourth picture to the end:
 * no answer) */
#define BOX_SHARE 3
#define TWO_CUT 0.03
#define TWO_GROUP 16
#define TWO_APART 1.0
#define TWO_LIT 3
/* ... the capture's noise (noise_all) over TWO_NOISE levels: a camera's. A
 * screen recording's block residuals, re-coded by its encoder (VP8 at low
 * rates re-codes a still page so that its parts drift apart by a level),
 * stay under an eighth of a level at the median (the lowest bin, 1/16) */
#define TWO_NOISE 0.125
/* recheck_colour: a block whose move is led by its colour (CHROMA_LED times
 * its light's) counts its colour's move beyond CHROMA_SLACK times the
 * threshold, on a picture of no camera's noise */
#define CHROMA_LED 2.0
#define CHROMA_SLACK 2.0
/* The box grows to the phone's outline: on every TWO_EVERY-th picture that
 * took two lights, each block's error against the room's light is measured
 * against the two lights' difference (follow_row); the blocks that followed
 * the screen's light, TWO_FOLLOW squared levels of difference seen at
 * least, are the phone's, blank parts included. */
#define TWO_EVERY 4
#define TWO_FOLLOW 30.0
/* ... each block's follow measured against its row's room light, from the
 * row's blocks beside the box content filled when there are ROOM_ROW of them
 * (follow_row) */
#define ROOM_ROW 4
/* On a landscape picture of a phone filmed in a room, the room holds none
 * of the phone's content: only the columns content filled and ROOM_MARGIN
 * beside them count (the box's sides are cut by TWO_CUT of its blocks, and
 * a late line may end past them). The room's blocks flicker at the
 * late-content rules' shares and over their threshold, and raise their
 * window's peaks (held-out landscape seed 353's case009, x264 at q33: a
 * late line at 0.39-1.31 times the threshold in row 7 of a phone at
 * columns 23-32, while the room at columns 6-13 of rows 17-18 stood at
 * 0.56-0.66). A room: content filled an upright box and none of it lay
 * beyond those columns, the picture around them is no flat border (under
 * SETTLE_ROOM_FLAT of its blocks near their median), and the picture is a
 * camera's: its noise (TWO_NOISE), or, where an encoder smoothed that
 * away, a light that moved (the fit moving a mid-grey level by over
 * ROOM_LIGHT in some channel) on ROOM_MOVES pictures at least and on one
 * in ROOM_SHARE. Of the real captures, browsertime's and Eideticker's HDMI
 * recordings of pages whose content fills an upright box with no flat
 * border beside it each had content beyond its columns (1 to 494 blocks),
 * and one (taskjs_xul, VP8) an encoder's noise over TWO_NOISE; a screen
 * recording's fit moves its light only while content fades (0 to 2 of the
 * first 10 to 70 pictures of those recordings, against a fifth to two
 * thirds of the accuracy grids' rooms under mains light, drift or
 * auto-exposure). Eideticker's camera films had no content beside the
 * phone (room45) */
#define ROOM_MARGIN 2
#define ROOM_LIGHT 1.0
#define ROOM_MOVES 8
#define ROOM_SHARE 4
/* ... or, where the encoder smoothed the noise and the light held still, a
 * room that stirs: on ROOM_MOVES pictures at least and one in ROOM_SHARE
 * (keyframes aside), over ROOM_STIRRED of the blocks beyond the columns
 * move by over ROOM_STIR times their threshold (a camera's noise the
 * encoder let through at bright parts of the room, rolling-shutter bands;
 * held-out landscape seed 373's case040, x264 with B-frames at q28: a
 * fifth of the room's blocks over 0.1 on three pictures in four, the white
 * card beside the phone up to 0.84, while the block noise's median stood
 * in its lowest bin). A screen recording's page beside its column is
 * coded once and repeated: stagesepx's docs_video_0, the one real
 * recording with such a column on a landscape picture, none of its
 * pictures */
#define ROOM_STIR 0.1
#define ROOM_STIRRED 0.05

static void block_row(SettleBlocks *b, const uint8_t *rgb, ptrdiff_t stride, int by, int rows);

int settle_blocks_init(SettleBlocks *b, int w, int h, int bar_rows)
{
    return settle_blocks_init_size(b, w, h, bar_rows, SETTLE_BLOCK);
}

int settle_blocks_init_size(SettleBlocks *b, int w, int h, int bar_rows, int bs)
{
    memset(b, 0, sizeof(*b));
    if (w < 1 || h < 1 || bs < 1 || bs > SETTLE_BLOCK || SETTLE_BLOCK % bs)
        return SETTLE_ERR_INVAL;
    b->w = w;
    b->h = h;
    b->bs = bs;
    b->bw = (w + bs - 1) / bs;
    b->bh = (h + bs - 1) / bs;
    b->nb = b->bw * b->bh;
    b->bar_rows = bar_rows < 0 ? 0 : bar_rows >= b->bh ? 0 : bar_rows;
    b->edge_from = b->bw;
    b->foot_from = b->bh;
    b->fade_on = h > w;
    b->phone = h > w;
    size_t n = (size_t)b->nb;
    b->sum = calloc(n * 3, sizeof(*b->sum));
    b->ref = calloc(n * 3, sizeof(*b->ref));
    b->judged = calloc(n * 3, sizeof(*b->judged));
    b->last = calloc(n * 3, sizeof(*b->last));
    b->recent = calloc(n * 3 * SETTLE_BLOCK_RECENT, sizeof(*b->recent));
    b->step = calloc(n * 3, sizeof(*b->step));
    b->run = calloc(n, sizeof(*b->run));
    b->hold = calloc(n, sizeof(*b->hold));
    b->lvl = calloc(n, sizeof(*b->lvl));
    b->seen_x = calloc((size_t)b->bw, sizeof(*b->seen_x));
    b->seen_y = calloc((size_t)b->bh, sizeof(*b->seen_y));
    b->follow = calloc(2 * n, sizeof(*b->follow));
    b->line = calloc((size_t)b->bw + (size_t)b->bh, sizeof(*b->line));
    b->filled[0] = b->box[0] = 1;
    b->filled[2] = b->box[2] = 0;
    b->moved = calloc(n * 3, sizeof(*b->moved));
    b->res = calloc(n * 4, sizeof(*b->res)); /* the residual, then 3 per-channel errors */
    b->scratch = calloc(n + 6 * (size_t)b->bw, sizeof(*b->scratch));
    /* one more than the sums: block_row reads the last column's as a word */
    b->colsum = calloc((size_t)w * 3 + 1, sizeof(*b->colsum));
    b->keys = calloc(2 * (n + 8), sizeof(*b->keys));
    b->bin = calloc(n, sizeof(*b->bin));
    /* the late-line rule's memory */
    b->shares = calloc(n * SETTLE_BLOCK_LONE_SEEN, sizeof(*b->shares));
    b->sum_rows = settle_sum_rows;
    b->fit_sums = settle_fit_sums;
    b->select_part = settle_select_part;
    b->block_errors = settle_block_errors;
    b->block_levels = settle_block_levels;
    b->block_residuals = settle_block_residuals;
    b->block_shares = settle_block_shares;
    b->block_means = settle_block_means;
    if (!b->bin || !b->judged || !b->shares ||
        !b->sum || !b->ref || !b->last || !b->recent || !b->step || !b->run || !b->hold ||
        !b->lvl || !b->seen_x || !b->seen_y || !b->follow || !b->line || !b->moved || !b->res ||
        !b->scratch || !b->colsum || !b->keys) {
        settle_blocks_free(b);
        return SETTLE_ERR_NOMEM;
    }
    if (settle_blocks_line_init(&b->lines, w, h, b->bw, b->bh) < 0) {
        settle_blocks_free(b);
        return SETTLE_ERR_NOMEM;
    }
    for (int l = 0; l < SETTLE_BLOCK_LEVELS; l++)
        b->noise[l] = -1;
    b->noise_all = -1;
    b->gain_min = b->gain_max = 1;
    return 0;
}

void settle_blocks_free(SettleBlocks *b)
{
    free(b->sum);
    free(b->ref);
    free(b->judged);
    b->judged = NULL;
    free(b->last);
    free(b->recent);
    free(b->step);
    free(b->run);
    free(b->hold);
    b->hold = NULL;
    free(b->lvl);
    free(b->seen_x);
    free(b->seen_y);
    b->seen_x = b->seen_y = NULL;
    free(b->follow);
    b->follow = NULL;
    free(b->line);
    b->line = NULL;
    free(b->moved);
    b->run = NULL;
    b->lvl = NULL;
    b->moved = NULL;
    free(b->res);
    free(b->scratch);
    free(b->colsum);
    free(b->keys);
    b->keys = NULL;
    free(b->bin);
    b->bin = NULL;
    free(b->shares);
    b->shares = NULL;
    settle_blocks_line_free(&b->lines);
    b->sum = b->ref = b->last = b->step = b->res = b->scratch = NULL;
    b->colsum = NULL;
}

void settle_blocks_rows(SettleBlocks *b, const uint8_t *rgb, ptrdiff_t stride, int y0, int rows)
{
    const int bs = b->bs;
    rows = rows > SETTLE_BLOCK ? SETTLE_BLOCK : rows;
    /* blocks smaller than a band (a reduced picture): a row of blocks at a time */
    for (int k = 0; k < rows; k += bs)
        block_row(b, rgb + (ptrdiff_t)k * stride, stride, (y0 + k) / bs,
                  rows - k < bs ? rows - k : bs);
}

/* The means of row by of blocks, from its rows (bs or what is left). */
static void block_row(SettleBlocks *b, const uint8_t *rgb, ptrdiff_t stride, int by, int rows)
{
    const int bs = b->bs;
    if (by >= b->bh || rows < 1)
        return;
    /* column sums first (at most 16 x 255, exact in 16 bits), with the
     * kernel for this CPU; then each block's 16 columns of each channel */
    const uint16_t *cs = b->colsum;
    b->sum_rows(rgb, stride, b->w * 3, rows, b->colsum);
    if (b->lines.on)
        settle_blocks_line_row(b, rgb, stride, by, rows);
    float *s = b->sum + 3 * (size_t)by * b->bw;
    /* the whole blocks with the one divisor they share, by the kernel for
     * this CPU (b->block_means); a block narrower than bs (the last) here */
    int i = b->w / bs;
    b->block_means(cs, i, bs, 1.0f / (float)(bs * rows), s);
    s += 3 * i;
    cs += 3 * (size_t)bs * i;
    for (; i < b->bw; i++, s += 3) {
        int cols = b->w - i * bs < bs ? b->w - i * bs : bs;
        uint32_t r = 0, g = 0, bl = 0;
        for (int k = 0; k < cols; k++, cs += 3) {
            r += cs[0];
            g += cs[1];
            bl += cs[2];
        }
        float inv = 1.0f / (float)(cols * rows);
        s[0] = (float)r * inv;
        s[1] = (float)g * inv;
        s[2] = (float)bl * inv;
    }
}

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The bound of a fit's second round from one channel's residuals res (n,
 * made absolute here): 3 median residuals, at least 1. When more than half
 * of the residuals are below a third, so is the median, and the bound is 1
 * without the selection (they are counted as they are made). */
static double fit_bound(const SettleBlocks *b, float *res, int n)
{
    const float third = settle_float_below(3.0, 1);
    int small = 0;
    for (int k = 0; k < n; k++) {
        res[k] = fabsf(res[k]);
        small += res[k] <= third;
    }
    double lim = small > n / 2 ? 1.0 : 3.0 * settle_select_with(b->select_part, b->keys, res, n, n / 2);
    return lim < 1.0 ? 1.0 : lim;
}

/* Each channel's gain and offset from its sums s (x, y, xx, xy, blocks),
 * bounded; a channel of under 4 blocks keeps a and o as they are. */
static void fit_solve(double s[5][3], double a[3], double o[3])
{
    for (int c = 0; c < 3; c++) {
        const double sx = s[0][c], sy = s[1][c], sxx = s[2][c], sxy = s[3][c], n = s[4][c];
        if (n < 4)
            continue;
        double var = sxx / n - (sx / n) * (sx / n);
        if (var < 16) { /* a flat picture: an offset says as much */
            a[c] = 1;
            o[c] = (sy - sx) / n;
        } else {
            a[c] = (sxy / n - (sx / n) * (sy / n)) / var;
            o[c] = sy / n - a[c] * sx / n;
        }
        a[c] = clampd(a[c], GAIN_LO, GAIN_HI);
        o[c] = clampd(o[c], -OFFSET_MAX, OFFSET_MAX);
    }
}

static double threshold(const SettleBlocks *b, int l);

/* Whether the gain a and offset o per channel from the reference to the
 * picture (b->sum) are no light (LIGHT_STILL); the reference's levels are
 * b->lvl's. */
static int light_denied(const SettleBlocks *b, const double a[3], const double o[3])
{
    /* the most the fit moves any level: under the least threshold, none */
    double most = 0;
    for (int c = 0; c < 3; c++) {
        const double lo = fabs(o[c]), hi = fabs((a[c] - 1) * 255 + o[c]);
        most = fmax(most, fmax(lo, hi));
    }
    if (most <= SETTLE_BLOCK_MIN)
        return 0;
    int still = 0;
    for (int k = 0; k < b->nb; k++) {
        const float *r = b->ref + 3 * (size_t)k, *s = b->sum + 3 * (size_t)k;
        double moved = 0, stayed = 0;
        int clipped = 0;
        for (int c = 0; c < 3; c++) {
            clipped |= r[c] < LIGHT_CLIP_LO || r[c] > LIGHT_CLIP_HI;
            moved = fmax(moved, fabs((a[c] - 1) * r[c] + o[c]));
            stayed = fmax(stayed, fabs((double)s[c] - r[c]));
        }
        if (!clipped && stayed <= LIGHT_STILL_LEVEL && moved > threshold(b, b->lvl[k]) &&
            ++still >= LIGHT_STILL)
            return 1;
    }
    return 0;
}

/* cur = a * ref + b for each channel c over blocks [from, nb): least
 * squares, again without the blocks more than 3 median residuals off,
 * bounded; tmp holds 3 * nb floats. The three channels' fits are
 * independent: their sums are taken side by side (b->fit_sums), each in its
 * own order; the residuals for the bounds, all three channels' in one pass
 * (b->block_errors), each channel's apart. */
static void fit_channels(const SettleBlocks *b, const float *ref, float *tmp, int from,
                         double ga[3], double gb[3])
{
    double a[3] = { 1, 1, 1 }, o[3] = { 0, 0, 0 }, lim[3];
    double s[5][3];
    const int nk = b->nb - from;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            b->block_errors(ref + 3 * (size_t)from, b->sum + 3 * (size_t)from, nk, a, o, NULL, tmp);
            for (int c = 0; c < 3; c++)
                lim[c] = fit_bound(b, tmp + (size_t)c * nk, nk);
        }
        b->fit_sums(ref + 3 * (size_t)from, b->sum + 3 * (size_t)from, nk, a, o,
                    pass ? lim : NULL, s);
        /* pass 0 counts every block, the same for each channel */
        if (pass == 0 && s[4][0] < 4)
            break;
        fit_solve(s, a, o);
    }
    for (int c = 0; c < 3; c++) {
        ga[c] = a[c];
        gb[c] = o[c];
    }
}

void settle_blocks_light(const SettleBlocks *b, const float *old, float *tmp, double a[3], double o[3])
{
    int from = b->bar_rows * b->bw;
    fit_channels(b, old, tmp, from < b->nb ? from : 0, a, o);
}

/* The spans of row by (below the top band) by light: up to 3 of
 * (first block, blocks, group), group 1 the screen's box, 0 the room. */
static int row_spans(const SettleBlocks *b, int by, int span[3][3])
{
    const int *box = b->box, k0 = by * b->bw;
    int n = 0;
    if (by < box[1] || by > box[3]) {
        span[0][0] = k0;
        span[0][1] = b->bw;
        span[0][2] = 0;
        return 1;
    }
    const int cut[4] = { 0, box[0], box[2] + 1, b->bw };
    for (int i = 0; i < 3; i++)
        if (cut[i + 1] > cut[i]) {
            span[n][0] = k0 + cut[i];
            span[n][1] = cut[i + 1] - cut[i];
            span[n][2] = i == 1;
            n++;
        }
    return n;
}

/* fit_channels for the room (group 0) and the screen's box (group 1) at
 * once, below the top band: each round's sums of both groups in one pass
 * over the rows, span by span (n: each group's blocks; tmp: 3 * nb
 * floats); kept: the blocks the screen's second round kept (the fewest of
 * its channels'), mean: the screen's mean reference per channel in it. */
static void fit_lights(const SettleBlocks *b, const float *ref, float *tmp, const int n[2],
                       double a[2][3], double o[2][3], double *kept, double mean[3])
{
    float *ch = b->scratch; /* a span's channels apart: 3 * bw floats */
    float *res[2] = { tmp, tmp + 3 * (size_t)n[0] };
    double lim[2][3], s[2][5][3];
    int span[3][3];
    for (int g = 0; g < 2; g++)
        for (int c = 0; c < 3; c++) {
            a[g][c] = 1;
            o[g][c] = 0;
        }
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            int at[2] = { 0, 0 };
            for (int by = b->bar_rows; by < b->bh; by++)
                for (int i = 0, ns = row_spans(b, by, span); i < ns; i++) {
                    const int k = span[i][0], m = span[i][1], g = span[i][2];
                    b->block_errors(ref + 3 * (size_t)k, b->sum + 3 * (size_t)k, m, a[g], o[g],
                                    NULL, ch);
                    for (int c = 0; c < 3; c++)
                        memcpy(res[g] + (size_t)c * n[g] + at[g], ch + (size_t)c * m,
                               (size_t)m * sizeof(*ch));
                    at[g] += m;
                }
            for (int g = 0; g < 2; g++)
                for (int c = 0; c < 3; c++)
                    lim[g][c] = fit_bound(b, res[g] + (size_t)c * n[g], n[g]);
        }
        memset(s, 0, sizeof(s));
        for (int by = b->bar_rows; by < b->bh; by++)
            for (int i = 0, ns = row_spans(b, by, span); i < ns; i++) {
                const int k = span[i][0], g = span[i][2];
                double t[5][3];
                b->fit_sums(ref + 3 * (size_t)k, b->sum + 3 * (size_t)k, span[i][1], a[g], o[g],
                            pass ? lim[g] : NULL, t);
                for (int j = 0; j < 5; j++)
                    for (int c = 0; c < 3; c++)
                        s[g][j][c] += t[j][c];
            }
        for (int g = 0; g < 2; g++)
            fit_solve(s[g], a[g], o[g]);
    }
    *kept = s[1][4][0];
    for (int c = 0; c < 3; c++) {
        *kept = s[1][4][c] < *kept ? s[1][4][c] : *kept;
        mean[c] = s[1][4][c] > 0 ? s[1][0][c] / s[1][4][c] : 0;
    }
}

/* A phone filmed upright in a room on a landscape picture (ROOM_MARGIN):
 * content filled an upright box, beside which lies a room. */
static int in_room(const SettleBlocks *b)
{
    return b->phone && b->h <= b->w && b->room;
}

/* Whether the picture takes two lights (see TWO_SEEN), and their fits (a,
 * o: the room's, then the screen's); b->apart: whether they stood apart;
 * tmp: 3 * nb floats. */
static int two_lights(SettleBlocks *b, float *tmp, double a[2][3], double o[2][3])
{
    const int *box = b->box;
    b->apart = 0;
    if (box[0] > box[2] || b->bar_rows >= b->bh)
        return 0;
    const int all = b->nb - b->bar_rows * b->bw;
    const int in = (box[2] - box[0] + 1) * (box[3] - box[1] + 1);
    const int least = !in_room(b) && all / 8 > TWO_GROUP ? all / 8 : TWO_GROUP;
    if (in < least || all - in < least)
        return 0;
    const int n[2] = { all - in, in };
    double kept, mean[3], apart = 0;
    fit_lights(b, b->ref, tmp, n, a, o, &kept, mean);
    if (!(kept * 2 > in))
        return 0;
    for (int c = 0; c < 3; c++) {
        double d = fabs((a[1][c] - a[0][c]) * mean[c] + o[1][c] - o[0][c]);
        apart = d > apart ? d : apart;
    }
    b->apart = apart >= TWO_APART;
    return b->lit >= TWO_LIT;
}

/* The box of n blocks counted by column (xs, bw) and by row (ys, bh), all
 * but TWO_CUT of them at each side. */
static void cut_box(const SettleBlocks *b, const uint32_t *xs, const uint32_t *ys, uint32_t n,
                    int box[4])
{
    const uint32_t cut = (uint32_t)(n * TWO_CUT);
    int x0 = 0, x1 = b->bw - 1, y0 = 0, y1 = b->bh - 1;
    uint32_t acc;
    for (acc = 0; x0 < b->bw - 1 && acc + xs[x0] <= cut; x0++)
        acc += xs[x0];
    for (acc = 0; x1 > 0 && acc + xs[x1] <= cut; x1--)
        acc += xs[x1];
    for (acc = 0; y0 < b->bh - 1 && acc + ys[y0] <= cut; y0++)
        acc += ys[y0];
    for (acc = 0; y1 > 0 && acc + ys[y1] <= cut; y1--)
        acc += ys[y1];
    box[0] = x0;
    box[1] = y0;
    box[2] = x1;
    box[3] = y1;
}

/* The screen's box: the one content filled, grown to the outline's (o, when
 * there is one). */
static void join_box(SettleBlocks *b, const int *o)
{
    const int *f = b->filled;
    for (int i = 0; i < 4; i++)
        b->box[i] = !o ? f[i] : i < 2 ? (o[i] < f[i] ? o[i] : f[i]) : (o[i] > f[i] ? o[i] : f[i]);
}

/* How far the blocks of row by followed the screen's light (a[1], o[1])
 * rather than the room's (a[0], o[0]), from their errors against the
 * room's (ch: the row's channels apart): each block's error projected on
 * the two lights' difference d at its reference, t = (e . d) / (d . d)
 * (about 0 for the room, 1 for the screen; bounded to [-1, 2] so that
 * content does not count for more than the light), weighted by d . d.
 * A rolling shutter films mains flicker as a band across the rows, which
 * moves the room's blocks of a row alike, and by as much as the two lights
 * differ: so the row's own room light (the median error per channel of its
 * blocks beside the columns content filled, when there are ROOM_ROW of
 * them; not the box's, which the outline grows) is taken out first. tmp: bw
 * floats. */
static void follow_row(SettleBlocks *b, int by, const float *ref, const float *ch, double a[2][3],
                       double o[2][3], float *tmp)
{
    const int bw = b->bw, *box = b->filled;
    float *fo = b->follow + 2 * (size_t)by * bw;
    double band[3] = { 0, 0, 0 };
    for (int c = 0; c < 3; c++) {
        int n = 0;
        for (int i = 0; i < bw; i++)
            if (i < box[0] || i > box[2])
                tmp[n++] = ch[c * bw + i];
        if (n >= ROOM_ROW)
            band[c] = settle_select_with(b->select_part, b->keys, tmp, n, n / 2);
    }
    for (int i = 0; i < bw; i++) {
        double ed = 0, dd = 0;
        for (int c = 0; c < 3; c++) {
            const double d = (a[1][c] - a[0][c]) * ref[3 * i + c] + o[1][c] - o[0][c];
            ed += (ch[c * bw + i] - band[c]) * d;
            dd += d * d;
        }
        if (!(dd > 0))
            continue;
        const double t = ed / dd;
        fo[2 * i] += (float)((t < -1 ? -1 : t > 2 ? 2 : t) * dd);
        fo[2 * i + 1] += (float)dd;
    }
}

/* The phone's outline: the box of the blocks below the top band whose
 * light followed the screen's (over half, with TWO_FOLLOW of weight at
 * least), once there are TWO_SEEN of them; in a room (in_room), held to the
 * columns content filled and ROOM_MARGIN beside them, which the room's
 * blocks lie beyond (seed 433's case105, a screen of 10 x 17 blocks whose
 * outline grew over the room, columns 19-28 to 13-41: the room's blocks,
 * fitted with the screen's light, fired 0.875 s after the page). */
static void screen_outline(SettleBlocks *b)
{
    uint32_t *xs = b->line, *ys = b->line + b->bw, n = 0;
    memset(b->line, 0, ((size_t)b->bw + (size_t)b->bh) * sizeof(*b->line));
    for (int k = b->bar_rows * b->bw; k < b->nb; k++) {
        const float *fo = b->follow + 2 * (size_t)k;
        if (fo[1] >= (float)TWO_FOLLOW && fo[0] > 0.5f * fo[1]) {
            xs[k % b->bw]++;
            ys[k / b->bw]++;
            n++;
        }
    }
    if (n < TWO_SEEN)
        return;
    int o[4];
    cut_box(b, xs, ys, n, o);
    if (in_room(b)) {
        o[0] = o[0] > b->filled[0] - ROOM_MARGIN ? o[0] : b->filled[0] - ROOM_MARGIN;
        o[2] = o[2] < b->filled[2] + ROOM_MARGIN ? o[2] : b->filled[2] + ROOM_MARGIN;
    }
    join_box(b, o);
}

/* errors per channel after the gain and offset and the row offsets */
static void compensate(SettleBlocks *b, double *gain_out, double *row_out)
{
    int from = b->bar_rows * b->bw;
    if (from >= b->nb)
        from = 0;
    float *err = b->res + b->nb;
    double gsum = 0, osum = 0, a[3], o[3], la[2][3], lo[2][3];
    /* two lights, the room's gain reported (the camera's exposure, which no
     * content moves); else one, the whole picture's. err is made after the
     * fits. */
    b->two = two_lights(b, err, la, lo);
    if (b->two) {
        memcpy(a, la[0], sizeof(a));
        memcpy(o, lo[0], sizeof(o));
    } else {
        fit_channels(b, b->ref, err, from, a, o);
        if (light_denied(b, a, o))
            for (int c = 0; c < 3; c++) {
                a[c] = 1;
                o[c] = 0;
            }
    }
    for (int c = 0; c < 3; c++) {
        gsum += a[c];
        osum += o[c];
    }
    *gain_out = gsum / 3;
    double off = osum / 3;
    double moved = 0;
    for (int c = 0; c < 3; c++)
        moved = fmax(moved, fabs((a[c] - 1) * 128 + o[c]));
    b->lit_moved += moved > ROOM_LIGHT;
    b->offset_min = off < b->offset_min ? off : b->offset_min;
    b->offset_max = off > b->offset_max ? off : b->offset_max;
    double cap = b->noise_all > 0 ? ROW_NOISE * b->noise_all : 0;
    cap = cap > ROW_CAP ? ROW_CAP : cap;
    double rmax = 0;
    /* A row of blocks at a time, while it is in the cache: its errors (block
     * by block, the three channels side by side), each channel's errors
     * apart in scratch as they are made, then each channel's median offset
     * (clamped to the cap) taken out of the row: the same values as a pass
     * a channel over the whole picture. */
    const int follow = b->two && b->frames % TWO_EVERY == 0;
    const int bw = b->bw;
    float *ch = b->scratch; /* 3 * bw floats: the row's channels apart, then
                             * 3 * bw for the screen's */
    for (int by = 0; by < b->bh; by++) {
        const size_t k0 = 3 * (size_t)by * bw;
        float *row = err + k0;
        const float *s = b->sum + k0, *r = b->ref + k0;
        if (b->two) {
            /* the room's light (the top band's too), then the screen's
             * over its box, its channels put in the row's */
            b->block_errors(r, s, bw, la[0], lo[0], row, ch);
            if (follow && by >= b->bar_rows)
                follow_row(b, by, r, ch, la, lo, ch + 3 * bw);
            if (by >= b->box[1] && by <= b->box[3]) {
                const int x0 = b->box[0], m = b->box[2] - x0 + 1;
                float *t = ch + 3 * bw;
                b->block_errors(r + 3 * x0, s + 3 * x0, m, la[1], lo[1], row + 3 * x0, t);
                for (int c = 0; c < 3; c++)
                    memcpy(ch + c * bw + x0, t + c * m, (size_t)m * sizeof(*t));
            }
        } else {
            b->block_errors(r, s, bw, a, o, row, ch);
        }
        if (!(cap > 0))
            continue;
        float m[3];
        for (int c = 0; c < 3; c++) {
            double mc = clampd(settle_select_with(b->select_part, b->keys, ch + c * bw, bw, bw / 2), -cap, cap);
            rmax = fabs(mc) > rmax ? fabs(mc) : rmax;
            m[c] = (float)mc;
        }
        for (int i = 0; i < bw; i++)
            for (int c = 0; c < 3; c++)
                row[3 * i + c] -= m[c];
    }
    *row_out = rmax;
    if (follow)
        screen_outline(b);
}

/* settle_block_levels (b->block_levels) has these 8 levels of 32 */
_Static_assert(SETTLE_BLOCK_LEVELS == 8, "the block levels' kernel has 8 levels");

static int level_of(const float *ref)
{
    int l = (int)((ref[0] + 2 * ref[1] + ref[2]) / 4 / (256.0 / SETTLE_BLOCK_LEVELS));
    return l < 0 ? 0 : l >= SETTLE_BLOCK_LEVELS ? SETTLE_BLOCK_LEVELS - 1 : l;
}

static int hist_rank(const uint32_t *h, uint32_t rank)
{
    uint32_t seen = 0;
    for (int i = 0; i < SETTLE_BLOCK_RBINS; i++) {
        seen += h[i];
        if (seen > rank)
            return i;
    }
    return SETTLE_BLOCK_RBINS - 1;
}

/* Each block's residual (the largest of its channels' errors err, in
 * b->res) and its bin of an eighth of a level (b->block_residuals), and
 * from them this frame's median residual per brightness level learnt. */
static void learn_noise(SettleBlocks *b, const float *err)
{
    uint32_t count[SETTLE_BLOCK_LEVELS] = { 0 }, all[SETTLE_BLOCK_RBINS] = { 0 };
    memset(b->frame_hist, 0, sizeof(b->frame_hist));
    b->block_residuals(err, b->nb, SETTLE_BLOCK_RBINS, b->res, b->bin);
    for (int k = 0; k < b->nb; k++) {
        int l = b->lvl[k], bin = b->bin[k];
        b->frame_hist[l][bin]++;
        all[bin]++;
        count[l]++;
    }
    for (int l = 0; l < SETTLE_BLOCK_LEVELS; l++) {
        if (count[l] < LEVEL_MIN_BLOCKS)
            continue;
        b->med_hist[l][hist_rank(b->frame_hist[l], count[l] / 2)]++;
        b->med_n[l]++;
        b->noise[l] = (hist_rank(b->med_hist[l], (uint32_t)(b->med_n[l] * NOISE_PERCENTILE)) + 0.5) / 8;
    }
    b->all_hist[hist_rank(all, (uint32_t)b->nb / 2)]++;
    b->all_n++;
    b->noise_all = (hist_rank(b->all_hist, (uint32_t)(b->all_n * NOISE_PERCENTILE)) + 0.5) / 8;
}

static double threshold(const SettleBlocks *b, int l)
{
    double n = b->noise[l] >= 0 ? b->noise[l] : b->noise_all;
    double t = SETTLE_BLOCK_K * n;
    return t > SETTLE_BLOCK_MIN ? t : SETTLE_BLOCK_MIN;
}

double settle_blocks_noise(const SettleBlocks *b, int l)
{
    return l < 0 || l >= SETTLE_BLOCK_LEVELS ? -1 : b->noise[l];
}

double settle_blocks_threshold(const SettleBlocks *b, int l)
{
    if (l < 0 || l >= SETTLE_BLOCK_LEVELS || b->noise[l] < 0)
        return -1;
    return threshold(b, l);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* settle_blocks_flat_outside's share, of the blocks outside columns x0 to
 * x1 - 1 and rows y0 to y1 - 1 */
static double flat_beside(const SettleBlocks *b, int x0, int y0, int x1, int y1)
{
    float *v = malloc((size_t)b->nb * sizeof(*v));
    if (!v)
        return NAN;
    int n = 0;
    for (int k = 0; k < b->nb; k++) {
        int bx = k % b->bw, by = k / b->bw;
        if (bx >= x0 && bx < x1 && by >= y0 && by < y1)
            continue;
        const float *r = b->ref + 3 * (size_t)k;
        v[n++] = (r[0] + r[1] + r[2]) / 3;
    }
    double share = NAN;
    if (n > 0) {
        qsort(v, (size_t)n, sizeof(*v), cmp_float);
        const float med = v[n / 2];
        int flat = 0;
        for (int i = 0; i < n; i++)
            flat += fabsf(v[i] - med) <= SETTLE_FLAT_LEVELS;
        share = (double)flat / n;
    }
    free(v);
    return share;
}

double settle_blocks_flat_outside(const SettleBlocks *b, const int box[4])
{
    if (!b->have_ref || !b->ref || b->nb <= 0)
        return NAN;
    return flat_beside(b, box[0] / b->bs - 1, box[1] / b->bs - 1, (box[2] + b->bs - 1) / b->bs + 1,
                       (box[3] + b->bs - 1) / b->bs + 1);
}

double settle_blocks_threshold_of(const SettleBlocks *b, const float *ref)
{
    return threshold(b, level_of(ref));
}

/* whether block k (over its threshold) has a neighbour over its own in the
 * same part of the picture (the top band or the rest) */
static int has_neighbour(const SettleBlocks *b, const float *ratio, int k)
{
    int bx = k % b->bw, by = k / b->bw, bar = by < b->bar_rows;
    for (int dy = -1; dy <= 1; dy++) {
        int y = by + dy;
        if (y < 0 || y >= b->bh || (y < b->bar_rows) != bar)
            continue;
        for (int dx = -1; dx <= 1; dx++) {
            int x = bx + dx;
            if ((dx || dy) && x >= 0 && x < b->bw && ratio[y * b->bw + x] > 1)
                return 1;
        }
    }
    return 0;
}

/* On a phone's picture whose noise is no camera's (TWO_NOISE: a screen
 * recording, or a film whose encoder smoothed the noise away), a block over
 * its threshold whose move is led by its colour (the channels apart from
 * their light, 1:2:1 as the levels weigh them, by CHROMA_LED times the
 * light's move or more) is judged again: an encoder codes colour at half
 * the picture's size and more coarsely than light, and at a low rate
 * re-codes a still page's colours frame after frame, moving a block's
 * channels apart by up to CHROMA_SLACK times the threshold while its light
 * stays (VP8 at 2 Mbit/s on stagesepx's short.mp4 and video_for_train.mp4:
 * 9 to 32 levels of colour, light under 7, for a second after the page is
 * drawn). Such a block counts by its light, or by its colour's move beyond
 * that slack. Content moves a block's light as much as its colour (text,
 * pictures, a browser's subpixel text: browsertime's duckduckgo_firefox's
 * tab title), or its colour far (sitespeed_android's scroll bar: 63
 * levels, light unmoved). Not a cut block at the right or bottom edge (a
 * picture not a multiple of the block's side: Eideticker's 691-pixel-wide
 * Fennec HDMI captures, whose last column of 3 pixels the encoder flickers
 * in colour), nor the top band, judged apart (a status bar's recording
 * pill pulses in red, led by its colour: grid seed 251's case109 was taken
 * for a camera's noise when the pill's changes no longer showed there). A
 * desktop page keeps every channel alike (a carousel fading slowly between
 * slides of one light on VP8 is content to its end). The smaller share
 * counts. */
static void recheck_colour(SettleBlocks *b, float *ratio, double scale, const double *thr)
{
    const float *err = b->res + b->nb;
    const int cut_x = b->w % b->bs ? b->bw - 1 : b->bw, cut_y = b->h % b->bs ? b->bh - 1 : b->bh;
    for (int k = b->bar_rows * b->bw; k < b->nb; k++) {
        if (ratio[k] <= 1 || k % b->bw >= cut_x || k / b->bw >= cut_y)
            continue;
        const float *e = err + 3 * k;
        const double y = (e[0] + 2.0 * e[1] + e[2]) / 4, t = thr[b->lvl[k]];
        double c = 0;
        for (int i = 0; i < 3; i++)
            c = fmax(c, fabs(e[i] - y));
        if (c < CHROMA_LED * fabs(y))
            continue;
        const double r = fmax(fabs(y), c - CHROMA_SLACK * t) / t / scale;
        ratio[k] = r < ratio[k] ? (float)r : ratio[k];
    }
}

/* The blocks over their threshold judged again against the picture at the
 * last change, the light since then taken out (a gain and an offset per
 * channel): an encoder that held a block while the exposure drifted, then
 * updates it, moves it far from the reference (which followed the held
 * block) but not from what it showed at the last change. The smaller share
 * counts. b->res is free for the fit's scratch by then. */
static void recheck_last(SettleBlocks *b, float *ratio, double scale, const double *thr)
{
    int from = b->bar_rows * b->bw;
    if (from >= b->nb)
        from = 0;
    double a[3], o[3];
    fit_channels(b, b->last, b->res, from, a, o);
    for (int k = 0; k < b->nb; k++) {
        if (ratio[k] <= 1)
            continue;
        double m = 0;
        for (int c = 0; c < 3; c++) {
            double e = fabs(b->sum[3 * k + c] - (a[c] * b->last[3 * k + c] + o[c]));
            m = e > m ? e : m;
        }
        double r = m / thr[b->lvl[k]] / scale;
        ratio[k] = r < ratio[k] ? (float)r : ratio[k];
    }
}

/* The blocks over their threshold judged again against each of the last
 * pictures (SETTLE_BLOCK_RECENT), the light since each taken out: a block
 * nearer to a picture two frames back or more than to the previous one, and
 * nearer to it than to the reference, is back where the light's cycle had
 * it, not content. A room lit by mains, its rows banded by a rolling
 * shutter and its flat dark wall coded by the encoder in steps of a level
 * of its quantiser, flickers in a cycle of a few frames that beats with the
 * frame rate, by as much as the threshold's floor; after a change the
 * reference is the picture at one phase of that cycle, and the next phases
 * tip the room's blocks over it picture after picture (held-out seed 299's
 * case010). Content that comes over several frames moves a block away from
 * the pictures before it, nearest to the previous one; an encoder's
 * catch-up moves it from all of them. The smaller share counts. */
static void recheck_recent(SettleBlocks *b, float *ratio, double scale, const double *thr)
{
    int from = b->bar_rows * b->bw;
    if (from >= b->nb)
        from = 0;
    const int n = b->recent_n;
    const size_t n3 = (size_t)b->nb * 3;
    double a[SETTLE_BLOCK_RECENT][3], o[SETTLE_BLOCK_RECENT][3];
    const float *pic[SETTLE_BLOCK_RECENT];
    if (n < 2)
        return;
    for (int j = 0; j < n; j++) {
        /* j frames before the previous picture */
        pic[j] = b->recent + n3 * (size_t)((b->recent_pos + 2 * SETTLE_BLOCK_RECENT - 1 - j) %
                                           SETTLE_BLOCK_RECENT);
        fit_channels(b, pic[j], b->res, from, a[j], o[j]);
    }
    for (int k = 0; k < b->nb; k++) {
        if (ratio[k] <= 1 || ratio[k] > RECENT_MAX)
            continue;
        double last = 0, best = ratio[k];
        for (int j = 0; j < n; j++) {
            double m = 0;
            for (int c = 0; c < 3; c++) {
                double e = fabs(b->sum[3 * k + c] - (a[j][c] * pic[j][3 * k + c] + o[j][c]));
                m = e > m ? e : m;
            }
            double r = m / thr[b->lvl[k]] / scale;
            if (j == 0)
                last = r;
            else if (r < last && r < best)
                best = r;
        }
        ratio[k] = (float)best;
    }
}

/* This picture into the ring of the last ones (recheck_recent, fade_step). */
static void keep_recent(SettleBlocks *b)
{
    const size_t n3 = (size_t)b->nb * 3;
    memcpy(b->recent + n3 * (size_t)b->recent_pos, b->sum, n3 * sizeof(*b->recent));
    b->recent_pos = (b->recent_pos + 1) % SETTLE_BLOCK_RECENT;
    b->recent_n += b->recent_n < SETTLE_BLOCK_RECENT;
}

static double noise_of(const SettleBlocks *b, int l)
{
    return b->noise[l] >= 0 ? b->noise[l] : b->noise_all;
}

/* The fade test: each block's step from the previous picture, a gain and an
 * offset per channel taken out (exposure), against its step before. Content
 * that fades in (or out) moves its blocks the same way frame after frame
 * towards the final picture, by similar steps; an encoder re-coding moves
 * them a few levels either way, and its refinement after a change converges
 * (each step a fraction of the one before, or two steps at most: a B-frame
 * and the keyframe after it). A block fades when its last FADE_RUN steps went
 * the same way, each at least a third of the one before, and moved it in all
 * by more than FADE_FAR times its threshold (as far as content moves it). A picture that
 * repeats the previous one (a recorder's duplicated frame) leaves the steps
 * as they were (up to FADE_HOLD in a row). Below the top band only. */
static void fade_step(SettleBlocks *b, SettleBlocksFrame *out)
{
    int from = b->bar_rows * b->bw;
    if (from >= b->nb)
        from = 0;
    float *d = b->res; /* 3 * nb: this picture's steps; the fit's scratch before */
    double a[3], o[3], most = 0;
    /* the previous picture: the ring's newest (the ring is kept on every
     * capture, and every picture since the first went into it) */
    const float *prev = b->recent + (size_t)b->nb * 3 *
                                        (size_t)((b->recent_pos + SETTLE_BLOCK_RECENT - 1) %
                                                 SETTLE_BLOCK_RECENT);
    fit_channels(b, prev, d, from, a, o);
    b->block_errors(prev, b->sum, b->nb, a, o, d, NULL);
    for (int k = 3 * from; k < 3 * b->nb; k++)
        most = fabsf(d[k]) > most ? fabsf(d[k]) : most;
    if (most < FADE_REPEAT) {
        /* a still picture: the steps before it are stale */
        if (++b->repeats > FADE_HOLD) {
            b->have_step = 0;
            memset(b->run, 0, (size_t)b->nb);
            memset(b->hold, 0, (size_t)b->nb);
        }
        return;
    }
    b->repeats = 0;
    for (int k = 0; k < b->nb; k++) {
        float *st = b->step + 3 * k;
        const float *dk = d + 3 * k;
        double mag = 0, pmag = 0, dot = 0;
        for (int c = 0; c < 3; c++) {
            mag = fabsf(dk[c]) > mag ? fabsf(dk[c]) : mag;
            pmag = fabsf(st[c]) > pmag ? fabsf(st[c]) : pmag;
            dot += (double)dk[c] * st[c];
        }
        double n = noise_of(b, b->lvl[k]), m = FADE_K * n;
        m = m > FADE_MIN ? m : FADE_MIN;
        /* a fading block that did not move on this picture keeps its run
         * and its step (up to FADE_HOLD pictures in a row), as on a
         * repeated picture: a recorder's repeat that the encoder re-coded
         * moves other blocks a little, so the picture is no exact repeat */
        if (b->have_step && k >= from && mag <= m && b->run[k] > 0 && b->hold[k] < FADE_HOLD) {
            b->hold[k]++;
            continue;
        }
        b->hold[k] = 0;
        for (int c = 0; c < 3; c++)
            st[c] = dk[c];
        int moved = b->have_step && k >= from && mag > m && pmag > m && k % b->bw < b->edge_from &&
                    k < b->foot_from * b->bw;
        int coherent = moved && dot > 0 && 3 * mag >= pmag;
        b->run[k] = coherent ? (uint8_t)(b->run[k] < 255 ? b->run[k] + 1 : 255) : 0;
        float *acc = b->moved + 3 * k;
        double amax = 0;
        for (int c = 0; c < 3; c++) {
            acc[c] = coherent ? acc[c] + dk[c] : dk[c];
            amax = fabsf(acc[c]) > amax ? fabsf(acc[c]) : amax;
        }
        /* a fade ends where content does: the run moved the block as far */
        if (b->run[k] >= FADE_RUN && amax <= FADE_FAR * threshold(b, b->lvl[k]))
            b->run[k] = FADE_RUN - 1;
        out->coherent += coherent;
        out->opposed += moved && dot < 0;
    }
    b->have_step = 1;
    for (int k = from; k < b->nb; k++) {
        if (b->run[k] < FADE_RUN || b->hold[k])
            continue;
        out->fading++;
        int bx = k % b->bw, by = k / b->bw, near = 0;
        for (int y = by - 1; y <= by + 1 && !near; y++)
            for (int x = bx - 1; x <= bx + 1; x++)
                if ((x != bx || y != by) && x >= 0 && x < b->bw && y * b->bw >= from && y < b->bh &&
                    b->run[y * b->bw + x] >= FADE_RUN && !b->hold[y * b->bw + x]) {
                    near = 1;
                    break;
                }
        out->fading_area += near;
    }
}

/* The scale of the thresholds from the frame's median share (ratio's
 * median): SPREAD times it when it is over 1/SPREAD and at most 1, else 1.
 * On most frames of a camera film more than half of the shares are at most
 * 1/SPREAD (or over 1), which two counts tell without the selection. */
static double spread_scale(SettleBlocks *b, const float *ratio, int low, int in)
{
    const int k = b->nb / 2;
    if (low > k || in <= k)
        return 1;
    float *tmp = b->res + b->nb; /* the channel errors are no longer needed */
    memcpy(tmp, ratio, (size_t)b->nb * sizeof(*tmp));
    return SPREAD * settle_select_with(b->select_part, b->keys, tmp, b->nb, k);
}

/* Leaves the blocks of columns x0 .. x1 - 1, rows y0 .. y1 - 1 out of the
 * picture's verdict unless one moved by `strong` times its threshold or
 * more (0: none kept). 1 when they were left out and changed (a block over
 * twice its threshold, or over it with a neighbour in the rectangle over it
 * too: the one above or below, and with `across` the one beside): their
 * reference then moves to the picture, as a change's does, so that an
 * indicator's fade is judged step by step, not summed. Their shares are set
 * to 0, and the picture's peak and whether any share is over 1 found again
 * without them. */
static int apart(SettleBlocks *b, float *ratio, int x0, int x1, int y0, int y1, int across,
                 double strong, double *peak, int *over)
{
    int change = 0, top = 0;
    double most = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            int k = y * b->bw + x;
            int nb = (y > y0 && ratio[k - b->bw] > 1) || (y + 1 < y1 && ratio[k + b->bw] > 1) ||
                     (across && ((x > x0 && ratio[k - 1] > 1) || (x + 1 < x1 && ratio[k + 1] > 1)));
            change |= ratio[k] > 2 || (ratio[k] > 1 && nb);
            top |= ratio[k] >= *peak;
            most = ratio[k] > most ? ratio[k] : most;
        }
    if (strong > 0 && most >= strong)
        return 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            int k = y * b->bw + x;
            if (change)
                memcpy(b->ref + 3 * k, b->sum + 3 * k, 3 * sizeof(*b->ref));
            ratio[k] = 0;
        }
    if (top) {
        *peak = 0;
        *over = 0;
        for (int k = 0; k < b->nb; k++) {
            *peak = ratio[k] > *peak ? ratio[k] : *peak;
            *over |= ratio[k] > 1;
        }
    }
    return change;
}

/* A phone's indicators, left out (apart): the right edge's columns below
 * the top band (edge_from), where Android's and iOS's browsers and lists
 * draw a scroll indicator, a thin bar, when a page grows or scrolls, at
 * once, and fade it out over the next quarter second or so, step by step
 * (content keeps a margin there), kept when a block there moved by
 * EDGE_STRONG times its threshold (drawn at once: the indicator appearing,
 * with the page's last layout), and kept from the picture in which it
 * changed for the EDGE_FRAMES-th time on (a capture's own edge); and the
 * bottom rows (foot_from), where the home indicator or gesture handle is
 * drawn, kept from the picture in which they changed on their own (no
 * content changed or faded in elsewhere) for the FOOT_FRAMES-th time on: a capture's
 * own content (while the screen changes they change with it, as the
 * indicator's colour follows it). */
static void indicators_apart(SettleBlocks *b, SettleBlocksFrame *out, float *ratio, double *peak,
                             int *over)
{
    if (b->edge_from < b->bw) {
        out->change_edge = apart(b, ratio, b->edge_from, b->bw, b->bar_rows, b->bh, 0,
                                 EDGE_STRONG, peak, over);
        if (out->change_edge && ++b->edge_frames >= EDGE_FRAMES)
            b->edge_from = b->bw;
    }
    if (b->foot_from < b->bh)
        out->change_foot = apart(b, ratio, 0, b->bw, b->foot_from, b->bh, 1, 0, peak, over);
}

/* A phone filmed in a room (ROOM_MARGIN): the room beside the columns x0
 * to x1 of the phone's picture holds none of its content; its blocks count
 * for nothing (ratio 0), and the peak and whether a block is over its
 * threshold are the rest's. */
static void room_apart(const SettleBlocks *b, int x0, int x1, float *ratio, double *peak, int *over)
{
    *peak = 0;
    *over = 0;
    for (int k = 0; k < b->nb; k++) {
        const int x = k % b->bw;
        if (x < x0 || x > x1)
            ratio[k] = 0;
        *peak = ratio[k] > *peak ? ratio[k] : *peak;
        *over |= ratio[k] > 1;
    }
}

/* Whether the room (the blocks below the top band beyond columns x0 to x1)
 * stirred in this picture: over ROOM_STIRRED of them over ROOM_STIR times
 * their threshold. */
static int room_stirs(const SettleBlocks *b, const float *ratio, int x0, int x1)
{
    int n = 0, stirred = 0;
    for (int k = b->bar_rows * b->bw; k < b->nb; k++) {
        const int x = k % b->bw;
        if (x >= x0 && x <= x1)
            continue;
        n++;
        stirred += ratio[k] > (float)ROOM_STIR;
    }
    return n > 0 && stirred > ROOM_STIRRED * n;
}

/* Whether n of the pictures judged so far are a camera's room: ROOM_MOVES
 * at least and one in ROOM_SHARE. */
static int room_often(const SettleBlocks *b, int64_t n)
{
    return n >= ROOM_MOVES && n * ROOM_SHARE >= b->frames;
}

/* Whether this picture, with `lone` blocks over their threshold and no
 * change, completes a lone pair that stands out (LONE_STAND). */
static int lone_pair(const SettleBlocks *b, const SettleBlocksFrame *out, int lone)
{
    if (!b->phone || b->keyframe || b->lone_prev <= 0 || lone < 1 || lone > 2 ||
        lone != out->changed || out->change || out->change_bar || b->calm < SETTLE_BLOCK_LONE_SEEN)
        return 0;
    double most = 0;
    int newest = (b->lone_pos + SETTLE_BLOCK_LONE_SEEN - 1) % SETTLE_BLOCK_LONE_SEEN;
    for (int i = 0; i < SETTLE_BLOCK_LONE_SEEN; i++)
        if (i != newest && b->lone_seen[i] > most)
            most = b->lone_seen[i];
    return out->peak >= LONE_STAND * most && b->lone_prev >= LONE_STAND * most;
}

/* Whether block k and the one below it (at k + bw) are a split pair: both
 * over AREA_SHARE times their threshold, their shares together over it. */
static int split_pair(const float *ratio, int k, int bw)
{
    float up = ratio[k], down = ratio[k + bw];
    return up > (float)AREA_SHARE && down > (float)AREA_SHARE && up + down > 1;
}

/* Whether column x holds a block over AREA_SHARE times its threshold in
 * row y or a row beside it (below the top band). */
static int line_column(const SettleBlocks *b, const float *ratio, int y, int x)
{
    for (int r = y - 1; r <= y + 1; r++)
        if (r >= b->bar_rows && r < b->bh && ratio[r * b->bw + x] > (float)AREA_SHARE)
            return 1;
    return 0;
}

/* Whether block k, over AREA_SHARE times its threshold, is in a run of
 * AREA_LINE columns side by side that each hold such a block in its row or
 * a row beside it: a line along a row of blocks, or one that a tilted
 * picture (a phone filmed at an angle) steps from one row to the next. */
static int in_run(const SettleBlocks *b, const float *ratio, int k)
{
    int y = k / b->bw, from = k % b->bw, to = from;
    if (!(ratio[k] > (float)AREA_SHARE))
        return 0;
    while (from > 0 && line_column(b, ratio, y, from - 1))
        from--;
    while (to + 1 < b->bw && line_column(b, ratio, y, to + 1))
        to++;
    return to - from + 1 >= AREA_LINE;
}

/* A level of shares r at rows y0 to y1 (clipped to the picture below the
 * top band) */
typedef double (*RowsLevel)(const SettleBlocks *b, const float *r, int y0, int y1);

/* ... their largest share */
static double rows_max(const SettleBlocks *b, const float *r, int y0, int y1)
{
    y0 = y0 < b->bar_rows ? b->bar_rows : y0;
    y1 = y1 >= b->bh ? b->bh - 1 : y1;
    double m = 0;
    for (int k = y0 * b->bw; k < (y1 + 1) * b->bw; k++)
        m = r[k] > m ? r[k] : m;
    return m;
}

/* ... the strength of a line there: over every AREA_RUN columns side by
 * side, the least of the columns' largest shares; the largest such */
static double run_level(const SettleBlocks *b, const float *r, int y0, int y1)
{
    y0 = y0 < b->bar_rows ? b->bar_rows : y0;
    y1 = y1 >= b->bh ? b->bh - 1 : y1;
    double best = 0;
    for (int x = 0; x + AREA_RUN <= b->bw; x++) {
        double least = INFINITY;
        for (int c = x; c < x + AREA_RUN; c++) {
            double m = 0;
            for (int y = y0; y <= y1; y++)
                m = r[y * b->bw + c] > m ? r[y * b->bw + c] : m;
            least = m < least ? m : least;
        }
        best = least > best ? least : best;
    }
    return best;
}

/* The largest `level` of rows y0 to y1 in the `seen` pictures before this
 * one (level NULL: the whole picture's peak), a keyframe's by what the
 * reference has left of it since. */
static double window_most(const SettleBlocks *b, RowsLevel level, int y0, int y1, int seen)
{
    double most = 0, left = 1;
    for (int i = 0; i < seen; i++) {
        int at = (b->lone_pos + SETTLE_BLOCK_LONE_SEEN - 1 - i) % SETTLE_BLOCK_LONE_SEEN;
        left *= 1 - 1 / LEAK;
        double m = level ? level(b, b->shares + (size_t)at * (size_t)b->nb, y0, y1)
                         : b->lone_seen[at];
        m = b->key_seen[at] ? m * left : m;
        most = m > most ? m : most;
    }
    return most;
}

/* Whether this picture, with no change, holds a line and stands out
 * (AREA_STAND): every block over AREA_SHARE below the top band in two rows
 * side by side (an encoder's update of a held photo after the light
 * drifted moves blocks by as much all over it), holding AREA_PAIRS split
 * pairs side by side or a run of AREA_LINE columns (in_run); or that
 * stands out of the window at its own rows (AREA_ROWS, AREA_WIDE). The
 * window: the still pictures since the last change, AREA_CALM of them at
 * least, SETTLE_BLOCK_LONE_SEEN at most. */
static int split_line(const SettleBlocks *b, const SettleBlocksFrame *out, const float *ratio)
{
    if (!b->phone || b->keyframe || out->change || out->change_bar || b->calm < AREA_CALM ||
        !(out->peak > AREA_SHARE))
        return 0;
    const int seen = b->calm < SETTLE_BLOCK_LONE_SEEN ? b->calm : SETTLE_BLOCK_LONE_SEEN;
    int top = b->bh, bottom = -1;
    for (int k = b->bar_rows * b->bw; k < b->nb; k++)
        if (ratio[k] > (float)AREA_SHARE) {
            top = k / b->bw < top ? k / b->bw : top;
            bottom = k / b->bw;
        }
    if (bottom < 0 || bottom - top > 1)
        return 0;
    int n = 0, run = 0;
    double line = 0;
    for (int k = top * b->bw; k < (bottom + 1) * b->bw; k++) {
        int x = k % b->bw;
        if (bottom > top && k < bottom * b->bw && split_pair(ratio, k, b->bw) &&
            ((x > 0 && split_pair(ratio, k - 1, b->bw)) || (x + 1 < b->bw && split_pair(ratio, k + 1, b->bw))))
            n++;
        run |= in_run(b, ratio, k);
        line = ratio[k] > line ? ratio[k] : line;
    }
    if (n < AREA_PAIRS && !run)
        return 0;
    const double most = window_most(b, NULL, 0, 0, seen);
    double near = window_most(b, rows_max, top - AREA_ROWS, bottom + AREA_ROWS, seen);
    if (out->peak >= AREA_STAND * most)
        return 1;
    if (!(out->peak >= AREA_WIDE * most))
        return 0;
    return line >= AREA_STAND * near ||
           run_level(b, ratio, top, bottom) >=
               RUN_STAND * window_most(b, run_level, top - AREA_ROWS, bottom + AREA_ROWS, seen);
}

/* The lone-pair rule's memory of this picture, once it is judged. */
static void lone_keep(SettleBlocks *b, const SettleBlocksFrame *out, const float *ratio, int lone)
{
    int still = !out->change && !out->change_bar && !out->fade;
    b->lone_seen[b->lone_pos] = (float)out->peak;
    memcpy(b->shares + (size_t)b->lone_pos * (size_t)b->nb, ratio, (size_t)b->nb * sizeof(*ratio));
    /* a still picture after a keyframe whose peak is no more than what the
     * reference has left of the keyframe's carries that re-code, not more */
    b->key_left *= 1 - 1 / LEAK;
    int left_over = !b->keyframe && b->key_left > 0 && out->peak <= KEY_SLACK * b->key_left;
    b->key_seen[b->lone_pos] = (uint8_t)(b->keyframe || (still && left_over));
    b->key_left = !still ? 0 : b->keyframe ? out->peak : b->key_left;
    b->lone_pos = (b->lone_pos + 1) % SETTLE_BLOCK_LONE_SEEN;
    b->calm = still ? b->calm + 1 : 0;
    b->lone_prev =
        still && !b->keyframe && lone >= 1 && lone <= 2 && lone == out->changed ? out->peak : 0;
}

/* The blocks content filled in the picture judged last (a change of under
 * 1/BOX_SHARE of the picture), counted; their box once there were TWO_SEEN,
 * and the screen's box with it (an outline found before stays within it). */
static void screen_box(SettleBlocks *b, const SettleBlocksFrame *out, const float *ratio)
{
    int from = b->bar_rows * b->bw;
    if (!out->change || out->changed * BOX_SHARE >= b->nb || from >= b->nb)
        return;
    for (int k = from; k < b->nb; k++)
        if (ratio[k] > 2 && has_neighbour(b, ratio, k)) {
            b->seen_x[k % b->bw]++;
            b->seen_y[k / b->bw]++;
            b->seen++;
        }
    if (b->seen < TWO_SEEN)
        return;
    const int had = b->filled[0] <= b->filled[2];
    int old[4];
    memcpy(old, b->box, sizeof(old));
    cut_box(b, b->seen_x, b->seen_y, b->seen, b->filled);
    join_box(b, had ? old : NULL);
    const int *f = b->filled;
    uint32_t beside = 0;
    for (int x = 0; x < b->bw; x++)
        beside += x < f[0] - ROOM_MARGIN || x > f[2] + ROOM_MARGIN ? b->seen_x[x] : 0;
    b->room = !beside && flat_beside(b, f[0] - 1, f[1] - 1, f[2] + 2, f[3] + 2) < SETTLE_ROOM_FLAT;
}

/* The reference after the verdict: the picture on a change, else 1/LEAK
 * of the way to it. A line the line test counted leaves it to follow the
 * picture: its blocks moved under their threshold, and a fade's next steps
 * are still to be judged against the picture before it (seed 353's
 * case100: a page's text fading in over 15 pictures lifts a run of
 * profiles to 24 times the box's median on its sixth step). */
static void follow(SettleBlocks *b, const SettleBlocksFrame *out)
{
    if ((out->change && !b->lines.fired) || out->change_bar || out->fade) {
        float *t = b->judged;
        b->judged = b->ref;
        b->ref = t;
        memcpy(b->ref, b->sum, (size_t)b->nb * 3 * sizeof(*b->ref));
        memcpy(b->last, b->sum, (size_t)b->nb * 3 * sizeof(*b->last));
        keep_recent(b);
        return;
    }
    for (int k = 0; k < b->nb; k++)
        for (int c = 0; c < 3; c++)
            b->ref[3 * k + c] += (b->sum[3 * k + c] - b->ref[3 * k + c]) / (float)LEAK;
    keep_recent(b);
}

void settle_blocks_frame(SettleBlocks *b, SettleBlocksFrame *out)
{
    memset(out, 0, sizeof(*out));
    out->gain = 1;
    b->frames++;
    if (!b->have_ref) {
        memcpy(b->ref, b->sum, (size_t)b->nb * 3 * sizeof(*b->ref));
        memcpy(b->last, b->sum, (size_t)b->nb * 3 * sizeof(*b->last));
        b->have_ref = 1;
        settle_blocks_line_keep(b, out);
        keep_recent(b);
        return;
    }
    /* the reference stays as it is until the verdict; its levels are
     * level_of's (b->block_levels) */
    b->block_levels(b->ref, b->nb, b->lvl);
    if (b->fade_on)
        fade_step(b, out);
    double gain, rows;
    compensate(b, &gain, &rows);
    out->gain = gain;
    b->gain_min = gain < b->gain_min ? gain : b->gain_min;
    b->gain_max = gain > b->gain_max ? gain : b->gain_max;
    b->row_max = rows > b->row_max ? rows : b->row_max;
    learn_noise(b, b->res + b->nb);
    /* the late-content rules run on a phone's picture: a portrait one, or
     * a landscape one in which content filled an upright box (a phone
     * filmed upright in a room on a 16:9 picture: its late lines as faint
     * at the block test's noise floor, its room flickering as much); a
     * desktop page fills a wide one, and its caret's blinks or its
     * browser's reload button are no late content of a phone's */
    b->phone = b->h > b->w || (b->filled[0] <= b->filled[2] &&
                               b->filled[3] - b->filled[1] > b->filled[2] - b->filled[0]);
    const int roomy = in_room(b); /* a room, if a camera's */
    const int room = roomy && (b->noise_all > TWO_NOISE || room_often(b, b->lit_moved) ||
                               room_often(b, b->room_stirred));
    const int x0 = b->filled[0] - ROOM_MARGIN, x1 = b->filled[2] + ROOM_MARGIN;
    /* the residual as a share of its threshold, in scratch, and the counts
     * that spread_scale reads (its shares at most 1/SPREAD and at most 1) */
    float *ratio = b->scratch;
    double thr[SETTLE_BLOCK_LEVELS];
    for (int l = 0; l < SETTLE_BLOCK_LEVELS; l++)
        thr[l] = threshold(b, l);
    const float sixth = settle_float_below(SPREAD, 0);
    int counts[3];
    double peak = b->block_shares(b->res, b->lvl, thr, b->nb, sixth, ratio, counts);
    int over = counts[2] > 0;
    /* the frame's median share: over 1, the whole picture changed (content);
     * under it, what moved every block is the encoder or the light, and a
     * block must stand out of it. A scale of 1 leaves every share as it is
     * (x / 1 is x), so the shares are divided only by another. */
    double scale = spread_scale(b, ratio, counts[0], counts[1]);
    if (scale != 1) {
        over = 0;
        peak = 0;
        for (int k = 0; k < b->nb; k++) {
            ratio[k] = (float)(ratio[k] / scale);
            over |= ratio[k] > 1;
            peak = ratio[k] > peak ? ratio[k] : peak;
        }
    }
    if (over && b->phone && b->noise_all <= TWO_NOISE)
        recheck_colour(b, ratio, scale, thr);
    if (over)
        recheck_last(b, ratio, scale, thr);
    /* on a phone filmed by a camera (its noise) */
    if (over && b->phone && b->noise_all > TWO_NOISE)
        recheck_recent(b, ratio, scale, thr);
    indicators_apart(b, out, ratio, &peak, &over);
    b->room_stirred += roomy && !b->keyframe && room_stirs(b, ratio, x0, x1);
    if (room)
        room_apart(b, x0, x1, ratio, &peak, &over);
    /* with no share over 1 (most frames of a camera film) the loop below
     * would find the peak alone, which the shares' pass found */
    out->peak = over ? 0 : peak;
    int lone = 0; /* blocks over their threshold below the top band */
    for (int k = 0; k < b->nb && over; k++) {
        out->peak = ratio[k] > out->peak ? ratio[k] : out->peak;
        if (ratio[k] <= 1)
            continue;
        out->changed++;
        lone += k / b->bw >= b->bar_rows;
        if (ratio[k] > 2 || has_neighbour(b, ratio, k)) {
            if (k / b->bw < b->bar_rows)
                out->change_bar = 1;
            else
                out->change = 1;
        }
    }
    /* content fading in: each step under the threshold, but an area of
     * blocks moving the same way step after step, more of them than blocks
     * moving back (an encoder re-coding). A verdict of its own, which
     * moves the reference as a change does */
    b->lone_fired = lone_pair(b, out, lone);
    out->change |= b->lone_fired;
    b->area_fired = !out->change && split_line(b, out, ratio);
    out->change |= b->area_fired;
    out->fading_seen = out->fading_area >= FADE_AREA && out->fading >= FADE_SHARE * out->opposed;
    out->fade = !out->change && out->fading_seen;
    /* the line test on any phone's room: an encoder that smoothed a
     * camera's noise away leaves room45's camera tests unpassed, and a
     * screen recording has no room (seed 367's case078 and case089) */
    out->change |= settle_blocks_line_fires(b, out, roomy, gain);
    settle_blocks_line_keep(b, out);
    lone_keep(b, out, ratio, lone);
    screen_box(b, out, ratio);
    if (out->change_foot && !out->change && !out->fade && ++b->foot_frames >= FOOT_FRAMES)
        b->foot_from = b->bh;
    /* the capture has two lights once TWO_LIT still pictures of a camera's
     * noise showed them */
    if (b->apart && b->noise_all > TWO_NOISE && !out->change && !out->change_bar && !out->fade &&
        b->lit < TWO_LIT)
        b->lit++;
    follow(b, out);
}

/* Whether block k is one of a split pair, with the block above or below it. */
static int in_pair(const SettleBlocks *b, const float *ratio, int k)
{
    int y = k / b->bw;
    return (y >= b->bar_rows && y + 1 < b->bh && split_pair(ratio, k, b->bw)) ||
           (y - 1 >= b->bar_rows && split_pair(ratio, k - b->bw, b->bw));
}

void settle_blocks_marks(const SettleBlocks *b, uint8_t *mark)
{
    const float *ratio = b->scratch;
    for (int k = 0; k < b->nb; k++) {
        int area = b->area_fired && k / b->bw >= b->bar_rows;
        int line = b->lines.fired && k / b->bw == b->lines.run_y && k % b->bw >= b->lines.run_x &&
                   k % b->bw < b->lines.run_x + SETTLE_BLOCK_LINE_RUN;
        mark[k] = (uint8_t)((ratio[k] > 1 ? SETTLE_BLOCK_OVER : 0) |
                            (line ? SETTLE_BLOCK_LINE : 0) |
                            (ratio[k] > 2 ? SETTLE_BLOCK_TWICE : 0) |
                            (ratio[k] > 1 && b->lone_fired ? SETTLE_BLOCK_LONE : 0) |
                            (area && (in_pair(b, ratio, k) || in_run(b, ratio, k)) ? SETTLE_BLOCK_AREA : 0) |
                            (b->fade_on && b->run[k] >= FADE_RUN && !b->hold[k] ? SETTLE_BLOCK_FADING
                                                                                 : 0));
    }
}

/* 1 when a block touching block k in the same part of the picture (the top
 * band or the rest) carries the mark m. */
static int marked_neighbour(const SettleBlocks *b, const uint8_t *mark, int k, int m)
{
    int bx = k % b->bw, by = k / b->bw, bar = by < b->bar_rows;
    for (int y = by - 1; y <= by + 1; y++) {
        if (y < 0 || y >= b->bh || (y < b->bar_rows) != bar)
            continue;
        for (int x = bx - 1; x <= bx + 1; x++)
            if ((x != bx || y != by) && x >= 0 && x < b->bw && (mark[y * b->bw + x] & m))
                return 1;
    }
    return 0;
}

void settle_blocks_verdict(const SettleBlocks *b, const uint8_t *mark, int was_fade, int *change,
                           int *bar, int *fade)
{
    int from = b->bar_rows * b->bw, area = 0, faint = 0, line = 0;
    if (from >= b->nb)
        from = 0;
    *change = *bar = 0;
    for (int k = 0; k < b->nb; k++) {
        if ((mark[k] & SETTLE_BLOCK_OVER) &&
            ((mark[k] & (SETTLE_BLOCK_TWICE | SETTLE_BLOCK_LONE)) ||
             marked_neighbour(b, mark, k, SETTLE_BLOCK_OVER))) {
            if (k / b->bw < b->bar_rows)
                *bar = 1;
            else
                *change = 1;
        }
        area += k >= from && (mark[k] & SETTLE_BLOCK_FADING) &&
                marked_neighbour(b, mark, k, SETTLE_BLOCK_FADING);
        faint += k >= from && (mark[k] & SETTLE_BLOCK_AREA) &&
                 marked_neighbour(b, mark, k, SETTLE_BLOCK_AREA);
        line += k >= from && (mark[k] & SETTLE_BLOCK_LINE);
    }
    *change |= faint >= 2 * AREA_PAIRS || line == SETTLE_BLOCK_LINE_RUN;
    *fade = was_fade && !*change && area >= FADE_AREA;
}
