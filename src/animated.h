/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Areas that keep changing: carousels, clocks, spinners, carets, a phone's
 * recording pill. Each cell of the change grid (src/cells.c) keeps how often
 * it changed after the start and its latest changes. At the end, a cell is
 * animated when, after the rest of the screen made its last change, it
 * still changed at least SETTLE_ANIM_MIN times and either kept its rhythm to
 * the end of the recording (the quiet after its last change is at most 1.5
 * times its longest pause between those changes) or changed over at least
 * half of the recording. "The rest of the screen" is itself the cells that
 * are not animated, so the set is found by shrinking it from every candidate
 * until it holds. A carousel's turns change some cells of its slides that
 * other turns leave alone, so those cells have no rhythm of their own; their
 * changes are the carousel's when they come during one of its turns: a turn
 * is a run of at least SETTLE_ANIM_MIN frames in which the bursty animated
 * cells changed (their changes less than twice their shortest pause apart;
 * bursty: the longest pause at least 10 times the shortest, which a clock,
 * caret or spinner never is), its extent the rectangle (grown by one cell) of
 * the cells that changed in it touching those cells' changes; a change is the
 * turn's in that extent, or when its cell changed in SETTLE_ANIM_MIN frames
 * of the turn; only the turns after the rest settled count (the least such
 * time that the rest's own changes do not pass); none counts when the turns
 * fill over a third of the recording (a scroll, a pan) or would leave
 * nothing changing after the start. On an encoded capture a moving area
 * spills into the cells around it in some of its frames only (ringing, the
 * macroblocks it straddles, B-frames catching up): a change after the rest
 * settled in a frame in which a touching cell changed as an animated cell
 * or in a turn is that area's too. The cells whose changes after the rest
 * settled were all turns' or spills join the animated set. doc/screens.md: where this
 * is not sound (a scroll painted in bursts). Animated cells that touch
 * (8-connected) form one area, reported as the rectangle of the pixels they
 * changed after the rest settled; an area inside another's rectangle is part
 * of it. A set covering more than half the grid is no area: nothing is
 * reported (a camera's noise, a video playing full screen).
 * What keeps changing is what keeps moving the picture: each cell's changes
 * fall in runs (frames at most SETTLE_ANIM_RUN apart), and a run that never
 * took a 4x4 square's mean SETTLE_ANIM_MOVED levels from where it was before
 * the run moved nothing (an encoder re-coding the place: VP9 re-codes the
 * page in the frames of a carousel's fades, in its rhythm). The search is
 * made on every change, then on the moves alone; the second's areas are
 * taken when they hold only cells that the first names (where the picture
 * moves in small steps all over, a scroll or a video, leaving those steps out
 * would let its cells outlast what is left). Where an area is found, a cell
 * of the rest whose changes after its last move were all faint is re-coded
 * after it.
 */
#ifndef SETTLE_ANIMATED_H
#define SETTLE_ANIMATED_H

#include <stdint.h>
#include <stdio.h>

#include "cells.h"
#include "settle/settle.h"

#define SETTLE_ANIM_RING 32
#define SETTLE_ANIM_MIN 3
/* frames over which an encoder goes on re-coding what it re-coded */
#define SETTLE_ANIM_ECHO 12
/* frames over which an encoder refines what appeared strongly */
#define SETTLE_ANIM_REFINE 6
/* frames apart, at most, of two changes of a cell's one run */
#define SETTLE_ANIM_RUN 2
/* the share of the recording the turns may fill, at most: past it they are
 * the page moving (a scroll, a pan: contacts-scrolling-movie's fill 39%,
 * contacts-pan-120fps's 46%), not a carousel turning (a fade of 10 frames
 * every 35, with the page VP9 re-codes in its rhythm: 25%, seed 173's 012) */
#define SETTLE_ANIM_BUSY (1.0 / 3)
/* levels a run must move a cell's picture by (a channel's mean over one of
 * its 4x4 squares, from before the run) to be a move (src/cells.h) */
#define SETTLE_ANIM_MOVED SETTLE_CELL_MOVED

typedef struct SettleAnimEvent {
    double time;
    uint8_t box[4]; /* within the cell */
    uint8_t strong; /* a pixel of the cell changed beyond the strong tolerance */
    uint16_t count; /* its changed pixels */
    uint8_t moved;  /* how far its run moved the cell's picture (settle_animated_runs), levels */
} SettleAnimEvent;

typedef struct SettleAnimCell {
    int64_t n;      /* frames that changed it after the start */
    double first;   /* the first of them */
    int lost;       /* of the ring's slots, the oldest that hold none of them (a view
                     * of some of the changes, the moves alone, after more than the
                     * ring holds: the older ones are counted in n, not held) */
    SettleAnimEvent ev[SETTLE_ANIM_RING]; /* the latest, ev[(n - 1) % RING] the last */
} SettleAnimCell;

typedef struct SettleAnimated {
    int nx, ny;
    int ox, oy, w, h;      /* the measured rectangle in the input picture */
    SettleAnimCell *cell;
    const SettleAnimCell **view; /* settle_animated_find: each cell's changes as its
                                  * second search reads them (the moves alone) */
    int64_t *seen;         /* per cell: 1 + the index of the last frame that changed it, 0: none */
    int64_t *enc;          /* ... whose change of it was the encoder's (settle_animated_seen) */
    int64_t *kept;         /* ... whose change of it counted */
    int64_t *hard;         /* ... whose change of it counted, mostly strong, after a frame
                            * that left it alone (settle_animated_seen) */
    int64_t *fine;         /* ... whose change of it was a refinement (refining) */
    uint8_t *mark;         /* scratch for settle_animated_seen */
    /* per cell, its run of changes (frames at most SETTLE_ANIM_RUN apart):
     * when it began (seconds), its picture before it (SettleCells.sums), how
     * far the run moved it from there, at most (levels, up to 255) */
    double *run0;
    uint16_t (*base)[SETTLE_CELL_SUMS];
    uint8_t *moved;
    double *last_move;     /* per cell: its last change (after the start) in a run that
                            * moved it by SETTLE_ANIM_MOVED; -INFINITY: none */
    int64_t *move_at;      /* per cell: 1 + the index of the last frame (any) in which
                            * its run had moved it by SETTLE_ANIM_MOVED, 0: none */
    int64_t *strong_at;    /* ... in which it changed strongly */
    uint8_t *on;           /* per cell, after settle_animated_find: 1 animated, 2 joined
                            * (every change after the rest settled was a turn's or a
                            * spill: those changes are the area's), 3 re-coded (its
                            * changes after its own last were faint, made while an
                            * animated area changed: the encoder's, in no area) */
    double *until;         /* per cell, after settle_animated_find: a joined or re-coded
                            * cell's last change of its own (the rest's); -INFINITY: none */
    int count;             /* animated and joined cells */
    SettleAnimatedRegion *regions;
    int nregions;
    /* --ignore animated: every frame's changed cells, spooled */
    FILE *spool;
    int64_t next;          /* the spool's next frame, -1: read it */
    uint32_t next_n;
    /* --ignore animated under the block test: the marks of the blocks of
     * every frame the block test saw content in, spooled */
    FILE *bspool;
    int64_t bnext;         /* the block spool's next frame, -1: read it */
    uint32_t bnext_n;
} SettleAnimated;

/* One changed cell of a frame as spooled; cell with SETTLE_ANIM_NOAREA: it
 * counts only when no area was found. */
#define SETTLE_ANIM_NOAREA 0x80000000u
/* ... SETTLE_ANIM_UNCOUNTED: its change did not count (the encoder's by the
 * rules of settle_animated_recoded); SETTLE_ANIM_LATE: the encoder re-coding
 * the cell long after its last move, or a cell never moved nor changed
 * strongly whose change did not count (settle_animated_read's kept pixels) */
#define SETTLE_ANIM_UNCOUNTED 0x40000000u
#define SETTLE_ANIM_LATE 0x20000000u
typedef struct SettleAnimEntry {
    uint32_t cell;
    uint16_t count;
    uint8_t box[4];
} SettleAnimEntry;

/* What settle_animated_init spools: every frame's changed cells (for
 * settle_animated_read and settle_animated_read_in), and the block test's
 * marks (settle_animated_spool_blocks). */
#define SETTLE_ANIM_SPOOL_CELLS 1
#define SETTLE_ANIM_SPOOL_BLOCKS 2

/* For the grid g over the rectangle at ox, oy; spool: what to keep, 0 or
 * SETTLE_ANIM_SPOOL_* bits. 0, -1 (out of memory) or -2 (no temporary
 * file). */
int settle_animated_init(SettleAnimated *a, const SettleCells *g, int ox, int oy, int spool);
void settle_animated_free(SettleAnimated *a);

/* What an encoder did in a frame, from how strongly its cells changed (a
 * pixel beyond the strong tolerance, 96 levels: content moves by over 128,
 * an encoder re-coding a place by under 70):
 * SETTLE_ANIM_RECODED: some cells changed strongly, within half of the
 * picture (their bounding box of cells), others only faintly: x264
 * re-quantizes the page while a slide moves and re-codes it at a scene cut;
 * the faint cells are the encoder's, unless the change moved their picture
 * by SETTLE_CELL_MOVED levels from the frame before (a spinner's steps under
 * the strong level, beside a few pixels the encoder overshoots on).
 * SETTLE_ANIM_SPOTS: no pixel changed strongly, and at most 8 cells changed,
 * or at most a 64th of the grid none of which changed in the frame before
 * (frame index - 1): VP8 and VP9 re-code faint spots in frames of their own
 * after a change; such a frame's cells that neither made nor touch a change
 * that counted in the frame before are those spots (a fade changes its cells
 * frame after frame).
 * SETTLE_ANIM_FAINT: no pixel changed strongly, over more cells.
 * In both of these, a cell's change is also the encoder's when the encoder
 * re-coded the cell (any of these, or a refresh) at most SETTLE_ANIM_ECHO
 * frames before and no change of it or of a touching cell in the frame
 * before counted: VP8 and VP9 re-code a refreshed page again in frames of
 * their own, x264's B-frames catch up on the page after a strong change.
 * In both of these, a cell's change is the encoder's too when the cell or a
 * touching one changed, mostly strongly (at least half of its changed pixels
 * beyond the strong tolerance), where nothing changed in the frame before,
 * at most SETTLE_ANIM_REFINE frames before: content appeared or switched
 * there (a block, a carousel's slide, a clock's digits) and VP8 or x264,
 * which code new content coarsely first, refine it and its edges faintly in
 * the frames after; such a refinement goes on as the change it refines (a
 * spinner that spins on beside the new content counts again after it);
 * in a SETTLE_ANIM_BLANK frame (below) the window is SETTLE_ANIM_ECHO frames.
 * SETTLE_ANIM_BLANK: no pixel changed strongly and the block test saw no
 * content in the frame (blank: no block's mean moved beyond its threshold,
 * no fade, nothing in the status bar): an encoder re-coding the page moves
 * its pixels by a few levels either way, which leaves the blocks' means
 * where they were, where content, even faint, moves a coherent area one way.
 * VP8 re-codes parts of the page so long after the load, x264 with
 * B-frames 12 to 50 frames after a carousel's turn: a cell's change counts
 * only when it goes on from a change that counted in the frame before (its
 * own or a touching cell's: a fade's last, faintest step, which the block
 * test may miss) and is no refinement (below).
 * 0: neither. What the encoder did moves no area and --ignore animated does
 * not count it (settle_animated_frame, _spool). Where content fades in (faint
 * steps) while something else moves strongly, or changes faintly in a frame
 * of its own in one small place or where the encoder re-coded shortly
 * before, those changes are lost with it (doc/screens.md). Then
 * settle_animated_seen, for every frame, with the frame's answer, or
 * SETTLE_ANIM_REFRESH for a frame that re-coded the whole page (every
 * change the encoder's) or SETTLE_ANIM_QUIET for a frame that was no
 * change. */
#define SETTLE_ANIM_RECODED 1
#define SETTLE_ANIM_SPOTS 2
#define SETTLE_ANIM_FAINT 3
#define SETTLE_ANIM_REFRESH 4
#define SETTLE_ANIM_QUIET 5
#define SETTLE_ANIM_BLANK 6
int settle_animated_recoded(const SettleAnimated *a, const SettleCells *g, int64_t index,
                            int blank);
void settle_animated_seen(SettleAnimated *a, const SettleCells *g, int64_t index, int recoded);

/* The runs of the frame's changed cells (before settle_animated_frame and
 * settle_animated_seen, for every frame after the first). */
void settle_animated_runs(SettleAnimated *a, const SettleCells *g, double time, int64_t index);

/* A frame (index) after the start that counted as a change, with its cells
 * (recoded: settle_animated_recoded's answer for it). */
void settle_animated_frame(SettleAnimated *a, const SettleCells *g, double time, int64_t index,
                           int recoded);

/* Spools the frame's changed cells (--ignore animated). With
 * SETTLE_ANIM_REFRESH (a frame that re-coded the whole page: it moves no
 * area) only the cells that go on from a change that counted in the frame
 * before and refine nothing, as with SETTLE_ANIM_BLANK (a fade's step), and
 * they count only when no area is found (settle_animated_read). 0 or -1. */
int settle_animated_spool(SettleAnimated *a, const SettleCells *g, int64_t index, int recoded);

/* Finds the animated cells and areas for a recording whose measurement began
 * at `start` and that ends at `end` (seconds from the first frame). 0 or -1
 * (out of memory). */
int settle_animated_find(SettleAnimated *a, double start, double end);

/* Reading the spool back in frame order: the changed cells of frame `index`
 * at `time` (none when it was not spooled) without the animated ones (a
 * joined cell's only after its last change of its own): their pixels
 * and rectangle in the input picture (box w 0: none); with kept, also every
 * changed cell's pixels but the encoder's late re-coding (a faint change
 * that moved nothing, more than SETTLE_ANIM_ECHO frames after the cell's
 * last move, which it did not move after). 0 or -1 (read error). */
int settle_animated_rewind(SettleAnimated *a);
int settle_animated_read(SettleAnimated *a, int64_t index, double time, int64_t *pixels,
                         int box[4], int64_t *kept);

/* Reading the spool back in frame order, as settle_animated_read (frames
 * spooled before index and not asked for are passed over): the
 * pixels of frame `index`'s changed cells whose changed pixels reach into
 * rect (x0, y0, x1, y1 exclusive, on the measured picture the cells cover),
 * every cell counted whatever the animated areas, and their rectangle in the
 * input picture (box w 0: none). 0 or -1 (read error). */
int settle_animated_read_in(SettleAnimated *a, int64_t index, const int rect[4], int64_t *pixels,
                            int box[4]);

/* The block test's share (--ignore animated when it decides): spools the
 * marks (settle_blocks_marks) of frame `index`'s nb blocks (of bs pixels, bw
 * across, on the measured picture that the cells cover), with whether each
 * block's cell's change counted (g: the frame's cells, recoded:
 * settle_animated_recoded's answer for them, SETTLE_ANIM_REFRESH for a
 * frame that re-coded the whole page), as settle_animated_spool's do; before
 * settle_animated_seen. 0 or -1. */
int settle_animated_spool_blocks(SettleAnimated *a, const SettleCells *g, int64_t index,
                                 int recoded, const uint8_t *mark, int bw, int bs, int nb);
/* Reads them back in frame order (after settle_animated_rewind): mark (nb)
 * gets frame `index`'s marks at `time` without the blocks that lie in
 * animated cells (a joined cell's only after its last change of its own) or
 * whose cell's change did not count; *found: the frame was spooled. 0 or -1
 * (read error). */
int settle_animated_read_blocks(SettleAnimated *a, int64_t index, double time, int bw, int bs,
                                int nb, uint8_t *mark, int *found);

#endif
