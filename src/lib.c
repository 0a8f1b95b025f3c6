/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The public entry points of the analysis and its lifecycle. The work is in
 * the stages, chained here for each picture in one direction:
 *   read (decode.c) -> measure (measure.c and its modules) -> decide (decide.c)
 *   -> records (records.c) -> writers (csv.c, json.c, pictures.c ..., from
 *   the stage outputs: outputs.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* --crop viewport: WebPageTest retries on later frames while the viewport it
 * finds is at most this many pixels wide or high, for at most VIEWPORT_TRIES
 * frames. */
#define VIEWPORT_MIN 100
#define VIEWPORT_TRIES 60
/* In Android screen recordings WebPageTest leaves out the viewport's top rows,
 * where mobile browsers draw their loading bar. */
#define VIEWPORT_TOP 10

const char *settle_version(void)
{
    return SETTLE_VERSION;
}

unsigned settle_version_api(void)
{
    return SETTLE_API_VERSION;
}

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
    c->entropy_all = 1;
    c->key_ahead = 1;
    settle_kernels_init(&c->dsp, settle_cpu_flags());
    *pc = c;
    return 0;
}

static void warn_visual(SettleContext *c)
{
    const SettleVisual *v = settle_measure_visual(&c->measure);
    if (v && !v->spool)
        settle_log(c, SETTLE_LOG_WARNING, "%s: no temporary file for the visual progress; "
                   "visual metrics are unavailable", c->name);
}

/* Whether the animated areas can be looked for at the end (find_animated):
 * not with the entropy method, nor in a reading that --scale auto reduced
 * with --method auto or blocks, which ends camera-like (the block test on a
 * camera's noise) or is read again from the start at full size
 * (kept_methods). Where they cannot, the cells keep only the rectangle of
 * each change. */
static int areas_wanted(const SettleContext *c)
{
    if (c->s.method == SETTLE_METHOD_ENTROPY)
        return 0;
    return !(c->scale > 1 && c->s.scale == 0 &&
             (c->s.method == SETTLE_METHOD_AUTO || c->s.method == SETTLE_METHOD_BLOCKS));
}

/* The rectangle every measure looks at, and what depends on its size. */
static int set_region(SettleContext *c, int x, int y, int w, int h)
{
    /* the decide stage counts in full-size pixels (a reduced picture's
     * counts are scaled up: settle_send_picture_bands) */
    const int64_t f2 = (int64_t)c->scale * c->scale;
    settle_decide_set_area(&c->decide, (int64_t)w * h * f2);
    SettleMeasureSetup setup = { .diff_limit = c->decide.diff_limit, .mobile = c->mobile,
                                 .scale = c->scale };
    int ret = settle_measure_set_region(&c->measure, x, y, w, h, &setup);
    if (ret < 0)
        return ret;
    int blocks_on;
    int bar_rows = settle_measure_bar_rows(&c->measure, &blocks_on);
    settle_decide_set_shape(&c->decide, w, h, bar_rows, blocks_on);
    settle_animated_free(&c->anim);
    free(c->bmark);
    c->bmark = NULL;
    SettleCells *cells = settle_measure_cells(&c->measure);
    /* diff's count in the block test's top band, for leaving a phone's
     * status bar out whatever the method (bar_out) */
    const SettleBlocks *blk = settle_measure_blocks(&c->measure);
    cells->bar_h = blk && bar_rows > 0 ? bar_rows * blk->bs : 0;
    if (!areas_wanted(c)) {
        cells->box_only = 1; /* c->anim stays empty: no area is looked for */
        warn_visual(c);
        return 0;
    }
    /* the changed cells for --ignore animated, and on a landscape picture
     * for a phone filmed in a room, whose room diff leaves out
     * (replay_in_room) */
    int spool = c->s.ignore_animated ? SETTLE_ANIM_SPOOL_CELLS | SETTLE_ANIM_SPOOL_BLOCKS
                : !c->decide.portrait && blocks_on ? SETTLE_ANIM_SPOOL_CELLS
                                                   : 0;
    int ar = settle_animated_init(&c->anim, cells, x, y, spool);
    if (ar == -1)
        return SETTLE_ERR_NOMEM;
    if (ar == -2)
        settle_log(c, SETTLE_LOG_WARNING, "%s: no temporary file for the changed cells; "
                   "nothing is left out of diff's count", c->name);
    warn_visual(c);
    return 0;
}

static void reset(SettleContext *c)
{
    settle_measure_free(&c->measure);
    settle_animated_free(&c->anim);
    free(c->bmark);
    c->bmark = NULL;
    free(c->name);
    c->name = NULL;
    free(c->error_message);
    c->error_message = NULL;
    settle_records_close(&c->records);
    settle_keep_free(&c->keep);
    c->keep.on = 0;
    c->state = SETTLE_STATE_IDLE;
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

void settle_set_error(SettleContext *c, int err, const char *message)
{
    if (!c || !err)
        return;
    c->error = err;
    free(c->error_message);
    c->error_message = message ? strdup(message) : NULL;
}

int settle_begin(SettleContext *c, const char *name, int w, int h)
{
    if (c)
        settle_set_scale(c, 1, w, h, NULL);
    return settle_begin_capture(c, name, w, h, 0);
}

void settle_set_scale(SettleContext *c, int scale, int full_w, int full_h, const char *why)
{
    c->scale = scale;
    c->full_w = full_w;
    c->full_h = full_h;
    c->scale_reread = 0;
    c->full_rgb = NULL;
    c->full_fill = NULL;
    snprintf(c->scale_reason, sizeof(c->scale_reason), "%s", why ? why : "");
}

void settle_set_full_picture(SettleContext *c, uint8_t *rgb, ptrdiff_t stride,
                             SettleFillRows fill, void *opaque)
{
    c->full_rgb = rgb;
    c->full_stride = stride;
    c->full_fill = fill;
    c->full_opaque = opaque;
}

void settle_set_hold(SettleContext *c, SettleHoldPicture hold, void *opaque)
{
    c->hold = hold;
    c->hold_opaque = opaque;
}

/* The measured rectangle at the start: --crop x,y,w,h now (or the whole
 * picture with SETTLE_ERR_CROP when it does not fit), viewport and auto from
 * the pictures. */
static int begin_region(SettleContext *c, int w, int h)
{
    c->crop_pending = 0;
    c->crop_tries = 0;
    const SettleSettings *s = &c->s;
    if (s->crop == SETTLE_CROP_RECT) {
        if ((int64_t)s->crop_x + s->crop_w > w || (int64_t)s->crop_y + s->crop_h > h) {
            /* begun on the whole picture, so that the result reports why */
            char msg[160];
            snprintf(msg, sizeof(msg), "--crop %d,%d,%d,%d does not fit the %dx%d picture",
                     s->crop_x, s->crop_y, s->crop_w, s->crop_h, w, h);
            int ret = set_region(c, 0, 0, w, h);
            if (ret < 0)
                return ret;
            c->state = SETTLE_STATE_RUNNING;
            settle_set_error(c, SETTLE_ERR_CROP, msg);
            return SETTLE_ERR_CROP;
        }
        return set_region(c, s->crop_x, s->crop_y, s->crop_w, s->crop_h);
    }
    if (s->crop == SETTLE_CROP_VIEWPORT || s->crop == SETTLE_CROP_AUTO) {
        c->crop_pending = 1;
        return 0;
    }
    return set_region(c, 0, 0, w, h);
}

/* An entropy the decide stage reads of a picture "pixels" kept for later. */
static double entropy_of(void *opaque, int64_t index)
{
    const SettleContext *c = opaque;
    return settle_measure_entropy(&c->measure, index);
}

/* The methods (bit t: SETTLE_T_ t) whose pictures are kept: all of them
 * (which one answers is known only at the end), but only the block test's
 * for a picture --scale auto reduced, with --method auto or blocks: that
 * reading ends camera-like by the decoder's test on the whole capture, where
 * the decide stage chooses the block test (settle_decide_camera), or is
 * read again from the start at full size (keeping all). Any other end finds
 * its method's pictures not kept, and they read the capture again. On a
 * camera capture every method but the block test takes much of the noise
 * for changes (startup-test-elmo: 228 of 440 frames copied and thumbnailed
 * for all methods, 35 for the block test's). */
static unsigned kept_methods(const SettleContext *c)
{
    if (c->scale > 1 && c->s.scale == 0 &&
        (c->s.method == SETTLE_METHOD_AUTO || c->s.method == SETTLE_METHOD_BLOCKS))
        return 1u << SETTLE_T_BLOCKS;
    return (1u << SETTLE_T_COUNT) - 1;
}

int settle_begin_capture(SettleContext *c, const char *name, int w, int h, int mobile)
{
    if (!c)
        return SETTLE_ERR_INVAL;
    if (c->state == SETTLE_STATE_RUNNING)
        return SETTLE_ERR_STATE;
    reset(c);
    c->mobile = mobile;
    memset(&c->res, 0, sizeof(c->res));
    c->marks = NULL;
    c->res.start_frame = c->res.stable_frame = -1;
    /* c->interrupted is left alone: an interrupt that came before the first
     * frame still stops this analysis (settle_finish clears it) */
    c->in_known = 0;
    c->error = 0;
    c->n = 0;
    settle_decide_begin(&c->decide, &c->s);
    /* the entropy method reads every frame's; the pictures kept are judged
     * by every method's (settle_keep_pictures) */
    c->entropy_every = c->entropy_all || c->s.method == SETTLE_METHOD_ENTROPY || c->keep_on;
    c->key_ahead = 1;
    if (!c->entropy_every) {
        c->decide.entropy_of = entropy_of;
        c->decide.entropy_opaque = c;
    }

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
    /* a reduced picture is not what the pictures show: they are kept from
     * the full-size picture when the decoder gives it, else they read the
     * capture again at full size */
    if (c->scale > 1)
        settle_keep_begin(&c->keep, c->keep_on && c->full_rgb ? kept_methods(c) : 0, c->full_w,
                          c->full_h);
    else
        settle_keep_begin(&c->keep, c->keep_on ? kept_methods(c) : 0, w, h);
    c->keep.png = (c->keep_on & SETTLE_KEEP_PNG) != 0;
    c->keep.box_means = c->dsp.box_means;
    int ret = settle_measure_begin(&c->measure, &c->s, &c->dsp, w, h);
    if (ret < 0)
        return ret;
    if ((ret = begin_region(c, w, h)) < 0)
        return ret;
    if (settle_records_open(&c->records) < 0)
        settle_log(c, SETTLE_LOG_WARNING, "%s: no temporary file for per-frame data; "
                   "per-frame output is unavailable", c->name);
    c->state = SETTLE_STATE_RUNNING;
    return 0;
}

/* --crop viewport and auto: the rectangle found in the picture. Returns 1
 * when it is set, 0 when this picture is not measured (the viewport is looked
 * for again in the next), or an error. */
static int find_region(SettleContext *c, const SettlePicture *p)
{
    int v[4];
    if (c->s.crop == SETTLE_CROP_AUTO) {
        /* decided on the first frame, so that every frame is measured alike */
        if (settle_find_screen(p->rgb, p->stride, c->fw, c->fh, v))
            settle_log(c, SETTLE_LOG_INFO, "%s: screen found at %d,%d,%d,%d", c->name, v[0], v[1],
                       v[2], v[3]);
        else
            settle_log(c, SETTLE_LOG_INFO, "%s: no screen against a darker surround in the "
                       "first frame; measuring the whole picture", c->name);
    } else {
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
    }
    c->crop_pending = 0;
    int ret = set_region(c, v[0], v[1], v[2], v[3]);
    return ret < 0 ? ret : 1;
}

/* The record's index, time and keyframe flag: times from the first
 * picture, held when they go back. */
static void stamp(SettleContext *c, const SettlePicture *p, SettleRecord *r)
{
    memset(r, 0, sizeof(*r));
    r->index = c->n;
    if (c->n == 0)
        c->t0 = p->time;
    r->time = p->time - c->t0;
    if (c->n > 0 && r->time < c->last_time) {
        /* Timestamps that go back would break every duration; hold the clock. */
        settle_log(c, SETTLE_LOG_WARNING, "%s: frame %lld: timestamp goes back %.3f s; "
                   "using the previous one", c->name, (long long)c->n, c->last_time - r->time);
        r->time = c->last_time;
    }
    r->keyframe = p->keyframe != 0;
}

/* The marks of the blocks of a frame the block test saw content in, for
 * --ignore animated when it decides. 0 or -1. */
static int spool_blocks(SettleContext *c, int64_t index, int recoded)
{
    const SettleBlocks *b = settle_measure_blocks(&c->measure);
    if (!b)
        return 0;
    if (!c->bmark && !(c->bmark = malloc((size_t)b->nb)))
        return -1;
    settle_blocks_marks(b, c->bmark);
    return settle_animated_spool_blocks(&c->anim, settle_measure_cells(&c->measure), index,
                                        recoded, c->bmark, b->bw, b->bs, b->nb);
}

/* The animated areas' share of a decided frame, then the measures that
 * count from the start (the --region areas, the visual metrics). */
static int after_decide(SettleContext *c, const SettlePicture *p, SettleRecord *r)
{
    const SettleDecide *d = &c->decide;
    SettleCells *cells = settle_measure_cells(&c->measure);
    int started = d->tr[SETTLE_T_DIFF].start_frame >= 0;
    if (!c->anim.cell) /* no area is looked for (areas_wanted) */
        return settle_measure_decided(&c->measure, p->rgb, p->stride, c->n == 0, d->common_start,
                                      d->common_start_time, started, r);
    /* an encoder re-coding the page (a golden frame, a refresh: faint, all
     * over, no 4x4 square's mean moved by SETTLE_CELL_MOVED, no content for
     * the block test) moves no area; a spinner under the strong level that
     * x264's B-frames re-code the page around moves its squares' means */
    int recode = d->blocks_on && !r->block_change && !r->block_bar &&
                 r->strong <= d->refresh_limit && r->moved <= d->refresh_limit &&
                 (int64_t)r->box[2] * r->box[3] * 16 >= d->npix;
    /* ... nor the faint cells an encoder re-coded around a strong change,
     * nor its faint spots */
    int blank = d->blocks_on && !r->block_change && !r->block_fade && !r->block_bar;
    int recoded = !r->quiet[SETTLE_T_DIFF] && !recode
                      ? settle_animated_recoded(&c->anim, cells, r->index, blank)
                      : 0;
    if (cells && c->anim.seen && c->n)
        settle_animated_runs(&c->anim, cells, r->time, r->index);
    /* ... nor content under the threshold that diff counted over it only
     * with the encoder's faint re-coding around it (a caret's blink) */
    if (!r->quiet[SETTLE_T_DIFF] && started && !recode && !settle_decide_under_limit(d, r))
        settle_animated_frame(&c->anim, cells, r->time, r->index, recoded);
    if (!r->quiet[SETTLE_T_DIFF] && c->anim.spool &&
        settle_animated_spool(&c->anim, cells, r->index, recode ? SETTLE_ANIM_REFRESH : recoded) < 0) {
        settle_log(c, SETTLE_LOG_WARNING, "%s: cannot write to a temporary file; nothing is "
                   "left out of diff's count", c->name);
        fclose(c->anim.spool);
        c->anim.spool = NULL;
    }
    /* the block test's content, with the cells whose change counted (a
     * frame diff took for no change is judged as one) */
    if (c->anim.bspool && cells && (r->block_change || r->block_bar || r->block_fade) &&
        spool_blocks(c, r->index,
                     recode                     ? SETTLE_ANIM_REFRESH
                     : !r->quiet[SETTLE_T_DIFF]
                         ? recoded
                         : settle_animated_recoded(&c->anim, cells, r->index, blank)) < 0) {
        settle_log(c, SETTLE_LOG_WARNING, "%s: cannot write to a temporary file; --ignore "
                   "animated leaves nothing out of the block test", c->name);
        fclose(c->anim.bspool);
        c->anim.bspool = NULL;
    }
    if (cells && c->anim.seen)
        settle_animated_seen(&c->anim, cells, r->index,
                             r->quiet[SETTLE_T_DIFF] ? SETTLE_ANIM_QUIET
                             : recode               ? SETTLE_ANIM_REFRESH
                                                    : recoded);
    return settle_measure_decided(&c->measure, p->rgb, p->stride, c->n == 0, d->common_start,
                                  d->common_start_time, started, r);
}

/* What the pictures need of this frame (settle_keep_pictures): the roles
 * that move to it and the methods for which it is a filmstrip frame. */
static int keep_frame(SettleContext *c, const SettlePicture *p, const SettleRecord *r,
                      SettleFillRows fill, void *fill_opaque)
{
    SettleKeepFrame f = { .index = r->index, .time = r->time, .hold = c->hold,
                          .hold_opaque = c->hold_opaque };
    for (int i = 0; i < SETTLE_KEEP_ROLES; i++)
        f.role[i] = -2;
    for (int t = 0; t < SETTLE_T_COUNT; t++) {
        const SettleTracker *tr = &c->decide.tr[t];
        if (tr->start_frame < 0 || !(c->keep.methods & (1u << t)))
            continue;
        if (tr->start_frame == r->index)
            f.role[SETTLE_KEEP_START + t] = r->index;
        else if (!r->quiet[t]) {
            if (tr->first_change == r->index)
                f.role[SETTLE_KEEP_FIRST + t] = r->index;
            f.role[SETTLE_KEEP_LAST + t] = r->index;
            f.role[SETTLE_KEEP_SETTLED + t] = tr->settled;
        }
        f.distinct[t] = tr->start_frame == r->index || (!r->quiet[t] && !r->refresh);
    }
    const SettleVisual *v = settle_measure_visual(&c->measure);
    if (v && v->first_change == r->index)
        f.role[SETTLE_KEEP_VFIRST] = r->index;
    if (v && v->last_change == r->index)
        f.role[SETTLE_KEEP_VLAST] = r->index;
    if (c->scale > 1)
        return settle_keep_frame(&c->keep, &f, c->full_rgb, c->full_stride, c->full_fill,
                                 c->full_opaque);
    return settle_keep_frame(&c->keep, &f, p->rgb, p->stride, fill, fill_opaque);
}

void settle_keep_end(SettleContext *c, const uint8_t *rgb, ptrdiff_t stride, SettleFillRows fill,
                     void *fill_opaque)
{
    if (c->scale > 1) { /* the full-size picture, not the measured one */
        rgb = c->full_rgb;
        stride = c->full_stride;
        fill = c->full_fill;
        fill_opaque = c->full_opaque;
    }
    if (c->keep.on && c->keep_fresh && c->n > 0 && rgb &&
        settle_keep_last(&c->keep, c->n - 1, c->last_time, rgb, stride, fill, fill_opaque, c->hold,
                         c->hold_opaque) < 0)
        c->keep.failed = 1; /* the pictures read the capture again */
}

int settle_frame_entropy(SettleContext *c, int every)
{
    if (!c)
        return SETTLE_ERR_INVAL;
    if (c->state == SETTLE_STATE_RUNNING)
        return SETTLE_ERR_STATE;
    c->entropy_all = every != 0;
    return 0;
}

int settle_keep_pictures(SettleContext *c, int on)
{
    if (!c)
        return SETTLE_ERR_INVAL;
    if (c->state == SETTLE_STATE_RUNNING)
        return SETTLE_ERR_STATE;
    if (on & ~(1 | SETTLE_KEEP_PNG))
        return SETTLE_ERR_INVAL;
    c->keep_on = on ? 1 | (on & SETTLE_KEEP_PNG) : 0;
    return 0;
}

int settle_send_picture(SettleContext *c, const SettlePicture *p)
{
    return settle_send_picture_bands(c, p, NULL, 0, NULL, NULL);
}

/* A reduced picture's measures in full-size pixels: each of its pixels
 * stands for scale x scale of the capture's. */
static void scale_record(SettleRecord *r, int scale)
{
    const int64_t f2 = (int64_t)scale * scale;
    r->diff *= f2;
    r->strong *= f2;
    r->bar_diff *= f2;
    r->moved *= f2;
    for (int i = 0; i < 4; i++)
        r->box[i] *= scale;
}

int settle_send_picture_bands(SettleContext *c, const SettlePicture *p, const uint8_t *changed,
                              int band_h, SettleFillRows fill, void *fill_opaque)
{
    if (!c || !p || !p->rgb)
        return SETTLE_ERR_INVAL;
    if (c->state != SETTLE_STATE_RUNNING)
        return SETTLE_ERR_STATE;
    if (c->interrupted)
        return SETTLE_ERR_INTERRUPTED;
    c->keep_fresh = 0;
    /* every picture, kept or not, skipped by the crop's search or not (a
     * reduced picture's bands are not the kept full-size picture's rows:
     * every row counts as changed) */
    settle_keep_changed(&c->keep, c->scale > 1 ? NULL : changed, band_h);
    if (p->width != c->fw || p->height != c->fh || !isfinite(p->time) ||
        (p->stride < (ptrdiff_t)c->fw * 3 && p->stride > -(ptrdiff_t)c->fw * 3))
        return SETTLE_ERR_INVAL;
    int ret;
    /* the whole picture is read (crop, a second reading, the first frame) */
    if (fill && (c->crop_pending || c->grab || c->n == 0) && (ret = fill(fill_opaque, 0, c->fh - 1)) < 0)
        return ret;
    if (c->crop_pending && (ret = find_region(c, p)) <= 0)
        return ret;
    if (c->grab) /* settle_grab_pictures: a second reading, that only looks */
        return c->grab(c->grab_opaque, p, c->n++);

    SettleRecord r;
    stamp(c, p, &r);
    const int entropy = c->entropy_every ? 1
                        : settle_decide_reads_entropy(&c->decide, c->n, p->keyframe, c->key_ahead)
                            ? SETTLE_ENTROPY_LATER
                            : 0;
    ret = settle_measure_picture(&c->measure, p->rgb, p->stride, c->n == 0, changed, band_h, fill,
                                 fill_opaque, entropy, &r);
    if (ret < 0)
        return ret;
    if (c->scale > 1)
        scale_record(&r, c->scale);
    /* the rest of the picture, for what reads it whole (the visual metrics) */
    if (fill && c->n > 0 && (ret = fill(fill_opaque, 0, c->fh - 1)) < 0)
        return ret;
    settle_decide_frame(&c->decide, &r, c->n == 0);
    if ((ret = after_decide(c, p, &r)) < 0)
        return ret;
    if (c->keep.on && (ret = keep_frame(c, p, &r, fill, fill_opaque)) < 0)
        return ret;
    if (settle_records_append(&c->records, &r) < 0)
        settle_log(c, SETTLE_LOG_WARNING, "%s: cannot write per-frame data to a temporary file",
                   c->name);

    c->last = r;
    c->prev_time = c->last_time;
    c->last_time = r.time;
    c->last_duration = p->duration > 0 && isfinite(p->duration) ? p->duration : 0;
    c->n++;
    c->keep_fresh = 1;
    return 0;
}

int settle_last_frame(SettleContext *c, SettleFrame *f)
{
    if (!c || !f)
        return SETTLE_ERR_INVAL;
    if (c->state != SETTLE_STATE_RUNNING || c->n == 0 || c->grab)
        return SETTLE_ERR_STATE;
    const SettleRecord *r = &c->last;
    int which = settle_decide_method(&c->decide, c->n);
    *f = (SettleFrame){
        .index = r->index, .time = r->time, .diff_pixels = r->diff, .entropy = r->entropy,
        .entropy_delta = r->delta, .marker = r->marker, .keyframe = r->keyframe,
        .codec_refresh = r->refresh, .quiet = r->quiet[which], .progress = NAN,
        .block_peak = r->block_peak, .blocks_changed = r->blocks_changed,
    };
    return 0;
}

int settle_set_start_time(SettleContext *c, double seconds)
{
    if (!c || !isfinite(seconds) || seconds < 0)
        return SETTLE_ERR_INVAL;
    if (c->state != SETTLE_STATE_RUNNING || c->s.start != SETTLE_START_TIME ||
        c->decide.common_start >= 0 || (c->n > 0 && seconds <= c->last_time))
        return SETTLE_ERR_STATE;
    c->s.start_time = seconds; /* the decide stage reads the settings by pointer */
    return 0;
}

static void set_message(SettleContext *c, int err, const char *msg)
{
    if (c->error)
        return; /* the first error (a damaged stream) says more */
    settle_set_error(c, err, msg);
}

/* The decide stage's share of what the block test says (the measure's own
 * share is the module's flush). */
static void block_result(SettleContext *c, SettleResult *r)
{
    const SettleBlocks *b = settle_measure_blocks(&c->measure);
    const SettleDecide *d = &c->decide;
    if (!settle_measure_state(&c->measure, &settle_module_blocks)) {
        /* nothing was measured: no rectangle, no module */
        r->block_test = 0;
        for (int l = 0; l < 8; l++)
            r->block_noise[l] = r->block_threshold[l] = NAN;
        r->gain_min = r->gain_max = r->row_offset_max = NAN;
    }
    r->status_bar = d->which == SETTLE_T_BLOCKS_NOBAR || d->bar_out;
    r->status_bar_y = 0;
    r->status_bar_h = b && b->bar_rows > 0 && (r->status_bar || !settle_decide_camera(d, r->noise_floor))
                          ? b->bar_rows * b->bs * c->scale : 0;
    r->status_bar_frames = d->bar_frames;
    r->scroll_bar = b && b->edge_from < b->bw;
    r->scroll_bar_x = r->scroll_bar ? b->edge_from * b->bs * c->scale : 0;
    r->scroll_bar_w = r->scroll_bar ? (b->w - b->edge_from * b->bs) * c->scale : 0;
    r->scroll_bar_frames = b ? d->edge_frames : 0;
    r->home_indicator = b && b->foot_from < b->bh;
    r->home_indicator_y = r->home_indicator ? b->foot_from * b->bs * c->scale : 0;
    r->home_indicator_h = r->home_indicator ? (b->h - b->foot_from * b->bs) * c->scale : 0;
    r->home_indicator_frames = b ? d->foot_frames : 0;
    r->faint_frames = b ? d->faint_frames : -1;
}

/* A record as diff counts it with a phone's status bar left out (bar_out):
 * a frame in which the block test saw change in the top band alone (a
 * clock's tick, the recording pill) and that changed over the threshold
 * only with the band's pixels is quiet. */
static void bar_quiet(SettleRecord *r)
{
    if (!r->quiet[SETTLE_T_DIFF] && r->block_bar && !r->block_change && !r->block_fade &&
        r->diff - r->bar_diff <= r->limit)
        r->quiet[SETTLE_T_DIFF] = r->quiet[SETTLE_T_DIFF_SOLID] = 1;
}

/* Whether the diff method leaves the status bar out: a portrait screen
 * recording whose top band changed on its own (as the block test leaves it
 * out: settle_decide_bar_left_out), the band's pixels counted, decided by
 * diff as measured (SETTLE_T_DIFF: the method choice put no tracker of its
 * own in its place, as it does for diff without the encoder's re-codes at a
 * fade's end, which deciding again would undo: seed 277's case062). */
static int bar_out_wanted(SettleContext *c, int which)
{
    const SettleDecide *d = &c->decide;
    const SettleCells *cells = settle_measure_cells(&c->measure);
    return which == SETTLE_T_DIFF && cells && cells->bar_h > 0 &&
           settle_decide_bar_left_out(d, settle_decide_noise_floor(d));
}

/* The diff decision again from the records with the status bar left out.
 * 0, or SETTLE_ERR_IO (the decision stays as it was). */
static int replay_without_bar(SettleContext *c)
{
    SettleTracker keep = c->decide.tr[SETTLE_T_DIFF];
    SettleTracker keep_solid = c->decide.tr[SETTLE_T_DIFF_SOLID];
    SettleRecord r;
    if (settle_records_rewind(&c->records) < 0)
        return SETTLE_ERR_IO;
    settle_decide_redo_begin(&c->decide);
    for (int64_t i = 0; i < c->n; i++) {
        if (settle_records_next(&c->records, &r) < 0) {
            c->decide.tr[SETTLE_T_DIFF] = keep;
            c->decide.tr[SETTLE_T_DIFF_SOLID] = keep_solid;
            return SETTLE_ERR_IO;
        }
        bar_quiet(&r);
        settle_decide_redo_frame(&c->decide, &r);
    }
    return 0;
}

/* A phone filmed in a room (phone_in_room) decided by diff: the decision
 * again from the records, each change the block test saw no content in
 * counted on the phone's rectangle alone (the box of every strong change,
 * with ROOM_CELLS cells around it), from its changed cells. An encoder that
 * smoothed a camera's noise away (x264 at q33) leaves the film clean, so
 * diff decides it, and it re-codes the room's wall long after the phone's
 * screen settled (held-out seed 477's case078, doc/accuracy.md: 5,017
 * pixels over the whole width at 2.6 s, under the threshold on the phone's
 * rectangle). Not with --ignore animated, whose own replay decides diff
 * again. 0, or SETTLE_ERR_IO (the decision stays as it was). */
#define ROOM_CELLS 2
static int replay_in_room(SettleContext *c, const int strong_box[4])
{
    SettleTracker keep = c->decide.tr[SETTLE_T_DIFF];
    SettleTracker keep_solid = c->decide.tr[SETTLE_T_DIFF_SOLID];
    const int m = ROOM_CELLS * SETTLE_CELL;
    const int rect[4] = { strong_box[0] - m, strong_box[1] - m, strong_box[2] + m,
                          strong_box[3] + m };
    SettleRecord r;
    if (settle_records_rewind(&c->records) < 0 || settle_animated_rewind(&c->anim) < 0)
        return SETTLE_ERR_IO;
    settle_decide_redo_begin(&c->decide);
    for (int64_t i = 0; i < c->n; i++) {
        if (settle_records_next(&c->records, &r) < 0)
            goto fail;
        if (c->decide.bar_out)
            bar_quiet(&r);
        if (!r.quiet[SETTLE_T_DIFF]) {
            int64_t in;
            int box[4];
            if (settle_animated_read_in(&c->anim, r.index, rect, &in, box) < 0)
                goto fail;
            /* only in frames in which the block test saw no content: a
             * phone's late row under diff's threshold on its rectangle,
             * over it with the encoder re-coding the room in the same frame
             * (seed 19's case018 at 1.467 s), stays counted as measured */
            if (!r.block_change && !r.block_fade && !r.block_bar) {
                r.diff = in;
                memcpy(r.box, box, sizeof(box));
                r.quiet[SETTLE_T_DIFF] = r.diff <= r.limit;
                r.quiet[SETTLE_T_DIFF_SOLID] |= r.quiet[SETTLE_T_DIFF];
            }
        }
        settle_decide_redo_frame(&c->decide, &r);
    }
    return 0;
fail:
    c->decide.tr[SETTLE_T_DIFF] = keep;
    c->decide.tr[SETTLE_T_DIFF_SOLID] = keep_solid;
    return SETTLE_ERR_IO;
}

/* --ignore animated: the diff decision again from the records, each change
 * without the animated cells' pixels. 0, 1 when with no area it is not
 * made (the decision stays as it was), or SETTLE_ERR_IO. */
static int replay_without_animated(SettleContext *c)
{
    SettleTracker keep = c->decide.tr[SETTLE_T_DIFF];
    SettleTracker keep_solid = c->decide.tr[SETTLE_T_DIFF_SOLID];
    SettleRecord r;
    int64_t last_change = -1, last_still = -1;
    if (settle_records_rewind(&c->records) < 0 || settle_animated_rewind(&c->anim) < 0)
        return SETTLE_ERR_IO;
    settle_decide_redo_begin(&c->decide);
    for (int64_t i = 0; i < c->n; i++) {
        if (settle_records_next(&c->records, &r) < 0)
            goto fail;
        if (c->decide.bar_out)
            bar_quiet(&r);
        if (r.quiet[SETTLE_T_DIFF])
            last_still = r.index;
        if (!r.quiet[SETTLE_T_DIFF]) {
            int64_t diff = r.diff;
            int box[4] = { r.box[0], r.box[1], r.box[2], r.box[3] };
            int64_t kept;
            if (settle_animated_read(&c->anim, r.index, r.time, &r.diff, r.box, &kept) < 0)
                goto fail;
            /* with no area, only what the encoder re-coded is left out, and
             * only in frames in which the block test saw no content: in the
             * others (a page scrolling, tiles painted faintly) the cells'
             * rules are not sure enough to move the answer: such a frame
             * is quiet only when what changed but the encoder's late
             * re-coding of cells that had stopped moving (VP8 long after
             * the load) is under the threshold, and a change is reported
             * as measured */
            int late = 0;
            if (!c->anim.count && (!c->decide.blocks_on || r.block_change || r.block_fade ||
                                   r.block_bar)) {
                /* ... or what the block test saw is content under the
                 * threshold that diff counted only with the encoder's
                 * re-coding of the page around it (a caret's blink in a
                 * frame VP8 re-codes), which the default decision leaves
                 * out too (SETTLE_T_DIFF_SOLID) */
                late = (kept <= r.limit && diff > r.limit) ||
                       (r.quiet[SETTLE_T_DIFF_SOLID] && settle_decide_under_limit(&c->decide, &r));
                r.diff = diff;
                memcpy(r.box, box, sizeof(box));
            }
            r.quiet[SETTLE_T_DIFF] = r.diff <= r.limit || late;
            /* quiet without the encoder's faint re-codes: as before, or now
             * quiet by diff */
            r.quiet[SETTLE_T_DIFF_SOLID] |= r.quiet[SETTLE_T_DIFF];
            last_change = r.quiet[SETTLE_T_DIFF] ? last_change : r.index;
        }
        settle_decide_redo_frame(&c->decide, &r);
    }
    /* with no area, leaving the encoder out may settle a recording only
     * where the picture was seen still (a frame quiet as measured) after
     * what now changed last: a recording cut short right after a change,
     * whose last frames the encoder refines, stays unsettled */
    if (!c->anim.count && last_change >= 0 && last_still < last_change) {
        c->decide.tr[SETTLE_T_DIFF] = keep;
        c->decide.tr[SETTLE_T_DIFF_SOLID] = keep_solid;
        return 1;
    }
    return 0;
fail:
    c->decide.tr[SETTLE_T_DIFF] = keep;
    c->decide.tr[SETTLE_T_DIFF_SOLID] = keep_solid;
    return SETTLE_ERR_IO;
}

/* A landscape picture whose every strong change (content's edges, beyond the
 * strong tolerance) lies in an upright rectangle, with no flat border
 * around it (SETTLE_ROOM_FLAT of the blocks outside it or more near their median:
 * a phone's picture letterboxed on an HDMI output, which is the phone's own
 * picture, as Eideticker's 1920x1080 captures), is a phone filmed in a room
 * (Eideticker's startup-test-elmo): the phone's rules choose its method. A
 * camera's noise tells such a film from a screen at once; an encoder that
 * smoothed the noise away leaves it clean, and a landscape clean capture
 * keeps diff's 4096 pixels, under which a phone's late row or icon, small
 * in the camera's picture, falls (perturb38's family 1, doc/accuracy.md). */

static void phone_in_room(SettleContext *c)
{
    SettleDecide *d = &c->decide;
    const SettleCells *cl = settle_measure_cells(&c->measure);
    const SettleBlocks *b = settle_measure_blocks(&c->measure);
    if (d->portrait || !d->blocks_on || !cl || !b)
        return;
    const int *s = cl->strong_box;
    if (s[2] <= s[0] || s[3] - s[1] <= s[2] - s[0])
        return;
    double flat = settle_blocks_flat_outside(b, s);
    if (flat < SETTLE_ROOM_FLAT)
        settle_decide_phone_in_room(d, s, flat);
}

/* --ignore animated when the block test decides: its decision again from
 * the records, each frame it saw content in judged again without the blocks
 * in animated cells, with diff's change box without the animated cells (the
 * deciding change). */
static int replay_blocks_without_animated(SettleContext *c, int which)
{
    const SettleBlocks *b = settle_measure_blocks(&c->measure);
    SettleTracker keep = c->decide.tr[which];
    SettleRecord r;
    if (!b || !c->anim.bspool || !c->bmark || settle_records_rewind(&c->records) < 0 ||
        settle_animated_rewind(&c->anim) < 0)
        return SETTLE_ERR_IO;
    settle_decide_redo_blocks_begin(&c->decide, which);
    for (int64_t i = 0; i < c->n; i++) {
        if (settle_records_next(&c->records, &r) < 0)
            goto fail;
        if (!r.quiet[SETTLE_T_DIFF]) {
            int64_t px;
            int box[4];
            if (settle_animated_read(&c->anim, r.index, r.time, &px, box, NULL) < 0)
                goto fail;
            if (px) {
                r.diff = px;
                memcpy(r.box, box, sizeof(box));
            }
        }
        if (r.block_change || r.block_bar || r.block_fade) {
            int found, change, bar, fade;
            if (settle_animated_read_blocks(&c->anim, r.index, r.time, b->bw, b->bs, b->nb,
                                            c->bmark, &found) < 0)
                goto fail;
            if (found) {
                settle_blocks_verdict(b, c->bmark, r.block_fade, &change, &bar, &fade);
                r.block_change = (uint8_t)change;
                r.block_bar = (uint8_t)bar;
                r.block_fade = (uint8_t)fade;
            }
        }
        settle_decide_redo_blocks_frame(&c->decide, which, &r);
    }
    return 0;
fail:
    c->decide.tr[which] = keep;
    return SETTLE_ERR_IO;
}

/* Whether find_animated looks for the animated areas with method `which`:
 * on a clean capture (not camera-like) with the diff method or the block
 * test, a start, two frames and the cells kept. */
static int animated_searched(SettleContext *c, int which)
{
    SettleDecide *d = &c->decide;
    int diff = which == SETTLE_T_DIFF || which == SETTLE_T_DIFF_SOLID;
    int clean_blocks = (which == SETTLE_T_BLOCKS || which == SETTLE_T_BLOCKS_NOBAR) &&
                       !settle_decide_camera(d, settle_decide_noise_floor(d));
    return (diff || clean_blocks) && d->tr[SETTLE_T_DIFF].start_frame >= 0 && c->n >= 2 &&
           c->anim.cell;
}

/* The animated areas, and --ignore animated; returns the method that
 * decides. On a clean capture (not camera-like) the areas are looked for on
 * diff's cells whatever method answers (a camera's noise changes every cell:
 * none are looked for there); when the block test answers, --ignore animated
 * judges its frames again without the blocks in animated cells. */
static int find_animated(SettleContext *c, int which, SettleResult *r)
{
    const SettleTracker *t = &c->decide.tr[SETTLE_T_DIFF];
    SettleDecide *d = &c->decide;
    r->animated_known = r->nanimated = r->animated_ignored = 0;
    r->animated = NULL;
    int diff = which == SETTLE_T_DIFF || which == SETTLE_T_DIFF_SOLID;
    if (!animated_searched(c, which)) {
        if (c->s.ignore_animated && diff && !c->anim.cell)
            settle_log(c, SETTLE_LOG_WARNING, "%s: --ignore animated: no area was looked for in "
                       "a reading reduced as a camera's that ended early; nothing is left out",
                       c->name);
        if (c->s.ignore_animated && !diff)
            settle_log(c, SETTLE_LOG_WARNING, "%s: --ignore animated applies to the diff method "
                       "and the block test on a clean capture; the %s method was used and "
                       "nothing is left out", c->name,
                       which == SETTLE_T_ENTROPY ? "entropy" : "block");
        return which;
    }
    if (settle_animated_find(&c->anim, t->start_frame_time, r->duration) < 0) {
        settle_log(c, SETTLE_LOG_WARNING, "%s: out of memory looking for animated areas", c->name);
        return which;
    }
    /* looked for: an empty list when none was found, the block test's too */
    r->animated_known = 1;
    for (int i = 0; c->scale > 1 && i < c->anim.nregions; i++) {
        SettleAnimatedRegion *g = &c->anim.regions[i];
        g->x *= c->scale;
        g->y *= c->scale;
        g->width *= c->scale;
        g->height *= c->scale;
    }
    r->nanimated = c->anim.nregions;
    r->animated = c->anim.regions;
    /* with the diff method the decision is made again even with no area:
     * the encoder's re-coding of the page long after the load (VP8's, in
     * frames with no content for the block test) does not decide; the
     * block test's is made again without the areas found */
    if (c->s.ignore_animated && (c->anim.count || diff) && c->anim.spool) {
        int ret = diff ? replay_without_animated(c) : replay_blocks_without_animated(c, which);
        if (ret < 0) {
            settle_log(c, SETTLE_LOG_WARNING, "%s: cannot read a temporary file back; "
                       "--ignore animated leaves nothing out", c->name);
        } else if (ret == 0) {
            r->animated_ignored = 1;
            if (!diff) {
                size_t len = strlen(d->reason);
                snprintf(d->reason + len, sizeof(d->reason) - len,
                         "; --ignore animated: the block test without the blocks of the "
                         "animated areas");
            }
        }
    } else if (c->s.ignore_animated && which != SETTLE_T_DIFF) {
        settle_log(c, SETTLE_LOG_WARNING, "%s: --ignore animated: no animated area found; the "
                   "block method was used", c->name);
    }
    return which;
}

int settle_finish(SettleContext *c, const SettleResult **out)
{
    if (!c)
        return SETTLE_ERR_INVAL;
    if (c->state != SETTLE_STATE_RUNNING) {
        /* settle_begin failed or was never called: report what is known */
        if (out)
            *out = &c->res;
        return c->error ? c->error : SETTLE_ERR_STATE;
    }
    c->state = SETTLE_STATE_FINISHED;
    SettleResult *r = &c->res;
    const SettleMeasure *m = &c->measure;
    r->input = c->name;
    r->frames = c->n;
    r->width = c->n ? c->full_w : 0;
    r->height = c->n ? c->full_h : 0;
    r->scale = c->scale;
    r->scale_width = c->n ? c->fw : 0;
    r->scale_height = c->n ? c->fh : 0;
    r->scale_reason = c->scale_reason;
    r->scale_reread = c->scale_reread;
    r->duration = c->last_time + (c->last_duration > 0 ? c->last_duration
                                  : c->n > 1 ? c->last_time - c->prev_time : 0);
    r->diff_threshold = c->decide.diff_limit;
    /* a reduced picture's noise floor: the full-size luma's, which decided */
    r->noise_floor = c->decide.camera_luma >= 0 ? c->decide.luma_floor
                                                : settle_decide_noise_floor(&c->decide);
    r->codec_refreshes = c->decide.refreshes;
    if (c->interrupted && !c->error)
        settle_set_error(c, SETTLE_ERR_INTERRUPTED, "interrupted");
    c->interrupted = 0; /* recorded in the result; the context can go on */
    /* measured some frames but not the whole capture */
    r->partial = c->error != 0 && c->n > 0;

    /* in the capture's pixels: a reduced picture's whole is the capture's */
    const int whole = m->cx == 0 && m->cy == 0 && m->w == c->fw && m->h == c->fh;
    r->crop_x = m->cx * c->scale;
    r->crop_y = m->cy * c->scale;
    r->crop_w = !c->n ? 0 : whole ? c->full_w : m->w * c->scale;
    r->crop_h = !c->n ? 0 : whole ? c->full_h : m->h * c->scale;
    r->speed_index = r->visually_complete_85 = r->visually_complete_95 =
        r->visually_complete_99 = NAN;

    phone_in_room(c);
    const SettleCells *cells = settle_measure_cells(&c->measure);
    c->decide.strong_top = cells && cells->bar_h > 0 && cells->strong_box[2] > cells->strong_box[0] &&
                           cells->strong_box[1] < cells->bar_h;
    int which = settle_decide_method(&c->decide, c->n);
    /* a phone's status bar is the system's whatever the method: diff's
     * decision again without it */
    c->decide.bar_out = 0;
    if (bar_out_wanted(c, which)) {
        if (replay_without_bar(c) < 0) {
            settle_log(c, SETTLE_LOG_WARNING, "%s: cannot read a temporary file back; "
                       "the status bar is kept", c->name);
        } else {
            SettleDecide *d = &c->decide;
            size_t len = strlen(d->reason);
            c->decide.bar_out = 1;
            snprintf(d->reason + len, sizeof(d->reason) - len,
                     "; the status bar (the top band, which changed on its own in %lld "
                     "frames) is left out of diff's count",
                     (long long)d->bar_frames);
        }
    }
    /* a phone filmed in a room: diff without the room */
    if (c->decide.phone_room && (which == SETTLE_T_DIFF || which == SETTLE_T_DIFF_SOLID) &&
        c->anim.spool && !c->s.ignore_animated) {
        if (replay_in_room(c, cells->strong_box) < 0) {
            settle_log(c, SETTLE_LOG_WARNING, "%s: cannot read a temporary file back; "
                       "the room around the phone is kept", c->name);
        } else {
            SettleDecide *d = &c->decide;
            size_t len = strlen(d->reason);
            snprintf(d->reason + len, sizeof(d->reason) - len,
                     "; diff counts only the phone's rectangle, not the room");
        }
    }
    /* the method's key frames made ready for the pictures (rendered, their
     * PNGs encoded) while the animated areas are looked for on one core:
     * only then is the other core idle */
    if (animated_searched(c, which))
        settle_keep_early(&c->keep, which);
    which = find_animated(c, which, r);
    const SettleTracker *t = &c->decide.tr[which];
    SettleMeasureEnd me = { .frames = c->n, .start_frame = c->n >= 2 ? t->start_frame : -1,
                            .start_frame_time = t->start_frame_time,
                            .start_time = t->start_time, .duration = r->duration };

    char msg[256];
    SettleCaptureEnd end = { .frames = c->n, .last_time = c->last_time, .duration = r->duration };
    int ret = settle_decide_finish(&c->decide, which, &end, r, msg, sizeof(msg));
    if (ret < 0)
        set_message(c, ret, msg);
    /* the measures' share: the --region areas, the block test, the visual metrics */
    const char *failed;
    if (settle_measure_flush(&c->measure, &me, r, &failed) < 0)
        settle_log(c, SETTLE_LOG_WARNING, "%s: cannot read the %s back from its temporary file",
                   c->name, !strcmp(failed, "visual") ? "visual progress" : failed);
    block_result(c, r);
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
