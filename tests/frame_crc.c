/* SPDX-License-Identifier: BSD-2-Clause */
#include <stddef.h>
#include <stdint.h>

#include <libavutil/crc.h>
#include <libavutil/pixdesc.h>

#include "frame_crc.h"

uint32_t frame_crc(const AVFrame *f)
{
    const AVCRC *t = av_crc_get_table(AV_CRC_32_IEEE);
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f->format);
    uint32_t c = 0;
    for (int p = 0; p < 4 && f->data[p]; p++) {
        int sh = p == 1 || p == 2 ? d->log2_chroma_h : 0, sw = p == 1 || p == 2 ? d->log2_chroma_w : 0;
        for (int y = 0; y < (f->height + (1 << sh) - 1) >> sh; y++)
            c = av_crc(t, c, f->data[p] + (ptrdiff_t)y * f->linesize[p],
                       (size_t)((f->width + (1 << sw) - 1) >> sw));
    }
    return c;
}
