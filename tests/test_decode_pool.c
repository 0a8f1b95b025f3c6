/* SPDX-License-Identifier: BSD-2-Clause */
/* The decoder's buffers from settle's pool (src/decode_pool.c): every
 * frame of the sample decodes to the same samples as with libavcodec's own
 * pool, in buffers of the same sizes and rows; frames held meanwhile (as
 * the kept pictures hold them) are never written again; the mapped planes
 * do not all start at the same offset in a page (the caches' sets).
 * Args: the source tree (for testdata/sample-startup.mp4). */
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

#include "decode_pool.h"
#include "avtest.h"

#define MAXF 400
#define HELD 24

static const char *src_dir = "..";

typedef struct Run {
    int n;
    uint32_t crc[MAXF];     /* of each frame's visible samples */
    size_t size[MAXF][4];   /* its buffers' sizes */
    int linesize[MAXF][4];
    unsigned page_off[MAXF]; /* where its luma plane starts in a 4 KiB page */
    int pooled;             /* settle's pool took the frames */
} Run;

/* Decodes path; with the pool when `pool`. Every HELD-th frame's reference
 * is kept to the end, and checked then against its CRC. */
static void decode(const char *path, int pool, Run *run)
{
    AVFormatContext *fmt;
    int si;
    AVCodecContext *dec = open_video(path, &fmt, &si);
    if (pool)
        assert_int_equal(settle_decode_pool_attach(dec), 0);
    void *p = dec->opaque;
    run->pooled = dec->get_buffer2 != avcodec_default_get_buffer2;
    assert_int_equal(avcodec_open2(dec, NULL, NULL), 0);
    AVPacket *pkt = av_packet_alloc();
    AVFrame *f = av_frame_alloc();
    AVFrame *held[MAXF / HELD + 1] = { NULL };
    int nheld = 0;
    assert_non_null(pkt);
    assert_non_null(f);
    run->n = 0;
    while (next_frame(fmt, dec, si, pkt, f)) {
        assert_true(run->n < MAXF);
        run->crc[run->n] = frame_crc(f);
        for (int k = 0; k < 4; k++) {
            run->size[run->n][k] = f->buf[k] ? f->buf[k]->size : 0;
            run->linesize[run->n][k] = f->linesize[k];
        }
        run->page_off[run->n] = (unsigned)((uintptr_t)f->data[0] % 4096);
        if (run->n % HELD == 0)
            held[nheld++] = av_frame_clone(f);
        run->n++;
        av_frame_unref(f);
    }
    av_frame_free(&f);
    av_packet_free(&pkt);
    avcodec_free_context(&dec);
    settle_decode_pool_free(&p);
    avformat_close_input(&fmt);
    /* the held frames outlive the decoder and its pool, unchanged */
    for (int i = 0; i < nheld; i++) {
        assert_non_null(held[i]);
        assert_int_equal(frame_crc(held[i]), run->crc[i * HELD]);
        av_frame_free(&held[i]);
    }
}

static void test_same_frames(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof(path), "%s/testdata/sample-startup.mp4", src_dir);
    Run *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
    assert_non_null(a);
    assert_non_null(b);
    decode(path, 0, a);
    decode(path, 1, b);
    assert_true(a->n > 100);
    assert_int_equal(a->n, b->n);
    assert_false(a->pooled);
#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
    assert_true(b->pooled);
#endif
    /* the sample's luma planes (480x270 pixels, over 64 KiB) are mapped:
     * the pool's buffers, in turn, start at different offsets */
    if (b->pooled) {
        unsigned seen[MAXF];
        int nseen = 0;
        for (int i = 0; i < b->n; i++) {
            int k = 0;
            while (k < nseen && seen[k] != b->page_off[i])
                k++;
            if (k == nseen)
                seen[nseen++] = b->page_off[i];
            assert_int_equal(b->page_off[i] % 64, 0);
        }
        assert_true(nseen >= 3);
    }
    for (int i = 0; i < a->n; i++) {
        if (a->crc[i] != b->crc[i])
            fail_msg("frame %d differs", i);
        for (int k = 0; k < 4; k++) {
            assert_int_equal(a->size[i][k], b->size[i][k]);
            assert_int_equal(a->linesize[i][k], b->linesize[i][k]);
        }
    }
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        src_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
