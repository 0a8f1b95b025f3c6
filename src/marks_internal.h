/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the marks files share: the set of marks (marks_set.c), the parsers of
 * each format (marks_logcat.c, marks_am.c, marks_json.c, marks_csv.c) that
 * marks.c calls, and the readers of the pieces they have in common
 * (marks_text.c: durations, decimals, logcat time stamps).
 */
#ifndef SETTLE_MARKS_INTERNAL_H
#define SETTLE_MARKS_INTERNAL_H

#include <regex.h>
#include <stddef.h>

#include "settle/marks.h"

typedef struct MarkRegex {
    char *name;
    regex_t re;
    int groups; /* parenthesised groups in the expression */
} MarkRegex;

struct SettleMarks {
    SettleMark *v;
    int n, cap;
    int run;            /* settle_marks_set_run */
    MarkRegex *rx;
    int nrx;
};

/* One line of a buffer: [s, s + len), without its "\n" or "\r\n". */
typedef struct MarkLine {
    const char *s;
    size_t len;
    long number;        /* from 1 */
} MarkLine;

/* Steps to the next line from *pos; 0 at the end of the data. */
int marks_next_line(const char *data, size_t size, size_t *pos, MarkLine *l);

/* Appends a mark; `source` is copied. Returns 0 or SETTLE_ERR_NOMEM. */
int marks_push(SettleMarks *m, const char *name, size_t namelen, const char *source,
               SettleMarkClock clock, double value, SettleMarkClock stamp_clock, double stamp);

/* Frees marks n.. and keeps the first n. */
void marks_truncate(SettleMarks *m, int n);

/* "file:line" into buf. */
void marks_where(char *buf, size_t len, const char *file, long line);

/* Writes a message into err (when given). Always returns SETTLE_ERR_INVAL. */
int marks_fail(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* An Android duration as TimeUtils.formatDuration writes it: "+797ms",
 * "+1s234ms", "+2m24s378ms", "+1h0m0s5ms", "0"; the sign is optional.
 * Exactly the len bytes. 0 and seconds in *sec, or -1. */
int marks_duration(const char *s, size_t len, double *sec);

/* A plain decimal number "12", "-0.25", "1.5e3" in exactly len bytes,
 * whatever the locale. 0 or -1. */
int marks_decimal(const char *s, size_t len, double *v);

/* A logcat time stamp at the start of s (leading spaces allowed): sets its
 * clock and value and the bytes used. 0 or -1 when there is none. */
int marks_stamp(const char *s, size_t len, size_t *used, SettleMarkClock *clock, double *value);

/* Tries the user's expressions on a line; appends a mark for each match.
 * 0, SETTLE_ERR_INVAL (a group that is not a duration) or SETTLE_ERR_NOMEM. */
int marks_apply_regex(SettleMarks *m, const char *file, const MarkLine *l,
                      SettleMarkClock stamp_clock, double stamp, char *err, size_t errlen);

/* The format parsers: 1 when the content is theirs (marks appended),
 * 0 when it is not (nothing appended, err untouched), or a negative error
 * with err set (the caller drops what was appended). */
int marks_parse_logcat(SettleMarks *m, const char *file, const char *data, size_t size,
                       char *err, size_t errlen);
int marks_parse_am(SettleMarks *m, const char *file, const char *data, size_t size,
                   char *err, size_t errlen);
int marks_parse_json(SettleMarks *m, const char *file, const char *data, size_t size,
                     char *err, size_t errlen);
int marks_parse_csv(SettleMarks *m, const char *file, const char *data, size_t size,
                    char *err, size_t errlen);

#endif
