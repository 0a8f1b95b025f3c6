/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The measure stage: pictures in, per-frame measures out, over the measured
 * rectangle after --ignore and --blur. It keeps the previous picture and
 * hands each band that may have changed to every measure module in its table
 * (measure.c; a module: measure_module.h), then each picture, decided
 * picture and the capture's end. Knows no file and no decision.
 */
#ifndef SETTLE_MEASURE_H
#define SETTLE_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "settle/settle.h"
#include "kernels.h"
#include "measure_module.h"
#include "record.h"

/* The source's RGB rows top .. bottom (of the whole picture) made ready:
 * a decoder that converts a band only when the analysis reaches it, while
 * its rows are in the cache. Returns < 0 on error. */
typedef int (*SettleFillRows)(void *opaque, int top, int bottom);

/* The most modules the stage runs. */
#define SETTLE_MEASURE_MAX_MODULES 8

typedef struct SettleMeasureSlot {
    const SettleMeasureModule *mod;
    void *priv;                /* its private state, options first */
    int active;                /* init said it has work in this analysis */
} SettleMeasureSlot;

typedef struct SettleMeasure {
    const SettleSettings *s;
    const SettleKernels *dsp;  /* the kernels for this CPU */
    int fw, fh;                /* the whole picture */
    int cx, cy, w, h;          /* the measured rectangle (--crop) */
    int64_t npix;
    uint8_t *prev;             /* previous picture, packed RGB24, as measured */
    uint8_t *dirty;            /* per band: differs from the previous picture */
    uint64_t *masks;           /* a band's rows' change masks (SettleMeasureBand.masks) */

    /* --ignore and --blur: bands are measured from a prepared copy */
    int prefilter;
    int mask[SETTLE_MAX_IGNORE][4]; /* --ignore within the measured rectangle, its coordinates */
    int nmask;
    int64_t mask_pix;          /* pixels they cover (no overlap counted twice) */
    int blur_r;                /* 0 = no blur */
    uint8_t *pre_src;          /* a band and blur_r rows either side, masked */
    uint8_t *pre_out;          /* the band blurred */
    int *pre_col;              /* the box blur's column sums */

    int nmod;
    SettleMeasureSlot mod[SETTLE_MEASURE_MAX_MODULES];
} SettleMeasure;

/* What the stage needs to know of the analysis beyond the rectangle. */
typedef struct SettleMeasureSetup {
    double diff_limit;         /* the diff threshold for the rectangle, in pixels */
    int mobile;                /* an Android screen recording */
    int scale;                 /* the picture is the capture reduced by this (1: not) */
} SettleMeasureSetup;

/* Readies m for pictures of fw x fh under settings s and kernels dsp (both
 * kept by pointer). Returns 0; settle_measure_free after. */
int settle_measure_begin(SettleMeasure *m, const SettleSettings *s, const SettleKernels *dsp,
                         int fw, int fh);

/* The rectangle every measure looks at (within the picture), once, before
 * the first picture: readies every module of the table. Returns 0,
 * SETTLE_ERR_NOMEM or SETTLE_ERR_INVAL (a module's option out of its range). */
int settle_measure_set_region(SettleMeasure *m, int x, int y, int w, int h,
                              const SettleMeasureSetup *setup);

/* Measures one picture (the whole picture's RGB24 rows, `stride` apart) into
 * r (each module writes its fields); first: the capture's first picture,
 * measured whole. changed[i] (band i of band_h rows), when given, says which
 * rows may differ from the previous picture; fill, when given, is called for
 * the rows a band reads before it reads them. entropy: the picture's entropy
 * is read (else r->entropy is NaN and no colour histogram is kept for it), or
 * SETTLE_ENTROPY_LATER: perhaps read later (r->entropy may be NaN until
 * settle_measure_entropy measures it).
 * Returns 0 or fill's error. */
int settle_measure_picture(SettleMeasure *m, const uint8_t *rgb, ptrdiff_t stride, int first,
                           const uint8_t *changed, int band_h, SettleFillRows fill,
                           void *fill_opaque, int entropy, SettleRecord *r);

/* The same picture once the decide stage judged it: start, start_time and
 * started as in SettleMeasureFrame. Returns 0 or a module's error. */
int settle_measure_decided(SettleMeasure *m, const uint8_t *rgb, ptrdiff_t stride, int first,
                           int64_t start, double start_time, int started, SettleRecord *r);

/* The capture is over: each module's share of res. Returns 0, or the first
 * module's error with its name in *failed (the others still ran). */
int settle_measure_flush(SettleMeasure *m, const SettleMeasureEnd *e, SettleResult *res,
                         const char **failed);

/* The private state of the active module mod, NULL when it is not running. */
void *settle_measure_state(const SettleMeasure *m, const SettleMeasureModule *mod);

/* Frees what begin and set_region allocated; m can begin again. */
void settle_measure_free(SettleMeasure *m);

#endif
