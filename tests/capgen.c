/* SPDX-License-Identifier: BSD-2-Clause */
#include "capgen.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

/* gop == 0 means no periodic keyframes; mpeg4 clamps this to 600. */
#define CAPGEN_HUGE_GOP 100000

typedef struct EncoderInfo {
    const char *name;
    enum AVPixelFormat pix_fmt;
    int needs_even_size;
} EncoderInfo;

/* ffv1 codes 4:4:4 so that any size, including 1x1, works. */
static const EncoderInfo encoders[] = {
    { "libx264",    AV_PIX_FMT_YUV420P, 1 },
    { "libx265",    AV_PIX_FMT_YUV420P, 1 },
    { "libvpx",     AV_PIX_FMT_YUV420P, 1 },
    { "libvpx-vp9", AV_PIX_FMT_YUV420P, 1 },
    { "mpeg4",      AV_PIX_FMT_YUV420P, 1 },
    { "ffv1",       AV_PIX_FMT_YUV444P, 0 },
};

typedef struct Writer {
    const CapgenSpec *spec;
    int fps;
    AVFormatContext *oc;
    AVCodecContext *enc;
    AVStream *st;
    AVPacket *pkt;
} Writer;

static const EncoderInfo *find_encoder_info(const char *name)
{
    for (size_t i = 0; i < sizeof(encoders) / sizeof(encoders[0]); i++)
        if (!strcmp(encoders[i].name, name))
            return &encoders[i];
    return NULL;
}

static const char *muxer_for_path(const char *path)
{
    const char *dot = strrchr(path, '.');

    if (!dot)
        return NULL;
    if (!strcmp(dot, ".mp4"))
        return "mp4";
    if (!strcmp(dot, ".webm"))
        return "webm";
    if (!strcmp(dot, ".mkv"))
        return "matroska";
    return NULL;
}

static int is_forced_keyframe(const int *keyframes, int index)
{
    if (!keyframes)
        return 0;
    for (; *keyframes >= 0; keyframes++)
        if (*keyframes == index)
            return 1;
    return 0;
}

static int check_spec(const CapgenSpec *spec, const EncoderInfo *info)
{
    if (spec->width < 1 || spec->height < 1 || spec->nb_frames < 0 ||
        spec->fps < 0 || spec->gop < 0 || spec->quality < 0)
        return AVERROR(EINVAL);
    if (info->needs_even_size && (spec->width % 2 || spec->height % 2))
        return AVERROR(EINVAL);
    if (spec->nb_frames > 0 && !spec->draw)
        return AVERROR(EINVAL);
    if (spec->time_ms)
        for (int i = 1; i < spec->nb_frames; i++)
            if (spec->time_ms[i] <= spec->time_ms[i - 1])
                return AVERROR(EINVAL);
    return 0;
}

static int set_opt(AVCodecContext *enc, const char *key, const char *value)
{
    return av_opt_set(enc->priv_data, key, value, 0);
}

static int set_opt_int(AVCodecContext *enc, const char *key, int64_t value)
{
    return av_opt_set_int(enc->priv_data, key, value, 0);
}

static int configure_x264(AVCodecContext *enc, const CapgenSpec *spec)
{
    int ret;

    /* B-frames reorder the output (pts != dts); only when asked for. */
    enc->max_b_frames = spec->bframes > 0 ? spec->bframes : 0;
    if ((ret = set_opt(enc, "preset", "veryfast")) < 0 ||
        (ret = set_opt(enc, "forced-idr", "1")) < 0 ||
        (ret = set_opt(enc, "x264-params", "scenecut=0")) < 0)
        return ret;
    /* qp 0 is x264's documented lossless mode. */
    if (spec->quality == 0)
        return set_opt_int(enc, "qp", 0);
    return set_opt_int(enc, "crf", spec->quality > 51 ? 51 : spec->quality);
}

static int configure_x265(AVCodecContext *enc, const CapgenSpec *spec)
{
    int ret;
    char params[96];

    enc->max_b_frames = spec->bframes > 0 ? spec->bframes : 0;
    snprintf(params, sizeof(params), "scenecut=0:bframes=%d:log-level=error:frame-threads=1:pools=none",
             enc->max_b_frames);
    if ((ret = set_opt(enc, "preset", "ultrafast")) < 0 ||
        (ret = set_opt(enc, "forced-idr", "1")) < 0 ||
        (ret = set_opt(enc, "x265-params", params)) < 0)
        return ret;
    return set_opt_int(enc, "crf", spec->quality < 1 ? 1 : spec->quality > 51 ? 51 : spec->quality);
}

static int configure_vpx(AVCodecContext *enc, const CapgenSpec *spec, int vp9)
{
    int q = spec->quality > 63 ? 63 : spec->quality;
    int ret;

    /* Fixed kf distance: libvpx then places no keyframes on its own. */
    enc->keyint_min = enc->gop_size;
    enc->qmin = q;
    enc->qmax = q;
    /* No lookahead and no hidden alt-ref frames: one packet per frame, in
     * order. VP9 in "good" mode is about 8 times slower than realtime. */
    if ((ret = set_opt(enc, "deadline", vp9 ? "realtime" : "good")) < 0 ||
        (ret = set_opt_int(enc, "cpu-used", vp9 ? 8 : 5)) < 0 ||
        (ret = set_opt_int(enc, "lag-in-frames", 0)) < 0 ||
        (ret = set_opt_int(enc, "auto-alt-ref", 0)) < 0)
        return ret;
    if (vp9) {
        if (q == 0)
            return set_opt_int(enc, "lossless", 1);
        /* crf with bit_rate 0 selects VP9's constant-quality mode. */
        enc->bit_rate = 0;
        return set_opt_int(enc, "crf", q);
    }
    /* VP8 has no constant-quality mode, and constrained quality needs a
     * target bitrate: one that is never reached leaves the quantizer at q. */
    enc->bit_rate = 1000 * 1000 * 1000;
    return set_opt_int(enc, "crf", q);
}

static int configure_mpeg4(AVCodecContext *enc, const CapgenSpec *spec)
{
    int q = spec->quality < 1 ? 1 : spec->quality > 31 ? 31 : spec->quality;

    enc->flags |= AV_CODEC_FLAG_QSCALE;
    enc->global_quality = FF_QP2LAMBDA * q;
    enc->max_b_frames = 0;
    /* Its scene-change detection would add intra frames we did not ask for. */
    return set_opt_int(enc, "sc_threshold", 1000000000);
}

static int configure_encoder(Writer *w, const AVCodec *codec, const EncoderInfo *info)
{
    const CapgenSpec *spec = w->spec;
    AVCodecContext *enc = w->enc;

    enc->width = spec->width;
    enc->height = spec->height;
    enc->pix_fmt = info->pix_fmt;
    enc->color_range = AVCOL_RANGE_MPEG;
    enc->colorspace = AVCOL_SPC_SMPTE170M;
    enc->sample_aspect_ratio = (AVRational){ 1, 1 };
    if (spec->time_ms) {
        enc->time_base = (AVRational){ 1, 1000 };
    } else {
        enc->time_base = (AVRational){ 1, w->fps };
        enc->framerate = (AVRational){ w->fps, 1 };
    }
    enc->gop_size = spec->gop > 0 ? spec->gop : CAPGEN_HUGE_GOP;
    enc->thread_count = 1;
    enc->flags |= AV_CODEC_FLAG_BITEXACT;
    if (w->oc->oformat->flags & AVFMT_GLOBALHEADER)
        enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;

    switch (codec->id) {
    case AV_CODEC_ID_H264:
        return configure_x264(enc, spec);
    case AV_CODEC_ID_HEVC:
        return configure_x265(enc, spec);
    case AV_CODEC_ID_VP8:
        return configure_vpx(enc, spec, 0);
    case AV_CODEC_ID_VP9:
        return configure_vpx(enc, spec, 1);
    case AV_CODEC_ID_MPEG4:
        return configure_mpeg4(enc, spec);
    case AV_CODEC_ID_FFV1:
        /* ffv1 ignores pict_type and carries its coder state from one frame
         * to the next until the next keyframe (every gop_size frames), so
         * by default make every frame a keyframe. */
        if (!spec->gop)
            enc->gop_size = 1;
        return 0;
    default:
        return 0;
    }
}

/* The frame index whose pts is `pts`, or -1. */
static int frame_of_pts(const Writer *w, int64_t pts)
{
    const CapgenSpec *spec = w->spec;
    int lo = 0, hi = spec->nb_frames - 1;

    if (!spec->time_ms)
        return pts >= 0 && pts < spec->nb_frames ? (int)pts : -1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (spec->time_ms[mid] == pts)
            return mid;
        if (spec->time_ms[mid] < pts)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Duration in encoder time base; the containers need it for the last frame. */
static int64_t packet_duration(const Writer *w, int64_t pts)
{
    const CapgenSpec *spec = w->spec;
    int i;

    if (!spec->time_ms)
        return 1;
    i = frame_of_pts(w, pts);
    if (i < 0)
        return 0;
    if (i + 1 < spec->nb_frames)
        return spec->time_ms[i + 1] - spec->time_ms[i];
    if (i > 0)
        return spec->time_ms[i] - spec->time_ms[i - 1];
    return 1000 / w->fps > 0 ? 1000 / w->fps : 1;
}

static int drain_packets(Writer *w)
{
    for (;;) {
        int ret = avcodec_receive_packet(w->enc, w->pkt);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
            return 0;
        if (ret < 0)
            return ret;
        w->pkt->duration = packet_duration(w, w->pkt->pts);
        av_packet_rescale_ts(w->pkt, w->enc->time_base, w->st->time_base);
        w->pkt->stream_index = w->st->index;
        ret = av_interleaved_write_frame(w->oc, w->pkt);
        if (ret < 0)
            return ret;
    }
}


/* The capture cache (SETTLE_TEST_CACHE, set by scripts/test): the suite runs
 * its test programs three times (plain, ASan, valgrind), and the encoders,
 * which are libavcodec's and the same in every pass, are up to half of an
 * end-to-end test's time (far more under memcheck). A capture is named by a
 * hash of everything that makes its bytes: the settings and every drawn
 * frame's pixels. So a later pass draws the frames again (that is the test's
 * own code, still checked), and copies the file the first pass encoded
 * instead of encoding it. Without SETTLE_TEST_CACHE nothing changes. */
typedef struct Hash {
    uint64_t a, b;
} Hash;

static void hash_word(Hash *h, uint64_t w)
{
    h->a = (h->a ^ w) * 0x100000001b3ull;
    h->a ^= h->a >> 29;
    h->b = (h->b + w) * 0x9e3779b97f4a7c15ull;
    h->b ^= h->b >> 32;
}

static void hash_bytes(Hash *h, const void *p, size_t n)
{
    const uint8_t *c = p;
    uint64_t w;
    for (; n >= 8; c += 8, n -= 8) {
        memcpy(&w, c, 8);
        hash_word(h, w);
    }
    w = 0;
    memcpy(&w, c, n);
    hash_word(h, w ^ ((uint64_t)n << 56));
}

/* The cache's file for this spec in out (len bytes): 1, or 0 when there is
 * no cache or its frames cannot be drawn here. */
static int cache_path(const CapgenSpec *spec, char *out, size_t len)
{
    const char *dir = getenv("SETTLE_TEST_CACHE");
    if (!dir || !*dir)
        return 0;
    AVFrame *rgb = av_frame_alloc();
    if (!rgb)
        return 0;
    rgb->format = AV_PIX_FMT_RGB24;
    rgb->width = spec->width;
    rgb->height = spec->height;
    if (spec->nb_frames > 0 && av_frame_get_buffer(rgb, 0) < 0) {
        av_frame_free(&rgb);
        return 0;
    }
    Hash h = { 0xcbf29ce484222325ull, 0x243f6a8885a308d3ull };
    const char *ext = strrchr(spec->path, '.');
    hash_bytes(&h, "capgen 1", 8);
    hash_bytes(&h, spec->encoder, strlen(spec->encoder));
    hash_bytes(&h, ext ? ext : "", ext ? strlen(ext) : 0);
    const int64_t v[] = { spec->width, spec->height, spec->nb_frames, spec->fps, spec->gop,
                          spec->quality, spec->bframes, spec->rotation, !!spec->time_ms,
                          LIBAVCODEC_VERSION_INT };
    hash_bytes(&h, v, sizeof(v));
    if (spec->time_ms)
        hash_bytes(&h, spec->time_ms, (size_t)spec->nb_frames * sizeof(*spec->time_ms));
    for (const int *k = spec->keyframes; k && *k >= 0; k++)
        hash_word(&h, (uint64_t)*k);
    for (int i = 0; i < spec->nb_frames; i++) {
        memset(rgb->data[0], 0, (size_t)rgb->linesize[0] * (size_t)spec->height);
        spec->draw(spec->opaque, i, rgb->data[0], rgb->linesize[0], spec->width, spec->height);
        for (int y = 0; y < spec->height; y++)
            hash_bytes(&h, rgb->data[0] + (size_t)y * (size_t)rgb->linesize[0],
                       (size_t)spec->width * 3);
    }
    av_frame_free(&rgb);
    snprintf(out, len, "%s/capgen-%016llx%016llx%s", dir, (unsigned long long)h.a,
             (unsigned long long)h.b, ext ? ext : "");
    return 1;
}

/* Copies the file from to the file to (a new file, or replaced); 0 or -1. */
static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return -1;
    FILE *out = fopen(to, "wb");
    int ok = out != NULL;
    char buf[1 << 16];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof(buf), in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    ok = ok && !ferror(in);
    fclose(in);
    if (out && fclose(out) != 0)
        ok = 0;
    if (!ok && out)
        remove(to);
    return ok ? 0 : -1;
}

/* Keeps the written file in the cache, under a temporary name first so that
 * a parallel test never reads half a file. A failure only loses the saving. */
static void cache_keep(const char *path, char *kept)
{
    char tmp[4200];
    char *slash = strrchr(kept, '/');
    if (!slash)
        return;
    *slash = '\0';
    int made = mkdir(kept, 0777) == 0 || errno == EEXIST;
    *slash = '/';
    if (!made)
        return;
    snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", kept, (long)getpid());
    if (copy_file(path, tmp) == 0 && rename(tmp, kept) != 0)
        remove(tmp);
}

int capgen_write(const CapgenSpec *spec)
{
    Writer w = { 0 };
    const EncoderInfo *info;
    const AVCodec *codec;
    const char *muxer;
    struct SwsContext *sws = NULL;
    AVFrame *rgb = NULL, *yuv = NULL;
    int created = 0;
    int ret;

    if (av_log_get_level() > AV_LOG_ERROR)
        av_log_set_level(AV_LOG_ERROR);

    if (!spec || !spec->path || !spec->encoder)
        return AVERROR(EINVAL);
    info = find_encoder_info(spec->encoder);
    muxer = muxer_for_path(spec->path);
    if (!info || !muxer)
        return AVERROR(EINVAL);
    if ((ret = check_spec(spec, info)) < 0)
        return ret;
    codec = avcodec_find_encoder_by_name(spec->encoder);
    if (!codec)
        return AVERROR_ENCODER_NOT_FOUND;
    char kept[4096];
    const int cached = cache_path(spec, kept, sizeof(kept));
    if (cached && copy_file(kept, spec->path) == 0)
        return 0;

    w.spec = spec;
    w.fps = spec->fps > 0 ? spec->fps : 30;

    ret = avformat_alloc_output_context2(&w.oc, NULL, muxer, spec->path);
    if (ret < 0)
        goto fail;
    w.oc->flags |= AVFMT_FLAG_BITEXACT;
    /* A plain mp4 leaves out tracks without samples; an empty moov keeps it. */
    if (spec->nb_frames == 0 && !strcmp(muxer, "mp4") &&
        (ret = av_opt_set(w.oc->priv_data, "movflags", "empty_moov", 0)) < 0)
        goto fail;
    w.st = avformat_new_stream(w.oc, NULL);
    w.enc = avcodec_alloc_context3(codec);
    w.pkt = av_packet_alloc();
    rgb = av_frame_alloc();
    yuv = av_frame_alloc();
    if (!w.st || !w.enc || !w.pkt || !rgb || !yuv) {
        ret = AVERROR(ENOMEM);
        goto fail;
    }

    if ((ret = configure_encoder(&w, codec, info)) < 0)
        goto fail;
    if ((ret = avcodec_open2(w.enc, codec, NULL)) < 0)
        goto fail;
    if ((ret = avcodec_parameters_from_context(w.st->codecpar, w.enc)) < 0)
        goto fail;
    w.st->time_base = w.enc->time_base;
    if (spec->rotation) {
        uint8_t *m = av_stream_new_side_data(w.st, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t));
        if (!m) {
            ret = AVERROR(ENOMEM);
            goto fail;
        }
        av_display_rotation_set((int32_t *)m, spec->rotation);
    }
    if (!spec->time_ms)
        w.st->avg_frame_rate = w.enc->framerate;

    rgb->format = AV_PIX_FMT_RGB24;
    rgb->width = spec->width;
    rgb->height = spec->height;
    yuv->format = w.enc->pix_fmt;
    yuv->width = spec->width;
    yuv->height = spec->height;
    yuv->color_range = w.enc->color_range;
    yuv->colorspace = w.enc->colorspace;
    if ((ret = av_frame_get_buffer(rgb, 0)) < 0 ||
        (ret = av_frame_get_buffer(yuv, 0)) < 0)
        goto fail;

    sws = sws_getContext(spec->width, spec->height, AV_PIX_FMT_RGB24,
                         spec->width, spec->height, w.enc->pix_fmt,
                         SWS_BILINEAR | SWS_ACCURATE_RND | SWS_BITEXACT,
                         NULL, NULL, NULL);
    if (!sws) {
        ret = AVERROR(ENOMEM);
        goto fail;
    }

    if ((ret = avio_open(&w.oc->pb, spec->path, AVIO_FLAG_WRITE)) < 0)
        goto fail;
    created = 1;
    if ((ret = avformat_write_header(w.oc, NULL)) < 0)
        goto fail;

    for (int i = 0; i < spec->nb_frames; i++) {
        memset(rgb->data[0], 0, (size_t)rgb->linesize[0] * (size_t)spec->height);
        spec->draw(spec->opaque, i, rgb->data[0], rgb->linesize[0],
                   spec->width, spec->height);
        /* The encoder may still hold a reference to the previous picture. */
        if ((ret = av_frame_make_writable(yuv)) < 0)
            goto fail;
        ret = sws_scale(sws, (const uint8_t *const *)rgb->data, rgb->linesize,
                        0, spec->height, yuv->data, yuv->linesize);
        if (ret < 0)
            goto fail;
        yuv->pts = spec->time_ms ? spec->time_ms[i] : i;
        yuv->pict_type = is_forced_keyframe(spec->keyframes, i)
                             ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE;
        /* mpeg4 in fixed-qscale mode takes its quantizer from the frame. */
        yuv->quality = w.enc->global_quality;
        if ((ret = avcodec_send_frame(w.enc, yuv)) < 0 ||
            (ret = drain_packets(&w)) < 0)
            goto fail;
    }
    if ((ret = avcodec_send_frame(w.enc, NULL)) < 0 ||
        (ret = drain_packets(&w)) < 0)
        goto fail;

    ret = av_write_trailer(w.oc);
    if (ret >= 0 && cached) {
        avio_closep(&w.oc->pb);
        cache_keep(spec->path, kept);
    }

fail:
    /* On failure after the header, avformat_free_context runs the muxer's deinit. */
    if (w.oc)
        avio_closep(&w.oc->pb);
    /* A half-written file would only confuse the test that reads it. */
    if (ret < 0 && created)
        remove(spec->path);
    avformat_free_context(w.oc);
    avcodec_free_context(&w.enc);
    av_packet_free(&w.pkt);
    av_frame_free(&rgb);
    av_frame_free(&yuv);
    sws_freeContext(sws);
    return ret < 0 ? ret : 0;
}
