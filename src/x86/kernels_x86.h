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
                                uint32_t hist[SETTLE_HIST_BINS], uint64_t *masks,       \
                                SettleDelta *out);                                            \
    void settle_sum_rows_##isa(const uint8_t *p, ptrdiff_t stride, int n, int rows,           \
                               uint16_t *sums);                                          \
    void settle_renew_rgb_##isa(const uint8_t *cur, ptrdiff_t cstride, uint8_t *prev,         \
                                ptrdiff_t pstride, int w, int h, int tol, int strong_tol,     \
                                uint32_t hist[SETTLE_HIST_BINS], uint64_t *masks,       \
                                SettleDelta *out);                                            \
    void settle_change_masks_##isa(const uint8_t *a, const uint8_t *b, int w, int tol,         \
                                   int strong_tol, uint64_t *masks);

SETTLE_X86_DECLARE(sse2)
void settle_histogram_rgb_x4(const uint8_t *p, ptrdiff_t stride, int w, int h,
                             uint32_t hist[SETTLE_HIST_BINS]);
void settle_yuv420_rgb_ssse3(uint8_t *dst, ptrdiff_t dstride, const uint8_t *y,
                             ptrdiff_t ystride, const uint8_t *u, ptrdiff_t ustride,
                             const uint8_t *v, ptrdiff_t vstride, int w, int h,
                             const SettleYuvCoef *k);
void settle_reduce_plane_sse2(uint8_t *dst, ptrdiff_t dstride, const uint8_t *src,
                              ptrdiff_t sstride, int dw, int dh, int f);
int settle_count_row_changed_sse2(const uint8_t *a, const uint8_t *b, int n, int tol, int *first,
                                  int *last);
int settle_row_first_diff_sse2(const uint8_t *a, const uint8_t *b, int n);
void settle_copy_stream_sse2(uint8_t *dst, const uint8_t *src, size_t n);
void settle_evict_clflushopt(const void *p, size_t n);
void settle_box_means_sse2(const uint32_t *acc, const int *x0, int n, int rows, uint8_t *out);
void settle_block_means_sse2(const uint16_t *sums, int n, int bs, float inv, float *out);
SETTLE_X86_DECLARE(avx2)
void settle_yuv420_rgb_avx2(uint8_t *dst, ptrdiff_t dstride, const uint8_t *y,
                            ptrdiff_t ystride, const uint8_t *u, ptrdiff_t ustride,
                            const uint8_t *v, ptrdiff_t vstride, int w, int h,
                            const SettleYuvCoef *k);
void settle_reduce_plane_avx2(uint8_t *dst, ptrdiff_t dstride, const uint8_t *src,
                              ptrdiff_t sstride, int dw, int dh, int f);
int settle_row_first_diff_avx2(const uint8_t *a, const uint8_t *b, int n);
int settle_count_row_changed_avx2(const uint8_t *a, const uint8_t *b, int n, int tol, int *first,
                                  int *last);
void settle_reduce_plane_avx512(uint8_t *dst, ptrdiff_t dstride, const uint8_t *src,
                                ptrdiff_t sstride, int dw, int dh, int f);
int settle_count_row_changed_avx512(const uint8_t *a, const uint8_t *b, int n, int tol,
                                    int *first, int *last);
void settle_yuv420_rgb_avx512(uint8_t *dst, ptrdiff_t dstride, const uint8_t *y,
                              ptrdiff_t ystride, const uint8_t *u, ptrdiff_t ustride,
                              const uint8_t *v, ptrdiff_t vstride, int w, int h,
                              const SettleYuvCoef *k);
void settle_fit_sums_avx2(const float *ref, const float *cur, int n, const double *a,
                          const double *o, const double *lim, double s[5][3]);
int settle_select_part_avx2(const float *v, int32_t *keys, int n, int k, float *out);
void settle_block_errors_avx2(const float *ref, const float *cur, int n, const double *a,
                              const double *o, float *err, float *ch);
void settle_block_levels_avx2(const float *ref, int n, uint8_t *lvl);
void settle_block_residuals_avx2(const float *err, int n, int bins, float *res, uint16_t *bin);
double settle_block_shares_avx2(const float *res, const uint8_t *lvl, const double *thr, int n,
                                float low, float *ratio, int counts[3]);

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

/* Not SIMD (there is no scatter): four histograms, part[0] to part[3], one
 * for each pixel of a group of four, so that equal neighbours (a flat colour,
 * a camera's noise about one level) do not wait on each other's increments.
 * Adds one row of w pixels. */
static inline void settle_histogram_row_x4(const uint8_t *row, int w, uint32_t *const part[4])
{
    uint32_t *p0 = part[0], *p1 = part[1], *p2 = part[2], *p3 = part[3];
    const int body = w & ~3;
    for (int x = 0; x < 3 * body; x += 12) {
        p0[row[x]]++, p0[256 + row[x + 1]]++, p0[512 + row[x + 2]]++;
        p1[row[x + 3]]++, p1[256 + row[x + 4]]++, p1[512 + row[x + 5]]++;
        p2[row[x + 6]]++, p2[256 + row[x + 7]]++, p2[512 + row[x + 8]]++;
        p3[row[x + 9]]++, p3[256 + row[x + 10]]++, p3[512 + row[x + 11]]++;
    }
    for (int x = 3 * body; x < 3 * w; x += 3)
        p0[row[x]]++, p0[256 + row[x + 1]]++, p0[512 + row[x + 2]]++;
}

/* The part histograms summed into the first. */
static inline void settle_sum_parts_x4(uint32_t *const part[4])
{
    for (int i = 0; i < SETTLE_HIST_BINS; i++)
        part[0][i] += part[1][i] + part[2][i] + part[3][i];
}

/* renew_rgb after the SIMD body of a row (body pixels, a multiple of 16 or
 * the whole row, n of them differing): the rest of the row by the reference
 * (its masks from the row's masks + body / 16), the row's histogram, the
 * counts. */
static inline void settle_renew_row_end(const uint8_t *pc, ptrdiff_t cstride, uint8_t *pp,
                                        ptrdiff_t pstride, int w, int body, int tol,
                                        int strong_tol, uint32_t *const part[4], int64_t n,
                                        uint64_t *masks, SettleDelta *acc)
{
    if (body < w) {
        SettleDelta d;
        settle_renew_rgb(pc + 3 * body, cstride, pp + 3 * body, pstride, w - body, 1, tol,
                         strong_tol, part[0], masks ? masks + body / 16 : NULL, &d);
        acc->changed += d.changed;
        acc->strong += d.strong;
        n += d.differ;
    }
    settle_histogram_row_x4(pc, body, part);
    acc->differ += n;
    acc->rows += n > 0;
}

#endif
