/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Broken and hostile captures, made here from good ones (capgen.c): cut at
 * several offsets, bytes flipped in headers and frame data, zeros, text, a
 * single frame, tiny and odd sizes, absurd declared sizes, a phone's rotation,
 * timestamps that go back or repeat. Each must give its documented outcome
 * (README, "Broken input"): the error code, a message, and where frames
 * decoded a result marked partial; never a crash or a trusted wrong answer.
 * Files are written into a scratch directory made in the current directory.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "settle/settle.h"
#include "capgen.h"
#include "e2e_common.h"
#include "scene.h"
#include "test_util.h"

#define FPS 30
#define W 320
#define H 240
#define CONTENT 48
#define FRAMES 90

static SceneSpec startup(int w, int h)
{
    SceneSpec s;
    scene_init(&s, w, h);
    s.tap = 10;
    s.splash = 14;
    s.chrome = 30;
    s.content = CONTENT;
    s.progress = 1;
    return s;
}

static void make(const char *path, const char *encoder, const SceneSpec *s, int frames,
                 int rotation)
{
    CapgenSpec c = {
        .path = track(path), .encoder = encoder, .width = s->width, .height = s->height,
        .nb_frames = frames, .fps = FPS, .quality = 20, .draw = scene_draw,
        .opaque = (void *)s, .rotation = rotation,
    };
    int ret = capgen_write(&c);
    if (ret < 0)
        print_error("capgen_write %s with %s: error %d\n", path, encoder, ret);
    assert_int_equal(ret, 0);
}

/* A flat colour until frame `change`, then another: for tiny pictures. */
static void draw_step(void *opaque, int index, uint8_t *rgb, int stride, int w, int h)
{
    int change = *(const int *)opaque;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = rgb + y * stride + 3 * x;
            p[0] = index < change ? 20 : 230;
            p[1] = index < change ? 40 : (uint8_t)(20 * x);
            p[2] = index < change ? 60 : (uint8_t)(30 * y);
        }
}

static void make_step(const char *path, int w, int h, int frames, int change)
{
    CapgenSpec c = {
        .path = track(path), .encoder = "ffv1", .width = w, .height = h, .nb_frames = frames,
        .fps = FPS, .draw = draw_step, .opaque = &change,
    };
    assert_int_equal(capgen_write(&c), 0);
}

typedef struct Bytes {
    uint8_t *p;
    size_t n;
} Bytes;

static Bytes load(const char *path)
{
    Bytes b = { 0 };
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    b.n = (size_t)n;
    b.p = malloc(b.n);
    assert_non_null(b.p);
    assert_int_equal(fread(b.p, 1, b.n, f), b.n);
    fclose(f);
    return b;
}

static void save(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(track(path), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* The first occurrence of `pat` in b at or after `from`, or -1. */
static long find(const Bytes *b, size_t from, const void *pat, size_t len)
{
    for (size_t i = from; i + len <= b->n; i++)
        if (!memcmp(b->p + i, pat, len))
            return (long)i;
    return -1;
}

typedef struct Outcome {
    int ret;
    int64_t frames;
    int partial;
    int64_t stable;
    int rotation;
    int warnings;
} Outcome;

static void count_warning(void *opaque, SettleLogLevel level, const char *msg)
{
    (void)msg;
    if (level == SETTLE_LOG_WARNING)
        ++*(int *)opaque;
}

/* Analyses quietly and checks what every outcome must satisfy. */
static Outcome analyze(const char *path, const char *opt, const char *val)
{
    Outcome o = { 0 };
    SettleSettings s;
    char err[128];
    settle_default_settings(&s);
    s.log_cb = count_warning;
    s.log_opaque = &o.warnings;
    if (opt)
        assert_int_equal(settle_settings_set(&s, opt, val, err, sizeof(err)), 0);
    SettleContext *c = NULL;
    assert_int_equal(settle_open(&c, &s), 0);
    const SettleResult *r = NULL;
    settle_codec_log_level(-1);
    o.ret = settle_analyze_file(c, path, &r);
    settle_codec_log_level(SETTLE_LOG_ERROR);
    assert_non_null(r);
    assert_string_equal(r->input, path);
    o.frames = r->frames;
    o.partial = r->partial;
    o.stable = r->stable_frame;
    o.rotation = r->rotation;
    if (o.ret < 0) {
        assert_non_null(r->error_message);
        assert_true(strlen(r->error_message) > 0);
        assert_null(strchr(r->error_message, '\n'));
        assert_int_equal(r->error, o.ret);
    }
    /* partial exactly when something was measured but not all */
    if (o.ret == SETTLE_ERR_DECODE)
        assert_true(r->partial && r->frames > 0);
    else
        assert_false(r->partial);
    if (r->stable_frame >= 0) {
        assert_true(r->stable_frame < r->frames);
        assert_true(isfinite(r->stable_time) && r->stable_time <= r->duration);
    } else {
        assert_true(isnan(r->stable_time));
    }
    FILE *sink = tmpfile();
    assert_non_null(sink);
    assert_int_equal(settle_write_json(c, sink), 0);
    fclose(sink);
    printf("# %s: %s, %lld frames%s%s%s\n", path, o.ret ? settle_strerror(o.ret) : "stable",
           (long long)o.frames, o.partial ? ", partial" : "", r->error_message ? ": " : "",
           r->error_message ? r->error_message : "");
    settle_close(&c);
    return o;
}

/* mp4 writes its index (moov) after the frames: any cut loses it, and
 * nothing can be read. A webm is a sequence of self-contained clusters: what
 * was written before the cut decodes and is measured, marked partial. */
static void test_truncated(void **state)
{
    (void)state;
    SceneSpec s = startup(W, H);
    make("whole.mp4", "libx264", &s, FRAMES, 0);
    make("whole.webm", "libvpx", &s, FRAMES, 0);
    Bytes mp4 = load("whole.mp4"), webm = load("whole.webm");
    static const int percent[] = { 10, 50, 90 };
    char name[64];
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof(name), "cut%d.mp4", percent[i]);
        save(name, mp4.p, mp4.n * percent[i] / 100);
        Outcome o = analyze(name, NULL, NULL);
        assert_int_equal(o.ret, SETTLE_ERR_FORMAT);
        assert_int_equal(o.frames, 0);

        snprintf(name, sizeof(name), "cut%d.webm", percent[i]);
        save(name, webm.p, webm.n * percent[i] / 100);
        o = analyze(name, NULL, NULL);
        if (percent[i] == 10) {
            /* the first keyframe is more than a tenth of the file: no
             * frame is complete, nothing can be measured */
            assert_int_equal(o.ret, SETTLE_ERR_FORMAT);
            assert_int_equal(o.frames, 0);
        } else {
            assert_int_equal(o.ret, SETTLE_ERR_DECODE);
            assert_true(o.frames > 0 && o.frames < FRAMES);
            assert_true(o.partial);
        }
    }
    /* just after the headers: the first cluster starts there */
    static const uint8_t cluster[] = { 0x1f, 0x43, 0xb6, 0x75 };
    long at = find(&webm, 0, cluster, sizeof(cluster));
    assert_true(at > 0);
    save("header-only.webm", webm.p, (size_t)at);
    Outcome o = analyze("header-only.webm", NULL, NULL);
    assert_int_equal(o.ret, SETTLE_ERR_FORMAT);
    assert_int_equal(o.frames, 0);
    free(mp4.p);
    free(webm.p);
}

static void flip(Bytes *b, size_t at, size_t n)
{
    assert_true(at + n <= b->n);
    for (size_t i = at; i < at + n; i++)
        b->p[i] ^= 0xa5;
}

/* Flipped bytes in the headers make a file unreadable or leave it readable;
 * in the frame data they make frames undecodable: those are counted, the
 * rest measured, the result partial. */
static void test_flipped(void **state)
{
    (void)state;
    SceneSpec s = startup(W, H);
    make("good.webm", "libvpx", &s, FRAMES, 0);
    make("good.mp4", "libx264", &s, FRAMES, 0);

    /* the EBML header and the track description */
    Bytes b = load("good.webm");
    static const uint8_t tracks[] = { 0x16, 0x54, 0xae, 0x6b };
    long at = find(&b, 0, tracks, sizeof(tracks));
    assert_true(at > 0);
    flip(&b, 0, 16);
    save("header-flipped.webm", b.p, b.n);
    Outcome o = analyze("header-flipped.webm", NULL, NULL);
    assert_int_equal(o.ret, SETTLE_ERR_FORMAT);
    free(b.p);

    b = load("good.webm");
    flip(&b, (size_t)at, 24);
    save("tracks-flipped.webm", b.p, b.n);
    o = analyze("tracks-flipped.webm", NULL, NULL);
    /* libavformat's Matroska reader resynchronises past a damaged element:
     * either the file is refused or it is read whole and measured right */
    if (o.ret == 0) {
        assert_int_equal(o.frames, FRAMES);
        assert_int_equal(o.stable, CONTENT);
    } else {
        assert_true(o.ret == SETTLE_ERR_FORMAT || o.ret == SETTLE_ERR_NO_VIDEO);
        assert_int_equal(o.frames, 0);
    }
    free(b.p);

    /* the mp4 index: its sample table */
    b = load("good.mp4");
    at = find(&b, 0, "stsz", 4);
    assert_true(at > 0);
    flip(&b, (size_t)at + 8, 64);
    save("index-flipped.mp4", b.p, b.n);
    o = analyze("index-flipped.mp4", NULL, NULL);
    assert_true(o.ret == SETTLE_ERR_FORMAT || o.ret == SETTLE_ERR_DECODE);
    assert_true(o.frames < FRAMES);
    free(b.p);

    /* frame data in the middle of the file */
    b = load("good.webm");
    flip(&b, b.n / 2, 512);
    save("data-flipped.webm", b.p, b.n);
    o = analyze("data-flipped.webm", NULL, NULL);
    assert_int_equal(o.ret, SETTLE_ERR_DECODE);
    assert_true(o.partial);
    assert_true(o.frames > FRAMES / 4);
    free(b.p);

    b = load("good.mp4");
    at = find(&b, 0, "mdat", 4);
    assert_true(at > 0);
    flip(&b, (size_t)at + 8 + (b.n - (size_t)at) / 3, 512);
    save("data-flipped.mp4", b.p, b.n);
    o = analyze("data-flipped.mp4", NULL, NULL);
    assert_int_equal(o.ret, SETTLE_ERR_DECODE);
    assert_true(o.partial);
    assert_true(o.frames > FRAMES / 4);
    free(b.p);
}

static void test_not_captures(void **state)
{
    (void)state;
    uint8_t zeros[65536] = { 0 };
    save("zeros.mp4", zeros, sizeof(zeros));
    Outcome o = analyze("zeros.mp4", NULL, NULL);
    assert_int_equal(o.ret, SETTLE_ERR_FORMAT);

    static const char text[] = "Not a capture: a note someone named .mp4.\nLine two.\n";
    save("note.mp4", (const uint8_t *)text, sizeof(text) - 1);
    o = analyze("note.mp4", NULL, NULL);
    assert_int_equal(o.ret, SETTLE_ERR_FORMAT);
    assert_int_equal(o.frames, 0);
}

static void test_one_frame(void **state)
{
    (void)state;
    make_step("one.mkv", 64, 48, 1, 0);
    Outcome o = analyze("one.mkv", NULL, NULL);
    assert_int_equal(o.ret, SETTLE_ERR_TOO_SHORT);
    assert_int_equal(o.frames, 1);
    assert_int_equal(o.stable, -1);
}

/* 1x1 and 3x5 pictures (ffv1 takes any size) are measured like any other. */
static void test_tiny_sizes(void **state)
{
    (void)state;
    make_step("1x1.mkv", 1, 1, 12, 5);
    Outcome o = analyze("1x1.mkv", "diff-threshold", "0");
    assert_int_equal(o.ret, 0);
    assert_int_equal(o.frames, 12);
    assert_int_equal(o.stable, 5);

    make_step("3x5.mkv", 3, 5, 12, 7);
    o = analyze("3x5.mkv", "diff-threshold", "0");
    assert_int_equal(o.ret, 0);
    assert_int_equal(o.frames, 12);
    assert_int_equal(o.stable, 7);
    /* with the default threshold (4096 pixels) nothing in 15 pixels counts */
    o = analyze("3x5.mkv", NULL, NULL);
    assert_int_equal(o.ret, 0);
    assert_int_equal(o.stable, 0);
}

/* Declared sizes over --max-pixels are refused from the header, before any
 * frame buffer is allocated: the ffv1 decoder takes its size from the
 * container, so without the check it would allocate 3.6 G pixels. */
static void test_huge_declared_size(void **state)
{
    (void)state;
    /* 304x272: PixelWidth and PixelHeight both take two bytes */
    make_step("small.mkv", 304, 272, 6, 3);
    static const struct { const char *name; uint8_t hi, lo; } sizes[] = {
        { "60000.mkv", 0xea, 0x60 }, /* 60000 x 60000 */
        { "12000.mkv", 0x2e, 0xe0 }, /* 12000 x 12000: 144 M pixels, under libavcodec's own limit */
    };
    for (int i = 0; i < 2; i++) {
        Bytes b = load("small.mkv");
        static const uint8_t wpat[] = { 0xb0, 0x82, 0x01, 0x30 }, hpat[] = { 0xba, 0x82, 0x01, 0x10 };
        long wat = find(&b, 0, wpat, 4), hat = find(&b, 0, hpat, 4);
        assert_true(wat > 0 && hat > 0);
        b.p[wat + 2] = b.p[hat + 2] = sizes[i].hi;
        b.p[wat + 3] = b.p[hat + 3] = sizes[i].lo;
        save(sizes[i].name, b.p, b.n);
        free(b.p);
        Outcome o = analyze(sizes[i].name, NULL, NULL);
        assert_int_equal(o.ret, SETTLE_ERR_LIMIT);
        assert_int_equal(o.frames, 0);
    }

    /* an mp4 whose sample description says 60000x60000 */
    SceneSpec s = startup(W, H);
    make("small.mp4", "libx264", &s, 6, 0);
    Bytes b = load("small.mp4");
    /* the sample entry, not the brand of the same name in ftyp */
    long at = find(&b, (size_t)find(&b, 0, "stsd", 4), "avc1", 4);
    assert_true(at > 0);
    b.p[at + 28] = b.p[at + 30] = 0xea;
    b.p[at + 29] = b.p[at + 31] = 0x60;
    save("60000.mp4", b.p, b.n);
    free(b.p);
    Outcome o = analyze("60000.mp4", NULL, NULL);
    assert_int_equal(o.ret, SETTLE_ERR_LIMIT);
    assert_int_equal(o.frames, 0);
}

/* A phone's capture stored landscape with a display matrix: the stored
 * picture is analysed (rotation changes no pixel count) and the result says
 * how a player would turn it. */
static void test_rotated(void **state)
{
    (void)state;
    SceneSpec s = startup(W, H);
    make("rotated.mp4", "libx264", &s, FRAMES, 90);
    Outcome o = analyze("rotated.mp4", NULL, NULL);
    assert_int_equal(o.ret, 0);
    assert_int_equal(o.rotation, 90);
    assert_int_equal(o.stable, CONTENT);
    make("upside-down.mp4", "libx264", &s, FRAMES, 180);
    o = analyze("upside-down.mp4", NULL, NULL);
    assert_int_equal(o.rotation, 180);
    assert_int_equal(o.stable, CONTENT);
    make("plain.mp4", "libx264", &s, FRAMES, 0);
    o = analyze("plain.mp4", NULL, NULL);
    assert_int_equal(o.rotation, 0);
}

/* EBML: the length of the variable-size integer starting with byte v. */
static int vint_len(uint8_t v)
{
    int len = 1;
    while (len <= 8 && !(v & (0x80 >> (len - 1))))
        len++;
    return len;
}

static uint64_t vint_value(const uint8_t *p, int len)
{
    uint64_t v = p[0] & (0xff >> len);
    for (int i = 1; i < len; i++)
        v = v << 8 | p[i];
    return v;
}

/* Offsets of the 16-bit timecodes (relative to the cluster's) of the
 * SimpleBlocks in the first Matroska cluster; returns how many (at most max). */
static int block_timecodes(const Bytes *b, long *out, int max)
{
    static const uint8_t cluster[] = { 0x1f, 0x43, 0xb6, 0x75 };
    long at = find(b, 0, cluster, sizeof(cluster));
    assert_true(at > 0);
    size_t p = (size_t)at + 4;
    int sl = vint_len(b->p[p]);
    uint64_t csize = vint_value(b->p + p, sl);
    p += (size_t)sl;
    size_t end = csize < b->n - p ? p + csize : b->n;
    int n = 0;
    while (p < end && n < max) {
        int il = vint_len(b->p[p]);
        uint32_t id = 0;
        for (int i = 0; i < il; i++)
            id = id << 8 | b->p[p + (size_t)i];
        p += (size_t)il;
        int ll = vint_len(b->p[p]);
        uint64_t len = vint_value(b->p + p, ll);
        p += (size_t)ll;
        if (id == 0xa3) /* SimpleBlock: track number, then the timecode */
            out[n++] = (long)(p + (size_t)vint_len(b->p[p]));
        p += len;
    }
    return n;
}

typedef struct Times {
    double t[64];
    int n;
} Times;

static int collect_time(void *opaque, const SettleFrame *f)
{
    Times *t = opaque;
    if (t->n < 64)
        t->t[t->n++] = f->time;
    return 0;
}

/* Frame times that go back or repeat: the clock is held (a frame never ends
 * before it starts), a warning says so, and the stable frame is still right. */
static void test_timestamps_back(void **state)
{
    (void)state;
    make_step("clock.mkv", 64, 48, 30, 20);
    Bytes b = load("clock.mkv");
    long tc[64];
    int n = block_timecodes(&b, tc, 64);
    assert_true(n >= 16); /* the first cluster's, the others are not touched */
    /* frame 10 goes back to frame 4's time, frame 15 repeats frame 14's */
    memcpy(b.p + tc[10], b.p + tc[4], 2);
    memcpy(b.p + tc[15], b.p + tc[14], 2);
    save("clock-back.mkv", b.p, b.n);
    free(b.p);

    SettleSettings s;
    settle_default_settings(&s);
    int warnings = 0;
    s.log_cb = count_warning;
    s.log_opaque = &warnings;
    s.diff_threshold = 0;
    SettleContext *c = NULL;
    assert_int_equal(settle_open(&c, &s), 0);
    const SettleResult *r = NULL;
    assert_int_equal(settle_analyze_file(c, "clock-back.mkv", &r), 0);
    assert_int_equal(r->frames, 30);
    assert_int_equal(r->stable_frame, 20);
    assert_near(r->stable_time, 20.0 / FPS, 1e-3);
    assert_true(warnings >= 1);
    Times t = { .n = 0 };
    assert_int_equal(settle_foreach_frame(c, collect_time, &t), 0);
    assert_int_equal(t.n, 30);
    for (int i = 1; i < t.n; i++)
        assert_true(t.t[i] >= t.t[i - 1]);
    assert_near(t.t[10], t.t[9], 1e-9);
    assert_near(t.t[15], t.t[14], 1e-9);
    settle_close(&c);
}

static int group_setup(void **state)
{
    (void)state;
    return scratch_enter("broken");
}

static int group_teardown(void **state)
{
    (void)state;
    return scratch_leave();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_flipped),
        cmocka_unit_test(test_not_captures),
        cmocka_unit_test(test_one_frame),
        cmocka_unit_test(test_tiny_sizes),
        cmocka_unit_test(test_huge_declared_size),
        cmocka_unit_test(test_rotated),
        cmocka_unit_test(test_timestamps_back),
    };
    return cmocka_run_group_tests_name("broken", tests, group_setup, group_teardown);
}
