/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The read stage of screenrecord's per-frame device times: the Winscope
 * metadata that Android's screenrecord writes into its MP4 as a sample of a
 * second track, found in the packets of the capture's non-video streams or,
 * when libavformat exposes no such packet, in the file's bytes; paired with
 * the video's frames in presentation order. The only marks code that talks
 * to libavformat. Layout (little-endian), as AOSP's Winscope reads it:
 *   "#VV1NSC0PET1ME!#", u32 count, count x u64 monotonic microseconds
 *   "#VV1NSC0PET1ME2#", u32 version, i64 real-to-boot offset ns, u32 count,
 *                       count x u64 ns (boot clock for version 2)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavformat/avformat.h>
#include <libavutil/mathematics.h>

#include "marks_internal.h"

#define MAGIC_LEN 16
static const char magic_legacy[] = "#VV1NSC0PET1ME!#";
static const char magic_v2[] = "#VV1NSC0PET1ME2#";
#define MAX_FRAMES (1 << 24)

typedef struct Reader {
    double *pts;
    int64_t npts, cap;
    uint8_t *meta;   /* the metadata from its magic on, as found in a packet */
    size_t metalen;
    int metas;       /* packets that held one */
} Reader;

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static int is_magic(const uint8_t *p)
{
    return !memcmp(p, magic_legacy, MAGIC_LEN) || !memcmp(p, magic_v2, MAGIC_LEN);
}

static int add_pts(Reader *r, double t)
{
    if (r->npts == r->cap) {
        if (r->cap >= MAX_FRAMES)
            return SETTLE_ERR_LIMIT;
        int64_t cap = r->cap ? r->cap * 2 : 1024;
        double *p = realloc(r->pts, (size_t)cap * sizeof(*p));
        if (!p)
            return SETTLE_ERR_NOMEM;
        r->pts = p;
        r->cap = cap;
    }
    r->pts[r->npts++] = t;
    return 0;
}

static int keep_meta(Reader *r, const uint8_t *p, size_t len)
{
    r->metas++;
    if (r->meta)
        return 0;
    r->meta = malloc(len);
    if (!r->meta)
        return SETTLE_ERR_NOMEM;
    memcpy(r->meta, p, len);
    r->metalen = len;
    return 0;
}

/* Every packet: the video's times, and any non-video packet with the magic. */
static int read_packets(AVFormatContext *fmt, int video, Reader *r)
{
    AVPacket *pkt = av_packet_alloc();
    if (!pkt)
        return SETTLE_ERR_NOMEM;
    int ret = 0;
    const AVStream *vs = fmt->streams[video];
    while (!ret && av_read_frame(fmt, pkt) >= 0) {
        if (pkt->stream_index == video) {
            int64_t ts = pkt->pts != AV_NOPTS_VALUE ? pkt->pts : pkt->dts;
            if (ts != AV_NOPTS_VALUE)
                ret = add_pts(r, (double)ts * av_q2d(vs->time_base));
        } else if (pkt->size >= MAGIC_LEN && is_magic(pkt->data)) {
            ret = keep_meta(r, pkt->data, (size_t)pkt->size);
        }
        av_packet_unref(pkt);
    }
    av_packet_free(&pkt);
    return ret;
}

/* The file's bytes from the only magic on (at most `most` bytes). */
static int scan_file(const char *path, Reader *r, size_t most, char *err, size_t errlen)
{
    AVIOContext *io = NULL;
    if (avio_open(&io, path, AVIO_FLAG_READ) < 0)
        return marks_fail(err, errlen, "%s: cannot read", path), SETTLE_ERR_IO;
    enum { CHUNK = 1 << 16 };
    uint8_t *buf = malloc(CHUNK + MAGIC_LEN);
    int ret = buf ? 0 : SETTLE_ERR_NOMEM;
    int64_t base = 0, found = -1;
    size_t keep = 0;
    while (!ret) {
        int got = avio_read(io, buf + keep, CHUNK);
        if (got <= 0)
            break;
        size_t n = keep + (size_t)got;
        for (size_t i = 0; i + MAGIC_LEN <= n; i++) {
            if (buf[i] != '#' || !is_magic(buf + i))
                continue;
            if (found >= 0)
                ret = marks_fail(err, errlen, "%s: more than one Winscope metadata", path);
            found = base + (int64_t)i;
        }
        keep = n < MAGIC_LEN - 1 ? n : MAGIC_LEN - 1;
        memmove(buf, buf + n - keep, keep);
        base += (int64_t)(n - keep);
    }
    if (!ret && found >= 0) {
        int64_t size = avio_size(io);
        size_t len = size > found ? (size_t)(size - found) : 0;
        len = len < most ? len : most;
        uint8_t *meta = malloc(len ? len : 1);
        if (!meta)
            ret = SETTLE_ERR_NOMEM;
        else if (avio_seek(io, found, SEEK_SET) != found || avio_read(io, meta, (int)len) != (int)len)
            ret = (marks_fail(err, errlen, "%s: cannot read the Winscope metadata", path),
                   SETTLE_ERR_IO);
        if (ret)
            free(meta);
        else
            r->meta = meta, r->metalen = len, r->metas = 1;
    }
    free(buf);
    avio_closep(&io);
    return ret;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The metadata into t, checked against the video's frames. */
static int parse_meta(const Reader *r, const char *path, SettleDeviceTimes *t, char *err,
                      size_t errlen)
{
    const uint8_t *p = r->meta;
    size_t len = r->metalen, head;
    int legacy = !memcmp(p, magic_legacy, MAGIC_LEN);
    if (legacy) {
        head = MAGIC_LEN + 4;
        t->version = 0;
        t->clock = SETTLE_MARK_CLOCK_MONOTONIC;
        t->real_to_boot = NAN;
    } else {
        head = MAGIC_LEN + 16;
        if (len < head)
            return marks_fail(err, errlen, "%s: Winscope metadata truncated", path);
        t->version = (int)rd32(p + MAGIC_LEN);
        if (t->version != 1 && t->version != 2)
            return marks_fail(err, errlen, "%s: Winscope metadata version %u unknown", path,
                              rd32(p + MAGIC_LEN));
        t->clock = t->version == 2 ? SETTLE_MARK_CLOCK_BOOT : SETTLE_MARK_CLOCK_MONOTONIC;
        t->real_to_boot = t->version == 2 ? (double)(int64_t)rd64(p + MAGIC_LEN + 4) / 1e9 : NAN;
    }
    if (len < head)
        return marks_fail(err, errlen, "%s: Winscope metadata truncated", path);
    uint32_t count = rd32(p + head - 4);
    if (count == 0 || (uint64_t)count * 8 > len - head)
        return marks_fail(err, errlen, "%s: Winscope metadata of %u frames truncated or empty",
                          path, count);
    if ((int64_t)count != r->npts)
        return marks_fail(err, errlen, "%s: Winscope metadata for %u frames, the video has %lld",
                          path, count, (long long)r->npts);
    t->device = malloc(count * sizeof(double));
    t->capture = malloc(count * sizeof(double));
    if (!t->device || !t->capture)
        return SETTLE_ERR_NOMEM;
    t->count = count;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t v = rd64(p + head + 8 * (size_t)i);
        t->device[i] = legacy ? (double)v / 1e6 : (double)v / 1e9;
        if (i && !(t->device[i] > t->device[i - 1]))
            return marks_fail(err, errlen, "%s: Winscope frame times not increasing at frame %u",
                              path, i);
        t->capture[i] = r->pts[i] - r->pts[0];
    }
    return 0;
}

void settle_device_times_free(SettleDeviceTimes **t)
{
    if (!t || !*t)
        return;
    free((*t)->device);
    free((*t)->capture);
    free(*t);
    *t = NULL;
}

int settle_read_device_times(const char *path, SettleDeviceTimes **out, char *err,
                             size_t errlen)
{
    if (!path || !out)
        return SETTLE_ERR_INVAL;
    *out = NULL;
    AVFormatContext *fmt = NULL;
    Reader r = { 0 };
    SettleDeviceTimes *t = NULL;
    int ret;
    if (avformat_open_input(&fmt, path, NULL, NULL) < 0) {
        marks_fail(err, errlen, "%s: not a capture libavformat can open", path);
        return SETTLE_ERR_FORMAT;
    }
    int video = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (video < 0) {
        ret = marks_fail(err, errlen, "%s: no video stream", path);
        goto fail;
    }
    ret = read_packets(fmt, video, &r);
    if (!ret && !r.meta)
        ret = scan_file(path, &r, MAGIC_LEN + 16 + 8 * (size_t)r.npts, err, errlen);
    if (ret < 0 || !r.meta)
        goto fail;
    if (r.metas > 1) {
        ret = marks_fail(err, errlen, "%s: more than one Winscope metadata", path);
        goto fail;
    }
    qsort(r.pts, (size_t)r.npts, sizeof(double), cmp_double);
    t = calloc(1, sizeof(*t));
    if (!t) {
        ret = SETTLE_ERR_NOMEM;
        goto fail;
    }
    ret = parse_meta(&r, path, t, err, errlen);
    if (ret < 0)
        goto fail;
    *out = t;
    t = NULL;
    ret = 1;
fail:
    settle_device_times_free(&t);
    free(r.pts);
    free(r.meta);
    avformat_close_input(&fmt);
    return ret;
}
