/* SPDX-License-Identifier: BSD-2-Clause */
/* The probe's packets decoded again (src/decode_replay.c): a frame asked
 * for is the frame the reading decoded, sample for sample, whether the
 * decoding starts at a key packet (VP8, VP9) or at the first one (H.264
 * with B-frames), asked in order, skipping, or going back; a frame whose
 * packets were not kept cannot be had. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#include <cmocka.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "capgen.h"
#include "decode_replay.h"
#include "e2e_common.h"
#include "avtest.h"

#define FRAMES 40

/* Every frame different: a square that moves over a pattern that changes. */
static void draw(void *opaque, int index, uint8_t *rgb, int stride, int w, int h)
{
    (void)opaque;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = rgb + (ptrdiff_t)y * stride + x * 3;
            int in = x >= index * 3 && x < index * 3 + 24 && y >= 20 && y < 44;
            p[0] = in ? 230 : (uint8_t)(x * 2 + index * 5);
            p[1] = in ? 40 : (uint8_t)(y * 3 + index * 7);
            p[2] = (uint8_t)((x ^ y) + index * 11);
        }
}

typedef struct Reading {
    int n;
    uint32_t crc[FRAMES * 2];
    int64_t pts[FRAMES * 2];
} Reading;

/* Decodes path as the reading does (frame threads), keeping the stream's
 * packets in r: all of them, or the first `keep` (then not complete). */
static void read_all(const char *path, Reading *rd, SettleReplay *r, int keep,
                     AVFormatContext **fmtp)
{
    AVFormatContext *fmt;
    int si;
    AVCodecContext *dec = open_video(path, &fmt, &si);
    dec->pkt_timebase = fmt->streams[si]->time_base;
    assert_int_equal(avcodec_open2(dec, NULL, NULL), 0);
    assert_int_equal(settle_replay_init(r, fmt->streams[si], INT_MAX), 0);
    AVPacket *pkt = av_packet_alloc();
    AVFrame *f = av_frame_alloc();
    assert_non_null(pkt);
    assert_non_null(f);
    rd->n = 0;
    int npkt = 0;
    for (int end = 0; !end;) {
        if (av_read_frame(fmt, pkt) < 0) {
            end = 1;
            if (keep < 0)
                settle_replay_end(r);
            assert_int_equal(avcodec_send_packet(dec, NULL), 0);
        } else if (pkt->stream_index == si) {
            if (keep < 0 || npkt++ < keep)
                settle_replay_add(r, pkt);
            assert_int_equal(avcodec_send_packet(dec, pkt), 0);
        }
        av_packet_unref(pkt);
        while (avcodec_receive_frame(dec, f) == 0) {
            assert_true(rd->n < FRAMES * 2);
            rd->crc[rd->n] = frame_crc(f);
            rd->pts[rd->n++] = f->pts;
            av_frame_unref(f);
        }
    }
    av_frame_free(&f);
    av_packet_free(&pkt);
    avcodec_free_context(&dec);
    *fmtp = fmt; /* the stream r reads stays open */
}

static void assert_frame(SettleReplay *r, const Reading *rd, int i)
{
    const AVFrame *f = NULL;
    int ret = settle_replay_frame(r, i, rd->pts[i], &f);
    if (ret)
        fail_msg("frame %d: %d", i, ret);
    assert_true(f->pts == rd->pts[i]);
    if (frame_crc(f) != rd->crc[i])
        fail_msg("frame %d differs", i);
}

static void check(const char *encoder, const char *path, int bframes)
{
    CapgenSpec spec = { .path = path, .encoder = encoder, .width = 128, .height = 96,
                        .nb_frames = FRAMES, .fps = 30, .gop = 8, .quality = 30,
                        .bframes = bframes, .draw = draw };
    assert_int_equal(capgen_write(&spec), 0);
    Reading rd;
    SettleReplay r;
    AVFormatContext *fmt = NULL;
    read_all(path, &rd, &r, -1, &fmt);
    assert_int_equal(rd.n, FRAMES);
    /* in order, skipping, the same again, back, then the last (the flush) */
    static const int order[] = { 0, 1, 5, 6, 13, 13, 16, 17, 3, 22, 30, FRAMES - 1 };
    for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
        if (k && order[k] == order[k - 1]) { /* asked twice: from the start, the same */
            settle_replay_free(&r);
            settle_replay_destroy(&r);
            avformat_close_input(&fmt);
            read_all(path, &rd, &r, -1, &fmt);
        }
        assert_frame(&r, &rd, order[k]);
    }
    settle_replay_destroy(&r);
    avformat_close_input(&fmt);
    /* only the first 12 packets kept: the frames they give, not those after */
    read_all(path, &rd, &r, 12, &fmt);
    assert_frame(&r, &rd, 2);
    const AVFrame *f = NULL;
    assert_int_equal(settle_replay_frame(&r, 30, rd.pts[30], &f), 1);
    /* freed: nothing more is kept, nothing can be had */
    settle_replay_free(&r);
    assert_int_equal(settle_replay_frame(&r, 2, rd.pts[2], &f), 1);
    settle_replay_destroy(&r);
    avformat_close_input(&fmt);
    unlink(path);
}

static void test_vp8(void **state)
{
    (void)state;
    check("libvpx", "replay-vp8.webm", 0);
}

static void test_h264(void **state)
{
    (void)state;
    check("libx264", "replay-h264.mp4", 2);
}

static int group_setup(void **state)
{
    (void)state;
    return scratch_enter("decode_replay");
}

static int group_teardown(void **state)
{
    (void)state;
    return scratch_leave();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vp8),
        cmocka_unit_test(test_h264),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
