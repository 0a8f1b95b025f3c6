/* SPDX-License-Identifier: BSD-2-Clause */
/* The probe's packets and a second decoder for them (see decode_replay.h). */
#include <string.h>

#include "decode_pool.h"
#include "decode_replay.h"

int settle_replay_init(SettleReplay *r, const AVStream *vs, int64_t max_pixels)
{
    memset(r, 0, sizeof(*r));
    if (pthread_mutex_init(&r->lock, NULL)) {
        r->stopped = 1;
        return AVERROR(ENOMEM);
    }
    r->vs = vs;
    r->max_pixels = max_pixels;
    if (!(r->frame = av_frame_alloc())) {
        pthread_mutex_destroy(&r->lock);
        r->stopped = 1;
        return AVERROR(ENOMEM);
    }
    return 0;
}

void settle_replay_add(SettleReplay *r, const AVPacket *pkt)
{
    pthread_mutex_lock(&r->lock);
    if (!r->stopped) {
        AVPacket *c = NULL;
        if (r->n == SETTLE_REPLAY_PACKETS || r->bytes + (size_t)pkt->size > SETTLE_REPLAY_BYTES ||
            !(c = av_packet_clone(pkt))) {
            r->stopped = 1;
        } else {
            r->pkt[r->n++] = c;
            r->bytes += (size_t)pkt->size;
        }
    }
    pthread_mutex_unlock(&r->lock);
}

void settle_replay_end(SettleReplay *r)
{
    pthread_mutex_lock(&r->lock);
    r->complete = !r->stopped;
    pthread_mutex_unlock(&r->lock);
}

static void close_codec(SettleReplay *r)
{
    void *pool = r->dec ? r->dec->opaque : NULL;
    avcodec_free_context(&r->dec);
    settle_decode_pool_free(&pool);
    r->sent = r->flushed = 0;
    r->got = 0;
    r->keyed = 0;
}

/* The decoder set as the reading's (decode.c's open_codec) but on one
 * thread (the same frames), to be sent the packets from number `from` on. */
static int open_codec(SettleReplay *r, int from)
{
    const AVCodecParameters *par = r->vs->codecpar;
    const AVCodec *codec = avcodec_find_decoder(par->codec_id);
    if (!codec || !(r->dec = avcodec_alloc_context3(codec)))
        return 1;
    if (avcodec_parameters_to_context(r->dec, par) < 0)
        goto fail;
    /* one thread: a few frames, and no buffers of frame threads to fault in */
    r->dec->thread_count = 1;
    r->dec->max_pixels = r->max_pixels;
    r->dec->pkt_timebase = r->vs->time_base;
    /* the reading's pool of populated mappings, not libavcodec's, which
     * zeroes each new buffer page fault by page fault */
    if (settle_decode_pool_attach(r->dec) < 0)
        goto fail;
    if (avcodec_open2(r->dec, codec, NULL) < 0)
        goto fail;
    r->sent = from;
    return 0;
fail:
    close_codec(r);
    return 1;
}

/* Whether a key packet of the codec starts the decoding over: every frame
 * after it in the stream decodes as it would from the first packet (VP8's
 * and VP9's key frames refresh every reference and the coding state; not so
 * H.264's I frames, which frames after them may look past). */
static int key_restarts(const AVCodecParameters *par)
{
    return par->codec_id == AV_CODEC_ID_VP8 || par->codec_id == AV_CODEC_ID_VP9;
}

/* The next frame of the decoder into r->frame: 0, 1 at the end of what it
 * can be sent, or AVERROR(ENOMEM). Frames of no size are left out. */
static int next_frame(SettleReplay *r)
{
    for (;;) {
        int ret = avcodec_receive_frame(r->dec, r->frame);
        if (ret >= 0) {
            if (r->frame->width < 1 || r->frame->height < 1)
                continue;
            return 0;
        }
        if (ret == AVERROR(ENOMEM))
            return ret;
        if (ret == AVERROR_EOF || r->flushed)
            return 1;
        if (ret != AVERROR(EAGAIN))
            continue; /* a decoding error: the reading went on past it too */
        pthread_mutex_lock(&r->lock);
        const int n = r->n, complete = r->complete;
        pthread_mutex_unlock(&r->lock);
        if (r->sent < n) {
            ret = avcodec_send_packet(r->dec, r->pkt[r->sent]);
            if (ret == AVERROR(EAGAIN))
                return 1; /* the decoder takes nothing and gives nothing */
            r->sent++;
            if (ret == AVERROR(ENOMEM))
                return ret;
        } else if (complete) {
            avcodec_send_packet(r->dec, NULL);
            r->flushed = 1;
        } else {
            return 1;
        }
    }
}

/* Frame pts, decoded from the last key packet before the packet of that
 * pts; -1 when no packet kept has it. */
static int frame_keyed(SettleReplay *r, int64_t pts, const AVFrame **out)
{
    pthread_mutex_lock(&r->lock);
    const int n = r->n;
    pthread_mutex_unlock(&r->lock);
    int at = -1, key = -1;
    for (int j = 0; j < n && at < 0; j++) {
        if (r->pkt[j]->flags & AV_PKT_FLAG_KEY)
            key = j;
        if (r->pkt[j]->pts == pts)
            at = j;
    }
    if (at < 0 || key < 0)
        return -1;
    /* the decoder goes on from where it is unless a key packet it has not
     * been sent comes first, or it is past the frame */
    if (r->dec && (!r->keyed || key >= r->sent || r->last_pts >= pts))
        close_codec(r);
    if (!r->dec) {
        if (open_codec(r, key))
            return 1;
        r->keyed = 1;
        r->last_pts = INT64_MIN;
    }
    for (;;) {
        int ret = next_frame(r);
        if (ret)
            return ret;
        r->last_pts = r->frame->pts;
        if (r->frame->pts == pts) {
            *out = r->frame;
            return 0;
        }
        if (r->frame->pts > pts)
            return 1;
    }
}

int settle_replay_frame(SettleReplay *r, int64_t i, int64_t pts, const AVFrame **out)
{
    if (!r->frame)
        return 1;
    if (pts != AV_NOPTS_VALUE && key_restarts(r->vs->codecpar)) {
        int ret = frame_keyed(r, pts, out);
        if (ret >= 0)
            return ret;
    }
    if (r->dec && (r->keyed || r->got > i))
        close_codec(r);
    if (!r->dec && open_codec(r, 0))
        return 1;
    for (;;) {
        int ret = next_frame(r);
        if (ret)
            return ret;
        if (r->got++ == i) {
            *out = r->frame;
            return 0;
        }
    }
}

void settle_replay_free(SettleReplay *r)
{
    pthread_mutex_lock(&r->lock);
    r->stopped = 1;
    for (int j = 0; j < r->n; j++)
        av_packet_free(&r->pkt[j]);
    r->n = 0;
    r->bytes = 0;
    pthread_mutex_unlock(&r->lock);
    close_codec(r);
    av_frame_free(&r->frame);
}

void settle_replay_destroy(SettleReplay *r)
{
    settle_replay_free(r);
    pthread_mutex_destroy(&r->lock);
}
