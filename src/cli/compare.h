/* SPDX-License-Identifier: BSD-2-Clause */
/* settle compare: the groups as read, and the comparison of each metric, for
 * the report writers. */
#ifndef SETTLE_CLI_COMPARE_H
#define SETTLE_CLI_COMPARE_H

#include <stdio.h>

#include "settle/settle.h"
#include "settle/compare.h"
#include "settle/stats.h"

/* The results of one group, in the order read, and where each came from. */
typedef struct Group {
    const char *name;       /* "baseline", "candidate" */
    SettleResultInfo *info;
    char **source;          /* a capture, a file, or file:line */
    size_t n, cap;
} Group;

/* Why result i does not count for the metric (a sentence into buf), or NULL
 * when it counts. */
const char *entry_excluded(const Group *g, size_t i, int metric, char *buf, size_t len);

typedef struct Report {
    Group *a, *b;
    SettleMetricComparison m[SETTLE_NB_METRICS];
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
