/* SPDX-License-Identifier: BSD-2-Clause */
#include <stdlib.h>
#include <string.h>

#include "box.h"
#include "cells.h"
#include "kernels.h"

int settle_cells_init(SettleCells *g, int w, int h)
{
    g->w = w;
    g->h = h;
    g->nx = (w + SETTLE_CELL - 1) / SETTLE_CELL;
    g->ny = (h + SETTLE_CELL - 1) / SETTLE_CELL;
    g->count = calloc((size_t)g->nx * g->ny, sizeof(*g->count));
    g->strong = calloc((size_t)g->nx * g->ny, sizeof(*g->strong));
    g->cbox = calloc((size_t)g->nx * g->ny, sizeof(*g->cbox));
    g->dirty = calloc((size_t)g->ny, 1);
    g->masks = malloc((size_t)g->nx * SETTLE_CELL * sizeof(*g->masks));
    g->sums = calloc((size_t)g->nx * g->ny, sizeof(*g->sums));
    g->before = calloc((size_t)g->nx * g->ny, sizeof(*g->before));
    g->change_masks = settle_change_masks;
    g->box_only = 0;
    g->bar_h = 0;
    g->bar_count = 0;
    g->strong_box[0] = g->strong_box[1] = g->strong_box[2] = g->strong_box[3] = 0;
    g->box[0] = g->box[1] = g->box[2] = g->box[3] = 0;
    if (!g->count || !g->strong || !g->cbox || !g->dirty || !g->masks || !g->sums || !g->before) {
        settle_cells_free(g);
        return -1;
    }
    return 0;
}

void settle_cells_free(SettleCells *g)
{
    free(g->count);
    free(g->strong);
    free(g->dirty);
    free(g->cbox);
    free(g->masks);
    free(g->sums);
    free(g->before);
    g->sums = NULL;
    g->before = NULL;
    g->cbox = NULL;
    g->masks = NULL;
    g->count = NULL;
    g->strong = NULL;
    g->dirty = NULL;
    g->nx = g->ny = 0;
}

void settle_cells_clear(SettleCells *g)
{
    for (int cy = 0; cy < g->ny; cy++) {
        if (g->dirty[cy]) {
            memset(g->count + (size_t)cy * g->nx, 0, (size_t)g->nx * sizeof(*g->count));
            memset(g->strong + (size_t)cy * g->nx, 0, (size_t)g->nx * sizeof(*g->strong));
        }
        g->dirty[cy] = 0;
    }
    g->box[0] = g->box[1] = g->box[2] = g->box[3] = 0;
    g->bar_count = 0;
}

/* Set bits, without the POPCNT instruction this file may not use. */
static inline int popcount64(uint64_t m)
{
    m = m - (m >> 1 & 0x5555555555555555ull);
    m = (m & 0x3333333333333333ull) + (m >> 2 & 0x3333333333333333ull);
    m = (m + (m >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)(m * 0x0101010101010101ull >> 56);
}

/* Bit 3 * i of a mask word: pixel i changed; the bit after it: strongly. */
#define PIXEL_BITS 0x249249249249ull

/* Cell cx of row yy's changed pixels m (PIXEL_BITS of its mask word w). */
static inline void cell_word(SettleCells *g, uint64_t w, uint64_t m, int cx, int yy, int *first,
                             int *last)
{
    const int cy = yy / SETTLE_CELL, ry = yy % SETTLE_CELL;
    const size_t i = (size_t)cy * g->nx + cx;
    const int kfirst = __builtin_ctzll(m) / 3, klast = (63 - __builtin_clzll(m)) / 3;
    uint8_t *cb = g->cbox[i];
    g->strong[i] += (uint16_t)popcount64(w >> 1 & m);
    if (!g->count[i]) {
        cb[0] = (uint8_t)kfirst;
        cb[1] = (uint8_t)ry;
        cb[2] = (uint8_t)(klast + 1);
    } else {
        cb[0] = kfirst < cb[0] ? (uint8_t)kfirst : cb[0];
        cb[2] = klast + 1 > cb[2] ? (uint8_t)(klast + 1) : cb[2];
    }
    cb[3] = (uint8_t)(ry + 1);
    g->count[i] += (uint16_t)popcount64(m);
    if (*first < 0)
        *first = cx * SETTLE_CELL + kfirst;
    *last = cx * SETTLE_CELL + klast;
}

/* One row (yy) of the rectangle from its masks. Four words are looked at
 * together first: a row's changes are few and close together (a camera
 * film's re-coded areas, a screen's caret), and a row of a band that changed
 * may not have changed at all. */
static void cells_row(SettleCells *g, const uint64_t *masks, int yy)
{
    int first = -1, last = -1;
    for (int c4 = 0; c4 < g->nx; c4 += 4) {
        const int end = c4 + 4 < g->nx ? c4 + 4 : g->nx;
        uint64_t any = 0;
        if (end == c4 + 4)
            any = masks[c4] | masks[c4 + 1] | masks[c4 + 2] | masks[c4 + 3];
        else
            for (int cx = c4; cx < end; cx++)
                any |= masks[cx];
        if (!(any & PIXEL_BITS))
            continue;
        for (int cx = c4; cx < end; cx++)
            if (masks[cx] & PIXEL_BITS)
                cell_word(g, masks[cx], masks[cx] & PIXEL_BITS, cx, yy, &first, &last);
    }
    if (first < 0)
        return;
    g->dirty[yy / SETTLE_CELL] = 1;
    if (g->box[2] <= g->box[0])
        settle_box_set(g->box, first, yy, last + 1, yy + 1);
    else
        settle_box_grow(g->box, first, yy, last + 1, yy + 1);
}

static void box_row(SettleCells *g, const uint64_t *masks, int yy);
static void bar_rows(SettleCells *g, const uint64_t *masks, int y0, int rows);
static void strong_row(SettleCells *g, const uint64_t *masks, int yy);

void settle_cells_band(SettleCells *g, const uint8_t *cur, ptrdiff_t cstride,
                       const uint8_t *prev, ptrdiff_t pstride, int y0, int rows, int tol,
                       int strong_tol)
{
    const size_t row = (size_t)g->w * 3;
    for (int y = 0; y < rows; y++) {
        const uint8_t *pc = cur + y * cstride, *pp = prev + y * pstride;
        if (!memcmp(pc, pp, row))
            continue;
        g->change_masks(pc, pp, g->w, tol, strong_tol, g->masks);
        if (y0 + y < g->bar_h)
            bar_rows(g, g->masks, y0 + y, 1);
        (g->box_only ? box_row : cells_row)(g, g->masks, y0 + y);
        strong_row(g, g->masks, y0 + y);
    }
}

/* One row's changed pixels into the rectangle alone (box_only). The words
 * are looked at four at a time from either end first: a camera film's rows
 * change in their middle, between long still stretches (a dark surround). */
static void box_row(SettleCells *g, const uint64_t *masks, int yy)
{
    int cx0 = 0, cx1 = g->nx - 1;
    while (cx0 + 4 <= g->nx &&
           !((masks[cx0] | masks[cx0 + 1] | masks[cx0 + 2] | masks[cx0 + 3]) & PIXEL_BITS))
        cx0 += 4;
    while (cx0 < g->nx && !(masks[cx0] & PIXEL_BITS))
        cx0++;
    if (cx0 == g->nx)
        return;
    /* masks[cx0] has a changed pixel: the groups stop before it */
    while (cx1 - 4 >= cx0 &&
           !((masks[cx1] | masks[cx1 - 1] | masks[cx1 - 2] | masks[cx1 - 3]) & PIXEL_BITS))
        cx1 -= 4;
    while (!(masks[cx1] & PIXEL_BITS))
        cx1--;
    int first = cx0 * SETTLE_CELL + __builtin_ctzll(masks[cx0] & PIXEL_BITS) / 3;
    int last = cx1 * SETTLE_CELL + (63 - __builtin_clzll(masks[cx1] & PIXEL_BITS)) / 3;
    if (g->box[2] <= g->box[0])
        settle_box_set(g->box, first, yy, last + 1, yy + 1);
    else
        settle_box_grow(g->box, first, yy, last + 1, yy + 1);
}

/* The changed pixels of the rows of the top band (bar_h) among rows
 * y0 .. y0 + rows - 1, from their masks. */
static void bar_rows(SettleCells *g, const uint64_t *masks, int y0, int rows)
{
    const int end = y0 + rows < g->bar_h ? y0 + rows : g->bar_h;
    for (int y = y0; y < end; y++) {
        const uint64_t *m = masks + (size_t)(y - y0) * g->nx;
        for (int cx = 0; cx < g->nx; cx++)
            g->bar_count += popcount64(m[cx] & PIXEL_BITS);
    }
}

/* Row yy's strongly changed pixels into strong_box. */
static void strong_row(SettleCells *g, const uint64_t *masks, int yy)
{
    int cx0 = 0, cx1 = g->nx - 1;
    while (cx0 < g->nx && !(masks[cx0] >> 1 & PIXEL_BITS))
        cx0++;
    if (cx0 == g->nx)
        return;
    while (!(masks[cx1] >> 1 & PIXEL_BITS))
        cx1--;
    int first = cx0 * SETTLE_CELL + __builtin_ctzll(masks[cx0] >> 1 & PIXEL_BITS) / 3;
    int last = cx1 * SETTLE_CELL + (63 - __builtin_clzll(masks[cx1] >> 1 & PIXEL_BITS)) / 3;
    if (g->strong_box[2] <= g->strong_box[0])
        settle_box_set(g->strong_box, first, yy, last + 1, yy + 1);
    else
        settle_box_grow(g->strong_box, first, yy, last + 1, yy + 1);
}

void settle_cells_masks(SettleCells *g, const uint64_t *masks, int y0, int rows)
{
    if (y0 < g->bar_h)
        bar_rows(g, masks, y0, rows);
    for (int y = 0; y < rows; y++) {
        const uint64_t *m = masks + (size_t)y * g->nx;
        (g->box_only ? box_row : cells_row)(g, m, y0 + y);
        strong_row(g, m, y0 + y);
    }
}

/* The sums of cell cx's squares over the band's rows: each group of 4 rows'
 * bytes added column by column (a loop of fixed length the compiler
 * vectorises; at most 4 x 255 a column), then each square's 4 columns a
 * channel (a whole cell's as lanes: a column's three sums and the next one's
 * first as four 16-bit lanes of a word, added; a square's sums, at most
 * 16 x 255, never carry into the next lane, and the fourth is dropped). The
 * same integer sums in another order. */
static void cell_sums(const SettleCells *g, const uint8_t *cur, ptrdiff_t cstride, int cx, int rows,
                      uint16_t *s)
{
    const int x0 = cx * SETTLE_CELL, n = (x0 + SETTLE_CELL < g->w ? SETTLE_CELL : g->w - x0);
    memset(s, 0, SETTLE_CELL_SUMS * sizeof(*s));
    for (int y = 0; y < rows; y += 4) {
        /* one more than the sums: the last column's word */
        uint16_t col[3 * SETTLE_CELL + 1] = { 0 };
        const int y1 = y + 4 < rows ? y + 4 : rows;
        for (int r = y; r < y1; r++) {
            const uint8_t *p = cur + r * cstride + 3 * x0;
            if (n == SETTLE_CELL)
                for (int j = 0; j < 3 * SETTLE_CELL; j++)
                    col[j] = (uint16_t)(col[j] + p[j]);
            else
                for (int j = 0; j < 3 * n; j++)
                    col[j] = (uint16_t)(col[j] + p[j]);
        }
        uint16_t *sq = s + (y / 4) * 12;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (n == SETTLE_CELL) {
            for (int q = 0; q < 4; q++) {
                uint64_t lanes = 0;
                for (int x = 4 * q; x < 4 * q + 4; x++) {
                    uint64_t word;
                    memcpy(&word, col + 3 * x, sizeof(word));
                    lanes += word;
                }
                sq[3 * q] = (uint16_t)lanes;
                sq[3 * q + 1] = (uint16_t)(lanes >> 16);
                sq[3 * q + 2] = (uint16_t)(lanes >> 32);
            }
            continue;
        }
#endif
        for (int x = 0; x < n; x++) {
            uint16_t *q = sq + (x / 4) * 3;
            q[0] = (uint16_t)(q[0] + col[3 * x]);
            q[1] = (uint16_t)(q[1] + col[3 * x + 1]);
            q[2] = (uint16_t)(q[2] + col[3 * x + 2]);
        }
    }
}

void settle_cells_sums(SettleCells *g, const uint8_t *cur, ptrdiff_t cstride, int y0, int rows,
                       int first)
{
    int cy = y0 / SETTLE_CELL;
    if (g->box_only || (!first && !g->dirty[cy]))
        return;
    for (int cx = 0; cx < g->nx; cx++) {
        size_t i = (size_t)cy * g->nx + cx;
        if (first || g->count[i]) {
            memcpy(g->before[i], g->sums[i], sizeof(g->sums[i]));
            cell_sums(g, cur, cstride, cx, rows, g->sums[i]);
        }
    }
}

int settle_cells_local(const SettleCells *g)
{
    int64_t all = 0, dense = 0;
    int b[4] = { g->nx, g->ny, -1, -1 };
    for (int cy = 0; cy < g->ny; cy++) {
        for (int cx = 0; g->dirty[cy] && cx < g->nx; cx++) {
            int k = g->count[(size_t)cy * g->nx + cx];
            all += k;
            if (k < SETTLE_CELL * SETTLE_CELL / 16)
                continue;
            dense += k;
            settle_box_grow(b, cx, cy, cx, cy);
        }
    }
    if (b[2] < 0 || dense * 4 < all * 3)
        return 0;
    int x0 = b[0] * SETTLE_CELL, y0 = b[1] * SETTLE_CELL;
    int x1 = (b[2] + 1) * SETTLE_CELL < g->w ? (b[2] + 1) * SETTLE_CELL : g->w;
    int y1 = (b[3] + 1) * SETTLE_CELL < g->h ? (b[3] + 1) * SETTLE_CELL : g->h;
    return (int64_t)(x1 - x0) * (y1 - y0) * 16 < (int64_t)g->w * g->h;
}

int settle_cells_moved(const SettleCells *g, size_t i, const uint16_t *from)
{
    int most = 0;
    for (int k = 0; k < SETTLE_CELL_SUMS; k++) {
        int d = abs((int)g->sums[i][k] - (int)from[k]);
        most = d > most ? d : most;
    }
    return most / 16;
}

int settle_cells_strong(const SettleCells *g)
{
    int n = 0;
    for (int cy = 0; cy < g->ny && !g->box_only; cy++)
        for (int cx = 0; g->dirty[cy] && cx < g->nx; cx++)
            n += g->strong[(size_t)cy * g->nx + cx] > 0;
    return n;
}

int64_t settle_cells_moved_pixels(const SettleCells *g)
{
    int64_t n = 0;
    for (int cy = 0; cy < g->ny && !g->box_only; cy++)
        for (int cx = 0; g->dirty[cy] && cx < g->nx; cx++) {
            size_t i = (size_t)cy * g->nx + cx;
            if (g->count[i] && settle_cells_moved(g, i, g->before[i]) >= SETTLE_CELL_MOVED)
                n += g->count[i];
        }
    return n;
}
