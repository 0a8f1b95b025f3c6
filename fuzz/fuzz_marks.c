/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the bytes are a file of marks (logcat, am start -W,
 * Macrobenchmark JSON, CSV or other text), read with two user expressions,
 * then placed under each rule and given gaps. The first byte chooses the
 * Macrobenchmark iteration. Built and run by scripts/fuzz; tests/meson.build
 * also replays the samples of tests/marks/ through it as a plain test.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settle/marks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const SettleMarks *m, int placed)
{
    int n = 0;
    for (int i = 0; i < settle_marks_count(m); i++) {
        const SettleMark *k = settle_marks_get(m, i);
        if (!k || !k->name || !k->source || !k->name[0])
            __builtin_trap();
        /* placed or says why, never both */
        if (isfinite(k->time) == (k->reason != NULL))
            __builtin_trap();
        n += isfinite(k->time);
    }
    if (n != placed)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    SettleMarks *m = NULL;
    char err[256];
    if (settle_marks_new(&m) < 0)
        return 0;
    int run = size ? (int)(data[0] % 5) - 1 : -1;
    settle_marks_set_run(m, run);
    if (settle_marks_add_regex(m, "marker=gb_marker_([a-z]+)", err, sizeof(err)) < 0 ||
        settle_marks_add_regex(m, "loaded=loaded in ([^ ]*)", err, sizeof(err)) < 0)
        __builtin_trap();
    err[0] = 0;
    int ret = settle_marks_parse(m, "fuzz", (const char *)data, size, err, sizeof(err));
    if (ret < 0 && (!err[0] || settle_marks_count(m)))
        __builtin_trap();
    SettleMarkClocks k;
    settle_default_mark_clocks(&k);
    check(m, settle_marks_place(m, &k));
    k.launch_time = 0.5;
    k.zero_clock = SETTLE_MARK_CLOCK_WALL_NOYEAR;
    k.zero = 1000;
    check(m, settle_marks_place(m, &k));
    k.anchor = "marker";
    check(m, settle_marks_place(m, &k));
    double dev[] = { 1, 2, 3 }, cap[] = { 0, 0.5, 1 };
    SettleDeviceTimes d = { 2, SETTLE_MARK_CLOCK_BOOT, 1e9, 3, dev, cap };
    k.device = &d;
    check(m, settle_marks_place(m, &k));
    settle_marks_set_gaps(m, 1.25);
    /* the marks CSV: as many rows as marks, whatever the names hold */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        int wr = settle_marks_write_csv(m, f);
        if (fclose(f) || wr < 0 || !buf)
            __builtin_trap();
        free(buf);
    }
    settle_marks_free(&m);
    return 0;
}
