/* SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <string.h>

#include "box.h"
#include "regions.h"

void settle_regions_init(SettleRegions *g, const SettleSettings *s, int ox, int oy, int w,
                         int h, double limit)
{
    memset(g, 0, sizeof(*g));
    g->n = s->nregions;
    g->ox = ox;
    g->oy = oy;
    for (int i = 0; i < g->n; i++) {
        SettleRegionTrack *t = &g->t[i];
        const int *r = s->region[i];
        int x0 = r[0] - ox, y0 = r[1] - oy, x1 = x0 + r[2], y1 = y0 + r[3];
        x0 = x0 < 0 ? 0 : x0;
        y0 = y0 < 0 ? 0 : y0;
        x1 = x1 > w ? w : x1;
        y1 = y1 > h ? h : y1;
        if (x1 > x0 && y1 > y0) {
            t->x = x0;
            t->y = y0;
            t->w = x1 - x0;
            t->h = y1 - y0;
        }
        /* the same share of the area as the threshold is of the picture */
        t->limit = floor(limit * ((double)t->w * t->h) / ((double)w * h));
        t->last.frame = -1;
        settle_quiet_init(&t->quiet, s->settle);
    }
}

void settle_regions_clear(SettleRegions *g)
{
    for (int i = 0; i < g->n; i++) {
        g->t[i].changed = 0;
        g->t[i].box[2] = g->t[i].box[0] = 0;
    }
}

static inline int absdiff(int a, int b)
{
    return a > b ? a - b : b - a;
}

void settle_regions_band(SettleRegions *g, const uint8_t *cur, ptrdiff_t cstride,
                         const uint8_t *prev, ptrdiff_t pstride, int y0, int rows, int tol)
{
    for (int i = 0; i < g->n; i++) {
        SettleRegionTrack *t = &g->t[i];
        int a = t->y > y0 ? t->y : y0;
        int b = t->y + t->h < y0 + rows ? t->y + t->h : y0 + rows;
        for (int y = a; y < b; y++) {
            const uint8_t *pc = cur + (y - y0) * cstride + (size_t)t->x * 3;
            const uint8_t *pp = prev + (y - y0) * pstride + (size_t)t->x * 3;
            if (!memcmp(pc, pp, (size_t)t->w * 3))
                continue;
            for (int x = 0; x < t->w; x++) {
                int d = absdiff(pc[3 * x], pp[3 * x]);
                int d1 = absdiff(pc[3 * x + 1], pp[3 * x + 1]);
                int d2 = absdiff(pc[3 * x + 2], pp[3 * x + 2]);
                d = d1 > d ? d1 : d;
                d = d2 > d ? d2 : d;
                if (d <= tol)
                    continue;
                int xx = t->x + x;
                if (!t->changed)
                    settle_box_set(t->box, xx, y, xx + 1, y + 1);
                else
                    settle_box_grow(t->box, xx, y, xx + 1, y + 1);
                t->changed++;
            }
        }
    }
}

void settle_regions_frame(SettleRegions *g, int64_t index, double time, int started)
{
    for (int i = 0; i < g->n; i++) {
        SettleRegionTrack *t = &g->t[i];
        int change = t->changed > t->limit;
        t->still_changing = change;
        if (!change || !started)
            continue;
        t->changes++;
        SettleBox b = { .frame = index, .time = time, .x = g->ox + t->box[0],
                        .y = g->oy + t->box[1], .w = t->box[2] - t->box[0],
                        .h = t->box[3] - t->box[1], .pixels = t->changed };
        t->last = b;
        if (t->quiet.seconds > 0)
            settle_quiet_change(&t->quiet, &b, index, time);
    }
}

void settle_regions_finish(SettleRegions *g, const SettleSettings *s, int64_t start_frame,
                           double start_frame_time, double start_time, double end)
{
    for (int i = 0; i < g->n; i++) {
        SettleRegionTrack *t = &g->t[i];
        SettleRegionResult *r = &g->res[i];
        memset(r, 0, sizeof(*r));
        r->name = s->region_name[i];
        r->x = s->region[i][0];
        r->y = s->region[i][1];
        r->width = s->region[i][2];
        r->height = s->region[i][3];
        r->measured = t->w > 0;
        r->changes = t->changes;
        r->stable_frame = r->deciding_change.frame = -1;
        r->stable_time = r->load_time = r->deciding_change.time = NAN;
        const SettleBox *d = NULL;
        if (!r->measured || start_frame < 0) {
            continue;
        } else if (t->quiet.seconds > 0) {
            if (settle_quiet_end(&t->quiet, end)) {
                r->stable_frame = t->quiet.stable;
                r->stable_time = t->quiet.stable_time;
                d = &t->quiet.deciding;
            }
        } else if (t->last.frame < 0) {
            /* nothing changed in it after the start */
            r->stable_frame = start_frame;
            r->stable_time = start_frame_time;
        } else if (!t->still_changing) {
            r->stable_frame = t->last.frame;
            r->stable_time = t->last.time;
            d = &t->last;
        }
        if (!isnan(r->stable_time)) {
            r->load_time = r->stable_time - start_time;
            r->load_time = r->load_time < 0 ? 0 : r->load_time;
        }
        if (d) {
            SettleChangeArea *c = &r->deciding_change;
            c->frame = d->frame;
            c->time = d->time;
            c->x = d->x;
            c->y = d->y;
            c->width = d->w;
            c->height = d->h;
            c->pixels = d->pixels;
        }
    }
}
