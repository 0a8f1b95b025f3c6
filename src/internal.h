/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SETTLE_INTERNAL_H
#define SETTLE_INTERNAL_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "settle/settle.h"
#include "animated.h"
#include "kernels.h"
#include "prefilter.h"
#include "visual.h"

#include "decide.h"
#include "keep.h"
#include "measure.h"
#include "measure_modules.h"
#include "records.h"
#include "outputs.h"

/*
 * The analysis context. Each stage has its own state and is handed only that
 * (read: decode.c; measure: measure.c and its modules; decide: decide.c; the
 * records: records.c); lib.c chains them and holds the lifecycle, the result
 * and what identifies it. The writers read the stage outputs (outputs.h).
 */
typedef enum SettleState {
    SETTLE_STATE_IDLE = 0,     /* nothing begun, or settle_begin failed early */
    SETTLE_STATE_RUNNING = 1,  /* begun: pictures are measured */
    SETTLE_STATE_FINISHED = 2, /* settle_finish: the result and the records are there */
} SettleState;

struct SettleContext {
    SettleSettings s;
    volatile sig_atomic_t interrupted;
    SettleState state;
    char *name;
    int mobile;           /* an Android screen recording (WebPageTest's mobile rules) */
    SettleKernels dsp;    /* the kernels for this CPU */

    /* the pictures as they arrive: their size, count and clock */
    int fw, fh;           /* the pictures given to settle_begin */
    /* the decoder's reduction (SettleSettings.scale): the pictures are the
     * capture's full_w x full_h reduced by `scale` (1: not reduced); set
     * before settle_begin_capture, which keeps them */
    int scale, full_w, full_h;
    /* a reduced reading with kept pictures: the capture's picture at full
     * size, its rows readied by full_fill (settle_set_full_picture) */
    uint8_t *full_rgb;
    ptrdiff_t full_stride;
    SettleFillRows full_fill;
    void *full_opaque;
    /* the kept pictures held by their source instead of copied (settle_set_hold) */
    SettleHoldPicture hold;
    void *hold_opaque;
    char scale_reason[320];
    int scale_reread;
    int crop_pending;     /* --crop viewport or auto: the rectangle is not known yet */
    int crop_tries;
    int64_t n;            /* frames measured */
    double t0, last_time, prev_time;
    double last_duration; /* of the last picture, 0 = unknown */

    SettleMeasure measure; /* and its modules: pixels, blocks, cells, regions, visual */
    SettleDecide decide;
    SettleAnimated anim;  /* the areas that keep changing (src/animated.c) */
    uint8_t *bmark;       /* a mark per block of the block test (--ignore animated) */
    SettleRecords records;

    char **labels;        /* key, value, key, value ... */
    int nlabels;

    int in_known;         /* the input file's identity, for the JSON */
    int64_t in_size;
    int64_t in_mtime_sec;
    long in_mtime_nsec;

    int error;
    char *error_message;
    SettleResult res;
    SettleRecord last;    /* the last picture measured, for settle_last_frame */

    /* settle_frame_entropy: 0 when only the entropies the analysis reads are
     * measured (entropy_every, set per capture, says whether it applies);
     * key_ahead: the reading stage knows of a keyframe among the
     * SettleSettings.window frames (and a few more) after the picture it
     * sends, or does not know (1, the default) */
    int entropy_all;
    int entropy_every;
    int key_ahead;

    /* settle_keep_pictures: what the pictures need, kept during the reading */
    int keep_on;          /* 1, or 1 | SETTLE_KEEP_PNG */
    int keep_fresh;       /* the last picture sent was measured: settle_keep_end may keep it */
    SettleKeep keep;

    /* settle_grab_pictures' second reading: each picture goes to this hook
     * (with its frame index, counted in n) instead of being measured. */
    int (*grab)(void *opaque, const SettlePicture *p, int64_t index);
    void *grab_opaque;

    /* settle_attach_marks: written into the JSON result; not owned, cleared
     * by settle_begin */
    struct SettleMarks *marks;
};

/* settle_begin for a capture the decoder opened; mobile: the container says
 * it is an Android screen recording (com.android.version), for which
 * WebPageTest's viewport and visual metrics leave out other rows. */
int settle_begin_capture(SettleContext *c, const char *name, int w, int h, int mobile);

/* The decoder's reduction, before settle_begin_capture: the pictures will be
 * the capture's full_w x full_h reduced by scale (1: not reduced), for the
 * reason why (NULL: none). */
void settle_set_scale(SettleContext *c, int scale, int full_w, int full_h, const char *why);

/* A reduced reading, after settle_set_scale and before settle_begin_capture:
 * the pictures (settle_keep_pictures) are kept at full size from rgb (stride
 * bytes a row, not owned, valid until the reading ends), whose rows fill
 * readies for the picture last sent (see settle_keep_frame); without it, a
 * reduced reading keeps nothing and the pictures read the capture again. */
void settle_set_full_picture(SettleContext *c, uint8_t *rgb, ptrdiff_t stride,
                             SettleFillRows fill, void *opaque);

/* A source that can hold the pictures it sent (the decoder: a reference to
 * its frame) instead of settle_keep_pictures copying them: hold(opaque)
 * holds the picture last sent, at the kept pictures' size (the full size of
 * a reduced reading), or returns NULL. NULL hold: every picture is copied. */
void settle_set_hold(SettleContext *c, SettleHoldPicture hold, void *opaque);

void settle_log(SettleContext *c, SettleLogLevel level, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

int settle_parse_color(const char *v, uint8_t rgb[3]);

/* Whether the settings let the picture be reduced (SettleSettings.scale):
 * none of the options given in the input picture's coordinates. */
int settle_settings_scalable(const SettleSettings *s);

/* settle_send_picture for a source that knows which bands of band_h rows
 * changed since its previous picture: changed[i] for band i; the others are
 * not looked at. changed == NULL: every band may have changed. fill (see
 * measure.h), when given, readies rows before they are read. */
int settle_send_picture_bands(SettleContext *c, const SettlePicture *p, const uint8_t *changed,
                              int band_h, SettleFillRows fill, void *fill_opaque);

/* After the last picture (settle_keep_pictures): keeps the capture's last
 * frame, the picture last sent, whose rows fill readies (when given). */
void settle_keep_end(SettleContext *c, const uint8_t *rgb, ptrdiff_t stride, SettleFillRows fill,
                     void *fill_opaque);

/* Decodes `path` and feeds every frame to the context (settle_begin ... send). */
int settle_decode_file(SettleContext *c, const char *path);

/* The same through the caller's read and seek callbacks (settle_analyze_io). */
int settle_decode_io(SettleContext *c, const char *name,
                     int (*read)(void *opaque, uint8_t *buf, int size),
                     int64_t (*seek)(void *opaque, int64_t offset, int whence), void *opaque);

#endif
