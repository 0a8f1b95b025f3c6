/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What every marks parser uses: lines of a buffer, appending a mark, messages,
 * and the user's expressions applied to a line.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marks_internal.h"

static void free_mark(SettleMark *k)
{
    free((char *)k->name);
    free((char *)k->source);
    free((char *)k->reason);
}

int marks_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return SETTLE_ERR_INVAL;
}

void marks_where(char *buf, size_t len, const char *file, long line)
{
    snprintf(buf, len, "%s:%ld", file, line);
}

int marks_next_line(const char *data, size_t size, size_t *pos, MarkLine *l)
{
    if (*pos >= size)
        return 0;
    const char *s = data + *pos;
    const char *nl = memchr(s, '\n', size - *pos);
    size_t len = nl ? (size_t)(nl - s) : size - *pos;
    *pos += len + (nl ? 1 : 0);
    if (len && s[len - 1] == '\r')
        len--;
    l->s = s;
    l->len = len;
    l->number++;
    return 1;
}

int marks_push(SettleMarks *m, const char *name, size_t namelen, const char *source,
               SettleMarkClock clock, double value, SettleMarkClock stamp_clock, double stamp)
{
    if (m->n == m->cap) {
        int cap = m->cap ? m->cap * 2 : 16;
        if (cap > (1 << 24))
            return SETTLE_ERR_NOMEM;
        SettleMark *v = realloc(m->v, (size_t)cap * sizeof(*v));
        if (!v)
            return SETTLE_ERR_NOMEM;
        m->v = v;
        m->cap = cap;
    }
    SettleMark *k = &m->v[m->n];
    memset(k, 0, sizeof(*k));
    char *n = malloc(namelen + 1);
    char *s = strdup(source);
    if (!n || !s) {
        free(n);
        free(s);
        return SETTLE_ERR_NOMEM;
    }
    memcpy(n, name, namelen);
    n[namelen] = 0;
    k->name = n;
    k->source = s;
    k->clock = clock;
    k->value = value;
    k->stamp_clock = stamp_clock;
    k->stamp = stamp;
    k->run = -1;
    k->time = NAN;
    k->gap = NAN;
    k->frame = -1;
    m->n++;
    return 0;
}

void marks_truncate(SettleMarks *m, int n)
{
    while (m->n > n)
        free_mark(&m->v[--m->n]);
}

/* A group's text as a duration: Android's form, "797ms", or milliseconds. */
static int group_duration(const char *s, size_t len, double *sec)
{
    double v;
    if (len > 2 && !memcmp(s + len - 2, "ms", 2) && marks_decimal(s, len - 2, &v) == 0) {
        *sec = v / 1000;
        return isfinite(*sec) ? 0 : -1;
    }
    if (marks_decimal(s, len, &v) == 0) {
        *sec = v / 1000;
        return isfinite(*sec) ? 0 : -1;
    }
    return marks_duration(s, len, sec);
}

int marks_apply_regex(SettleMarks *m, const char *file, const MarkLine *l,
                      SettleMarkClock stamp_clock, double stamp, char *err, size_t errlen)
{
    if (!m->nrx)
        return 0;
    char *line = malloc(l->len + 1);
    if (!line)
        return SETTLE_ERR_NOMEM;
    memcpy(line, l->s, l->len);
    line[l->len] = 0;
    char where[512];
    marks_where(where, sizeof(where), file, l->number);
    int ret = 0;
    for (int i = 0; i < m->nrx && !ret; i++) {
        regmatch_t g[2];
        if (strlen(line) != l->len || regexec(&m->rx[i].re, line, 2, g, 0))
            continue;
        const char *name = m->rx[i].name;
        if (m->rx[i].groups >= 1 && g[1].rm_so >= 0) {
            double sec;
            size_t n = (size_t)(g[1].rm_eo - g[1].rm_so);
            if (group_duration(line + g[1].rm_so, n, &sec) < 0)
                ret = marks_fail(err, errlen, "%s: --mark-regex %s: '%.*s' is not a duration",
                                 where, name, (int)(n > 40 ? 40 : n), line + g[1].rm_so);
            else
                ret = marks_push(m, name, strlen(name), where, SETTLE_MARK_CLOCK_LAUNCH, sec,
                                 stamp_clock, stamp);
        } else {
            ret = marks_push(m, name, strlen(name), where, stamp_clock, stamp, stamp_clock,
                             stamp);
        }
    }
    free(line);
    return ret;
}
