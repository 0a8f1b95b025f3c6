/* SPDX-License-Identifier: BSD-2-Clause */
/* What the tests that drive libavcodec themselves share. */
#ifndef SETTLE_TESTS_AVTEST_H
#define SETTLE_TESTS_AVTEST_H

#include <stdint.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>

/* The CRC of a decoded frame's visible samples, to tell two decodings apart. */
uint32_t frame_crc(const AVFrame *f);

/* path opened (*fmt) and a decoder for its video stream (*si) set up from its
 * parameters with settle's threads (three, frame and slice), not yet opened. */
AVCodecContext *open_video(const char *path, AVFormatContext **fmt, int *si);

/* The next frame of stream si decoded into f (1; the caller unrefs it), packet
 * by packet through pkt, the decoder drained at the end; 0 after the last. */
int next_frame(AVFormatContext *fmt, AVCodecContext *dec, int si, AVPacket *pkt, AVFrame *f);

#endif
