/* SPDX-License-Identifier: BSD-2-Clause */
/* The change grid (src/cells.c) on hand-made change masks: the rectangle of
 * the change kept alone (box_only, where no area is looked for) is the one
 * the full grid finds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cells.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
