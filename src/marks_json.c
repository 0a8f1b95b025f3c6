/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Jetpack Macrobenchmark's *-benchmarkData.json: for each of "benchmarks",
 * "metrics" timeToInitialDisplayMs and timeToFullDisplayMs, each with the
 * milliseconds from the launch of every iteration in "runs".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "marks_internal.h"

static const char *const metrics[] = { "timeToInitialDisplayMs", "timeToFullDisplayMs" };

static int series(SettleMarks *m, const char *file, int b, const char *metric,
                  const cJSON *runs, char *err, size_t errlen)
{
    int n = cJSON_GetArraySize(runs);
    char where[640];
    snprintf(where, sizeof(where), "%s:benchmarks[%d].metrics.%s.runs", file, b, metric);
    if (!cJSON_IsArray(runs) || n < 1)
        return marks_fail(err, errlen, "%s: expected an array of milliseconds", where);
    if (m->run >= n)
        return marks_fail(err, errlen, "%s: %d iterations, no iteration %d (--mark-run)",
                          where, n, m->run);
    for (int i = 0; i < n; i++) {
        const cJSON *v = cJSON_GetArrayItem(runs, i);
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
            return marks_fail(err, errlen, "%s[%d]: expected milliseconds", where, i);
        if (m->run >= 0 && i != m->run)
            continue;
        char src[704];
        snprintf(src, sizeof(src), "%s[%d]", where, i);
        int ret = marks_push(m, metric, strlen(metric), src, SETTLE_MARK_CLOCK_LAUNCH,
                             v->valuedouble / 1000, SETTLE_MARK_CLOCK_NONE, NAN);
        if (ret < 0)
            return ret;
        m->v[m->n - 1].run = i;
        m->v[m->n - 1].runs = n;
    }
    return 0;
}

static int benchmarks(SettleMarks *m, const char *file, const cJSON *list, char *err,
                      size_t errlen)
{
    int nb = cJSON_GetArraySize(list);
    for (int b = 0; b < nb; b++) {
        const cJSON *bench = cJSON_GetArrayItem(list, b);
        const cJSON *mx = cJSON_GetObjectItemCaseSensitive(bench, "metrics");
        if (!cJSON_IsObject(bench) || (mx && !cJSON_IsObject(mx)))
            return marks_fail(err, errlen, "%s:benchmarks[%d]: expected an object with "
                              "\"metrics\"", file, b);
        for (int k = 0; mx && k < 2; k++) {
            const cJSON *metric = cJSON_GetObjectItemCaseSensitive(mx, metrics[k]);
            if (!metric)
                continue;
            const cJSON *runs = cJSON_GetObjectItemCaseSensitive(metric, "runs");
            int ret = series(m, file, b, metrics[k], runs, err, errlen);
            if (ret < 0)
                return ret;
        }
    }
    return 0;
}

int marks_parse_json(SettleMarks *m, const char *file, const char *data, size_t size,
                     char *err, size_t errlen)
{
    size_t i = 0;
    while (i < size && data[i] && strchr(" \t\r\n", data[i]))
        i++;
    if (i == size || data[i] != '{')
        return 0;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(data, size, &end, 0);
    if (!root) {
        size_t at = end && end >= data && end <= data + size ? (size_t)(end - data) : 0;
        return marks_fail(err, errlen, "%s: not valid JSON (truncated?) at byte %zu", file, at);
    }
    int ret;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
    if (!cJSON_IsArray(list))
        ret = marks_fail(err, errlen, "%s: JSON, but not Macrobenchmark output: no "
                         "\"benchmarks\" array", file);
    else
        ret = benchmarks(m, file, list, err, errlen);
    cJSON_Delete(root);
    return ret < 0 ? ret : 1;
}
