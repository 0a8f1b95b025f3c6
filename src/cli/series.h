/* SPDX-License-Identifier: BSD-2-Clause */
/* Results grouped into series by labels (--by), ordered along one label
 * (--along), with each series' change points: what trend, the exports and
 * the dashboard share. */
#ifndef SETTLE_CLI_SERIES_H
#define SETTLE_CLI_SERIES_H

#include <stddef.h>

#include <getopt.h>

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
    char **by;         /* --by keys (series_set_by), pointers into by_text */
    char *by_text;
    int nby;
    const char *along, *metric;
    int numeric;       /* every --along value is a number; else they are dates */
    Series *s;
    size_t n, cap;
    long no_along;     /* results without the --along label, left out */
    long duplicates;   /* a result given twice (same input, mtime and labels) */
} SeriesSet;

/* The options trend and dashboard share, as entries of a getopt_long table
 * (SERIES_LONGOPTS; trend also takes SERIES_OPT_PERMUTATIONS's entry):
 * --along KEY, --metric NAME, --alpha P (1e-9 to 0.5), --min-effect X (0 or
 * more), --permutations N (99 to 1000000). */
enum { SERIES_OPT_ALONG = 900, SERIES_OPT_METRIC, SERIES_OPT_ALPHA, SERIES_OPT_MIN_EFFECT,
       SERIES_OPT_PERMUTATIONS };
#define SERIES_LONGOPTS                                                     \
    { "along", required_argument, NULL, SERIES_OPT_ALONG },                \
    { "metric", required_argument, NULL, SERIES_OPT_METRIC },              \
    { "alpha", required_argument, NULL, SERIES_OPT_ALPHA },                \
    { "min-effect", required_argument, NULL, SERIES_OPT_MIN_EFFECT }
#define SERIES_LONGOPT_PERMUTATIONS { "permutations", required_argument, NULL, SERIES_OPT_PERMUTATIONS }

/* Takes getopt_long's answer c when it is one of the series options: its
 * value into set (along, metric; kept as pointers) or ts. Returns 1 when
 * taken, 0 when c is not a series option, EXIT_USAGE for a bad value (said
 * on stderr). */
int series_option(int c, const char *arg, SeriesSet *set, SettleTrendSettings *ts);

/* set->by from comma-separated label keys (copied; series_free frees them).
 * Returns 0, or -1 when out of memory. */
int series_set_by(SeriesSet *set, const char *keys);

/* series_load of each of the n items, then series_finish; notes on stderr
 * (unless quiet) the results left out for want of the --along label and
 * those given twice. Returns 0 or an exit code (said): EXIT_INPUT,
 * EXIT_INTERNAL. */
int series_read(SeriesSet *set, char *const *items, int n, const SettleTrendSettings *ts,
                int quiet);

/* set->along and metric are set by the caller (and not freed). */
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
