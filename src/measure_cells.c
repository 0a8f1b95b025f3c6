/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The measure module "cells": where a picture changed, on a grid of 16x16
 * cells (src/cells.c), and the rectangle of its changed pixels into the
 * record. The animated areas (src/animated.c) read the grid.
 */
#include <stddef.h>

#include "measure_modules.h"

typedef struct Cells {
    int ox, oy;             /* the measured rectangle in the input picture */
    SettleCells cells;
} Cells;

static int cells_init(void *priv, const SettleMeasureArea *a)
{
    Cells *g = priv;
    g->ox = a->x;
    g->oy = a->y;
    if (settle_cells_init(&g->cells, a->w, a->h) < 0)
        return SETTLE_ERR_NOMEM;
    g->cells.change_masks = a->dsp->change_masks;
    return 0;
}

static void cells_begin(void *priv, int first)
{
    Cells *g = priv;
    if (!first)
        settle_cells_clear(&g->cells);
}

/* a band's change masks fit the cells' buffer */
_Static_assert(SETTLE_BAND_ROWS <= SETTLE_CELL, "a band is at most a row of cells");

/* Where the band changed, from the masks the "pixels" pass wrote (it runs
 * before this module). */
static int cells_band(void *priv, const SettleMeasureBand *b)
{
    Cells *g = priv;
    if (!b->first)
        settle_cells_masks(&g->cells, b->masks, b->y0, b->rows);
    settle_cells_sums(&g->cells, b->cur, b->cstride, b->y0, b->rows, b->first);
    return 0;
}

static int cells_picture(void *priv, const SettleMeasureFrame *f, SettleRecord *r)
{
    const Cells *g = priv;
    if (!f->first)
        r->bar_diff = g->cells.bar_count;
    if (!f->first && g->cells.box[2] > g->cells.box[0]) {
        const int *b = g->cells.box;
        r->box[0] = g->ox + b[0];
        r->box[1] = g->oy + b[1];
        r->box[2] = b[2] - b[0];
        r->box[3] = b[3] - b[1];
        r->local = (uint8_t)settle_cells_local(&g->cells);
        r->moved = settle_cells_moved_pixels(&g->cells);
        r->strong_cells = settle_cells_strong(&g->cells);
    }
    return 0;
}

static void cells_close(void *priv)
{
    Cells *g = priv;
    settle_cells_free(&g->cells);
}

const SettleMeasureModule settle_module_cells = {
    .name = "cells",
    .priv_size = sizeof(Cells),
    .options = NULL, /* the changed pixels' tolerance is "pixels"' */
    .init = cells_init,
    .begin = cells_begin,
    .band = cells_band,
    .picture = cells_picture,
    .close = cells_close,
};

SettleCells *settle_measure_cells(const SettleMeasure *m)
{
    Cells *g = settle_measure_state(m, &settle_module_cells);
    return g ? &g->cells : NULL;
}
