/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Marks already on the capture's clock: "time,name" lines, seconds from the
 * capture's first frame, with an optional "time,name" header. A name may be
 * quoted ("a, b" with "" for a quote).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "marks_internal.h"

static int is_header(const MarkLine *l)
{
    static const char h[] = "time,name";
    if (l->len != sizeof(h) - 1)
        return 0;
    for (size_t i = 0; i < l->len; i++) {
        char c = l->s[i];
        if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != h[i])
            return 0;
    }
    return 1;
}

/* The name after the comma, unquoted into out (at least len + 1 bytes). */
static int csv_name(const char *s, size_t len, char *out, size_t *n)
{
    size_t o = 0;
    if (len && s[0] == '"') {
        size_t i = 1;
        for (;;) {
            if (i >= len)
                return -1;
            if (s[i] == '"') {
                if (i + 1 < len && s[i + 1] == '"') {
                    out[o++] = '"';
                    i += 2;
                    continue;
                }
                if (i + 1 != len)
                    return -1;
                break;
            }
            out[o++] = s[i++];
        }
    } else {
        if (memchr(s, '"', len))
            return -1;
        memcpy(out, s, len);
        o = len;
    }
    *n = o;
    return o ? 0 : -1;
}

static int csv_line(SettleMarks *m, const char *file, const MarkLine *l, char *err,
                    size_t errlen)
{
    char where[512];
    marks_where(where, sizeof(where), file, l->number);
    const char *comma = memchr(l->s, ',', l->len);
    double t;
    if (!comma || marks_decimal(l->s, (size_t)(comma - l->s), &t) < 0)
        return marks_fail(err, errlen, "%s: expected seconds,name: '%.*s'", where,
                          (int)(l->len > 60 ? 60 : l->len), l->s);
    size_t rest = l->len - (size_t)(comma + 1 - l->s);
    char *name = malloc(rest + 1);
    if (!name)
        return SETTLE_ERR_NOMEM;
    size_t n;
    int ret;
    if (csv_name(comma + 1, rest, name, &n) < 0)
        ret = marks_fail(err, errlen, "%s: the name is empty or badly quoted: '%.*s'", where,
                         (int)(rest > 60 ? 60 : rest), comma + 1);
    else
        ret = marks_push(m, name, n, where, SETTLE_MARK_CLOCK_CAPTURE, t,
                         SETTLE_MARK_CLOCK_NONE, NAN);
    free(name);
    return ret;
}

int marks_parse_csv(SettleMarks *m, const char *file, const char *data, size_t size,
                    char *err, size_t errlen)
{
    size_t pos = 0;
    MarkLine l = { 0 };
    int seen = 0;
    while (marks_next_line(data, size, &pos, &l)) {
        if (!l.len)
            continue;
        if (!seen) {
            const char *comma = memchr(l.s, ',', l.len);
            double t;
            seen = is_header(&l);
            if (seen)
                continue;
            if (!comma || marks_decimal(l.s, (size_t)(comma - l.s), &t) < 0)
                return 0;
            seen = 1;
        }
        int ret = csv_line(m, file, &l, err, errlen);
        if (ret < 0)
            return ret;
    }
    return seen;
}
