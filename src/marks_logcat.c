/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * adb logcat: ActivityManager's and ActivityTaskManager's "Displayed" and
 * "Fully drawn" lines, GameBench-style markers and the user's expressions,
 * in the line formats threadtime, time, brief, tag, and the epoch,
 * monotonic, year, usec/nsec and zone modifiers.
 */
#include <math.h>
#include <string.h>

#include "marks_internal.h"

typedef struct LogLine {
    SettleMarkClock clock; /* NONE for brief and tag */
    double stamp;
    const char *tag, *msg;
    size_t taglen, msglen;
} LogLine;

static int is_prio(char c)
{
    return c && strchr("VDIWEFSA", c) != NULL;
}

static const char *find(const char *s, size_t len, const char *what)
{
    size_t n = strlen(what);
    for (size_t i = 0; i + n <= len; i++)
        if (!memcmp(s + i, what, n))
            return s + i;
    return NULL;
}

/* "P/TAG( pid): msg", "P/TAG(uid: pid): msg" or "P/TAG: msg" */
static int slash_body(const char *s, size_t len, LogLine *o)
{
    if (len < 3 || !is_prio(s[0]) || s[1] != '/')
        return -1;
    const char *colon = find(s + 2, len - 2, ": ");
    const char *end = colon ? colon : (len >= 3 && s[len - 1] == ':' ? s + len - 1 : NULL);
    if (!end)
        return -1;
    const char *paren = memchr(s + 2, '(', (size_t)(end - s - 2));
    o->tag = s + 2;
    if (paren) {
        const char *close = find(paren, len - (size_t)(paren - s), "): ");
        if (!close)
            close = (s[len - 1] == ':' && s[len - 2] == ')') ? s + len - 2 : NULL;
        if (!close)
            return -1;
        o->taglen = (size_t)(paren - o->tag);
        end = close + 1;
    } else {
        o->taglen = (size_t)(end - o->tag);
    }
    o->msg = end + 1 < s + len ? end + 2 : s + len;
    o->msglen = (size_t)(s + len - o->msg);
    return 0;
}

/* threadtime's "[uid] pid tid P TAG: msg" */
static int thread_body(const char *s, size_t len, LogLine *o)
{
    size_t i = 0;
    int tokens = 0;
    for (;;) {
        while (i < len && s[i] == ' ')
            i++;
        size_t t = i;
        while (i < len && s[i] != ' ')
            i++;
        if (i == t)
            return -1;
        if (i - t == 1 && is_prio(s[t]) && tokens >= 2)
            break;
        if (++tokens > 3)
            return -1;
    }
    while (i < len && s[i] == ' ')
        i++;
    const char *colon = find(s + i, len - i, ": ");
    const char *end = colon ? colon : (len && s[len - 1] == ':' ? s + len - 1 : NULL);
    if (!end || end < s + i)
        return -1;
    o->tag = s + i;
    o->taglen = (size_t)(end - o->tag);
    o->msg = colon ? colon + 2 : s + len;
    o->msglen = (size_t)(s + len - o->msg);
    return 0;
}

static int parse_line(const char *s, size_t len, LogLine *o)
{
    size_t used = 0;
    o->clock = SETTLE_MARK_CLOCK_NONE;
    o->stamp = NAN;
    if (marks_stamp(s, len, &used, &o->clock, &o->stamp) < 0)
        return slash_body(s, len, o);
    while (used < len && s[used] == ' ')
        used++;
    if (slash_body(s + used, len - used, o) == 0)
        return 0;
    return thread_body(s + used, len - used, o);
}

static void trim(const char **s, size_t *len)
{
    while (*len && (*s)[*len - 1] == ' ')
        (*len)--;
}

static int tag_is(const LogLine *o, const char *tag)
{
    const char *t = o->tag;
    size_t n = o->taglen;
    trim(&t, &n);
    return n == strlen(tag) && !memcmp(t, tag, n);
}

/* "COMP[ for user N]: DUR[ (total DUR)]" after "Displayed " or "Fully drawn ".
 * The total, where present, is from the launch of the first activity. */
static int launch_line(const char *s, size_t len, size_t *complen, double *sec)
{
    const char *colon = find(s, len, ": ");
    if (!colon || colon == s)
        return -1;
    size_t c = (size_t)(colon - s);
    const char *user = find(s, c, " for user ");
    if (user) {
        const char *d = user + 10;
        if (d == colon)
            return -1;
        for (; d < colon; d++)
            if (*d < '0' || *d > '9')
                return -1;
        c = (size_t)(user - s);
    }
    if (memchr(s, ' ', c))
        return -1;
    const char *d = colon + 2;
    size_t dl = len - (size_t)(d - s);
    trim(&d, &dl);
    const char *total = find(d, dl, " (total ");
    if (total) {
        if (dl < 1 || d[dl - 1] != ')')
            return -1;
        const char *t = total + 8;
        if (marks_duration(t, (size_t)(d + dl - 1 - t), sec) < 0 ||
            marks_duration(d, (size_t)(total - d), &(double){ 0 }) < 0)
            return -1;
    } else if (marks_duration(d, dl, sec) < 0) {
        return -1;
    }
    *complen = c;
    return 0;
}

static int push_named(SettleMarks *m, const char *prefix, const char *s, size_t n,
                      const char *where, SettleMarkClock clock, double v, const LogLine *o)
{
    char name[512];
    int len = snprintf(name, sizeof(name), "%s%.*s", prefix, (int)(n > 400 ? 400 : n), s);
    return marks_push(m, name, (size_t)len, where, clock, v, o->clock, o->stamp);
}

static int system_mark(SettleMarks *m, const char *file, long number, const LogLine *o,
                       char *err, size_t errlen)
{
    static const char *const kinds[] = { "Displayed ", "Fully drawn " };
    char where[512];
    marks_where(where, sizeof(where), file, number);
    for (int k = 0; k < 2; k++) {
        size_t kl = strlen(kinds[k]);
        if (o->msglen < kl || memcmp(o->msg, kinds[k], kl))
            continue;
        size_t cl;
        double sec;
        if (launch_line(o->msg + kl, o->msglen - kl, &cl, &sec) < 0 || sec < 0)
            return marks_fail(err, errlen, "%s: malformed %.*sline: '%.*s'", where,
                              (int)kl, kinds[k], (int)(o->msglen > 80 ? 80 : o->msglen),
                              o->msg);
        return push_named(m, kinds[k], o->msg + kl, cl, where, SETTLE_MARK_CLOCK_LAUNCH, sec, o);
    }
    return 0;
}

static int gb_marker(SettleMarks *m, const char *file, long number, const LogLine *o,
                     char *err, size_t errlen)
{
    static const char *const kinds[] = { "gb_marker_start - ", "gb_marker_stop - " };
    static const char *const ends[] = { " start", " stop" };
    for (int k = 0; k < 2; k++) {
        const char *at = find(o->msg, o->msglen, kinds[k]);
        if (!at)
            continue;
        char where[512];
        marks_where(where, sizeof(where), file, number);
        const char *label = at + strlen(kinds[k]);
        size_t n = (size_t)(o->msg + o->msglen - label);
        trim(&label, &n);
        if (!n)
            return marks_fail(err, errlen, "%s: %.*s without a label", where,
                              (int)strlen(kinds[k]) - 3, kinds[k]);
        char name[512];
        int len = snprintf(name, sizeof(name), "%.*s%s", (int)(n > 400 ? 400 : n), label,
                           ends[k]);
        return marks_push(m, name, (size_t)len, where, o->clock, o->stamp, o->clock, o->stamp);
    }
    return 0;
}

static int is_divider(const MarkLine *l)
{
    return l->len >= 10 && !memcmp(l->s, "--------- ", 10);
}

static int blank(const MarkLine *l)
{
    for (size_t i = 0; i < l->len; i++)
        if (l->s[i] != ' ' && l->s[i] != '\t')
            return 0;
    return 1;
}

/* The file is logcat when its first line that is not blank is a logcat line
 * or divider; every other line must then be one too. */
int marks_parse_logcat(SettleMarks *m, const char *file, const char *data, size_t size,
                       char *err, size_t errlen)
{
    size_t pos = 0;
    MarkLine l = { 0 };
    int seen = 0;
    SettleMarkClock clock = SETTLE_MARK_CLOCK_NONE;
    long clock_line = 0;
    while (marks_next_line(data, size, &pos, &l)) {
        if (blank(&l) || is_divider(&l)) {
            seen |= !blank(&l);
            continue;
        }
        LogLine o;
        if (parse_line(l.s, l.len, &o) < 0) {
            if (!seen)
                return 0;
            return marks_fail(err, errlen, "%s:%ld: not a logcat line%s: '%.*s'", file,
                              l.number, pos >= size && (!size || data[size - 1] != '\n')
                              ? " (truncated?)" : "", (int)(l.len > 60 ? 60 : l.len), l.s);
        }
        seen = 1;
        if (o.clock != SETTLE_MARK_CLOCK_NONE && clock != SETTLE_MARK_CLOCK_NONE &&
            o.clock != clock)
            return marks_fail(err, errlen, "%s:%ld: a %s time stamp after %s ones (line %ld)",
                              file, l.number, settle_mark_clock_name(o.clock),
                              settle_mark_clock_name(clock), clock_line);
        if (o.clock != SETTLE_MARK_CLOCK_NONE && clock == SETTLE_MARK_CLOCK_NONE) {
            clock = o.clock;
            clock_line = l.number;
        }
        int ret = 0;
        if (tag_is(&o, "ActivityManager") || tag_is(&o, "ActivityTaskManager"))
            ret = system_mark(m, file, l.number, &o, err, errlen);
        if (!ret)
            ret = gb_marker(m, file, l.number, &o, err, errlen);
        if (!ret)
            ret = marks_apply_regex(m, file, &l, o.clock, o.stamp, err, errlen);
        if (ret < 0)
            return ret;
    }
    return seen;
}
