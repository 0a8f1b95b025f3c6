/* SPDX-License-Identifier: BSD-2-Clause */
/* settle compare: the groups as read, and the comparison of each metric, for
 * the report writers. */
#ifndef SETTLE_CLI_COMPARE_H
#define SETTLE_CLI_COMPARE_H

#include <stdio.h>

#include "settle/settle.h"
#include "settle/stats.h"

/* One capture's result in a group. */
typedef struct Entry {
    SettleResultInfo info;
    char *source;    /* where it came from: a capture, a file, file:line */
    int duplicate;   /* index + 1 of an earlier entry with the same input, else 0 */
} Entry;

typedef struct Group {
    const char *name; /* "baseline", "candidate" */
    Entry *v;
    size_t n, cap;
} Group;

/* Why an entry is not among a metric's values, or NULL when it is. */
const char *entry_excluded(const Group *g, size_t i, int metric, char *buf, size_t len);

typedef struct MetricReport {
    int metric;      /* index for settle_metric_name */
    int compared;    /* present in both groups */
    const char *only_in; /* when not compared: the group that has it, or NULL */
    SettleComparison cmp;
} MetricReport;

typedef struct Report {
    Group *a, *b;
    MetricReport m[SETTLE_NB_METRICS];
    int nm;
    const SettleCompareSettings *cs;
    const char *min_effect_text; /* as given, "0.1" or "5%" */
    int mixed_settings;          /* kinds of analysis settings seen, when more than one */
} Report;

void report_text(FILE *f, const Report *r);
void report_markdown(FILE *f, const Report *r);
/* One JSON object per metric, one a line. Returns 0 or -1 (out of memory). */
int report_json(FILE *f, const Report *r);

#endif
