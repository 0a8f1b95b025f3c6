/* SPDX-License-Identifier: BSD-2-Clause */
/* The pictures --scale auto holds while its probe decides (src/decode.c),
 * copied out of the decoder's buffers. */
#ifndef SETTLE_DECODE_PROBE_H
#define SETTLE_DECODE_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include <libavutil/frame.h>

/* the most frames a store holds */
#define SETTLE_PROBE_HELD 60
/* buffers the frames held by rows are put together in again */
#define SETTLE_PROBE_SLOTS 3

typedef struct SettleProbeHeld {
    AVFrame *frame;     /* its properties; its planes only when held whole */
    const uint8_t **row; /* each plane's rows, plane after plane (NULL: not laid out) */
    int props;          /* held as its properties only: it cannot be taken */
} SettleProbeHeld;

typedef struct SettleProbeSlot {
    AVBufferRef *buf;
    uint8_t *data[4];
    const uint8_t **had; /* the held row each of its rows is a copy of (NULL: none) */
} SettleProbeSlot;

typedef struct SettleProbeStore {
    AVBufferRef **regions; /* where the copies are; the last takes the next */
    int nregions;
    size_t used;           /* of the last region */
    SettleProbeHeld held[SETTLE_PROBE_HELD];
    int n;
    SettleProbeSlot slot[SETTLE_PROBE_SLOTS];
    int nslots;
    /* the layout of the held frames (the first one's) */
    int format, width, height, planes;
    int rows[4], bytes[4], linesize[4], first[4]; /* first: plane's index in row tables */
    int nrows;
    size_t off[4], size;
} SettleProbeStore;

/* Holds a copy of f (its planes and properties) as frame number n of the
 * store. A frame whose rows are mostly those of the frame held before it
 * keeps only the rows that differ, and shares the others (a screen
 * recording changes a few rows at a time); any other is copied whole. A
 * format whose planes the store does not lay out is held as a reference
 * (av_frame_clone). 0, or a negative AVERROR (out of memory, store full). */
int settle_probe_hold(SettleProbeStore *s, const AVFrame *f);
/* Holds f's properties only (no planes) as frame number n of the store (a
 * camera film's frame, which goes to the analysis at once). A frame held so
 * is not laid out: the next is not compared with its rows, and it cannot be
 * taken. 0, or a negative AVERROR. */
int settle_probe_hold_props(SettleProbeStore *s, const AVFrame *f);
/* Frame i's properties (and planes when held whole or as a reference). */
static inline const AVFrame *settle_probe_frame(const SettleProbeStore *s, int i)
{
    return s->held[i].frame;
}
/* Row y of plane p of frame i, as the frame had it (a frame with planes). */
const uint8_t *settle_probe_row(const SettleProbeStore *s, int i, int p, int y);
/* out (blank) becomes a reference to frame i with its planes, put together
 * again in a buffer of the store's when it was held by rows; the buffer is
 * the caller's until it unreferences out. 0 or a negative AVERROR
 * (AVERROR(EINVAL): frame i was held as properties). */
int settle_probe_take(SettleProbeStore *s, int i, AVFrame *out);
/* Frees the held frames and the store's references: memory that a frame
 * taken still uses goes once that frame is freed. */
void settle_probe_store_free(SettleProbeStore *s);

#endif
