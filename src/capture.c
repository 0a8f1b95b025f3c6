/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Live capture: the read/write edge for devices, as decode.c is for files.
 * A thread reads packets from the device into a bounded queue; the caller's
 * thread decodes them, encodes them into the capture file and converts them
 * to RGB for the analysis.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#if SETTLE_AVDEVICE_DLOPEN
#include <dlfcn.h>
#include <libavdevice/version.h>
#else
#include <libavdevice/avdevice.h>
#endif
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include "settle/capture.h"

#define QUEUE_MAX 10000
/* Pictures whose lateness bounds the horizon (settle_capture_horizon). */
#define LATE_N 32

/* When the bytes of stdin up to `end` had arrived. */
typedef struct Arrival {
    int64_t end;
    double time;
} Arrival;

typedef struct Item {
    AVPacket *pkt;
    double arrival; /* CLOCK_MONOTONIC seconds */
} Item;

struct SettleCapture {
    SettleCaptureSettings s;
    AVFormatContext *in;
    int stream;
    int raw_stream;   /* encoded stream without timestamps: stamp arrival */
    int droppable;    /* raw pictures from a device: drop when the queue is full */
    int paced;        /* a source that runs as fast as it is read (lavfi): pace it */
    double tb;        /* input stream time base, seconds */
    double nominal;   /* seconds a frame, 0 when unknown */
    AVCodecContext *dec;
    AVFrame *frame;

    /* the queue, filled by the reading thread */
    pthread_t thread;
    int thread_on;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    Item *q;
    int qcap, qhead, qcount;
    int eof;          /* the reader stopped: reader_ret says why */
    int reader_ret;
    volatile int stop;

    /* clock: capture time = monotonic + offset */
    int have_offset;
    double offset;    /* max(pts - arrival) seen, seconds */
    double t0;        /* pts of the first picture, seconds */
    int have_t0;
    double last_dev;  /* device time of the last picture, for the gaps */
    double late[LATE_N]; /* how late the last pictures came, against the clock */
    int late_pos;
    double arrival;   /* of the packet last given to the decoder */

    /* output */
    AVFormatContext *out;
    AVCodecContext *enc;
    AVStream *ost;
    struct SwsContext *enc_sws, *rgb_sws;
    AVFrame *eframe;
    AVPacket *opkt;   /* from the encoder */
    AVPacket *ipkt;   /* to the decoder */
    int64_t last_pts; /* ms */
    int finished;
    int out_opened;
    uint8_t *rgb;
    int w, h;
    double last_time, last_dur;

    /* stdin, read through our own AVIOContext so that each packet of a raw
     * stream is stamped with the arrival of its bytes, not with the time the
     * demuxer handed it over (the probe reads ahead and returns at once) */
    AVIOContext *pipe_io;
    Arrival *arr;
    size_t narr, arrcap;
    int64_t pipe_bytes;

    SettleCaptureStats st;
    char encname[32];
    char msg[512];
};

static double now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int fail(SettleCapture *c, int ret, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int fail(SettleCapture *c, int ret, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
    va_end(ap);
    return ret;
}

static const char *av_err(int err, char *buf, size_t len)
{
    if (av_strerror(err, buf, len) < 0)
        snprintf(buf, len, "error %d", err);
    return buf;
}

void settle_capture_default_settings(SettleCaptureSettings *s)
{
    memset(s, 0, sizeof(*s));
    s->encoder = SETTLE_ENCODER_X264;
    s->queue = 120;
}

static int pipe_read(void *opaque, uint8_t *buf, int size)
{
    SettleCapture *c = opaque;
    for (;;) {
        if (c->stop)
            return AVERROR_EXIT;
        struct pollfd pfd = { .fd = 0, .events = POLLIN };
        int r = poll(&pfd, 1, 100);
        if (r < 0 && errno != EINTR)
            return AVERROR(errno);
        if (r <= 0)
            continue;
        ssize_t n = read(0, buf, (size_t)size);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return AVERROR(errno);
        if (n == 0)
            return AVERROR_EOF;
        if (c->narr == c->arrcap) {
            size_t cap = c->arrcap ? 2 * c->arrcap : 1024;
            Arrival *a = realloc(c->arr, cap * sizeof(*a));
            if (!a)
                return AVERROR(ENOMEM);
            c->arr = a;
            c->arrcap = cap;
        }
        c->pipe_bytes += n;
        c->arr[c->narr++] = (Arrival){ c->pipe_bytes, now_mono() };
        return (int)n;
    }
}

/* When the last byte of [pos, pos + size) arrived on stdin; `fallback` when
 * the demuxer did not say where the packet was. */
static double pipe_arrival(const SettleCapture *c, int64_t pos, int size, double fallback)
{
    if (pos < 0 || !c->narr)
        return fallback;
    int64_t last = pos + (size > 0 ? size : 1) - 1;
    size_t lo = 0, hi = c->narr;
    while (lo < hi) { /* the first read whose end passes `last` */
        size_t mid = lo + (hi - lo) / 2;
        if (c->arr[mid].end > last)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo < c->narr ? c->arr[lo].time : fallback;
}

static int interrupt_cb(void *opaque)
{
    const SettleCapture *c = opaque;
    return c->stop != 0;
}

/* The reading thread: never waits for the consumer unless the input is a
 * pipe that cannot lose data. */
static void *reader_main(void *opaque)
{
    SettleCapture *c = opaque;
    int ret = 0;
    AVPacket *pkt = av_packet_alloc();
    if (!pkt)
        ret = AVERROR(ENOMEM);
    int64_t pace_pts = AV_NOPTS_VALUE;
    double pace_t0 = 0;
    while (!ret && !c->stop) {
        ret = av_read_frame(c->in, pkt);
        if (ret < 0)
            break;
        if (pkt->stream_index != c->stream) {
            av_packet_unref(pkt);
            continue;
        }
        if (c->paced && pkt->pts != AV_NOPTS_VALUE) {
            /* as a device would: each picture no sooner than its time */
            if (pace_pts == AV_NOPTS_VALUE) {
                pace_pts = pkt->pts;
                pace_t0 = now_mono();
            }
            double wait = pace_t0 + (double)(pkt->pts - pace_pts) * c->tb - now_mono();
            while (wait > 0 && !c->stop) {
                double step = wait < 0.05 ? wait : 0.05;
                struct timespec ts = { 0, (long)(step * 1e9) };
                nanosleep(&ts, NULL);
                wait = pace_t0 + (double)(pkt->pts - pace_pts) * c->tb - now_mono();
            }
        }
        double arrival = now_mono();
        if (c->raw_stream) {
            double t = c->pipe_io ? pipe_arrival(c, pkt->pos, pkt->size, arrival) : arrival;
            pkt->pts = pkt->dts = (int64_t)llround(t * 1e6);
        }
        pthread_mutex_lock(&c->lock);
        while (!c->droppable && c->qcount == c->qcap && !c->stop)
            pthread_cond_wait(&c->cond, &c->lock);
        if (c->qcount == c->qcap) {
            c->st.dropped_queue += !c->stop;
            av_packet_unref(pkt);
        } else {
            Item *it = &c->q[(c->qhead + c->qcount) % c->qcap];
            av_packet_move_ref(it->pkt, pkt);
            it->arrival = arrival;
            c->qcount++;
            if (c->qcount > c->st.max_queued)
                c->st.max_queued = c->qcount;
            c->st.received++;
            pthread_cond_broadcast(&c->cond);
        }
        pthread_mutex_unlock(&c->lock);
    }
    av_packet_free(&pkt);
    pthread_mutex_lock(&c->lock);
    c->eof = 1;
    c->reader_ret = ret;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* "x11grab::99+0,0" -> format x11grab, url ":99+0,0". */
static int split_input(const char *input, char *fmt, size_t flen, const char **url)
{
    if (!strcmp(input, "-")) {
        fmt[0] = 0;
        *url = "pipe:0";
        return 0;
    }
    const char *colon = strchr(input, ':');
    if (!colon || colon == input || (size_t)(colon - input) >= flen)
        return -1;
    memcpy(fmt, input, (size_t)(colon - input));
    fmt[colon - input] = 0;
    if (!strcmp(fmt, "v4l2"))
        snprintf(fmt, flen, "video4linux2");
    *url = colon + 1;
    return 0;
}

#if SETTLE_AVDEVICE_DLOPEN
#define SONAME_(major) "libavdevice.so." #major
#define SONAME(major) SONAME_(major)
static char devices_error[200];

/* libavdevice by name, on the first capture: linked, its ~80 libraries
 * (libavfilter, SDL, X11, PulseAudio...) cost every run of the program
 * about 28 ms of CPU at start-up, which the analysis of a file never needs
 * (meson.build, SETTLE_AVDEVICE_DLOPEN). Never unloaded: libavformat keeps
 * its devices. */
static void load_devices(void)
{
    void *h = dlopen(SONAME(LIBAVDEVICE_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    void (*reg)(void) = NULL;
    if (h)
        *(void **)&reg = dlsym(h, "avdevice_register_all");
    if (reg)
        reg();
    else
        snprintf(devices_error, sizeof(devices_error), " (%s)", dlerror());
}

static const char *register_devices(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_devices);
    return devices_error;
}
#else
static const char *register_devices(void)
{
    avdevice_register_all();
    return "";
}
#endif

static int open_input(SettleCapture *c)
{
    const SettleCaptureSettings *s = &c->s;
    char fmtname[32], e[128];
    const char *url;
    if (split_input(s->input, fmtname, sizeof(fmtname), &url) < 0)
        return fail(c, SETTLE_ERR_INVAL, "%s: expected x11grab:DISPLAY, v4l2:DEVICE, lavfi:GRAPH, "
                    "FORMAT:URL or '-'", s->input);
    const char *want = fmtname[0] ? fmtname : s->format;
    const AVInputFormat *ifmt = NULL;
    const char *devices = register_devices();
    if (want && !(ifmt = av_find_input_format(want)))
        return fail(c, SETTLE_ERR_FORMAT, "%s: no input format '%s' in this libavdevice/libavformat%s",
                    s->input, want, devices);
    AVDictionary *opt = NULL;
    int x11 = fmtname[0] && !strcmp(fmtname, "x11grab");
    if (s->video_size)
        av_dict_set(&opt, "video_size", s->video_size, 0);
    if (s->framerate || x11)
        av_dict_set(&opt, "framerate", s->framerate ? s->framerate : "30", 0);
    if (s->pixel_format)
        av_dict_set(&opt, "input_format", s->pixel_format, 0);
    if (x11)
        av_dict_set(&opt, "draw_mouse", s->draw_mouse ? "1" : "0", 0);
    if (!strcmp(url, "pipe:0")) {
        /* a live stream: open it after its first pictures, not after 5 s */
        av_dict_set(&opt, "analyzeduration", "100000", 0);
        av_dict_set(&opt, "fpsprobesize", "0", 0);
    }
    c->in = avformat_alloc_context();
    if (!c->in) {
        av_dict_free(&opt);
        return fail(c, SETTLE_ERR_NOMEM, "out of memory");
    }
    c->in->interrupt_callback.callback = interrupt_cb;
    c->in->interrupt_callback.opaque = c;
    if (!strcmp(url, "pipe:0")) {
        uint8_t *buf = av_malloc(32768);
        c->pipe_io = buf ? avio_alloc_context(buf, 32768, 0, c, pipe_read, NULL, NULL) : NULL;
        if (!c->pipe_io) {
            av_free(buf);
            av_dict_free(&opt);
            return fail(c, SETTLE_ERR_NOMEM, "out of memory");
        }
        c->in->pb = c->pipe_io;
        c->in->flags |= AVFMT_FLAG_CUSTOM_IO;
    }
    int ret = avformat_open_input(&c->in, url, ifmt, &opt);
    av_dict_free(&opt);
    if (ret < 0)
        return fail(c, SETTLE_ERR_FORMAT, "%s: cannot open: %s", s->input, av_err(ret, e, sizeof(e)));
    if (strcmp(c->in->iformat->name, "lavfi") && (ret = avformat_find_stream_info(c->in, NULL)) < 0)
        return fail(c, SETTLE_ERR_FORMAT, "%s: cannot read: %s", s->input, av_err(ret, e, sizeof(e)));
    ret = av_find_best_stream(c->in, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (ret < 0)
        return fail(c, SETTLE_ERR_NO_VIDEO, "%s: no video stream", s->input);
    c->stream = ret;
    AVStream *st = c->in->streams[ret];
    const char *iname = c->in->iformat->name;
    c->raw_stream = !strcmp(iname, "h264") || !strcmp(iname, "hevc");
    c->tb = c->raw_stream ? 1e-6 : av_q2d(st->time_base);
    c->droppable = st->codecpar->codec_id == AV_CODEC_ID_RAWVIDEO && strcmp(url, "pipe:0");
    c->paced = !strcmp(iname, "lavfi");
    AVRational fr = st->avg_frame_rate.num ? st->avg_frame_rate : st->r_frame_rate;
    /* a device's nominal rate tells its skipped pictures; a stream's does not */
    if (fr.num > 0 && fr.den > 0 && (x11 || !strcmp(fmtname, "video4linux2")))
        c->nominal = av_q2d(av_inv_q(fr));
    c->st.nominal_fps = c->nominal > 0 ? 1 / c->nominal : 0;
    const AVCodec *dec = avcodec_find_decoder(st->codecpar->codec_id);
    if (!dec)
        return fail(c, SETTLE_ERR_FORMAT, "%s: no decoder for %s", s->input,
                    avcodec_get_name(st->codecpar->codec_id));
    c->dec = avcodec_alloc_context3(dec);
    if (!c->dec || avcodec_parameters_to_context(c->dec, st->codecpar) < 0)
        return fail(c, SETTLE_ERR_NOMEM, "out of memory");
    c->dec->thread_count = 1; /* no frame delay: a picture leaves as it arrives */
    c->dec->pkt_timebase = st->time_base;
    if ((ret = avcodec_open2(c->dec, dec, NULL)) < 0)
        return fail(c, SETTLE_ERR_FORMAT, "%s: cannot decode %s: %s", s->input, dec->name,
                    av_err(ret, e, sizeof(e)));
    return 0;
}

int settle_capture_open(SettleCapture **pc, const SettleCaptureSettings *s, char *err,
                        size_t errlen)
{
    if (!pc)
        return SETTLE_ERR_INVAL;
    *pc = NULL;
    if (!s || !s->input || !s->output || !*s->output || s->queue < 2 || s->queue > QUEUE_MAX ||
        s->threads < 0 || (s->encoder != SETTLE_ENCODER_X264 && s->encoder != SETTLE_ENCODER_FFV1)) {
        if (err && errlen)
            snprintf(err, errlen, "invalid capture settings");
        return SETTLE_ERR_INVAL;
    }
    SettleCapture *c = calloc(1, sizeof(*c));
    if (!c)
        return SETTLE_ERR_NOMEM;
    c->s = *s;
    c->qcap = s->queue;
    c->last_pts = -1;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->cond, NULL);
    int ret;
    c->q = calloc((size_t)c->qcap, sizeof(*c->q));
    c->frame = av_frame_alloc();
    c->opkt = av_packet_alloc();
    c->ipkt = av_packet_alloc();
    if (!c->q || !c->frame || !c->opkt || !c->ipkt) {
        ret = fail(c, SETTLE_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int i = 0; i < c->qcap; i++)
        if (!(c->q[i].pkt = av_packet_alloc())) {
            ret = fail(c, SETTLE_ERR_NOMEM, "out of memory");
            goto fail;
        }
    if ((ret = open_input(c)) < 0)
        goto fail;
    if (pthread_create(&c->thread, NULL, reader_main, c)) {
        ret = fail(c, SETTLE_ERR_NOMEM, "cannot start the reading thread");
        goto fail;
    }
    c->thread_on = 1;
    *pc = c;
    return 0;
fail:
    if (err && errlen)
        snprintf(err, errlen, "%s", c->msg);
    c->finished = 1;
    settle_capture_close(&c);
    return ret;
}

static int is_rgb(enum AVPixelFormat f)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    return d && (d->flags & AV_PIX_FMT_FLAG_RGB) && d->nb_components >= 3;
}

/* The encoder and the file, made for the first picture. */
static int open_output(SettleCapture *c, const AVFrame *f)
{
    char e[128];
    const char *name = c->s.encoder == SETTLE_ENCODER_FFV1 ? "ffv1"
                       : is_rgb(f->format)                 ? "libx264rgb"
                                                           : "libx264";
    const AVCodec *codec = avcodec_find_encoder_by_name(name);
    if (!codec)
        return fail(c, SETTLE_ERR_FORMAT, "no %s encoder in this libavcodec", name);
    snprintf(c->encname, sizeof(c->encname), "%s", name);
    c->st.encoder = c->encname;
    c->st.pix_fmt = av_get_pix_fmt_name(f->format);
    enum AVPixelFormat pf = avcodec_find_best_pix_fmt_of_list(codec->pix_fmts, f->format, 0, NULL);
    if (pf == AV_PIX_FMT_NONE)
        return fail(c, SETTLE_ERR_FORMAT, "%s cannot encode %s", name, av_get_pix_fmt_name(f->format));
    c->enc = avcodec_alloc_context3(codec);
    if (!c->enc)
        return fail(c, SETTLE_ERR_NOMEM, "out of memory");
    c->enc->width = f->width;
    c->enc->height = f->height;
    c->enc->pix_fmt = pf;
    c->enc->time_base = (AVRational){ 1, 1000 };
    c->enc->color_range = f->color_range;
    c->enc->colorspace = f->colorspace;
    c->enc->thread_count = c->s.threads;
    if (c->nominal > 0)
        c->enc->framerate = av_d2q(1 / c->nominal, 100000);
    AVDictionary *opt = NULL;
    if (c->s.encoder == SETTLE_ENCODER_FFV1) {
        av_dict_set(&opt, "level", "3", 0);
        av_dict_set(&opt, "slices", "4", 0);
        c->enc->gop_size = 1;
    } else {
        av_dict_set(&opt, "preset", "ultrafast", 0);
        av_dict_set(&opt, "qp", "0", 0);
        c->enc->gop_size = 600; /* a keyframe every 10 s at 60 fps: seekable, small */
    }
    int ret = avformat_alloc_output_context2(&c->out, NULL, "matroska", c->s.output);
    if (ret < 0 || !c->out) {
        av_dict_free(&opt);
        return fail(c, SETTLE_ERR_NOMEM, "out of memory");
    }
    if (c->out->oformat->flags & AVFMT_GLOBALHEADER)
        c->enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    ret = avcodec_open2(c->enc, codec, &opt);
    av_dict_free(&opt);
    if (ret < 0)
        return fail(c, SETTLE_ERR_FORMAT, "cannot open the %s encoder: %s", name,
                    av_err(ret, e, sizeof(e)));
    if (pf != f->format) {
        c->enc_sws = sws_getContext(f->width, f->height, f->format, f->width, f->height, pf,
                                    SWS_POINT, NULL, NULL, NULL);
        c->eframe = av_frame_alloc();
        if (!c->enc_sws || !c->eframe)
            return fail(c, SETTLE_ERR_NOMEM, "out of memory");
        c->eframe->format = pf;
        c->eframe->width = f->width;
        c->eframe->height = f->height;
        if (av_frame_get_buffer(c->eframe, 0) < 0)
            return fail(c, SETTLE_ERR_NOMEM, "out of memory");
    }
    if (!(c->ost = avformat_new_stream(c->out, NULL)) ||
        avcodec_parameters_from_context(c->ost->codecpar, c->enc) < 0)
        return fail(c, SETTLE_ERR_NOMEM, "out of memory");
    c->ost->time_base = c->enc->time_base;
    if ((ret = avio_open(&c->out->pb, c->s.output, AVIO_FLAG_WRITE)) < 0)
        return fail(c, SETTLE_ERR_IO, "%s: %s", c->s.output, av_err(ret, e, sizeof(e)));
    c->out_opened = 1;
    if ((ret = avformat_write_header(c->out, NULL)) < 0)
        return fail(c, SETTLE_ERR_IO, "%s: cannot write: %s", c->s.output, av_err(ret, e, sizeof(e)));
    return 0;
}

static int drain_encoder(SettleCapture *c)
{
    char e[128];
    int ret;
    while ((ret = avcodec_receive_packet(c->enc, c->opkt)) >= 0) {
        av_packet_rescale_ts(c->opkt, c->enc->time_base, c->ost->time_base);
        c->opkt->stream_index = c->ost->index;
        if ((ret = av_interleaved_write_frame(c->out, c->opkt)) < 0)
            return fail(c, SETTLE_ERR_IO, "%s: cannot write: %s", c->s.output,
                        av_err(ret, e, sizeof(e)));
    }
    return ret == AVERROR(EAGAIN) || ret == AVERROR_EOF ? 0
           : fail(c, SETTLE_ERR_IO, "%s: encoder: %s", c->s.output, av_err(ret, e, sizeof(e)));
}

/* Stamps and encodes one decoded picture; returns its time in the file. */
static int encode(SettleCapture *c, AVFrame *f, double dev, double *t)
{
    int ret;
    if (!c->enc && (ret = open_output(c, f)) < 0)
        return ret;
    if (f->width != c->enc->width || f->height != c->enc->height)
        return fail(c, SETTLE_ERR_DECODE, "%s: the picture size changed from %dx%d to %dx%d",
                    c->s.input, c->enc->width, c->enc->height, f->width, f->height);
    int64_t pts = llround((dev - c->t0) * 1000);
    if (pts <= c->last_pts)
        pts = c->last_pts + 1; /* two pictures in one millisecond of the file */
    c->last_pts = pts;
    AVFrame *ef = f;
    if (c->enc_sws) {
        if (av_frame_make_writable(c->eframe) < 0)
            return fail(c, SETTLE_ERR_NOMEM, "out of memory");
        sws_scale(c->enc_sws, (const uint8_t *const *)f->data, f->linesize, 0, f->height,
                  c->eframe->data, c->eframe->linesize);
        ef = c->eframe;
    }
    ef->pts = pts;
    ef->pict_type = AV_PICTURE_TYPE_NONE;
    char e[128];
    if ((ret = avcodec_send_frame(c->enc, ef)) < 0)
        return fail(c, SETTLE_ERR_IO, "%s: encoder: %s", c->s.output, av_err(ret, e, sizeof(e)));
    c->st.written++;
    *t = pts / 1000.0;
    return drain_encoder(c);
}

static int to_rgb(SettleCapture *c, const AVFrame *f)
{
    if (!c->rgb) {
        c->w = f->width;
        c->h = f->height;
        c->st.width = c->w;
        c->st.height = c->h;
        c->rgb = malloc((size_t)c->w * c->h * 3);
        if (!c->rgb)
            return fail(c, SETTLE_ERR_NOMEM, "out of memory");
    }
    c->rgb_sws = sws_getCachedContext(c->rgb_sws, f->width, f->height, f->format, c->w, c->h,
                                      AV_PIX_FMT_RGB24, SWS_POINT, NULL, NULL, NULL);
    if (!c->rgb_sws)
        return fail(c, SETTLE_ERR_NOMEM, "out of memory");
    uint8_t *dst[4] = { c->rgb };
    int ls[4] = { c->w * 3 };
    sws_scale(c->rgb_sws, (const uint8_t *const *)f->data, f->linesize, 0, f->height, dst, ls);
    return 0;
}

/* Takes the oldest queued packet, waiting up to timeout_ms. 1, 0 (none), or
 * the reader's end. */
static int pop(SettleCapture *c, AVPacket *out, double *arrival, int timeout_ms)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += timeout_ms / 1000;
    dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&c->lock);
    int ret = 0;
    while (!c->qcount && !c->eof)
        if (pthread_cond_timedwait(&c->cond, &c->lock, &dl) == ETIMEDOUT)
            break;
    if (c->qcount) {
        Item *it = &c->q[c->qhead];
        av_packet_move_ref(out, it->pkt);
        *arrival = it->arrival;
        c->qhead = (c->qhead + 1) % c->qcap;
        c->qcount--;
        pthread_cond_broadcast(&c->cond);
        ret = 1;
    } else if (c->eof) {
        ret = -1;
    }
    pthread_mutex_unlock(&c->lock);
    return ret;
}

static int reader_end(SettleCapture *c)
{
    char e[128];
    int r = c->reader_ret;
    if (c->stop || r == AVERROR_EXIT)
        return SETTLE_ERR_INTERRUPTED;
    if (r == AVERROR_EOF || r == 0)
        return fail(c, SETTLE_ERR_TOO_SHORT, "%s: the input ended", c->s.input);
    return fail(c, r == AVERROR(EIO) ? SETTLE_ERR_IO : SETTLE_ERR_DECODE, "%s: %s", c->s.input,
                av_err(r, e, sizeof(e)));
}

/* The next decoded picture with its device time and arrival: 1, 0, < 0. */
static int next_frame(SettleCapture *c, int timeout_ms, double *dev, double *arrival)
{
    AVPacket *pkt = c->ipkt;
    for (;;) {
        int ret = avcodec_receive_frame(c->dec, c->frame);
        if (ret >= 0) {
            int64_t ts = c->frame->best_effort_timestamp;
            if (ts == AV_NOPTS_VALUE)
                ts = c->frame->pts;
            *dev = ts == AV_NOPTS_VALUE ? now_mono() : ts * c->tb;
            *arrival = c->arrival; /* of the packet last sent: decoding adds no delay */
            return 1;
        }
        if (ret != AVERROR(EAGAIN))
            return fail(c, SETTLE_ERR_DECODE, "%s: cannot decode", c->s.input);
        double arr = 0;
        int got = pop(c, pkt, &arr, timeout_ms);
        if (got == 0)
            return 0;
        if (got < 0) {
            avcodec_send_packet(c->dec, NULL);
            if (avcodec_receive_frame(c->dec, c->frame) >= 0) {
                *dev = c->frame->best_effort_timestamp * c->tb;
                *arrival = now_mono();
                return 1;
            }
            return reader_end(c);
        }
        c->arrival = arr;
        ret = avcodec_send_packet(c->dec, pkt);
        av_packet_unref(pkt);
        if (ret < 0 && ret != AVERROR(EAGAIN))
            return fail(c, SETTLE_ERR_DECODE, "%s: cannot decode a packet", c->s.input);
    }
}

int settle_capture_read(SettleCapture *c, SettlePicture *p, int timeout_ms)
{
    if (!c || !p)
        return SETTLE_ERR_INVAL;
    if (c->finished)
        return SETTLE_ERR_STATE;
    double dev = 0, arrival = 0;
    int ret = next_frame(c, timeout_ms, &dev, &arrival);
    if (ret <= 0)
        return ret;
    pthread_mutex_lock(&c->lock);
    if (!c->have_t0) {
        c->t0 = dev;
        c->have_t0 = 1;
    } else if (c->nominal > 0 && dev - c->last_dev > 1.5 * c->nominal) {
        c->st.device_gaps += (int64_t)llround((dev - c->last_dev) / c->nominal) - 1;
    }
    c->last_dev = dev;
    if (!c->have_offset || dev - arrival > c->offset)
        c->offset = dev - arrival;
    c->have_offset = 1;
    c->late[c->late_pos] = arrival + c->offset - dev;
    c->late_pos = (c->late_pos + 1) % LATE_N;
    pthread_mutex_unlock(&c->lock);
    double t = 0;
    if ((ret = encode(c, c->frame, dev, &t)) < 0 || (ret = to_rgb(c, c->frame)) < 0) {
        av_frame_unref(c->frame);
        return ret;
    }
    c->last_dur = c->nominal > 0 ? c->nominal : c->st.written > 1 ? t - c->last_time : 0;
    c->last_time = t;
    *p = (SettlePicture){ .rgb = c->rgb, .stride = (ptrdiff_t)c->w * 3, .width = c->w,
                          .height = c->h, .time = t, .keyframe = 0, .duration = 0 };
    av_frame_unref(c->frame);
    return 1;
}

double settle_capture_clock(SettleCapture *c)
{
    if (!c)
        return NAN;
    pthread_mutex_lock(&c->lock);
    double t = c->have_t0 ? now_mono() + c->offset - c->t0 : NAN;
    pthread_mutex_unlock(&c->lock);
    return t;
}

double settle_capture_horizon(SettleCapture *c)
{
    if (!c)
        return NAN;
    pthread_mutex_lock(&c->lock);
    double late = 0;
    for (int i = 0; i < LATE_N; i++)
        late = c->late[i] > late ? c->late[i] : late;
    double t = c->have_t0 ? now_mono() + c->offset - c->t0 - late : NAN;
    pthread_mutex_unlock(&c->lock);
    return t;
}

void settle_capture_stop(SettleCapture *c)
{
    if (c)
        c->stop = 1;
}

const char *settle_capture_error(SettleCapture *c)
{
    return c ? c->msg : "";
}

void settle_capture_stats(SettleCapture *c, SettleCaptureStats *st)
{
    if (!c || !st)
        return;
    pthread_mutex_lock(&c->lock);
    *st = c->st;
    pthread_mutex_unlock(&c->lock);
    st->duration = st->written ? c->last_time + c->last_dur : 0;
}

static void join_reader(SettleCapture *c)
{
    if (!c->thread_on)
        return;
    c->stop = 1;
    pthread_mutex_lock(&c->lock);
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
    pthread_join(c->thread, NULL);
    c->thread_on = 0;
}

int settle_capture_finish(SettleCapture *c, char *err, size_t errlen)
{
    if (!c)
        return SETTLE_ERR_INVAL;
    if (c->finished)
        return SETTLE_ERR_STATE;
    join_reader(c);
    int ret = 0;
    /* what was read before the stop is part of the recording */
    if (c->enc) {
        SettlePicture p;
        while (settle_capture_read(c, &p, 0) == 1)
            ;
    }
    c->finished = 1;
    char e[128];
    if (!c->enc) {
        ret = fail(c, SETTLE_ERR_TOO_SHORT, "%s: no picture was captured", c->s.input);
    } else {
        avcodec_send_frame(c->enc, NULL);
        if ((ret = drain_encoder(c)) >= 0) {
            int r = av_write_trailer(c->out);
            if (r < 0)
                ret = fail(c, SETTLE_ERR_IO, "%s: cannot finish: %s", c->s.output,
                           av_err(r, e, sizeof(e)));
        }
        if (c->out_opened) {
            int r = avio_closep(&c->out->pb);
            c->out_opened = 0;
            if (r < 0 && ret >= 0)
                ret = fail(c, SETTLE_ERR_IO, "%s: cannot close: %s", c->s.output,
                           av_err(r, e, sizeof(e)));
        }
    }
    if (ret < 0 && err && errlen)
        snprintf(err, errlen, "%s", c->msg);
    return ret;
}

void settle_capture_close(SettleCapture **pc)
{
    if (!pc || !*pc)
        return;
    SettleCapture *c = *pc;
    if (!c->finished)
        settle_capture_finish(c, NULL, 0);
    join_reader(c);
    if (c->out_opened)
        avio_closep(&c->out->pb);
    avformat_free_context(c->out);
    avcodec_free_context(&c->enc);
    avcodec_free_context(&c->dec);
    avformat_close_input(&c->in);
    if (c->pipe_io) /* ours, not the demuxer's */
        av_freep(&c->pipe_io->buffer);
    avio_context_free(&c->pipe_io);
    free(c->arr);
    sws_freeContext(c->enc_sws);
    sws_freeContext(c->rgb_sws);
    av_frame_free(&c->eframe);
    av_frame_free(&c->frame);
    av_packet_free(&c->opkt);
    av_packet_free(&c->ipkt);
    for (int i = 0; c->q && i < c->qcap; i++)
        av_packet_free(&c->q[i].pkt);
    free(c->q);
    free(c->rgb);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->cond);
    free(c);
    *pc = NULL;
}
