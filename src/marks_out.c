/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Marks beside a result: their frames and gaps from the finished analysis,
 * and the marks in the JSON result and as a CSV table.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "marks_internal.h"

/* Mark times within this of a frame's time are on that frame (rounding of
 * milliseconds against timestamps in a time base). */
#define SAME_TIME 1e-6

static int frame_cb(void *opaque, const SettleFrame *f)
{
    SettleMarks *m = opaque;
    for (int i = 0; i < m->n; i++) {
        SettleMark *k = &m->v[i];
        if (isfinite(k->time) && f->time <= k->time + SAME_TIME)
            k->frame = f->index;
    }
    return 0;
}

int settle_attach_marks(SettleContext *c, SettleMarks *m)
{
    if (!c)
        return SETTLE_ERR_INVAL;
    if (!m) {
        c->marks = NULL;
        return 0;
    }
    if (c->state != SETTLE_STATE_FINISHED)
        return SETTLE_ERR_STATE;
    const SettleResult *r = &c->res;
    for (int i = 0; i < m->n; i++)
        m->v[i].frame = -1;
    if (r->frames > 0) {
        SettleOutputs o;
        settle_outputs_of(c, &o);
        int ret = settle_frames_foreach(&o.frames, frame_cb, m);
        if (ret < 0)
            return ret;
    }
    for (int i = 0; i < m->n; i++) {
        SettleMark *k = &m->v[i];
        /* after the end of the last frame nothing of the capture is on screen */
        if (k->frame >= 0 && !(k->time < r->duration + SAME_TIME))
            k->frame = -1;
    }
    settle_marks_set_gaps(m, r->stable_frame >= 0 ? r->stable_time : NAN);
    c->marks = m;
    return 0;
}

static cJSON *time_item(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(round(v * 1e6) / 1e6) : cJSON_CreateNull();
}

static int add(cJSON *o, const char *key, cJSON *item)
{
    return item && cJSON_AddItemToObject(o, key, item) ? 0 : -1;
}

static cJSON *text_item(const char *s)
{
    return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

int settle_json_add_marks(const SettleMarks *m, cJSON *o)
{
    cJSON *arr = cJSON_AddArrayToObject(o, "marks");
    if (!arr)
        return -1;
    for (int i = 0; i < m->n; i++) {
        const SettleMark *k = &m->v[i];
        cJSON *x = cJSON_CreateObject();
        if (!x || !cJSON_AddItemToArray(arr, x)) {
            cJSON_Delete(x);
            return -1;
        }
        int bad = add(x, "name", text_item(k->name));
        bad |= add(x, "time", time_item(k->time));
        bad |= add(x, "gap", time_item(k->gap));
        bad |= add(x, "frame", k->frame >= 0 ? cJSON_CreateNumber((double)k->frame)
                                               : cJSON_CreateNull());
        bad |= add(x, "source", text_item(k->source));
        bad |= add(x, "clock", text_item(settle_mark_clock_name(k->clock)));
        bad |= add(x, "value", time_item(k->value));
        bad |= add(x, "placed_by", text_item(settle_mark_placement_name(k->placed_by)));
        bad |= add(x, "reason", text_item(k->reason));
        if (bad)
            return -1;
    }
    return 0;
}

/* A CSV text field, quoted when it holds a comma, a quote or a line break. */
static int put_text(FILE *f, const char *s)
{
    if (!s)
        return 0;
    if (!strpbrk(s, ",\"\r\n"))
        return fputs(s, f) < 0 ? -1 : 0;
    if (fputc('"', f) == EOF)
        return -1;
    for (; *s; s++)
        if ((*s == '"' && fputc('"', f) == EOF) || fputc(*s, f) == EOF)
            return -1;
    return fputc('"', f) == EOF ? -1 : 0;
}

int settle_marks_write_csv(const SettleMarks *m, FILE *f)
{
    if (!m || !f)
        return SETTLE_ERR_INVAL;
    if (fputs("name,time,frame,gap,clock,value,placed_by,source,reason\n", f) < 0)
        return SETTLE_ERR_IO;
    for (int i = 0; i < m->n; i++) {
        const SettleMark *k = &m->v[i];
        char t[40], g[40], v[40], fr[24] = "";
        settle_format_fixed(t, sizeof(t), k->time, 6);
        settle_format_fixed(g, sizeof(g), k->gap, 6);
        settle_format_fixed(v, sizeof(v), k->value, 6);
        if (k->frame >= 0)
            snprintf(fr, sizeof(fr), "%lld", (long long)k->frame);
        int bad = put_text(f, k->name);
        bad |= fprintf(f, ",%s,%s,%s,%s,%s,%s,", t, fr, g, settle_mark_clock_name(k->clock), v,
                       settle_mark_placement_name(k->placed_by)) < 0;
        bad |= put_text(f, k->source);
        bad |= fputc(',', f) == EOF;
        bad |= put_text(f, k->reason);
        bad |= fputc('\n', f) == EOF;
        if (bad)
            return SETTLE_ERR_IO;
    }
    return ferror(f) ? SETTLE_ERR_IO : 0;
}
