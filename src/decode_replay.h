/* SPDX-License-Identifier: BSD-2-Clause */
/* The packets of the capture's first seconds, kept while --scale auto's probe
 * holds frames reduced with pictures kept (src/decode.c), so that the few of
 * those frames the pictures take can be decoded again at full size instead of
 * being held whole. */
#ifndef SETTLE_DECODE_REPLAY_H
#define SETTLE_DECODE_REPLAY_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

/* Packets kept, at most (a hidden frame's packet gives no frame), and their
 * bytes: past either, what follows is not kept and frames it would have
 * given cannot be had. */
#define SETTLE_REPLAY_PACKETS 256
#define SETTLE_REPLAY_BYTES ((size_t)32 << 20)

typedef struct SettleReplay {
    /* filled by the reading thread (settle_replay_add), read by the analysis */
    pthread_mutex_t lock;
    AVPacket *pkt[SETTLE_REPLAY_PACKETS];
    int n;
    size_t bytes;
    int complete;  /* every packet of the stream is kept (the end came first) */
    int stopped;   /* no more are kept: past the bounds, or let go */
    /* the second decoder, on the analysis thread */
    const AVStream *vs;
    int64_t max_pixels;
    AVCodecContext *dec;
    AVFrame *frame;
    int sent;      /* packets sent to dec */
    int flushed;
    int64_t got;   /* frames received from dec (those of no size left out), from the first packet */
    int keyed;     /* dec started at a key packet (got not counted) */
    int64_t last_pts; /* of the frame last received, then */
} SettleReplay;

/* Readies r for stream vs, decoded as the reading decodes it (max_pixels).
 * 0 or AVERROR(ENOMEM) (r is then freed, and stopped). */
int settle_replay_init(SettleReplay *r, const AVStream *vs, int64_t max_pixels);

/* The reading thread: keeps a reference to pkt (a packet of the stream, in
 * the order sent to the decoder) unless r stopped; a packet past the bounds,
 * or out of memory, stops it. */
void settle_replay_add(SettleReplay *r, const AVPacket *pkt);

/* The reading thread: the stream ended; every packet is kept unless r stopped. */
void settle_replay_end(SettleReplay *r);

/* The analysis thread: frame i of the stream (counted as the reading counts
 * the frames it hands on: those of no size left out), with timestamp pts,
 * decoded again; *out is r's until the next call or settle_replay_free.
 * For VP8 and VP9 the decoding starts at the last key packet before the
 * packet of that pts (found by pts), for other codecs at the first packet.
 * Frames are asked for in order; an earlier one starts the decoder over. 0,
 * 1 when it cannot be had (its packets were not kept, or the decoder fails),
 * or AVERROR(ENOMEM). The caller checks that *out is the frame it wants. */
int settle_replay_frame(SettleReplay *r, int64_t i, int64_t pts, const AVFrame **out);

/* Stops keeping and frees the packets and the decoder; r may be freed
 * again. The lock goes with settle_replay_destroy. */
void settle_replay_free(SettleReplay *r);
void settle_replay_destroy(SettleReplay *r);

#endif
