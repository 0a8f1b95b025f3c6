/* SPDX-License-Identifier: BSD-2-Clause */
/* The JSON summary of one analysis, one object on one line, through cJSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "outputs.h"

/* Times to the microsecond: enough for any frame rate, and short to read. */
static int add_time(cJSON *o, const char *k, double v)
{
    cJSON *item = isfinite(v) ? cJSON_CreateNumber(round(v * 1e6) / 1e6) : cJSON_CreateNull();
    return item && cJSON_AddItemToObject(o, k, item) ? 0 : -1;
}

static int add_number(cJSON *o, const char *k, double v)
{
    cJSON *item = isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
    return item && cJSON_AddItemToObject(o, k, item) ? 0 : -1;
}

static int add_frame(cJSON *o, const char *k, int64_t v)
{
    return add_number(o, k, v >= 0 ? (double)v : NAN);
}

/* A phone's indicator the block test leaves out, as an object `name`: where
 * (pos_key and size_key, numbers while left out), in how many frames only it
 * changed, and why: the reasons when left out, when kept by its option,
 * when kept for changing on its own in 30 frames (frames > 0), and when
 * there was nothing to leave out. */
typedef struct Indicator {
    const char *name, *pos_key, *size_key;
    int left_out, pos, size, keep;
    int64_t frames;
    const char *out, *kept, *own, *none;
} Indicator;

static int add_indicator(cJSON *o, const Indicator *in)
{
    cJSON *s = cJSON_AddObjectToObject(o, in->name);
    if (!s)
        return -1;
    int bad = !cJSON_AddBoolToObject(s, "left_out", in->left_out);
    bad |= add_number(s, in->pos_key, in->left_out ? in->pos : NAN);
    bad |= add_number(s, in->size_key, in->left_out ? in->size : NAN);
    bad |= add_number(s, "changed_frames", (double)in->frames);
    const char *why = in->left_out ? in->out : in->keep ? in->kept : in->frames > 0 ? in->own
                                                                                     : in->none;
    bad |= !cJSON_AddStringToObject(s, "reason", why);
    return bad ? -1 : 0;
}

/* The right edge (a phone's scroll indicator) and the bottom rows (its home
 * indicator) the block test left out. */
static int add_indicators(cJSON *o, const SettleResult *r, int scroll_keep, int foot_keep)
{
    const Indicator scroll = {
        "scroll_bar", "x", "width", r->scroll_bar, r->scroll_bar_x, r->scroll_bar_w,
        scroll_keep, r->scroll_bar_frames,
        "left out of the block test: a portrait picture's right edge, below the status bar, "
        "where phones draw a scroll indicator that fades out after a page grows or scrolls "
        "(changed_frames: the frames in which only it changed)",
        "kept: --scroll-bar keep",
        "kept: a portrait picture's right edge that changed in 30 frames, more than a scroll "
        "indicator shows after a page grows or scrolls: the capture's own edge",
        "not a portrait picture, or too narrow to hold a column of blocks in its right 3 %",
    };
    const Indicator home = {
        "home_indicator", "y", "height", r->home_indicator, r->home_indicator_y,
        r->home_indicator_h, foot_keep, r->home_indicator_frames,
        "left out of the block test: a portrait picture's bottom rows, where iOS draws its home "
        "indicator and Android its gesture handle, whose colour follows the screen after it "
        "changed (changed_frames: the frames in which only they changed)",
        "kept: --home-indicator keep",
        "kept: a portrait picture's bottom rows that changed on their own in 30 frames, more "
        "than a home indicator follows the screen: the capture's own content",
        "not a portrait picture, or too small to hold a row of blocks in its bottom 3 %",
    };
    return add_indicator(o, &scroll) || add_indicator(o, &home) ? -1 : 0;
}

/* What the block test measured, the status bar, the scroll indicator's
 * edge and the home indicator's rows it left out. */
static int add_blocks(cJSON *o, const SettleResult *r, int measured, int keep, int scroll_keep,
                      int foot_keep)
{
    if (!measured || !r->block_test)
        return !cJSON_AddNullToObject(o, "blocks") || !cJSON_AddNullToObject(o, "status_bar") ||
               !cJSON_AddNullToObject(o, "scroll_bar") ||
               !cJSON_AddNullToObject(o, "home_indicator");
    cJSON *b = cJSON_AddObjectToObject(o, "blocks");
    cJSON *noise = b ? cJSON_AddArrayToObject(b, "noise") : NULL;
    cJSON *thr = b ? cJSON_AddArrayToObject(b, "threshold") : NULL;
    if (!noise || !thr)
        return -1;
    for (int l = 0; l < 8; l++) {
        cJSON *n = isfinite(r->block_noise[l]) ? cJSON_CreateNumber(r->block_noise[l]) : cJSON_CreateNull();
        cJSON *t = isfinite(r->block_threshold[l]) ? cJSON_CreateNumber(r->block_threshold[l])
                                                   : cJSON_CreateNull();
        if (!cJSON_AddItemToArray(noise, n) || !cJSON_AddItemToArray(thr, t))
            return -1;
    }
    int bad = add_number(b, "gain_min", r->gain_min);
    bad |= add_number(b, "gain_max", r->gain_max);
    bad |= add_number(b, "row_offset_max", r->row_offset_max);
    bad |= add_number(b, "faint_frames", (double)r->faint_frames);
    cJSON *s = cJSON_AddObjectToObject(o, "status_bar");
    if (!s)
        return -1;
    bad |= !cJSON_AddBoolToObject(s, "left_out", r->status_bar);
    bad |= add_number(s, "y", r->status_bar_h > 0 ? r->status_bar_y : NAN);
    bad |= add_number(s, "height", r->status_bar_h > 0 ? r->status_bar_h : NAN);
    bad |= add_number(s, "changed_frames", (double)r->status_bar_frames);
    const char *why = "not a portrait screen recording";
    if (r->status_bar)
        why = "left out: a portrait screen recording whose top band (where phones draw the clock, "
              "battery and recording indicator) changed on its own";
    else if (r->status_bar_h > 0 && r->status_bar_frames == 0)
        why = "kept: the top band never changed on its own";
    else if (r->status_bar_h > 0)
        why = keep ? "kept: --status-bar keep" : "kept: the method in use measures the whole picture";
    bad |= !cJSON_AddStringToObject(s, "reason", why);
    return bad || add_indicators(o, r, scroll_keep, foot_keep) ? -1 : 0;
}

/* "measured_scale": the reduction the capture was measured at. */
static int add_scale(cJSON *o, const SettleResult *r)
{
    cJSON *m = cJSON_AddObjectToObject(o, "measured_scale");
    if (!m)
        return -1;
    int bad = add_number(m, "factor", r->scale);
    bad |= add_number(m, "width", r->scale_width);
    bad |= add_number(m, "height", r->scale_height);
    bad |= !cJSON_AddBoolToObject(m, "read_again", r->scale_reread);
    bad |= !cJSON_AddStringToObject(m, "why", r->scale_reason ? r->scale_reason : "");
    return bad ? -1 : 0;
}

/* "deciding_change": d's rectangle, pixels, time and frame, or null when not shown. */
static int add_change_area(cJSON *o, const SettleChangeArea *d, int shown)
{
    if (!shown)
        return cJSON_AddNullToObject(o, "deciding_change") ? 0 : -1;
    cJSON *dc = cJSON_AddObjectToObject(o, "deciding_change");
    if (!dc)
        return -1;
    int bad = add_number(dc, "x", d->x);
    bad |= add_number(dc, "y", d->y);
    bad |= add_number(dc, "width", d->width);
    bad |= add_number(dc, "height", d->height);
    bad |= add_number(dc, "pixels", (double)d->pixels);
    bad |= add_time(dc, "time", d->time);
    bad |= add_frame(dc, "frame", d->frame);
    return bad;
}

/* Why the answer is what it is: the deciding change, and under --settle
 * the longest quiet when there is no answer. */
static int add_explanation(cJSON *o, const SettleResult *r, int measured)
{
    const SettleChangeArea *d = &r->deciding_change;
    int bad = add_change_area(o, d, measured && d->frame >= 0);
    bad |= add_time(o, "longest_quiet", measured ? r->longest_quiet : NAN);
    bad |= add_time(o, "longest_quiet_time", measured ? r->longest_quiet_time : NAN);
    bad |= !cJSON_AddBoolToObject(o, "animated_ignored", measured && r->animated_ignored);
    if (!measured || !r->animated_known)
        return bad || !cJSON_AddNullToObject(o, "animated_regions") ? -1 : 0;
    cJSON *list = cJSON_AddArrayToObject(o, "animated_regions");
    if (!list)
        return -1;
    for (int i = 0; i < r->nanimated; i++) {
        const SettleAnimatedRegion *g = &r->animated[i];
        cJSON *a = cJSON_CreateObject();
        if (!a || !cJSON_AddItemToArray(list, a)) {
            cJSON_Delete(a);
            return -1;
        }
        bad |= add_number(a, "x", g->x);
        bad |= add_number(a, "y", g->y);
        bad |= add_number(a, "width", g->width);
        bad |= add_number(a, "height", g->height);
        bad |= add_number(a, "changes", (double)g->changes);
        bad |= add_time(a, "first_time", g->first_time);
    }
    return bad ? -1 : 0;
}

/* --region: "regions": [{"name", "x", "y", "width", "height", "stable_frame",
 * "stable_time", "load_time", "changes", "deciding_change"}] */
static int add_regions(cJSON *o, const SettleResult *r, int measured)
{
    cJSON *list = cJSON_AddArrayToObject(o, "regions");
    if (!list)
        return -1;
    int bad = 0;
    for (int i = 0; measured && i < r->nregions; i++) {
        const SettleRegionResult *g = &r->regions[i];
        cJSON *a = cJSON_CreateObject();
        if (!a || !cJSON_AddItemToArray(list, a)) {
            cJSON_Delete(a);
            return -1;
        }
        bad |= !cJSON_AddStringToObject(a, "name", g->name);
        bad |= add_number(a, "x", g->x);
        bad |= add_number(a, "y", g->y);
        bad |= add_number(a, "width", g->width);
        bad |= add_number(a, "height", g->height);
        bad |= add_frame(a, "stable_frame", g->stable_frame);
        bad |= add_time(a, "stable_time", g->stable_time);
        bad |= add_time(a, "load_time", g->load_time);
        bad |= add_number(a, "changes", g->measured ? (double)g->changes : NAN);
        bad |= add_change_area(a, &g->deciding_change, g->deciding_change.frame >= 0);
    }
    return bad ? -1 : 0;
}

int settle_json_write(const SettleOutputs *out_of, FILE *out)
{
    const SettleOutputs *c = out_of;
    const SettleResult *r = c->res;
    int ret = SETTLE_ERR_NOMEM;
    char *text = NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return SETTLE_ERR_NOMEM;
    int measured = c->finished && r->frames > 0;
    int bad = !cJSON_AddStringToObject(o, "input", r->input ? r->input : "");
    bad |= settle_json_add_input_id(&c->id, o, NULL);
    bad |= add_number(o, "frames", (double)r->frames);
    bad |= add_time(o, "duration", measured ? r->duration : NAN);
    bad |= add_number(o, "width", measured ? r->width : NAN);
    bad |= add_number(o, "height", measured ? r->height : NAN);
    bad |= add_number(o, "rotation", measured ? r->rotation : NAN);
    if (measured)
        bad |= !cJSON_AddStringToObject(o, "method", settle_method_name(r->method));
    else
        bad |= !cJSON_AddNullToObject(o, "method");
    if (measured && r->method_reason)
        bad |= !cJSON_AddStringToObject(o, "method_reason", r->method_reason);
    else
        bad |= !cJSON_AddNullToObject(o, "method_reason");

    bad |= add_number(o, "diff_threshold_pixels", measured ? r->diff_threshold : NAN);
    bad |= add_number(o, "noise_floor", measured ? r->noise_floor : NAN);
    bad |= add_frame(o, "start_frame", measured ? r->start_frame : -1);
    bad |= add_time(o, "start_time", measured && r->start_frame >= 0 ? r->start_time : NAN);
    bad |= add_frame(o, "stable_frame", measured ? r->stable_frame : -1);
    bad |= add_time(o, "stable_time", measured ? r->stable_time : NAN);
    bad |= add_time(o, "load_time", measured ? r->load_time : NAN);
    bad |= add_time(o, "first_visual_change", measured ? r->first_visual_change : NAN);
    bad |= add_time(o, "last_visual_change", measured ? r->last_visual_change : NAN);
    bad |= add_time(o, "speed_index", measured ? r->speed_index : NAN);
    bad |= add_time(o, "visually_complete_85", measured ? r->visually_complete_85 : NAN);
    bad |= add_time(o, "visually_complete_95", measured ? r->visually_complete_95 : NAN);
    bad |= add_time(o, "visually_complete_99", measured ? r->visually_complete_99 : NAN);
    if (measured) {
        cJSON *crop = cJSON_AddObjectToObject(o, "crop");
        bad |= !crop;
        if (crop) {
            bad |= add_number(crop, "x", r->crop_x);
            bad |= add_number(crop, "y", r->crop_y);
            bad |= add_number(crop, "width", r->crop_w);
            bad |= add_number(crop, "height", r->crop_h);
        }
    } else {
        bad |= !cJSON_AddNullToObject(o, "crop");
    }
    /* written when the picture was reduced, or not by --scale's choice, so
     * that the results of clean captures stay as they were */
    if (measured && (r->scale > 1 || r->scale_reread || c->s->scale))
        bad |= add_scale(o, r);
    bad |= add_time(o, "quiet_tail", measured ? r->quiet_tail : NAN);
    bad |= add_explanation(o, r, measured);
    if (c->s->nregions)
        bad |= add_regions(o, r, measured);
    bad |= add_number(o, "codec_refreshes", measured ? (double)r->codec_refreshes : 0);
    bad |= add_blocks(o, r, measured, !c->s->status_bar, c->s->scroll_bar_keep,
                      c->s->home_indicator_keep);
    bad |= !cJSON_AddStringToObject(o, "status", c->finished || r->error ? settle_status_name(r->error) : "failed");
    bad |= !cJSON_AddBoolToObject(o, "partial", r->partial);
    if (r->error_message)
        bad |= !cJSON_AddStringToObject(o, "error", r->error_message);
    else
        bad |= !cJSON_AddNullToObject(o, "error");
    SettleWarning w[SETTLE_MAX_WARNINGS];
    int nw = settle_warnings_of(c, w);
    cJSON *wl = cJSON_AddArrayToObject(o, "warnings");
    bad |= !wl;
    for (int i = 0; wl && i < nw; i++) {
        cJSON *it = cJSON_CreateObject();
        bad |= !it || !cJSON_AddItemToArray(wl, it);
        bad |= it && (!cJSON_AddStringToObject(it, "code", w[i].code) ||
                      !cJSON_AddStringToObject(it, "message", w[i].message));
    }
    if (c->marks)
        bad |= settle_json_add_marks(c->marks, o);
    bad |= settle_json_add_setup(c->s, &c->id, o);
    if (bad)
        goto fail;
    text = cJSON_PrintUnformatted(o);
    if (!text)
        goto fail;
    ret = fputs(text, out) < 0 || fputc('\n', out) == EOF || ferror(out) ? SETTLE_ERR_IO : 0;
fail:
    cJSON_free(text);
    cJSON_Delete(o);
    return ret;
}
