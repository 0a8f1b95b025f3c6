/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The measure module "visual": the web's visual metrics (src/visual.c):
 * visual progress per frame, first and last visual change, Speed Index and
 * visually complete 85/95/99. They count from the start the decide stage
 * finds, so they measure each picture once it is decided.
 */
#include <math.h>
#include <stddef.h>

#include "measure_modules.h"

typedef struct VisualOptions {
    int on;                 /* --visual-metrics */
    int exact;              /* --last-change exact */
    int start;              /* SettleStart */
    double marker_coverage; /* a picture this much covered by the marker is a marker frame */
} VisualOptions;

typedef struct Visual {
    VisualOptions o;
    int on;                 /* initialised */
    int use_marker;
    SettleVisual v;
} Visual;

#define OPT(field) offsetof(VisualOptions, field)
#define SET(field) offsetof(SettleSettings, field)
static const SettleModuleOption visual_options[] = {
    { "visual-metrics", SETTLE_MOPT_BOOL, OPT(on), SET(visual_metrics), 0, 0, 1,
      "compute visual progress, Speed Index, visually complete 85/95/99" },
    { "last-change", SETTLE_MOPT_BOOL, OPT(exact), SET(last_change_exact), 0, 0, 1,
      "1: any change counts as the last visual change (exact), 0: within 15 % (fuzzy)" },
    { "start", SETTLE_MOPT_INT, OPT(start), SET(start), SETTLE_START_FIRST_FRAME, 0,
      SETTLE_START_MARKER_END, "first-change: the visual metrics count from the first frame" },
    { "marker-coverage", SETTLE_MOPT_DOUBLE, OPT(marker_coverage), SET(marker_coverage), 0.5, 0,
      1, "share of the picture the marker colour must cover" },
    { NULL, 0, 0, 0, 0, 0, 0, NULL },
};
#undef OPT
#undef SET

static int visual_init(void *priv, const SettleMeasureArea *a)
{
    Visual *p = priv;
    if (!p->o.on)
        return 1;
    p->use_marker = p->o.start == SETTLE_START_MARKER || p->o.start == SETTLE_START_MARKER_END;
    if (settle_visual_init(&p->v, a->w, a->h, p->o.exact, a->mobile, a->dsp) < 0)
        return SETTLE_ERR_NOMEM;
    p->on = 1;
    return 0;
}

static int visual_decided(void *priv, const SettleMeasureFrame *f, SettleRecord *r)
{
    Visual *p = priv;
    /* --start first-change depends on the method; the visual metrics then
     * count from the first frame */
    int first_change = p->o.start == SETTLE_START_FIRST_CHANGE;
    int is_start = first_change ? r->index == 0 : r->index == f->start;
    settle_visual_frame(&p->v, f->rgb, f->stride, r->index, r->time, is_start,
                        is_start && !first_change ? f->start_time : r->time, f->dirty,
                        p->use_marker && r->marker >= p->o.marker_coverage);
    return 0;
}

/* Finds the final picture and integrates the progress, whatever the outcome,
 * so that the per-frame progress is coherent; the result's fields only when
 * there is a start. */
static int visual_flush(void *priv, const SettleMeasureEnd *e, SettleResult *r)
{
    Visual *p = priv;
    SettleVisual *v = &p->v;
    double out[6] = { NAN, NAN, NAN, NAN, NAN, NAN };
    int ret = 0;
    if (v->start_frame >= 0 && settle_visual_finish(v, &out[2], &out[3]) < 0) {
        v->spool_ok = 0;
        ret = SETTLE_ERR_IO;
    } else if (v->start_frame >= 0) {
        out[0] = v->first_change >= 0 ? v->first_change_time - v->start_time : 0;
        out[1] = v->first_change >= 0 ? v->last_change_time - v->start_time : 0;
    }
    if (e->frames >= 2 && r->start_frame >= 0) {
        r->first_visual_change = out[0];
        r->last_visual_change = out[1];
        r->speed_index = out[2];
        r->visually_complete_85 = out[3];
        r->visually_complete_95 = out[4];
        r->visually_complete_99 = out[5];
    }
    return ret;
}

static void visual_close(void *priv)
{
    Visual *p = priv;
    if (p->on)
        settle_visual_free(&p->v);
    p->on = 0;
}

const SettleMeasureModule settle_module_visual = {
    .name = "visual",
    .priv_size = sizeof(Visual),
    .options = visual_options,
    .opts_in_priv = offsetof(Visual, o),
    .init = visual_init,
    .decided = visual_decided,
    .flush = visual_flush,
    .close = visual_close,
};

SettleVisual *settle_measure_visual(const SettleMeasure *m)
{
    Visual *p = settle_measure_state(m, &settle_module_visual);
    return p && p->on ? &p->v : NULL;
}
