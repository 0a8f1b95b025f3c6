/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * capgen: writes synthetic captures for the tests with libavcodec and
 * libavformat, so that no ffmpeg program is needed at test time.
 */
#ifndef SETTLE_TESTS_CAPGEN_H
#define SETTLE_TESTS_CAPGEN_H
#include <stdint.h>

/* Draws frame `index` into a packed RGB24 buffer (w*h pixels, `stride` bytes a row). */
typedef void (*CapgenDraw)(void *opaque, int index, uint8_t *rgb, int stride, int w, int h);

typedef struct CapgenSpec {
    const char *path;        /* output file; container chosen from the extension: .mp4, .webm, .mkv */
    const char *encoder;     /* libavcodec encoder name: "libx264", "libx265", "libvpx", "libvpx-vp9", "ffv1", "mpeg4" */
    int width, height;       /* >= 1; must be even (else AVERROR(EINVAL)) except for ffv1, which codes yuv444p and takes any size */
    int nb_frames;           /* >= 0; 0 writes a valid file with no video frames (use .mp4: libavformat 5.1 cannot open a Matroska file without frames) */
    int fps;                 /* constant frame rate when time_ms == NULL (default 30 when 0) */
    const int64_t *time_ms;  /* optional: presentation time of each frame in ms, strictly increasing (variable frame rate); NULL = index / fps */
    const int *keyframes;    /* optional: frame indices that must be coded as keyframes (IDR / intra), terminated by -1; NULL = none forced */
    int gop;                 /* max keyframe interval in frames; 0 = as large as the encoder allows (so the only keyframes are frame 0 and the forced ones);
                              * libvpx/libvpx-vp9 keep a fixed cadence (0, gop, 2*gop...) around forced keyframes, libx264/mpeg4 count from the last keyframe;
                              * ffv1 ignores `keyframes`: with gop 0 every frame is a keyframe, else every gop-th */
    int quality;             /* 0 = (near) lossless / very high quality; larger = worse: for libx264 it is the CRF/QP (0..51), for libvpx/libvpx-vp9 the crf/qmin-qmax (0..63), for mpeg4 the qscale (1..31); ignored for ffv1 */
    int bframes;             /* libx264 and libx265: most B-frames in a row (as capture programs write); 0 = none (pts == dts) */
    int rotation;            /* degrees clockwise a player must turn the picture: a display matrix on the stream, as phones write; 0 = none */
    CapgenDraw draw;
    void *opaque;
} CapgenSpec;

/* Encodes and writes the whole file. Returns 0, or a negative AVERROR code;
 * on failure a partly written file is removed. Never prints except through
 * av_log, and lowers the av_log level to AV_LOG_ERROR if it is above that. */
int capgen_write(const CapgenSpec *spec);

#endif
