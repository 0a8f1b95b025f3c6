/* SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "animated.h"

int settle_animated_init(SettleAnimated *a, const SettleCells *g, int ox, int oy, int spool)
{
    memset(a, 0, sizeof(*a));
    a->nx = g->nx;
    a->ny = g->ny;
    a->ox = ox;
    a->oy = oy;
    a->w = g->w;
    a->h = g->h;
    a->next = -1;
    size_t n = (size_t)g->nx * g->ny;
    a->cell = calloc(n, sizeof(*a->cell));
    a->on = calloc(n, 1);
    if (!a->cell || !a->on) {
        settle_animated_free(a);
        return -1;
    }
    if (spool && !(a->spool = tmpfile()))
        return -2;
    return 0;
}

void settle_animated_free(SettleAnimated *a)
{
    free(a->cell);
    free(a->on);
    free(a->regions);
    if (a->spool)
        fclose(a->spool);
    memset(a, 0, sizeof(*a));
}

void settle_animated_frame(SettleAnimated *a, const SettleCells *g, double time)
{
    for (int cy = 0; cy < g->ny; cy++) {
        if (!g->dirty[cy])
            continue;
        for (int cx = 0; cx < g->nx; cx++) {
            size_t i = (size_t)cy * g->nx + cx;
            if (!g->count[i])
                continue;
            SettleAnimCell *c = &a->cell[i];
            if (!c->n)
                c->first = time;
            SettleAnimEvent *e = &c->ev[c->n % SETTLE_ANIM_RING];
            e->time = time;
            memcpy(e->box, g->cbox[i], 4);
            c->n++;
        }
    }
}

/* The k-th latest change of the cell, k = 1 the last. */
static const SettleAnimEvent *latest(const SettleAnimCell *c, int k)
{
    return &c->ev[(c->n - k) % SETTLE_ANIM_RING];
}

/* The latest time T such that the cell is animated when the rest of the
 * screen settled before T; -INFINITY when never. */
static double threshold(const SettleAnimCell *c, double start, double end)
{
    if (c->n < SETTLE_ANIM_MIN)
        return -INFINITY;
    int have = c->n < SETTLE_ANIM_RING ? (int)c->n : SETTLE_ANIM_RING;
    double last = latest(c, 1)->time;
    int most = last - c->first >= 0.5 * (end - start);
    double gap = 0;
    for (int k = 2; k <= have; k++) {
        double g = latest(c, k - 1)->time - latest(c, k)->time;
        gap = g > gap ? g : gap;
        if (k >= SETTLE_ANIM_MIN && (most || end - last <= 1.5 * gap + 1e-9))
            return latest(c, k)->time;
    }
    return -INFINITY;
}

/* The rectangle (input picture) of what cell i changed after `after`. */
static void cell_rect(const SettleAnimated *a, size_t i, double after, int r[4])
{
    const SettleAnimCell *c = &a->cell[i];
    int have = c->n < SETTLE_ANIM_RING ? (int)c->n : SETTLE_ANIM_RING;
    int x0 = SETTLE_CELL, y0 = SETTLE_CELL, x1 = 0, y1 = 0;
    for (int k = 1; k <= have && latest(c, k)->time > after; k++) {
        const uint8_t *b = latest(c, k)->box;
        x0 = b[0] < x0 ? b[0] : x0;
        y0 = b[1] < y0 ? b[1] : y0;
        x1 = b[2] > x1 ? b[2] : x1;
        y1 = b[3] > y1 ? b[3] : y1;
    }
    int cx = (int)(i % (size_t)a->nx), cy = (int)(i / (size_t)a->nx);
    r[0] = a->ox + cx * SETTLE_CELL + x0;
    r[1] = a->oy + cy * SETTLE_CELL + y0;
    r[2] = a->ox + cx * SETTLE_CELL + x1;
    r[3] = a->oy + cy * SETTLE_CELL + y1;
}

/* Joins the animated cells into areas: a flood fill over 8 neighbours. */
static int join(SettleAnimated *a, double rest)
{
    size_t n = (size_t)a->nx * a->ny;
    uint8_t *seen = calloc(n, 1);
    size_t *stack = malloc(n * sizeof(*stack));
    int ret = -1;
    if (!seen || !stack)
        goto fail;
    for (size_t s = 0; s < n; s++) {
        if (!a->on[s] || seen[s])
            continue;
        SettleAnimatedRegion g = { .x = INT32_MAX, .y = INT32_MAX, .first_time = INFINITY };
        int x1 = 0, y1 = 0;
        size_t top = 0;
        stack[top++] = s;
        seen[s] = 1;
        while (top) {
            size_t i = stack[--top];
            int r[4];
            cell_rect(a, i, rest, r);
            g.x = r[0] < g.x ? r[0] : g.x;
            g.y = r[1] < g.y ? r[1] : g.y;
            x1 = r[2] > x1 ? r[2] : x1;
            y1 = r[3] > y1 ? r[3] : y1;
            g.changes = a->cell[i].n > g.changes ? a->cell[i].n : g.changes;
            g.first_time = a->cell[i].first < g.first_time ? a->cell[i].first : g.first_time;
            int cx = (int)(i % (size_t)a->nx), cy = (int)(i / (size_t)a->nx);
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int x = cx + dx, y = cy + dy;
                    if (x < 0 || y < 0 || x >= a->nx || y >= a->ny)
                        continue;
                    size_t j = (size_t)y * a->nx + x;
                    if (a->on[j] && !seen[j]) {
                        seen[j] = 1;
                        stack[top++] = j;
                    }
                }
        }
        g.width = x1 - g.x;
        g.height = y1 - g.y;
        SettleAnimatedRegion *grown =
            realloc(a->regions, (size_t)(a->nregions + 1) * sizeof(*grown));
        if (!grown)
            goto fail;
        a->regions = grown;
        a->regions[a->nregions++] = g;
    }
    ret = 0;
fail:
    free(seen);
    free(stack);
    return ret;
}

int settle_animated_find(SettleAnimated *a, double start, double end)
{
    size_t n = (size_t)a->nx * a->ny;
    double *theta = malloc(n * sizeof(*theta));
    if (!theta)
        return -1;
    free(a->regions);
    a->regions = NULL;
    a->nregions = 0;
    a->count = 0;
    for (size_t i = 0; i < n; i++) {
        theta[i] = a->cell[i].n ? threshold(&a->cell[i], start, end) : -INFINITY;
        a->on[i] = theta[i] > -INFINITY;
    }
    /* shrink the set until every cell in it outlasts the rest by its rule */
    double rest = start;
    for (int changed = 1; changed;) {
        changed = 0;
        rest = start;
        for (size_t i = 0; i < n; i++)
            if (!a->on[i] && a->cell[i].n && latest(&a->cell[i], 1)->time > rest)
                rest = latest(&a->cell[i], 1)->time;
        for (size_t i = 0; i < n; i++)
            if (a->on[i] && !(theta[i] > rest)) {
                a->on[i] = 0;
                changed = 1;
            }
    }
    free(theta);
    for (size_t i = 0; i < n; i++)
        a->count += a->on[i];
    if ((size_t)a->count * 2 > n) {
        memset(a->on, 0, n);
        a->count = 0;
    }
    return a->count ? join(a, rest) : 0;
}

int settle_animated_spool(SettleAnimated *a, const SettleCells *g, int64_t index)
{
    uint32_t k = 0;
    for (int cy = 0; cy < g->ny; cy++)
        for (int cx = 0; g->dirty[cy] && cx < g->nx; cx++)
            k += g->count[(size_t)cy * g->nx + cx] != 0;
    if (!k)
        return 0;
    if (fwrite(&index, sizeof(index), 1, a->spool) != 1 || fwrite(&k, sizeof(k), 1, a->spool) != 1)
        return -1;
    for (int cy = 0; cy < g->ny; cy++) {
        for (int cx = 0; g->dirty[cy] && cx < g->nx; cx++) {
            size_t i = (size_t)cy * g->nx + cx;
            if (!g->count[i])
                continue;
            SettleAnimEntry e = { .cell = (uint32_t)i, .count = g->count[i] };
            memcpy(e.box, g->cbox[i], 4);
            if (fwrite(&e, sizeof(e), 1, a->spool) != 1)
                return -1;
        }
    }
    return 0;
}

int settle_animated_rewind(SettleAnimated *a)
{
    a->next = -1;
    return a->spool && !fflush(a->spool) && !fseek(a->spool, 0, SEEK_SET) ? 0 : -1;
}

int settle_animated_read(SettleAnimated *a, int64_t index, int64_t *pixels, int box[4])
{
    *pixels = 0;
    box[0] = box[1] = box[2] = box[3] = 0;
    if (a->next < 0) {
        if (fread(&a->next, sizeof(a->next), 1, a->spool) != 1) {
            a->next = INT64_MAX; /* the end */
            return 0;
        }
        if (fread(&a->next_n, sizeof(a->next_n), 1, a->spool) != 1)
            return -1;
    }
    if (a->next != index)
        return 0;
    int x0 = INT32_MAX, y0 = INT32_MAX, x1 = 0, y1 = 0;
    for (uint32_t k = 0; k < a->next_n; k++) {
        SettleAnimEntry e;
        if (fread(&e, sizeof(e), 1, a->spool) != 1 || e.cell >= (uint32_t)(a->nx * a->ny))
            return -1;
        if (a->on[e.cell])
            continue;
        *pixels += e.count;
        int cx = (int)(e.cell % (uint32_t)a->nx), cy = (int)(e.cell / (uint32_t)a->nx);
        int bx = a->ox + cx * SETTLE_CELL, by = a->oy + cy * SETTLE_CELL;
        x0 = bx + e.box[0] < x0 ? bx + e.box[0] : x0;
        y0 = by + e.box[1] < y0 ? by + e.box[1] : y0;
        x1 = bx + e.box[2] > x1 ? bx + e.box[2] : x1;
        y1 = by + e.box[3] > y1 ? by + e.box[3] : y1;
    }
    a->next = -1;
    if (*pixels) {
        box[0] = x0;
        box[1] = y0;
        box[2] = x1 - x0;
        box[3] = y1 - y0;
    }
    return 0;
}
