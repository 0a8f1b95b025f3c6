/* SPDX-License-Identifier: BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <libavutil/crc.h>
#include <libavutil/pixdesc.h>

#include "avtest.h"

uint32_t frame_crc(const AVFrame *f)
{
    const AVCRC *t = av_crc_get_table(AV_CRC_32_IEEE);
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f->format);
    uint32_t c = 0;
    for (int p = 0; p < 4 && f->data[p]; p++) {
        int sh = p == 1 || p == 2 ? d->log2_chroma_h : 0, sw = p == 1 || p == 2 ? d->log2_chroma_w : 0;
        for (int y = 0; y < (f->height + (1 << sh) - 1) >> sh; y++)
            c = av_crc(t, c, f->data[p] + (ptrdiff_t)y * f->linesize[p],
                       (size_t)((f->width + (1 << sw) - 1) >> sw));
    }
    return c;
}

AVCodecContext *open_video(const char *path, AVFormatContext **fmt, int *si)
{
    *fmt = NULL;
    assert_int_equal(avformat_open_input(fmt, path, NULL, NULL), 0);
    assert_true(avformat_find_stream_info(*fmt, NULL) >= 0);
    *si = av_find_best_stream(*fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    assert_true(*si >= 0);
    const AVCodec *codec = avcodec_find_decoder((*fmt)->streams[*si]->codecpar->codec_id);
    AVCodecContext *dec = avcodec_alloc_context3(codec);
    assert_non_null(dec);
    assert_true(avcodec_parameters_to_context(dec, (*fmt)->streams[*si]->codecpar) >= 0);
    dec->thread_count = 3;
    dec->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
    return dec;
}

int next_frame(AVFormatContext *fmt, AVCodecContext *dec, int si, AVPacket *pkt, AVFrame *f)
{
    for (;;) {
        int ret = avcodec_receive_frame(dec, f);
        if (ret == 0)
            return 1;
        if (ret == AVERROR_EOF)
            return 0;
        assert_int_equal(ret, AVERROR(EAGAIN));
        if (av_read_frame(fmt, pkt) < 0)
            assert_int_equal(avcodec_send_packet(dec, NULL), 0); /* the end: drained */
        else if (pkt->stream_index == si)
            assert_int_equal(avcodec_send_packet(dec, pkt), 0);
        av_packet_unref(pkt);
    }
}
