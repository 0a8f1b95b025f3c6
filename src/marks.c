/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The set of marks: files read and their format recognised (each format's
 * parser in its own file), the user's regular expressions.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marks_internal.h"

#define MAX_FILE (256 << 20)

int settle_marks_new(SettleMarks **m)
{
    if (!m)
        return SETTLE_ERR_INVAL;
    *m = calloc(1, sizeof(**m));
    if (!*m)
        return SETTLE_ERR_NOMEM;
    (*m)->run = -1;
    return 0;
}

void settle_marks_free(SettleMarks **m)
{
    if (!m || !*m)
        return;
    SettleMarks *s = *m;
    marks_truncate(s, 0);
    for (int i = 0; i < s->nrx; i++) {
        free(s->rx[i].name);
        regfree(&s->rx[i].re);
    }
    free(s->rx);
    free(s->v);
    free(s);
    *m = NULL;
}

void settle_marks_set_run(SettleMarks *m, int run)
{
    m->run = run < 0 ? -1 : run;
}

int settle_marks_count(const SettleMarks *m)
{
    return m ? m->n : 0;
}

const SettleMark *settle_marks_get(const SettleMarks *m, int i)
{
    return m && i >= 0 && i < m->n ? &m->v[i] : NULL;
}

int settle_marks_add_regex(SettleMarks *m, const char *spec, char *err, size_t errlen)
{
    const char *eq = spec ? strchr(spec, '=') : NULL;
    if (!m || !eq || eq == spec)
        return marks_fail(err, errlen, "expected NAME=REGEX, got '%s'", spec ? spec : "");
    if (m->nrx >= 64)
        return marks_fail(err, errlen, "more than 64 expressions");
    MarkRegex *rx = realloc(m->rx, (size_t)(m->nrx + 1) * sizeof(*rx));
    if (!rx)
        return SETTLE_ERR_NOMEM;
    m->rx = rx;
    MarkRegex *r = &rx[m->nrx];
    int ret = regcomp(&r->re, eq + 1, REG_EXTENDED);
    if (ret) {
        char msg[128];
        regerror(ret, &r->re, msg, sizeof(msg));
        return marks_fail(err, errlen, "bad regular expression '%s': %s", eq + 1, msg);
    }
    r->name = malloc((size_t)(eq - spec) + 1);
    if (!r->name) {
        regfree(&r->re);
        return SETTLE_ERR_NOMEM;
    }
    memcpy(r->name, spec, (size_t)(eq - spec));
    r->name[eq - spec] = 0;
    r->groups = (int)r->re.re_nsub;
    m->nrx++;
    return 0;
}

/* Other text: only the user's expressions find marks, each line unstamped
 * unless it starts with a logcat stamp. */
static int parse_text(SettleMarks *m, const char *file, const char *data, size_t size,
                      char *err, size_t errlen)
{
    size_t pos = 0;
    MarkLine l = { 0 };
    int n0 = m->n;
    while (marks_next_line(data, size, &pos, &l)) {
        SettleMarkClock c = SETTLE_MARK_CLOCK_NONE;
        double v = NAN;
        size_t used;
        if (marks_stamp(l.s, l.len, &used, &c, &v) < 0) {
            c = SETTLE_MARK_CLOCK_NONE;
            v = NAN;
        }
        int ret = marks_apply_regex(m, file, &l, c, v, err, errlen);
        if (ret < 0)
            return ret;
    }
    return m->n > n0;
}

static int refuse(const char *file, const char *data, size_t size, char *err, size_t errlen)
{
    size_t pos = 0;
    MarkLine l = { 0 };
    while (marks_next_line(data, size, &pos, &l)) {
        size_t i = 0;
        while (i < l.len && (l.s[i] == ' ' || l.s[i] == '\t'))
            i++;
        if (i == l.len)
            continue;
        int n = (int)(l.len - i > 40 ? 40 : l.len - i);
        return marks_fail(err, errlen,
                          "%s:%ld: not a logcat, am start -W output, Macrobenchmark JSON or "
                          "time,name CSV: '%.*s'",
                          file, l.number, n, l.s + i);
    }
    return marks_fail(err, errlen, "%s: empty: no marks", file);
}

int settle_marks_parse(SettleMarks *m, const char *name, const char *data, size_t size,
                       char *err, size_t errlen)
{
    if (!m || !name || (!data && size))
        return SETTLE_ERR_INVAL;
    if (size && memchr(data, 0, size))
        return marks_fail(err, errlen, "%s: binary data, not a text or JSON file of marks", name);
    static int (*const parsers[])(SettleMarks *, const char *, const char *, size_t, char *,
                                  size_t) = {
        marks_parse_json, marks_parse_csv, marks_parse_am, marks_parse_logcat, parse_text,
    };
    static const int formats[] = {
        SETTLE_MARKS_MACROBENCHMARK, SETTLE_MARKS_CSV, SETTLE_MARKS_AM_START, SETTLE_MARKS_LOGCAT,
        SETTLE_MARKS_TEXT,
    };
    int n0 = m->n;
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        int ret = parsers[i](m, name, data, size, err, errlen);
        if (ret < 0) {
            marks_truncate(m, n0);
            return ret;
        }
        if (ret > 0)
            return formats[i];
    }
    marks_truncate(m, n0);
    return refuse(name, data, size, err, errlen);
}

int settle_marks_read(SettleMarks *m, const char *path, char *err, size_t errlen)
{
    if (!m || !path)
        return SETTLE_ERR_INVAL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return marks_fail(err, errlen, "%s: %s", path, strerror(errno)), SETTLE_ERR_IO;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int ret = 0;
    for (;;) {
        if (len == cap) {
            if (cap >= MAX_FILE) {
                ret = marks_fail(err, errlen, "%s: larger than 256 MiB", path);
                goto fail;
            }
            cap = cap ? cap * 2 : 65536;
            char *b = realloc(buf, cap);
            if (!b) {
                ret = SETTLE_ERR_NOMEM;
                goto fail;
            }
            buf = b;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        marks_fail(err, errlen, "%s: read error", path);
        ret = SETTLE_ERR_IO;
        goto fail;
    }
    ret = settle_marks_parse(m, path, buf, len, err, errlen);
fail:
    free(buf);
    fclose(f);
    return ret;
}
