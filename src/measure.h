/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The measure stage: pictures in, per-frame measures out (changed pixels,
 * strongly changed pixels, histogram entropy, the start marker's share), over
 * the measured rectangle after --ignore and --blur. Knows no file and no
 * decision: it compares each picture with the previous one, band by band.
 */
#ifndef SETTLE_MEASURE_H
#define SETTLE_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "settle/settle.h"
#include "cells.h"
#include "kernels.h"
#include "measure_blocks.h"
#include "record.h"
#include "regions.h"

/* Rows of a band: the unit in which pictures are compared, converted and measured. */
#define SETTLE_BAND_ROWS 16

/* The source's RGB rows top .. bottom (of the whole picture) made ready:
 * a decoder that converts a band only when the analysis reaches it, while
 * its rows are in the cache. Returns < 0 on error. */
typedef int (*SettleFillRows)(void *opaque, int top, int bottom);

typedef struct SettleMeasure {
    const SettleSettings *s;
    const SettleKernels *dsp;  /* the kernels for this CPU */
    int fw, fh;                /* the whole picture */
    int cx, cy, w, h;          /* the measured rectangle (--crop) */
    int64_t npix;
    int use_marker;            /* --start marker or marker-end: count its colour */
    /* the block test runs: methods auto and blocks, and --start first-change
     * (it costs about a tenth of the analysis; --method diff and entropy
     * never read it, and their results show null for it) */
    int use_blocks;
    uint8_t *prev;             /* previous picture, packed RGB24 */
    uint32_t hist[SETTLE_HIST_BINS]; /* of the previous picture, kept up to date */
    int64_t marker_count;      /* its pixels of the marker colour */
    uint32_t *band_hist;       /* the histogram of each band of BAND_ROWS rows */
    uint8_t *dirty;            /* per band: differs from the previous picture */
    uint8_t *fresh;            /* per band: settle_update_band's state */

    /* --ignore and --blur: bands are measured from a prepared copy */
    int prefilter;
    int mask[SETTLE_MAX_IGNORE][4]; /* --ignore within the measured rectangle, its coordinates */
    int nmask;
    int64_t mask_pix;          /* pixels they cover (no overlap counted twice) */
    int blur_r;                /* 0 = no blur */
    uint8_t *pre_src;          /* a band and blur_r rows either side, masked */
    uint8_t *pre_out;          /* the band blurred */
    int *pre_col;              /* the box blur's column sums */

    SettleBlocks blocks;       /* the block test, kept up to date band by band (use_blocks) */
    SettleCells cells;         /* where the current picture changed (src/cells.c) */
    SettleRegions regions;     /* --region: each area's change (src/regions.c) */
} SettleMeasure;

/* Readies m for pictures of fw x fh under settings s and kernels dsp (both
 * kept by pointer). Returns 0 or SETTLE_ERR_NOMEM; settle_measure_free after
 * either. */
int settle_measure_begin(SettleMeasure *m, const SettleSettings *s, const SettleKernels *dsp,
                         int fw, int fh);

/* The rectangle every measure looks at (within the picture), once, before
 * the first picture; the --region areas are readied by the caller
 * (settle_regions_init on m->regions) once it knows the diff threshold.
 * Returns 0 or SETTLE_ERR_NOMEM. */
int settle_measure_set_region(SettleMeasure *m, int x, int y, int w, int h);

/* Measures one picture (the whole picture's RGB24 rows, `stride` apart) into
 * r's diff, strong, entropy, marker and box (and m->cells, m->regions); first: the capture's first picture,
 * measured whole. changed[i] (band i of band_h rows), when given, says which
 * rows may differ from the previous picture; fill, when given, is called for
 * the rows a band reads before it reads them. Returns 0 or fill's error. */
int settle_measure_picture(SettleMeasure *m, const uint8_t *rgb, ptrdiff_t stride, int first,
                           const uint8_t *changed, int band_h, SettleFillRows fill,
                           void *fill_opaque, SettleRecord *r);

/* Frees what begin and set_region allocated; m can begin again. */
void settle_measure_free(SettleMeasure *m);

#endif
