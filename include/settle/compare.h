/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * settle compare: two groups of results (a baseline A and a candidate B, as
 * read back with settle_result_info_parse or taken with
 * settle_result_info_get), which of them count, and the comparison of each
 * metric with settle_compare (settle/stats.h).
 */
#ifndef SETTLE_COMPARE_H
#define SETTLE_COMPARE_H

#include <stddef.h>

#include "settle/settle.h"
#include "settle/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether a result counts for a metric, and if not, why. */
typedef enum SettleCount {
    SETTLE_COUNTED = 0,
    SETTLE_NOT_COUNTED_DUPLICATE, /* an earlier result of the group has the same "input" */
    SETTLE_NOT_COUNTED_STATUS,    /* status is not "stable": not_stable, no_start, failed ... */
    SETTLE_NOT_COUNTED_PARTIAL,   /* stable, but the capture was not read to its end */
    SETTLE_NOT_COUNTED_NO_VALUE   /* stable, but this metric is null or absent */
} SettleCount;

/* Whether result i of the group g (n results) counts for metric m. For a
 * duplicate, *first (may be NULL) is set to the index of the earlier result
 * with the same input, which counts in its place. */
SETTLE_API SettleCount settle_result_counts(const SettleResultInfo *g, size_t n, size_t i, int m,
                                            size_t *first);

typedef struct SettleMetricComparison {
    int metric;               /* index for settle_metric_name */
    int compared;             /* the metric is present in results of both groups */
    int only_in;              /* when not compared: 1 baseline, 2 candidate, 0 neither */
    size_t not_counted[2];    /* results of the baseline, the candidate that do not count */
    SettleComparison cmp;     /* when compared; verdict SETTLE_VERDICT_TOO_FEW when a group
                               * has fewer than min_n counted values */
} SettleMetricComparison;

/* Compares each metric of candidate results b against baseline results a:
 * the metrics named in want (want[m] != 0), or when want is NULL every metric
 * present in either group. Only results that count (settle_result_counts)
 * enter the statistics. Fills out[0 .. *nout - 1] (room for SETTLE_NB_METRICS)
 * in metric order. Returns 0, SETTLE_ERR_INVAL or SETTLE_ERR_NOMEM. */
SETTLE_API int settle_compare_results(const SettleResultInfo *a, size_t na,
                                      const SettleResultInfo *b, size_t nb, const int *want,
                                      const SettleCompareSettings *s,
                                      SettleMetricComparison *out, int *nout);

/* How many different "settings" the results of both groups were analysed
 * with (results without settings not counted). More than 1 means the
 * comparison mixes analyses. */
SETTLE_API int settle_results_settings_kinds(const SettleResultInfo *a, size_t na,
                                             const SettleResultInfo *b, size_t nb);

#ifdef __cplusplus
}
#endif

#endif /* SETTLE_COMPARE_H */
