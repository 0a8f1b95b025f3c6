/* SPDX-License-Identifier: BSD-2-Clause */
/* Settle's own conversion of a film's pictures at full size, which converts
 * a changed band only from its first pair of rows whose planes changed since
 * the picture before (src/decode.c, band_first_pair): every picture is still
 * the whole conversion of its frame, on a film whose small changes fall in
 * every row of a band and at every place of a row, on every kernel set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "settle/settle.h"
#include "settle/pictures.h"
#include "kernels.h"
#include "avtest.h"
#include "capgen.h"

enum { W = 410, H = 96, N = 48 };

/* A gradient, with two small squares: one moving across the picture by an
 * odd number of pixels a frame, one at the rows' end changing colour every
 * third frame. */
static void draw(void *opaque, int i, uint8_t *rgb, int stride, int w, int h)
{
    (void)opaque;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = rgb + y * stride + 3 * x;
            p[0] = (uint8_t)(x / 2);
            p[1] = (uint8_t)(2 * y);
            p[2] = 90;
        }
    const int mx = i * 37 % (w - 12), my = i * 13 % (h - 12);
    for (int y = my; y < my + 12; y++)
        for (int x = mx; x < mx + 12; x++)
            memset(rgb + y * stride + 3 * x, 230, 3);
    for (int y = 40; y < 50; y++)
        for (int x = w - 8; x < w; x++) {
            uint8_t *p = rgb + y * stride + 3 * x;
            p[0] = (uint8_t)(i / 3 % 2 ? 20 : 200);
            p[1] = 40;
            p[2] = (uint8_t)(i / 3 % 2 ? 200 : 20);
        }
}

static const char *path = "convert-steps.mp4";

static void make_film(void)
{
    CapgenSpec spec = { .path = path, .encoder = "libx264", .width = W, .height = H,
                        .nb_frames = N, .quality = 23, .draw = draw };
    assert_int_equal(capgen_write(&spec), 0);
}

/* Each frame of the film converted whole by the reference (BT.601, limited
 * range: what x264 writes unmarked), against the picture of it settle gave. */
static void check_pictures(const SettleImage *img)
{
    AVFormatContext *fmt;
    int si;
    AVCodecContext *dec = open_video(path, &fmt, &si);
    assert_int_equal(avcodec_open2(dec, NULL, NULL), 0);
    AVPacket *pkt = av_packet_alloc();
    AVFrame *f = av_frame_alloc();
    uint8_t *want = malloc((size_t)W * H * 3);
    assert_non_null(pkt);
    assert_non_null(f);
    assert_non_null(want);
    SettleYuvCoef k;
    settle_yuv_coef(&k, 0.299, 0.114, 0);
    int n = 0;
    while (next_frame(fmt, dec, si, pkt, f)) {
        assert_true(n < N);
        assert_int_equal(f->format, AV_PIX_FMT_YUV420P);
        settle_yuv420_rgb(want, W * 3, f->data[0], f->linesize[0], f->data[1], f->linesize[1],
                          f->data[2], f->linesize[2], W, H, &k);
        const SettleImage *im = &img[n];
        assert_non_null(im->rgb);
        assert_int_equal(im->width, W);
        assert_int_equal(im->height, H);
        for (int y = 0; y < H; y++)
            if (memcmp(im->rgb + y * im->stride, want + y * W * 3, (size_t)W * 3))
                fail_msg("frame %d, row %d: not the whole conversion", n, y);
        n++;
        av_frame_unref(f);
    }
    assert_int_equal(n, N);
    free(want);
    av_frame_free(&f);
    av_packet_free(&pkt);
    avcodec_free_context(&dec);
    avformat_close_input(&fmt);
}

static void run(const char *cpu)
{
    setenv("SETTLE_CPU", cpu, 1);
    SettleContext *c = NULL;
    assert_int_equal(settle_open(&c, NULL), 0);
    const SettleResult *r;
    const int ar = settle_analyze_file(c, path, &r);
    assert_true(ar == 0 || ar == SETTLE_ERR_NOT_STABLE);
    int64_t frames[N];
    for (int i = 0; i < N; i++)
        frames[i] = i;
    SettleImage *img = NULL;
    assert_int_equal(settle_grab_frames(c, frames, N, 8192, &img), 0);
    check_pictures(img);
    settle_frames_free(&img, N);
    settle_close(&c);
    unsetenv("SETTLE_CPU");
}

static void test_steps(void **state)
{
    (void)state;
    make_film();
    run("avx2");
    run("sse2");
    run("scalar");
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
