/* SPDX-License-Identifier: BSD-2-Clause */
/* Results into series by label, ordered along a label, with their changes. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "results_in.h"
#include "series.h"

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* The label's value as text: strings as they are, other JSON as its text. */
static char *label_text(const cJSON *labels, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(labels, key);
    if (!v || cJSON_IsNull(v))
        return NULL;
    return cJSON_IsString(v) ? strdup(v->valuestring) : cJSON_PrintUnformatted(v);
}

/* A numeric field by a dotted path ("regions.header.load_time"). */
static const cJSON *field(const cJSON *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && o;
         k = strtok_r(NULL, ".", &save))
        o = cJSON_GetObjectItemCaseSensitive(o, k);
    return o;
}

static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static Series *find_series(SeriesSet *set, char **values, const char *region)
{
    for (size_t i = 0; i < set->n; i++) {
        int same = same_str(set->s[i].region, region);
        for (int k = 0; k < set->nby && same; k++)
            same = same_str(set->s[i].values[k], values[k]);
        if (same)
            return &set->s[i];
    }
    if (set->n == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 8;
        Series *g = realloc(set->s, cap * sizeof(*g));
        if (!g)
            return NULL;
        set->s = g, set->cap = cap;
    }
    Series *s = &set->s[set->n];
    memset(s, 0, sizeof(*s));
    if (!(s->values = calloc((size_t)set->nby + 1, sizeof(*s->values))))
        return NULL;
    set->n++; /* counted now: freed with the set whatever fails below */
    for (int k = 0; k < set->nby; k++)
        if (values[k] && !(s->values[k] = strdup(values[k])))
            return NULL;
    if (region && !(s->region = strdup(region)))
        return NULL;
    return s;
}

static Point *find_point(Series *s, const char *along)
{
    for (size_t i = 0; i < s->np; i++)
        if (!strcmp(s->p[i].along, along))
            return &s->p[i];
    if (s->np == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        Point *g = realloc(s->p, cap * sizeof(*g));
        if (!g)
            return NULL;
        s->p = g, s->cap = cap;
    }
    Point *p = &s->p[s->np];
    memset(p, 0, sizeof(*p));
    if (!(p->along = strdup(along)))
        return NULL;
    s->np++;
    return p;
}

/* Whether the result counts, as compare has it: stable, complete, a value. */
static const char *why_not(const cJSON *o, const cJSON *m)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "status");
    if (cJSON_IsString(st) && strcmp(st->valuestring, "stable"))
        return "status is not stable";
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "partial")))
        return "partial";
    if (!cJSON_IsNumber(m) || !isfinite(m->valuedouble))
        return "no value";
    return NULL;
}

static int fill_capture(Capture *c, const cJSON *o, const cJSON *m, const SettleHistoryPaths *p)
{
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "input");
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(o, "input_mtime");
    memset(c, 0, sizeof(*c));
    c->why = why_not(o, m);
    c->value = c->why ? NAN : m->valuedouble;
    c->mtime = cJSON_IsString(mt) ? strtod(mt->valuestring, NULL)
               : cJSON_IsNumber(mt) ? mt->valuedouble : NAN;
    c->input = strdup(cJSON_IsString(in) ? in->valuestring : "");
    c->capture = dup_or_null(p->capture);
    c->result = dup_or_null(p->result);
    c->csv = dup_or_null(p->csv);
    c->report = dup_or_null(p->report);
    c->frames = dup_or_null(p->frames);
    return c->input && (!p->capture || c->capture) && (!p->result || c->result) &&
           (!p->csv || c->csv) && (!p->report || c->report) && (!p->frames || c->frames)
               ? 0 : -1;
}

static void capture_free(Capture *c)
{
    free(c->input);
    free(c->capture);
    free(c->result);
    free(c->csv);
    free(c->report);
    free(c->frames);
}

typedef struct Loading {
    SeriesSet *set;
    int nomem;
} Loading;

/* Adds result o's value m to the series of `values` (and region) at its
 * --along point, unless the same capture is there already. 0 (added or a
 * duplicate) or -1 (out of memory). */
static int add_capture(SeriesSet *set, const cJSON *o, char **values, const char *region,
                       const cJSON *m, const SettleHistoryPaths *paths)
{
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(o, "labels");
    char *along = label_text(labels, set->along);
    Series *s = along ? find_series(set, values, region) : NULL;
    Point *p = s ? find_point(s, along) : NULL;
    free(along);
    if (!p)
        return -1;
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "input");
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(o, "input_mtime");
    char *mts = mt ? cJSON_PrintUnformatted(mt) : NULL;
    int dup = 0;
    for (size_t i = 0; i < p->n && cJSON_IsString(in) && !dup; i++)
        dup = !strcmp(p->c[i].input, in->valuestring) && mts &&
              p->c[i].mtime == strtod(mts + (mts[0] == '"'), NULL);
    free(mts);
    if (dup) {
        set->duplicates += !region;
        return 0;
    }
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 4;
        Capture *g = realloc(p->c, cap * sizeof(*g));
        if (!g)
            return -1;
        p->c = g, p->cap = cap;
    }
    if (fill_capture(&p->c[p->n], o, m, paths) < 0) {
        capture_free(&p->c[p->n]);
        return -1;
    }
    p->n++;
    return 0;
}

static int add_result(const char *json, size_t len, const SettleHistoryPaths *paths,
                      const char *where, void *user)
{
    Loading *L = user;
    SeriesSet *set = L->set;
    cJSON *o = cJSON_ParseWithLength(json, len);
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(o, "labels");
    char *along = label_text(labels, set->along);
    char **values = calloc((size_t)set->nby + 1, sizeof(*values));
    int ret = 1;
    if (!o || !values)
        goto end;
    if (!along) {
        set->no_along++;
        ret = 0;
        goto end;
    }
    for (int k = 0; k < set->nby; k++)
        values[k] = label_text(labels, set->by[k]);
    if (add_capture(set, o, values, NULL, field(o, set->metric), paths) < 0)
        goto end;
    /* each --region area's own series, for the fields it has */
    const cJSON *rg, *regions = NULL;
    if (!strcmp(set->metric, "load_time") || !strcmp(set->metric, "stable_time"))
        regions = cJSON_GetObjectItemCaseSensitive(o, "regions");
    cJSON_ArrayForEach(rg, regions)
    {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(rg, "name");
        if (cJSON_IsString(nm) &&
            add_capture(set, o, values, nm->valuestring,
                        cJSON_GetObjectItemCaseSensitive(rg, set->metric), paths) < 0)
            goto end;
    }
    ret = 0;
end:
    (void)where;
    for (int k = 0; values && k < set->nby; k++)
        free(values[k]);
    free(values);
    free(along);
    cJSON_Delete(o);
    if (ret)
        L->nomem = 1;
    return ret;
}

int series_load(SeriesSet *set, const char *item, char *err, size_t errlen)
{
    Loading L = { set, 0 };
    int r = results_each(item, add_result, &L, err, errlen);
    if (r > 0 || L.nomem) {
        snprintf(err, errlen, "%s: out of memory", item);
        return -1;
    }
    return r;
}

/* YYYY-MM-DD, then anything (a time). */
static int is_date(const char *s)
{
    static const char form[] = "dddd-dd-dd";
    for (int i = 0; form[i]; i++)
        if (form[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != form[i])
            return 0;
    return 1;
}

static int is_number(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return end != s && !*end && isfinite(*v);
}

static const SeriesSet *sorting;

static int cmp_point(const void *a, const void *b)
{
    const Point *x = a, *y = b;
    if (sorting->numeric)
        return (x->num > y->num) - (x->num < y->num);
    return strcmp(x->along, y->along);
}

static int cmp_series(const void *a, const void *b)
{
    const Series *x = a, *y = b;
    for (int k = 0; k < sorting->nby; k++) {
        const char *u = x->values[k] ? x->values[k] : "", *v = y->values[k] ? y->values[k] : "";
        int c = strcmp(u, v);
        if (c)
            return c;
    }
    /* the whole screen's series first, then its regions' */
    if (!x->region || !y->region)
        return (x->region != NULL) - (y->region != NULL);
    return strcmp(x->region, y->region);
}

/* Says which --along value is neither a number nor a date. */
static int along_kind(SeriesSet *set, char *err, size_t errlen)
{
    const char *bad = NULL, *num = NULL, *date = NULL;
    for (size_t i = 0; i < set->n; i++)
        for (size_t j = 0; j < set->s[i].np; j++) {
            Point *p = &set->s[i].p[j];
            if (is_number(p->along, &p->num))
                num = p->along;
            else if (is_date(p->along))
                date = p->along;
            else
                bad = p->along;
        }
    if (bad || (num && date)) {
        snprintf(err, errlen, "--along %s: '%s' is %s", set->along, bad ? bad : date,
                 bad ? "neither a number nor a date (YYYY-MM-DD...)"
                     : "a date, but other values are numbers");
        return -1;
    }
    set->numeric = !date;
    return 0;
}

static int finish_series(Series *s, const SettleTrendSettings *ts)
{
    SettleTrendPoint *tp = calloc(s->np + 1, sizeof(*tp));
    s->idx = calloc(s->np + 1, sizeof(*s->idx));
    s->ch = calloc(s->np + 1, sizeof(*s->ch));
    if (!tp || !s->idx || !s->ch)
        goto nomem;
    for (size_t j = 0; j < s->np; j++) {
        Point *p = &s->p[j];
        if (!(p->x = calloc(p->n + 1, sizeof(*p->x))))
            goto nomem;
        for (size_t i = 0; i < p->n; i++)
            if (!p->c[i].why)
                p->x[p->nx++] = p->c[i].value;
        memset(&p->sum, 0, sizeof(p->sum));
        p->sum.median = p->sum.min = p->sum.max = p->sum.mean = p->sum.sd = NAN;
        if (p->nx && settle_summarize(p->x, p->nx, &p->sum) < 0)
            goto nomem;
        if (p->nx) {
            tp[s->nidx] = (SettleTrendPoint){ p->x, p->nx };
            s->idx[s->nidx++] = j;
        }
    }
    if (settle_trend_changes(tp, s->nidx, ts, s->ch, s->np, &s->nch) < 0)
        goto nomem;
    for (size_t i = 0; i < s->nch; i++)
        s->ch[i].at = s->idx[s->ch[i].at];
    s->regression = s->nch && s->ch[s->nch - 1].at == s->idx[s->nidx - 1] &&
                    s->ch[s->nch - 1].step > 0;
    free(tp);
    return 0;
nomem:
    free(tp);
    return -2;
}

int series_finish(SeriesSet *set, const SettleTrendSettings *ts, char *err, size_t errlen)
{
    if (along_kind(set, err, errlen) < 0)
        return -1;
    sorting = set;
    qsort(set->s, set->n, sizeof(*set->s), cmp_series);
    for (size_t i = 0; i < set->n; i++) {
        qsort(set->s[i].p, set->s[i].np, sizeof(*set->s[i].p), cmp_point);
        if (finish_series(&set->s[i], ts) < 0) {
            snprintf(err, errlen, "out of memory");
            return -2;
        }
    }
    return 0;
}

void series_free(SeriesSet *set)
{
    for (size_t i = 0; i < set->n; i++) {
        Series *s = &set->s[i];
        for (int k = 0; k < set->nby; k++)
            free(s->values[k]);
        free(s->values);
        free(s->region);
        for (size_t j = 0; j < s->np; j++) {
            for (size_t c = 0; c < s->p[j].n; c++)
                capture_free(&s->p[j].c[c]);
            free(s->p[j].c);
            free(s->p[j].x);
            free(s->p[j].along);
        }
        free(s->p);
        free(s->ch);
        free(s->idx);
    }
    free(set->s);
    set->s = NULL;
    set->n = set->cap = 0;
    free(set->by);
    free(set->by_text);
    set->by = NULL;
    set->by_text = NULL;
    set->nby = 0;
}

int series_option(int c, const char *arg, SeriesSet *set, SettleTrendSettings *ts)
{
    double x;
    switch (c) {
    case SERIES_OPT_ALONG: set->along = arg; return 1;
    case SERIES_OPT_METRIC: set->metric = arg; return 1;
    case SERIES_OPT_ALPHA:
        return cli_parse_number("alpha", arg, 1e-9, 0.5, &ts->alpha) ? EXIT_USAGE : 1;
    case SERIES_OPT_MIN_EFFECT:
        return cli_parse_number("min-effect", arg, 0, 1e300, &ts->min_effect) ? EXIT_USAGE : 1;
    case SERIES_OPT_PERMUTATIONS:
        if (cli_parse_number("permutations", arg, 99, 1e6, &x))
            return EXIT_USAGE;
        ts->permutations = (int)x;
        return 1;
    default: return 0;
    }
}

int series_set_by(SeriesSet *set, const char *keys)
{
    size_t n = 1;
    for (const char *c = keys; *c; c++)
        n += *c == ',';
    if (!(set->by_text = strdup(keys)) || !(set->by = calloc(n, sizeof(*set->by))))
        return -1;
    char *save = NULL;
    for (char *k = strtok_r(set->by_text, ",", &save); k; k = strtok_r(NULL, ",", &save))
        set->by[set->nby++] = k;
    return 0;
}

int series_read(SeriesSet *set, char *const *items, int n, const SettleTrendSettings *ts,
                int quiet)
{
    char err[600];
    for (int i = 0; i < n; i++)
        if (series_load(set, items[i], err, sizeof(err)) < 0) {
            fprintf(stderr, "settle: %s\n", err);
            return EXIT_INPUT;
        }
    int f = series_finish(set, ts, err, sizeof(err));
    if (f < 0) {
        fprintf(stderr, "settle: %s\n", err);
        return f == -2 ? EXIT_INTERNAL : EXIT_INPUT;
    }
    if (!quiet && set->no_along)
        fprintf(stderr, "settle: %ld results have no label '%s' and are left out\n",
                set->no_along, set->along);
    if (!quiet && set->duplicates)
        fprintf(stderr, "settle: %ld results were given twice and are counted once\n",
                set->duplicates);
    return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static long days_from_civil(long y, long m, long d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

double point_time(const SeriesSet *set, const Point *p)
{
    if (!set->numeric) {
        long y = strtol(p->along, NULL, 10), m = strtol(p->along + 5, NULL, 10);
        long d = strtol(p->along + 8, NULL, 10);
        return (double)days_from_civil(y, m, d) * 86400.0;
    }
    double t = NAN;
    for (size_t i = 0; i < p->n; i++)
        if (isfinite(p->c[i].mtime) && !(p->c[i].mtime <= t))
            t = p->c[i].mtime;
    return t;
}

char *series_name(const SeriesSet *set, const Series *s, const char *sep)
{
    size_t n = 1 + (s->region ? strlen(s->region) + strlen(sep) + 8 : 0);
    for (int k = 0; k < set->nby; k++)
        n += strlen(set->by[k]) + strlen(sep) + 2 +
             (s->values[k] ? strlen(s->values[k]) : 0);
    char *r = malloc(n), *o = r;
    if (!r)
        return NULL;
    *o = 0;
    for (int k = 0; k < set->nby; k++)
        o += sprintf(o, "%s%s=%s", k ? sep : "", set->by[k], s->values[k] ? s->values[k] : "");
    if (s->region)
        sprintf(o, "%sregion=%s", set->nby ? sep : "", s->region);
    return r;
}
