/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The measure stage: the first picture measured whole, then each band only
 * where the source says it may have changed, the histogram kept up to date
 * band by band so that entropy costs nothing for still bands.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "prefilter.h"

/* A change counts as strong when a channel moved by more than this. Measured
 * on x264, VP8 and VP9 encodes from crf 18 to 45: a keyframe in a still
 * picture moves at most 57 pixels (of 307200) by more than 96 levels, where
 * content appearing moves tens of thousands. */
#define STRONG_TOLERANCE 96

/* a band's change masks fit the cells' buffer */
_Static_assert(SETTLE_BAND_ROWS <= SETTLE_CELL, "a band is at most a row of cells");

int settle_measure_begin(SettleMeasure *m, const SettleSettings *s, const SettleKernels *dsp,
                         int fw, int fh)
{
    int nbands = (fh + SETTLE_BAND_ROWS - 1) / SETTLE_BAND_ROWS;
    m->s = s;
    m->dsp = dsp;
    m->fw = fw;
    m->fh = fh;
    m->use_marker = s->start == SETTLE_START_MARKER || s->start == SETTLE_START_MARKER_END;
    m->use_blocks = s->method == SETTLE_METHOD_AUTO || s->method == SETTLE_METHOD_BLOCKS ||
                    s->start == SETTLE_START_FIRST_CHANGE;
    m->prev = malloc((size_t)fw * fh * 3);
    m->band_hist = malloc((size_t)nbands * SETTLE_HIST_BINS * sizeof(*m->band_hist));
    m->dirty = malloc((size_t)nbands);
    m->fresh = calloc((size_t)nbands, 1);
    if (!m->prev || !m->band_hist || !m->dirty || !m->fresh)
        return SETTLE_ERR_NOMEM;
    return 0;
}

/* The pixels of the measured rectangle's rows that --ignore covers, each
 * once however the rectangles overlap. */
static int64_t masked_pixels(const SettleMeasure *m)
{
    int64_t total = 0;
    for (int yy = 0; yy < m->h && m->nmask; yy++) {
        int covered = 0, end = 0;
        for (;;) {
            int best = -1;
            for (int i = 0; i < m->nmask; i++) {
                const int *g = m->mask[i];
                if (yy < g[1] || yy >= g[1] + g[3] || g[0] + g[2] <= end)
                    continue;
                if (best < 0 || g[0] < m->mask[best][0])
                    best = i;
            }
            if (best < 0)
                break;
            const int *g = m->mask[best];
            int a = g[0] > end ? g[0] : end;
            covered += g[0] + g[2] - a;
            end = g[0] + g[2];
        }
        total += covered;
    }
    return total;
}

int settle_measure_set_region(SettleMeasure *m, int x, int y, int w, int h)
{
    const SettleSettings *s = m->s;
    m->cx = x;
    m->cy = y;
    m->w = w;
    m->h = h;
    m->npix = (int64_t)w * h;
    /* --ignore in the rectangle's coordinates, clipped to it */
    m->nmask = 0;
    for (int i = 0; i < s->nignore; i++) {
        const int *g = s->ignore[i];
        int x0 = g[0] - x, y0 = g[1] - y;
        int x1 = x0 + g[2], y1 = y0 + g[3];
        x0 = x0 < 0 ? 0 : x0;
        y0 = y0 < 0 ? 0 : y0;
        x1 = x1 > w ? w : x1;
        y1 = y1 > h ? h : y1;
        if (x0 >= x1 || y0 >= y1)
            continue;
        int *k = m->mask[m->nmask++];
        k[0] = x0, k[1] = y0, k[2] = x1 - x0, k[3] = y1 - y0;
    }
    m->mask_pix = masked_pixels(m);
    /* phones draw their status bar in the top 7.5 % of a portrait picture at most */
    settle_blocks_free(&m->blocks);
    int bar = h > w ? (int)(h * 0.075) / SETTLE_BLOCK : 0;
    if (settle_blocks_init(&m->blocks, w, h, bar) < 0)
        return SETTLE_ERR_NOMEM;
    m->blocks.sum_rows = m->dsp->sum_rows;
    settle_cells_free(&m->cells);
    if (settle_cells_init(&m->cells, w, h) < 0)
        return SETTLE_ERR_NOMEM;
    m->cells.change_masks = m->dsp->change_masks;
    m->blur_r = s->blur != SETTLE_BLUR_NONE ? s->blur_radius : 0;
    m->prefilter = m->nmask > 0 || m->blur_r > 0;
    if (m->prefilter) {
        m->pre_src = malloc((size_t)w * 3 * (SETTLE_BAND_ROWS + 2 * m->blur_r));
        m->pre_out = malloc((size_t)w * 3 * SETTLE_BAND_ROWS);
        m->pre_col = malloc((size_t)w * 3 * sizeof(*m->pre_col));
        if (!m->pre_src || !m->pre_out || !m->pre_col)
            return SETTLE_ERR_NOMEM;
    }
    return 0;
}

void settle_measure_free(SettleMeasure *m)
{
    free(m->prev);
    m->prev = NULL;
    free(m->band_hist);
    m->band_hist = NULL;
    free(m->dirty);
    m->dirty = NULL;
    free(m->fresh);
    m->fresh = NULL;
    free(m->pre_src);
    m->pre_src = NULL;
    free(m->pre_out);
    m->pre_out = NULL;
    free(m->pre_col);
    m->pre_col = NULL;
    m->prefilter = 0;
    settle_blocks_free(&m->blocks);
    settle_cells_free(&m->cells);
}

/* Rows [y0, y0 + rows) of the measured rectangle as they are measured: the
 * picture itself, or with --ignore and --blur a prepared copy. */
static const uint8_t *band_pixels(SettleMeasure *m, const uint8_t *rgb, ptrdiff_t stride, int y0,
                                  int rows, ptrdiff_t *out_stride)
{
    if (!m->prefilter) {
        *out_stride = stride;
        return rgb + y0 * stride;
    }
    const ptrdiff_t ws = (ptrdiff_t)m->w * 3;
    int r = m->blur_r;
    int top = y0 < r ? y0 : r;
    int bottom = m->h - y0 - rows < r ? m->h - y0 - rows : r;
    for (int y = -top; y < rows + bottom; y++)
        memcpy(m->pre_src + (y + top) * ws, rgb + (y0 + y) * stride, (size_t)ws);
    settle_mask_rows(m->pre_src, ws, y0 - top, top + rows + bottom, (const int (*)[4])m->mask,
                     m->nmask);
    *out_stride = ws;
    if (!r)
        return m->pre_src;
    settle_blur_rgb(m->pre_src + top * ws, ws, m->w, rows, top, bottom,
                    m->s->blur == SETTLE_BLUR_MEDIAN, r, m->pre_out, ws, m->pre_col);
    settle_mask_rows(m->pre_out, ws, y0, rows, (const int (*)[4])m->mask, m->nmask);
    return m->pre_out;
}

/* The first picture: every band's histogram and the reference picture. */
static void measure_whole(SettleMeasure *m, const uint8_t *rgb, ptrdiff_t stride)
{
    int nbands = (m->h + SETTLE_BAND_ROWS - 1) / SETTLE_BAND_ROWS;
    memset(m->hist, 0, sizeof(m->hist));
    m->marker_count = 0;
    for (int i = 0; i < nbands; i++) {
        uint32_t *bh = m->band_hist + (size_t)i * SETTLE_HIST_BINS;
        int y0 = i * SETTLE_BAND_ROWS;
        int rows = m->h - y0 < SETTLE_BAND_ROWS ? m->h - y0 : SETTLE_BAND_ROWS;
        ptrdiff_t bs;
        const uint8_t *band = band_pixels(m, rgb, stride, y0, rows, &bs);
        memset(bh, 0, SETTLE_HIST_BINS * sizeof(*bh));
        m->dsp->histogram_rgb(band, bs, m->w, rows, bh);
        for (int k = 0; k < SETTLE_HIST_BINS; k++)
            m->hist[k] += bh[k];
        if (m->use_marker)
            m->marker_count += m->dsp->count_color(band, bs, m->w, rows, m->s->marker_rgb,
                                                   m->s->marker_tolerance);
        for (int y = 0; y < rows; y++)
            memcpy(m->prev + (size_t)(y0 + y) * m->w * 3, band + y * bs, (size_t)m->w * 3);
        if (m->use_blocks)
            settle_blocks_rows(&m->blocks, band, bs, y0, rows);
    }
    /* the masked pixels are black in every picture: out of the histogram */
    m->hist[0] -= (uint32_t)m->mask_pix;
    m->hist[256] -= (uint32_t)m->mask_pix;
    m->hist[512] -= (uint32_t)m->mask_pix;
}

/* A later picture: only the bands that may have changed. */
static int measure_changes(SettleMeasure *m, const uint8_t *rgb, ptrdiff_t stride,
                           const uint8_t *changed, int band_h, SettleFillRows fill,
                           void *fill_opaque, SettleRecord *r)
{
    const SettleSettings *s = m->s;
    int ret;
    if (changed && band_h < 1)
        changed = NULL;
    memset(m->dirty, 0, (size_t)(m->h + SETTLE_BAND_ROWS - 1) / SETTLE_BAND_ROWS);
    settle_cells_clear(&m->cells);
    settle_regions_clear(&m->regions);
    for (int y0 = 0, i = 0; y0 < m->h; y0 += SETTLE_BAND_ROWS, i++) {
        int bh = m->h - y0 < SETTLE_BAND_ROWS ? m->h - y0 : SETTLE_BAND_ROWS;
        /* the source rows the band reads: rows of the whole picture; a blur
         * reads blur_r rows beyond the band */
        int top = m->cy + y0 - m->blur_r, bottom = m->cy + y0 + bh - 1 + m->blur_r;
        top = top < 0 ? 0 : top;
        bottom = bottom > m->fh - 1 ? m->fh - 1 : bottom;
        if (changed) {
            int any = 0;
            for (int k = top / band_h; k <= bottom / band_h; k++)
                any |= changed[k];
            if (!any)
                continue;
        }
        if (fill && (ret = fill(fill_opaque, top, bottom)) < 0)
            return ret;
        ptrdiff_t bs;
        const uint8_t *band = band_pixels(m, rgb, stride, y0, bh, &bs);
        SettleDelta dl;
        /* before settle_update_band, which makes prev the new picture */
        settle_regions_band(&m->regions, band, bs, m->prev + (size_t)y0 * m->w * 3,
                            (ptrdiff_t)m->w * 3, y0, bh, s->tolerance);
        settle_update_band(m->dsp, band, bs, m->prev + (size_t)y0 * m->w * 3,
                           (ptrdiff_t)m->w * 3, m->w, bh, s->tolerance, STRONG_TOLERANCE,
                           m->use_marker ? s->marker_rgb : NULL, s->marker_tolerance,
                           m->band_hist + (size_t)i * SETTLE_HIST_BINS, m->hist, m->fresh + i,
                           m->cells.masks, &dl);
        /* where it changed, from the masks the band's pass wrote */
        settle_cells_masks(&m->cells, m->cells.masks, y0, bh);
        if (m->use_blocks)
            settle_blocks_rows(&m->blocks, band, bs, y0, bh);
        r->diff += dl.changed;
        r->strong += dl.strong;
        m->marker_count += dl.marker;
        m->dirty[i] = dl.rows > 0;
    }
    if (m->cells.box[2] > m->cells.box[0]) {
        const int *b = m->cells.box;
        r->box[0] = m->cx + b[0];
        r->box[1] = m->cy + b[1];
        r->box[2] = b[2] - b[0];
        r->box[3] = b[3] - b[1];
    }
    return 0;
}

int settle_measure_picture(SettleMeasure *m, const uint8_t *rgb, ptrdiff_t stride, int first,
                           const uint8_t *changed, int band_h, SettleFillRows fill,
                           void *fill_opaque, SettleRecord *r)
{
    rgb += m->cy * stride + (ptrdiff_t)m->cx * 3;
    if (first) {
        measure_whole(m, rgb, stride);
    } else {
        int ret = measure_changes(m, rgb, stride, changed, band_h, fill, fill_opaque, r);
        if (ret < 0)
            return ret;
    }
    if (m->use_blocks && m->blocks.sum) {
        SettleBlocksFrame bf;
        settle_blocks_frame(&m->blocks, &bf);
        r->block_peak = bf.peak;
        r->blocks_changed = bf.changed;
        r->block_change = (uint8_t)bf.change;
        r->block_bar = (uint8_t)bf.change_bar;
    } else {
        r->block_peak = NAN;
        r->blocks_changed = -1;
    }
    r->entropy = settle_histogram_entropy(m->hist, SETTLE_HIST_BINS);
    if (m->use_marker)
        r->marker = (double)m->marker_count / (double)m->npix;
    return 0;
}
