/* SPDX-License-Identifier: BSD-2-Clause */
/* The probe's store (src/decode_probe.c): every frame held comes back with
 * the same rows, whether it was copied whole or by the rows that differ
 * from the frame before; a screen-like series takes little more than one
 * frame of memory; a buffer a taken frame still uses is never written; a
 * frame held as properties keeps the bytes it was given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>

#include "decode_probe.h"

#define W 200
#define H 120
#define N 12

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* A 4:2:0 frame of W x H with random samples. */
static AVFrame *new_frame(uint32_t *seed, int64_t pts)
{
    AVFrame *f = av_frame_alloc();
    assert_non_null(f);
    f->format = AV_PIX_FMT_YUV420P;
    f->width = W;
    f->height = H;
    assert_int_equal(av_frame_get_buffer(f, 0), 0);
    for (int p = 0; p < 3; p++)
        for (int y = 0; y < (p ? H / 2 : H); y++)
            for (int x = 0; x < (p ? W / 2 : W); x++)
                f->data[p][y * f->linesize[p] + x] = (uint8_t)rnd(seed);
    f->pts = f->best_effort_timestamp = pts;
    f->key_frame = pts == 0;
    return f;
}

/* The next frame: f's copy with `rows` random luma rows (and their chroma
 * rows) drawn again. */
static AVFrame *next_frame(const AVFrame *f, uint32_t *seed, int rows, int64_t pts)
{
    AVFrame *g = av_frame_alloc();
    assert_non_null(g);
    g->format = f->format;
    g->width = f->width;
    g->height = f->height;
    assert_int_equal(av_frame_get_buffer(g, 0), 0);
    assert_int_equal(av_frame_copy(g, f), 0);
    for (int i = 0; i < rows; i++) {
        const int y = (int)(rnd(seed) % H);
        for (int x = 0; x < W; x++)
            g->data[0][y * g->linesize[0] + x] = (uint8_t)rnd(seed);
        for (int p = 1; p < 3; p++)
            for (int x = 0; x < W / 2; x++)
                g->data[p][y / 2 * g->linesize[p] + x] = (uint8_t)rnd(seed);
    }
    g->pts = g->best_effort_timestamp = pts;
    return g;
}

static void assert_same_planes(const AVFrame *a, const AVFrame *b)
{
    assert_int_equal(a->format, b->format);
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->height, b->height);
    assert_int_equal(a->pts, b->pts);
    assert_int_equal(a->best_effort_timestamp, b->best_effort_timestamp);
    assert_int_equal(a->key_frame, b->key_frame);
    for (int p = 0; p < 3; p++)
        for (int y = 0; y < (p ? H / 2 : H); y++)
            assert_memory_equal(a->data[p] + y * a->linesize[p], b->data[p] + y * b->linesize[p],
                                p ? W / 2 : W);
}

/* The store's memory: every region's size, the last one's use. */
static size_t store_bytes(const SettleProbeStore *s)
{
    size_t n = 0;
    for (int r = 0; r + 1 < s->nregions; r++)
        n += (size_t)s->regions[r]->size;
    return n + s->used;
}

/* rows_changed[i]: rows drawn again for frame i (-1: a new frame). */
static void run_series(const int *rows_changed, size_t *bytes, size_t *whole, int keep_refs)
{
    uint32_t seed = 12345;
    AVFrame *src[N];
    SettleProbeStore s;
    memset(&s, 0, sizeof(s));
    for (int i = 0; i < N; i++) {
        src[i] = rows_changed[i] < 0 || !i ? new_frame(&seed, i)
                                           : next_frame(src[i - 1], &seed, rows_changed[i], i);
        assert_int_equal(settle_probe_hold(&s, src[i]), 0);
        for (int p = 0; p < 3; p++)
            for (int y = 0; y < (p ? H / 2 : H); y++)
                assert_memory_equal(settle_probe_row(&s, i, p, y),
                                    src[i]->data[p] + y * src[i]->linesize[p], p ? W / 2 : W);
    }
    assert_int_equal(s.n, N);
    *bytes = store_bytes(&s);
    *whole = s.size;
    /* taken in order as decode.c does (the one before still referenced),
     * or all kept referenced (every buffer busy: the store runs out of
     * buffers of its own and says so, never writing one in use) */
    AVFrame *taken[N] = { NULL };
    int took = 0;
    for (int i = 0; i < N; i++) {
        taken[i] = av_frame_alloc();
        assert_non_null(taken[i]);
        int ret = settle_probe_take(&s, i, taken[i]);
        if (ret < 0) {
            assert_true(keep_refs);
            break;
        }
        took++;
        assert_same_planes(taken[i], src[i]);
        if (!keep_refs && i >= 2)
            av_frame_unref(taken[i - 2]);
        for (int j = 0; j <= i; j++)
            if (taken[j]->data[0])
                assert_same_planes(taken[j], src[j]);
    }
    settle_probe_store_free(&s);
    for (int j = 0; j < took; j++)
        if (taken[j]->data[0])
            assert_same_planes(taken[j], src[j]); /* outlive the store */
    for (int i = 0; i < N; i++) {
        av_frame_free(&taken[i]);
        av_frame_free(&src[i]);
    }
}

static void test_screen_like(void **state)
{
    (void)state;
    static const int rows[N] = { 0, 3, 0, 10, 1, 0, 0, 40, 2, 0, 5, 1 };
    size_t bytes, whole;
    run_series(rows, &bytes, &whole, 0);
    /* the first frame whole, then the 62 rows that changed (of 120) */
    assert_true(bytes < 2 * whole);
}

static void test_camera_like(void **state)
{
    (void)state;
    static const int rows[N] = { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 };
    size_t bytes, whole;
    run_series(rows, &bytes, &whole, 0);
    assert_true(bytes >= N * whole);
}

static void test_mixed(void **state)
{
    (void)state;
    static const int rows[N] = { 0, 100, 2, -1, 0, 70, 3, -1, -1, 1, 90, 0 };
    size_t bytes, whole;
    run_series(rows, &bytes, &whole, 0);
    run_series(rows, &bytes, &whole, 1);
}

/* A format the store does not lay out is held as a reference. */
static void test_reference(void **state)
{
    (void)state;
    SettleProbeStore s;
    memset(&s, 0, sizeof(s));
    AVFrame *f = av_frame_alloc();
    assert_non_null(f);
    f->format = AV_PIX_FMT_PAL8;
    f->width = 16;
    f->height = 8;
    assert_int_equal(av_frame_get_buffer(f, 0), 0);
    memset(f->data[0], 7, (size_t)f->linesize[0] * 8);
    assert_int_equal(settle_probe_hold(&s, f), 0);
    assert_int_equal(settle_probe_hold(&s, f), 0);
    assert_ptr_equal(settle_probe_frame(&s, 1)->data[0], f->data[0]);
    AVFrame *t = av_frame_alloc();
    assert_non_null(t);
    assert_int_equal(settle_probe_take(&s, 1, t), 0);
    assert_ptr_equal(t->data[0], f->data[0]);
    settle_probe_store_free(&s);
    av_frame_free(&t);
    av_frame_free(&f);
}

/* A frame held as its properties only (size 0: the probe's frame that goes
 * to the analysis at once): no bytes, none of the store's memory taken, and
 * it cannot be taken; the frames around it are held as before. */
static void test_props_only(void **state)
{
    (void)state;
    SettleProbeStore s;
    memset(&s, 0, sizeof(s));
    uint32_t seed = 11;
    AVFrame *f[2];
    f[0] = new_frame(&seed, 0);
    f[1] = next_frame(f[0], &seed, 2, 1);
    assert_int_equal(settle_probe_hold(&s, f[0]), 0);
    const int regions = s.nregions;
    const size_t used = s.used;
    assert_int_equal(settle_probe_hold_props(&s, f[1]), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.nregions, regions);
    assert_int_equal(s.used, used);
    const AVFrame *h = settle_probe_frame(&s, 1);
    assert_null(h->data[0]);
    assert_int_equal(h->width, W);
    assert_int_equal(h->pts, 1);
    AVFrame *t = av_frame_alloc();
    assert_non_null(t);
    assert_int_equal(settle_probe_take(&s, 1, t), AVERROR(EINVAL));
    assert_null(t->buf[0]);
    assert_int_equal(settle_probe_take(&s, 0, t), 0);
    for (int p = 0; p < 3; p++)
        for (int y = 0; y < (p ? H / 2 : H); y++)
            assert_memory_equal(t->data[p] + (ptrdiff_t)y * t->linesize[p],
                                f[0]->data[p] + (ptrdiff_t)y * f[0]->linesize[p], p ? W / 2 : W);
    av_frame_free(&t);
    settle_probe_store_free(&s);
    for (int i = 0; i < 2; i++)
        av_frame_free(&f[i]);
}

/* Two frames held as their properties between frames held with their
 * planes: such a frame cannot be taken, and the frame after it is held
 * whole (no rows to share). */
static void test_props(void **state)
{
    (void)state;
    SettleProbeStore s;
    memset(&s, 0, sizeof(s));
    uint32_t seed = 7;
    AVFrame *f[3];
    f[0] = new_frame(&seed, 0);
    f[1] = next_frame(f[0], &seed, 2, 1);
    f[2] = next_frame(f[1], &seed, 2, 2);
    assert_int_equal(settle_probe_hold(&s, f[0]), 0);
    assert_int_equal(settle_probe_hold_props(&s, f[1]), 0);
    assert_int_equal(settle_probe_hold_props(&s, f[1]), 0);
    assert_int_equal(settle_probe_hold(&s, f[2]), 0);
    assert_int_equal(s.n, 4);
    for (int i = 0; i < 2; i++) {
        const AVFrame *h = settle_probe_frame(&s, 1 + i);
        assert_null(h->data[0]);
        assert_int_equal(h->width, W);
        assert_int_equal(h->pts, 1);
    }
    AVFrame *t = av_frame_alloc();
    assert_non_null(t);
    assert_int_equal(settle_probe_take(&s, 1, t), AVERROR(EINVAL));
    assert_null(t->buf[0]);
    /* the frame after them: held whole, its own rows */
    assert_non_null(settle_probe_frame(&s, 3)->data[0]);
    for (int i = 0; i < 4; i += 3) {
        const AVFrame *src = f[i ? 2 : 0];
        assert_int_equal(settle_probe_take(&s, i, t), 0);
        for (int p = 0; p < 3; p++)
            for (int y = 0; y < (p ? H / 2 : H); y++)
                assert_memory_equal(t->data[p] + (ptrdiff_t)y * t->linesize[p],
                                    src->data[p] + (ptrdiff_t)y * src->linesize[p], p ? W / 2 : W);
        av_frame_unref(t);
    }
    settle_probe_store_free(&s);
    av_frame_free(&t);
    for (int i = 0; i < 3; i++)
        av_frame_free(&f[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_screen_like),
        cmocka_unit_test(test_camera_like),
        cmocka_unit_test(test_mixed),
        cmocka_unit_test(test_reference),
        cmocka_unit_test(test_props),
        cmocka_unit_test(test_props_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
