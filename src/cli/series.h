/* SPDX-License-Identifier: BSD-2-Clause */
/* Results grouped into series by labels (--by), ordered along one label
 * (--along), with each series' change points: what trend, the exports and
 * the dashboard share. */
#ifndef SETTLE_CLI_SERIES_H
#define SETTLE_CLI_SERIES_H

#include <stddef.h>

#include "settle/stats.h"
#include "settle/trend.h"

/* One result of a point. */
typedef struct Capture {
    double value;      /* the metric; NaN when the result does not count */
    const char *why;   /* static: why it does not count, NULL when it does */
    char *input;       /* "input" as the result has it */
    char *capture, *result, *csv, *report, *frames; /* absolute paths, or NULL */
    double mtime;      /* input_mtime in seconds since 1970, NaN when absent */
} Capture;

/* All results of one series with the same --along value (one night). */
typedef struct Point {
    char *along;       /* the label's value */
    double num;        /* as a number when the series set is numeric */
    Capture *c;
    size_t n, cap;
    double *x;         /* the values that count, nx of them */
    size_t nx;
    SettleSummary sum; /* of x; n = 0 and NaNs when none counts */
} Point;

typedef struct Series {
    char **values;     /* one per --by key; NULL when the result had no such label */
    char *region;      /* a --region area's own series (its name), NULL: the whole screen */
    Point *p;          /* ordered along */
    size_t np, cap;
    SettleChange *ch;  /* indexes into the points that have values (see idx) */
    size_t nch;
    size_t *idx;       /* point index of each value-holding point, in order */
    size_t nidx;
    int regression;    /* a change at the newest point that holds values, step > 0 */
} Series;

typedef struct SeriesSet {
    char **by;         /* --by keys */
    int nby;
    const char *along, *metric;
    int numeric;       /* every --along value is a number; else they are dates */
    Series *s;
    size_t n, cap;
    long no_along;     /* results without the --along label, left out */
    long duplicates;   /* a result given twice (same input, mtime and labels) */
} SeriesSet;

/* set->by, nby, along and metric are set by the caller (and not freed). */
/* Adds every result of item (results_each). With --metric load_time or
 * stable_time, a result's --region areas ("regions") each add their own
 * value of that field to a series of their own: the same labels and
 * Series.region, the area's name. Returns 0 or -1 with a message. */
int series_load(SeriesSet *set, const char *item, char *err, size_t errlen);

/* Orders the points, summarizes them and finds the changes of each series.
 * Returns 0, -1 with a message (an --along value neither number nor date),
 * or -2 when out of memory. */
int series_finish(SeriesSet *set, const SettleTrendSettings *ts, char *err, size_t errlen);

void series_free(SeriesSet *set);

/* The point's time for exports: its date at 00:00 UTC when the set is of
 * dates, else the newest input_mtime of its captures; NaN when none. */
double point_time(const SeriesSet *set, const Point *p);

/* "test=contacts device=pixel7" (sep " "), then "region=NAME" for a region's
 * series, into a new string, or NULL. */
char *series_name(const SeriesSet *set, const Series *s, const char *sep);

#endif
