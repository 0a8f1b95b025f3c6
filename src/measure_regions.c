/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The measure module "regions": each --region area's changed pixels
 * (src/regions.c) into the record, its stable time into the result. The
 * areas themselves are a list the typed options cannot carry: read from the
 * settings (SettleMeasureArea.s).
 */
#include <stddef.h>

#include "measure_modules.h"

typedef struct RegionsOptions {
    int tolerance;
} RegionsOptions;

typedef struct Regions {
    RegionsOptions o;
    const SettleSettings *s; /* the areas and their names */
    SettleRegions g;
} Regions;

_Static_assert(SETTLE_RECORD_REGIONS == SETTLE_MAX_REGIONS, "a record holds every region");

static const SettleModuleOption regions_options[] = {
    { "tolerance", SETTLE_MOPT_INT, offsetof(RegionsOptions, tolerance),
      offsetof(SettleSettings, tolerance), 5, 0, 255,
      "a pixel changed when R, G or B moved by more than this" },
    { NULL, 0, 0, 0, 0, 0, 0, NULL },
};

static int regions_init(void *priv, const SettleMeasureArea *a)
{
    Regions *p = priv;
    p->s = a->s;
    settle_regions_init(&p->g, a->s, a->x, a->y, a->w, a->h, a->diff_limit);
    return 0;
}

static void regions_begin(void *priv, int first)
{
    Regions *p = priv;
    if (!first)
        settle_regions_clear(&p->g);
}

static int regions_band(void *priv, const SettleMeasureBand *b)
{
    Regions *p = priv;
    if (!b->first)
        settle_regions_band(&p->g, b->cur, b->cstride, b->prev, b->pstride, b->y0, b->rows,
                            p->o.tolerance);
    return 0;
}

static int regions_decided(void *priv, const SettleMeasureFrame *f, SettleRecord *r)
{
    Regions *p = priv;
    if (!f->first)
        settle_regions_frame(&p->g, r->index, r->time, f->started);
    for (int i = 0; i < SETTLE_RECORD_REGIONS; i++)
        r->region[i] = i < p->g.n ? p->g.t[i].changed : 0;
    return 0;
}

static int regions_flush(void *priv, const SettleMeasureEnd *e, SettleResult *res)
{
    Regions *p = priv;
    settle_regions_finish(&p->g, p->s, e->start_frame, e->start_frame_time, e->start_time,
                          e->duration);
    res->nregions = p->g.n;
    res->regions = p->g.res;
    return 0;
}

const SettleMeasureModule settle_module_regions = {
    .name = "regions",
    .priv_size = sizeof(Regions),
    .options = regions_options,
    .opts_in_priv = offsetof(Regions, o),
    .init = regions_init,
    .begin = regions_begin,
    .band = regions_band,
    .decided = regions_decided,
    .flush = regions_flush,
};
