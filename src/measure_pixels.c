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
 * that is read. A picture whose entropy the decide stage may read once it
 * judged a later one (SETTLE_ENTROPY_LATER: the refresh filter's window
 * before a keyframe) is kept as a copy instead, and its histogram counted
 * only if asked, when the picture before changed most of its bands (a
 * camera film's): there the upkeep on the frames around each keyframe costs
 * far more than the few counts asked for; a screen's few changed rows cost
 * little to keep and a copy of the whole picture more.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure_modules.h"

/* A change counts as strong when a channel moved by more than this. Measured
 * on x264, VP8 and VP9 encodes from crf 18 to 45: a keyframe in a still
 * picture moves at most 57 pixels (of 307200) by more than 96 levels, where
 * content appearing moves tens of thousands. */
#define STRONG_TOLERANCE 96
/* The longest window (--window) whose pictures are kept for later: beyond
 * it, the histogram is kept on those pictures as on the ones read. */
#define LATER_MAX 10

typedef struct PixelsOptions {
    int tolerance;          /* a pixel changed beyond this many levels */
    int strong;             /* ... strongly beyond this many */
    int start;              /* SettleStart: the marker starts count the marker colour */
    uint8_t marker_rgb[3];
    int marker_tolerance;
    int window;             /* the entropy's window: the pictures kept for later */
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
    /* SETTLE_ENTROPY_LATER: the last picture (measured, its record's index)
     * and copies of it and of the window's pictures before it (ring, nring
     * of w * h * 3 bytes, their indexes in ring_index, -1 none; a band is
     * copied as it is measured, while its rows are in the cache: copied[i]) */
    const uint8_t *measured;
    int64_t index;
    uint8_t *ring, *copied;
    int64_t ring_index[LATER_MAX + 1];
    int nring, ring_pos, ring_failed;
    int later;                 /* this picture is kept for later: -1 not known yet */
    int changed_bands;         /* this picture's bands with a changed row */
    int busy;                  /* the picture before changed more than half its bands */
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
    { "window", SETTLE_MOPT_INT, OPT(window), SET(window), 5, 1, INT_MAX,
      "frames in the entropy's rolling mean: the pictures kept for it" },
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
    p->copied = calloc((size_t)p->nbands, 1);
    p->index = -1;
    p->nring = p->o.window + 1;
    for (int i = 0; i <= LATER_MAX; i++)
        p->ring_index[i] = -1;
    return p->band_hist && p->fresh && p->stale && p->copied ? 0 : SETTLE_ERR_NOMEM;
}

static void pixels_begin(void *priv, int first)
{
    Pixels *p = priv;
    p->diff = p->strong = 0;
    p->later = -1;
    p->changed_bands = 0;
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

/* Whether this picture, whose entropy may be read later, is kept as a copy
 * (the copies allocated the first time), else its histogram is kept. */
static int later(Pixels *p, int entropy)
{
    if (p->later >= 0)
        return p->later;
    p->later = entropy == SETTLE_ENTROPY_LATER && p->busy && p->o.window <= LATER_MAX &&
               !p->ring_failed;
    if (p->later && !p->ring) {
        p->ring = malloc((size_t)p->nring * (size_t)p->npix * 3);
        p->ring_failed = !p->ring;
        p->later = !p->ring_failed;
    }
    if (p->later) {
        p->ring_index[p->ring_pos] = -1; /* the oldest copy's place, being written */
        memset(p->copied, 0, (size_t)p->nbands);
    }
    return p->later;
}

/* Rows y0 .. y0 + rows - 1 of the picture, w * 3 bytes a row, into the copy
 * being written. */
static void copy_rows(Pixels *p, const uint8_t *src, int y0, int rows)
{
    const size_t row = (size_t)p->w * 3;
    p->dsp->copy_stream(p->ring + ((size_t)p->ring_pos * (size_t)p->h + (size_t)y0) * row, src,
                        (size_t)rows * row);
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
    const int keep = b->entropy && !later(p, b->entropy) && !p->stale[b->i];
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
    p->changed_bands += dl.rows > 0;
    if (p->later > 0) {
        copy_rows(p, b->prev, b->y0, b->rows); /* prev is the band as measured now */
        p->copied[b->i] = 1;
    }
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
    p->measured = f->measured;
    p->index = f->index;
    const int copy = !f->first && later(p, f->entropy);
    p->busy = 2 * p->changed_bands > p->nbands;
    if (copy) {
        /* the bands the source said were still, from the picture as measured */
        for (int i = 0; i < p->nbands; i++) {
            const int y0 = i * SETTLE_BAND_ROWS;
            if (!p->copied[i])
                copy_rows(p, f->measured + (size_t)y0 * p->w * 3, y0,
                          p->h - y0 < SETTLE_BAND_ROWS ? p->h - y0 : SETTLE_BAND_ROWS);
        }
        p->ring_index[p->ring_pos] = f->index;
        p->ring_pos = (p->ring_pos + 1) % p->nring;
        r->entropy = NAN;
    } else if (!f->entropy) {
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
    free(p->ring);
    free(p->copied);
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

double settle_measure_entropy(const SettleMeasure *m, int64_t index)
{
    Pixels *p = settle_measure_state(m, &settle_module_pixels);
    if (!p || index < 0)
        return NAN;
    if (index == p->index) {
        /* the last picture: its bands changed meanwhile counted afresh */
        const SettleMeasureFrame f = { .measured = p->measured };
        if (p->nstale)
            recount(p, &f);
        return settle_histogram_entropy(p->hist, SETTLE_HIST_BINS);
    }
    const size_t bytes = (size_t)p->npix * 3;
    for (int i = 0; p->ring && i < p->nring; i++) {
        if (p->ring_index[i] != index)
            continue;
        uint32_t hist[SETTLE_HIST_BINS] = { 0 };
        p->dsp->histogram_rgb(p->ring + (size_t)i * bytes, (ptrdiff_t)p->w * 3, p->w, p->h, hist);
        /* the masked pixels are black in every picture: out of the histogram */
        hist[0] -= (uint32_t)p->mask_pix;
        hist[256] -= (uint32_t)p->mask_pix;
        hist[512] -= (uint32_t)p->mask_pix;
        return settle_histogram_entropy(hist, SETTLE_HIST_BINS);
    }
    return NAN;
}
