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
#include <stdio.h>

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
    int metric;               /* index for settle_metric_name, or a gap slot (>= SETTLE_NB_METRICS) */
    const char *gap_name;     /* a gap slot's mark name (from the results, not owned), else NULL */
    int compared;             /* the metric is present in results of both groups */
    int only_in;              /* when not compared: 1 baseline, 2 candidate, 0 neither */
    size_t not_counted[2];    /* results of the baseline, the candidate that do not count */
    SettleComparison cmp;     /* when compared; verdict SETTLE_VERDICT_TOO_FEW when a group
                               * has fewer than min_n counted values */
    int region;               /* a region slot: the load time of the --region area gap_name */
} SettleMetricComparison;

/* Compares each metric of candidate results b against baseline results a:
 * the metrics named in want (want[m] != 0, m < SETTLE_NB_METRICS), or when
 * want is NULL every metric present in either group; then every gap slot
 * present in either group (slots are present only once settle_results_set_gaps
 * assigned them). Only results that count (settle_result_counts) enter the
 * statistics. Fills out[0 .. *nout - 1] (room for SETTLE_NB_METRICS, or
 * SETTLE_NB_SLOTS with gap slots) in metric order, then the gap slots.
 * Returns 0, SETTLE_ERR_INVAL or SETTLE_ERR_NOMEM. */
SETTLE_API int settle_compare_results(const SettleResultInfo *a, size_t na,
                                      const SettleResultInfo *b, size_t nb, const int *want,
                                      const SettleCompareSettings *s,
                                      SettleMetricComparison *out, int *nout);

/* The distinct names of the app's marks in the results of both groups, in
 * order of first appearance, at most `max` (names past it are left out):
 * pointers into the results' mark_name. Returns how many. */
SETTLE_API int settle_results_gap_names(const SettleResultInfo *a, size_t na,
                                        const SettleResultInfo *b, size_t nb,
                                        const char **names, int max);

/* Makes gap slot k (k < n <= SETTLE_MAX_GAPS) of each of the n results of g
 * the gap of the mark names[k]: present when the result has a mark of that
 * name, its value that mark's gap (the first such mark). Slots from n on are
 * cleared. The names are not copied. Returns 0 or SETTLE_ERR_INVAL. */
SETTLE_API int settle_results_set_gaps(SettleResultInfo *g, size_t n, const char *const *names,
                                       int nnames);

/* The distinct names of the --region areas in the results of both groups
 * ("regions" in the JSON), in order of first appearance, at most `max`:
 * pointers into the results' region_name. Returns how many. */
SETTLE_API int settle_results_region_names(const SettleResultInfo *a, size_t na,
                                           const SettleResultInfo *b, size_t nb,
                                           const char **names, int max);

/* Makes slots first .. first + nnames - 1 (first + nnames <= SETTLE_MAX_GAPS,
 * after the gap slots settle_results_set_gaps made, which it must follow) of
 * each of the n results of g region slots: slot first + k is the load time
 * of the region names[k] ("region:NAME" in the reports), present when the
 * result has a region of that name, NaN (so not counted) when that region
 * was not stable. Compared like a metric: a verdict per region. The names
 * are not copied. Returns 0 or SETTLE_ERR_INVAL. */
SETTLE_API int settle_results_set_regions(SettleResultInfo *g, size_t n, const char *const *names,
                                          int nnames, int first);

/* A comparison's metric as the reports name it: settle_metric_name,
 * "gap:" and the mark's name for a gap slot, or "region:" and the area's
 * name for a region slot, into buf. Returns buf. */
SETTLE_API const char *settle_comparison_name(const SettleMetricComparison *m, char *buf,
                                              size_t len);

/* How many different "settings" the results of both groups were analysed
 * with (results without settings not counted). More than 1 means the
 * comparison mixes analyses. */
SETTLE_API int settle_results_settings_kinds(const SettleResultInfo *a, size_t na,
                                             const SettleResultInfo *b, size_t nb);

/* One group as the report shows it. */
typedef struct SettleReportGroup {
    const char *name;                 /* "baseline", "candidate" */
    const SettleResultInfo *results;
    size_t n;
    const char *const *sources;       /* where each result came from (a capture, file, file:line); NULL: the inputs */
} SettleReportGroup;

/* A comparison as settle_compare_results made it, for the writers. */
typedef struct SettleReport {
    SettleReportGroup group[2];       /* baseline, candidate */
    const SettleMetricComparison *m;
    int nm;
    const SettleCompareSettings *settings;
    const char *min_effect_text;      /* --min-effect as given ("0.1", "5%"), for the verdict rule */
    int settings_kinds;               /* settle_results_settings_kinds */
    int metrics_named;                /* the metrics were asked for by name (--metric): one that
                                       * is not in both groups leaves no verdict */
    const char *by_key, *by_value;    /* with --by: the label that made this group and its value
                                       * (each JSON line then has "labels": {KEY: VALUE}); NULL */
} SettleReport;

/* The labels of a group's results as one line into buf: "build=A,
 * device=pixel-7, page=home|search" (a key with several values lists them
 * with '|', in the order met). Returns the number of keys (0: no labels, buf
 * ""), or SETTLE_ERR_NOMEM. */
SETTLE_API int settle_report_labels(const SettleReportGroup *g, char *buf, size_t len);

/* Whether the comparison pools results of different tests: a label that names
 * the test (page, url, app, device, test, scenario) has more than one value
 * among the results of both groups. Returns 1 and says which into buf
 * ("page: home, search"), 0 when not, or SETTLE_ERR_NOMEM. */
SETTLE_API int settle_report_pooled(const SettleReport *r, char *buf, size_t len);

/* The verdict of n comparisons made per group (--by), as one line into buf:
 * "regression in 1 of 2 groups by page: page=home: load_time +0.350 s ...",
 * "too few to tell in ...", "no regression in 2 groups by page". Returns 1, 2
 * or 0 as settle_report_verdict, regression outranking too few. */
SETTLE_API int settle_report_verdict_by(const SettleReport *r, int n, char *buf, size_t len);

/* The verdict of the whole comparison, which every format opens with, as one
 * line into buf (len >= 64 holds the start of it):
 *   "regression: load_time +0.350 s (+40.0 %)"                   returns 1
 *   "too few to tell: load_time has 2 baseline and 2 candidate values, fewer
 *    than 3; with 2 and 2 values the smallest p-value is 0.3333 (alpha 0.05)"
 *                                                                  returns 2
 *   "no regression" (and the improvements, if any)                returns 0
 * Regression outranks too few: one metric's regression is a regression
 * whatever the others'. No metric compared at all is too few. The returns are
 * compare's exit codes. */
SETTLE_API int settle_report_verdict(const SettleReport *r, char *buf, size_t len);

/* Why result i of group g does not count for metric m, as one line into buf
 * ("not_stable: the picture still changes ...", "the same input as SOURCE,
 * counted once"), or NULL when it counts. */
SETTLE_API const char *settle_report_not_counted(const SettleReportGroup *g, size_t i, int m,
                                                 char *buf, size_t len);

/* The report as text for a terminal, as Markdown for a CI comment, or as
 * JSON Lines (one object per metric: "metric", "baseline" and "candidate"
 * with n, median, mean, sd, min, max, p90, results, labels (each key's value,
 * or the list of its values when the group's results differ) and not_counted,
 * "difference", "relative", "ci95", "ci_level", "u", "p_value", "p_exact",
 * "min_effect", "alpha", "verdict"; a metric not in both groups has
 * "verdict": "not compared" and "only_in"; with by_key, "labels": {KEY:
 * VALUE} after "metric"). The text and the Markdown open with the verdict of
 * settle_report_verdict and both groups' labels, and warn when
 * settle_report_pooled. Numbers use '.' whatever the
 * locale; NaN is null. Return 0, SETTLE_ERR_IO or SETTLE_ERR_NOMEM. */
SETTLE_API int settle_write_report_text(const SettleReport *r, FILE *f);
SETTLE_API int settle_write_report_markdown(const SettleReport *r, FILE *f);
SETTLE_API int settle_write_report_json(const SettleReport *r, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* SETTLE_COMPARE_H */
