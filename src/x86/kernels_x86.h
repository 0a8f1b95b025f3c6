/* SPDX-License-Identifier: BSD-2-Clause */
/* The x86-64 versions of the kernels in SettleKernels: each gives the same
 * answer as the scalar reference in src/kernels.c, to the bit. */
#ifndef SETTLE_X86_KERNELS_H
#define SETTLE_X86_KERNELS_H

#include <stdlib.h>

#include "kernels.h"

#define SETTLE_X86_DECLARE(isa)                                                                \
    int64_t settle_count_changed_##isa(const uint8_t *a, ptrdiff_t astride, const uint8_t *b, \
                                       ptrdiff_t bstride, int w, int h, int tol,              \
                                       int strong_tol, int64_t *strong);                      \
    int64_t settle_count_color_##isa(const uint8_t *p, ptrdiff_t stride, int w, int h,       \
                                     const uint8_t rgb[3], int tol);                          \
    void settle_delta_rgb_##isa(const uint8_t *cur, ptrdiff_t cstride, uint8_t *prev,         \
                                ptrdiff_t pstride, int w, int h, int tol, int strong_tol,     \
                                const uint8_t *marker, int mtol,                              \
                                uint32_t hist[SETTLE_HIST_BINS], SettleDelta *out);     \
    void settle_sum_rows_##isa(const uint8_t *p, ptrdiff_t stride, int n, int rows,           \
                               uint16_t *sums);

SETTLE_X86_DECLARE(sse2)
void settle_histogram_rgb_x4(const uint8_t *p, ptrdiff_t stride, int w, int h,
                             uint32_t hist[SETTLE_HIST_BINS]);
SETTLE_X86_DECLARE(avx2)
void settle_yuv420_rgb_avx2(uint8_t *dst, ptrdiff_t dstride, const uint8_t *y,
                            ptrdiff_t ystride, const uint8_t *u, ptrdiff_t ustride,
                            const uint8_t *v, ptrdiff_t vstride, int w, int h,
                            const SettleYuvCoef *k);

/* Bits 0, 3, 6 ... 45: the first byte of each of 16 RGB24 pixels in 48 bytes. */
#define SETTLE_PIXEL_STARTS 0x249249249249ull
#define SETTLE_BYTES48 0xffffffffffffull

/* A mask of 48 byte flags (bit i for byte i) reduced to one bit per pixel,
 * at its first byte: set when any of the pixel's three bytes is. */
static inline uint64_t settle_any3(uint64_t m)
{
    return (m | m >> 1 | m >> 2) & SETTLE_PIXEL_STARTS;
}

/* ... set when all three are. */
static inline uint64_t settle_all3(uint64_t m)
{
    return m & m >> 1 & m >> 2 & SETTLE_PIXEL_STARTS;
}

/* Whether a pixel's R, G and B are each within tol of m's. */
static inline int settle_near_color(const uint8_t *p, const uint8_t *m, int tol)
{
    return abs(p[0] - m[0]) <= tol && abs(p[1] - m[1]) <= tol && abs(p[2] - m[2]) <= tol;
}

#endif
