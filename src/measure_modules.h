/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The measure modules of measure.c's table, and what the other stages read
 * of their state.
 */
#ifndef SETTLE_MEASURE_MODULES_H
#define SETTLE_MEASURE_MODULES_H

#include "cells.h"
#include "measure.h"
#include "measure_blocks.h"
#include "regions.h"
#include "visual.h"

extern const SettleMeasureModule settle_module_pixels;  /* measure_pixels.c */
extern const SettleMeasureModule settle_module_blocks;  /* measure_blocktest.c */
extern const SettleMeasureModule settle_module_cells;   /* measure_cells.c */
extern const SettleMeasureModule settle_module_regions; /* measure_regions.c */
extern const SettleMeasureModule settle_module_visual;  /* measure_visual.c */

/* The block test's state when it runs in this analysis, else NULL. */
const SettleBlocks *settle_measure_blocks(const SettleMeasure *m);
/* Rows of blocks judged apart at the top; *blocks_on: the block test's state exists. */
int settle_measure_bar_rows(const SettleMeasure *m, int *blocks_on);
/* Where the current picture changed (NULL before the rectangle is known). */
SettleCells *settle_measure_cells(const SettleMeasure *m);
/* The entropy of picture `index` (a record's) left for later
 * (SETTLE_ENTROPY_LATER): the last picture measured or one of the window
 * before it kept for it; NaN when it was not kept. */
double settle_measure_entropy(const SettleMeasure *m, int64_t index);
/* The visual metrics' state when --visual-metrics is on, else NULL. */
SettleVisual *settle_measure_visual(const SettleMeasure *m);

#endif
