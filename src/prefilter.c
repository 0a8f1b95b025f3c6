/* SPDX-License-Identifier: BSD-2-Clause */
#include <stdlib.h>
#include <string.h>

#include "prefilter.h"

void settle_mask_rows(uint8_t *p, ptrdiff_t stride, int y0, int h, const int (*rect)[4], int n)
{
    for (int i = 0; i < n; i++) {
        int a = rect[i][1] > y0 ? rect[i][1] : y0;
        int b = rect[i][1] + rect[i][3] < y0 + h ? rect[i][1] + rect[i][3] : y0 + h;
        for (int y = a; y < b; y++)
            memset(p + (y - y0) * stride + (ptrdiff_t)rect[i][0] * 3, 0, (size_t)rect[i][2] * 3);
    }
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void sort_small(uint8_t *v, int n)
{
    for (int i = 1; i < n; i++) {
        uint8_t x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
}

/* The median of nine values with 19 compare-exchanges (the classic network
 * for 3x3 median filters). */
#define SORT2(a, b) do { if ((a) > (b)) { uint8_t t_ = (a); (a) = (b); (b) = t_; } } while (0)
static uint8_t median9(uint8_t p[9])
{
    SORT2(p[1], p[2]); SORT2(p[4], p[5]); SORT2(p[7], p[8]);
    SORT2(p[0], p[1]); SORT2(p[3], p[4]); SORT2(p[6], p[7]);
    SORT2(p[1], p[2]); SORT2(p[4], p[5]); SORT2(p[7], p[8]);
    SORT2(p[0], p[3]); SORT2(p[5], p[8]); SORT2(p[4], p[7]);
    SORT2(p[3], p[6]); SORT2(p[1], p[4]); SORT2(p[2], p[5]);
    SORT2(p[4], p[7]); SORT2(p[4], p[2]); SORT2(p[6], p[4]);
    SORT2(p[4], p[2]);
    return p[4];
}

void settle_blur_rgb(const uint8_t *src, ptrdiff_t sstride, int w, int h, int top, int bottom,
                     int median, int r, uint8_t *dst, ptrdiff_t dstride, int *col)
{
    const int side = 2 * r + 1, area = side * side;
    if (median && r == 1) {
        uint8_t v[9];
        for (int y = 0; y < h; y++) {
            const uint8_t *rows[3];
            for (int k = 0; k < 3; k++)
                rows[k] = src + clampi(y + k - 1, -top, h - 1 + bottom) * sstride;
            for (int x = 0; x < w; x++) {
                int xs[3] = { clampi(x - 1, 0, w - 1) * 3, x * 3, clampi(x + 1, 0, w - 1) * 3 };
                for (int ch = 0; ch < 3; ch++) {
                    for (int k = 0; k < 3; k++) {
                        v[3 * k] = rows[k][xs[0] + ch];
                        v[3 * k + 1] = rows[k][xs[1] + ch];
                        v[3 * k + 2] = rows[k][xs[2] + ch];
                    }
                    dst[y * dstride + x * 3 + ch] = median9(v);
                }
            }
        }
        return;
    }
    if (median) {
        uint8_t v[25];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                for (int ch = 0; ch < 3; ch++) {
                    int n = 0;
                    for (int dy = -r; dy <= r; dy++) {
                        const uint8_t *row = src + clampi(y + dy, -top, h - 1 + bottom) * sstride;
                        for (int dx = -r; dx <= r; dx++)
                            v[n++] = row[clampi(x + dx, 0, w - 1) * 3 + ch];
                    }
                    sort_small(v, n);
                    dst[y * dstride + x * 3 + ch] = v[area / 2];
                }
            }
        }
        return;
    }
    /* box: the column sums of each row, then a running sum along the row */
    for (int y = 0; y < h; y++) {
        memset(col, 0, (size_t)w * 3 * sizeof(*col));
        for (int dy = -r; dy <= r; dy++) {
            const uint8_t *row = src + clampi(y + dy, -top, h - 1 + bottom) * sstride;
            for (int i = 0; i < 3 * w; i++)
                col[i] += row[i];
        }
        uint8_t *out = dst + y * dstride;
        for (int ch = 0; ch < 3; ch++) {
            int sum = 0;
            for (int dx = -r; dx <= r; dx++)
                sum += col[clampi(dx, 0, w - 1) * 3 + ch];
            for (int x = 0; x < w; x++) {
                out[x * 3 + ch] = (uint8_t)((sum + area / 2) / area);
                sum += col[clampi(x + r + 1, 0, w - 1) * 3 + ch] - col[clampi(x - r, 0, w - 1) * 3 + ch];
            }
        }
    }
}

/* The longest run of indices whose share is at least half the largest. */
static void longest_run(const double *share, int n, int *start, int *len)
{
    double min = 0;
    for (int i = 0; i < n; i++)
        min = share[i] > min ? share[i] : min;
    min = min > 0 ? min / 2 : 1;
    *start = *len = 0;
    for (int i = 0; i < n;) {
        if (share[i] < min) {
            i++;
            continue;
        }
        int j = i;
        while (j < n && share[j] >= min)
            j++;
        if (j - i > *len) {
            *start = i;
            *len = j - i;
        }
        i = j;
    }
}

int settle_find_screen(const uint8_t *rgb, ptrdiff_t stride, int w, int h, int rect[4])
{
    rect[0] = rect[1] = 0;
    rect[2] = w;
    rect[3] = h;
    uint8_t *luma = malloc((size_t)w * h);
    double *share = malloc((size_t)(w > h ? w : h) * sizeof(*share));
    int found = 0;
    if (!luma || !share)
        goto end;
    uint64_t hist[256] = { 0 };
    for (int y = 0; y < h; y++) {
        const uint8_t *p = rgb + y * stride;
        for (int x = 0; x < w; x++) {
            int l = (77 * p[3 * x] + 150 * p[3 * x + 1] + 29 * p[3 * x + 2] + 128) >> 8;
            luma[(size_t)y * w + x] = (uint8_t)l;
            hist[l]++;
        }
    }
    /* Otsu: the threshold that maximises the variance between the classes */
    double total = (double)w * h, sum = 0;
    for (int i = 0; i < 256; i++)
        sum += (double)i * hist[i];
    double best = -1, wb = 0, sb = 0;
    int thr = -1;
    for (int t = 0; t < 255; t++) {
        wb += hist[t];
        sb += (double)t * hist[t];
        double wf = total - wb;
        if (wb == 0 || wf == 0)
            continue;
        double mb = sb / wb, mf = (sum - sb) / wf;
        double between = wb * wf * (mb - mf) * (mb - mf);
        if (between > best) {
            best = between;
            thr = t;
        }
    }
    if (thr < 0)
        goto end; /* one level everywhere */
    int y0 = 0, ny = h, x0 = 0, nx = w;
    for (int pass = 0; pass < 2; pass++) {
        for (int y = 0; y < h; y++) {
            int n = 0;
            for (int x = x0; x < x0 + nx; x++)
                n += luma[(size_t)y * w + x] > thr;
            share[y] = (double)n / nx;
        }
        longest_run(share, h, &y0, &ny);
        if (ny < 1)
            goto end;
        for (int x = 0; x < w; x++) {
            int n = 0;
            for (int y = y0; y < y0 + ny; y++)
                n += luma[(size_t)y * w + x] > thr;
            share[x] = (double)n / ny;
        }
        longest_run(share, w, &x0, &nx);
        if (nx < 1)
            goto end;
    }
    /* a camera sees the surround on at least three sides of the screen: a
     * region that reaches two edges of the picture is a screen recording, a
     * capture already cropped, or a lit wall; a region under a
     * quarter of the picture is a bright part of a screen (a search bar on a
     * dark wallpaper) or a lit wall beside a dark screen more often than a
     * screen: nothing to crop */
    int edges = (x0 <= w / 100) + (y0 <= h / 100) + (x0 + nx >= w - w / 100) +
                (y0 + ny >= h - h / 100);
    if (edges >= 2 || (double)nx * ny < 0.25 * (double)w * h)
        goto end;
    int mx = nx / 50 + 1, my = ny / 50 + 1;
    if (nx - 2 * mx < 1 || ny - 2 * my < 1)
        goto end; /* a picture of a few pixels */
    rect[0] = x0 + mx;
    rect[1] = y0 + my;
    rect[2] = nx - 2 * mx;
    rect[3] = ny - 2 * my;
    found = 1;
end:
    free(luma);
    free(share);
    return found;
}
