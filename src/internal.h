/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SETTLE_INTERNAL_H
#define SETTLE_INTERNAL_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "settle/settle.h"
#include "animated.h"
#include "cells.h"
#include "kernels.h"
#include "prefilter.h"
#include "regions.h"
#include "settle_quiet.h"
#include "visual.h"

#define SETTLE_MAX_WINDOW 120
/* Rows of a band: the unit in which pictures are compared, converted and measured. */
#define SETTLE_BAND_ROWS 16
/* Diff-count histogram for the noise floor: exact below 64, then 16 bins an octave. */
#define SETTLE_FLOOR_BINS (64 + 16 * 40)

/* One frame as spooled to disk while the capture is read. */
typedef struct SettleRecord {
    int64_t index;
    double time;
    int64_t diff;
    int64_t strong;
    double entropy;
    double delta;
    double marker;
    uint8_t keyframe, refresh, quiet[2];
    double limit;          /* the diff threshold this frame was judged by */
    int box[4];            /* the changed pixels' rectangle x, y, w, h in the input picture; w 0: none */
} SettleRecord;

/* The stability decision for one method, fed frame by frame. */
typedef struct SettleTracker {
    int64_t start_frame;   /* -1 until the start is found */
    double start_time;     /* the start: --start SECONDS, or the start frame's time */
    double start_frame_time;
    int64_t first_change;  /* first non-quiet frame after the start, -1 if none */
    double first_change_time;
    int64_t last_change;   /* last non-quiet frame after the start, -1 if none */
    double last_change_time;
    int64_t settled;       /* the frame showing the picture last_change settled on */
    double settled_time;
    SettleBox last_box;    /* the change of last_change */
    SettleQuiet quiet;     /* --settle */
    int64_t last_frame;
} SettleTracker;

typedef struct SettleHistory {
    int64_t index;
    double time;
    double entropy;
} SettleHistory;

struct SettleContext {
    SettleSettings s;
    volatile sig_atomic_t interrupted;

    int state; /* 0 idle, 1 running, 2 finished */
    char *name;
    int fw, fh;           /* the pictures given to settle_begin */
    int cx, cy, w, h;     /* the measured rectangle (--crop) */
    int crop_pending;     /* --crop viewport: not found yet */
    int mobile;           /* an Android screen recording (WebPageTest's mobile rules) */
    int crop_tries;
    int64_t npix;
    double diff_limit;    /* effective diff threshold in pixels */
    int64_t refresh_limit;/* most strongly-changed pixels a codec refresh may have */
    uint8_t *prev;        /* previous picture, packed RGB24 */
    uint32_t hist[SETTLE_HIST_BINS]; /* of the previous picture, kept up to date */
    int64_t marker_count;             /* its pixels of the marker colour */
    uint32_t *band_hist;              /* the histogram of each band of BAND_ROWS rows */
    uint8_t *dirty;                   /* per band: differs from the previous picture */
    uint8_t *fresh;                   /* per band: settle_update_band's state */
    SettleKernels dsp;                /* the kernels for this CPU */

    /* --ignore and --blur: bands are measured from a prepared copy */
    int prefilter;
    int mask[SETTLE_MAX_IGNORE][4];   /* --ignore within the measured rectangle, its coordinates */
    int nmask;
    int64_t mask_pix;                 /* pixels they cover (no overlap counted twice) */
    int blur_r;                       /* 0 = no blur */
    uint8_t *pre_src;                 /* a band and blur_r rows either side, masked */
    uint8_t *pre_out;                 /* the band blurred */
    int *pre_col;                     /* the box blur's column sums */

    SettleCells cells;    /* where the current frame changed (src/cells.c) */
    SettleAnimated anim;  /* the areas that keep changing (src/animated.c) */
    SettleRegions regions;/* --region (src/regions.c) */

    int64_t n;            /* frames measured */
    double t0, last_time, prev_time;
    double last_duration; /* of the last picture, 0 = unknown */

    /* entropy history since the start or the last codec refresh */
    SettleHistory ring[SETTLE_MAX_WINDOW];
    int ring_len, ring_pos;

    int64_t marker_first, marker_end; /* frame indices, -1 when not seen */
    int64_t common_start;             /* start for rules that do not depend on the method */
    double common_start_time;

    SettleTracker tr[2];  /* [0] diff, [1] entropy */
    uint64_t floor_hist[SETTLE_FLOOR_BINS];
    int64_t floor_n;
    int64_t refreshes;
    int since_event;      /* frames since a faint keyframe */

    FILE *spool;
    int spool_ok;

    char **labels;        /* key, value, key, value ... */
    int nlabels;

    int in_known;         /* the input file's identity, for the JSON */
    int64_t in_size;
    int64_t in_mtime_sec;
    long in_mtime_nsec;

    int visual_on;
    SettleVisual visual;

    int error;
    char *error_message;
    char reason[256];
    SettleResult res;

    /* settle_grab_pictures' second reading: each picture goes to this hook
     * (with its frame index, counted in n) instead of being measured. */
    int (*grab)(void *opaque, const SettlePicture *p, int64_t index);
    void *grab_opaque;
};

/* settle_begin for a capture the decoder opened; mobile: the container says
 * it is an Android screen recording (com.android.version), for which
 * WebPageTest's viewport and visual metrics leave out other rows. */
int settle_begin_capture(SettleContext *c, const char *name, int w, int h, int mobile);

void settle_log(SettleContext *c, SettleLogLevel level, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

int settle_parse_color(const char *v, uint8_t rgb[3]);

/* settle_send_picture for a source that knows which bands of band_h rows
 * changed since its previous picture: changed[i] for band i; the others are
 * not looked at. changed == NULL: every band may have changed. */
/* The source's RGB rows top .. bottom (of the whole picture) made ready:
 * a decoder that converts a band only when the analysis reaches it, while
 * its rows are in the cache. Returns < 0 on error. */
typedef int (*SettleFillRows)(void *opaque, int top, int bottom);

int settle_send_picture_bands(SettleContext *c, const SettlePicture *p, const uint8_t *changed,
                              int band_h, SettleFillRows fill, void *fill_opaque);

/* Decodes `path` and feeds every frame to the context (settle_begin ... send). */
int settle_decode_file(SettleContext *c, const char *path);

/* The same through the caller's read and seek callbacks (settle_analyze_io). */
int settle_decode_io(SettleContext *c, const char *name,
                     int (*read)(void *opaque, uint8_t *buf, int size),
                     int64_t (*seek)(void *opaque, int64_t offset, int whence), void *opaque);

/* Adds the identity of the result to `o`: "input_size", "input_mtime" (from
 * a stat of `path` when given, else from the last analysis), and returns 0 or
 * -1 (out of memory). And the parts that must match for a result to be
 * current: "settings", "labels", "settle_version". */
struct cJSON;
int settle_json_add_input_id(SettleContext *c, struct cJSON *o, const char *path);
int settle_json_add_setup(SettleContext *c, struct cJSON *o);

/* Writes x with `decimals` digits after a '.', whatever the locale. */
void settle_format_fixed(char *buf, size_t len, double x, int decimals);

#endif
