/* SPDX-License-Identifier: BSD-2-Clause */
/* The pictures --scale auto holds while its probe decides (src/decode.c),
 * copied out of the decoder's buffers. */
#ifndef SETTLE_DECODE_PROBE_H
#define SETTLE_DECODE_PROBE_H

#include <stddef.h>

#include <libavutil/frame.h>

typedef struct SettleProbeStore {
    AVBufferRef *region; /* where the next copy goes; each copy holds a reference */
    size_t used;
} SettleProbeStore;

/* A copy of f (its planes and properties) in the store, owned by the
 * caller (av_frame_free); a reference (av_frame_clone) for a format whose
 * planes it does not lay out. NULL when out of memory. */
AVFrame *settle_probe_copy(SettleProbeStore *s, const AVFrame *f);
/* Drops the store's reference: the memory goes once its copies are freed. */
void settle_probe_store_free(SettleProbeStore *s);

#endif
