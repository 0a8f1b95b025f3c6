/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Live capture: reads a screen, a capture card or a stream as it happens
 * (libavdevice), writes it to a file while it arrives, and hands each picture
 * to the caller for analysis (settle_send_picture).
 *
 *     SettleCaptureSettings cs;
 *     settle_capture_default_settings(&cs);
 *     cs.input = "x11grab::99";
 *     cs.output = "run1.mkv";
 *     SettleCapture *cap;
 *     if (settle_capture_open(&cap, &cs, err, sizeof(err)) < 0) ...
 *     SettlePicture p;
 *     while ((ret = settle_capture_read(cap, &p, 100)) >= 0)
 *         if (ret == 1) settle_send_picture(ctx, &p);
 *     settle_capture_finish(cap, err, sizeof(err));
 *     settle_capture_close(&cap);
 *
 * The capture file is Matroska with the pictures encoded losslessly as they
 * were received (H.264 at qp 0, preset ultrafast: libx264rgb for RGB sources
 * such as x11grab, libx264 in the source's own chroma layout for YUV ones; or
 * FFV1), so that analysing the file later gives the same measures as the live
 * analysis. Timestamps are the device's (x11grab, v4l2, lavfi, a Matroska
 * stream); a raw H.264/HEVC stream, which carries none, is stamped with the
 * arrival time of each packet. They are rounded to the file's millisecond and
 * counted from the first picture.
 *
 * A thread reads the device all the time into a bounded queue, so that a slow
 * encoder or analysis never makes the device wait; when the queue is full a
 * raw picture is dropped and counted (an encoded stream on a pipe is never
 * dropped: the pipe waits instead). Pictures the device itself skipped are
 * counted from the gaps in its timestamps at its nominal rate.
 *
 * Functions return 0 (or the documented non-negative value) or a negative
 * SETTLE_ERR_* code. Nothing is printed: messages go to `err`.
 */
#ifndef SETTLE_CAPTURE_H
#define SETTLE_CAPTURE_H

#include "settle/settle.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum SettleEncoder {
    SETTLE_ENCODER_X264 = 0, /* H.264 qp 0, preset ultrafast (default) */
    SETTLE_ENCODER_FFV1      /* FFV1 version 3, 4 slices */
} SettleEncoder;

typedef struct SettleCaptureSettings {
    /* What to capture, named as for ffmpeg:
     *   "x11grab:DISPLAY[+X,Y]"  an X display (":99", ":0.0+100,200"), from its
     *                            top-left corner or X,Y; video_size sets the size
     *                            (default: the whole screen);
     *   "v4l2:/dev/videoN"       a V4L2 device (UVC HDMI dongle, webcam);
     *                            pixel_format, video_size, framerate apply;
     *   "lavfi:GRAPH"            a libavfilter source graph (tests), read at
     *                            the pace of its timestamps, as a device;
     *   "-"                      a raw H.264 / HEVC or Matroska stream on stdin
     *                            (format probed, or given by `format`);
     *   "FORMAT:URL"             any other libavdevice/libavformat input.
     * Required; not copied: it must live until settle_capture_close. */
    const char *input;
    /* Path of the capture file written (Matroska). Required. It is created
     * or replaced; a FIFO or a device is written in place. */
    const char *output;
    const char *video_size;   /* "1280x720", NULL = the device's default */
    const char *framerate;    /* "30", "60000/1001"; NULL = 30 for x11grab, else the default */
    const char *pixel_format; /* v4l2's input_format ("mjpeg", "yuyv422"), NULL = default */
    const char *format;       /* input format for "-" ("h264", "matroska"), NULL = probe */
    SettleEncoder encoder;
    /* Encoder threads, 0 (default) = the encoder's own choice. */
    int threads;
    /* Most pictures held between the device and the encoder, 2..10000.
     * Default 120 (2 s at 60 fps; 1 GB at 1920x1080 BGR0). */
    int queue;
    /* 1 (default 0): draw the mouse pointer (x11grab). */
    int draw_mouse;
    /* Room for settings added later without changing the structure's size
     * (callers allocate it): zeroed by settle_capture_default_settings, leave it so. */
    uint8_t reserved[64];
} SettleCaptureSettings;

/* Fills `s` with the defaults documented above (input and output NULL). */
SETTLE_API void settle_capture_default_settings(SettleCaptureSettings *s);

typedef struct SettleCapture SettleCapture;

/* Opens the input and starts reading it; the output file is created at the
 * first picture. On success *cap owns everything; free with
 * settle_capture_close. On failure *cap is NULL and `err` says why in one
 * line: SETTLE_ERR_INVAL (settings), SETTLE_ERR_FORMAT (input not opened),
 * SETTLE_ERR_NO_VIDEO, SETTLE_ERR_NOMEM. */
SETTLE_API int settle_capture_open(SettleCapture **cap, const SettleCaptureSettings *s,
                                   char *err, size_t errlen);

/* Waits up to `timeout_ms` milliseconds for the next picture. Returns 1 with
 * *p filled (the picture, RGB24, is owned by the capture and valid until the
 * next call; it has already been given to the encoder), 0 when none arrived
 * in time, SETTLE_ERR_INTERRUPTED after settle_capture_stop once the pictures
 * read before it are consumed, or another negative code when the input ended
 * (SETTLE_ERR_TOO_SHORT: the input ended normally, e.g. the end of a pipe)
 * or failed (SETTLE_ERR_DECODE, SETTLE_ERR_IO: see settle_capture_error).
 * p->time is seconds from the first picture, as stored in the file. */
SETTLE_API int settle_capture_read(SettleCapture *cap, SettlePicture *p, int timeout_ms);

/* The capture's clock now: seconds from the first picture on the device's
 * clock, estimated from the arrival of the pictures (the smallest delay seen).
 * NaN before the first picture. Safe to call from any thread. */
SETTLE_API double settle_capture_clock(SettleCapture *cap);

/* The capture time up to which every picture taken has arrived, as far as
 * the lateness of the last 32 pictures tells: settle_capture_clock minus the
 * largest of those delays. A stream that comes in bursts (Matroska clusters,
 * a pipe's buffering) holds it back by a burst. NaN before the first picture.
 * Safe to call from any thread. */
SETTLE_API double settle_capture_horizon(SettleCapture *cap);

/* Asks the reading to stop, from any thread or a signal handler: the device
 * is no longer read; pictures already queued are still returned. */
SETTLE_API void settle_capture_stop(SettleCapture *cap);

/* The last error's message, "" when none. Owned by the capture. */
SETTLE_API const char *settle_capture_error(SettleCapture *cap);

typedef struct SettleCaptureStats {
    int64_t received;      /* pictures read from the device */
    int64_t written;       /* pictures encoded into the file */
    int64_t dropped_queue; /* dropped because the queue was full (encoder too slow) */
    int64_t device_gaps;   /* pictures the device skipped, from its timestamps
                            * (0 for inputs without a nominal rate) */
    int max_queued;        /* most pictures waiting at once */
    double nominal_fps;    /* the device's declared rate, 0 when none */
    double duration;       /* first picture to the end of the last, seconds */
    int width, height;
    const char *encoder;   /* "libx264rgb", "libx264", "ffv1" */
    const char *pix_fmt;   /* of the device's pictures */
} SettleCaptureStats;

/* Counts so far. */
SETTLE_API void settle_capture_stats(SettleCapture *cap, SettleCaptureStats *st);

/* Stops reading, encodes what is queued (without analysing it: call
 * settle_capture_read until it fails first to analyse everything), flushes
 * the encoder and finishes the file. Returns 0, or SETTLE_ERR_IO when the
 * file could not be completed (message in err), SETTLE_ERR_TOO_SHORT when no
 * picture arrived (no file is left). */
SETTLE_API int settle_capture_finish(SettleCapture *cap, char *err, size_t errlen);

/* Stops the reading thread, frees everything and sets *cap to NULL. A capture
 * not finished is finished first. Safe on NULL. */
SETTLE_API void settle_capture_close(SettleCapture **cap);

#ifdef __cplusplus
}
#endif

#endif /* SETTLE_CAPTURE_H */
