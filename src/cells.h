/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where a frame changed: a coarse grid of cells over the measured rectangle
 * with the pixels changed in each, and the rectangle holding every changed
 * pixel. Counted by the same rule as the changed-pixel count (the largest of
 * the R, G, B differences exceeds the tolerance) on the same pixels (after
 * --ignore and --blur), so the cells of a frame add up to its diff_pixels.
 */
#ifndef SETTLE_CELLS_H
#define SETTLE_CELLS_H

#include <stddef.h>
#include <stdint.h>

/* Pixels a side of a cell. */
#define SETTLE_CELL 16
/* A cell's picture, coarsely: the sums of R, G and B over each of its 4x4
 * squares of 4x4 pixels (settle_cells_sums). */
#define SETTLE_CELL_SUMS 48
/* Levels a change must take a channel's mean over one of a cell's 4x4
 * squares by to move the picture there: content appearing, a carousel's
 * turn, a clock's tick, a spinner's step; an encoder re-coding the place
 * moves it by under 32 (VP8, VP9, x264 on the grid, doc/screens.md) */
#define SETTLE_CELL_MOVED 40

typedef struct SettleCells {
    int w, h;          /* the measured rectangle */
    int nx, ny;        /* cells across and down */
    uint16_t *count;   /* nx * ny, row by row: pixels changed in this frame */
    uint16_t *strong;  /* nx * ny: of them, those changed strongly (beyond the strong
                        * tolerance: content, rarely an encoder re-coding the place) */
    uint8_t (*cbox)[4];/* nx * ny: x0, y0, x1, y1 (exclusive) of the changed pixels within the cell */
    uint8_t *dirty;    /* ny: the row of cells holds counts */
    int box[4];        /* x0, y0, x1, y1 (exclusive) of the changed pixels; x1 <= x0: none */
    uint64_t *masks;   /* SETTLE_CELL rows of nx words: rows' changed pixels, settle_change_masks */
    /* nx * ny: each cell's picture as of the last frame that changed it (all
     * cells from the first), and as it was before this frame (the cells that
     * changed in it) */
    uint16_t (*sums)[SETTLE_CELL_SUMS];
    uint16_t (*before)[SETTLE_CELL_SUMS];
    /* only the rectangle of the change (box): no area is looked for, so the
     * cells' counts, rectangles and pictures are not kept (count and strong
     * stay 0); set by the caller after init */
    int box_only;
    /* rows at the top judged apart (a phone's status bar, the block test's
     * top band; 0: none, set by the caller after init) and the pixels
     * changed in them in this frame, whatever box_only says */
    int bar_h;
    int64_t bar_count;
    /* x0, y0, x1, y1 (exclusive) of every pixel changed strongly (beyond the
     * strong tolerance: content's edges, not noise or an encoder's re-coding)
     * since the first frame, whatever box_only says; x1 <= x0: none yet */
    int strong_box[4];
    /* settle_change_masks or a faster kernel with the same answers (init
     * sets the scalar one; the caller may put its CPU's in) */
    void (*change_masks)(const uint8_t *a, const uint8_t *b, int w, int tol, int strong_tol,
                         uint64_t *masks);
} SettleCells;

/* Returns 0 or -1 (out of memory). */
int settle_cells_init(SettleCells *g, int w, int h);
void settle_cells_free(SettleCells *g);

/* A new frame: every count 0, no box. */
void settle_cells_clear(SettleCells *g);

/* Adds the change from prev to cur in rows y0 .. y0 + rows - 1 of the
 * rectangle (cur and prev point at row y0), w pixels wide: a pixel changed
 * beyond tol, strongly beyond strong_tol. */
void settle_cells_band(SettleCells *g, const uint8_t *cur, ptrdiff_t cstride,
                       const uint8_t *prev, ptrdiff_t pstride, int y0, int rows, int tol,
                       int strong_tol);

/* Adds the change of rows y0 .. y0 + rows - 1 (rows <= SETTLE_CELL) given as
 * their settle_change_masks, nx words a row, the rows one after the other (a
 * kernel that reads the band anyway writes them into g->masks). The same
 * result as settle_cells_band on the pictures. */
void settle_cells_masks(SettleCells *g, const uint64_t *masks, int y0, int rows);

/* Keeps the pictures of the cells of rows y0 .. y0 + rows - 1 (one row of
 * cells: y0 a multiple of SETTLE_CELL) from cur, w pixels of RGB a row:
 * every cell's on the first frame (first), then those that changed in this
 * frame (after the counts of those rows are in), their pictures before it
 * kept in g->before. */
void settle_cells_sums(SettleCells *g, const uint8_t *cur, ptrdiff_t cstride, int y0, int rows,
                       int first);

/* 1 when this frame's change lies mostly in one small place: the cells
 * that changed in at least a 16th of their pixels hold at least 3/4 of the
 * changed pixels, and their rectangle (of cells) covers less than a 16th of
 * the rectangle. A spinner or a clock re-encoded: the encoder's few stray
 * pixels elsewhere widen the rectangle of every changed pixel, not this. A
 * camera's noise is sparse all over, or dense all over (a change of light).
 * 0 with box_only. */
int settle_cells_local(const SettleCells *g);

/* How far cell i's picture moved from `from` (its sums): the largest change
 * of a channel's mean over one of its 4x4 squares, in levels. */
int settle_cells_moved(const SettleCells *g, size_t i, const uint16_t *from);

/* The pixels changed in this frame in the cells whose picture it moved by
 * SETTLE_CELL_MOVED (settle_cells_moved from their picture before it): a
 * change that is coherent where it lies, whether or not it moves the mean of
 * a larger block (a spinner's turn, a pattern shifting, keep it). 0 with
 * box_only. */
int64_t settle_cells_moved_pixels(const SettleCells *g);

/* The cells in which a pixel changed strongly in this frame: how far the
 * strong pixels spread (a caret's blink lies in one or two, a line of text
 * in a row of them). 0 with box_only. */
int settle_cells_strong(const SettleCells *g);

/* The changed pixels of cell (cx, cy) in this frame. */
static inline int settle_cells_at(const SettleCells *g, int cx, int cy)
{
    return g->count[(size_t)cy * g->nx + cx];
}

#endif
