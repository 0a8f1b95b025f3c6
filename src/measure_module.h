/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A measure as a module (the idea of libvmaf's feature extractors): a name,
 * the size of its private state, a typed table of its options that the
 * settings fill, and callbacks that the measure stage (measure.c) calls for
 * each picture and that write into the frame record. measure.c keeps the
 * table of modules; a measure added later is one file that defines a
 * SettleMeasureModule plus one entry in that table.
 */
#ifndef SETTLE_MEASURE_MODULE_H
#define SETTLE_MEASURE_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "settle/settle.h"
#include "kernels.h"
#include "record.h"

/* Rows of a band: the unit in which pictures are compared, converted and measured. */
#define SETTLE_BAND_ROWS 16

/* The type of a module option, and so of the field at its offset. */
typedef enum SettleModuleOptionType {
    SETTLE_MOPT_INT = 0,    /* int */
    SETTLE_MOPT_BOOL = 1,   /* int, 0 or 1 */
    SETTLE_MOPT_DOUBLE = 2, /* double */
    SETTLE_MOPT_COLOR = 3,  /* uint8_t[3], R G B; no range */
} SettleModuleOptionType;

/* Where an option takes its value from when no setting gives it: the default. */
#define SETTLE_MOPT_NO_SETTING ((size_t)-1)

typedef struct SettleModuleOption {
    const char *name;       /* the option's name (the settings' name when it has one) */
    SettleModuleOptionType type;
    size_t offset;          /* of the field in the module's own options struct */
    size_t setting;         /* of the field in SettleSettings that fills it, of the same
                             * type, or SETTLE_MOPT_NO_SETTING */
    double def, min, max;   /* the default, and the range a value must lie in */
    const char *help;
} SettleModuleOption;

/* What every module sees of the analysis once the measured rectangle is known. */
typedef struct SettleMeasureArea {
    int fw, fh;             /* the whole picture */
    int x, y, w, h;         /* the measured rectangle within it (--crop) */
    int64_t npix;           /* w * h */
    int64_t mask_pix;       /* the pixels of the rectangle --ignore covers (black in every band) */
    double diff_limit;      /* the decide stage's diff threshold for this rectangle, in pixels */
    int mobile;             /* an Android screen recording */
    int scale;              /* the picture is the capture reduced by this (1: not) */
    const SettleKernels *dsp; /* the kernels for this CPU */
    /* the list-valued settings that a typed option cannot carry (the --region
     * areas and their names); read only by the modules that say so */
    const SettleSettings *s;
} SettleMeasureArea;

/* A band of the measured rectangle, as the measure stage hands it on: the
 * picture's rows after --ignore and --blur, and the same rows of the
 * previous picture. */
typedef struct SettleMeasureBand {
    int first;              /* the capture's first picture: measured whole, no previous */
    int i;                  /* the band's number; rows y0 .. y0 + rows - 1 */
    int y0, rows;
    const uint8_t *cur;
    ptrdiff_t cstride;
    uint8_t *prev;          /* the previous picture's rows (first: not yet written) */
    ptrdiff_t pstride;
    uint8_t *dirty;         /* out: 1 when any pixel of the band differs from the previous */
    /* later pictures: each row's change masks, (w + 15) / 16 words a row, the
     * rows one after the other (settle_change_masks), written by "pixels" in
     * its pass for the modules after it */
    uint64_t *masks;
    int entropy;            /* this picture's entropy is read (else "pixels" keeps no histogram);
                             * SETTLE_ENTROPY_LATER: perhaps, see below */
} SettleMeasureBand;

/* SettleMeasureBand.entropy and SettleMeasureFrame.entropy: the picture's
 * entropy may be read, by the decide stage once it judged a later picture
 * (the refresh filter's window): "pixels" keeps a copy of the picture
 * instead of its histogram and measures the entropy only when asked
 * (settle_measure_entropy), when it can (a short window). */
#define SETTLE_ENTROPY_LATER 2

/* A picture as a whole, for what a module does once a picture. */
typedef struct SettleMeasureFrame {
    int first;              /* the capture's first picture */
    const uint8_t *rgb;     /* the measured rectangle's top-left pixel in the picture, unfiltered */
    ptrdiff_t stride;
    const uint8_t *dirty;   /* per band: differs from the previous picture (first: NULL) */
    /* the picture as its bands were measured (after --ignore and --blur),
     * w * 3 bytes a row, and whether its entropy is read */
    const uint8_t *measured;
    int entropy;
    int64_t index;          /* the record's */
    /* after the decide stage (the decided callback): the start the visual
     * metrics count from, -1 when none yet, and its time */
    int64_t start;
    double start_time;
    int started;            /* ... the diff method's start is reached (the --region areas) */
} SettleMeasureFrame;

/* The capture's end, for flush. */
typedef struct SettleMeasureEnd {
    int64_t frames;
    int64_t start_frame;    /* the deciding method's start, -1 when none (or under 2 frames) */
    double start_frame_time, start_time, duration;
} SettleMeasureEnd;

typedef struct SettleMeasureModule {
    const char *name;
    size_t priv_size;       /* its private state, zeroed by the stage */
    const SettleModuleOption *options; /* ends with a NULL name; NULL: none */
    size_t opts_in_priv;    /* offset of its options struct within the private state,
                             * filled from the table before init */
    /* Each callback may be NULL. Each returns 0 or a negative SETTLE_ERR_. */
    /* once the rectangle is known; > 0: the module has nothing to do in this
     * analysis (then only close is called) */
    int (*init)(void *priv, const SettleMeasureArea *a);
    void (*begin)(void *priv, int first);                 /* a picture, before its bands */
    int (*band)(void *priv, const SettleMeasureBand *b);  /* a band that may have changed */
    /* the picture's bands are measured: the module's values into r */
    int (*picture)(void *priv, const SettleMeasureFrame *f, SettleRecord *r);
    /* the decide stage has judged the picture (r holds its verdict) */
    int (*decided)(void *priv, const SettleMeasureFrame *f, SettleRecord *r);
    /* the capture is over: the module's share of the result */
    int (*flush)(void *priv, const SettleMeasureEnd *e, SettleResult *res);
    void (*close)(void *priv);
} SettleMeasureModule;

/* Fills the options struct at `opts` from the table: each option from its
 * setting in s, or its default; the value must lie in [min, max]. Returns 0,
 * or SETTLE_ERR_INVAL naming the first option out of range in err. */
int settle_module_options_fill(const SettleModuleOption *t, void *opts, const SettleSettings *s,
                               char *err, size_t errlen);

#endif
