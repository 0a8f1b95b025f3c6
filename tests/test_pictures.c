/* SPDX-License-Identifier: BSD-2-Clause */
/* Pictures of an analysis: the key frames, the filmstrip, PNG files that
 * decode with the expected sizes and pixels, and the HTML report.
 * Args: the source tree (for testdata/sample-startup.mp4). */
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

#include "sample.h"

#include "capgen.h"
#include "pngread.h"
#include "settle/pictures.h"
#include "settle/settle.h"
#include "test_util.h"

static const char *src_dir = "..";

/* Each frame one flat colour, by a table of (first frame, colour). */
typedef struct Flat {
    int nsteps;
    const int *first;
    const uint8_t (*rgb)[3];
    int every; /* > 0: frame i has its own colour up to this frame (many changes) */
} Flat;

static void draw_flat(void *opaque, int index, uint8_t *rgb, int stride, int w, int h)
{
    const Flat *f = opaque;
    uint8_t c[3];
    if (f->every && index < f->every) {
        c[0] = (uint8_t)(index * 37);
        c[1] = (uint8_t)(255 - index * 11);
        c[2] = (uint8_t)(index * 101);
    } else {
        int k = 0;
        while (k + 1 < f->nsteps && index >= f->first[k + 1])
            k++;
        memcpy(c, f->rgb[k], 3);
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            memcpy(rgb + (ptrdiff_t)y * stride + 3 * x, c, 3);
}

static void make(const char *path, Flat *f, int frames)
{
    CapgenSpec spec = { .path = path, .encoder = "ffv1", .width = 160, .height = 120,
                        .nb_frames = frames, .fps = 30, .draw = draw_flat, .opaque = f };
    assert_int_equal(capgen_write(&spec), 0);
}

/* Decodes a PNG file; returns its pixels (RGB) and size. */
static uint8_t *read_png(const char *path, int *w, int *h)
{
    unsigned pw = 0, ph = 0;
    size_t size;
    uint8_t *px = pngread(path, 3, &pw, &ph, &size, NULL);
    *w = (int)pw;
    *h = (int)ph;
    return px;
}

static void assert_colour(const uint8_t *p, const uint8_t want[3])
{
    for (int k = 0; k < 3; k++)
        if (abs(p[k] - want[k]) > 4)
            fail_msg("pixel %d,%d,%d, expected %d,%d,%d", p[0], p[1], p[2], want[0], want[1],
                     want[2]);
}

static const uint8_t gray[3] = { 50, 50, 50 }, red[3] = { 220, 30, 30 },
                     blue[3] = { 30, 30, 220 }, green[3] = { 30, 200, 60 };

static void test_key_frames_and_filmstrip(void **state)
{
    (void)state;
    static const int first[] = { 0, 10, 20, 30 };
    static const uint8_t cols[][3] = { { 50, 50, 50 }, { 220, 30, 30 }, { 30, 30, 220 }, { 30, 200, 60 } };
    Flat f = { .nsteps = 4, .first = first, .rgb = cols };
    const char *path = "pictures-steps.mkv";
    make(path, &f, 45);

    SettleContext *c = NULL;
    assert_int_equal(settle_open(&c, NULL), 0);
    SettlePictures *p = NULL;
    assert_int_equal(settle_grab_pictures(c, &p), SETTLE_ERR_STATE); /* nothing analysed */
    assert_null(p);
    const SettleResult *r;
    assert_int_equal(settle_analyze_file(c, path, &r), 0);
    assert_int_equal(r->stable_frame, 30);
    assert_int_equal(settle_grab_pictures(c, &p), 0);
    assert_non_null(p);
    assert_int_equal(p->nframes, 4);
    static const char *const roles[] = { "start", "stable", "first-change", "last-change" };
    static const int64_t frames[] = { 0, 30, 10, 30 };
    const uint8_t *colour[] = { gray, green, red, green };
    for (int k = 0; k < 4; k++) {
        const SettleImage *im = &p->frame[k];
        assert_string_equal(im->role, roles[k]);
        assert_int_equal(im->frame, frames[k]);
        assert_near(im->time, frames[k] / 30.0, 1e-3); /* Matroska: milliseconds */
        assert_int_equal(im->width, 160);
        assert_int_equal(im->height, 120);
        assert_colour(im->rgb + 60 * im->stride + 80 * 3, colour[k]);
    }
    /* the stable frame is also the last change: kept once */
    assert_ptr_equal(p->frame[1].rgb, p->frame[3].rgb);
    assert_ptr_not_equal(p->frame[0].rgb, p->frame[2].rgb);
    /* four distinct pictures: 0, 10, 20, 30; not scaled (they fit the box) */
    assert_int_equal(p->thumbs, 4);
    assert_string_equal(p->filmstrip.role, "filmstrip");
    /* a cell: the widest of the picture and the label "1.000 s" (82 pixels)
     * plus 10 each side; picture + 10 above and below + two label lines of 19 */
    assert_int_equal(p->filmstrip.width, 4 * (160 + 20));
    assert_int_equal(p->filmstrip.height, 120 + 20 + 2 * 19);

    /* the PNGs decode to the same sizes and pixels */
    const char *png = "pictures-filmstrip.png";
    FILE *o = fopen(png, "wb");
    assert_non_null(o);
    assert_int_equal(settle_write_png(o, &p->filmstrip), 0);
    fclose(o);
    int w, h;
    uint8_t *px = read_png(png, &w, &h);
    assert_non_null(px);
    assert_int_equal(w, p->filmstrip.width);
    assert_int_equal(h, p->filmstrip.height);
    assert_memory_equal(px, p->filmstrip.rgb, (size_t)w * h * 3);
    /* thumbnail i at x = i * 180 + 10, y = 10: its centre has its colour */
    const uint8_t *thumb_colour[] = { gray, red, blue, green };
    for (int i = 0; i < 4; i++)
        assert_colour(px + (size_t)(10 + 60) * w * 3 + (size_t)(i * 180 + 10 + 80) * 3, thumb_colour[i]);
    /* the stable frame (the 4th) is outlined in green, the start (1st) in orange */
    assert_colour(px + (size_t)(10 - 2) * w * 3 + (size_t)(3 * 180 + 10 + 80) * 3,
                  (const uint8_t[3]){ 0x2a, 0x9d, 0x3f });
    assert_colour(px + (size_t)(10 - 2) * w * 3 + (size_t)(10 + 80) * 3,
                  (const uint8_t[3]){ 0xde, 0x64, 0x0d });
    /* the times are written under each thumbnail: dark pixels in the label row */
    for (int i = 0; i < 4; i++) {
        int ink = 0;
        for (int y = 140; y < 160; y++)
            for (int x = i * 180; x < (i + 1) * 180; x++)
                ink += px[((size_t)y * w + x) * 3] < 100;
        assert_true(ink > 40);
    }
    free(px);
    const char *key = "pictures-stable.png";
    o = fopen(key, "wb");
    assert_non_null(o);
    assert_int_equal(settle_write_png(o, &p->frame[1]), 0);
    fclose(o);
    px = read_png(key, &w, &h);
    assert_non_null(px);
    assert_int_equal(w, 160);
    assert_int_equal(h, 120);
    assert_memory_equal(px, p->frame[1].rgb, (size_t)w * h * 3);
    free(px);
    unlink(png);
    unlink(key);
    settle_pictures_free(&p);
    assert_null(p);
    settle_close(&c);
    unlink(path);
}

static void test_many_changes(void **state)
{
    (void)state;
    static const int first[] = { 0 };
    static const uint8_t cols[][3] = { { 30, 200, 60 } };
    Flat f = { .nsteps = 1, .first = first, .rgb = cols, .every = 150 };
    const char *path = "pictures-many.mkv";
    make(path, &f, 170);
    SettleContext *c = NULL;
    assert_int_equal(settle_open(&c, NULL), 0);
    const SettleResult *r;
    assert_int_equal(settle_analyze_file(c, path, &r), 0);
    assert_int_equal(r->stable_frame, 150);
    SettlePictures *p = NULL;
    assert_int_equal(settle_grab_pictures(c, &p), 0);
    /* 151 distinct pictures, thinned to the limit, the stable frame kept */
    assert_int_equal(p->thumbs, SETTLE_FILMSTRIP_MAX);
    assert_int_equal(p->filmstrip.width, 6 * 180);
    assert_int_equal(p->filmstrip.height, 10 * (120 + 20 + 38));
    assert_int_equal(p->frame[1].frame, 150);
    /* the last thumbnail is the stable frame, outlined */
    const SettleImage *s = &p->filmstrip;
    int last = SETTLE_FILMSTRIP_MAX - 1;
    const uint8_t *edge = s->rgb + (ptrdiff_t)((last / 6) * 178 + 8) * s->stride + ((last % 6) * 180 + 90) * 3;
    assert_colour(edge, (const uint8_t[3]){ 0x2a, 0x9d, 0x3f });
    settle_pictures_free(&p);
    settle_close(&c);
    unlink(path);
}

static void test_sample(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof(path), "%s/testdata/sample-startup.mp4", src_dir);
    SettleContext *c = NULL;
    assert_int_equal(settle_open(&c, NULL), 0);
    const SettleResult *r;
    assert_int_equal(settle_analyze_file(c, path, &r), 0);
    SettlePictures *p = NULL;
    assert_int_equal(settle_grab_pictures(c, &p), 0);
    assert_int_equal(p->nframes, 4);
    assert_int_equal(p->frame[1].frame, r->stable_frame);
    for (int k = 0; k < 4; k++) {
        assert_int_equal(p->frame[k].width, 480);
        assert_int_equal(p->frame[k].height, 270);
    }
    /* thumbnails of 200x113: scaled to fit the box */
    assert_true(p->thumbs >= 4 && p->thumbs <= SETTLE_FILMSTRIP_MAX);
    assert_int_equal(p->filmstrip.width, (p->thumbs < 6 ? p->thumbs : 6) * 220);
    assert_int_equal(p->filmstrip.height, (p->thumbs + 5) / 6 * (113 + 20 + 38));
    settle_pictures_free(&p);
    settle_close(&c);
}

static void assert_same_image(const SettleImage *a, const SettleImage *b)
{
    assert_int_equal(a->frame, b->frame);
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->height, b->height);
    assert_true((a->rgb == NULL) == (b->rgb == NULL));
    if (a->role || b->role)
        assert_string_equal(a->role, b->role);
    for (int y = 0; a->rgb && y < a->height; y++)
        if (memcmp(a->rgb + (ptrdiff_t)y * a->stride, b->rgb + (ptrdiff_t)y * b->stride,
                   (size_t)a->width * 3))
            fail_msg("%s: row %d differs", a->role ? a->role : "?", y);
}

/* The pictures of `path` kept during the one reading (settle_keep_pictures)
 * against a second reading's: the key frames always, the filmstrip too when
 * `filmstrip`. Returns the kept pictures' thumbnail count. */
static int kept_scale; /* the scale one_reading's reading with kept pictures measured at */
static int kept_ahead; /* key frames whose PNG that reading made ahead (SETTLE_KEEP_PNG) */

/* The key frames' PNGs made ahead are settle_encode_png's bytes of their
 * pixels, shared by the roles of one frame; returns how many frames had one. */
static int check_ahead(const SettlePictures *p)
{
    int n = 0;
    for (int k = 0; k < p->nframes; k++) {
        const SettleImage *f = &p->frame[k];
        for (int j = 0; j < k; j++)
            if (p->frame[j].rgb == f->rgb) {
                assert_ptr_equal(p->png[j], p->png[k]);
                f = NULL;
                break;
            }
        if (!f || !p->png[k])
            continue;
        uint8_t *want = NULL;
        size_t len = 0;
        assert_int_equal(settle_encode_png(f, &want, &len), 0);
        assert_int_equal(p->png_len[k], len);
        assert_memory_equal(p->png[k], want, len);
        free(want);
        n++;
    }
    for (int k = p->nframes; k < 4; k++)
        assert_null(p->png[k]);
    return n;
}

static int one_reading(const char *path, int filmstrip, const SettleSettings *s)
{
    SettleContext *c = NULL;
    SettlePictures *p[2] = { NULL, NULL };
    const SettleResult *r;
    assert_int_equal(settle_open(&c, s), 0);
    for (int keep = 0; keep < 2; keep++) {
        /* the kept pictures with their PNGs made ahead */
        assert_int_equal(settle_keep_pictures(c, keep ? 1 | SETTLE_KEEP_PNG : 0), 0);
        int ar = settle_analyze_file(c, path, &r);
        assert_true(ar == 0 || ar == SETTLE_ERR_NOT_STABLE);
        assert_int_equal(settle_grab_pictures(c, &p[keep]), 0);
        assert_int_equal(p[keep]->reread, !keep);
        if (keep) {
            kept_scale = r->scale;
            kept_ahead = check_ahead(p[keep]);
        } else {
            assert_int_equal(check_ahead(p[keep]), 0);
        }
    }
    /* the key frames are the kept copies themselves, not copied again, and
     * stay the pictures' when the context reads on (its copies let go) */
    SettlePictures *again = NULL;
    assert_int_equal(settle_grab_pictures(c, &again), 0);
    assert_int_equal(again->reread, 0);
    assert_int_equal(again->nframes, p[1]->nframes);
    for (int k = 0; k < again->nframes; k++)
        assert_ptr_equal(again->frame[k].rgb, p[1]->frame[k].rgb);
    settle_pictures_free(&again);
    int ar = settle_analyze_file(c, path, &r);
    assert_true(ar == 0 || ar == SETTLE_ERR_NOT_STABLE);
    settle_close(&c);
    assert_int_equal(p[0]->nframes, p[1]->nframes);
    for (int k = 0; k < p[0]->nframes; k++)
        assert_same_image(&p[0]->frame[k], &p[1]->frame[k]);
    if (filmstrip) {
        assert_int_equal(p[0]->thumbs, p[1]->thumbs);
        assert_same_image(&p[0]->filmstrip, &p[1]->filmstrip);
    }
    int n = p[1]->thumbs;
    settle_pictures_free(&p[0]);
    settle_pictures_free(&p[1]);
    return n;
}

static void test_one_reading(void **state)
{
    (void)state;
    static const int first[] = { 0, 10, 20, 30 };
    static const uint8_t cols[][3] = { { 50, 50, 50 }, { 220, 30, 30 }, { 30, 30, 220 }, { 30, 200, 60 } };
    Flat f = { .nsteps = 4, .first = first, .rgb = cols };
    make("pictures-one-steps.mkv", &f, 45);
    assert_int_equal(one_reading("pictures-one-steps.mkv", 1, NULL), 4);
    unlink("pictures-one-steps.mkv");
    /* 151 distinct frames: all candidates, as the second reading's */
    Flat many = { .nsteps = 1, .first = first, .rgb = cols, .every = 150 };
    make("pictures-one-many.mkv", &many, 170);
    assert_int_equal(one_reading("pictures-one-many.mkv", 1, NULL), SETTLE_FILMSTRIP_MAX);
    unlink("pictures-one-many.mkv");
    /* 401: past the 240 kept a method, every 2nd; the key frames the same */
    Flat more = { .nsteps = 1, .first = first, .rgb = cols, .every = 400 };
    make("pictures-one-more.mkv", &more, 420);
    SettleSettings diff;
    settle_default_settings(&diff);
    diff.method = SETTLE_METHOD_DIFF; /* the block test sees no content in flat colours */
    assert_int_equal(one_reading("pictures-one-more.mkv", 0, &diff), SETTLE_FILMSTRIP_MAX);
    unlink("pictures-one-more.mkv");
    char path[4096];
    snprintf(path, sizeof(path), "%s/testdata/sample-startup.mp4", src_dir);
    one_reading(path, 1, NULL);
    /* a screen recording: its key frames' PNGs made while the animated
     * areas were looked for, as many as that time allowed (test_keep's
     * test_early makes them all) */
    assert_true(kept_ahead >= 0 && kept_ahead <= 3);
    SettleSettings s;
    settle_default_settings(&s);
    s.method = SETTLE_METHOD_ENTROPY;
    one_reading(path, 1, &s);
    /* a reduced reading keeps its pictures at full size, as a second,
     * full-size reading takes them */
    settle_default_settings(&s);
    s.scale = 2;
    one_reading(path, 1, &s);
    assert_int_equal(kept_scale, 2);
}

/* Real captures (argument 'real'; ../shared beside the source tree): a
 * browsertime desktop page load and two Eideticker camera captures. */
static const char *const real[] = { "browsertime/amazon_chrome.mp4",
                                     "eideticker/startup-test-elmo.webm",
                                     "eideticker/contacts-b2g-aug30-load-taphomescreen1.webm" };

static void test_one_reading_real(void **state)
{
    (void)state;
    char path[4096];
    for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
        snprintf(path, sizeof(path), "%s/../shared/realdata/%s", src_dir, real[i]);
        if (access(path, R_OK) == 0) {
            one_reading(path, 1, NULL);
            /* the camera capture is measured reduced (--scale auto) with its
             * pictures kept at full size */
            if (strstr(real[i], "elmo"))
                assert_int_equal(kept_scale, 2);
        }
    }
    /* the viewport's search looks at the first pictures without measuring
     * them: the kept copies still follow every picture's changed rows */
    snprintf(path, sizeof(path), "%s/../shared/realdata/%s", src_dir, real[0]);
    if (access(path, R_OK) == 0) {
        SettleSettings s;
        settle_default_settings(&s);
        s.crop = SETTLE_CROP_VIEWPORT;
        one_reading(path, 1, &s);
    }
}

typedef struct Mem {
    const uint8_t *p;
    size_t n, pos;
} Mem;

static int mem_read(void *opaque, uint8_t *buf, int size)
{
    Mem *m = opaque;
    size_t n = m->n - m->pos < (size_t)size ? m->n - m->pos : (size_t)size;
    memcpy(buf, m->p + m->pos, n);
    m->pos += n;
    return (int)n;
}

static void test_not_a_file(void **state)
{
    (void)state;
    static const int first[] = { 0, 5 };
    static const uint8_t cols[][3] = { { 50, 50, 50 }, { 30, 200, 60 } };
    Flat f = { .nsteps = 2, .first = first, .rgb = cols };
    const char *path = "pictures-pipe.mkv";
    make(path, &f, 20);
    FILE *in = fopen(path, "rb");
    assert_non_null(in);
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof(buf), in);
    fclose(in);
    Mem m = { buf, n, 0 };
    SettleContext *c = NULL;
    assert_int_equal(settle_open(&c, NULL), 0);
    const SettleResult *r;
    assert_int_equal(settle_analyze_io(c, "pipe.mkv", mem_read, NULL, &m, &r), 0);
    SettlePictures *p = NULL;
    /* a capture that was not a file cannot be read a second time */
    assert_int_equal(settle_grab_pictures(c, &p), SETTLE_ERR_INVAL);
    assert_null(p);
    /* but its pictures can be kept during the one reading */
    m.pos = 0;
    assert_int_equal(settle_keep_pictures(c, 1), 0);
    assert_int_equal(settle_analyze_io(c, "pipe.mkv", mem_read, NULL, &m, &r), 0);
    assert_int_equal(settle_grab_pictures(c, &p), 0);
    assert_int_equal(p->reread, 0);
    assert_int_equal(p->frame[1].frame, 5);
    settle_pictures_free(&p);
    /* the kept frames for settle_grab_frames too, the last one included: the
     * same pictures as a second reading of the file */
    static const int64_t want[] = { 19, 5, -1, 19 };
    SettleImage *kept = NULL, *again = NULL;
    assert_int_equal(settle_grab_frames(c, want, 4, 64, &kept), 0);
    SettleContext *fc = NULL;
    assert_int_equal(settle_open(&fc, NULL), 0);
    assert_int_equal(settle_analyze_file(fc, path, &r), 0);
    assert_int_equal(settle_grab_frames(fc, want, 4, 64, &again), 0);
    for (int i = 0; i < 4; i++) {
        assert_same_image(&kept[i], &again[i]);
        if (kept[i].rgb)
            assert_near(kept[i].time, again[i].time, 1e-9);
    }
    assert_null(kept[2].rgb);
    assert_non_null(kept[0].rgb);
    settle_frames_free(&kept, 4);
    settle_frames_free(&again, 4);
    settle_close(&fc);
    settle_close(&c);
    unlink(path);
}

static void test_png_errors(void **state)
{
    (void)state;
    uint8_t px[12] = { 0 };
    SettleImage im = { .width = 2, .height = 2, .stride = 6, .rgb = px };
    FILE *f = tmpfile();
    assert_non_null(f);
    SettleImage bad = im;
    bad.stride = 3;
    assert_int_equal(settle_write_png(f, &bad), SETTLE_ERR_INVAL);
    bad = im;
    bad.width = 0;
    assert_int_equal(settle_write_png(f, &bad), SETTLE_ERR_INVAL);
    assert_int_equal(settle_write_png(f, &im), 0);
    fclose(f);
    uint8_t *png = px;
    size_t len = 1;
    bad.width = 0;
    assert_int_equal(settle_encode_png(&bad, &png, &len), SETTLE_ERR_INVAL);
    assert_null(png);
    assert_int_equal(len, 0);
    assert_int_equal(settle_encode_png(NULL, &png, &len), SETTLE_ERR_INVAL);
}

/* settle_encode_png's bytes are settle_write_png's, for pictures whose PNG
 * outgrows the first buffer and for a padded stride. */
static void test_png_bytes(void **state)
{
    (void)state;
    static const int size[][3] = { { 1, 1, 3 }, { 333, 211, 1000 }, { 700, 500, 2100 } };
    uint32_t seed = 12345;
    for (int k = 0; k < 3; k++) {
        SettleImage im = { .width = size[k][0], .height = size[k][1], .stride = size[k][2] };
        im.rgb = malloc((size_t)im.stride * im.height);
        assert_non_null(im.rgb);
        for (size_t i = 0; i < (size_t)im.stride * im.height; i++) {
            seed = seed * 1664525u + 1013904223u;
            im.rgb[i] = (uint8_t)(seed >> 24); /* noise: compresses badly */
        }
        char *ref = NULL;
        size_t rlen = 0;
        FILE *m = open_memstream(&ref, &rlen);
        assert_non_null(m);
        assert_int_equal(settle_write_png(m, &im), 0);
        fclose(m);
        uint8_t *png = NULL;
        size_t len = 0;
        assert_int_equal(settle_encode_png(&im, &png, &len), 0);
        assert_int_equal(len, rlen);
        assert_memory_equal(png, ref, len);
        free(png);
        free(ref);
        free(im.rgb);
    }
}

/* settle_encode_png's PNG decodes (libpng) to the picture's pixels: rows
 * wider than the encoder's input batch (256 KB), pictures of many batches and
 * of many IDAT chunks (noise), flat and repeated rows (long matches), odd
 * sizes, a padded stride. */
static void test_png_pixels(void **state)
{
    (void)state;
    static const int size[][3] = { { 1, 1, 0 },     { 7, 3, 0 },      { 1, 3000, 0 },
                                   { 90001, 3, 0 }, { 2732, 1536, 0 }, { 641, 479, 1 },
                                   { 333, 211, 0 } };
    char dir[] = "/tmp/settle-png-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof(path), "%s/p.png", dir);
    uint32_t seed = 777;
    for (size_t k = 0; k < sizeof(size) / sizeof(size[0]); k++) {
        int w = size[k][0], h = size[k][1], kind = size[k][2];
        ptrdiff_t row = (ptrdiff_t)w * 3 + (kind == 1 ? 5 : 0);
        uint8_t *buf = malloc((size_t)row * h);
        assert_non_null(buf);
        for (int y = 0; y < h; y++)
            for (ptrdiff_t i = 0; i < row; i++) {
                seed = seed * 1664525u + 1013904223u;
                /* noise in some bands, flat or repeated rows in others */
                buf[y * row + i] = (y / 7) % 3 == 0 ? (uint8_t)(seed >> 24)
                                   : (y / 7) % 3 == 1 ? (uint8_t)(i % 251)
                                                      : (uint8_t)(y + i / 300);
            }
        SettleImage im = { .width = w, .height = h, .stride = row, .rgb = buf };
        uint8_t *png = NULL;
        size_t len = 0;
        assert_int_equal(settle_encode_png(&im, &png, &len), 0);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(png, 1, len, f), len);
        assert_int_equal(fclose(f), 0);
        unsigned pw = 0, ph = 0;
        size_t n = 0;
        uint8_t *px = pngread(path, 3, &pw, &ph, &n, "test_png_pixels");
        assert_non_null(px);
        assert_int_equal(pw, w);
        assert_int_equal(ph, h);
        for (int y = 0; y < h; y++)
            assert_memory_equal(px + (size_t)y * w * 3, im.rgb + (ptrdiff_t)y * im.stride,
                                (size_t)w * 3);
        free(px);
        free(png);
        free(buf);
    }
    unlink(path);
    rmdir(dir);
}

/* settle_encode_answer: the same PNG bytes and scaled pixels as outlining a
 * whole copy (settle_outline_answer, settle_encode_png, settle_scale_image),
 * for sizes scaled by whole and uneven bands of rows, not scaled, labels
 * cut by the bands and outlines at the picture's edges; src unchanged. */
static void test_encode_answer(void **state)
{
    (void)state;
    static const int size[][4] = { /* width, height, stride, box */
        { 480, 270, 1440, 640 }, { 960, 540, 2880, 320 }, { 1003, 601, 3100, 333 },
        { 350, 950, 1050, 64 }, { 64, 48, 192, 8 },
    };
    static const SettleAnimatedRegion anim[] = { { 0, 0, 30, 1000, 5, 0.5 }, { 200, 50, 900, 20, 3, 1 } };
    const SettleRegionResult reg[] = {
        { .name = "top", .x = 5, .y = 0, .width = 300, .height = 40, .stable_time = 1.25 },
        { .name = "hero image", .x = 100, .y = 90, .width = 500, .height = 300, .stable_time = NAN },
        { .name = "right", .x = 440, .y = 150, .width = 40, .height = 120, .stable_time = 0.5 },
    };
    uint32_t seed = 99;
    for (int k = 0; k < 5; k++) {
        SettleImage src = { .width = size[k][0], .height = size[k][1], .stride = size[k][2],
                            .role = "stable", .frame = 7, .time = 0.25 };
        size_t bytes = (size_t)src.stride * src.height;
        src.rgb = malloc(bytes);
        uint8_t *orig = malloc(bytes);
        assert_non_null(src.rgb);
        assert_non_null(orig);
        for (size_t i = 0; i < bytes; i++) {
            seed = seed * 1664525u + 1013904223u;
            src.rgb[i] = (uint8_t)((i / 3 % 97) + (seed >> 29)); /* texture and a little noise */
        }
        memcpy(orig, src.rgb, bytes);
        SettleResult r = { .width = 480, .height = 270, .nanimated = 2, .animated = anim,
                           .nregions = 3, .regions = reg };
        r.deciding_change = (SettleChangeArea){ .frame = 3, .x = 470, .y = 260, .width = 10,
                                                .height = 10 };
        SettleImage copy = src, want_small;
        copy.rgb = malloc(bytes);
        assert_non_null(copy.rgb);
        memcpy(copy.rgb, src.rgb, bytes);
        assert_int_equal(settle_outline_answer(&copy, &r), 0);
        uint8_t *want = NULL, *png = NULL;
        size_t want_len = 0, len = 0;
        assert_int_equal(settle_encode_png(&copy, &want, &want_len), 0);
        assert_int_equal(settle_scale_image(&copy, size[k][3], &want_small), 0);

        SettleImage small;
        assert_int_equal(settle_encode_answer(&src, &r, &png, &len, size[k][3], &small), 0);
        assert_int_equal(len, want_len);
        assert_memory_equal(png, want, len);
        assert_int_equal(small.width, want_small.width);
        assert_int_equal(small.height, want_small.height);
        assert_int_equal(small.stride, want_small.stride);
        assert_int_equal(small.frame, 7);
        assert_memory_equal(small.rgb, want_small.rgb, (size_t)small.stride * small.height);
        assert_memory_equal(src.rgb, orig, bytes);
        free(small.rgb);
        free(png);
        /* each alone */
        assert_int_equal(settle_encode_answer(&src, &r, &png, &len, 0, NULL), 0);
        assert_int_equal(len, want_len);
        assert_memory_equal(png, want, len);
        free(png);
        assert_int_equal(settle_encode_answer(&src, &r, NULL, NULL, size[k][3], &small), 0);
        assert_memory_equal(small.rgb, want_small.rgb, (size_t)small.stride * small.height);
        free(small.rgb);
        free(want_small.rgb);
        free(want);
        free(copy.rgb);
        free(orig);
        free(src.rgb);
    }
    SettleImage none = { 0 };
    SettleResult r = { .width = 4, .height = 4 };
    uint8_t *png = NULL;
    size_t len = 0;
    assert_int_equal(settle_encode_answer(&none, &r, &png, &len, 0, NULL), SETTLE_ERR_INVAL);
}

static char *report(const SettleReportCapture *caps, int n, int *ret)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    *ret = settle_write_report(m, caps, n);
    fclose(m);
    return buf;
}

static void test_report(void **state)
{
    (void)state;
    static const uint8_t png[] = { 0x00, 0xff, 0x10, 'a' };
    const char *json =
        "{\"input\":\"a<b>&c.mp4\",\"frames\":10,\"duration\":1,\"width\":4,\"height\":2,"
        "\"method\":\"diff\",\"method_reason\":\"why\",\"diff_threshold_pixels\":4096,"
        "\"start_frame\":0,\"start_time\":0,\"stable_frame\":5,\"stable_time\":0.5,"
        "\"load_time\":0.5,\"first_visual_change\":0.1,\"last_visual_change\":0.5,"
        "\"speed_index\":0.25,\"status\":\"stable\",\"error\":null,"
        "\"settings\":{\"tolerance\":\"5\",\"entropy-threshold\":\"0.05\",\"window\":\"5\"},"
        "\"labels\":{\"build\":\"4711\"},\"settle_version\":\"0.1.0\"}";
    SettleReportCapture cap = { .json = json, .plot_png = png, .plot_len = 4,
                                .filmstrip_png = png, .filmstrip_len = 3 };
    int ret;
    char *html = report(&cap, 1, &ret);
    assert_int_equal(ret, 0);
    assert_non_null(strstr(html, "<!DOCTYPE html>"));
    assert_non_null(strstr(html, "a&lt;b&gt;&amp;c.mp4"));
    assert_null(strstr(html, "a<b>"));
    assert_non_null(strstr(html, "data:image/png;base64,AP8QYQ==\""));
    assert_non_null(strstr(html, "data:image/png;base64,AP8Q\""));
    assert_non_null(strstr(html, "0.500&nbsp;s"));
    assert_non_null(strstr(html, "Speed Index"));
    assert_non_null(strstr(html, "4711"));
    /* self-contained: nothing fetched from elsewhere */
    assert_null(strstr(html, "http"));
    assert_null(strstr(html, "class=\"overview\""));
    free(html);

    /* every length's padding, and pictures longer than a block of base64 */
    static const size_t lens[] = { 1, 2, 5, 3071, 3072, 3073, 3074, 10000 };
    for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
        static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        size_t n = lens[k];
        uint8_t *bytes = malloc(n);
        char *want = malloc(n / 3 * 4 + 64);
        assert_non_null(bytes);
        assert_non_null(want);
        for (size_t i = 0; i < n; i++)
            bytes[i] = (uint8_t)(i * 7 + i / 255);
        size_t o = (size_t)sprintf(want, "data:image/png;base64,");
        for (size_t i = 0; i < n; i += 3) { /* one group at a time, '=' for what is missing */
            uint32_t v = (uint32_t)bytes[i] << 16 | (i + 1 < n ? (uint32_t)bytes[i + 1] << 8 : 0) |
                         (i + 2 < n ? bytes[i + 2] : 0);
            want[o++] = tab[v >> 18];
            want[o++] = tab[(v >> 12) & 63];
            want[o++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
            want[o++] = i + 2 < n ? tab[v & 63] : '=';
        }
        strcpy(want + o, "\"");
        SettleReportCapture big = { .json = json, .plot_png = bytes, .plot_len = n };
        html = report(&big, 1, &ret);
        assert_int_equal(ret, 0);
        assert_non_null(strstr(html, want));
        free(html);
        free(want);
        free(bytes);
    }

    SettleReportCapture two[2] = { cap, { .json = json, .plot_note = "gnuplot <missing>" } };
    html = report(two, 2, &ret);
    assert_int_equal(ret, 0);
    assert_non_null(strstr(html, "class=\"overview\""));
    assert_non_null(strstr(html, "id=\"c2\""));
    assert_non_null(strstr(html, "No plot: gnuplot &lt;missing&gt;"));
    free(html);

    SettleReportCapture broken = { .json = "[1,2]" };
    html = report(&broken, 1, &ret);
    assert_int_equal(ret, SETTLE_ERR_FORMAT);
    free(html);
    broken.json = "{\"input\": ";
    html = report(&broken, 1, &ret);
    assert_int_equal(ret, SETTLE_ERR_FORMAT);
    free(html);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        src_dir = argv[1];
    if (argc > 2 && !strcmp(argv[2], "real")) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/../shared/realdata/%s", src_dir, real[0]);
        if (access(path, R_OK) != 0)
            return 77; /* no real captures here */
        const struct CMUnitTest rt[] = { cmocka_unit_test(test_one_reading_real) };
        return cmocka_run_group_tests(rt, NULL, NULL);
    }
    struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_frames_and_filmstrip),
        cmocka_unit_test(test_many_changes),
        cmocka_unit_test(test_sample),
        cmocka_unit_test(test_one_reading),
        cmocka_unit_test(test_not_a_file),
        cmocka_unit_test(test_png_errors),
        cmocka_unit_test(test_png_bytes),
        cmocka_unit_test(test_png_pixels),
        cmocka_unit_test(test_encode_answer),
        cmocka_unit_test(test_report),
    };
    /* under memcheck: all but many_changes (the same paths over 3x the frames)
     * and one_reading (two readings of three captures: 85 s under it, the
     * one reading's keeping runs in key_frames_and_filmstrip and sample) */
    static const char *const checked[] = {
        "test_key_frames_and_filmstrip",
        "test_sample",
        "test_not_a_file",
        "test_png_errors",
        "test_png_bytes",
        "test_png_pixels",
        "test_encode_answer",
        "test_report",
        NULL,
    };
    size_t n = valgrind_sample(tests, sizeof(tests) / sizeof(tests[0]), checked);
    return _cmocka_run_group_tests("tests", tests, n, NULL, NULL);
}
