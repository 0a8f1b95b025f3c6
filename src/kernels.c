/* SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdlib.h>

#include "kernels.h"

int64_t settle_count_changed(const uint8_t *a, ptrdiff_t astride, const uint8_t *b,
                             ptrdiff_t bstride, int w, int h, int tol, int strong_tol,
                             int64_t *strong)
{
    int64_t changed = 0, big = 0;
    for (int y = 0; y < h; y++) {
        const uint8_t *pa = a + y * astride;
        const uint8_t *pb = b + y * bstride;
        for (int x = 0; x < 3 * w; x += 3) {
            int d0 = abs(pa[x] - pb[x]);
            int d1 = abs(pa[x + 1] - pb[x + 1]);
            int d2 = abs(pa[x + 2] - pb[x + 2]);
            int d = d0 > d1 ? d0 : d1;
            d = d > d2 ? d : d2;
            changed += d > tol;
            big += d > strong_tol;
        }
    }
    if (strong)
        *strong = big;
    return changed;
}

void settle_histogram_rgb(const uint8_t *p, ptrdiff_t stride, int w, int h,
                          uint32_t hist[SETTLE_HIST_BINS])
{
    uint32_t *hr = hist, *hg = hist + 256, *hb = hist + 512;
    for (int y = 0; y < h; y++) {
        const uint8_t *row = p + y * stride;
        for (int x = 0; x < 3 * w; x += 3) {
            hr[row[x]]++;
            hg[row[x + 1]]++;
            hb[row[x + 2]]++;
        }
    }
}

double settle_histogram_entropy(const uint32_t *hist, int bins)
{
    /* H = log2(T) - (1/T) * sum(c * log2(c)), one pass, no division per bin. */
    double total = 0, sum = 0;
    for (int i = 0; i < bins; i++) {
        if (hist[i]) {
            double c = hist[i];
            total += c;
            sum += c * log2(c);
        }
    }
    if (total <= 0)
        return 0;
    double e = log2(total) - sum / total;
    return e > 0 ? e : 0; /* -0.0 and rounding below zero for a flat picture */
}

int64_t settle_count_color(const uint8_t *p, ptrdiff_t stride, int w, int h,
                           const uint8_t rgb[3], int tol)
{
    int64_t n = 0;
    for (int y = 0; y < h; y++) {
        const uint8_t *row = p + y * stride;
        for (int x = 0; x < 3 * w; x += 3)
            n += abs(row[x] - rgb[0]) <= tol && abs(row[x + 1] - rgb[1]) <= tol &&
                 abs(row[x + 2] - rgb[2]) <= tol;
    }
    return n;
}
