/* SPDX-License-Identifier: BSD-2-Clause */
/* The CRC of a decoded frame's visible samples, to tell two decodings apart. */
#ifndef SETTLE_TESTS_FRAME_CRC_H
#define SETTLE_TESTS_FRAME_CRC_H

#include <stdint.h>

#include <libavutil/frame.h>

uint32_t frame_crc(const AVFrame *f);

#endif
