/* SPDX-License-Identifier: BSD-2-Clause */
/* Results read back: settle_result_info_parse / _get, labels, and when a
 * stored result is current (--skip-existing). Writes a small capture and its
 * result in the current directory and removes them. */
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

#include "settle/compare.h"
#include "settle/settle.h"
#include "capgen.h"
#include "scene.h"

#define CAPTURE "test_results-capture.mkv"
#define RESULT "test_results-result.json"

static void test_parse(void **state)
{
    (void)state;
    SettleResultInfo info;
    const char *line = "{\"input\":\"a/b.mp4\",\"load_time\":1.25,\"first_visual_change\":null,"
                       "\"last_visual_change\":1.2,\"status\":\"stable\",\"partial\":false,"
                       "\"error\":null,\"settings\":{\"tolerance\":\"5\"}}";
    assert_int_equal(settle_result_info_parse(line, strlen(line), &info), 0);
    assert_string_equal(info.input, "a/b.mp4");
    assert_string_equal(info.status, "stable");
    assert_null(info.error);
    assert_int_equal(info.partial, 0);
    assert_string_equal(info.settings, "{\"tolerance\":\"5\"}");
    assert_near(info.value[0], 1.25, 0);
    assert_true(info.present[1] && isnan(info.value[1]));
    assert_near(info.value[2], 1.2, 0);
    assert_true(!info.present[3] && isnan(info.value[3]));
    assert_string_equal(settle_metric_name(3), "speed_index");
    assert_null(settle_metric_name(SETTLE_NB_METRICS));
    settle_result_info_free(&info);

    /* only the first len bytes count: a JSON Lines file parses line by line */
    const char *two = "{\"input\":\"x\",\"load_time\":2,\"speed_index\":1234}\n{\"input\":\"y\"}";
    assert_int_equal(settle_result_info_parse(two, strchr(two, '\n') - two, &info), 0);
    assert_string_equal(info.input, "x");
    assert_near(info.value[3], 1234, 0);
    assert_true(info.present[3]);
    /* results from before "status": derived */
    assert_string_equal(info.status, "stable");
    settle_result_info_free(&info);
    const char *old = "{\"input\":\"x\",\"load_time\":null,\"error\":\"no video stream\"}";
    assert_int_equal(settle_result_info_parse(old, strlen(old), &info), 0);
    assert_string_equal(info.status, "failed");
    assert_string_equal(info.error, "no video stream");
    settle_result_info_free(&info);

    const char *bad[] = { "", "not json", "[1,2]", "{\"load_time\":1}", "{\"input\":3}" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        assert_int_equal(settle_result_info_parse(bad[i], strlen(bad[i]), &info), SETTLE_ERR_FORMAT);
        settle_result_info_free(&info);
    }
    assert_string_equal(settle_status_name(0), "stable");
    assert_string_equal(settle_status_name(SETTLE_ERR_NOT_STABLE), "not_stable");
    assert_string_equal(settle_status_name(SETTLE_ERR_DECODE), "partial");
    assert_string_equal(settle_status_name(SETTLE_ERR_NO_VIDEO), "failed");
}

static int write_capture(void)
{
    SceneSpec s;
    scene_init(&s, 320, 240);
    s.tap = 3;
    s.splash = 6;
    s.chrome = 10;
    s.content = 15;
    CapgenSpec c = {
        .path = CAPTURE, .encoder = "ffv1", .width = 320, .height = 240, .nb_frames = 30,
        .fps = 30, .draw = scene_draw, .opaque = &s,
    };
    return capgen_write(&c);
}

static void write_result(SettleContext *c)
{
    FILE *f = fopen(RESULT, "w");
    assert_non_null(f);
    assert_int_equal(settle_write_json(c, f), 0);
    assert_int_equal(fclose(f), 0);
}

static void test_current(void **state)
{
    (void)state;
    assert_int_equal(write_capture(), 0);
    SettleContext *c = NULL;
    assert_int_equal(settle_open(&c, NULL), 0);
    assert_int_equal(settle_add_label(c, "build", "A"), 0);
    assert_int_equal(settle_add_label(c, "device", "d1"), 0);
    assert_int_equal(settle_add_label(c, "build", "B"), 0); /* replaces */
    assert_int_equal(settle_add_label(c, "", "x"), SETTLE_ERR_INVAL);
    const SettleResult *r;
    assert_int_equal(settle_analyze_file(c, CAPTURE, &r), 0);
    assert_near(r->load_time, 0.5, 1e-9);
    write_result(c);

    /* the written JSON says what settle_result_info_get says */
    FILE *f = fopen(RESULT, "r");
    char line[8192];
    assert_non_null(fgets(line, sizeof(line), f));
    fclose(f);
    assert_non_null(strstr(line, "\"labels\":{\"build\":\"B\",\"device\":\"d1\"}"));
    assert_non_null(strstr(line, "\"status\":\"stable\""));
    assert_null(strstr(line, "\"threads\""));
    SettleResultInfo a, b;
    assert_int_equal(settle_result_info_parse(line, strlen(line), &a), 0);
    assert_int_equal(settle_result_info_get(c, &b), 0);
    assert_string_equal(a.input, b.input);
    assert_string_equal(a.status, b.status);
    assert_string_equal(a.settings, b.settings);
    for (int i = 0; i < 3; i++)
        assert_true(a.value[i] == b.value[i]);
    settle_result_info_free(&a);
    settle_result_info_free(&b);

    assert_int_equal(settle_result_is_current(c, CAPTURE, RESULT), 1);
    /* another name for the input, a missing result */
    assert_int_equal(settle_result_is_current(c, "./" CAPTURE, RESULT), 0);
    assert_int_equal(settle_result_is_current(c, CAPTURE, "no-such-result.json"), 0);
    /* other labels */
    assert_int_equal(settle_add_label(c, "run", "2"), 0);
    assert_int_equal(settle_result_is_current(c, CAPTURE, RESULT), 0);
    settle_close(&c);
    /* other settings; decoder threads do not matter */
    SettleSettings s;
    settle_default_settings(&s);
    s.tolerance = 6;
    assert_int_equal(settle_open(&c, &s), 0);
    assert_int_equal(settle_add_label(c, "build", "B"), 0);
    assert_int_equal(settle_add_label(c, "device", "d1"), 0);
    assert_int_equal(settle_result_is_current(c, CAPTURE, RESULT), 0);
    settle_close(&c);
    s.tolerance = 5;
    s.threads = 3;
    assert_int_equal(settle_open(&c, &s), 0);
    assert_int_equal(settle_add_label(c, "build", "B"), 0);
    assert_int_equal(settle_add_label(c, "device", "d1"), 0);
    assert_int_equal(settle_result_is_current(c, CAPTURE, RESULT), 1);
    /* the input changed: a new modification time */
    struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
    assert_int_equal(utimensat(AT_FDCWD, CAPTURE, ts, 0), 0);
    assert_int_equal(settle_result_is_current(c, CAPTURE, RESULT), 0);
    /* analysed again, current again */
    assert_int_equal(settle_analyze_file(c, CAPTURE, &r), 0);
    write_result(c);
    assert_int_equal(settle_result_is_current(c, CAPTURE, RESULT), 1);
    /* a result that is not one */
    f = fopen(RESULT, "w");
    fputs("{\"input\":", f);
    fclose(f);
    assert_int_equal(settle_result_is_current(c, CAPTURE, RESULT), 0);
    settle_close(&c);
    unlink(CAPTURE);
    unlink(RESULT);
}

/* A result as settle_result_info_parse would give it. */
static void fake(SettleResultInfo *r, const char *input, const char *status, double load,
                 const char *settings)
{
    memset(r, 0, sizeof(*r));
    r->input = (char *)input;
    r->status = (char *)status;
    r->settings = (char *)settings;
    for (int m = 0; m < SETTLE_NB_METRICS; m++)
        r->value[m] = NAN;
    r->present[0] = r->present[1] = r->present[2] = 1;
    r->value[0] = r->value[2] = load;
}

static void test_counting(void **state)
{
    (void)state;
    SettleResultInfo a[6], b[4];
    fake(&a[0], "a1", "stable", 1.0, "{}");
    fake(&a[1], "a2", "stable", 1.1, "{}");
    fake(&a[2], "a1", "stable", 1.0, "{}");            /* the same capture again */
    fake(&a[3], "a3", "not_stable", NAN, "{}");
    fake(&a[4], "a4", "partial", 0.9, "{}");
    fake(&a[5], "a5", "stable", 1.2, "{}");
    a[5].partial = 1;                                   /* stable but cut short */
    size_t first = 99;
    assert_int_equal(settle_result_counts(a, 6, 0, 0, &first), SETTLE_COUNTED);
    assert_int_equal(settle_result_counts(a, 6, 2, 0, &first), SETTLE_NOT_COUNTED_DUPLICATE);
    assert_int_equal(first, 0);
    assert_int_equal(settle_result_counts(a, 6, 3, 0, NULL), SETTLE_NOT_COUNTED_STATUS);
    assert_int_equal(settle_result_counts(a, 6, 4, 0, NULL), SETTLE_NOT_COUNTED_STATUS);
    assert_int_equal(settle_result_counts(a, 6, 5, 0, NULL), SETTLE_NOT_COUNTED_PARTIAL);
    /* first_visual_change is present but null */
    assert_int_equal(settle_result_counts(a, 6, 0, 1, NULL), SETTLE_NOT_COUNTED_NO_VALUE);

    fake(&b[0], "b1", "stable", 1.3, "{}");
    fake(&b[1], "b2", "stable", 1.4, "{}");
    fake(&b[2], "b3", "stable", 1.5, "{\"tolerance\":\"6\"}");
    fake(&b[3], "b4", "failed", NAN, "");
    b[0].present[3] = 1;                                /* speed_index in one result of b */
    b[0].value[3] = 1000;
    assert_int_equal(settle_results_settings_kinds(a, 6, b, 4), 2);
    assert_int_equal(settle_results_settings_kinds(a, 6, b, 2), 1);

    SettleCompareSettings cs;
    settle_compare_default_settings(&cs);
    cs.min_n = 2;
    SettleMetricComparison out[SETTLE_NB_METRICS];
    int n = -1;
    assert_int_equal(settle_compare_results(a, 6, b, 4, NULL, &cs, out, &n), 0);
    assert_int_equal(n, 4);
    /* load_time: a counts a1 and a2 only, b counts three */
    assert_int_equal(out[0].metric, 0);
    assert_true(out[0].compared);
    assert_int_equal(out[0].cmp.baseline.n, 2);
    assert_int_equal(out[0].cmp.candidate.n, 3);
    assert_int_equal(out[0].not_counted[0], 4);
    assert_int_equal(out[0].not_counted[1], 1);
    assert_near(out[0].cmp.baseline.median, 1.05, 1e-12);
    assert_near(out[0].cmp.difference, 0.35, 1e-12);
    /* first_visual_change: present everywhere, never a value */
    assert_int_equal(out[1].cmp.verdict, SETTLE_VERDICT_TOO_FEW);
    assert_int_equal(out[1].cmp.baseline.n, 0);
    /* speed_index: only in the candidate */
    assert_int_equal(out[3].metric, 3);
    assert_false(out[3].compared);
    assert_int_equal(out[3].only_in, 2);
    /* asked for by name */
    int want[SETTLE_NB_METRICS] = { 0, 0, 1, 0 };
    assert_int_equal(settle_compare_results(a, 6, b, 4, want, &cs, out, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(out[0].metric, 2);
    assert_int_equal(settle_compare_results(a, 6, b, 4, NULL, NULL, out, &n), SETTLE_ERR_INVAL);

    /* the report: every result that does not count is named with its reason */
    assert_int_equal(settle_compare_results(a, 6, b, 4, NULL, &cs, out, &n), 0);
    const char *src_a[6] = { "A/1.json", "A/2.json", "A/1-again.json", "A/3.json", "A/4.json", "A/5.json" };
    SettleReport rep = {
        .group = { { "baseline", a, 6, src_a }, { "candidate", b, 4, NULL } },
        .m = out, .nm = n, .settings = &cs, .min_effect_text = "0",
        .settings_kinds = settle_results_settings_kinds(a, 6, b, 4),
    };
    char buf[256];
    assert_string_equal(settle_report_not_counted(&rep.group[0], 2, 0, buf, sizeof(buf)),
                        "the same input as A/1.json, counted once");
    assert_null(settle_report_not_counted(&rep.group[0], 1, 0, buf, sizeof(buf)));
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    assert_int_equal(settle_write_report_json(&rep, m), 0);
    fclose(m);
    /* one line per metric */
    int lines = 0;
    for (char *p = text; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 4);
    assert_non_null(strstr(text, "{\"metric\":\"load_time\",\"baseline\":{\"n\":2,\"median\":1.05,"));
    assert_non_null(strstr(text, "{\"source\":\"A/5.json\",\"input\":\"a5\",\"status\":\"stable\",\"reason\":\"partial\"}"));
    assert_non_null(strstr(text, "{\"source\":\"b4\",\"input\":\"b4\",\"status\":\"failed\",\"reason\":\"failed\"}"));
    assert_non_null(strstr(text, "\"difference\":0.35,"));
    assert_non_null(strstr(text, "{\"metric\":\"speed_index\",\"verdict\":\"not compared\",\"only_in\":\"candidate\"}"));
    free(text);
    m = open_memstream(&text, &len);
    assert_int_equal(settle_write_report_markdown(&rep, m), 0);
    fclose(m);
    assert_non_null(strstr(text, "| load_time | 1.050 s (2) | 1.400 s (3) | +0.350 s (+33.3 %) |"));
    assert_non_null(strstr(text, "**Warning:** the results were analysed with 2 different settings."));
    free(text);
    m = open_memstream(&text, &len);
    assert_int_equal(settle_write_report_text(&rep, m), 0);
    fclose(m);
    assert_non_null(strstr(text, "baseline   6 results: 4 stable, 1 not_stable, 1 partial, 1 duplicate\n"));
    assert_non_null(strstr(text, "  baseline   A/3.json: not_stable\n"));
    /* every format opens with the one verdict */
    char v[1024], line[1100];
    int code = settle_report_verdict(&rep, v, sizeof(v));
    snprintf(line, sizeof(line), "verdict: %s\n", v);
    assert_memory_equal(text, line, strlen(line));
    free(text);
    m = open_memstream(&text, &len);
    assert_int_equal(settle_write_report_markdown(&rep, m), 0);
    fclose(m);
    snprintf(line, sizeof(line), "### settle compare: %s\n", v);
    assert_memory_equal(text, line, strlen(line));
    free(text);
    assert_int_equal(code, 2);
    assert_string_equal(v, "too few to tell: first_visual_change has 0 baseline and 0 candidate "
                           "values, fewer than 2; no test is possible without values in both groups");
    /* the smallest p-value the group sizes allow: 2 / C(na + nb, na) */
    SettleMetricComparison few = out[0];
    few.cmp.verdict = SETTLE_VERDICT_TOO_FEW;
    few.cmp.baseline.n = 3;
    few.cmp.candidate.n = 3;
    rep.m = &few;
    rep.nm = 1;
    assert_int_equal(settle_report_verdict(&rep, v, sizeof(v)), 2);
    assert_non_null(strstr(v, "with 3 and 3 values the smallest p-value is 0.1000 (alpha 0.05)"));
    few.cmp.verdict = SETTLE_VERDICT_REGRESSION;
    assert_int_equal(settle_report_verdict(&rep, v, sizeof(v)), 1);
    assert_string_equal(v, "regression: load_time +0.350 s (+33.3 %)");
}

/* The gaps of the app's marks read back from results and compared like a
 * metric: each mark name a slot, present only where the result has it. */
static void test_gaps(void **state)
{
    (void)state;
    static const char *const base =
        "{\"input\":\"%s\",\"status\":\"stable\",\"partial\":false,\"load_time\":2,"
        "\"first_visual_change\":0.3,\"last_visual_change\":2,\"marks\":["
        "{\"name\":\"Displayed a/.M\",\"time\":1.5,\"gap\":%s,\"frame\":45},"
        "{\"name\":\"%s\",\"time\":null,\"gap\":null,\"frame\":null}]}";
    const char *gaps_a[3] = { "0.99", "0.98", "0.97" }, *gaps_b[3] = { "1.29", "1.28", "1.27" };
    SettleResultInfo a[3], b[3];
    for (int i = 0; i < 3; i++) {
        char json[512], in[16];
        snprintf(in, sizeof(in), "a%d", i);
        snprintf(json, sizeof(json), base, in, gaps_a[i], "unplaced");
        assert_int_equal(settle_result_info_parse(json, strlen(json), &a[i]), 0);
        snprintf(in, sizeof(in), "b%d", i);
        snprintf(json, sizeof(json), base, in, gaps_b[i], i ? "unplaced" : "only in b");
        assert_int_equal(settle_result_info_parse(json, strlen(json), &b[i]), 0);
    }
    assert_int_equal(a[0].nmarks, 2);
    assert_string_equal(a[0].mark_name[0], "Displayed a/.M");
    assert_near(a[0].mark_gap[0], 0.99, 0);
    assert_true(isnan(a[0].mark_gap[1]));
    /* no slot is present until the gaps are assigned */
    assert_false(a[0].present[SETTLE_NB_METRICS]);

    const char *names[SETTLE_MAX_GAPS];
    int n = settle_results_gap_names(a, 3, b, 3, names, SETTLE_MAX_GAPS);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "Displayed a/.M");
    assert_string_equal(names[1], "unplaced");
    assert_string_equal(names[2], "only in b");
    assert_int_equal(settle_results_gap_names(a, 3, b, 3, names, 1), 1);
    n = settle_results_gap_names(a, 3, b, 3, names, SETTLE_MAX_GAPS);
    assert_int_equal(settle_results_set_gaps(a, 3, names, n), 0);
    assert_int_equal(settle_results_set_gaps(b, 3, names, n), 0);
    assert_int_equal(settle_results_set_gaps(a, 3, names, SETTLE_MAX_GAPS + 1), SETTLE_ERR_INVAL);
    assert_true(a[1].present[SETTLE_NB_METRICS] && a[1].value[SETTLE_NB_METRICS] == 0.98);
    assert_true(a[1].present[SETTLE_NB_METRICS + 1] && isnan(a[1].value[SETTLE_NB_METRICS + 1]));
    assert_false(a[1].present[SETTLE_NB_METRICS + 2]);
    assert_int_equal(settle_result_counts(a, 3, 0, SETTLE_NB_METRICS + 1, NULL),
                     SETTLE_NOT_COUNTED_NO_VALUE);

    SettleCompareSettings cs;
    settle_compare_default_settings(&cs);
    SettleMetricComparison out[SETTLE_NB_SLOTS];
    int want[SETTLE_NB_METRICS] = { 1, 0, 0, 0 };
    assert_int_equal(settle_compare_results(a, 3, b, 3, want, &cs, out, &n), 0);
    assert_int_equal(n, 4); /* load_time, then the three gap slots */
    assert_int_equal(out[0].metric, 0);
    assert_null(out[0].gap_name);
    assert_int_equal(out[1].metric, SETTLE_NB_METRICS);
    assert_string_equal(out[1].gap_name, "Displayed a/.M");
    assert_true(out[1].compared);
    assert_int_equal(out[1].cmp.baseline.n, 3);
    assert_near(out[1].cmp.baseline.median, 0.98, 1e-12);
    assert_near(out[1].cmp.difference, 0.3, 1e-9);
    assert_true(out[2].compared); /* present, null everywhere */
    assert_int_equal(out[2].cmp.verdict, SETTLE_VERDICT_TOO_FEW);
    assert_false(out[3].compared);
    assert_int_equal(out[3].only_in, 2);
    char buf[64];
    assert_string_equal(settle_comparison_name(&out[0], buf, sizeof(buf)), "load_time");
    assert_string_equal(settle_comparison_name(&out[1], buf, sizeof(buf)), "gap:Displayed a/.M");
    for (int i = 0; i < 3; i++) {
        settle_result_info_free(&a[i]);
        settle_result_info_free(&b[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_current),
        cmocka_unit_test(test_counting),
        cmocka_unit_test(test_gaps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
