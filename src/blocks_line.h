/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The line test: a late line of text on a phone filmed in a room, a few
 * pixels tall, moves a block's mean by a fraction of what it moves the rows
 * it lies in, and the block test (src/measure_blocks.c) sees it under its
 * threshold. Each block of a landscape picture is also measured in four
 * bands of rows (its quarters); a line moves their profile (each quarter's
 * luma less the block's mean, which a light's offset leaves as it was) in
 * blocks side by side along one row, the same way. Kept beside the block
 * test, reading its sums' columns as they are counted and its box, room and
 * light after each picture.
 */
#ifndef SETTLE_BLOCKS_LINE_H
#define SETTLE_BLOCKS_LINE_H
#include <stddef.h>
#include <stdint.h>

#include "measure_blocks.h"

/* Returns 0 or SETTLE_ERR_NOMEM (settle_blocks_line_free is still safe). */
int settle_blocks_line_init(SettleBlocksLine *l, int w, int h, int bw, int bh);
void settle_blocks_line_free(SettleBlocksLine *l);

/* Row by of b's blocks, from its rows of RGB24 (rows of them) once
 * b->colsum holds their column sums: the quarters' luma means of the blocks
 * of the box the block test filled and one block around it (none before it
 * has one, nor for a row that is no whole block). */
void settle_blocks_line_row(SettleBlocks *b, const uint8_t *rgb, ptrdiff_t stride, int by, int rows);

/* Whether the picture settle_blocks_frame is judging (out: its verdict so
 * far, no change in it) is a late line's: room, a phone's upright box on the
 * landscape picture with a room beside it (room45's, a camera's or not);
 * gain, the light's fitted luma gain. Then its reference
 * profiles move on (settle_blocks_line_keep). */
int settle_blocks_line_fires(SettleBlocks *b, const SettleBlocksFrame *out, int room, double gain);

/* Of the run of the last change the line test counted (slot 0) or the one
 * before (1), the blocks whose profile still stands from the one before the
 * change by half as far as it moved then. */
int settle_blocks_line_kept(const SettleBlocks *b, int slot);

/* After the verdict: the reference profiles follow the picture (as the
 * block reference does), or become it on a change. */
void settle_blocks_line_keep(SettleBlocks *b, const SettleBlocksFrame *out);

#endif
