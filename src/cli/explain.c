/* SPDX-License-Identifier: BSD-2-Clause */
/* Why the answer is what it is, in words: the verbose summary's lines. */
#include <math.h>

#include "explain.h"

void cli_explain(FILE *err, const char *in, const SettleResult *r)
{
    const SettleChangeArea *d = &r->deciding_change;
    if (d->frame >= 0)
        fprintf(err, "settle: %s: decided by the change at %.3f s (frame %lld): %lld pixels "
                "in %dx%d at %d,%d\n", in, d->time, (long long)d->frame, (long long)d->pixels,
                d->width, d->height, d->x, d->y);
    else if (r->stable_frame >= 0)
        fprintf(err, "settle: %s: nothing changed after the start\n", in);
    for (int i = 0; r->animated_known && i < r->nanimated; i++) {
        const SettleAnimatedRegion *g = &r->animated[i];
        fprintf(err, "settle: %s: animated area %d,%d,%d,%d: %lld changes from %.3f s%s\n", in,
                g->x, g->y, g->width, g->height, (long long)g->changes, g->first_time,
                r->animated_ignored ? ", left out (--ignore animated)" : "");
    }
    if (isfinite(r->longest_quiet))
        fprintf(err, "settle: %s: the longest quiet lasts %.3f s, from %.3f s (frame %lld)\n",
                in, r->longest_quiet, r->longest_quiet_time, (long long)r->longest_quiet_frame);
}

/* The share of rectangle d inside the animated areas (they do not overlap:
 * they are made of distinct cells). */
static double share_animated(const SettleResult *r, const SettleChangeArea *d)
{
    double area = (double)d->width * d->height, in = 0;
    if (area <= 0)
        return 0;
    for (int i = 0; i < r->nanimated; i++) {
        const SettleAnimatedRegion *g = &r->animated[i];
        int x0 = d->x > g->x ? d->x : g->x, y0 = d->y > g->y ? d->y : g->y;
        int x1 = d->x + d->width < g->x + g->width ? d->x + d->width : g->x + g->width;
        int y1 = d->y + d->height < g->y + g->height ? d->y + d->height : g->y + g->height;
        if (x1 > x0 && y1 > y0)
            in += (double)(x1 - x0) * (y1 - y0);
    }
    return in / area;
}

void cli_animated_note(const SettleResult *r, char *buf, size_t len)
{
    buf[0] = 0;
    if (!r->animated_known || !r->nanimated || r->animated_ignored)
        return;
    const SettleAnimatedRegion *g = &r->animated[0];
    if (r->stable_frame >= 0) {
        const SettleChangeArea *d = &r->deciding_change;
        if (d->frame < 0 || share_animated(r, d) < 0.5)
            return;
        snprintf(buf, len, "; decided by an animated area at %d,%d,%d,%d (--ignore animated "
                 "leaves it out)", d->x, d->y, d->width, d->height);
        return;
    }
    snprintf(buf, len, "%d animated area%s kept changing (the first at %d,%d,%d,%d): "
             "--ignore animated leaves %s out", r->nanimated, r->nanimated > 1 ? "s" : "",
             g->x, g->y, g->width, g->height, r->nanimated > 1 ? "them" : "it");
}

void cli_regions(FILE *out, const char *in, const SettleResult *r)
{
    for (int i = 0; i < r->nregions; i++) {
        const SettleRegionResult *g = &r->regions[i];
        if (!g->measured)
            fprintf(out, "%s: region %s: outside the measured picture\n", in, g->name);
        else if (g->stable_frame < 0)
            fprintf(out, "%s: region %s: not stable\n", in, g->name);
        else
            fprintf(out, "%s: region %s: stable at %.3f s (frame %lld), load time %.3f s\n", in,
                    g->name, g->stable_time, (long long)g->stable_frame, g->load_time);
    }
}
