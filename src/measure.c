/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The measure stage: the first picture measured whole, then each band only
 * where the source says it may have changed, every measure module of the
 * table seeing each band while its rows are in the cache.
 */
#include <stdlib.h>
#include <string.h>

#include "measure_modules.h"
#include "prefilter.h"

/* The measures, in the order they see a band: those that read the previous
 * picture's rows come before "pixels", whose kernel makes them the new
 * picture's and writes the band's change masks, which those after it read
 * ("cells"). A measure added later is its own file and one line here. */
static const SettleMeasureModule *const modules[] = {
    &settle_module_regions,
    &settle_module_pixels,
    &settle_module_cells,
    &settle_module_blocks,
    &settle_module_visual,
};
#define NMODULES (int)(sizeof(modules) / sizeof(modules[0]))
_Static_assert(sizeof(modules) / sizeof(modules[0]) <= SETTLE_MEASURE_MAX_MODULES,
               "room for every module");
/* the option table copies enums as int */
_Static_assert(sizeof(SettleMethod) == sizeof(int) && sizeof(SettleStart) == sizeof(int),
               "enums stored as int");

int settle_measure_begin(SettleMeasure *m, const SettleSettings *s, const SettleKernels *dsp,
                         int fw, int fh)
{
    m->s = s;
    m->dsp = dsp;
    m->fw = fw;
    m->fh = fh;
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

/* --ignore in the rectangle's coordinates, clipped to it, and the buffers
 * that --ignore and --blur need. */
static int set_prefilter(SettleMeasure *m)
{
    const SettleSettings *s = m->s;
    m->nmask = 0;
    for (int i = 0; i < s->nignore; i++) {
        const int *g = s->ignore[i];
        int x0 = g[0] - m->cx, y0 = g[1] - m->cy;
        int x1 = x0 + g[2], y1 = y0 + g[3];
        x0 = x0 < 0 ? 0 : x0;
        y0 = y0 < 0 ? 0 : y0;
        x1 = x1 > m->w ? m->w : x1;
        y1 = y1 > m->h ? m->h : y1;
        if (x0 >= x1 || y0 >= y1)
            continue;
        int *k = m->mask[m->nmask++];
        k[0] = x0, k[1] = y0, k[2] = x1 - x0, k[3] = y1 - y0;
    }
    m->mask_pix = masked_pixels(m);
    m->blur_r = s->blur != SETTLE_BLUR_NONE ? s->blur_radius : 0;
    m->prefilter = m->nmask > 0 || m->blur_r > 0;
    if (m->prefilter) {
        m->pre_src = malloc((size_t)m->w * 3 * (SETTLE_BAND_ROWS + 2 * m->blur_r));
        m->pre_out = malloc((size_t)m->w * 3 * SETTLE_BAND_ROWS);
        m->pre_col = malloc((size_t)m->w * 3 * sizeof(*m->pre_col));
        if (!m->pre_src || !m->pre_out || !m->pre_col)
            return SETTLE_ERR_NOMEM;
    }
    return 0;
}

/* Each module's private state, its options filled from the settings, and its init. */
static int start_modules(SettleMeasure *m, const SettleMeasureArea *a)
{
    for (int i = 0; i < NMODULES; i++) {
        const SettleMeasureModule *mod = modules[i];
        SettleMeasureSlot *slot = &m->mod[m->nmod];
        slot->mod = mod;
        slot->active = 0;
        slot->priv = calloc(1, mod->priv_size);
        if (!slot->priv)
            return SETTLE_ERR_NOMEM;
        m->nmod++;
        int ret = settle_module_options_fill(mod->options, (char *)slot->priv + mod->opts_in_priv,
                                             m->s, NULL, 0);
        if (ret < 0)
            return ret;
        ret = mod->init ? mod->init(slot->priv, a) : 0;
        if (ret < 0)
            return ret;
        slot->active = ret == 0;
    }
    return 0;
}

int settle_measure_set_region(SettleMeasure *m, int x, int y, int w, int h,
                              const SettleMeasureSetup *setup)
{
    settle_measure_free(m);
    m->cx = x;
    m->cy = y;
    m->w = w;
    m->h = h;
    m->npix = (int64_t)w * h;
    int nbands = (h + SETTLE_BAND_ROWS - 1) / SETTLE_BAND_ROWS;
    m->prev = malloc((size_t)w * h * 3);
    m->dirty = calloc((size_t)nbands, 1);
    m->masks = calloc((size_t)SETTLE_BAND_ROWS * ((w + 15) / 16), sizeof(*m->masks));
    if (!m->prev || !m->dirty || !m->masks)
        return SETTLE_ERR_NOMEM;
    int ret = set_prefilter(m);
    if (ret < 0)
        return ret;
    SettleMeasureArea a = {
        .fw = m->fw, .fh = m->fh, .x = x, .y = y, .w = w, .h = h, .npix = m->npix,
        .mask_pix = m->mask_pix, .diff_limit = setup->diff_limit, .mobile = setup->mobile,
        .scale = setup->scale > 1 ? setup->scale : 1,
        .dsp = m->dsp, .s = m->s,
    };
    return start_modules(m, &a);
}

void settle_measure_free(SettleMeasure *m)
{
    for (int i = 0; i < m->nmod; i++) {
        SettleMeasureSlot *slot = &m->mod[i];
        if (slot->mod->close)
            slot->mod->close(slot->priv);
        free(slot->priv);
        slot->priv = NULL;
    }
    m->nmod = 0;
    free(m->prev);
    m->prev = NULL;
    free(m->dirty);
    m->dirty = NULL;
    free(m->masks);
    m->masks = NULL;
    free(m->pre_src);
    m->pre_src = NULL;
    free(m->pre_out);
    m->pre_out = NULL;
    free(m->pre_col);
    m->pre_col = NULL;
    m->prefilter = 0;
}

void *settle_measure_state(const SettleMeasure *m, const SettleMeasureModule *mod)
{
    for (int i = 0; i < m->nmod; i++)
        if (m->mod[i].mod == mod)
            return m->mod[i].active ? m->mod[i].priv : NULL;
    return NULL;
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

/* Every active module's band callback, in the table's order. */
static int send_band(SettleMeasure *m, const SettleMeasureBand *b)
{
    for (int k = 0; k < m->nmod; k++) {
        const SettleMeasureSlot *slot = &m->mod[k];
        int ret = slot->active && slot->mod->band ? slot->mod->band(slot->priv, b) : 0;
        if (ret < 0)
            return ret;
    }
    return 0;
}

/* The first picture: every band, then the reference picture. */
static int measure_whole(SettleMeasure *m, const uint8_t *rgb, ptrdiff_t stride)
{
    int nbands = (m->h + SETTLE_BAND_ROWS - 1) / SETTLE_BAND_ROWS;
    for (int i = 0; i < nbands; i++) {
        int y0 = i * SETTLE_BAND_ROWS;
        int rows = m->h - y0 < SETTLE_BAND_ROWS ? m->h - y0 : SETTLE_BAND_ROWS;
        ptrdiff_t bs;
        const uint8_t *band = band_pixels(m, rgb, stride, y0, rows, &bs);
        uint8_t *prev = m->prev + (size_t)y0 * m->w * 3;
        SettleMeasureBand b = { .first = 1, .i = i, .y0 = y0, .rows = rows, .cur = band,
                                .cstride = bs, .prev = prev, .pstride = (ptrdiff_t)m->w * 3,
                                .dirty = m->dirty + i };
        int ret = send_band(m, &b);
        if (ret < 0)
            return ret;
        for (int y = 0; y < rows; y++)
            memcpy(prev + (size_t)y * m->w * 3, band + y * bs, (size_t)m->w * 3);
    }
    return 0;
}

/* A later picture: only the bands that may have changed. */
static int measure_changes(SettleMeasure *m, const uint8_t *rgb, ptrdiff_t stride,
                           const uint8_t *changed, int band_h, SettleFillRows fill,
                           void *fill_opaque, int entropy)
{
    int ret;
    if (changed && band_h < 1)
        changed = NULL;
    memset(m->dirty, 0, (size_t)(m->h + SETTLE_BAND_ROWS - 1) / SETTLE_BAND_ROWS);
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
        if (fill) {
            settle_prefetch(m->prev + (size_t)y0 * m->w * 3, (size_t)bh * m->w * 3);
            if ((ret = fill(fill_opaque, top, bottom)) < 0)
                return ret;
        }
        ptrdiff_t bs;
        const uint8_t *band = band_pixels(m, rgb, stride, y0, bh, &bs);
        SettleMeasureBand b = { .first = 0, .i = i, .y0 = y0, .rows = bh, .cur = band,
                                .cstride = bs, .prev = m->prev + (size_t)y0 * m->w * 3,
                                .pstride = (ptrdiff_t)m->w * 3, .dirty = m->dirty + i,
                                .masks = m->masks, .entropy = entropy };
        if ((ret = send_band(m, &b)) < 0)
            return ret;
    }
    return 0;
}

int settle_measure_picture(SettleMeasure *m, const uint8_t *rgb, ptrdiff_t stride, int first,
                           const uint8_t *changed, int band_h, SettleFillRows fill,
                           void *fill_opaque, int entropy, SettleRecord *r)
{
    rgb += m->cy * stride + (ptrdiff_t)m->cx * 3;
    for (int k = 0; k < m->nmod; k++)
        if (m->mod[k].active && m->mod[k].mod->begin)
            m->mod[k].mod->begin(m->mod[k].priv, first);
    int ret = first ? measure_whole(m, rgb, stride)
                    : measure_changes(m, rgb, stride, changed, band_h, fill, fill_opaque,
                                      entropy);
    if (ret < 0)
        return ret;
    SettleMeasureFrame f = { .first = first, .rgb = rgb, .stride = stride,
                             .dirty = first ? NULL : m->dirty, .measured = m->prev,
                             .entropy = first ? 1 : entropy, .index = r->index, .start = -1 };
    for (int k = 0; k < m->nmod; k++) {
        const SettleMeasureSlot *slot = &m->mod[k];
        if (slot->active && slot->mod->picture && (ret = slot->mod->picture(slot->priv, &f, r)) < 0)
            return ret;
    }
    return 0;
}

int settle_measure_decided(SettleMeasure *m, const uint8_t *rgb, ptrdiff_t stride, int first,
                           int64_t start, double start_time, int started, SettleRecord *r)
{
    SettleMeasureFrame f = { .first = first, .rgb = rgb + m->cy * stride + (ptrdiff_t)m->cx * 3,
                             .stride = stride, .dirty = first ? NULL : m->dirty, .start = start,
                             .start_time = start_time, .started = started };
    for (int k = 0; k < m->nmod; k++) {
        const SettleMeasureSlot *slot = &m->mod[k];
        int ret = slot->active && slot->mod->decided ? slot->mod->decided(slot->priv, &f, r) : 0;
        if (ret < 0)
            return ret;
    }
    return 0;
}

int settle_measure_flush(SettleMeasure *m, const SettleMeasureEnd *e, SettleResult *res,
                         const char **failed)
{
    int first_error = 0;
    *failed = NULL;
    for (int k = 0; k < m->nmod; k++) {
        const SettleMeasureSlot *slot = &m->mod[k];
        int ret = slot->active && slot->mod->flush ? slot->mod->flush(slot->priv, e, res) : 0;
        if (ret < 0 && !first_error) {
            first_error = ret;
            *failed = slot->mod->name;
        }
    }
    return first_error;
}
