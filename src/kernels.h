/* SPDX-License-Identifier: BSD-2-Clause */
/* Per-pixel kernels on packed RGB24 pictures. Pure functions, no state. */
#ifndef SETTLE_KERNELS_H
#define SETTLE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#define SETTLE_HIST_BINS 768

/* Counts the pixels of a and b (w x h, RGB24) whose largest per-channel
 * difference exceeds tol; the count of those exceeding strong_tol goes to
 * *strong. */
int64_t settle_count_changed(const uint8_t *a, ptrdiff_t astride, const uint8_t *b,
                             ptrdiff_t bstride, int w, int h, int tol, int strong_tol,
                             int64_t *strong);

/* Adds the picture's R, G and B values to hist: bins 0-255 R, 256-511 G,
 * 512-767 B. */
void settle_histogram_rgb(const uint8_t *p, ptrdiff_t stride, int w, int h,
                          uint32_t hist[SETTLE_HIST_BINS]);

/* Shannon entropy in bits of a histogram of `bins` bins, normalised over all
 * of them. 0 for an empty histogram. */
double settle_histogram_entropy(const uint32_t *hist, int bins);

/* Counts the pixels whose R, G and B are each within tol of rgb. */
int64_t settle_count_color(const uint8_t *p, ptrdiff_t stride, int w, int h,
                           const uint8_t rgb[3], int tol);

#endif
