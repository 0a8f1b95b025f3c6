/* SPDX-License-Identifier: BSD-2-Clause */
/* The per-frame records read back as SettleFrame for the writers, each with
 * the visual progress of its frame. */
#include <math.h>
#include <string.h>

#include "outputs.h"
#include "record.h"

int settle_frames_foreach(const SettleFrameSource *src, int (*cb)(void *, const SettleFrame *),
                          void *opaque)
{
    if (settle_records_rewind(src->records) < 0)
        return SETTLE_ERR_IO;
    int which = src->which;
    SettleVisual *v = src->visual;
    int with_progress = v && v->start_frame >= 0 && v->spool && v->spool_ok;
    if (with_progress && (fflush(v->spool) || fseek(v->spool, 0, SEEK_SET)))
        return SETTLE_ERR_IO;
    SettleRecord r;
    SettleVisualRecord vr;
    int ret = 0;
    for (int64_t i = 0; i < src->n; i++) {
        if (settle_records_next(src->records, &r) < 0) {
            ret = SETTLE_ERR_IO;
            break;
        }
        double progress = NAN;
        if (with_progress && r.index >= v->start_frame) {
            if (fread(&vr, sizeof(vr), 1, v->spool) != 1 || vr.index != r.index) {
                ret = SETTLE_ERR_IO;
                break;
            }
            progress = settle_visual_progress(v, &vr);
        }
        SettleFrame f = {
            .index = r.index, .time = r.time, .diff_pixels = r.diff, .entropy = r.entropy,
            .entropy_delta = r.delta, .marker = r.marker, .keyframe = r.keyframe,
            .codec_refresh = r.refresh, .quiet = r.quiet[which], .progress = progress,
            .block_peak = r.block_peak, .blocks_changed = r.blocks_changed,
        };
        memcpy(f.region_pixels, r.region, sizeof(f.region_pixels));
        ret = cb(opaque, &f);
        if (ret)
            break;
    }
    return ret;
}
