/* SPDX-License-Identifier: BSD-2-Clause */
/* Reading results back: is a stored result still current (--skip-existing),
 * and the metrics of a result for comparisons. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "settle/marks.h"

#include "internal.h"
#include "outputs.h"

/* The whole file as a NUL-terminated string, or NULL. Results are one line of
 * a few kilobytes; anything over 1 MiB is not one. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 1 >= cap) {
            char *grown = cap < (1 << 20) ? realloc(buf, cap * 2) : NULL;
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (!got) {
            if (ferror(f)) {
                free(buf);
                buf = NULL;
            }
            break;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = 0;
    return buf;
}

static int same_item(const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return 0;
    return cJSON_Compare(a, b, 1);
}

int settle_result_is_current(SettleContext *c, const char *input, const char *result_path)
{
    if (!c || !input || !result_path)
        return SETTLE_ERR_INVAL;
    int ret = 0;
    char *text = slurp(result_path);
    cJSON *stored = text ? cJSON_Parse(text) : NULL;
    cJSON *want = cJSON_CreateObject();
    if (!want) {
        ret = SETTLE_ERR_NOMEM;
        goto end;
    }
    if (!stored || !cJSON_IsObject(stored))
        goto end;
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(stored, "input");
    if (!cJSON_IsString(in) || strcmp(in->valuestring, input))
        goto end;
    SettleOutputs out;
    settle_outputs_of(c, &out);
    if (settle_json_add_input_id(&out.id, want, input) < 0 ||
        settle_json_add_setup(out.s, &out.id, want) < 0) {
        ret = SETTLE_ERR_NOMEM;
        goto end;
    }
    if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(want, "input_size")))
        goto end; /* the input is gone or unreadable: analyse it to say so */
    const char *keys[] = { "input_size", "input_mtime", "settings", "labels", "settle_version" };
    ret = 1;
    for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
        if (!same_item(cJSON_GetObjectItemCaseSensitive(stored, keys[i]),
                       cJSON_GetObjectItemCaseSensitive(want, keys[i])))
            ret = 0;
    /* an interrupted analysis is never final */
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(stored, "status");
    if (cJSON_IsString(st) && !strcmp(st->valuestring, "interrupted"))
        ret = 0;
end:
    cJSON_Delete(want);
    cJSON_Delete(stored);
    free(text);
    return ret;
}

void settle_result_info_free(SettleResultInfo *info)
{
    if (!info)
        return;
    free(info->input);
    free(info->status);
    free(info->error);
    free(info->settings);
    free(info->labels);
    for (int i = 0; i < info->nmarks; i++)
        free(info->mark_name[i]);
    free(info->mark_name);
    free(info->mark_gap);
    for (int i = 0; i < info->nregions; i++)
        free(info->region_name[i]);
    free(info->region_name);
    free(info->region_load);
    memset(info, 0, sizeof(*info));
}

static void info_init(SettleResultInfo *info)
{
    memset(info, 0, sizeof(*info));
    for (int i = 0; i < SETTLE_NB_SLOTS; i++)
        info->value[i] = NAN;
}

/* Room for n marks. 0 or -1. */
static int marks_alloc(SettleResultInfo *info, int n)
{
    info->mark_name = calloc((size_t)n + 1, sizeof(*info->mark_name));
    info->mark_gap = calloc((size_t)n + 1, sizeof(*info->mark_gap));
    return info->mark_name && info->mark_gap ? 0 : -1;
}

static int add_mark(SettleResultInfo *info, const char *name, double gap)
{
    if (!(info->mark_name[info->nmarks] = strdup(name)))
        return -1;
    info->mark_gap[info->nmarks++] = isfinite(gap) ? gap : NAN;
    return 0;
}

static int parse_marks(SettleResultInfo *info, const cJSON *marks)
{
    if (!cJSON_IsArray(marks))
        return 0;
    if (marks_alloc(info, cJSON_GetArraySize(marks)) < 0)
        return -1;
    const cJSON *k;
    cJSON_ArrayForEach(k, marks)
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(k, "name");
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(k, "gap");
        if (cJSON_IsString(n) && add_mark(info, n->valuestring, cJSON_IsNumber(g) ? g->valuedouble : NAN) < 0)
            return -1;
    }
    return 0;
}

/* "regions": each area's name and load time. 0 or -1 (out of memory). */
static int parse_regions(SettleResultInfo *info, const cJSON *regions)
{
    if (!cJSON_IsArray(regions))
        return 0;
    int n = cJSON_GetArraySize(regions);
    info->region_name = calloc((size_t)n + 1, sizeof(*info->region_name));
    info->region_load = calloc((size_t)n + 1, sizeof(*info->region_load));
    if (!info->region_name || !info->region_load)
        return -1;
    const cJSON *k;
    cJSON_ArrayForEach(k, regions)
    {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(k, "name");
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(k, "load_time");
        if (!cJSON_IsString(nm))
            continue;
        if (!(info->region_name[info->nregions] = strdup(nm->valuestring)))
            return -1;
        info->region_load[info->nregions++] =
            cJSON_IsNumber(t) && isfinite(t->valuedouble) ? t->valuedouble : NAN;
    }
    return 0;
}

int settle_result_info_parse(const char *json, size_t len, SettleResultInfo *info)
{
    if (!json || !info)
        return SETTLE_ERR_INVAL;
    info_init(info);
    cJSON *o = cJSON_ParseWithLength(json, len);
    int ret = SETTLE_ERR_FORMAT;
    if (!o || !cJSON_IsObject(o))
        goto end;
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "input");
    if (!cJSON_IsString(in))
        goto end;
    ret = SETTLE_ERR_NOMEM;
    info->input = strdup(in->valuestring);
    if (!info->input)
        goto end;
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(o, "error");
    if (cJSON_IsString(err) && !(info->error = strdup(err->valuestring)))
        goto end;
    info->partial = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "partial"));
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(o, "settings");
    info->settings = set ? cJSON_PrintUnformatted(set) : strdup("");
    if (!info->settings)
        goto end;
    const cJSON *lab = cJSON_GetObjectItemCaseSensitive(o, "labels");
    info->labels = cJSON_IsObject(lab) ? cJSON_PrintUnformatted(lab) : strdup("");
    if (!info->labels)
        goto end;
    for (int i = 0; i < SETTLE_NB_METRICS; i++) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, settle_metric_name(i));
        /* the stable-frame metrics are there whenever the field is; the visual
         * metrics only when they were computed (null without --visual-metrics) */
        info->present[i] = i < 3 ? m != NULL : cJSON_IsNumber(m);
        if (cJSON_IsNumber(m) && isfinite(m->valuedouble))
            info->value[i] = m->valuedouble;
    }
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "status");
    const char *status = cJSON_IsString(st) ? st->valuestring
                         : info->partial                ? "partial"
                         : isfinite(info->value[0])     ? "stable"
                         : info->error                  ? "failed"
                                                        : "not_stable";
    if (!(info->status = strdup(status)))
        goto end;
    if (parse_marks(info, cJSON_GetObjectItemCaseSensitive(o, "marks")) < 0 ||
        parse_regions(info, cJSON_GetObjectItemCaseSensitive(o, "regions")) < 0)
        goto end;
    ret = 0;
end:
    cJSON_Delete(o);
    return ret;
}

int settle_result_info_get(SettleContext *c, SettleResultInfo *info)
{
    if (!c || !info)
        return SETTLE_ERR_INVAL;
    info_init(info);
    const SettleResult *r = &c->res;
    if (c->state != SETTLE_STATE_FINISHED && !r->error)
        return SETTLE_ERR_STATE;
    int measured = c->state == SETTLE_STATE_FINISHED && r->frames > 0;
    info->input = strdup(r->input ? r->input : "");
    info->status = strdup(settle_status_name(r->error));
    if (r->error_message)
        info->error = strdup(r->error_message);
    if (!info->input || !info->status || (r->error_message && !info->error)) {
        settle_result_info_free(info);
        return SETTLE_ERR_NOMEM;
    }
    info->partial = r->partial;
    SettleOutputs out;
    settle_outputs_of(c, &out);
    cJSON *o = cJSON_CreateObject();
    if (!o || settle_json_add_setup(out.s, &out.id, o) < 0 ||
        !(info->settings = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(o, "settings"))) ||
        !(info->labels = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(o, "labels")))) {
        cJSON_Delete(o);
        settle_result_info_free(info);
        return SETTLE_ERR_NOMEM;
    }
    cJSON_Delete(o);
    const double v[4] = { r->load_time, r->first_visual_change, r->last_visual_change,
                          r->speed_index };
    for (int i = 0; i < 4; i++) {
        info->present[i] = i < 3 || (measured && isfinite(v[i]));
        /* as the JSON has them: to the microsecond */
        info->value[i] = measured && isfinite(v[i]) ? round(v[i] * 1e6) / 1e6 : NAN;
    }
    if (c->marks) {
        int n = settle_marks_count(c->marks);
        int bad = marks_alloc(info, n) < 0;
        for (int i = 0; i < n && !bad; i++) {
            const SettleMark *k = settle_marks_get(c->marks, i);
            /* as the JSON has them: to the microsecond */
            bad = add_mark(info, k->name, round(k->gap * 1e6) / 1e6) < 0;
        }
        if (bad) {
            settle_result_info_free(info);
            return SETTLE_ERR_NOMEM;
        }
    }
    if (measured && r->nregions) {
        info->region_name = calloc((size_t)r->nregions + 1, sizeof(*info->region_name));
        info->region_load = calloc((size_t)r->nregions + 1, sizeof(*info->region_load));
        int bad = !info->region_name || !info->region_load;
        for (int i = 0; i < r->nregions && !bad; i++) {
            double t = r->regions[i].load_time;
            bad = !(info->region_name[i] = strdup(r->regions[i].name));
            /* as the JSON has them: to the microsecond */
            info->region_load[i] = isfinite(t) ? round(t * 1e6) / 1e6 : NAN;
            info->nregions += !bad;
        }
        if (bad) {
            settle_result_info_free(info);
            return SETTLE_ERR_NOMEM;
        }
    }
    return 0;
}

int settle_result_label(const SettleResultInfo *info, const char *key, char *buf, size_t len)
{
    if (!info || !key || !buf || !len)
        return SETTLE_ERR_INVAL;
    buf[0] = 0;
    if (!info->labels || !*info->labels)
        return 0;
    cJSON *o = cJSON_Parse(info->labels);
    if (!o)
        return SETTLE_ERR_NOMEM; /* written by settle_result_info_parse: only memory fails */
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    int found = cJSON_IsString(v);
    if (found)
        snprintf(buf, len, "%s", v->valuestring);
    cJSON_Delete(o);
    return found;
}
