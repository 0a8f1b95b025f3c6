/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The measure module "pixels": changed pixels, strongly changed pixels, the
 * colour histogram's entropy and the start marker's share. The four come from
 * one pass of one kernel over each band that may have changed
 * (settle_update_band), which also moves the previous picture forward, so
 * they are one module: apart they would read every changed band up to four
 * times. The histogram is kept per band, so a still band costs nothing; on a
 * picture whose entropy nobody reads (settle_frame_entropy) it is not kept,
 * and the bands that changed meanwhile are counted afresh on the next one
 * that is read.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure_modules.h"

/* A change counts as strong when a channel moved by more than this. Measured
 * on x264, VP8 and VP9 encodes from crf 18 to 45: a keyframe in a still
 * picture moves at most 57 pixels (of 307200) by more than 96 levels, where
 * content appearing moves tens of thousands. */
#define STRONG_TOLERANCE 96

typedef struct PixelsOptions {
    int tolerance;          /* a pixel changed beyond this many levels */
    int strong;             /* ... strongly beyond this many */
    int start;              /* SettleStart: the marker starts count the marker colour */
    uint8_t marker_rgb[3];
    int marker_tolerance;
} PixelsOptions;

typedef struct Pixels {
    PixelsOptions o;
    const SettleKernels *dsp;
    int w, h, nbands;
    int use_marker;            /* --start marker or marker-end: count its colour */
    int64_t npix, mask_pix;
    uint32_t hist[SETTLE_HIST_BINS]; /* of the previous picture, kept up to date */
    int64_t marker_count;      /* its pixels of the marker colour */
    uint32_t *band_hist;       /* the histogram of each band of SETTLE_BAND_ROWS rows */
    uint8_t *fresh;            /* per band: settle_update_band's state */
    uint8_t *stale;            /* per band: changed while no histogram was kept */
    int nstale;
    int64_t diff, strong;      /* this picture's, summed over its bands */
} Pixels;

#define OPT(field) offsetof(PixelsOptions, field)
#define SET(field) offsetof(SettleSettings, field)
static const SettleModuleOption pixels_options[] = {
    { "tolerance", SETTLE_MOPT_INT, OPT(tolerance), SET(tolerance), 5, 0, 255,
      "a pixel changed when R, G or B moved by more than this" },
    { "strong-tolerance", SETTLE_MOPT_INT, OPT(strong), SETTLE_MOPT_NO_SETTING,
      STRONG_TOLERANCE, 0, 255, "a change is strong when a channel moved by more than this" },
    { "start", SETTLE_MOPT_INT, OPT(start), SET(start), SETTLE_START_FIRST_FRAME, 0,
      SETTLE_START_MARKER_END, "the marker starts count the marker colour" },
    { "marker-color", SETTLE_MOPT_COLOR, OPT(marker_rgb), SET(marker_rgb), 0, 0, 0,
      "the start marker's colour" },
    { "marker-tolerance", SETTLE_MOPT_INT, OPT(marker_tolerance), SET(marker_tolerance), 40, 0,
      255, "per-channel tolerance of the start marker colour" },
    { NULL, 0, 0, 0, 0, 0, 0, NULL },
};
#undef OPT
#undef SET

static int pixels_init(void *priv, const SettleMeasureArea *a)
{
    Pixels *p = priv;
    p->dsp = a->dsp;
    p->w = a->w;
    p->h = a->h;
    p->npix = a->npix;
    p->mask_pix = a->mask_pix;
    p->nbands = (a->h + SETTLE_BAND_ROWS - 1) / SETTLE_BAND_ROWS;
    p->use_marker = p->o.start == SETTLE_START_MARKER || p->o.start == SETTLE_START_MARKER_END;
    p->band_hist = malloc((size_t)p->nbands * SETTLE_HIST_BINS * sizeof(*p->band_hist));
    p->fresh = calloc((size_t)p->nbands, 1);
    p->stale = calloc((size_t)p->nbands, 1);
    return p->band_hist && p->fresh && p->stale ? 0 : SETTLE_ERR_NOMEM;
}

static void pixels_begin(void *priv, int first)
{
    Pixels *p = priv;
    p->diff = p->strong = 0;
    if (first) {
        memset(p->hist, 0, sizeof(p->hist));
        p->marker_count = 0;
    }
}

/* The first picture: the band's histogram and marker count. */
static void band_whole(Pixels *p, const SettleMeasureBand *b)
{
    uint32_t *bh = p->band_hist + (size_t)b->i * SETTLE_HIST_BINS;
    memset(bh, 0, SETTLE_HIST_BINS * sizeof(*bh));
    p->dsp->histogram_rgb(b->cur, b->cstride, p->w, b->rows, bh);
    for (int k = 0; k < SETTLE_HIST_BINS; k++)
        p->hist[k] += bh[k];
    if (p->use_marker)
        p->marker_count += p->dsp->count_color(b->cur, b->cstride, p->w, b->rows,
                                               p->o.marker_rgb, p->o.marker_tolerance);
}

static int pixels_band(void *priv, const SettleMeasureBand *b)
{
    Pixels *p = priv;
    if (b->first) {
        band_whole(p, b);
        return 0;
    }
    /* a band changed while no histogram was kept is counted afresh once
     * the picture's bands are through (pixels_picture) */
    const int keep = b->entropy && !p->stale[b->i];
    if (!keep && !p->stale[b->i]) {
        p->stale[b->i] = 1;
        p->nstale++;
    }
    SettleDelta dl;
    settle_update_band(p->dsp, b->cur, b->cstride, b->prev, b->pstride, p->w, b->rows,
                       p->o.tolerance, p->o.strong, p->use_marker ? p->o.marker_rgb : NULL,
                       p->o.marker_tolerance,
                       keep ? p->band_hist + (size_t)b->i * SETTLE_HIST_BINS : NULL, p->hist,
                       p->fresh + b->i, b->masks, &dl);
    p->diff += dl.changed;
    p->strong += dl.strong;
    p->marker_count += dl.marker;
    *b->dirty = dl.rows > 0;
    return 0;
}

/* The bands changed while no histogram was kept, counted afresh from the
 * picture as measured. */
static void recount(Pixels *p, const SettleMeasureFrame *f)
{
    const int h = p->h;
    for (int i = 0; i < p->nbands; i++) {
        if (!p->stale[i])
            continue;
        uint32_t *bh = p->band_hist + (size_t)i * SETTLE_HIST_BINS, old[SETTLE_HIST_BINS];
        memcpy(old, bh, sizeof(old));
        memset(bh, 0, SETTLE_HIST_BINS * sizeof(*bh));
        const int y0 = i * SETTLE_BAND_ROWS;
        const int rows = h - y0 < SETTLE_BAND_ROWS ? h - y0 : SETTLE_BAND_ROWS;
        p->dsp->histogram_rgb(f->measured + (size_t)y0 * p->w * 3, (ptrdiff_t)p->w * 3, p->w,
                              rows, bh);
        for (int k = 0; k < SETTLE_HIST_BINS; k++)
            p->hist[k] += bh[k] - old[k];
        p->stale[i] = 0;
    }
    p->nstale = 0;
}

static int pixels_picture(void *priv, const SettleMeasureFrame *f, SettleRecord *r)
{
    Pixels *p = priv;
    if (f->first) {
        /* the masked pixels are black in every picture: out of the histogram */
        p->hist[0] -= (uint32_t)p->mask_pix;
        p->hist[256] -= (uint32_t)p->mask_pix;
        p->hist[512] -= (uint32_t)p->mask_pix;
    }
    r->diff += p->diff;
    r->strong += p->strong;
    if (!f->entropy) {
        r->entropy = NAN;
    } else {
        if (p->nstale)
            recount(p, f);
        r->entropy = settle_histogram_entropy(p->hist, SETTLE_HIST_BINS);
    }
    if (p->use_marker)
        r->marker = (double)p->marker_count / (double)p->npix;
    return 0;
}

static void pixels_close(void *priv)
{
    Pixels *p = priv;
    free(p->band_hist);
    free(p->fresh);
    free(p->stale);
}

const SettleMeasureModule settle_module_pixels = {
    .name = "pixels",
    .priv_size = sizeof(Pixels),
    .options = pixels_options,
    .opts_in_priv = offsetof(Pixels, o),
    .init = pixels_init,
    .begin = pixels_begin,
    .band = pixels_band,
    .picture = pixels_picture,
    .close = pixels_close,
};
