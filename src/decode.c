/* SPDX-License-Identifier: BSD-2-Clause */
/* Reading captures: the only code that talks to libavformat/libavcodec/libswscale. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/macros.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include "decode_pool.h"
#include "decode_probe.h"
#include "internal.h"

/* Frames decoded ahead of the analysis: bounded, so memory stays constant. */
#define QUEUE 4

/* A VP8 film whose entropy only the codec refresh filter reads
 * (settle_frame_entropy): its packets are read AHEAD_SPARE shown frames
 * beyond SettleSettings.window ahead of the decoder, so that each frame
 * knows whether a keyframe comes within the window after it (a packet the
 * decoder rejects shows no frame: the spare). A camera film's frames there
 * are kept as copies, not as histograms (measure_pixels.c), so a frame
 * further from a keyframe keeps nothing. AHEAD_INFO: the packets
 * remembered, those waiting and those the decoder has not yet given back as
 * frames. */
#define AHEAD_SPARE 2
#define AHEAD_INFO 512

/* AVFrame.opaque of a frame that a keyframe follows within the window (the
 * frames the decoder gives back carry it to the analysis, through the queue
 * and the probe's store) */
static const char key_near;

/* --scale auto looks at the capture's first second (at most PROBE_FRAMES
 * frames, PROBE_BYTES of pictures) before anything is measured. */
#define PROBE_FRAMES SETTLE_PROBE_HELD
#define PROBE_SECONDS 1.0
#define PROBE_BYTES ((size_t)128 << 20)
/* ... or longer, up to PROBE_SECONDS_MAX, until PROBE_MIN_FAINT frames
 * compared were faint (a screen recorder writes a frame only when the
 * screen changes, and a page loading is no quiet frame); with fewer, the
 * capture is measured at full size. */
#define PROBE_SECONDS_MAX 5.0
#define PROBE_MIN_FAINT 8
/* ... or sooner, once its choice is certain: luma_camera's floor is the
 * 10th percentile of at most PROBE_FRAMES - 1 frames compared, so once
 * PROBE_CLEAN of them (and PROBE_MIN_FAINT in all) changed within a quarter
 * of the threshold, no frame after can make the capture camera-like: a
 * clean capture goes to the analysis at full size then, instead of a second
 * later (Eideticker's contacts film, clean from its first frames: without
 * a probe it took 0.91 of the CPU time and 0.78 of the wall time it took
 * with the probe's full second; now as much as without, the second's
 * copies no longer made) */
#define PROBE_CLEAN ((PROBE_FRAMES - 1) / 10 + 1)
/* A probe frame is faint when at most a tenth of the diff threshold, and at
 * most 0.2 % of the picture, moved its luma by more than this (as a codec
 * refresh: sensor noise moves no pixel that far, content does). */
#define PROBE_STRONG 96
/* The change counts of the camera test read every LUMA_STEP-th row of the
 * full picture in the probe, every LUMA_STEP_ALL-th after it (the whole
 * capture's 10th percentile needs fewer rows a frame). */
#define LUMA_STEP 4
#define LUMA_STEP_ALL 16
/* A reduced picture keeps at least this many pixels on its short side. */
#define SCALE_MIN_SIDE 160
/* --scale auto reduces by 2 at most: a block of the block test (16 / F
 * pixels a side) then averages 64 reduced pixels and 16 chroma samples, each
 * rounded to 8 bits; at F = 4 the rounding of its 4 chroma samples moves a
 * block's mean by about a quarter of a level, enough to tip a block that is
 * as close to its threshold as the site icon of startup-test-elmo's frame 378
 * (settled at 380 instead of 378) */
#define SCALE_AUTO_MAX 2

/* Whether the capture is camera-like, from the full-size planes: each
 * frame's samples that moved against the frame before (luma by more than the
 * tolerance, chroma by more than half of it; every LUMA_STEP-th row, counted
 * for the pixels they stand for, the largest of the three planes' counts),
 * keyframes left out, as settle_decide_camera judges the changed-pixel
 * counts of the picture. */
typedef struct LumaStats {
    int64_t *count;      /* one a frame compared */
    int64_t n, cap;
    int64_t local;       /* of them, over a quarter of the threshold within a
                          * sixteenth of the picture (something moving in one place) */
    int64_t strong;      /* the probe's frames left out as not faint */
    int64_t quiet;       /* the frames compared within a quarter of the threshold */
    double limit;        /* the diff threshold in pixels for the frames compared */
} LumaStats;

/* A frame's counts of the camera test so far (luma_rows): each plane's
 * changed samples and the box around them. */
typedef struct LumaPart {
    int64_t n[3];
    int x0, x1, y0, y1;
} LumaPart;

/* A packet read: its time, and from its first byte whether it is a
 * keyframe and whether it shows a frame. */
typedef struct AheadInfo {
    int64_t pts;
    int key, shown;
} AheadInfo;

/* The packets read ahead of the decoder (see AHEAD_SPARE). */
typedef struct Ahead {
    int on;
    int need;                  /* shown packets kept waiting behind the one sent */
    AVPacket **wait;           /* waiting to be sent: a ring of cap */
    int cap, whead, wcount, wshown; /* ... their shown ones after the first */
    AheadInfo info[AHEAD_INFO]; /* the last packets read, in order */
    int64_t ninfo;             /* packets read */
    int end;                   /* every packet is read */
} Ahead;

typedef struct Decoder {
    SettleContext *c;
    const char *path;
    AVFormatContext *fmt;
    AVCodecContext *dec;
    struct SwsContext *sws;      /* whole pictures, scaled to the analysis size */
    struct SwsContext *band_sws; /* one band of BAND rows */
    struct SwsContext *tail_sws; /* the last, shorter band */
    AVFrame *prev;               /* the previous decoded picture, for band comparison */
    uint8_t *changed;            /* per band: converted anew for this picture */
    int all_changed;             /* every band (a scaled picture, or the first) */
    uint8_t *pending;            /* per band: changed, not yet converted (fill_rows) */
    int lazy;                    /* this picture's bands wait for fill_rows */
    /* settle's own conversion at full size, against a previous picture of
     * the same planes (by_pairs): per band the offset of its first pair of
     * rows whose planes changed (first), from which fill_rows converts it,
     * and whether its RGB may not be its planes' where they did not change
     * (whole: never converted, or changed while no one asked for it), so
     * that fill_rows converts it whole */
    int by_pairs;
    uint8_t *first;
    uint8_t *whole;
    /* a reduced reading's camera test on the picture d->prev holds against
     * the one before (lprev), band by band as fill_rows reduces it, while
     * the band's rows are near (luma_band; lon: being counted, into lpart) */
    AVFrame *lprev;
    LumaPart lpart;
    int lon;
    SettleYuvCoef coef;          /* of this picture, for settle's own conversion */
    int coef_key;                /* the matrix and range coef is for; -1 none */
    AVPacket *pkt;
    AVFrame *frame;
    uint8_t *rgb;
    int stride;          /* of rgb, in bytes */
    int stream;
    int w, h;            /* analysis size: the first frame's */
    int begun;
    double tb;
    double nominal;      /* seconds a frame, for frames without a timestamp */
    double last_time;
    double last_end;     /* end of the last frame shown */
    int64_t decode_errors;
    double first_error_time;
    double first_queued, queued_time; /* stream times handed to the analysis */

    /* Decoding and analysis overlap: this thread decodes and queues frames
     * (references, not copies), the analysis thread converts and measures
     * them in order. */
    AVFrame *slot[QUEUE];
    int q_head, q_count, q_done, q_failed, thread_ret;
    int threaded, sync_init;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t thread;
    int size_warned;
    int rotation;        /* of the display matrix, degrees clockwise */
    double declared;     /* duration the file declares, for progress_cb; NaN = none */
    int mobile;          /* tagged com.android.version: an Android screen recording */

    /* the reduction (SettleSettings.scale): pictures of sw x sh reduced by
     * F to w x h, band by band, in the YUV planes before conversion */
    int F, sw, sh;
    int force_full;      /* a second reading at full size (scale_reread) */
    int auto_scale;      /* F was chosen by the probe */
    int again_ok;        /* the input can be read a second time from its start */
    uint8_t *red;        /* a reduced band's planes: Y, then U and V */
    uint8_t *full;       /* kept pictures of a reduced reading: the picture at full size */
    ptrdiff_t full_stride;
    int full_pending;    /* full is not yet this picture's (fill_full) */
    int full_done;       /* its rows converted so far (fill_full) */
    const AVFrame *full_src; /* the frame they are converted from (fill_full) */
    ptrdiff_t red_ys, red_cs;
    char why[320];
    /* --scale auto: the first frames, held until the probe decides */
    int probing;
    int replaying;           /* the held frames go to the analysis */
    SettleProbeStore store;  /* their copies */
    size_t probe_bytes;
    LumaStats luma;
    AVFrame *probe_last;     /* the last frame probed: the next is compared with it */
    /* A film the probe may reduce (a 4:2:0 picture scale_for reduces, no
     * pictures kept) is measured as it comes, as a reduced reading would
     * measure it at probe_F: each frame's changed bands (probe_bands) and
     * the whole capture's counts (luma_all). While the probe would reduce
     * it were the frame its last (PROBE_MIN_FAINT faint frames, camera-like)
     * and every frame changed every band (every_band: a camera's noise
     * does, a screen repeats rows), frames are held reduced (hold_reduced:
     * their properties only); should the probe then choose full size after
     * all, the capture is read again from its start (again_full). */
    int probe_F;
    uint8_t *probe_bands;    /* per frame, per band of the reduced picture */
    LumaStats luma_all;
    int every_band;
    int nreduced;            /* frames held reduced */
    int again_full;
    /* Once frames are held reduced, the probe's frames go to the analysis as
     * they come, at probe_F, instead of all at once when the probe chooses
     * (the decoder waited for that on the queue); should it choose full
     * size, the capture is read again from its start as above. */
    int handed;              /* of the store's frames, those gone to the analysis */
    Ahead ahead;
} Decoder;

/* Returned through the reading when the probe chose full size for frames it
 * holds reduced (again_full); never leaves decode_input. */
#define READ_AGAIN (-1000)

static int interrupt_cb(void *opaque)
{
    const SettleContext *c = opaque;
    return c->interrupted != 0;
}

static int fail_input(SettleContext *c, const char *path, int err, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int fail_input(SettleContext *c, const char *path, int err, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* settle_begin resets the context and names the input; a size of 1x1
     * keeps it valid while nothing is measured */
    if (c->state != SETTLE_STATE_RUNNING) {
        int ret = settle_begin(c, path, 1, 1);
        if (ret < 0 && c->state != SETTLE_STATE_RUNNING) /* begun with an error of its own: this one wins */
            return ret;
    }
    settle_set_error(c, err, msg);
    return err;
}

static int av_to_settle(int averr)
{
    switch (averr) {
    case AVERROR(ENOENT):
    case AVERROR(EACCES):
    case AVERROR(EISDIR):
    case AVERROR(EIO):
    case AVERROR(EPERM):
        return SETTLE_ERR_IO;
    case AVERROR(ENOMEM):
        return SETTLE_ERR_NOMEM;
    case AVERROR_EXIT:
        return SETTLE_ERR_INTERRUPTED;
    default:
        return SETTLE_ERR_FORMAT;
    }
}

static const char *av_err(int err, char *buf, size_t len)
{
    if (av_strerror(err, buf, len) < 0)
        snprintf(buf, len, "error %d", err);
    return buf;
}

/* Unchanged bands of a picture keep their RGB from the previous frame; a band
 * is converted on its own, so its RGB depends on its own rows only. */
#define BAND SETTLE_BAND_ROWS

/* The stream's colour matrix: swscale's name for it and its luma weights
 * (Kr, Kb) for settle's own conversion. BT.601 for the unspecified ones, as
 * swscale's default. */
typedef struct Matrix {
    int sws;
    double kr, kb;
} Matrix;

static Matrix stream_matrix(enum AVColorSpace spc)
{
    switch (spc) {
    case AVCOL_SPC_BT709: return (Matrix){ SWS_CS_ITU709, 0.2126, 0.0722 };
    case AVCOL_SPC_FCC: return (Matrix){ SWS_CS_FCC, 0.30, 0.11 };
    case AVCOL_SPC_SMPTE240M: return (Matrix){ SWS_CS_SMPTE240M, 0.212, 0.087 };
    case AVCOL_SPC_BT2020_NCL:
    case AVCOL_SPC_BT2020_CL: return (Matrix){ SWS_CS_BT2020, 0.2627, 0.0593 };
    case AVCOL_SPC_BT470BG:
    case AVCOL_SPC_SMPTE170M: return (Matrix){ SWS_CS_ITU601, 0.299, 0.114 };
    default: return (Matrix){ SWS_CS_DEFAULT, 0.299, 0.114 };
    }
}

static struct SwsContext *get_scaler(struct SwsContext *sws, const AVFrame *f, int sw, int sh,
                                     int dw, int dh)
{
    sws = sws_getCachedContext(sws, sw, sh, f->format, dw, dh, AV_PIX_FMT_RGB24, SWS_BILINEAR,
                               NULL, NULL, NULL);
    if (!sws)
        return NULL;
    /* Honour the stream's matrix and range so marker colours come out as drawn. */
    const int cs = stream_matrix(f->colorspace).sws;
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(f->format);
    int is_yuv = desc && !(desc->flags & AV_PIX_FMT_FLAG_RGB) && desc->nb_components >= 3;
    if (is_yuv) {
        int full = f->color_range == AVCOL_RANGE_JPEG || f->format == AV_PIX_FMT_YUVJ420P ||
                   f->format == AV_PIX_FMT_YUVJ422P || f->format == AV_PIX_FMT_YUVJ444P;
        const int *coef = sws_getCoefficients(cs);
        sws_setColorspaceDetails(sws, coef, full, coef, 1, 0, 1 << 16, 1 << 16);
    }
    return sws;
}

/* 8-bit 4:2:0, the format of nearly every capture, is converted by settle's
 * own kernel (yuv420_rgb), the same on every CPU; the matrix and range are
 * the stream's, as get_scaler gives them to swscale for the other formats.
 * The coefficients are made again only when those change. */
static int yuv_coef(Decoder *d, const AVFrame *f)
{
    if (f->format != AV_PIX_FMT_YUV420P && f->format != AV_PIX_FMT_YUVJ420P)
        return 0;
    const int full = f->color_range == AVCOL_RANGE_JPEG || f->format == AV_PIX_FMT_YUVJ420P;
    const int key = (int)f->colorspace * 2 + full;
    if (key != d->coef_key) {
        const Matrix m = stream_matrix(f->colorspace);
        settle_yuv_coef(&d->coef, m.kr, m.kb, full);
        d->coef_key = key;
    }
    return 1;
}

/* Whether band mode can address the rows of this format's planes. */
static int bandable(const AVFrame *f)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(f->format);
    return desc && !(desc->flags & (AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_HWACCEL |
                                    AV_PIX_FMT_FLAG_BITSTREAM)) &&
           BAND % (1 << desc->log2_chroma_h) == 0;
}

/* Whether a reduced reading can take this format: 8-bit 4:2:0 in bands. */
static int reducible(const AVFrame *f)
{
    return (f->format == AV_PIX_FMT_YUV420P || f->format == AV_PIX_FMT_YUVJ420P) && bandable(f);
}

static int plane_shift(const AVPixFmtDescriptor *desc, int p)
{
    return (desc->flags & AV_PIX_FMT_FLAG_PLANAR) && (p == 1 || p == 2) ? desc->log2_chroma_h : 0;
}

static int band_changed(const AVFrame *a, const AVFrame *b, int y0, int bh)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(a->format);
    for (int p = 0; p < 4 && a->data[p]; p++) {
        int sh = plane_shift(desc, p);
        int r0 = y0 >> sh, r1 = (y0 + bh + (1 << sh) - 1) >> sh;
        int bytes = av_image_get_linesize(a->format, a->width, p);
        if (bytes <= 0)
            return 1;
        for (int y = r0; y < r1; y++)
            if (memcmp(a->data[p] + (ptrdiff_t)y * a->linesize[p],
                       b->data[p] + (ptrdiff_t)y * b->linesize[p], (size_t)bytes))
                return 1;
    }
    return 0;
}

static void luma_frame(Decoder *d, LumaStats *L, LumaStats *all, const AVFrame *cur,
                       const AVFrame *prev, int probing, int held);
static int luma_compared(LumaStats *L, const AVFrame *cur, const AVFrame *prev);
static void luma_part_init(LumaPart *part, const AVFrame *cur);
static void luma_band(Decoder *d, int k);
static void luma_finish(Decoder *d);

/* What the probe measured of a frame it held (convert): its changed bands
 * against the frame before at the reduction chosen. */
typedef struct ProbeMeasured {
    const uint8_t *bands;
    int first;
} ProbeMeasured;

/* convert() for a frame of the probe, reduced by d->F = probe_F: compared
 * as it came (pm). */
static int convert_probed(Decoder *d, const AVFrame *f, const ProbeMeasured *pm)
{
    luma_finish(d);
    d->all_changed = pm->first;
    d->lazy = yuv_coef(d, f);
    d->full_pending = 1;
    d->full_done = 0;
    d->full_src = NULL;
    d->by_pairs = 0;
    memset(d->whole, 1, (size_t)(d->h + BAND - 1) / BAND);
    for (int k = 0; k < (d->h + BAND - 1) / BAND; k++)
        d->pending[k] = d->changed[k] = pm->first || pm->bands[k];
    av_frame_unref(d->prev);
    return av_frame_ref(d->prev, f) < 0 ? SETTLE_ERR_NOMEM : 0;
}

/* The first pair of rows of band y0 (bh rows) of 4:2:0 pictures a and b
 * whose luma or chroma rows differ, as an offset from y0; -1 when none. In
 * the order of the rows, not of the planes as band_changed compares them,
 * so that the rows above it, the same, need no conversion. */
static int band_first_pair(const AVFrame *a, const AVFrame *b, int y0, int bh)
{
    const size_t w = (size_t)a->width, cw = (w + 1) / 2;
    for (int y = y0; y < y0 + bh; y += 2) {
        const int y1 = y + 1 < y0 + bh ? y + 1 : y;
        if (memcmp(a->data[0] + (ptrdiff_t)y * a->linesize[0],
                   b->data[0] + (ptrdiff_t)y * b->linesize[0], w) ||
            (y1 > y && memcmp(a->data[0] + (ptrdiff_t)y1 * a->linesize[0],
                              b->data[0] + (ptrdiff_t)y1 * b->linesize[0], w)) ||
            memcmp(a->data[1] + (ptrdiff_t)(y / 2) * a->linesize[1],
                   b->data[1] + (ptrdiff_t)(y / 2) * b->linesize[1], cw) ||
            memcmp(a->data[2] + (ptrdiff_t)(y / 2) * a->linesize[2],
                   b->data[2] + (ptrdiff_t)(y / 2) * b->linesize[2], cw))
            return y - y0;
    }
    return -1;
}

/* Rows top .. bottom of f's planes (4:2:0) out of the caches
 * (SettleKernels.evict), f being a picture read here for the last time: the
 * picture before, at full size once band_first_pair has compared it with the
 * new one; at a reduced size, band by band once the camera test has read its
 * rows (luma_band: its rows as the picture measured a frame ago, every
 * LUMA_STEP_ALL-th as the camera test's reference). Its buffer then goes back
 * to the decoder's pool, and the decoder's threads write a coming picture
 * into it on another core; each line this core still held made such a write
 * wait for this core to give the line up (measured in doc/performance.md,
 * "The frame before leaves the caches"). */
static void evict_rows(Decoder *d, const AVFrame *f, int top, int bottom)
{
    for (int p = 0; p < 3; p++) {
        const int sh = p ? 1 : 0, r0 = top >> sh, r1 = (bottom + sh) >> sh;
        const int bytes = av_image_get_linesize(f->format, f->width, p);
        for (int y = r0; y < r1 && bytes > 0; y++)
            d->c->dsp.evict(f->data[p] + (ptrdiff_t)y * f->linesize[p], (size_t)bytes);
    }
}

static int convert(Decoder *d, const AVFrame *f)
{
    luma_finish(d);
    int same = f->width == d->sw && f->height == d->sh && bandable(f) &&
               (d->F == 1 || yuv_coef(d, f));
    int have_prev = same && d->prev->data[0] && d->prev->format == f->format &&
                    d->prev->width == f->width && d->prev->height == f->height;
    d->all_changed = !have_prev;
    d->lazy = 0;
    d->by_pairs = 0;
    d->full_pending = 1;
    d->full_done = 0;
    d->full_src = NULL;
    if (!same) {
        d->sws = get_scaler(d->sws, f, f->width, f->height, d->w, d->h);
        if (!d->sws)
            return SETTLE_ERR_NOMEM;
        uint8_t *dst[4] = { d->rgb, NULL, NULL, NULL };
        int dst_stride[4] = { d->stride, 0, 0, 0 };
        sws_scale(d->sws, (const uint8_t *const *)f->data, f->linesize, 0, f->height, dst,
                  dst_stride);
        memset(d->whole, 1, (size_t)(d->h + BAND - 1) / BAND);
        av_frame_unref(d->prev);
        return 0;
    }
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(f->format);
    /* settle's own conversion waits for the analysis to reach each band
     * (fill_rows), so that the band's RGB is read while it is in the cache */
    d->lazy = yuv_coef(d, f);
    d->by_pairs = d->lazy && d->F == 1 && have_prev;
    /* the camera test's counts, band by band as fill_rows reduces it */
    const int later = d->F > 1 && have_prev && luma_compared(&d->luma, f, d->prev);
    for (int y0 = 0; y0 < d->h; y0 += BAND) {
        int bh = d->h - y0 < BAND ? d->h - y0 : BAND;
        const int k = y0 / BAND;
        /* a band that changed and was not converted: stale */
        d->whole[k] |= d->pending[k] || !d->by_pairs;
        if (d->by_pairs) {
            const int r = band_first_pair(f, d->prev, y0, bh);
            d->changed[k] = r >= 0;
            d->first[k] = (uint8_t)(r > 0 ? r : 0);
        } else {
            d->changed[k] = !have_prev || band_changed(f, d->prev, y0 * d->F, bh * d->F);
        }
        d->pending[k] = d->lazy && d->changed[k];
        if (!d->changed[k] || d->lazy)
            continue;
        struct SwsContext **sp = bh == BAND ? &d->band_sws : &d->tail_sws;
        *sp = get_scaler(*sp, f, d->w, bh, d->w, bh);
        if (!*sp)
            return SETTLE_ERR_NOMEM;
        const uint8_t *src[4] = { NULL };
        for (int p = 0; p < 4 && f->data[p]; p++)
            src[p] = f->data[p] + (ptrdiff_t)(y0 >> plane_shift(desc, p)) * f->linesize[p];
        uint8_t *dst[4] = { d->rgb + (size_t)y0 * d->stride, NULL, NULL, NULL };
        int dst_stride[4] = { d->stride, 0, 0, 0 };
        sws_scale(*sp, src, f->linesize, 0, bh, dst, dst_stride);
    }
    if (later) {
        av_frame_move_ref(d->lprev, d->prev);
        luma_part_init(&d->lpart, f);
        d->lon = 1;
    }
    /* the picture before, read for the last time by band_first_pair */
    if (d->by_pairs)
        evict_rows(d, d->prev, 0, d->prev->height);
    av_frame_unref(d->prev);
    return av_frame_ref(d->prev, f) < 0 ? SETTLE_ERR_NOMEM : 0;
}

/* Rows of the reduction at a time, between which the next band's rows are
 * asked for (reduce_rows). */
#define REDUCE_STEP 4

/* dh rows of a plane reduced by F, REDUCE_STEP rows at a time, each step
 * followed by the F * REDUCE_STEP rows of next (nh rows reduced; NULL none)
 * asked for: the next band's, which the decoder wrote on another core. Its
 * rows are far from the caches, and the processor's prefetcher stops at each
 * page's end: asked for this way they arrive while this band is converted
 * and measured, instead of each page waiting for them in turn. */
static void reduce_rows(const SettleKernels *k, uint8_t *dst, ptrdiff_t dstride,
                        const uint8_t *src, ptrdiff_t sstride, int dw, int dh, int F,
                        const uint8_t *next, int nh)
{
    for (int y = 0; y < dh; y += REDUCE_STEP) {
        const int rows = dh - y < REDUCE_STEP ? dh - y : REDUCE_STEP;
        k->reduce_plane(dst + (ptrdiff_t)y * dstride, dstride, src + (ptrdiff_t)y * F * sstride,
                        sstride, dw, rows, F);
        for (int r = y * F; next && r < (y + rows) * F && r < nh * F; r++)
            settle_prefetch(next + (ptrdiff_t)r * sstride, (size_t)dw * F);
    }
}

/* Band y0 (bh rows) of the picture reduced by F, as 4:2:0 again: its
 * planes box-averaged by F x F (a chroma sample then covers the 2F x 2F
 * pixels it covered before, reduced), then converted. The reduced size is
 * even, so that no sample reads past the planes. */
static void fill_reduced(Decoder *d, const AVFrame *f, int y0, int bh)
{
    const SettleKernels *k = &d->c->dsp;
    const int F = d->F, cw = d->w / 2, ch = (bh + 1) / 2, cf = F;
    uint8_t *ry = d->red, *ru = ry + d->red_ys * BAND, *rv = ru + d->red_cs * (BAND / 2);
    /* the next band, when it is converted too */
    const int y1 = y0 + BAND, next = y1 < d->h && d->pending[y1 / BAND];
    const int nh = next ? (d->h - y1 < BAND ? d->h - y1 : BAND) : 0, nch = (nh + 1) / 2;
    const uint8_t *src[3], *nsrc[3] = { NULL, NULL, NULL };
    for (int p = 0; p < 3; p++) {
        const int r0 = p ? y0 / 2 * cf : y0 * F, r1 = p ? y1 / 2 * cf : y1 * F;
        src[p] = f->data[p] + (ptrdiff_t)r0 * f->linesize[p];
        if (next)
            nsrc[p] = f->data[p] + (ptrdiff_t)r1 * f->linesize[p];
    }
    reduce_rows(k, ry, d->red_ys, src[0], f->linesize[0], d->w, bh, F, nsrc[0], nh);
    reduce_rows(k, ru, d->red_cs, src[1], f->linesize[1], cw, ch, cf, nsrc[1], nch);
    reduce_rows(k, rv, d->red_cs, src[2], f->linesize[2], cw, ch, cf, nsrc[2], nch);
    k->yuv420_rgb(d->rgb + (size_t)y0 * d->stride, d->stride, ry, d->red_ys, ru, d->red_cs, rv,
                  d->red_cs, d->w, bh, &d->coef);
}

/* SettleFillRows: converts the pending bands under rows top .. bottom of
 * the picture, which d->prev holds once convert() has run. */
static int fill_rows(void *opaque, int top, int bottom)
{
    Decoder *d = opaque;
    const AVFrame *f = d->prev;
    for (int k = top / BAND; k <= bottom / BAND; k++) {
        if (!d->pending[k])
            continue;
        d->pending[k] = 0;
        int y0 = k * BAND, bh = d->h - y0 < BAND ? d->h - y0 : BAND;
        if (d->F > 1) {
            if (d->lon)
                luma_band(d, k);
            fill_reduced(d, f, y0, bh);
            continue;
        }
        /* from the first pair of rows that changed, unless the band is stale */
        if (d->by_pairs && !d->whole[k]) {
            y0 += d->first[k];
            bh -= d->first[k];
        }
        d->whole[k] = 0;
        d->c->dsp.yuv420_rgb(d->rgb + (size_t)y0 * d->stride, d->stride,
                             f->data[0] + (ptrdiff_t)y0 * f->linesize[0], f->linesize[0],
                             f->data[1] + (ptrdiff_t)(y0 / 2) * f->linesize[1], f->linesize[1],
                             f->data[2] + (ptrdiff_t)(y0 / 2) * f->linesize[2], f->linesize[2],
                             d->w, bh, &d->coef);
    }
    return 0;
}

/* SettleFillRows for the pictures kept during a reduced reading: the picture
 * at full size, as a full-size reading converts it, down to row bottom (at
 * an even row, for the chroma; rows above top too, when not yet converted at
 * this frame), so that a kept picture's thumbnail reads each band while it
 * is in the cache. 1 when this frame has no such planes (a picture of
 * another size or format, scaled). */
static int fill_full(void *opaque, int top, int bottom)
{
    Decoder *d = opaque;
    const AVFrame *f = d->prev;
    (void)top;
    if (!d->full_pending)
        return 0;
    if (!d->full_src && (!f->data[0] || f->width != d->sw || f->height != d->sh))
        return 1;
    if (!d->full_src)
        d->full_src = f;
    f = d->full_src;
    int y0 = d->full_done, y1 = bottom + 1 < d->sh ? bottom + 1 : d->sh;
    y1 += y1 < d->sh && (y1 & 1);
    if (y1 > y0)
        d->c->dsp.yuv420_rgb(d->full + (ptrdiff_t)y0 * d->full_stride, d->full_stride,
                             f->data[0] + (ptrdiff_t)y0 * f->linesize[0], f->linesize[0],
                             f->data[1] + (ptrdiff_t)(y0 / 2) * f->linesize[1], f->linesize[1],
                             f->data[2] + (ptrdiff_t)(y0 / 2) * f->linesize[2], f->linesize[2],
                             d->sw, y1 - y0, &d->coef);
    d->full_done = y1 > y0 ? y1 : y0;
    if (d->full_done >= d->sh) {
        d->full_pending = 0;
        d->full_src = NULL;
    }
    return 0;
}

/* A kept picture held as a reference to its frame (settle_set_hold): the
 * decoder's buffer stays out of its pool while a role holds it, and is
 * converted whole, as fill_rows and fill_full convert it, only if it
 * becomes a picture. */
typedef struct HeldFrame {
    SettleHeld pub;
    AVFrame *f;
    SettleYuvCoef coef;
    void (*yuv420_rgb)(uint8_t *dst, ptrdiff_t dstride, const uint8_t *y, ptrdiff_t ystride,
                       const uint8_t *u, ptrdiff_t ustride, const uint8_t *v, ptrdiff_t vstride,
                       int w, int h, const SettleYuvCoef *k);
} HeldFrame;

static void held_render(const SettleHeld *h, uint8_t *rgb, ptrdiff_t stride)
{
    const HeldFrame *hf = (const HeldFrame *)h;
    const AVFrame *f = hf->f;
    hf->yuv420_rgb(rgb, stride, f->data[0], f->linesize[0], f->data[1], f->linesize[1],
                   f->data[2], f->linesize[2], f->width, f->height, &hf->coef);
}

static void held_release(SettleHeld *h)
{
    HeldFrame *hf = (HeldFrame *)h;
    av_frame_free(&hf->f);
    free(hf);
}

/* SettleHoldPicture: the picture last sent, when settle's own conversion
 * made it of the whole frame d->prev holds (4:2:0, the capture's first
 * size). Not the probe's frames: some share a region of the probe's memory,
 * which a reference would keep. */
static SettleHeld *hold_frame(void *opaque)
{
    Decoder *d = opaque;
    const AVFrame *f = d->prev;
    if (d->replaying || !d->lazy || !f->data[0] || !f->buf[0] || f->width != d->sw ||
        f->height != d->sh)
        return NULL;
    HeldFrame *hf = malloc(sizeof(*hf));
    if (!hf)
        return NULL;
    if (!(hf->f = av_frame_clone(f))) {
        free(hf);
        return NULL;
    }
    hf->pub.render = held_render;
    hf->pub.release = held_release;
    hf->coef = d->coef;
    hf->yuv420_rgb = d->c->dsp.yuv420_rgb;
    return &hf->pub;
}

/* The diff threshold for a picture of w x h, as the decide stage sets it. */
static double limit_for(const Decoder *d, int w, int h)
{
    const SettleSettings *s = &d->c->s;
    return s->diff_threshold_percent > 0
               ? floor((double)w * h * s->diff_threshold_percent / 100.0)
               : s->diff_threshold;
}


/* Row y of plane p of prev, or of the probe's last held frame (held: prev
 * is its properties). */
static const uint8_t *prev_row(const Decoder *d, const AVFrame *prev, int held, int p, int y)
{
    return held ? settle_probe_row(&d->store, d->store.n - 1, p, y)
                : prev->data[p] + (ptrdiff_t)y * prev->linesize[p];
}

/* Whether frame cur is compared with prev in L (keyframes, where an encoder
 * re-codes the picture, left out), with room for its count. */
static int luma_compared(LumaStats *L, const AVFrame *cur, const AVFrame *prev)
{
    if (cur->key_frame || cur->pict_type == AV_PICTURE_TYPE_I || cur->width != prev->width ||
        cur->height != prev->height || cur->format != prev->format)
        return 0;
    if (L->n == L->cap) {
        int64_t cap = L->cap ? 2 * L->cap : 256;
        int64_t *grown = realloc(L->count, (size_t)cap * sizeof(*grown));
        if (!grown)
            return 0; /* the frames compared so far decide */
        L->count = grown;
        L->cap = cap;
    }
    return 1;
}

/* A row's changed samples, from a to b, in row y of a plane subsampled by
 * sh, into part's box. */
static void luma_box(LumaPart *part, int sh, int y, int a, int b)
{
    part->x0 = a << sh < part->x0 ? a << sh : part->x0;
    part->x1 = (b << sh) + sh > part->x1 ? (b << sh) + sh : part->x1;
    part->y0 = part->y0 < 0 || y << sh < part->y0 ? y << sh : part->y0;
    part->y1 = (y << sh) + sh > part->y1 ? (y << sh) + sh : part->y1;
}

/* The rows of cur from luma row top (even) to bottom of every plane, every
 * rstep-th of the luma and every (rstep / 2)-th of the chroma, compared with
 * prev's into *part, and those of them that are every LUMA_STEP_ALL-th (of
 * the luma; every LUMA_STEP_ALL / 2-th of the chroma) into *all as well
 * (NULL: none); *strong (NULL: none): the luma samples compared that moved
 * by more than PROBE_STRONG, added to; ahead: each row's next asked for as
 * it is compared. */
static void luma_rows(Decoder *d, LumaPart *part, LumaPart *all, int64_t *strong,
                      const AVFrame *cur, const AVFrame *prev, int held, int rstep, int top,
                      int bottom, int ahead)
{
    /* a change of chroma moves R or B by about twice as much (1.6 to 1.9
     * times in BT.601 and 709), so chroma counts beyond half the tolerance */
    const int tol[3] = { d->c->s.tolerance, d->c->s.tolerance / 2, d->c->s.tolerance / 2 };
    for (int p = 0; p < 3; p++) {
        const int sh = p ? 1 : 0, pw = (cur->width + sh) >> sh, step = rstep >> sh;
        const int r1 = (bottom + sh) >> sh, astep = LUMA_STEP_ALL >> sh;
        int64_t n = 0, na = 0;
        for (int y = ((top >> sh) + step - 1) / step * step; y < r1; y += step) {
            int a, b;
            if (ahead && y + step < r1) {
                settle_prefetch(cur->data[p] + (ptrdiff_t)(y + step) * cur->linesize[p],
                                (size_t)pw);
                settle_prefetch(prev_row(d, prev, held, p, y + step), (size_t)pw);
            }
            const uint8_t *rc = cur->data[p] + (ptrdiff_t)y * cur->linesize[p];
            const uint8_t *rp = prev_row(d, prev, held, p, y);
            const int k = d->c->dsp.count_row_changed(rc, rp, pw, tol[p], &a, &b);
            /* while the rows are in the cache; a row where no sample moved
             * by more than a tolerance up to PROBE_STRONG has none that
             * moved by more than PROBE_STRONG */
            if (strong && !p && (k || tol[0] > PROBE_STRONG)) {
                int sa, sb;
                *strong += d->c->dsp.count_row_changed(rc, rp, pw, PROBE_STRONG, &sa, &sb);
            }
            if (!k)
                continue;
            n += k;
            luma_box(part, sh, y, a, b);
            if (all && y % astep == 0) {
                na += k;
                luma_box(all, sh, y, a, b);
            }
        }
        part->n[p] += n;
        if (all)
            all->n[p] += na;
    }
}

static void luma_part_init(LumaPart *part, const AVFrame *cur)
{
    *part = (LumaPart){ .x0 = cur->width, .x1 = -1, .y0 = -1, .y1 = -1 };
}

/* The counts of part: the largest of the planes' changed samples, each
 * standing for the pixels of its rows skipped (rstep), and the box around
 * them. */
static int64_t luma_count(const LumaPart *part, int rstep, int64_t *box)
{
    int64_t count = 0;
    for (int p = 0; p < 3; p++) {
        const int sh = p ? 1 : 0;
        /* each sample counted stands for step rows of (1 << sh) x (1 << sh) pixels */
        const int64_t n = part->n[p] * ((int64_t)(rstep >> sh) << (2 * sh));
        count = n > count ? n : count;
    }
    *box = count ? (int64_t)(part->x1 - part->x0 + 1) * (part->y1 - part->y0 + rstep) : 0;
    return count;
}

/* A frame's count (see luma_count) of w x h pixels into L. */
static void luma_add(Decoder *d, LumaStats *L, int64_t count, int64_t box, int w, int h)
{
    /* the threshold of the full-size picture compared, whether or not the
     * reading has begun (a --diff-threshold in per cent needs its size) */
    const double limit = L->limit = limit_for(d, w, h);
    L->local += count > limit / 4 && box * 16 < (int64_t)w * h;
    L->quiet += count <= limit / 4;
    L->count[L->n++] = count;
}

/* One frame's full-size luma change against the frame before (keyframes,
 * where an encoder re-codes the picture, left out), into L: the probe's
 * (probing: more rows, strong changes left out; prev may be the last frame
 * it holds, held) or the whole capture's; all (probing; NULL: none): the
 * whole capture's of the same frames too, from the same rows (every
 * LUMA_STEP_ALL-th row is a LUMA_STEP-th). */
static void luma_frame(Decoder *d, LumaStats *L, LumaStats *all, const AVFrame *cur,
                       const AVFrame *prev, int probing, int held)
{
    const int in = luma_compared(L, cur, prev), in_all = all && luma_compared(all, cur, prev);
    if (!in) {
        if (in_all)
            luma_frame(d, all, NULL, cur, prev, 0, held);
        return;
    }
    const int rstep = probing ? LUMA_STEP : LUMA_STEP_ALL;
    LumaPart part, apart;
    int64_t strong = 0, box;
    luma_part_init(&part, cur);
    luma_part_init(&apart, cur);
    luma_rows(d, &part, in_all ? &apart : NULL, probing ? &strong : NULL, cur, prev, held, rstep,
              0, cur->height, 1);
    if (in_all) {
        const int64_t count = luma_count(&apart, LUMA_STEP_ALL, &box);
        luma_add(d, all, count, box, cur->width, cur->height);
    }
    const int64_t count = luma_count(&part, rstep, &box);
    if (probing && count) {
        const double limit = limit_for(d, cur->width, cur->height);
        const double share = (double)cur->width * cur->height / 500, faint = limit / 10;
        if ((double)strong * rstep > (share < faint ? share : faint)) {
            L->limit = limit;
            L->strong++;
            return;
        }
    }
    luma_add(d, L, count, box, cur->width, cur->height);
}

/* The camera test's rows of band k of the picture d->prev holds, against
 * d->lprev's (a reduced reading's: see Decoder.lon). */
static void luma_band(Decoder *d, int k)
{
    const int top = k * BAND * d->F;
    const int bottom = ((k + 1) * BAND < d->h ? (k + 1) * BAND : d->h) * d->F;
    /* the frame before's rows of the next band, which nothing else reads:
     * the reduction asks for this frame's (reduce_rows) */
    if ((k + 1) * BAND < d->h && d->pending[k + 1]) {
        const AVFrame *prev = d->lprev;
        for (int p = 0; p < 3; p++) {
            const int sh = p ? 1 : 0, step = LUMA_STEP_ALL >> sh;
            const int r1 = (((k + 2) * BAND < d->h ? (k + 2) * BAND : d->h) * d->F + sh) >> sh;
            for (int y = ((bottom >> sh) + step - 1) / step * step; y < r1; y += step)
                settle_prefetch(prev->data[p] + (ptrdiff_t)y * prev->linesize[p],
                                (size_t)((prev->width + sh) >> sh));
        }
    }
    luma_rows(d, &d->lpart, NULL, NULL, d->prev, d->lprev, 0, LUMA_STEP_ALL, top, bottom, 0);
    evict_rows(d, d->lprev, top, bottom);
}

/* The picture being counted band by band (Decoder.lon) into d->luma, with
 * the bands fill_rows did not reach (outside the measured rectangle) and
 * the rows below the reduced picture's. */
static void luma_finish(Decoder *d)
{
    if (!d->lon)
        return;
    d->lon = 0;
    for (int k = 0; k < (d->h + BAND - 1) / BAND; k++)
        if (d->pending[k])
            luma_band(d, k);
    luma_rows(d, &d->lpart, NULL, NULL, d->prev, d->lprev, 0, LUMA_STEP_ALL, d->h * d->F,
              d->prev->height, 1);
    int64_t box;
    const int64_t count = luma_count(&d->lpart, LUMA_STEP_ALL, &box);
    luma_add(d, &d->luma, count, box, d->prev->width, d->prev->height);
    av_frame_unref(d->lprev);
}

static int cmp_count(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The frames over a quarter of the threshold whose count one of the
 * SETTLE_REPEAT_LAG frames before had exactly (settle_decide_camera: an
 * encoder's flicker between two codings, not a sensor's noise). */
static int64_t luma_repeats(const LumaStats *L)
{
    int64_t rep = 0;
    for (int64_t i = 1; i < L->n; i++) {
        if (L->count[i] <= L->limit / 4)
            continue;
        for (int64_t k = 1; k <= SETTLE_REPEAT_LAG && k <= i; k++)
            if (L->count[i - k] == L->count[i]) {
                rep++;
                break;
            }
    }
    return rep;
}

/* settle_decide_camera's test on the luma counts: the 10th percentile of
 * the counts over a quarter of the diff threshold, and the changes not in
 * one place. *floor: that percentile (NaN: no frame compared). */
static int luma_camera(const Decoder *d, double *floor_out)
{
    const LumaStats *L = &d->luma;
    *floor_out = NAN;
    if (L->n < 1)
        return 0;
    int64_t *v = malloc((size_t)L->n * sizeof(*v));
    if (!v)
        return 0;
    memcpy(v, L->count, (size_t)L->n * sizeof(*v));
    qsort(v, (size_t)L->n, sizeof(*v), cmp_count);
    *floor_out = (double)v[L->n / 10];
    free(v);
    int64_t rep = luma_repeats(L);
    return *floor_out > L->limit / 4 && L->local * 2 < L->n && !SETTLE_REPEATING(rep, L->n);
}

/* The largest factor up to SCALE_AUTO_MAX that leaves SCALE_MIN_SIDE pixels
 * on the picture's short side (1: none). */
static int scale_for(int w, int h)
{
    const int side = w < h ? w : h;
    for (int F = SCALE_AUTO_MAX; F > 1; F /= 2)
        if (side / F >= SCALE_MIN_SIDE)
            return F;
    return 1;
}

/* Whether --scale auto may reduce this reading, before any frame is read:
 * 1, or 0 with the reason it may not in why (when len > 0). The settings
 * and the input decide; serves decode_input (whether to probe) and
 * choose_scale (what to say). */
static int auto_may_reduce(const Decoder *d, char *why, size_t len)
{
    const SettleSettings *s = &d->c->s;
    /* a second reading at full size, or pictures grabbed: nothing to say */
    if (d->force_full || d->c->grab)
        return 0;
    if (!settle_settings_scalable(s)) {
        snprintf(why, len, "full size: --ignore, --region, --crop X,Y,W,H, --blur "
                 "or --visual-metrics on are measured in the full picture");
        return 0;
    }
    /* diff's pixel counts and entropy's histogram mean what they say at full
     * size; auto and blocks choose the block test on a camera's picture */
    if (s->method == SETTLE_METHOD_DIFF || s->method == SETTLE_METHOD_ENTROPY) {
        snprintf(why, len, "full size: --method %s counts full-size pixels",
                 settle_method_name(s->method));
        return 0;
    }
    /* a capture the probe misjudged is read again at full size: a FIFO or a
     * device would block or give other bytes */
    if (!d->again_ok) {
        snprintf(why, len, "full size: the input cannot be read a second time (not a regular "
                 "file, or caller I/O that does not seek), which a reduced reading may need");
        return 0;
    }
    return 1;
}

/* The factor this reading measures at, and why, for the first frame f. */
static int choose_scale(Decoder *d, const AVFrame *f)
{
    const SettleSettings *s = &d->c->s;
    const int yuv = reducible(f);
    if (d->force_full || d->c->grab)
        return 1;
    if (s->scale == 1) {
        snprintf(d->why, sizeof(d->why), "full size: --scale full");
        return 1;
    }
    if (s->scale > 1) {
        if (!yuv || f->width / s->scale < 2 || f->height / s->scale < 2) {
            snprintf(d->why, sizeof(d->why), "full size: --scale %d applies to 8-bit 4:2:0 "
                     "video of at least %dx%d pixels", s->scale, 2 * s->scale, 2 * s->scale);
            return 1;
        }
        snprintf(d->why, sizeof(d->why), "reduced by %d: --scale %d", s->scale, s->scale);
        return s->scale;
    }
    if (!auto_may_reduce(d, d->why, sizeof(d->why)))
        return 1;
    const int F = scale_for(f->width, f->height);
    if (!yuv || F == 1) {
        snprintf(d->why, sizeof(d->why), "full size: %s",
                 !yuv ? "only 8-bit 4:2:0 video is reduced"
                      : "the picture is too small to reduce");
        return 1;
    }
    double floor;
    if (d->luma.n < PROBE_MIN_FAINT) {
        snprintf(d->why, sizeof(d->why), "full size: too few faint frames to tell the noise "
                 "(%lld of the first %d frames compared; %lld changed strongly)",
                 (long long)d->luma.n, d->store.n, (long long)d->luma.strong);
        return 1;
    }
    if (!luma_camera(d, &floor)) {
        if (isnan(floor))
            snprintf(d->why, sizeof(d->why), "full size: no frame to compare");
        else
            snprintf(d->why, sizeof(d->why), "full size: clean capture (a faint frame of the "
                     "first %lld changes about %.0f pixels, 10th percentile)",
                     (long long)d->store.n, floor);
        return 1;
    }
    d->auto_scale = 1;
    snprintf(d->why, sizeof(d->why), "camera-like capture: a faint frame of the first %lld "
             "changes about %.0f pixels (10th percentile, full-size planes), more than a quarter of the diff "
             "threshold (%.0f), all over the picture; its noise leaves nothing finer than %dx%d "
             "pixels to see", (long long)d->store.n, floor, d->luma.limit, F, F);
    return F;
}

static int deliver_frame(Decoder *d, const AVFrame *f, const ProbeMeasured *pm);

/* The strides of a picture of width w reduced (Y, then U and V). */
static void reduced_strides(int w, ptrdiff_t *ys, ptrdiff_t *cs)
{
    *ys = FFALIGN(w, 64) + 64;
    *cs = FFALIGN(w / 2, 64) + 64;
}

/* The bands of the picture reduced by F, for pictures of height sh. */
static int reduced_bands(int sh, int F)
{
    return ((sh / F & ~1) + BAND - 1) / BAND;
}

/* The probe's first frame f: whether the film may be measured as it comes
 * (probe_F; see Decoder). */
static int probe_begin(Decoder *d, const AVFrame *f)
{
    const int yuv = reducible(f);
    const int F = scale_for(f->width, f->height);
    if (!yuv || F == 1 || !f->data[0])
        return 0;
    if (!(d->probe_bands = av_malloc_array(PROBE_FRAMES, (size_t)reduced_bands(f->height, F))))
        return SETTLE_ERR_NOMEM;
    d->probe_F = F;
    d->every_band = 1;
    return 0;
}

/* What a reduced reading measures of frame f, number i of the probe, against
 * the frame before (d->probe_last): its changed bands and the whole capture's
 * counts. A film that repeats a band before any frame was held reduced (a
 * screen) is measured when it is read instead, as before (probe_F = 0). */
static void probe_measure(Decoder *d, const AVFrame *f, int i)
{
    const int F = d->probe_F, h = f->height / F & ~1, nb = reduced_bands(f->height, F);
    uint8_t *bands = d->probe_bands + (size_t)i * nb;
    const AVFrame *prev = d->probe_last;
    if (!i || !prev->data[0]) {
        memset(bands, 1, (size_t)nb);
        d->every_band &= !i;
    } else {
        for (int k = 0; k < nb; k++) {
            const int y0 = k * BAND, bh = h - y0 < BAND ? h - y0 : BAND;
            bands[k] = (uint8_t)band_changed(f, prev, y0 * F, bh * F);
            /* a camera's noise changes every band; a screen repeats some */
            d->every_band &= bands[k];
        }
    }
    if (!d->every_band && !d->nreduced) {
        d->probe_F = 0;
        av_frame_unref(d->probe_last);
        av_freep(&d->probe_bands);
        free(d->luma_all.count);
        memset(&d->luma_all, 0, sizeof(d->luma_all));
    }
}

/* Holds probe frame f reduced by probe_F, as its properties only. It goes
 * to the analysis at once (probe_hand_over): the decoder's frame itself,
 * reduced band by band as any frame of a reduced reading (the same bytes:
 * the reduction is of 2x2 boxes either way), instead of a copy of it
 * reduced, written to fresh memory and read back (20 MB of
 * startup-test-elmo's probe, which the kernel zeroed on its first touch:
 * 0.3 to 5 % of a run's samples). With pictures kept the same: a picture
 * of such a frame is converted at full size from the decoder's frame while
 * it goes to the analysis (fill_full), as after the probe, instead of
 * decoded again from the probe's packets later from a copy held reduced.
 * 1 (held as its properties), or a negative error. */
static int hold_reduced(Decoder *d, const AVFrame *f)
{
    if (settle_probe_hold_props(&d->store, f) < 0)
        return SETTLE_ERR_NOMEM;
    d->nreduced++;
    return 1;
}

/* The probe's frames not yet handed over to the analysis, in order, at
 * d->F; measured: as they came (probe_measure). cur: the last frame held,
 * held as its properties only (hold_reduced), which goes itself; NULL: none. */
static int probe_hand_over(Decoder *d, int measured, const AVFrame *cur)
{
    SettleProbeStore *st = &d->store;
    AVFrame *t = av_frame_alloc();
    int ret = t ? 0 : SETTLE_ERR_NOMEM;
    d->replaying = 1;
    for (int i = d->handed; i < st->n && ret >= 0; i++) {
        d->handed = i + 1;
        const ProbeMeasured pm = {
            .bands = measured ? d->probe_bands +
                                    (size_t)i * reduced_bands(settle_probe_frame(st, 0)->height,
                                                              d->F)
                              : NULL,
            .first = i == 0,
        };
        if (cur && i == st->n - 1) {
            ret = deliver_frame(d, cur, &pm);
            continue;
        }
        if (settle_probe_take(st, i, t) < 0) {
            ret = SETTLE_ERR_NOMEM;
            break;
        }
        ret = deliver_frame(d, t, measured ? &pm : NULL);
        av_frame_unref(t);
    }
    d->replaying = 0;
    av_frame_free(&t);
    return ret;
}

/* The probe's frames to the analysis, in order, at d->F. */
static int probe_deliver(Decoder *d)
{
    /* measured as they came (probe_measure), or again from the start now */
    const int measured = d->F > 1 && d->F == d->probe_F;
    if (measured) {
        free(d->luma.count);
        d->luma = d->luma_all;
        memset(&d->luma_all, 0, sizeof(d->luma_all));
    } else {
        d->luma.n = d->luma.local = d->luma.strong = d->luma.quiet = 0;
    }
    int ret = probe_hand_over(d, measured, NULL);
    /* the frame after the probe is compared with the last one at full size */
    if (ret >= 0 && measured && d->begun) {
        av_frame_unref(d->prev);
        if (av_frame_ref(d->prev, d->probe_last) < 0)
            ret = SETTLE_ERR_NOMEM;
    }
    return ret;
}

/* --scale auto: the first frames are held and compared; once the first
 * second is in, the factor is chosen and they go to the analysis in order.
 * f == NULL: the end of the capture came first. */
static int probe_frame(Decoder *d, const AVFrame *f)
{
    SettleProbeStore *st = &d->store;
    int ret, done = !f || st->n == PROBE_FRAMES || d->probe_bytes > PROBE_BYTES;
    if (f && !done && st->n) {
        const AVFrame *first = settle_probe_frame(st, 0);
        const double span = f->best_effort_timestamp != AV_NOPTS_VALUE &&
                                    first->best_effort_timestamp != AV_NOPTS_VALUE
                                ? (f->best_effort_timestamp - first->best_effort_timestamp) * d->tb
                                : st->n * d->nominal;
        done = f->width != first->width || f->height != first->height ||
               f->format != first->format || span >= PROBE_SECONDS_MAX ||
               (span >= PROBE_SECONDS && d->luma.n >= PROBE_MIN_FAINT) ||
               (d->luma.n >= PROBE_MIN_FAINT && d->luma.quiet >= PROBE_CLEAN);
    }
    if (!done) {
        if (!st->n && (ret = probe_begin(d, f)) < 0)
            return ret;
        /* the frame before: while measuring as the film comes, the decoder's
         * (it may be held reduced), else the store's copy */
        const AVFrame *last = st->n ? settle_probe_frame(st, st->n - 1) : NULL;
        if (last && f->data[0] && d->probe_F && d->probe_last->data[0])
            luma_frame(d, &d->luma, &d->luma_all, f, d->probe_last, 1, 0);
        else if (last && f->data[0] && !d->probe_F && (last->data[0] || st->held[st->n - 1].row))
            luma_frame(d, &d->luma, NULL, f, last, 1, !last->data[0]);
        if (d->probe_F)
            probe_measure(d, f, st->n);
        /* what the probe would choose, were this its last frame */
        double floor;
        int props = 0;
        if (d->probe_F && d->every_band && d->luma.n >= PROBE_MIN_FAINT &&
            luma_camera(d, &floor))
            props = ret = hold_reduced(d, f);
        else
            ret = settle_probe_hold(st, f) < 0 ? SETTLE_ERR_NOMEM : 0;
        if (ret < 0)
            return ret;
        for (int p = 0; p < 4 && f->buf[p]; p++)
            d->probe_bytes += f->buf[p]->size;
        av_frame_unref(d->probe_last);
        if (d->probe_F && av_frame_ref(d->probe_last, f) < 0)
            return SETTLE_ERR_NOMEM;
        /* held reduced: what the probe holds goes to the analysis now, at
         * the factor it would choose (see Decoder.handed) */
        if (d->nreduced) {
            d->F = d->probe_F;
            return probe_hand_over(d, 1, props ? f : NULL);
        }
        return 0;
    }
    d->probing = 0;
    ret = 0;
    if (st->n) {
        d->F = choose_scale(d, settle_probe_frame(st, 0));
        /* full size for frames held reduced: from the start again, at full
         * size from the first frame (d->why says why) */
        if (d->F == 1 && d->nreduced) {
            d->again_full = 1;
            return READ_AGAIN;
        }
        /* the reading began before the choice: its reason is the choice's */
        if (d->begun)
            snprintf(d->c->scale_reason, sizeof(d->c->scale_reason), "%s", d->why);
        ret = probe_deliver(d);
    }
    settle_probe_store_free(st);
    av_frame_unref(d->probe_last);
    av_freep(&d->probe_bands);
    if (ret >= 0 && f)
        ret = deliver_frame(d, f, NULL);
    return ret;
}

static int deliver(Decoder *d, AVFrame *f)
{
    if (f->width < 1 || f->height < 1)
        return 0;
    if (d->probing)
        return probe_frame(d, f);
    return deliver_frame(d, f, NULL);
}

/* Sets up the reading at factor F for pictures of sw x sh (the first). */
static int begin_reading(Decoder *d, int sw, int sh)
{
    SettleContext *c = d->c;
    d->F = d->F > 1 ? d->F : 1;
    d->sw = sw;
    d->sh = sh;
    d->w = d->F > 1 ? sw / d->F & ~1 : sw;
    d->h = d->F > 1 ? sh / d->F & ~1 : sh;
    settle_set_scale(c, d->F, sw, sh, d->why);
    if (d->force_full)
        c->scale_reread = 1;
    if (d->F > 1 && c->keep_on) {
        /* the pictures are kept at full size (padded as d->rgb) */
        d->full_stride = FFALIGN(sw * 3, 64) + 64;
        if (!(d->full = av_malloc((size_t)d->full_stride * sh + 64)))
            return SETTLE_ERR_NOMEM;
        settle_set_full_picture(c, d->full, d->full_stride, fill_full, d);
    }
    settle_set_hold(c, hold_frame, d);
    int ret = settle_begin_capture(c, d->path, d->w, d->h, d->mobile);
    if (ret < 0)
        return ret;
    if (d->F > 1) {
        reduced_strides(d->w, &d->red_ys, &d->red_cs);
        d->red = av_mallocz((size_t)d->red_ys * BAND + (size_t)d->red_cs * BAND);
        if (!d->red)
            return SETTLE_ERR_NOMEM;
    }
    return 0;
}

/* pm: what the probe measured of f (NULL: measured now). */
static int deliver_frame(Decoder *d, const AVFrame *f, const ProbeMeasured *pm)
{
    SettleContext *c = d->c;
    int ret;
    if (!d->begun) {
        if ((int64_t)f->width * f->height > c->s.max_pixels)
            return fail_input(c, d->path, SETTLE_ERR_LIMIT,
                              "picture of %dx%d is larger than the limit of %lld pixels",
                              f->width, f->height, (long long)c->s.max_pixels);
        if (!d->F)
            d->F = choose_scale(d, f);
        if ((ret = begin_reading(d, f->width, f->height)) < 0)
            return ret;
        d->begun = 1;
        c->res.rotation = d->rotation;
        /* swscale's vector code may write past a row's last pixel: padding
         * keeps that out of the next row, which a band may not rewrite */
        d->stride = FFALIGN(d->w * 3, 64) + 64;
        d->rgb = av_mallocz((size_t)d->stride * d->h + 64);
        d->changed = av_malloc((size_t)(d->h + BAND - 1) / BAND);
        d->pending = av_mallocz((size_t)(d->h + BAND - 1) / BAND);
        d->first = av_mallocz((size_t)(d->h + BAND - 1) / BAND);
        d->whole = av_malloc((size_t)(d->h + BAND - 1) / BAND);
        if (!d->rgb || !d->changed || !d->pending || !d->first || !d->whole)
            return SETTLE_ERR_NOMEM;
        memset(d->whole, 1, (size_t)(d->h + BAND - 1) / BAND);
    } else if ((f->width != d->sw || f->height != d->sh) && !d->size_warned) {
        settle_log(c, SETTLE_LOG_WARNING, "%s: picture size changes from %dx%d to %dx%d; "
                   "scaling to the first size", d->path, d->sw, d->sh, f->width, f->height);
        d->size_warned = 1;
    }
    if ((ret = pm ? convert_probed(d, f, pm) : convert(d, f)) < 0)
        return ret;

    double t;
    if (f->best_effort_timestamp != AV_NOPTS_VALUE)
        t = f->best_effort_timestamp * d->tb;
    else
        t = c->n ? d->last_time + d->nominal : 0;
    d->last_time = t;
    double dur = f->pkt_duration > 0 ? f->pkt_duration * d->tb : 0;
    d->last_end = t + (dur > 0 ? dur : d->nominal);
    c->key_ahead = !d->ahead.on || f->opaque == &key_near;
    SettlePicture p = {
        .rgb = d->rgb, .stride = d->stride, .width = d->w, .height = d->h, .time = t,
        .keyframe = f->key_frame || f->pict_type == AV_PICTURE_TYPE_I,
        .duration = dur,
    };
    ret = settle_send_picture_bands(c, &p, d->all_changed ? NULL : d->changed, BAND,
                                    d->lazy ? fill_rows : NULL, d);
    if (ret >= 0 && c->s.progress_cb)
        c->s.progress_cb(c->s.progress_opaque, c->n ? t - c->t0 : 0, d->declared, c->n);
    return ret;
}

/* Whether a keyframe comes within the window (and the spare) after
 * frame f, from the packets read (1 when not known). */
static int key_near_frame(const Ahead *a, const AVFrame *f)
{
    if (f->pts == AV_NOPTS_VALUE)
        return 1;
    /* its packet: the last one read with its time */
    const int64_t oldest = a->ninfo > AHEAD_INFO ? a->ninfo - AHEAD_INFO : 0;
    int64_t at = a->ninfo - 1;
    while (at >= oldest && a->info[at % AHEAD_INFO].pts != f->pts)
        at--;
    if (at < oldest)
        return 1;
    int shown = 0;
    for (int64_t i = at + 1; i < a->ninfo; i++) {
        const AheadInfo *p = &a->info[i % AHEAD_INFO];
        if (p->key)
            return 1;
        if ((shown += p->shown) >= a->need)
            return 0;
    }
    return !a->end;
}

static void ahead_free(Ahead *a)
{
    for (int i = 0; a->wait && i < a->cap; i++)
        av_packet_free(&a->wait[i]);
    av_freep(&a->wait);
}

static void note_decode_error(Decoder *d)
{
    if (!d->decode_errors++)
        d->first_error_time = isnan(d->first_queued) ? 0 : d->queued_time - d->first_queued;
}

static void *analysis_thread(void *arg)
{
    Decoder *d = arg;
    for (;;) {
        pthread_mutex_lock(&d->lock);
        while (!d->q_count && !d->q_done)
            pthread_cond_wait(&d->cond, &d->lock);
        if (!d->q_count) {
            pthread_mutex_unlock(&d->lock);
            return NULL;
        }
        AVFrame *f = d->slot[d->q_head];
        pthread_mutex_unlock(&d->lock);
        int ret = deliver(d, f);
        av_frame_unref(f);
        pthread_mutex_lock(&d->lock);
        d->q_head = (d->q_head + 1) % QUEUE;
        d->q_count--;
        if (ret < 0) {
            d->q_failed = 1;
            d->thread_ret = ret;
        }
        pthread_cond_broadcast(&d->cond);
        pthread_mutex_unlock(&d->lock);
        if (ret < 0)
            return NULL;
    }
}

/* Hands the frame (its reference moves) to the analysis. */
static int queue_frame(Decoder *d, AVFrame *f)
{
    if (f->best_effort_timestamp != AV_NOPTS_VALUE) {
        d->queued_time = f->best_effort_timestamp * d->tb;
        if (isnan(d->first_queued))
            d->first_queued = d->queued_time;
    }
    if (!d->threaded)
        return deliver(d, f);
    pthread_mutex_lock(&d->lock);
    while (d->q_count == QUEUE && !d->q_failed)
        pthread_cond_wait(&d->cond, &d->lock);
    int ret = d->q_failed ? d->thread_ret : 0;
    if (!ret) {
        av_frame_move_ref(d->slot[(d->q_head + d->q_count) % QUEUE], f);
        d->q_count++;
        pthread_cond_broadcast(&d->cond);
    }
    pthread_mutex_unlock(&d->lock);
    return ret;
}

/* Lets the analysis finish what is queued; its first error, if any. */
static int stop_analysis(Decoder *d)
{
    if (!d->threaded)
        return 0;
    pthread_mutex_lock(&d->lock);
    d->q_done = 1;
    pthread_cond_broadcast(&d->cond);
    pthread_mutex_unlock(&d->lock);
    pthread_join(d->thread, NULL);
    d->threaded = 0;
    return d->q_failed ? d->thread_ret : 0;
}

static void start_analysis(Decoder *d)
{
    for (int i = 0; i < QUEUE; i++)
        if (!(d->slot[i] = av_frame_alloc()))
            return; /* analyse on this thread */
    if (pthread_mutex_init(&d->lock, NULL))
        return;
    if (pthread_cond_init(&d->cond, NULL)) {
        pthread_mutex_destroy(&d->lock);
        return;
    }
    d->sync_init = 1;
    d->threaded = !pthread_create(&d->thread, NULL, analysis_thread, d);
}

/* Sends one packet (NULL flushes) and delivers every frame it completes. */
static int decode_packet(Decoder *d, const AVPacket *pkt)
{
    int ret = avcodec_send_packet(d->dec, pkt);
    if (ret < 0 && ret != AVERROR(EAGAIN) && ret != AVERROR_EOF) {
        note_decode_error(d);
        if (pkt)
            return 0;
    }
    for (;;) {
        ret = avcodec_receive_frame(d->dec, d->frame);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
            return 0;
        if (ret < 0) {
            note_decode_error(d);
            return 0;
        }
        if (d->frame->decode_error_flags || (d->frame->flags & AV_FRAME_FLAG_CORRUPT))
            note_decode_error(d);
        if (d->ahead.on)
            d->frame->opaque = key_near_frame(&d->ahead, d->frame) ? (void *)&key_near : NULL;
        ret = queue_frame(d, d->frame);
        av_frame_unref(d->frame);
        if (ret < 0)
            return ret;
    }
}

static void close_decoder(Decoder *d)
{
    stop_analysis(d);
    /* every picture went by: the last one, for the pictures (settle_keep_pictures) */
    if (d->begun && d->rgb)
        settle_keep_end(d->c, d->rgb, d->stride, d->lazy ? fill_rows : NULL, d);
    settle_set_full_picture(d->c, NULL, 0, NULL, NULL); /* d->full is freed below */
    settle_set_hold(d->c, NULL, NULL);
    if (d->sync_init) {
        pthread_cond_destroy(&d->cond);
        pthread_mutex_destroy(&d->lock);
    }
    for (int i = 0; i < QUEUE; i++)
        av_frame_free(&d->slot[i]);
    settle_probe_store_free(&d->store);
    ahead_free(&d->ahead);
    free(d->luma.count);
    d->luma.count = NULL;
    free(d->luma_all.count);
    d->luma_all.count = NULL;
    av_frame_free(&d->probe_last);
    av_freep(&d->probe_bands);
    av_freep(&d->red);
    av_freep(&d->full);
    av_freep(&d->rgb);
    av_freep(&d->changed);
    av_freep(&d->pending);
    av_freep(&d->first);
    av_freep(&d->whole);
    sws_freeContext(d->sws);
    sws_freeContext(d->band_sws);
    sws_freeContext(d->tail_sws);
    av_frame_free(&d->prev);
    av_frame_free(&d->lprev);
    av_frame_free(&d->frame);
    av_packet_free(&d->pkt);
    void *pool = d->dec ? d->dec->opaque : NULL;
    avcodec_free_context(&d->dec);
    settle_decode_pool_free(&pool);
    avformat_close_input(&d->fmt);
}

/* Refuses a declared picture over the limit before anything is allocated for it. */
static int check_size(SettleContext *c, const char *path, const AVCodecParameters *par)
{
    if (par->width < 0 || par->height < 0 ||
        (int64_t)par->width * par->height > c->s.max_pixels)
        return fail_input(c, path, SETTLE_ERR_LIMIT,
                          "picture of %dx%d is larger than the limit of %lld pixels",
                          par->width, par->height, (long long)c->s.max_pixels);
    return 0;
}

/* The decoder's own limit, so that no frame buffer over max_pixels is ever
 * allocated, not even while probing. */
static int64_t codec_max_pixels(const SettleContext *c)
{
    return c->s.max_pixels < INT_MAX ? c->s.max_pixels : INT_MAX;
}

/* Opens the input and chooses its video stream (the default one, else the
 * first that is not a cover picture), the picture size checked before any
 * decoding, probing included. */
static int open_input(Decoder *d, AVIOContext *pb)
{
    SettleContext *c = d->c;
    const char *path = d->path;
    AVDictionary **sopts = NULL;
    unsigned nb_sopts = 0;
    char eb[128];
    int ret;

    d->fmt = avformat_alloc_context();
    if (!d->fmt)
        return fail_input(c, path, SETTLE_ERR_NOMEM, "out of memory");
    if (pb) {
        d->fmt->pb = pb;
        d->fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
    }
    d->fmt->interrupt_callback.callback = interrupt_cb;
    d->fmt->interrupt_callback.opaque = c;
    if ((ret = avformat_open_input(&d->fmt, path, NULL, NULL)) < 0) {
        int err = av_to_settle(ret);
        return fail_input(c, path, err, "%s",
                          err == SETTLE_ERR_FORMAT ? "not a video file that can be read"
                                                   : av_err(ret, eb, sizeof(eb)));
    }
    /* Android's screenrecord tags its files; WebPageTest (browsertime) applies
     * its mobile viewport rules to files with this tag */
    d->mobile = av_dict_get(d->fmt->metadata, "com.android.version", NULL, 0) != NULL;
    for (unsigned i = 0; i < d->fmt->nb_streams; i++) {
        const AVCodecParameters *par = d->fmt->streams[i]->codecpar;
        if (par->codec_type == AVMEDIA_TYPE_VIDEO && (ret = check_size(c, path, par)) < 0)
            return ret;
    }
    /* probing decodes frames too: the same limit applies there */
    nb_sopts = d->fmt->nb_streams;
    if (nb_sopts) {
        sopts = av_calloc(nb_sopts, sizeof(*sopts));
        if (!sopts)
            return fail_input(c, path, SETTLE_ERR_NOMEM, "out of memory");
        for (unsigned i = 0; i < nb_sopts; i++)
            if (av_dict_set_int(&sopts[i], "max_pixels", codec_max_pixels(c), 0) < 0) {
                ret = fail_input(c, path, SETTLE_ERR_NOMEM, "out of memory");
                goto end;
            }
    }
    if ((ret = avformat_find_stream_info(d->fmt, sopts)) < 0) {
        ret = fail_input(c, path, SETTLE_ERR_FORMAT, "cannot read stream information: %s",
                         av_err(ret, eb, sizeof(eb)));
        goto end;
    }
    for (unsigned i = 0; i < d->fmt->nb_streams; i++) {
        const AVStream *s = d->fmt->streams[i];
        if (s->codecpar->codec_type != AVMEDIA_TYPE_VIDEO ||
            (s->disposition & AV_DISPOSITION_ATTACHED_PIC))
            continue;
        if (d->stream < 0 || (s->disposition & AV_DISPOSITION_DEFAULT))
            d->stream = (int)i;
        if (s->disposition & AV_DISPOSITION_DEFAULT)
            break;
    }
    ret = d->stream < 0 ? fail_input(c, path, SETTLE_ERR_NO_VIDEO, "no video stream") : 0;
end:
    if (sopts) {
        for (unsigned i = 0; i < nb_sopts; i++)
            av_dict_free(&sopts[i]);
        av_freep(&sopts);
    }
    return ret;
}

/* Opens the decoder of stream vs, and reads what the stream says of its
 * rotation, time base, frame rate and duration. */
static int open_codec(Decoder *d, AVStream *vs)
{
    SettleContext *c = d->c;
    const char *path = d->path;
    const AVCodecParameters *par = vs->codecpar;
    char eb[128];
    int ret;
    if ((ret = check_size(c, path, par)) < 0)
        return ret;
    const AVCodec *codec = avcodec_find_decoder(par->codec_id);
    if (!codec)
        return fail_input(c, path, SETTLE_ERR_FORMAT, "no decoder for the %s video codec",
                          avcodec_get_name(par->codec_id));
    d->dec = avcodec_alloc_context3(codec);
    d->pkt = av_packet_alloc();
    d->frame = av_frame_alloc();
    d->prev = av_frame_alloc();
    d->lprev = av_frame_alloc();
    d->probe_last = av_frame_alloc();
    if (!d->dec || !d->pkt || !d->frame || !d->prev || !d->lprev || !d->probe_last)
        return fail_input(c, path, SETTLE_ERR_NOMEM, "out of memory");
    if ((ret = avcodec_parameters_to_context(d->dec, par)) < 0)
        return fail_input(c, path, SETTLE_ERR_FORMAT, "bad codec parameters");
    d->dec->thread_count = c->s.threads;
    d->dec->max_pixels = codec_max_pixels(c);
    d->dec->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
    d->dec->pkt_timebase = vs->time_base;
    if (settle_decode_pool_attach(d->dec) < 0)
        return fail_input(c, path, SETTLE_ERR_NOMEM, "out of memory");
    if ((ret = avcodec_open2(d->dec, codec, NULL)) < 0)
        return fail_input(c, path, SETTLE_ERR_FORMAT, "cannot open the %s decoder: %s",
                          codec->name, av_err(ret, eb, sizeof(eb)));
    size_t dm_size = 0;
    const uint8_t *dm = av_stream_get_side_data(vs, AV_PKT_DATA_DISPLAYMATRIX, &dm_size);
    if (dm && dm_size >= 9 * sizeof(int32_t)) {
        /* av_display_rotation_get answers counter-clockwise */
        double rot = av_display_rotation_get((const int32_t *)dm);
        if (isfinite(rot))
            d->rotation = ((int)-lrint(rot) % 360 + 360) % 360;
    }
    d->tb = av_q2d(vs->time_base);
    AVRational fr = vs->avg_frame_rate.num > 0 ? vs->avg_frame_rate : vs->r_frame_rate;
    d->nominal = fr.num > 0 && fr.den > 0 ? av_q2d(av_inv_q(fr)) : 1.0 / 30;

    d->declared = vs->duration > 0 && vs->duration != AV_NOPTS_VALUE ? vs->duration * d->tb
                  : d->fmt->duration > 0 && d->fmt->duration != AV_NOPTS_VALUE
                      ? d->fmt->duration / (double)AV_TIME_BASE
                      : NAN;
    return 0;
}

/* Readies the reading ahead for a VP8 film whose entropy is read only where
 * the analysis needs it (settle_frame_entropy); any other is not read ahead. */
static int ahead_begin(Decoder *d)
{
    Ahead *a = &d->ahead;
    /* a reading again from the start (READ_AGAIN) drops what the last left */
    for (int i = 0; a->wait && i < a->cap; i++)
        av_packet_unref(a->wait[i]);
    a->ninfo = a->whead = a->wcount = a->wshown = a->end = 0;
    a->on = !d->c->entropy_all && d->dec->codec_id == AV_CODEC_ID_VP8;
    if (!a->on || a->wait)
        return 0;
    a->need = d->c->s.window + AHEAD_SPARE;
    a->cap = a->need + 32;
    if (!(a->wait = av_calloc((size_t)a->cap, sizeof(*a->wait))))
        return SETTLE_ERR_NOMEM;
    for (int i = 0; i < a->cap; i++)
        if (!(a->wait[i] = av_packet_alloc()))
            return SETTLE_ERR_NOMEM;
    return 0;
}

/* Sends the first packet waiting to the decoder. */
static int ahead_send(Decoder *d)
{
    Ahead *a = &d->ahead;
    AVPacket *p = a->wait[a->whead];
    a->whead = (a->whead + 1) % a->cap;
    if (--a->wcount)
        a->wshown -= a->info[(a->ninfo - a->wcount) % AHEAD_INFO].shown;
    int ret = decode_packet(d, p);
    av_packet_unref(p);
    return ret;
}

/* pkt (its reference moves) waits behind the packets read before it; those
 * that have enough shown packets behind them go to the decoder. */
static int ahead_push(Decoder *d, AVPacket *pkt)
{
    Ahead *a = &d->ahead;
    AheadInfo *i = &a->info[a->ninfo++ % AHEAD_INFO];
    /* VP8's frame tag: bit 0 clear on a keyframe, bit 4 set on a shown frame */
    i->pts = pkt->pts;
    i->key = pkt->size >= 3 && !(pkt->data[0] & 1);
    i->shown = pkt->size >= 3 && (pkt->data[0] & 0x10);
    av_packet_move_ref(a->wait[(a->whead + a->wcount) % a->cap], pkt);
    if (a->wcount++)
        a->wshown += i->shown;
    int ret = 0;
    while (ret >= 0 && (a->wshown >= a->need || a->wcount == a->cap))
        ret = ahead_send(d);
    return ret;
}

/* The end of the packets: those waiting go to the decoder. */
static int ahead_drain(Decoder *d)
{
    Ahead *a = &d->ahead;
    a->end = 1;
    int ret = 0;
    while (ret >= 0 && a->wcount)
        ret = ahead_send(d);
    return ret;
}

/* Every packet of the stream through the decoder to the analysis, until the
 * end, an error or an interrupt. *read_error: the demuxer's error, if any. */
static int read_packets(Decoder *d, int *read_error)
{
    SettleContext *c = d->c;
    int ret;
    *read_error = 0;
    if ((ret = ahead_begin(d)) < 0)
        return ret;
    start_analysis(d);
    while (!c->interrupted) {
        ret = av_read_frame(d->fmt, d->pkt);
        if (ret < 0) {
            if (ret != AVERROR_EOF && ret != AVERROR_EXIT)
                *read_error = ret;
            break;
        }
        if (d->pkt->stream_index == d->stream) {
            ret = d->ahead.on ? ahead_push(d, d->pkt) : decode_packet(d, d->pkt);
        } else {
            ret = 0;
        }
        av_packet_unref(d->pkt);
        if (ret < 0)
            return ret;
    }
    if (d->ahead.on && !c->interrupted && (ret = ahead_drain(d)) < 0)
        return ret;
    if ((ret = decode_packet(d, NULL)) < 0)
        return ret;
    if ((ret = stop_analysis(d)) < 0)
        return ret;
    /* a capture shorter than the probe: what it held goes to the analysis */
    if (d->probing && (ret = probe_frame(d, NULL)) < 0)
        return ret;
    if (d->fmt->pb && d->fmt->pb->error < 0 && !*read_error)
        *read_error = d->fmt->pb->error;
    return 0;
}

/* What the end of the reading says: nothing measured is a failure of the
 * input; a read error, corrupt data or a cut file after some frames make
 * the result partial (SETTLE_ERR_DECODE). */
static int input_outcome(Decoder *d, const AVStream *vs, int read_error)
{
    SettleContext *c = d->c;
    const char *path = d->path;
    char eb[128];
    /* A demuxer that meets the end of a cut file mid-way only says so in its
     * log; the duration the file declares tells the same. */
    int only_video = 1;
    for (unsigned i = 0; i < d->fmt->nb_streams; i++)
        only_video &= d->fmt->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO;
    double declared = NAN;
    if (vs->duration > 0 && vs->duration != AV_NOPTS_VALUE)
        declared = vs->duration * d->tb;
    else if (only_video && d->fmt->duration > 0 && d->fmt->duration != AV_NOPTS_VALUE)
        declared = d->fmt->duration / (double)AV_TIME_BASE;
    /* Nothing measured: the capture cannot be analysed at all (never
     * SETTLE_ERR_DECODE, which promises a partial result). */
    if (!d->begun) {
        if (c->interrupted)
            return fail_input(c, path, SETTLE_ERR_INTERRUPTED, "interrupted before the first frame");
        if (d->decode_errors)
            return fail_input(c, path, SETTLE_ERR_FORMAT,
                              "no frame could be decoded: corrupt video stream");
        if (read_error)
            return fail_input(c, path, SETTLE_ERR_FORMAT, "read error before the first frame: %s",
                              av_err(read_error, eb, sizeof(eb)));
        if (isfinite(declared))
            return fail_input(c, path, SETTLE_ERR_FORMAT,
                              "truncated: not one complete frame of the %.3f s the file declares",
                              declared);
        return fail_input(c, path, SETTLE_ERR_TOO_SHORT,
                          "no video frames decoded: nothing to compare");
    }
    double first = c->t0 - (vs->start_time != AV_NOPTS_VALUE ? vs->start_time * d->tb : c->t0);
    double end_time = d->last_end - c->t0 + (first > 0 ? first : 0);
    char msg[256];
    if (c->interrupted) {
        settle_set_error(c, SETTLE_ERR_INTERRUPTED, "interrupted");
    } else if (read_error) {
        snprintf(msg, sizeof(msg), "read error after %.3f s: %s; measured what decoded",
                 c->last_time, av_err(read_error, eb, sizeof(eb)));
        settle_set_error(c, SETTLE_ERR_DECODE, msg);
    } else if (d->decode_errors) {
        snprintf(msg, sizeof(msg), "corrupt video data from %.3f s (%lld decoding errors); "
                 "measured what decoded", d->first_error_time, (long long)d->decode_errors);
        settle_set_error(c, SETTLE_ERR_DECODE, msg);
    } else if (isfinite(declared) && end_time < declared - fmax(0.1, 3 * d->nominal)) {
        snprintf(msg, sizeof(msg), "truncated: frames end at %.3f s of the %.3f s the file "
                 "declares; measured what decoded", end_time, declared);
        settle_set_error(c, SETTLE_ERR_DECODE, msg);
    }
    return 0;
}

/* Reads the input opened by `pb` (custom I/O, owned by the caller) or, when
 * pb is NULL, the file `path`: every frame goes to settle_send_picture. */
/* After a reduced reading: the decide stage's camera test on the whole
 * capture's full-size luma. Returns 1 when the capture turned out clean
 * after the probe took it for a camera's (why: what to say). */
static int judge_reduced(Decoder *d, char *why, size_t len)
{
    SettleContext *c = d->c;
    double floor;
    luma_finish(d);
    int camera = luma_camera(d, &floor);
    if (d->F <= 1 || !d->begun || c->state != SETTLE_STATE_RUNNING)
        return 0;
    c->decide.camera_luma = camera;
    c->decide.luma_floor = floor;
    c->decide.luma_scale = d->F;
    if (camera || !d->auto_scale || c->interrupted)
        return 0;
    snprintf(why, len, "full size, read again: the first frames looked camera-like, but the "
             "whole capture is clean (a frame changes about %.0f pixels of the full-size "
             "planes, 10th percentile)", floor);
    return 1;
}

/* `again_ok`: the input can be read a second time from its start (a regular
 * file, or caller I/O that seeks); only then may auto reduce the picture, since
 * a capture the probe misjudged is read again at full size. A FIFO or a device
 * would block or give other bytes: measured at full size, as before auto. */
static int decode_input(SettleContext *c, const char *path, AVIOContext *pb, int again_ok)
{
    int ret = 0, probed_full = 0;
    char again[320] = "";
    for (int pass = 0; pass < 2; pass++) {
        Decoder d = { .c = c, .path = path, .stream = -1, .first_queued = NAN, .coef_key = -1,
                      .force_full = pass > 0 && !probed_full, .again_ok = again_ok,
                      .F = probed_full };
        /* only where auto may reduce (choose_scale says why not otherwise) */
        d.probing = c->s.scale == 0 && !probed_full && auto_may_reduce(&d, NULL, 0);
        if (pass)
            snprintf(d.why, sizeof(d.why), "%s", again);
        int read_error = 0;
        ret = open_input(&d, pb);
        if (ret >= 0 && (ret = open_codec(&d, d.fmt->streams[d.stream])) >= 0 &&
            (ret = read_packets(&d, &read_error)) >= 0)
            ret = input_outcome(&d, d.fmt->streams[d.stream], read_error);
        /* the probe chose full size for frames it held reduced: the same
         * choice, the same words, from the first frame */
        probed_full = ret == READ_AGAIN && d.again_full;
        if (probed_full)
            snprintf(again, sizeof(again), "%s", d.why);
        int reread = ((ret >= 0 && judge_reduced(&d, again, sizeof(again))) || probed_full) &&
                     (!pb || (pb->seekable && avio_seek(pb, 0, SEEK_SET) == 0));
        close_decoder(&d);
        if (probed_full && !reread)
            ret = fail_input(c, path, SETTLE_ERR_IO, "cannot read the input again from its start");
        if (!reread)
            break;
        /* the analysis starts over from the first frame */
        c->state = SETTLE_STATE_IDLE;
    }
    return ret;
}

int settle_decode_file(SettleContext *c, const char *path)
{
    struct stat st;

    if (stat(path, &st) < 0)
        return fail_input(c, path, SETTLE_ERR_IO, "%s", strerror(errno));
    if (S_ISDIR(st.st_mode))
        return fail_input(c, path, SETTLE_ERR_IO, "is a directory, not a capture");
    if (S_ISREG(st.st_mode) && st.st_size == 0)
        return fail_input(c, path, SETTLE_ERR_FORMAT, "empty file");
    return decode_input(c, path, NULL, S_ISREG(st.st_mode));
}

typedef struct CallerIO {
    int (*read)(void *opaque, uint8_t *buf, int size);
    int64_t (*seek)(void *opaque, int64_t offset, int whence);
    void *opaque;
} CallerIO;

static int io_read(void *opaque, uint8_t *buf, int size)
{
    const CallerIO *io = opaque;
    int n = io->read(io->opaque, buf, size);
    if (n > size)
        return AVERROR(EIO);
    return n > 0 ? n : n == 0 ? AVERROR_EOF : AVERROR(EIO);
}

static int64_t io_seek(void *opaque, int64_t offset, int whence)
{
    const CallerIO *io = opaque;
    whence &= ~AVSEEK_FORCE;
    if (whence != AVSEEK_SIZE) {
        if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END)
            return AVERROR(EINVAL);
        int64_t pos = io->seek(io->opaque, offset, whence);
        return pos < 0 ? AVERROR(EIO) : pos;
    }
    /* the size: to the end and back */
    int64_t cur = io->seek(io->opaque, 0, SEEK_CUR);
    if (cur < 0)
        return AVERROR(ENOSYS);
    int64_t size = io->seek(io->opaque, 0, SEEK_END);
    if (io->seek(io->opaque, cur, SEEK_SET) != cur)
        return AVERROR(EIO);
    return size < 0 ? AVERROR(ENOSYS) : size;
}

int settle_decode_io(SettleContext *c, const char *name,
                     int (*read)(void *opaque, uint8_t *buf, int size),
                     int64_t (*seek)(void *opaque, int64_t offset, int whence), void *opaque)
{
    CallerIO io = { .read = read, .seek = seek, .opaque = opaque };
    enum { IO_BUFFER = 32768 };
    uint8_t *buf = av_malloc(IO_BUFFER);
    AVIOContext *pb = buf ? avio_alloc_context(buf, IO_BUFFER, 0, &io, io_read, NULL,
                                               seek ? io_seek : NULL)
                          : NULL;
    int ret;
    if (!pb) {
        av_free(buf);
        return fail_input(c, name, SETTLE_ERR_NOMEM, "out of memory");
    }
    ret = decode_input(c, name, pb, pb->seekable != 0);
    /* libavformat may have replaced the buffer: free the one it holds */
    av_freep(&pb->buffer);
    avio_context_free(&pb);
    return ret;
}

static int analysis_outcome(SettleContext *c, int ret, const SettleResult **res)
{
    int fin = settle_finish(c, res);
    if (ret < 0 && ret != SETTLE_ERR_DECODE)
        return ret == SETTLE_ERR_TOO_SHORT ? SETTLE_ERR_TOO_SHORT : ret;
    return fin;
}

int settle_analyze_file(SettleContext *c, const char *path, const SettleResult **res)
{
    if (!c || !path)
        return SETTLE_ERR_INVAL;
    if (c->state == SETTLE_STATE_RUNNING)
        return SETTLE_ERR_STATE;
    c->state = SETTLE_STATE_IDLE;
    /* identify the input as it was before reading, for --skip-existing */
    struct stat st;
    int known = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    int ret = settle_decode_file(c, path);
    c->in_known = known;
    if (known) {
        c->in_size = st.st_size;
        c->in_mtime_sec = st.st_mtim.tv_sec;
        c->in_mtime_nsec = st.st_mtim.tv_nsec;
    }
    return analysis_outcome(c, ret, res);
}

int settle_analyze_io(SettleContext *c, const char *name,
                      int (*read)(void *opaque, uint8_t *buf, int size),
                      int64_t (*seek)(void *opaque, int64_t offset, int whence), void *opaque,
                      const SettleResult **res)
{
    if (!c || !name || !read)
        return SETTLE_ERR_INVAL;
    if (c->state == SETTLE_STATE_RUNNING)
        return SETTLE_ERR_STATE;
    c->state = SETTLE_STATE_IDLE;
    int ret = settle_decode_io(c, name, read, seek, opaque);
    c->in_known = 0; /* not a file: nothing to identify it by */
    return analysis_outcome(c, ret, res);
}

void settle_codec_log_level(int level)
{
    static const int map[] = { AV_LOG_ERROR, AV_LOG_WARNING, AV_LOG_INFO, AV_LOG_DEBUG };
    av_log_set_level(level < 0 ? AV_LOG_QUIET : map[level > 3 ? 3 : level]);
}
