/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The output of `adb shell am start -W`: "Starting: Intent {...}", then
 * "Key: value" lines of which ThisTime, TotalTime and WaitTime are
 * milliseconds from the launch, then "Complete".
 */
#include <math.h>
#include <string.h>

#include "marks_internal.h"

static const char *const keys[] = { "Starting", "Status", "LaunchState", "Activity",
                                    "ThisTime", "TotalTime", "WaitTime", "Warning", "Error",
                                    "Stopping", NULL };
static const char *const times[] = { "ThisTime", "TotalTime", "WaitTime", NULL };

/* "Key: value" with a word key: the key's length, or 0. */
static size_t key_of(const MarkLine *l)
{
    size_t i = 0;
    while (i < l->len && ((l->s[i] >= 'A' && l->s[i] <= 'Z') || (l->s[i] >= 'a' && l->s[i] <= 'z')))
        i++;
    if (!i || i >= l->len || l->s[i] != ':')
        return 0;
    return i;
}

static int in(const char *const *list, const char *s, size_t n)
{
    for (; *list; list++)
        if (strlen(*list) == n && !memcmp(*list, s, n))
            return 1;
    return 0;
}

static int blank(const MarkLine *l)
{
    for (size_t i = 0; i < l->len; i++)
        if (l->s[i] != ' ' && l->s[i] != '\t')
            return 0;
    return 1;
}

static int time_line(SettleMarks *m, const char *file, const MarkLine *l, size_t k, char *err,
                     size_t errlen)
{
    char where[512];
    marks_where(where, sizeof(where), file, l->number);
    const char *v = l->s + k + 1;
    size_t n = l->len - k - 1;
    while (n && *v == ' ')
        v++, n--;
    while (n && v[n - 1] == ' ')
        n--;
    double ms;
    /* digits only; the line is not NUL-terminated, so counted here */
    size_t digits = 0;
    while (digits < n && v[digits] >= '0' && v[digits] <= '9')
        digits++;
    int ok = n > 0 && n <= 12 && digits == n && marks_decimal(v, n, &ms) == 0 && ms >= 0;
    if (!ok)
        return marks_fail(err, errlen, "%s: %.*s: expected milliseconds, got '%.*s'", where,
                          (int)k, l->s, (int)(n > 40 ? 40 : n), v);
    return marks_push(m, l->s, k, where, SETTLE_MARK_CLOCK_LAUNCH, ms / 1000,
                      SETTLE_MARK_CLOCK_NONE, NAN);
}

int marks_parse_am(SettleMarks *m, const char *file, const char *data, size_t size,
                   char *err, size_t errlen)
{
    size_t pos = 0;
    MarkLine l = { 0 };
    int seen = 0;
    while (marks_next_line(data, size, &pos, &l)) {
        if (blank(&l))
            continue;
        size_t k = key_of(&l);
        if (!seen) {
            if (!k || !in(keys, l.s, k))
                return 0;
            seen = 1;
        }
        if (!k) {
            if (l.len >= 8 && !memcmp(l.s, "Complete", 8) && blank(&(MarkLine){ l.s + 8, l.len - 8, 0 }))
                continue;
            return marks_fail(err, errlen, "%s:%ld: not a line of am start -W output: '%.*s'",
                              file, l.number, (int)(l.len > 60 ? 60 : l.len), l.s);
        }
        if (in(times, l.s, k)) {
            int ret = time_line(m, file, &l, k, err, errlen);
            if (ret < 0)
                return ret;
        }
    }
    return seen;
}
