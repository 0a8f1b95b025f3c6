/* SPDX-License-Identifier: BSD-2-Clause */
/* The change grid (src/cells.c) on hand-made change masks: the rectangle of
 * the change kept alone (box_only, where no area is looked for) is the one
 * the full grid finds; whether a change lies in one small place; each
 * cell's 4x4 squares' sums against sums taken here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "animated.h"
#include "cells.h"
#include "measure_blocks.h"
#include "random.h"

/* A row's change mask: nx words, pixel i of a cell at bit 3 * i (changed)
 * and 3 * i + 1 (strongly), none beyond the rectangle's width w. */
static void random_row(uint64_t *rng, uint64_t *m, int nx, int w, int density)
{
    for (int cx = 0; cx < nx; cx++) {
        m[cx] = 0;
        for (int i = 0; i < SETTLE_CELL && cx * SETTLE_CELL + i < w; i++) {
            if ((int)settle_draw(rng, 1000) >= density)
                continue;
            m[cx] |= 1ull << (3 * i);
            if (settle_splitmix64(rng) & 1)
                m[cx] |= 1ull << (3 * i + 1);
        }
    }
}

static void test_box_only(void **state)
{
    (void)state;
    enum { W = 150, H = 70 };
    SettleCells full, box;
    assert_int_equal(settle_cells_init(&full, W, H), 0);
    assert_int_equal(settle_cells_init(&box, W, H), 0);
    box.box_only = 1;
    uint64_t rng = 20;
    uint64_t masks[SETTLE_CELL * 10];
    assert_true(full.nx <= 10);
    int changed = 0;
    for (int frame = 0; frame < 400; frame++) {
        settle_cells_clear(&full);
        settle_cells_clear(&box);
        /* from nothing to a few pixels to many, in bands of 8 rows */
        int density = frame % 4 == 0 ? 0 : frame % 4 == 1 ? 1 : frame % 4 == 2 ? 20 : 300;
        for (int y0 = 0; y0 < H; y0 += 8) {
            int rows = y0 + 8 <= H ? 8 : H - y0;
            for (int y = 0; y < rows; y++)
                random_row(&rng, masks + (size_t)y * full.nx, full.nx, W, density);
            settle_cells_masks(&full, masks, y0, rows);
            settle_cells_masks(&box, masks, y0, rows);
        }
        for (int k = 0; k < 4; k++)
            assert_int_equal(box.box[k], full.box[k]);
        changed += full.box[2] > full.box[0];
        /* box_only keeps no count */
        for (int i = 0; i < box.nx * box.ny; i++)
            assert_int_equal(box.count[i], 0);
    }
    assert_true(changed > 250);
    settle_cells_free(&full);
    settle_cells_free(&box);
}

/* One row changed at two pixels, i <= j, at every pair of places: box_only's
 * rectangle is theirs, whichever words of the row are empty on either side
 * (the row's ends are looked for a few words at a time). */
static void test_box_row_ends(void **state)
{
    (void)state;
    enum { W = 16 * 13 - 5 };
    SettleCells box;
    assert_int_equal(settle_cells_init(&box, W, 1), 0);
    box.box_only = 1;
    uint64_t masks[16];
    assert_true(box.nx <= 16);
    for (int i = 0; i < W; i++)
        for (int j = i; j < W; j++) {
            settle_cells_clear(&box);
            memset(masks, 0, sizeof(masks));
            masks[i / SETTLE_CELL] |= 1ull << (3 * (i % SETTLE_CELL));
            masks[j / SETTLE_CELL] |= 1ull << (3 * (j % SETTLE_CELL));
            /* strong bits alone are no change */
            masks[box.nx - 1] |= 2ull;
            masks[0] |= 2ull << 3 * (SETTLE_CELL - 1);
            settle_cells_masks(&box, masks, 0, 1);
            assert_int_equal(box.box[0], i);
            assert_int_equal(box.box[1], 0);
            assert_int_equal(box.box[2], j + 1);
            assert_int_equal(box.box[3], 1);
        }
    settle_cells_clear(&box);
    memset(masks, 0, sizeof(masks));
    settle_cells_masks(&box, masks, 0, 1);
    assert_true(box.box[2] <= box.box[0]);
    settle_cells_free(&box);
}

/* Sets cell (cx, cy)'s count of changed pixels. */
static void put(SettleCells *g, int cx, int cy, int k)
{
    g->count[(size_t)cy * g->nx + cx] = (uint16_t)k;
    g->dirty[cy] = 1;
}

/* Where the change lies: most of it in one small place (a spinner, with an
 * encoder's stray pixels elsewhere), sparse all over (a camera's noise),
 * dense all over (a change of light), or spread with a dense spot. */
static void test_local(void **state)
{
    (void)state;
    enum { W = 640, H = 360 };
    SettleCells g;
    assert_int_equal(settle_cells_init(&g, W, H), 0);
    /* a spinner of 80x30 at 280,285 (cells 17..22, 17..19), and 1 to 4
     * pixels re-coded in each cell of row 11 from x 64 to 352 (seed 23's
     * 000 of scripts/screens-grid, x264 with B-frames) */
    settle_cells_clear(&g);
    for (int cy = 17; cy <= 19; cy++)
        for (int cx = 17; cx <= 22; cx++)
            put(&g, cx, cy, 130);
    for (int cx = 4; cx <= 22; cx++)
        put(&g, cx, 11, 1 + cx % 4);
    assert_int_equal(settle_cells_local(&g), 1);
    /* the same stray pixels with a spinner a quarter as dense: no cell
     * holds a 16th of its pixels */
    settle_cells_clear(&g);
    for (int cy = 17; cy <= 19; cy++)
        for (int cx = 17; cx <= 22; cx++)
            put(&g, cx, cy, 15);
    assert_int_equal(settle_cells_local(&g), 0);
    /* a camera's noise: a few pixels in every cell */
    settle_cells_clear(&g);
    for (int cy = 0; cy < g.ny; cy++)
        for (int cx = 0; cx < g.nx; cx++)
            put(&g, cx, cy, 3);
    assert_int_equal(settle_cells_local(&g), 0);
    /* a change of light: every cell dense */
    settle_cells_clear(&g);
    for (int cy = 0; cy < g.ny; cy++)
        for (int cx = 0; cx < g.nx; cx++)
            put(&g, cx, cy, 200);
    assert_int_equal(settle_cells_local(&g), 0);
    /* a dense spot, but over a quarter of the pixels sparse elsewhere */
    settle_cells_clear(&g);
    put(&g, 5, 5, 256);
    for (int cx = 0; cx < g.nx; cx++)
        put(&g, cx, 0, 10);
    assert_int_equal(settle_cells_local(&g), 0);
    /* dense cells in two far corners: their rectangle is the picture */
    settle_cells_clear(&g);
    put(&g, 0, 0, 200);
    put(&g, g.nx - 1, g.ny - 1, 200);
    assert_int_equal(settle_cells_local(&g), 0);
    settle_cells_free(&g);
}

/* Each cell's 4x4 squares' sums (settle_cells_sums): every cell on the
 * first frame, then the cells that changed, the sums before kept, against
 * sums taken here pixel by pixel; a width whose last cell is 6 pixels wide
 * (not a multiple of 4) and a last band of 6 rows. */
static void test_sums(void **state)
{
    (void)state;
    enum { W = 150, H = 70, STRIDE = 3 * W + 13 };
    SettleCells g;
    assert_int_equal(settle_cells_init(&g, W, H), 0);
    uint8_t *pic = malloc((size_t)STRIDE * H);
    assert_non_null(pic);
    uint64_t rng = 41;
    for (size_t i = 0; i < (size_t)STRIDE * H; i++)
        pic[i] = (uint8_t)(i % 7 ? settle_draw(&rng, 256) : 255);
    uint16_t want[SETTLE_CELL_SUMS];
    for (int frame = 0; frame < 3; frame++) {
        settle_cells_clear(&g);
        /* after the first frame: cell (2, 1) and the last cell changed */
        if (frame) {
            g.count[(size_t)1 * g.nx + 2] = 1;
            g.count[(size_t)g.ny * g.nx - 1] = 1;
            g.dirty[1] = g.dirty[g.ny - 1] = 1;
            for (int i = 0; i < STRIDE * H; i += 5)
                pic[i] = (uint8_t)(pic[i] + 37);
        }
        for (int y0 = 0; y0 < H; y0 += SETTLE_CELL)
            settle_cells_sums(&g, pic + (size_t)y0 * STRIDE, STRIDE, y0,
                              y0 + SETTLE_CELL <= H ? SETTLE_CELL : H - y0, !frame);
        for (int cy = 0; cy < g.ny; cy++)
            for (int cx = 0; cx < g.nx; cx++) {
                const size_t i = (size_t)cy * g.nx + cx;
                if (frame && !g.count[i])
                    continue;
                memset(want, 0, sizeof(want));
                for (int y = cy * SETTLE_CELL; y < H && y < (cy + 1) * SETTLE_CELL; y++)
                    for (int x = cx * SETTLE_CELL; x < W && x < (cx + 1) * SETTLE_CELL; x++)
                        for (int c = 0; c < 3; c++)
                            want[(y % SETTLE_CELL / 4) * 12 + (x % SETTLE_CELL / 4) * 3 + c] +=
                                pic[(size_t)y * STRIDE + 3 * x + c];
                assert_memory_equal(g.sums[i], want, sizeof(want));
            }
    }
    free(pic);
    settle_cells_free(&g);
}

/* The block test's marks of a frame, written to the animated areas' spool
 * and read back for --ignore animated (settle_animated_spool_blocks,
 * settle_animated_read_blocks): every mark, the lone pair's and the split
 * line's among them, comes back on its own block, the last block too. */
static void test_spool_blocks(void **state)
{
    (void)state;
    enum { W = 160, H = 96, BS = 16, BW = W / BS, NB = BW * (H / BS) };
    SettleCells g;
    SettleAnimated a;
    assert_int_equal(settle_cells_init(&g, W, H), 0);
    assert_int_equal(
        settle_animated_init(&a, &g, 0, 0, SETTLE_ANIM_SPOOL_CELLS | SETTLE_ANIM_SPOOL_BLOCKS), 0);
    for (size_t i = 0; i < (size_t)g.nx * g.ny; i++)
        g.count[i] = 1; /* every cell's change counted (not the encoder's) */
    uint8_t mark[NB] = { 0 }, back[NB];
    mark[5] = SETTLE_BLOCK_OVER | SETTLE_BLOCK_LONE;
    mark[6] = SETTLE_BLOCK_OVER | SETTLE_BLOCK_AREA;
    mark[7] = SETTLE_BLOCK_OVER | SETTLE_BLOCK_TWICE | SETTLE_BLOCK_FADING;
    mark[BW + 3] = SETTLE_BLOCK_AREA;
    mark[NB - 1] = SETTLE_BLOCK_OVER | SETTLE_BLOCK_LONE | SETTLE_BLOCK_AREA;
    assert_int_equal(settle_animated_spool_blocks(&a, &g, 3, 0, mark, BW, BS, NB), 0);
    assert_int_equal(settle_animated_rewind(&a), 0);
    int found = 0;
    assert_int_equal(settle_animated_read_blocks(&a, 2, 0.1, BW, BS, NB, back, &found), 0);
    assert_int_equal(found, 0);
    assert_int_equal(settle_animated_read_blocks(&a, 3, 0.15, BW, BS, NB, back, &found), 0);
    assert_int_equal(found, 1);
    assert_memory_equal(back, mark, NB);
    settle_animated_free(&a);
    settle_cells_free(&g);
}

/* The changed cells spooled for a phone filmed in a room: read back on a
 * rectangle, a cell counts whole when its changed pixels reach into it,
 * whatever the animated areas say; a frame not spooled has none; a frame
 * spooled and not asked for is passed over; only the cells spool is asked
 * for. */
static void test_spool_in(void **state)
{
    (void)state;
    enum { W = 160, H = 96 };
    SettleCells g;
    SettleAnimated a;
    assert_int_equal(settle_cells_init(&g, W, H), 0);
    assert_int_equal(settle_animated_init(&a, &g, 8, 4, SETTLE_ANIM_SPOOL_CELLS), 0);
    assert_null(a.bspool);
    memset(g.dirty, 1, (size_t)g.ny);
    /* cell (1, 1): pixels 4-7 of rows 2-5 within it; cell (8, 4): its whole */
    g.count[1 * g.nx + 1] = 16;
    memcpy(g.cbox[1 * g.nx + 1], (uint8_t[4]){ 4, 2, 8, 6 }, 4);
    g.count[4 * g.nx + 8] = 256;
    memcpy(g.cbox[4 * g.nx + 8], (uint8_t[4]){ 0, 0, 16, 16 }, 4);
    assert_int_equal(settle_animated_spool(&a, &g, 5, 0), 0);
    /* frame 6: cell (8, 4) alone */
    g.count[1 * g.nx + 1] = 0;
    assert_int_equal(settle_animated_spool(&a, &g, 6, 0), 0);
    assert_int_equal(settle_animated_rewind(&a), 0);
    int64_t px;
    int box[4];
    const int left[4] = { 0, 0, 24, 24 }; /* to x 24, y 24: cell (1, 1)'s pixels */
    assert_int_equal(settle_animated_read_in(&a, 4, left, &px, box), 0);
    assert_int_equal(px, 0);
    assert_int_equal(box[2], 0);
    assert_int_equal(settle_animated_read_in(&a, 5, left, &px, box), 0);
    assert_int_equal(px, 16);
    /* in the input picture: offset 8, 4 */
    assert_int_equal(box[0], 8 + 16 + 4);
    assert_int_equal(box[1], 4 + 16 + 2);
    assert_int_equal(box[2], 4);
    assert_int_equal(box[3], 4);
    /* a rectangle that ends where the first cell's pixels begin, and one
     * over both cells */
    const int before[4] = { 0, 0, 20, 18 }, both[4] = { 0, 0, W, H };
    assert_int_equal(settle_animated_rewind(&a), 0);
    assert_int_equal(settle_animated_read_in(&a, 5, before, &px, box), 0);
    assert_int_equal(px, 0);
    assert_int_equal(settle_animated_rewind(&a), 0);
    assert_int_equal(settle_animated_read_in(&a, 5, both, &px, box), 0);
    assert_int_equal(px, 16 + 256);
    assert_int_equal(box[2], 8 * 16 + 16 - (16 + 4));
    /* frame 5, spooled and not asked for, is passed over */
    assert_int_equal(settle_animated_rewind(&a), 0);
    assert_int_equal(settle_animated_read_in(&a, 6, both, &px, box), 0);
    assert_int_equal(px, 256);
    settle_animated_free(&a);
    settle_cells_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_only),
        cmocka_unit_test(test_box_row_ends),
        cmocka_unit_test(test_local),
        cmocka_unit_test(test_sums),
        cmocka_unit_test(test_spool_blocks),
        cmocka_unit_test(test_spool_in),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
