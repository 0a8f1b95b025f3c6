/* SPDX-License-Identifier: BSD-2-Clause */
/* What the pictures keep during the reading (src/keep.c) when the source
 * holds its pictures (settle_set_hold: the decoder's frames referenced):
 * nothing is copied, a held picture is made once when asked for, with the
 * same pixels; the holds live only as long as a role needs them, however
 * long the capture; a source that cannot hold gets copies, as before; the
 * key frames rendered two at a time are the same pixels, each made once; so
 * are those made ready early on a thread of their own (settle_keep_early:
 * rendered, and their PNGs encoded), whenever the thread is stopped. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "keep.h"

#define W 48
#define H 40
#define FRAMES 300

/* The source: the picture last sent, and how many holds are alive. */
typedef struct Source {
    uint8_t rgb[H][W * 3];
    int live, made;
    atomic_int renders; /* settle_keep_ready renders on two threads */
    int refuse; /* hold returns NULL */
} Source;

typedef struct Held {
    SettleHeld pub;
    Source *src;
    uint8_t rgb[H][W * 3];
} Held;

static void draw(Source *s, int index)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W * 3; x++)
            s->rgb[y][x] = (uint8_t)(index * 7 + y * 3 + x);
}

static void held_render(const SettleHeld *h, uint8_t *rgb, ptrdiff_t stride)
{
    const Held *e = (const Held *)h;
    e->src->renders++;
    for (int y = 0; y < H; y++)
        memcpy(rgb + stride * y, e->rgb[y], W * 3);
}

static void held_release(SettleHeld *h)
{
    Held *e = (Held *)h;
    e->src->live--;
    free(e);
}

static SettleHeld *hold(void *opaque)
{
    Source *s = opaque;
    if (s->refuse)
        return NULL;
    Held *e = malloc(sizeof(*e));
    assert_non_null(e);
    e->pub.render = held_render;
    e->pub.release = held_release;
    e->src = s;
    memcpy(e->rgb, s->rgb, sizeof(e->rgb));
    s->live++;
    s->made++;
    return &e->pub;
}

/* Frame i of a capture whose every frame changes: the start at 0, the first
 * change at 1, the latest change at every frame, method 0 only. */
static void send(SettleKeep *k, Source *s, int i)
{
    draw(s, i);
    settle_keep_changed(k, NULL, 0);
    SettleKeepFrame f = { .index = i, .time = i / 30.0, .hold = hold, .hold_opaque = s };
    for (int r = 0; r < SETTLE_KEEP_ROLES; r++)
        f.role[r] = -2;
    if (i == 0) {
        f.role[SETTLE_KEEP_START] = 0;
    } else {
        if (i == 1)
            f.role[SETTLE_KEEP_FIRST] = 1;
        f.role[SETTLE_KEEP_LAST] = i;
        f.role[SETTLE_KEEP_SETTLED] = i;
    }
    assert_int_equal(settle_keep_frame(k, &f, &s->rgb[0][0], W * 3, NULL, NULL), 0);
}

static void assert_picture(const SettleKept *p, int index)
{
    Source want;
    draw(&want, index);
    assert_non_null(p->rgb);
    for (int y = 0; y < H; y++)
        assert_memory_equal(p->rgb + (size_t)y * W * 3, want.rgb[y], W * 3);
}

static void test_held(void **state)
{
    (void)state;
    Source *s = calloc(1, sizeof(*s));
    assert_non_null(s);
    SettleKeep k = { 0 };
    settle_keep_begin(&k, 1, W, H);
    for (int i = 0; i < FRAMES; i++) {
        send(&k, s, i);
        /* the start, the first change, the latest: no more, however long */
        assert_true(s->live <= 3);
    }
    assert_int_equal(s->made, FRAMES);
    assert_int_equal(s->live, 3);
    const SettleKept *p = settle_keep_find(&k, FRAMES - 1);
    assert_non_null(p);
    assert_null(p->rgb); /* nothing copied */
    assert_non_null(p->held);
    assert_int_equal(k.nspare, 0);
    /* made when asked for, once, and the hold let go */
    const SettleKept *got = NULL;
    assert_int_equal(settle_keep_get(&k, FRAMES - 1, &got), 0);
    assert_ptr_equal(got, p);
    assert_null(got->held);
    assert_picture(got, FRAMES - 1);
    assert_int_equal(s->live, 2);
    assert_int_equal(settle_keep_get(&k, FRAMES - 1, &got), 0);
    assert_int_equal(s->renders, 1);
    assert_int_equal(settle_keep_get(&k, 0, &got), 0);
    assert_picture(got, 0);
    assert_int_equal(settle_keep_get(&k, 5, &got), 1); /* let go long ago */
    settle_keep_free(&k);
    assert_int_equal(s->live, 0);
    free(s);
}

static void test_ready(void **state)
{
    (void)state;
    Source *s = calloc(1, sizeof(*s));
    assert_non_null(s);
    SettleKeep k = { 0 };
    settle_keep_begin(&k, 1, W, H);
    for (int i = 0; i < FRAMES; i++)
        send(&k, s, i);
    assert_int_equal(s->live, 3);
    /* one held picture: left to settle_keep_get */
    const int64_t one[] = { -1, FRAMES - 1, 5 };
    assert_int_equal(settle_keep_ready(&k, one, 3), 0);
    assert_int_equal(s->renders, 0);
    assert_non_null(settle_keep_find(&k, FRAMES - 1)->held);
    /* the three held, each once however often asked, one not held */
    const int64_t keys[] = { FRAMES - 1, -1, 1, 0, FRAMES - 1, 5 };
    assert_int_equal(settle_keep_ready(&k, keys, 6), 0);
    assert_int_equal(s->renders, 3);
    assert_int_equal(s->live, 0);
    const int64_t want[] = { 0, 1, FRAMES - 1 };
    for (int i = 0; i < 3; i++) {
        const SettleKept *got = NULL;
        assert_null(settle_keep_find(&k, want[i])->held);
        assert_int_equal(settle_keep_get(&k, want[i], &got), 0);
        assert_picture(got, (int)want[i]);
    }
    assert_int_equal(s->renders, 3);
    settle_keep_free(&k);
    free(s);
}

/* The PNG made ahead of frame `index` (taken: the caller's) is NULL or
 * settle_encode_png's bytes of its picture; 1 when there was one. */
static int check_png(SettleKeep *k, int index)
{
    size_t len = 0, want_len = 0;
    uint8_t *png = settle_keep_take_png(k, index, &len), *want = NULL;
    if (!png)
        return 0;
    Source pic;
    draw(&pic, index);
    SettleImage img = { .width = W, .height = H, .stride = W * 3, .rgb = &pic.rgb[0][0] };
    assert_int_equal(settle_encode_png(&img, &want, &want_len), 0);
    assert_int_equal(len, want_len);
    assert_memory_equal(png, want, len);
    free(want);
    free(png);
    /* handed over once */
    assert_null(settle_keep_take_png(k, index, &len));
    assert_int_equal(len, 0);
    return 1;
}

/* The chosen method's key frames made ready on a thread while the decision
 * ends: the held ones rendered, the same pixels, each once whether the
 * thread or settle_keep_ready/get made it, the holds let go; with png their
 * PNGs, settle_encode_png's bytes, the not held start frame's too; none for
 * a method whose pictures are not kept. Rounds: stopped at once, done before
 * it is stopped, let go under way; each without and with the PNGs. */
static void test_early(void **state)
{
    (void)state;
    const int64_t keys[] = { 0, FRAMES - 1, 1, FRAMES - 1 };
    for (int round = 0; round < 6; round++) {
        const int png = round >= 3, when = round % 3;
        Source *s = calloc(1, sizeof(*s));
        assert_non_null(s);
        SettleKeep k = { 0 };
        settle_keep_begin(&k, 1, W, H);
        k.png = png;
        s->refuse = 1; /* the start frame copied */
        send(&k, s, 0);
        s->refuse = 0;
        for (int i = 1; i < FRAMES; i++)
            send(&k, s, i);
        assert_int_equal(s->live, 2);
        settle_keep_early(&k, 1); /* not a kept method */
        assert_false(k.early.on);
        settle_keep_early(&k, 0);
        /* without the PNGs, only the two held frames */
        assert_true(k.early.on);
        assert_int_equal(k.early.n, png ? 3 : 2);
        if (when == 1) /* the thread done before it is stopped */
            while (atomic_load_explicit(&k.early.done, memory_order_acquire) < k.early.n)
                sched_yield();
        if (when < 2) {
            assert_int_equal(settle_keep_ready(&k, keys, 4), 0);
            assert_false(k.early.on);
            /* one left held is rendered by settle_keep_get */
            assert_true(s->renders >= 1 && s->renders <= 2);
            for (int i = 0; i < 3; i++) {
                const SettleKept *got = NULL;
                assert_int_equal(settle_keep_get(&k, keys[i], &got), 0);
                assert_picture(got, (int)keys[i]);
            }
            assert_int_equal(s->renders, 2);
            assert_int_equal(s->live, 0);
            int made = 0;
            for (int i = 0; i < 3; i++)
                made += check_png(&k, (int)keys[i]);
            assert_int_equal(made, when == 1 && png ? 3 : made);
            assert_true(png || !made);
        }
        /* when 2: let go with the thread maybe under way */
        settle_keep_free(&k);
        assert_false(k.early.on);
        assert_int_equal(s->live, 0);
        assert_true(s->renders <= 2);
        free(s);
    }
}

static void test_refused(void **state)
{
    (void)state;
    Source *s = calloc(1, sizeof(*s));
    assert_non_null(s);
    s->refuse = 1;
    SettleKeep k = { 0 };
    settle_keep_begin(&k, 1, W, H);
    for (int i = 0; i < 20; i++)
        send(&k, s, i);
    const SettleKept *p = settle_keep_find(&k, 19);
    assert_non_null(p);
    assert_null(p->held);
    assert_picture(p, 19); /* copied as it went */
    const SettleKept *got = NULL;
    assert_int_equal(settle_keep_get(&k, 1, &got), 0);
    assert_picture(got, 1);
    assert_int_equal(s->renders, 0);
    settle_keep_free(&k);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_held),
        cmocka_unit_test(test_ready),
        cmocka_unit_test(test_early),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
