/* SPDX-License-Identifier: BSD-2-Clause */
/* The decoder's picture buffers (src/decode.c): libavcodec's own pool zeroes
 * each new buffer with memset, faulting its pages in one by one; these are
 * mappings populated in one call, already zero. */
#ifndef SETTLE_DECODE_POOL_H
#define SETTLE_DECODE_POOL_H

#include <libavcodec/avcodec.h>

/* Sets dec's get_buffer2 to take its pictures' planes from a pool of its own
 * (before avcodec_open2; a decoder without AV_CODEC_CAP_DR1, or a build
 * without populated mappings, keeps libavcodec's). Returns 0 or
 * SETTLE_ERR_NOMEM. */
int settle_decode_pool_attach(AVCodecContext *dec);

/* After avcodec_free_context: frees the pool (its buffers, when pictures
 * still hold some, as they are let go). NULL and never attached are fine. */
void settle_decode_pool_free(void **pool);

#endif
