/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Marks end to end: a start-up capture made here, a logcat, an am start -W
 * output, a Macrobenchmark JSON and a CSV written for it in which the marks
 * fall at known frames; each mark must land on its frame with the right gap.
 * And screenrecord's per-frame device times (Winscope metadata) read back
 * from captures written here, since no real sample can be recorded here.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "settle/marks.h"
#include "settle/pictures.h"
#include "settle/settle.h"
#include "capgen.h"
#include "e2e_common.h"
#include "scene.h"

#define FPS 30
#define W 320
#define H 240
#define TAP 10       /* the launch: the first change, found in the video */
#define DRAWN 30     /* the chrome: where "Displayed" falls */
#define CONTENT 48   /* the content: the stable frame, where "Fully drawn" falls */
#define FRAMES 90

static void make_startup(const char *path, int nb_frames)
{
    SceneSpec s;
    scene_init(&s, W, H);
    s.tap = TAP;
    s.splash = 14;
    s.chrome = DRAWN;
    s.content = CONTENT;
    CapgenSpec c = {
        .path = track(path), .encoder = "libx264", .width = W, .height = H,
        .nb_frames = nb_frames, .fps = FPS, .quality = 10, .draw = scene_draw, .opaque = &s,
    };
    assert_int_equal(capgen_write(&c), 0);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(track(path), "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

typedef struct Times {
    double t[FRAMES];
    int n;
} Times;

static int collect(void *opaque, const SettleFrame *f)
{
    Times *t = opaque;
    if (t->n < FRAMES)
        t->t[t->n++] = f->time;
    return 0;
}

/* The frame on screen at capture time t. */
static int frame_at(const Times *t, double time)
{
    int i = -1;
    while (i + 1 < t->n && t->t[i + 1] <= time + 1e-9)
        i++;
    return i;
}

static const SettleMark *find(const SettleMarks *m, const char *name)
{
    for (int i = 0; i < settle_marks_count(m); i++)
        if (!strcmp(settle_marks_get(m, i)->name, name))
            return settle_marks_get(m, i);
    print_error("no mark %s\n", name);
    fail();
    return NULL;
}

static void assert_on_frame(const Times *t, const SettleMark *k, int frame, double stable)
{
    if (!isfinite(k->time) || frame_at(t, k->time) != frame) {
        print_error("%s at %.4f s is on frame %d, expected %d (%s)\n", k->name, k->time,
                    isfinite(k->time) ? frame_at(t, k->time) : -1, frame,
                    k->reason ? k->reason : "placed");
        fail();
    }
    double want = stable - (double)frame / FPS;
    if (!(fabs(k->gap - want) < 1.0 / FPS)) {
        print_error("%s: gap %.4f, expected %.4f within a frame\n", k->name, k->gap, want);
        fail();
    }
}

static int setup(void **state)
{
    (void)state;
    return scratch_enter("marks-e2e");
}

static int teardown(void **state)
{
    (void)state;
    return scratch_leave();
}

/* Analyse start.mp4 with --start first-change; returns the frames' times. */
static const SettleResult *analyze(SettleContext **c, Times *t)
{
    static const char *const opts[] = { "start", "first-change", NULL };
    const SettleResult *r = NULL;
    make_startup("start.mp4", FRAMES);
    *c = open_with(opts);
    assert_int_equal(settle_analyze_file(*c, "start.mp4", &r), 0);
    assert_int_equal(r->start_frame, TAP);
    assert_int_equal(r->stable_frame, CONTENT);
    t->n = 0;
    assert_int_equal(settle_foreach_frame(*c, collect, t), 0);
    assert_int_equal(t->n, FRAMES);
    return r;
}

static void place(SettleMarks *m, const SettleResult *r, const SettleMarkClocks *base)
{
    SettleMarkClocks k;
    if (base)
        k = *base;
    else
        settle_default_mark_clocks(&k);
    k.launch_time = r->start_time;
    assert_true(settle_marks_place(m, &k) > 0);
    settle_marks_set_gaps(m, r->stable_time);
}

/* Displayed 20 frames after the tap (+667 ms), Fully drawn 38 after (+1267 ms). */
static void test_logcat_on_frames(void **state)
{
    (void)state;
    SettleContext *c;
    Times t;
    const SettleResult *r = analyze(&c, &t);
    write_file("logcat.txt",
               "--------- beginning of system\n"
               "01-23 12:34:55.001  1532  1560 I ActivityTaskManager: START u0 {cmp=com.example.app/.MainActivity} from uid 2000\n"
               "01-23 12:34:55.668  1532  1587 I ActivityTaskManager: Displayed com.example.app/.MainActivity for user 0: +667ms\n"
               "01-23 12:34:56.268  1532  1587 I ActivityTaskManager: Fully drawn com.example.app/.MainActivity: +1s267ms\n");
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(settle_marks_new(&m), 0);
    assert_int_equal(settle_marks_read(m, "logcat.txt", err, sizeof(err)), SETTLE_MARKS_LOGCAT);
    place(m, r, NULL);
    assert_on_frame(&t, find(m, "Displayed com.example.app/.MainActivity"), DRAWN, r->stable_time);
    assert_on_frame(&t, find(m, "Fully drawn com.example.app/.MainActivity"), CONTENT,
                    r->stable_time);
    assert_string_equal(find(m, "Displayed com.example.app/.MainActivity")->source,
                        "logcat.txt:3");
    settle_marks_free(&m);
    settle_close(&c);
}

/* The same times as wall-clock stamps: by the log's reading at the first
 * frame, and by an anchor (the START line, the tap seen in the video). */
static void test_stamps_on_frames(void **state)
{
    (void)state;
    SettleContext *c;
    Times t;
    const SettleResult *r = analyze(&c, &t);
    /* the first frame at 1706013296.000; the tap (frame 10) at .333 */
    write_file("epoch.txt",
               "1706013296.334  1532  1560 I ActivityTaskManager: START u0 {cmp=a/.B} from uid 2000\n"
               "1706013297.001  4242  4242 I GameBench: gb_marker_start - Chrome\n"
               "1706013297.605  4242  4242 I GameBench: gb_marker_stop - Chrome\n");
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(settle_marks_new(&m), 0);
    assert_int_equal(settle_marks_add_regex(m, "launch=START u0", err, sizeof(err)), 0);
    assert_int_equal(settle_marks_read(m, "epoch.txt", err, sizeof(err)), SETTLE_MARKS_LOGCAT);
    SettleMarkClocks k;
    settle_default_mark_clocks(&k);
    assert_int_equal(settle_marks_parse_stamp("1706013296.000", &k.zero_clock, &k.zero), 0);
    place(m, r, &k);
    assert_on_frame(&t, find(m, "launch"), TAP, r->stable_time);
    assert_on_frame(&t, find(m, "Chrome start"), DRAWN, r->stable_time);
    assert_on_frame(&t, find(m, "Chrome stop"), CONTENT, r->stable_time);
    assert_int_equal(find(m, "Chrome stop")->placed_by, SETTLE_MARK_BY_ZERO);

    settle_default_mark_clocks(&k);
    k.anchor = "launch";
    place(m, r, &k);
    assert_int_equal(find(m, "Chrome stop")->placed_by, SETTLE_MARK_BY_ANCHOR);
    assert_on_frame(&t, find(m, "Chrome start"), DRAWN, r->stable_time);
    assert_on_frame(&t, find(m, "Chrome stop"), CONTENT, r->stable_time);
    settle_marks_free(&m);
    settle_close(&c);
}

static void test_other_sources_on_frames(void **state)
{
    (void)state;
    SettleContext *c;
    Times t;
    const SettleResult *r = analyze(&c, &t);
    write_file("am.txt", "Starting: Intent { cmp=com.example.app/.MainActivity }\n"
                         "Status: ok\nLaunchState: COLD\nActivity: com.example.app/.MainActivity\n"
                         "TotalTime: 667\nWaitTime: 1270\nComplete\n");
    write_file("run-benchmarkData.json",
               "{\"benchmarks\": [{\"name\": \"startup\", \"metrics\": {"
               "\"timeToInitialDisplayMs\": {\"runs\": [700.0, 667.2]},"
               "\"timeToFullDisplayMs\": {\"runs\": [1300.0, 1267.5]}}}]}");
    write_file("marks.csv", "time,name\n1.0167,chrome\n1.6,content\n");
    SettleMarks *m;
    char err[256] = "";
    assert_int_equal(settle_marks_new(&m), 0);
    settle_marks_set_run(m, 1);
    assert_int_equal(settle_marks_read(m, "am.txt", err, sizeof(err)), SETTLE_MARKS_AM_START);
    assert_int_equal(settle_marks_read(m, "run-benchmarkData.json", err, sizeof(err)),
                     SETTLE_MARKS_MACROBENCHMARK);
    assert_int_equal(settle_marks_read(m, "marks.csv", err, sizeof(err)), SETTLE_MARKS_CSV);
    place(m, r, NULL);
    assert_on_frame(&t, find(m, "TotalTime"), DRAWN, r->stable_time);
    assert_on_frame(&t, find(m, "WaitTime"), CONTENT, r->stable_time);
    assert_on_frame(&t, find(m, "timeToInitialDisplayMs"), DRAWN, r->stable_time);
    assert_on_frame(&t, find(m, "timeToFullDisplayMs"), CONTENT, r->stable_time);
    assert_on_frame(&t, find(m, "chrome"), DRAWN, r->stable_time);
    assert_on_frame(&t, find(m, "content"), CONTENT, r->stable_time);
    settle_marks_free(&m);
    settle_close(&c);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* Appends screenrecord's metadata to an MP4 as a top-level mdat box:
 * version 0 (legacy, monotonic us) or 2 (boot ns); `frames` times from
 * 5000 s, one frame every 1/FPS s; `cut` bytes left off its end. */
static void append_winscope(const char *path, int version, int frames, int cut)
{
    size_t head = version ? 32 : 20, len = head + 8 * (size_t)frames;
    uint8_t *b = calloc(1, 8 + len);
    assert_non_null(b);
    uint8_t *p = b + 8;
    memcpy(p, version ? "#VV1NSC0PET1ME2#" : "#VV1NSC0PET1ME!#", 16);
    if (version) {
        put32(p + 16, (uint32_t)version);
        put64(p + 20, (uint64_t)1700000000 * 1000000000u); /* real = boot + 1.7e9 s */
    }
    put32(p + head - 4, (uint32_t)frames);
    for (int i = 0; i < frames; i++) {
        uint64_t ns = 5000000000000ull + (uint64_t)i * 1000000000u / FPS;
        put64(p + head + 8 * (size_t)i, version ? ns : ns / 1000);
    }
    size_t total = 8 + len - (size_t)cut;
    b[0] = (uint8_t)(total >> 24);
    b[1] = (uint8_t)(total >> 16);
    b[2] = (uint8_t)(total >> 8);
    b[3] = (uint8_t)total;
    memcpy(b + 4, "mdat", 4);
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, total, f), total);
    assert_int_equal(fclose(f), 0);
    free(b);
}

static void test_device_times(void **state)
{
    (void)state;
    SettleContext *c;
    Times t;
    const SettleResult *r = analyze(&c, &t);
    SettleDeviceTimes *d = NULL;
    char err[256] = "";
    /* none in a capture without it */
    assert_int_equal(settle_read_device_times("start.mp4", &d, err, sizeof(err)), 0);
    assert_null(d);

    append_winscope("start.mp4", 2, FRAMES, 0);
    assert_int_equal(settle_read_device_times("start.mp4", &d, err, sizeof(err)), 1);
    assert_non_null(d);
    assert_int_equal(d->version, 2);
    assert_int_equal(d->clock, SETTLE_MARK_CLOCK_BOOT);
    assert_int_equal(d->count, FRAMES);
    assert_true(fabs(d->real_to_boot - 1.7e9) < 1e-3);
    assert_true(fabs(d->capture[DRAWN] - t.t[DRAWN]) < 1e-6);
    /* a -v epoch log: the real time of frame 30 plus 10 ms, and of frame 48 */
    char log[512];
    snprintf(log, sizeof(log),
             "%.3f  1532  1587 I GameBench: gb_marker_start - drawn\n"
             "%.3f  1532  1587 I GameBench: gb_marker_start - content\n",
             1700005000.0 + (double)DRAWN / FPS + 0.010, 1700005000.0 + (double)CONTENT / FPS);
    SettleMarks *m;
    assert_int_equal(settle_marks_new(&m), 0);
    assert_int_equal(settle_marks_parse(m, "log", log, strlen(log), err, sizeof(err)),
                     SETTLE_MARKS_LOGCAT);
    SettleMarkClocks k;
    settle_default_mark_clocks(&k);
    k.device = d;
    place(m, r, &k);
    assert_on_frame(&t, find(m, "drawn start"), DRAWN, r->stable_time);
    assert_true(fabs(find(m, "drawn start")->time - (t.t[DRAWN] + 0.010)) < 1e-4);
    assert_on_frame(&t, find(m, "content start"), CONTENT, r->stable_time);
    assert_int_equal(find(m, "content start")->placed_by, SETTLE_MARK_BY_DEVICE);
    /* attached to the result: each mark's frame, and the marks in the JSON */
    assert_int_equal(settle_attach_marks(c, m), 0);
    assert_int_equal(find(m, "drawn start")->frame, DRAWN);
    assert_int_equal(find(m, "content start")->frame, CONTENT);
    char *json = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&json, &len);
    assert_non_null(f);
    assert_int_equal(settle_write_json(c, f), 0);
    assert_int_equal(fclose(f), 0);
    char want_frame[64];
    snprintf(want_frame, sizeof(want_frame), "\"frame\":%d,\"source\":\"log:2\"", CONTENT);
    assert_non_null(strstr(json, "\"marks\":[{\"name\":\"drawn start\",\"time\":"));
    assert_non_null(strstr(json, want_frame));
    assert_non_null(strstr(json, "\"placed_by\":\"device\""));
    free(json);
    /* the frame on screen at a mark, read again and scaled to fit 64 pixels */
    int64_t want[3] = { CONTENT, -1, DRAWN };
    SettleImage *img = NULL;
    assert_int_equal(settle_grab_frames(c, want, 3, 64, &img), 0);
    assert_int_equal(img[0].frame, CONTENT);
    assert_true(fabs(img[0].time - t.t[CONTENT]) < 1e-9);
    assert_true(img[0].rgb && img[0].width == 64 && img[0].height == 48);
    assert_null(img[1].rgb);
    assert_true(img[2].rgb && img[2].frame == DRAWN);
    settle_frames_free(&img, 3);
    assert_null(img);
    assert_int_equal(settle_grab_frames(c, want, 3, 0, &img), SETTLE_ERR_INVAL);
    assert_int_equal(settle_attach_marks(c, NULL), 0);
    /* a monotonic stamp against boot-clock frames: not placed, and why */
    const char *mono = " 5001.000  1532  1587 I GameBench: gb_marker_start - monotonic\n";
    assert_int_equal(settle_marks_parse(m, "mono", mono, strlen(mono), err, sizeof(err)),
                     SETTLE_MARKS_LOGCAT);
    assert_int_equal(settle_marks_place(m, &k), 2);
    assert_non_null(strstr(find(m, "monotonic start")->reason, "-v epoch"));
    settle_marks_free(&m);
    settle_device_times_free(&d);
    assert_null(d);
    settle_close(&c);
}

static void test_device_times_legacy_and_broken(void **state)
{
    (void)state;
    SettleDeviceTimes *d = NULL;
    char err[256] = "";
    make_startup("legacy.mp4", 20);
    append_winscope("legacy.mp4", 0, 20, 0);
    assert_int_equal(settle_read_device_times("legacy.mp4", &d, err, sizeof(err)), 1);
    assert_int_equal(d->version, 0);
    assert_int_equal(d->clock, SETTLE_MARK_CLOCK_MONOTONIC);
    assert_true(fabs(d->device[3] - (5000.0 + 3.0 / FPS)) < 1e-5);
    assert_true(isnan(d->real_to_boot));
    settle_device_times_free(&d);

    /* another frame count than the video's */
    make_startup("count.mp4", 20);
    append_winscope("count.mp4", 2, 19, 0);
    assert_int_equal(settle_read_device_times("count.mp4", &d, err, sizeof(err)),
                     SETTLE_ERR_INVAL);
    assert_non_null(strstr(err, "count.mp4: Winscope metadata for 19 frames, the video has 20"));
    assert_null(d);
    /* cut short */
    make_startup("cut.mp4", 20);
    append_winscope("cut.mp4", 2, 20, 12);
    assert_int_equal(settle_read_device_times("cut.mp4", &d, err, sizeof(err)),
                     SETTLE_ERR_INVAL);
    assert_non_null(strstr(err, "truncated"));
    /* two of them */
    make_startup("two.mp4", 20);
    append_winscope("two.mp4", 2, 20, 0);
    append_winscope("two.mp4", 0, 20, 0);
    assert_int_equal(settle_read_device_times("two.mp4", &d, err, sizeof(err)),
                     SETTLE_ERR_INVAL);
    assert_non_null(strstr(err, "more than one"));
    /* not a capture */
    write_file("text.mp4", "hello\n");
    settle_codec_log_level(-1);
    assert_int_equal(settle_read_device_times("text.mp4", &d, err, sizeof(err)),
                     SETTLE_ERR_FORMAT);
    settle_codec_log_level(SETTLE_LOG_ERROR);
    assert_null(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_logcat_on_frames),
        cmocka_unit_test(test_stamps_on_frames),
        cmocka_unit_test(test_other_sources_on_frames),
        cmocka_unit_test(test_device_times),
        cmocka_unit_test(test_device_times_legacy_and_broken),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
