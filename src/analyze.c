/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The analysis: measures each picture, keeps the entropy history, and feeds
 * two stability trackers (diff and entropy) side by side, so that the method
 * can be chosen from the whole capture at the end without a second pass.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { T_DIFF = 0, T_ENTROPY = 1 };

/* A change counts as strong when a channel moved by more than this. Measured
 * on x264, VP8 and VP9 encodes from crf 18 to 45: a keyframe in a still
 * picture moves at most 57 pixels (of 307200) by more than 96 levels, where
 * content appearing moves tens of thousands. */
#define STRONG_TOLERANCE 96
/* Frames after a faint keyframe that may still be the encoder converging. */
#define REFRESH_FOLLOWERS 2
/* --crop viewport: WebPageTest retries on later frames while the viewport it
 * finds is at most this many pixels wide or high, for at most VIEWPORT_TRIES
 * frames. */
#define VIEWPORT_MIN 100
#define VIEWPORT_TRIES 60
/* In Android screen recordings WebPageTest leaves out the viewport's top rows,
 * where mobile browsers draw their loading bar. */
#define VIEWPORT_TOP 10

int settle_open(SettleContext **pc, const SettleSettings *s)
{
    if (!pc)
        return SETTLE_ERR_INVAL;
    *pc = NULL;
    SettleSettings def;
    if (!s) {
        settle_default_settings(&def);
        s = &def;
    }
    if (settle_settings_check(s, NULL, 0) < 0)
        return SETTLE_ERR_INVAL;
    SettleContext *c = calloc(1, sizeof(*c));
    if (!c)
        return SETTLE_ERR_NOMEM;
    c->s = *s;
    settle_kernels_init(&c->dsp, settle_cpu_flags());
    *pc = c;
    return 0;
}

/* The rectangle every measure looks at, and what depends on its size. */
static int set_region(SettleContext *c, int x, int y, int w, int h)
{
    c->cx = x;
    c->cy = y;
    c->w = w;
    c->h = h;
    c->npix = (int64_t)w * h;
    c->diff_limit = c->s.diff_threshold_percent > 0
                        ? floor(c->npix * c->s.diff_threshold_percent / 100.0)
                        : c->s.diff_threshold;
    /* A keyframe whose strong changes stay under a tenth of the diff
     * threshold (and under 0.2 % of the picture) is codec noise. */
    int64_t lim = (int64_t)(c->diff_limit / 10);
    int64_t share = c->npix / 500;
    c->refresh_limit = lim < share ? lim : share;
    /* a floor for tiny thresholds, but never over 0.2 % of the picture:
     * on a 3x5 picture (all-intra codecs make every frame a keyframe) a
     * one-pixel change is content, not codec noise */
    if (c->refresh_limit < 16)
        c->refresh_limit = share < 16 ? share : 16;
    /* --ignore in the rectangle's coordinates, clipped to it */
    c->nmask = 0;
    for (int i = 0; i < c->s.nignore; i++) {
        const int *g = c->s.ignore[i];
        int x0 = g[0] - x, y0 = g[1] - y;
        int x1 = x0 + g[2], y1 = y0 + g[3];
        x0 = x0 < 0 ? 0 : x0;
        y0 = y0 < 0 ? 0 : y0;
        x1 = x1 > w ? w : x1;
        y1 = y1 > h ? h : y1;
        if (x0 >= x1 || y0 >= y1)
            continue;
        int *m = c->mask[c->nmask++];
        m[0] = x0, m[1] = y0, m[2] = x1 - x0, m[3] = y1 - y0;
    }
    c->mask_pix = 0;
    for (int yy = 0; yy < h && c->nmask; yy++) {
        /* rectangles may overlap: count each pixel of a row once */
        int covered = 0, end = 0;
        for (;;) {
            int best = -1;
            for (int i = 0; i < c->nmask; i++) {
                const int *m = c->mask[i];
                if (yy < m[1] || yy >= m[1] + m[3] || m[0] + m[2] <= end)
                    continue;
                if (best < 0 || m[0] < c->mask[best][0])
                    best = i;
            }
            if (best < 0)
                break;
            const int *m = c->mask[best];
            int a = m[0] > end ? m[0] : end;
            covered += m[0] + m[2] - a;
            end = m[0] + m[2];
        }
        c->mask_pix += covered;
    }
    settle_cells_free(&c->cells);
    settle_animated_free(&c->anim);
    if (settle_cells_init(&c->cells, w, h) < 0)
        return SETTLE_ERR_NOMEM;
    settle_regions_init(&c->regions, &c->s, x, y, w, h, c->diff_limit);
    int ar = settle_animated_init(&c->anim, &c->cells, x, y, c->s.ignore_animated);
    if (ar == -1)
        return SETTLE_ERR_NOMEM;
    if (ar == -2)
        settle_log(c, SETTLE_LOG_WARNING, "%s: no temporary file for --ignore animated; "
                   "nothing is left out", c->name);
    c->blur_r = c->s.blur != SETTLE_BLUR_NONE ? c->s.blur_radius : 0;
    c->prefilter = c->nmask > 0 || c->blur_r > 0;
    if (c->prefilter) {
        c->pre_src = malloc((size_t)w * 3 * (SETTLE_BAND_ROWS + 2 * c->blur_r));
        c->pre_out = malloc((size_t)w * 3 * SETTLE_BAND_ROWS);
        c->pre_col = malloc((size_t)w * 3 * sizeof(*c->pre_col));
        if (!c->pre_src || !c->pre_out || !c->pre_col)
            return SETTLE_ERR_NOMEM;
    }
    if (c->s.visual_metrics) {
        if (settle_visual_init(&c->visual, w, h, c->s.last_change_exact, c->mobile, &c->dsp) < 0)
            return SETTLE_ERR_NOMEM;
        c->visual_on = 1;
        if (!c->visual.spool)
            settle_log(c, SETTLE_LOG_WARNING, "%s: no temporary file for the visual progress; "
                       "visual metrics are unavailable", c->name);
    }
    return 0;
}

static void reset(SettleContext *c)
{
    free(c->prev);
    c->prev = NULL;
    free(c->band_hist);
    c->band_hist = NULL;
    free(c->dirty);
    c->dirty = NULL;
    free(c->fresh);
    c->fresh = NULL;
    free(c->pre_src);
    c->pre_src = NULL;
    free(c->pre_out);
    c->pre_out = NULL;
    free(c->pre_col);
    c->pre_col = NULL;
    c->prefilter = 0;
    settle_cells_free(&c->cells);
    settle_animated_free(&c->anim);
    free(c->name);
    c->name = NULL;
    free(c->error_message);
    c->error_message = NULL;
    if (c->spool)
        fclose(c->spool);
    c->spool = NULL;
    if (c->visual_on)
        settle_visual_free(&c->visual);
    c->visual_on = 0;
    c->state = 0;
}

void settle_close(SettleContext **pc)
{
    if (!pc || !*pc)
        return;
    reset(*pc);
    for (int i = 0; i < 2 * (*pc)->nlabels; i++)
        free((*pc)->labels[i]);
    free((*pc)->labels);
    free(*pc);
    *pc = NULL;
}

int settle_add_label(SettleContext *c, const char *key, const char *value)
{
    if (!c || !key || !*key || !value)
        return SETTLE_ERR_INVAL;
    char *v = strdup(value);
    if (!v)
        return SETTLE_ERR_NOMEM;
    for (int i = 0; i < c->nlabels; i++) {
        if (!strcmp(c->labels[2 * i], key)) {
            free(c->labels[2 * i + 1]);
            c->labels[2 * i + 1] = v;
            return 0;
        }
    }
    char *k = strdup(key);
    char **grown = k ? realloc(c->labels, (size_t)(c->nlabels + 1) * 2 * sizeof(*grown)) : NULL;
    if (!grown) {
        free(k);
        free(v);
        return SETTLE_ERR_NOMEM;
    }
    c->labels = grown;
    c->labels[2 * c->nlabels] = k;
    c->labels[2 * c->nlabels + 1] = v;
    c->nlabels++;
    return 0;
}

void settle_interrupt(SettleContext *c)
{
    if (c)
        c->interrupted = 1;
}

static void tracker_init(SettleTracker *t, double settle)
{
    t->start_frame = -1;
    t->start_time = t->start_frame_time = NAN;
    t->first_change = t->last_change = t->settled = -1;
    t->first_change_time = t->last_change_time = t->settled_time = NAN;
    t->last_frame = -1;
    t->last_box.frame = -1;
    t->last_box.w = t->last_box.h = 0;
    settle_quiet_init(&t->quiet, settle);
}

int settle_begin(SettleContext *c, const char *name, int w, int h)
{
    return settle_begin_capture(c, name, w, h, 0);
}

int settle_begin_capture(SettleContext *c, const char *name, int w, int h, int mobile)
{
    if (!c)
        return SETTLE_ERR_INVAL;
    if (c->state == 1)
        return SETTLE_ERR_STATE;
    reset(c);
    c->mobile = mobile;
    memset(&c->res, 0, sizeof(c->res));
    c->res.start_frame = c->res.stable_frame = -1;
    /* c->interrupted is left alone: an interrupt that came before the first
     * frame still stops this analysis (settle_finish clears it) */
    c->in_known = 0;
    c->error = 0;
    c->n = 0;
    c->ring_len = c->ring_pos = 0;
    c->marker_first = c->marker_end = -1;
    c->common_start = -1;
    c->common_start_time = NAN;
    memset(c->floor_hist, 0, sizeof(c->floor_hist));
    c->floor_n = 0;
    c->refreshes = 0;
    c->since_event = REFRESH_FOLLOWERS + 1;
    tracker_init(&c->tr[T_DIFF], c->s.settle);
    tracker_init(&c->tr[T_ENTROPY], c->s.settle);

    c->name = strdup(name ? name : "(frames)");
    if (!c->name)
        return SETTLE_ERR_NOMEM;
    c->res.input = c->name;
    if (w < 1 || h < 1)
        return SETTLE_ERR_INVAL;
    if ((int64_t)w * h > c->s.max_pixels || w > 65536 || h > 65536)
        return SETTLE_ERR_LIMIT;
    c->fw = w;
    c->fh = h;
    c->prev = malloc((size_t)w * h * 3);
    c->band_hist = malloc((size_t)((h + SETTLE_BAND_ROWS - 1) / SETTLE_BAND_ROWS) *
                          SETTLE_HIST_BINS * sizeof(*c->band_hist));
    c->dirty = malloc((size_t)(h + SETTLE_BAND_ROWS - 1) / SETTLE_BAND_ROWS);
    c->fresh = calloc((size_t)(h + SETTLE_BAND_ROWS - 1) / SETTLE_BAND_ROWS, 1);
    if (!c->prev || !c->band_hist || !c->dirty || !c->fresh)
        return SETTLE_ERR_NOMEM;
    c->crop_pending = 0;
    c->crop_tries = 0;
    if (c->s.crop == SETTLE_CROP_RECT) {
        if ((int64_t)c->s.crop_x + c->s.crop_w > w || (int64_t)c->s.crop_y + c->s.crop_h > h) {
            /* begun on the whole picture, so that the result reports why */
            char msg[160];
            snprintf(msg, sizeof(msg), "--crop %d,%d,%d,%d does not fit the %dx%d picture",
                     c->s.crop_x, c->s.crop_y, c->s.crop_w, c->s.crop_h, w, h);
            int ret = set_region(c, 0, 0, w, h);
            if (ret < 0)
                return ret;
            c->state = 1;
            settle_set_error(c, SETTLE_ERR_CROP, msg);
            return SETTLE_ERR_CROP;
        }
        int ret = set_region(c, c->s.crop_x, c->s.crop_y, c->s.crop_w, c->s.crop_h);
        if (ret < 0)
            return ret;
    } else if (c->s.crop == SETTLE_CROP_VIEWPORT || c->s.crop == SETTLE_CROP_AUTO) {
        c->crop_pending = 1;
    } else {
        int ret = set_region(c, 0, 0, w, h);
        if (ret < 0)
            return ret;
    }
    c->spool = tmpfile();
    c->spool_ok = c->spool != NULL;
    if (!c->spool)
        settle_log(c, SETTLE_LOG_WARNING, "%s: no temporary file for per-frame data; "
                   "per-frame output is unavailable", c->name);
    c->state = 1;
    return 0;
}

void settle_set_error(SettleContext *c, int err, const char *message)
{
    if (!c || !err)
        return;
    c->error = err;
    free(c->error_message);
    c->error_message = message ? strdup(message) : NULL;
}

static int floor_bin(int64_t v)
{
    if (v < 64)
        return (int)v;
    int oct = 0;
    while ((v >> (oct + 1)) >= 64)
        oct++;
    /* v in [64 << oct, 128 << oct) */
    int sub = (int)(((v - ((int64_t)64 << oct)) * 16) >> (oct + 6));
    int b = 64 + oct * 16 + sub;
    return b < SETTLE_FLOOR_BINS ? b : SETTLE_FLOOR_BINS - 1;
}

static double floor_bin_value(int b)
{
    if (b < 64)
        return b;
    int oct = (b - 64) / 16, sub = (b - 64) % 16;
    /* the middle of the bin */
    return ldexp(64.0 + (sub + 0.5) * 4.0, oct);
}

/* The 10th percentile of the changed-pixel counts: what a quiet frame of this
 * capture looks like. */
static double noise_floor(const SettleContext *c)
{
    if (!c->floor_n)
        return NAN;
    int64_t want = (c->floor_n + 9) / 10, seen = 0;
    for (int b = 0; b < SETTLE_FLOOR_BINS; b++) {
        seen += (int64_t)c->floor_hist[b];
        if (seen >= want)
            return floor_bin_value(b);
    }
    return floor_bin_value(SETTLE_FLOOR_BINS - 1);
}

/* The earliest frame of the recent history that already shows the picture
 * frame `idx` (entropy e) settled on: the rolling mean makes a step look
 * unsettled for up to `window` frames after it happened. */
static void walk_back(const SettleContext *c, const SettleTracker *t, int64_t idx, double e,
                      double time, int64_t *out, double *out_time)
{
    *out = idx;
    *out_time = time;
    for (int k = 1; k < c->s.window && k < c->ring_len; k++) {
        const SettleHistory *hp =
            &c->ring[(c->ring_pos - 1 - k + 2 * SETTLE_MAX_WINDOW) % SETTLE_MAX_WINDOW];
        if (hp->index <= t->start_frame || fabs(hp->entropy - e) > c->s.entropy_threshold)
            break;
        *out = hp->index;
        *out_time = hp->time;
    }
}

static SettleBox record_box(const SettleRecord *r)
{
    SettleBox b = { .frame = r->index, .time = r->time, .x = r->box[0], .y = r->box[1],
                    .w = r->box[2], .h = r->box[3], .pixels = r->diff };
    return b;
}

static void tracker_frame(SettleContext *c, int which, const SettleRecord *r)
{
    SettleTracker *t = &c->tr[which];
    int quiet = r->quiet[which];
    t->last_frame = r->index;
    if (t->start_frame < 0) {
        int found = c->s.start == SETTLE_START_FIRST_CHANGE ? !quiet
                                                            : c->common_start == r->index;
        if (found) {
            t->start_frame = r->index;
            t->start_time = c->s.start == SETTLE_START_TIME ? c->s.start_time : r->time;
            t->start_frame_time = r->time;
            /* --settle: a start frame that changes is where loading began */
            SettleBox b = record_box(r);
            if (!quiet && c->s.settle > 0)
                settle_quiet_change(&t->quiet, &b, r->index, r->time);
        }
        return;
    }
    if (!quiet) {
        if (t->first_change < 0) {
            t->first_change = r->index;
            t->first_change_time = r->time;
        }
        t->last_change = r->index;
        t->last_change_time = r->time;
        /* the entropy method's rolling mean flags frames after a step that
         * change nothing: the step stays the change */
        if (r->box[2] > 0 || t->last_box.frame < 0)
            t->last_box = record_box(r);
        if (which == T_ENTROPY) {
            walk_back(c, t, r->index, r->entropy, r->time, &t->settled, &t->settled_time);
        } else {
            t->settled = r->index;
            t->settled_time = r->time;
        }
        if (c->s.settle > 0)
            settle_quiet_change(&t->quiet, &t->last_box, t->settled, t->settled_time);
    }
}

/* Rows [y0, y0 + rows) of the measured rectangle as they are measured: the
 * picture itself, or with --ignore and --blur a prepared copy. */
static const uint8_t *band_pixels(SettleContext *c, const uint8_t *rgb, ptrdiff_t stride, int y0,
                                  int rows, ptrdiff_t *out_stride)
{
    if (!c->prefilter) {
        *out_stride = stride;
        return rgb + y0 * stride;
    }
    const ptrdiff_t ws = (ptrdiff_t)c->w * 3;
    int r = c->blur_r;
    int top = y0 < r ? y0 : r;
    int bottom = c->h - y0 - rows < r ? c->h - y0 - rows : r;
    for (int y = -top; y < rows + bottom; y++)
        memcpy(c->pre_src + (y + top) * ws, rgb + (y0 + y) * stride, (size_t)ws);
    settle_mask_rows(c->pre_src, ws, y0 - top, top + rows + bottom, (const int (*)[4])c->mask,
                     c->nmask);
    *out_stride = ws;
    if (!r)
        return c->pre_src;
    settle_blur_rgb(c->pre_src + top * ws, ws, c->w, rows, top, bottom,
                    c->s.blur == SETTLE_BLUR_MEDIAN, r, c->pre_out, ws, c->pre_col);
    settle_mask_rows(c->pre_out, ws, y0, rows, (const int (*)[4])c->mask, c->nmask);
    return c->pre_out;
}

int settle_send_picture(SettleContext *c, const SettlePicture *p)
{
    return settle_send_picture_bands(c, p, NULL, 0, NULL, NULL);
}

int settle_send_picture_bands(SettleContext *c, const SettlePicture *p, const uint8_t *changed,
                              int band_h, SettleFillRows fill, void *fill_opaque)
{
    if (!c || !p || !p->rgb)
        return SETTLE_ERR_INVAL;
    if (c->state != 1)
        return SETTLE_ERR_STATE;
    if (c->interrupted)
        return SETTLE_ERR_INTERRUPTED;
    if (p->width != c->fw || p->height != c->fh || !isfinite(p->time) ||
        (p->stride < (ptrdiff_t)c->fw * 3 && p->stride > -(ptrdiff_t)c->fw * 3))
        return SETTLE_ERR_INVAL;
    int ret;
    /* the whole picture is read (crop, a second reading, the first frame) */
    if (fill && (c->crop_pending || c->grab || c->n == 0) && (ret = fill(fill_opaque, 0, c->fh - 1)) < 0)
        return ret;
    if (c->crop_pending && c->s.crop == SETTLE_CROP_AUTO) {
        /* decided on the first frame, so that every frame is measured alike */
        int v[4];
        if (settle_find_screen(p->rgb, p->stride, c->fw, c->fh, v))
            settle_log(c, SETTLE_LOG_INFO, "%s: screen found at %d,%d,%d,%d", c->name, v[0], v[1],
                       v[2], v[3]);
        else
            settle_log(c, SETTLE_LOG_INFO, "%s: no screen against a darker surround in the "
                       "first frame; measuring the whole picture", c->name);
        c->crop_pending = 0;
        ret = set_region(c, v[0], v[1], v[2], v[3]);
        if (ret < 0)
            return ret;
    }
    if (c->crop_pending) {
        int v[4];
        settle_find_viewport(p->rgb, p->stride, c->fw, c->fh, v);
        if (v[2] > VIEWPORT_MIN && v[3] > VIEWPORT_MIN) {
            if (c->mobile && v[3] > VIEWPORT_TOP) {
                v[1] += VIEWPORT_TOP;
                v[3] -= VIEWPORT_TOP;
            }
            settle_log(c, SETTLE_LOG_INFO, "%s: viewport %d,%d,%d,%d", c->name, v[0], v[1], v[2],
                       v[3]);
        } else if (++c->crop_tries < VIEWPORT_TRIES) {
            return 0; /* not measured: the measures need the final rectangle */
        } else {
            settle_log(c, SETTLE_LOG_WARNING, "%s: no viewport found in the first %d frames; "
                       "measuring the whole picture", c->name, VIEWPORT_TRIES);
            v[0] = v[1] = 0;
            v[2] = c->fw;
            v[3] = c->fh;
        }
        c->crop_pending = 0;
        ret = set_region(c, v[0], v[1], v[2], v[3]);
        if (ret < 0)
            return ret;
    }
    if (c->grab) /* settle_grab_pictures: a second reading, that only looks */
        return c->grab(c->grab_opaque, p, c->n++);
    const uint8_t *rgb = p->rgb + c->cy * p->stride + (ptrdiff_t)c->cx * 3;

    SettleRecord r;
    memset(&r, 0, sizeof(r));
    r.index = c->n;
    if (c->n == 0)
        c->t0 = p->time;
    r.time = p->time - c->t0;
    if (c->n > 0 && r.time < c->last_time) {
        /* Timestamps that go back would break every duration; hold the clock. */
        settle_log(c, SETTLE_LOG_WARNING, "%s: frame %lld: timestamp goes back %.3f s; "
                   "using the previous one", c->name, (long long)c->n, c->last_time - r.time);
        r.time = c->last_time;
    }
    r.keyframe = p->keyframe != 0;

    /* the measures: whole for the first picture, then only where it changed */
    int use_marker = c->s.start == SETTLE_START_MARKER || c->s.start == SETTLE_START_MARKER_END;
    int nbands = (c->h + SETTLE_BAND_ROWS - 1) / SETTLE_BAND_ROWS;
    if (c->n == 0) {
        memset(c->hist, 0, sizeof(c->hist));
        c->marker_count = 0;
        for (int i = 0; i < nbands; i++) {
            uint32_t *bh = c->band_hist + (size_t)i * SETTLE_HIST_BINS;
            int y0 = i * SETTLE_BAND_ROWS;
            int rows = c->h - y0 < SETTLE_BAND_ROWS ? c->h - y0 : SETTLE_BAND_ROWS;
            ptrdiff_t bs;
            const uint8_t *band = band_pixels(c, rgb, p->stride, y0, rows, &bs);
            memset(bh, 0, SETTLE_HIST_BINS * sizeof(*bh));
            c->dsp.histogram_rgb(band, bs, c->w, rows, bh);
            for (int k = 0; k < SETTLE_HIST_BINS; k++)
                c->hist[k] += bh[k];
            if (use_marker)
                c->marker_count += c->dsp.count_color(band, bs, c->w, rows, c->s.marker_rgb,
                                                      c->s.marker_tolerance);
            for (int y = 0; y < rows; y++)
                memcpy(c->prev + (size_t)(y0 + y) * c->w * 3, band + y * bs, (size_t)c->w * 3);
        }
        /* the masked pixels are black in every picture: out of the histogram */
        c->hist[0] -= (uint32_t)c->mask_pix;
        c->hist[256] -= (uint32_t)c->mask_pix;
        c->hist[512] -= (uint32_t)c->mask_pix;
    } else {
        if (changed && band_h < 1)
            changed = NULL;
        memset(c->dirty, 0, (size_t)nbands);
        settle_cells_clear(&c->cells);
        settle_regions_clear(&c->regions);
        for (int y0 = 0, i = 0; y0 < c->h; y0 += SETTLE_BAND_ROWS, i++) {
            int bh = c->h - y0 < SETTLE_BAND_ROWS ? c->h - y0 : SETTLE_BAND_ROWS;
            /* the source rows the band reads: rows of the whole picture; a
             * blur reads blur_r rows beyond the band */
            int top = c->cy + y0 - c->blur_r, bottom = c->cy + y0 + bh - 1 + c->blur_r;
            top = top < 0 ? 0 : top;
            bottom = bottom > c->fh - 1 ? c->fh - 1 : bottom;
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
            const uint8_t *band = band_pixels(c, rgb, p->stride, y0, bh, &bs);
            SettleDelta dl;
            settle_cells_band(&c->cells, band, bs, c->prev + (size_t)y0 * c->w * 3,
                              (ptrdiff_t)c->w * 3, y0, bh, c->s.tolerance);
            settle_regions_band(&c->regions, band, bs, c->prev + (size_t)y0 * c->w * 3,
                                (ptrdiff_t)c->w * 3, y0, bh, c->s.tolerance);
            settle_update_band(&c->dsp, band, bs, c->prev + (size_t)y0 * c->w * 3,
                               (ptrdiff_t)c->w * 3, c->w, bh, c->s.tolerance, STRONG_TOLERANCE,
                               use_marker ? c->s.marker_rgb : NULL, c->s.marker_tolerance,
                               c->band_hist + (size_t)i * SETTLE_HIST_BINS, c->hist,
                               c->fresh + i, &dl);
            r.diff += dl.changed;
            r.strong += dl.strong;
            c->marker_count += dl.marker;
            c->dirty[i] = dl.rows > 0;
        }
    }
    if (c->cells.box[2] > c->cells.box[0]) {
        const int *b = c->cells.box;
        r.box[0] = c->cx + b[0];
        r.box[1] = c->cy + b[1];
        r.box[2] = b[2] - b[0];
        r.box[3] = b[3] - b[1];
    }
    /* the rest of the picture, for what reads it whole (the visual metrics) */
    if (fill && c->n > 0 && (ret = fill(fill_opaque, 0, c->fh - 1)) < 0)
        return ret;
    r.entropy = settle_histogram_entropy(c->hist, SETTLE_HIST_BINS);
    int have = c->ring_len < c->s.window ? c->ring_len : c->s.window;
    if (have > 0) {
        double sum = 0;
        for (int k = 0; k < have; k++)
            sum += c->ring[(c->ring_pos - 1 - k + 2 * SETTLE_MAX_WINDOW) % SETTLE_MAX_WINDOW].entropy;
        r.delta = fabs(r.entropy - sum / have);
    }
    if (use_marker)
        r.marker = (double)c->marker_count / (double)c->npix;

    /* --noise-factor: the diff threshold rises with the noise floor measured
     * so far, so that a camera's noise alone never makes a frame a change */
    double limit = c->diff_limit;
    if (c->s.noise_factor > 0 && c->floor_n > 0) {
        double f = c->s.noise_factor * noise_floor(c);
        limit = f > limit ? f : limit;
    }
    /* Encoders re-code a still picture at a keyframe and converge on it over
     * the next frames: thousands of pixels move, but only faintly. Content
     * that appears on a screen moves pixels by far more. (Faint frames after
     * a big change that is not a keyframe are not judged: a skeleton's
     * shimmer is as faint as an encoder converging, and it is real.) */
    if (c->n > 0) {
        int faint = r.strong <= c->refresh_limit;
        if (r.keyframe)
            c->since_event = faint ? 0 : REFRESH_FOLLOWERS + 1;
        else if (!faint)
            c->since_event = REFRESH_FOLLOWERS + 1;
        else if (c->since_event <= REFRESH_FOLLOWERS)
            c->since_event++;
        int eligible = faint && c->since_event <= REFRESH_FOLLOWERS;
        if (c->s.codec_filter && eligible &&
            (r.diff > limit || r.delta > c->s.entropy_threshold)) {
            r.refresh = 1;
            c->refreshes++;
            c->ring_len = 0; /* the entropy baseline restarts from the re-coded picture */
        }
    }
    r.quiet[T_DIFF] = r.refresh || r.diff <= limit;
    r.limit = limit;
    r.quiet[T_ENTROPY] = r.refresh || r.delta <= c->s.entropy_threshold;

    SettleHistory *hp = &c->ring[c->ring_pos];
    hp->index = r.index;
    hp->time = r.time;
    hp->entropy = r.entropy;
    c->ring_pos = (c->ring_pos + 1) % SETTLE_MAX_WINDOW;
    if (c->ring_len < SETTLE_MAX_WINDOW)
        c->ring_len++;

    if (c->n > 0 && !r.refresh) {
        c->floor_hist[floor_bin(r.diff)]++;
        c->floor_n++;
    }

    /* the start rules that do not depend on the method */
    if (c->common_start < 0) {
        int is_marker = r.marker >= c->s.marker_coverage;
        switch (c->s.start) {
        case SETTLE_START_FIRST_FRAME:
            c->common_start = r.index;
            break;
        case SETTLE_START_TIME:
            if (r.time >= c->s.start_time - 1e-6)
                c->common_start = r.index;
            break;
        case SETTLE_START_MARKER:
            if (is_marker)
                c->common_start = r.index;
            break;
        case SETTLE_START_MARKER_END:
            if (is_marker && c->marker_first < 0)
                c->marker_first = r.index;
            else if (!is_marker && c->marker_first >= 0)
                c->common_start = r.index;
            break;
        default:
            break;
        }
        if (c->common_start >= 0)
            c->common_start_time = c->s.start == SETTLE_START_TIME ? c->s.start_time : r.time;
    }
    tracker_frame(c, T_DIFF, &r);
    tracker_frame(c, T_ENTROPY, &r);
    if (!r.quiet[T_DIFF] && c->tr[T_DIFF].start_frame >= 0)
        settle_animated_frame(&c->anim, &c->cells, r.time);
    if (c->n > 0)
        settle_regions_frame(&c->regions, r.index, r.time, c->tr[T_DIFF].start_frame >= 0);
    if (!r.quiet[T_DIFF] && c->anim.spool && settle_animated_spool(&c->anim, &c->cells, r.index) < 0) {
        settle_log(c, SETTLE_LOG_WARNING, "%s: cannot write to a temporary file; --ignore "
                   "animated leaves nothing out", c->name);
        fclose(c->anim.spool);
        c->anim.spool = NULL;
    }
    if (c->visual_on) {
        /* --start first-change depends on the method; the visual metrics then
         * count from the first frame */
        int is_start = c->s.start == SETTLE_START_FIRST_CHANGE ? r.index == 0
                                                               : r.index == c->common_start;
        settle_visual_frame(&c->visual, rgb, p->stride, r.index, r.time, is_start,
                            is_start && c->s.start != SETTLE_START_FIRST_CHANGE
                                ? c->common_start_time : r.time,
                            c->n ? c->dirty : NULL,
                            use_marker && r.marker >= c->s.marker_coverage);
    }

    if (c->spool && fwrite(&r, sizeof(r), 1, c->spool) != 1) {
        settle_log(c, SETTLE_LOG_WARNING, "%s: cannot write per-frame data to a temporary file",
                   c->name);
        c->spool_ok = 0;
    }

    c->prev_time = c->last_time;
    c->last_time = r.time;
    c->last_duration = p->duration > 0 && isfinite(p->duration) ? p->duration : 0;
    c->n++;
    return 0;
}

static int choose_method(SettleContext *c, double floor)
{
    if (c->s.method != SETTLE_METHOD_AUTO) {
        snprintf(c->reason, sizeof(c->reason), "chosen with --method %s",
                 settle_method_name(c->s.method));
        return c->s.method == SETTLE_METHOD_DIFF ? T_DIFF : T_ENTROPY;
    }
    /* A clean capture repeats a still picture almost exactly; a camera's
     * sensor noise changes pixels in every frame. */
    double clean = c->diff_limit / 4;
    const char *after = c->s.blur == SETTLE_BLUR_MEDIAN ? " (measured after --blur median)"
                        : c->s.blur == SETTLE_BLUR_BOX  ? " (measured after --blur box)"
                                                        : "";
    if (isnan(floor) || floor <= clean) {
        snprintf(c->reason, sizeof(c->reason),
                 "clean capture: a quiet frame changes about %.0f pixels (10th percentile)%s, "
                 "within a quarter of the diff threshold (%.0f)",
                 isnan(floor) ? 0.0 : floor, after, c->diff_limit);
        return T_DIFF;
    }
    snprintf(c->reason, sizeof(c->reason),
             "noisy capture (camera-like): even a quiet frame changes about %.0f pixels "
             "(10th percentile)%s, more than a quarter of the diff threshold (%.0f)",
             floor, after, c->diff_limit);
    return T_ENTROPY;
}

static void set_message(SettleContext *c, int err, const char *msg)
{
    if (c->error)
        return; /* the first error (a damaged stream) says more */
    settle_set_error(c, err, msg);
}

static void set_change(SettleChange *d, const SettleBox *b)
{
    d->frame = b->frame;
    d->time = b->frame >= 0 ? b->time : NAN;
    d->x = b->x;
    d->y = b->y;
    d->width = b->w;
    d->height = b->h;
    d->pixels = b->frame >= 0 ? b->pixels : 0;
}

/* --ignore animated: the diff decision again from the spooled frames, each
 * change without the animated cells' pixels. */
static int replay_without_animated(SettleContext *c)
{
    SettleTracker keep = c->tr[T_DIFF];
    SettleRecord r;
    if (!c->spool || !c->spool_ok || fflush(c->spool) || fseek(c->spool, 0, SEEK_SET) ||
        settle_animated_rewind(&c->anim) < 0)
        return SETTLE_ERR_IO;
    tracker_init(&c->tr[T_DIFF], c->s.settle);
    for (int64_t i = 0; i < c->n; i++) {
        if (fread(&r, sizeof(r), 1, c->spool) != 1)
            goto fail;
        if (!r.quiet[T_DIFF]) {
            if (settle_animated_read(&c->anim, r.index, &r.diff, r.box) < 0)
                goto fail;
            r.quiet[T_DIFF] = r.diff <= r.limit;
        }
        tracker_frame(c, T_DIFF, &r);
    }
    return fseek(c->spool, 0, SEEK_END) ? SETTLE_ERR_IO : 0;
fail:
    c->tr[T_DIFF] = keep;
    return SETTLE_ERR_IO;
}

/* The animated areas, and --ignore animated. */
static void find_animated(SettleContext *c, int which, SettleResult *r)
{
    const SettleTracker *t = &c->tr[T_DIFF];
    if (which != T_DIFF || t->start_frame < 0 || c->n < 2) {
        if (c->s.ignore_animated && which != T_DIFF)
            settle_log(c, SETTLE_LOG_WARNING, "%s: --ignore animated applies to the diff method; "
                       "the entropy method was used and nothing is left out", c->name);
        return;
    }
    if (settle_animated_find(&c->anim, t->start_frame_time, r->duration) < 0) {
        settle_log(c, SETTLE_LOG_WARNING, "%s: out of memory looking for animated areas", c->name);
        return;
    }
    r->animated_known = 1;
    r->nanimated = c->anim.nregions;
    r->animated = c->anim.regions;
    if (c->s.ignore_animated && c->anim.count && c->anim.spool) {
        if (replay_without_animated(c) < 0)
            settle_log(c, SETTLE_LOG_WARNING, "%s: cannot read a temporary file back; "
                       "--ignore animated leaves nothing out", c->name);
        else
            r->animated_ignored = 1;
    }
}

/* --settle SECONDS (src/settle_quiet.c): the first change followed by that
 * much quiet, measured to the end of the recording. */
static int settle_decide(SettleContext *c, SettleTracker *t, SettleResult *r)
{
    SettleQuiet *q = &t->quiet;
    char msg[256];
    if (settle_quiet_end(q, r->duration)) {
        r->stable_frame = q->stable;
        r->stable_time = q->stable_time;
        set_change(&r->deciding_change, &q->deciding);
        return 0;
    }
    r->longest_quiet = q->longest;
    r->longest_quiet_time = q->longest_from;
    r->longest_quiet_frame = q->longest_frame;
    if (!q->have)
        snprintf(msg, sizeof(msg), "nothing changed after the start (%.3f s): --settle answers "
                 "only at or after the first change", t->start_frame_time);
    else
        snprintf(msg, sizeof(msg), "never quiet for %.3f s (--settle): the longest quiet lasts "
                 "%.3f s, from %.3f s (frame %lld)", c->s.settle, q->longest, q->longest_from,
                 (long long)q->longest_frame);
    set_message(c, SETTLE_ERR_NOT_STABLE, msg);
    return SETTLE_ERR_NOT_STABLE;
}

/* Finds the final picture and integrates the progress. Done whatever the
 * outcome, so that the per-frame progress is coherent; the result fields are
 * filled only when there is a start. */
static void visual_finish(SettleContext *c, double out[6])
{
    SettleVisual *v = &c->visual;
    for (int i = 0; i < 6; i++)
        out[i] = NAN;
    if (v->start_frame < 0)
        return;
    if (settle_visual_finish(v, &out[2], &out[3]) < 0) {
        settle_log(c, SETTLE_LOG_WARNING, "%s: cannot read the visual progress back from its "
                   "temporary file", c->name);
        v->spool_ok = 0;
        return;
    }
    out[0] = v->first_change >= 0 ? v->first_change_time - v->start_time : 0;
    out[1] = v->first_change >= 0 ? v->last_change_time - v->start_time : 0;
}

int settle_finish(SettleContext *c, const SettleResult **out)
{
    if (!c)
        return SETTLE_ERR_INVAL;
    if (c->state != 1) {
        /* settle_begin failed or was never called: report what is known */
        if (out)
            *out = &c->res;
        return c->error ? c->error : SETTLE_ERR_STATE;
    }
    c->state = 2;
    SettleResult *r = &c->res;
    r->input = c->name;
    r->frames = c->n;
    r->width = c->n ? c->fw : 0;
    r->height = c->n ? c->fh : 0;
    r->duration = c->last_time + (c->last_duration > 0 ? c->last_duration
                                  : c->n > 1 ? c->last_time - c->prev_time : 0);
    r->diff_threshold = c->diff_limit;
    r->noise_floor = noise_floor(c);
    r->codec_refreshes = c->refreshes;
    if (c->interrupted && !c->error)
        settle_set_error(c, SETTLE_ERR_INTERRUPTED, "interrupted");
    c->interrupted = 0; /* recorded in the result; the context can go on */
    /* measured some frames but not the whole capture */
    r->partial = c->error != 0 && c->n > 0;

    int which = choose_method(c, r->noise_floor);
    r->method = which == T_DIFF ? SETTLE_METHOD_DIFF : SETTLE_METHOD_ENTROPY;
    r->method_reason = c->reason;
    r->animated_known = r->nanimated = r->animated_ignored = 0;
    r->animated = NULL;
    find_animated(c, which, r);
    SettleTracker *t = &c->tr[which];
    settle_regions_finish(&c->regions, &c->s, c->n >= 2 ? t->start_frame : -1,
                          t->start_frame_time, t->start_time, r->duration);
    r->nregions = c->regions.n;
    r->regions = c->regions.res;
    /* first and last visual change, Speed Index, visually complete 85/95/99 */
    double visual[6];
    if (c->visual_on)
        visual_finish(c, visual);

    r->start_frame = t->start_frame;
    r->start_time = t->start_time;
    r->stable_frame = -1;
    r->stable_time = r->load_time = r->quiet_tail = NAN;
    r->first_visual_change = r->last_visual_change = NAN;
    r->crop_x = c->cx;
    r->crop_y = c->cy;
    r->crop_w = c->n ? c->w : 0;
    r->crop_h = c->n ? c->h : 0;
    r->speed_index = r->visually_complete_85 = r->visually_complete_95 =
        r->visually_complete_99 = NAN;
    r->deciding_change.frame = r->longest_quiet_frame = -1;
    r->deciding_change.time = r->longest_quiet = r->longest_quiet_time = NAN;

    int ret = 0;
    char msg[256];
    if (c->n < 2) {
        snprintf(msg, sizeof(msg), "%s: nothing to compare",
                 c->n ? "only one video frame" : "no video frames decoded");
        set_message(c, SETTLE_ERR_TOO_SHORT, msg);
        ret = SETTLE_ERR_TOO_SHORT;
    } else if (t->start_frame < 0) {
        switch (c->s.start) {
        case SETTLE_START_TIME:
            snprintf(msg, sizeof(msg), "start time %.3f s is after the last frame (%.3f s)",
                     c->s.start_time, c->last_time);
            break;
        case SETTLE_START_FIRST_CHANGE:
            snprintf(msg, sizeof(msg), "no frame changed, so there is no first change to start from");
            break;
        case SETTLE_START_MARKER:
        case SETTLE_START_MARKER_END: {
            const uint8_t *m = c->s.marker_rgb;
            if (c->s.start == SETTLE_START_MARKER_END && c->marker_first >= 0)
                snprintf(msg, sizeof(msg), "marker #%02x%02x%02x never ends", m[0], m[1], m[2]);
            else
                snprintf(msg, sizeof(msg), "no frame is covered by the marker colour #%02x%02x%02x",
                         m[0], m[1], m[2]);
            break;
        }
        default:
            snprintf(msg, sizeof(msg), "no start frame");
        }
        set_message(c, SETTLE_ERR_NO_START, msg);
        ret = SETTLE_ERR_NO_START;
    } else {
        if (c->visual_on) {
            r->first_visual_change = visual[0];
            r->last_visual_change = visual[1];
            r->speed_index = visual[2];
            r->visually_complete_85 = visual[3];
            r->visually_complete_95 = visual[4];
            r->visually_complete_99 = visual[5];
        } else if (t->first_change >= 0) {
            r->first_visual_change = t->first_change_time - t->start_time;
            r->last_visual_change = t->last_change_time - t->start_time;
        }
        if (c->s.settle > 0) {
            ret = settle_decide(c, t, r);
        } else if (t->last_change < 0) {
            r->stable_frame = t->start_frame;
            r->stable_time = t->start_frame_time;
        } else if (t->last_change == c->n - 1) {
            snprintf(msg, sizeof(msg), "the picture still changes in the last frame (%.3f s)",
                     c->last_time);
            set_message(c, SETTLE_ERR_NOT_STABLE, msg);
            ret = SETTLE_ERR_NOT_STABLE;
        } else {
            r->stable_frame = t->settled;
            r->stable_time = t->settled_time;
            set_change(&r->deciding_change, &t->last_box);
        }
        if (r->stable_frame >= 0) {
            r->load_time = r->stable_time - r->start_time;
            if (r->load_time < 0)
                r->load_time = 0; /* --start SECONDS between two frames, after the last change */
            r->quiet_tail = r->duration - r->stable_time;
        }
    }
    r->error = c->error;
    r->error_message = c->error_message;
    if (out)
        *out = r;
    /* a damaged or interrupted stream, or a crop that cannot apply, outranks
     * the decision's own outcome */
    if (c->error == SETTLE_ERR_DECODE || c->error == SETTLE_ERR_INTERRUPTED ||
        c->error == SETTLE_ERR_IO || c->error == SETTLE_ERR_CROP)
        return c->error;
    return ret;
}

int settle_foreach_frame(SettleContext *c, int (*cb)(void *, const SettleFrame *), void *opaque)
{
    if (!c || !cb)
        return SETTLE_ERR_INVAL;
    if (c->state != 2)
        return SETTLE_ERR_STATE;
    if (!c->spool || !c->spool_ok)
        return SETTLE_ERR_IO;
    int which = c->res.method == SETTLE_METHOD_DIFF ? T_DIFF : T_ENTROPY;
    if (fflush(c->spool) || fseek(c->spool, 0, SEEK_SET))
        return SETTLE_ERR_IO;
    SettleVisual *v = &c->visual;
    int with_progress = c->visual_on && v->start_frame >= 0 && v->spool && v->spool_ok;
    if (with_progress && (fflush(v->spool) || fseek(v->spool, 0, SEEK_SET)))
        return SETTLE_ERR_IO;
    SettleRecord r;
    SettleVisualRecord vr;
    int ret = 0;
    for (int64_t i = 0; i < c->n; i++) {
        if (fread(&r, sizeof(r), 1, c->spool) != 1) {
            ret = SETTLE_ERR_IO;
            break;
        }
        double progress = NAN;
        if (with_progress && r.index >= v->start_frame) {
            if (fread(&vr, sizeof(vr), 1, v->spool) != 1 || vr.index != r.index) {
                ret = SETTLE_ERR_IO;
                break;
            }
            progress = settle_visual_progress(v, &vr);
        }
        SettleFrame f = {
            .index = r.index, .time = r.time, .diff_pixels = r.diff, .entropy = r.entropy,
            .entropy_delta = r.delta, .marker = r.marker, .keyframe = r.keyframe,
            .codec_refresh = r.refresh, .quiet = r.quiet[which], .progress = progress,
        };
        ret = cb(opaque, &f);
        if (ret)
            break;
    }
    /* leave the spool positioned for appending nothing more; analysis is over */
    return ret;
}
