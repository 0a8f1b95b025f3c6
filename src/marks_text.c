/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The pieces of text the marks formats share: Android durations, plain
 * decimals and logcat's time stamps, read strictly and without the locale.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "marks_internal.h"

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Up to 18 digits at s[*i]; -1 when there are none or too many. */
static int digits(const char *s, size_t len, size_t *i, int64_t *v, int *n)
{
    int64_t x = 0;
    int k = 0;
    while (*i < len && is_digit(s[*i])) {
        if (k == 18)
            return -1;
        x = x * 10 + (s[*i] - '0');
        (*i)++;
        k++;
    }
    if (!k)
        return -1;
    *v = x;
    if (n)
        *n = k;
    return 0;
}

int marks_duration(const char *s, size_t len, double *sec)
{
    static const struct { const char *unit; double sec; } units[] = {
        { "d", 86400 }, { "h", 3600 }, { "ms", 0.001 }, { "m", 60 }, { "s", 1 },
    };
    /* the order TimeUtils writes them in: d h m s ms */
    static const int rank[] = { 0, 1, 4, 2, 3 };
    size_t i = 0;
    int neg = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i + 1 == len && s[i] == '0') {
        *sec = 0;
        return 0;
    }
    double total = 0;
    int last = -1, parts = 0;
    while (i < len) {
        int64_t v;
        if (digits(s, len, &i, &v, NULL) < 0)
            return -1;
        int u = -1;
        for (int k = 0; k < 5 && u < 0; k++) {
            size_t ul = strlen(units[k].unit);
            if (i + ul <= len && !memcmp(s + i, units[k].unit, ul))
                u = k;
        }
        if (u < 0 || rank[u] <= last)
            return -1;
        last = rank[u];
        i += strlen(units[u].unit);
        total += (double)v * units[u].sec;
        parts++;
    }
    if (!parts)
        return -1;
    *sec = neg ? -total : total;
    return 0;
}

int marks_decimal(const char *s, size_t len, double *v)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    double x = 0;
    int nd = 0;
    while (i < len && is_digit(s[i])) {
        x = x * 10 + (s[i++] - '0');
        nd++;
    }
    if (i < len && s[i] == '.') {
        double f = 0.1;
        for (i++; i < len && is_digit(s[i]); i++, nd++, f /= 10)
            x += (s[i] - '0') * f;
    }
    if (!nd)
        return -1;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        int64_t e;
        int n;
        if (digits(s, len, &i, &e, &n) < 0 || e > 400)
            return -1;
        x *= pow(10, eneg ? -(double)e : (double)e);
    }
    if (i != len || !isfinite(x))
        return -1;
    *v = neg ? -x : x;
    return 0;
}

/* Exactly n digits at s[*i]. */
static int fixed(const char *s, size_t len, size_t *i, int n, int *v)
{
    int x = 0;
    for (int k = 0; k < n; k++, (*i)++) {
        if (*i >= len || !is_digit(s[*i]))
            return -1;
        x = x * 10 + (s[*i] - '0');
    }
    *v = x;
    return 0;
}

static int expect(const char *s, size_t len, size_t *i, char c)
{
    if (*i >= len || s[*i] != c)
        return -1;
    (*i)++;
    return 0;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* ".fff", ".ffffff" or ".fffffffff" */
static int fraction(const char *s, size_t len, size_t *i, double *f)
{
    if (expect(s, len, i, '.') < 0)
        return -1;
    int64_t v;
    int n;
    if (digits(s, len, i, &v, &n) < 0 || (n != 3 && n != 6 && n != 9))
        return -1;
    *f = (double)v / pow(10, n);
    return 0;
}

/* [YYYY-]MM-DD HH:MM:SS.fff */
static int dated(const char *s, size_t len, size_t *i, SettleMarkClock *c, double *v)
{
    int y = 1970, mo, d, h, mi, se;
    size_t j = *i;
    *c = SETTLE_MARK_CLOCK_WALL_NOYEAR;
    if (j + 4 < len && s[j + 4] == '-') {
        if (fixed(s, len, &j, 4, &y) < 0 || expect(s, len, &j, '-') < 0)
            return -1;
        *c = SETTLE_MARK_CLOCK_WALL;
    }
    double f;
    if (fixed(s, len, &j, 2, &mo) < 0 || expect(s, len, &j, '-') < 0 ||
        fixed(s, len, &j, 2, &d) < 0 || expect(s, len, &j, ' ') < 0 ||
        fixed(s, len, &j, 2, &h) < 0 || expect(s, len, &j, ':') < 0 ||
        fixed(s, len, &j, 2, &mi) < 0 || expect(s, len, &j, ':') < 0 ||
        fixed(s, len, &j, 2, &se) < 0 || fraction(s, len, &j, &f) < 0)
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return -1;
    *v = (double)days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se + f;
    *i = j;
    return 0;
}

/* " +HHMM" or " -HHMM" after a stamp (-v zone): the value becomes UTC. */
static void zone(const char *s, size_t len, size_t *i, SettleMarkClock *c, double *v)
{
    size_t j = *i;
    int hh, mm;
    if (j + 6 > len || s[j] != ' ' || (s[j + 1] != '+' && s[j + 1] != '-'))
        return;
    int neg = s[j + 1] == '-';
    j += 2;
    if (fixed(s, len, &j, 2, &hh) < 0 || fixed(s, len, &j, 2, &mm) < 0 || hh > 14 || mm > 59)
        return;
    if (j < len && s[j] != ' ')
        return;
    *v -= (neg ? -1 : 1) * (hh * 3600.0 + mm * 60.0);
    if (*c == SETTLE_MARK_CLOCK_WALL)
        *c = SETTLE_MARK_CLOCK_EPOCH;
    *i = j;
}

int marks_stamp(const char *s, size_t len, size_t *used, SettleMarkClock *clock, double *value)
{
    size_t i = 0;
    while (i < len && s[i] == ' ')
        i++;
    size_t k = i;
    while (k < len && is_digit(s[k]))
        k++;
    if (k == i)
        return -1;
    if (k < len && s[k] == '-') {
        if (dated(s, len, &i, clock, value) < 0)
            return -1;
        zone(s, len, &i, clock, value);
    } else {
        /* seconds: -v epoch (since 1970) or -v monotonic (since boot); an
         * uptime of 10^9 s would be 31 years */
        int64_t sec;
        double f;
        if (digits(s, len, &i, &sec, NULL) < 0 || fraction(s, len, &i, &f) < 0)
            return -1;
        *value = (double)sec + f;
        *clock = sec >= 1000000000 ? SETTLE_MARK_CLOCK_EPOCH : SETTLE_MARK_CLOCK_MONOTONIC;
    }
    if (i < len && s[i] != ' ')
        return -1;
    *used = i;
    return 0;
}
