/* SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "x86/kernels_x86.h"

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

static inline int near_color(const uint8_t *p, const uint8_t *m, int tol)
{
    return abs(p[0] - m[0]) <= tol && abs(p[1] - m[1]) <= tol && abs(p[2] - m[2]) <= tol;
}

void settle_delta_rgb(const uint8_t *cur, ptrdiff_t cstride, uint8_t *prev, ptrdiff_t pstride,
                      int w, int h, int tol, int strong_tol, const uint8_t *marker, int mtol,
                      uint32_t hist[SETTLE_HIST_BINS], uint64_t *masks, SettleDelta *out)
{
    int64_t changed = 0, big = 0, mk = 0, rows = 0;
    uint32_t *hr = hist, *hg = hist ? hist + 256 : NULL, *hb = hist ? hist + 512 : NULL;
    const size_t row = (size_t)w * 3, words = ((size_t)w + 15) / 16;
    for (int y = 0; y < h; y++) {
        const uint8_t *pc = cur + y * cstride;
        uint8_t *pp = prev + y * pstride;
        /* a screen recording is mostly unchanged rows */
        if (!memcmp(pc, pp, row)) {
            if (masks)
                memset(masks + y * words, 0, words * sizeof(*masks));
            continue;
        }
        rows++;
        if (masks)
            settle_change_masks(pc, pp, w, tol, strong_tol, masks + y * words);
        for (size_t x = 0; x < row; x += 3) {
            /* eight equal pixels at once: three 64-bit words */
            if (!(x % 24) && x + 24 <= row) {
                uint64_t a[3], o[3];
                memcpy(a, pc + x, 24);
                memcpy(o, pp + x, 24);
                if (a[0] == o[0] && a[1] == o[1] && a[2] == o[2]) {
                    x += 21;
                    continue;
                }
            }
            int r = pc[x], g = pc[x + 1], b = pc[x + 2];
            int r0 = pp[x], g0 = pp[x + 1], b0 = pp[x + 2];
            if (r == r0 && g == g0 && b == b0)
                continue;
            int d0 = abs(r - r0), d1 = abs(g - g0), d2 = abs(b - b0);
            int d = d0 > d1 ? d0 : d1;
            d = d > d2 ? d : d2;
            changed += d > tol;
            big += d > strong_tol;
            if (hist) {
                hr[r0]--, hg[g0]--, hb[b0]--;
                hr[r]++, hg[g]++, hb[b]++;
            }
            if (marker)
                mk += near_color(pc + x, marker, mtol) - near_color(pp + x, marker, mtol);
            pp[x] = (uint8_t)r, pp[x + 1] = (uint8_t)g, pp[x + 2] = (uint8_t)b;
        }
    }
    out->changed = changed;
    out->strong = big;
    out->marker = mk;
    out->rows = rows;
}

void settle_renew_rgb(const uint8_t *cur, ptrdiff_t cstride, uint8_t *prev, ptrdiff_t pstride,
                      int w, int h, int tol, int strong_tol, uint32_t hist[SETTLE_HIST_BINS],
                      uint64_t *masks, SettleDelta *out)
{
    const size_t words = ((size_t)w + 15) / 16;
    for (int y = 0; y < h && masks; y++)
        settle_change_masks(cur + y * cstride, prev + y * pstride, w, tol, strong_tol,
                            masks + y * words);
    out->changed = settle_count_changed(cur, cstride, prev, pstride, w, h, tol, strong_tol,
                                        &out->strong);
    out->marker = out->rows = out->differ = 0;
    for (int y = 0; y < h; y++) {
        /* a tolerance of 0: the pixels in which any byte differs */
        const int64_t n = settle_count_changed(cur + y * cstride, cstride, prev + y * pstride,
                                               pstride, w, 1, 0, 0, NULL);
        out->rows += n > 0;
        out->differ += n;
    }
    settle_histogram_rgb(cur, cstride, w, h, hist);
    for (int y = 0; y < h; y++)
        memcpy(prev + y * pstride, cur + y * cstride, (size_t)w * 3);
}

int settle_row_first_diff(const uint8_t *a, const uint8_t *b, int n)
{
    int first = 0;
    while (first < n && a[first] == b[first])
        first++;
    return first;
}

void settle_copy_stream(uint8_t *dst, const uint8_t *src, size_t n)
{
    memcpy(dst, src, n);
}

void settle_evict(const void *p, size_t n)
{
    (void)p;
    (void)n;
}

/* Row y of a band from its first difference fx on (settle_update_band), its
 * counts added to out. */
static inline void delta_row(const SettleKernels *k, const uint8_t *cur, ptrdiff_t cstride,
                             uint8_t *prev, ptrdiff_t pstride, int w, int y, int fx, int tol,
                             int strong_tol, const uint8_t *marker, int mtol,
                             uint32_t band_hist[SETTLE_HIST_BINS], uint64_t *masks,
                             SettleDelta *out)
{
    /* The row from its first difference on, from the step of 32 pixels (two
     * words of masks) it falls in, so that the vector kernels leave no tail
     * but the row's own: the pixels before it are equal in cur and prev, so
     * they move nothing in the histogram, count nothing, and their masks'
     * bits are 0. The row is then read once up to there, not twice (here and
     * in delta_rgb's own comparison). A camera film's dark surround is a
     * good part of each row (startup-test-elmo reduced: its first 720 of
     * 1,920 bytes equal on average). A start within the last 32 pixels goes
     * back to a multiple of 16 that leaves 32 or more, so that the vector
     * kernels take the row's tail in one overlapping step rather than the
     * reference's loop: the pixels it adds are equal too. */
    const size_t words = ((size_t)w + 15) / 16;
    int x0 = fx / 3 / 32 * 32;
    if (w - x0 < 32)
        x0 = w >= 32 ? (w - 32) / 16 * 16 : 0;
    uint64_t *mrow = masks ? masks + y * words : NULL;
    if (mrow)
        memset(mrow, 0, (size_t)x0 / 16 * sizeof(*mrow));
    SettleDelta d;
    k->delta_rgb(cur + y * cstride + 3 * x0, cstride, prev + y * pstride + 3 * x0, pstride,
                 w - x0, 1, tol, strong_tol, marker, mtol, band_hist,
                 mrow ? mrow + x0 / 16 : NULL, &d);
    out->changed += d.changed;
    out->strong += d.strong;
    out->marker += d.marker;
}

void settle_update_band(const SettleKernels *k, const uint8_t *cur, ptrdiff_t cstride,
                        uint8_t *prev, ptrdiff_t pstride, int w, int h, int tol, int strong_tol,
                        const uint8_t *marker, int mtol,
                        uint32_t band_hist[SETTLE_HIST_BINS], uint32_t hist[SETTLE_HIST_BINS],
                        uint8_t *fresh, uint64_t *masks, SettleDelta *out)
{
    const size_t row = (size_t)w * 3, words = ((size_t)w + 15) / 16;
    uint32_t old[SETTLE_HIST_BINS];
    /* How many pixels changed, from every eighth pixel of every fourth
     * changed row (the first among them): moving a changed pixel's values in
     * the histogram costs about 2.6 times counting a pixel afresh (meson test
     * --benchmark), so a band where more than about 3/8 of the pixels changed
     * is counted afresh. */
    int changed_rows = 0, listed = 0, probed = 0;
    int rows[SETTLE_BAND_MAX], first[SETTLE_BAND_MAX];
    int64_t differ = 0;
    if (h > SETTLE_BAND_MAX) { /* not a band: no sampling, the plain incremental kernel */
        uint32_t before[SETTLE_HIST_BINS];
        if (band_hist)
            memcpy(before, band_hist, sizeof(before));
        k->delta_rgb(cur, cstride, prev, pstride, w, h, tol, strong_tol, marker, mtol, band_hist,
                     masks, out);
        for (int i = 0; i < SETTLE_HIST_BINS && band_hist; i++)
            hist[i] += band_hist[i] - before[i];
        return;
    }
    /* no histogram (band_hist NULL): the changed rows from their first
     * difference, nothing moved, never afresh */
    int afresh = band_hist && fresh && *fresh;
    if (!afresh) {
        out->changed = out->strong = out->marker = out->differ = 0;
        for (int y = 0; y < h; y++) {
            const uint8_t *pc = cur + y * cstride, *pp = prev + y * pstride;
            const int fx = k->row_first_diff(pc, pp, (int)row);
            if (fx == (int)row) {
                if (masks) /* delta_rgb or renew_rgb writes the others' */
                    memset(masks + y * words, 0, words * sizeof(*masks));
                continue;
            }
            if (!band_hist) {
                /* nothing to decide: the row's delta at once, while its
                 * rows of cur and prev are in the nearest cache (a band of
                 * both is more than it holds) */
                delta_row(k, cur, cstride, prev, pstride, w, y, fx, tol, strong_tol, marker,
                          mtol, NULL, masks, out);
                changed_rows++;
                continue;
            }
            first[listed] = fx;
            rows[listed++] = y;
            if (changed_rows++ % 4)
                continue;
            probed++;
            /* without branches: whether a sampled pixel differs is a coin
             * toss; the sampled pixels (every eighth) before the first
             * difference are equal and add nothing */
            for (size_t x = (size_t)fx / 24 * 24; x < row; x += 24)
                differ += ((pc[x] ^ pp[x]) | (pc[x + 1] ^ pp[x + 1]) | (pc[x + 2] ^ pp[x + 2])) != 0;
        }
        out->rows = changed_rows;
        if (!changed_rows)
            return;
        /* differ / (probed * per_row) of the changed rows' pixels differ */
        const int64_t per_row = (w + 7) / 8;
        afresh = band_hist && 8 * differ * changed_rows >= 3 * per_row * probed * h;
    }
    if (band_hist)
        memcpy(old, band_hist, sizeof(old));
    if (!afresh) {
        for (int i = 0; i < listed; i++)
            delta_row(k, cur, cstride, prev, pstride, w, rows[i], first[i], tol, strong_tol,
                      marker, mtol, band_hist, masks, out);
        if (fresh)
            *fresh = 0;
    } else {
        const int64_t mk = marker ? k->count_color(cur, cstride, w, h, marker, mtol) -
                                        k->count_color(prev, pstride, w, h, marker, mtol)
                                  : 0;
        memset(band_hist, 0, SETTLE_HIST_BINS * sizeof(*band_hist));
        k->renew_rgb(cur, cstride, prev, pstride, w, h, tol, strong_tol, band_hist, masks, out);
        out->marker = mk;
        /* still mostly changed: counted afresh again next time, unlooked */
        if (fresh)
            *fresh = 8 * out->differ >= 3 * (int64_t)w * h;
    }
    for (int i = 0; i < SETTLE_HIST_BINS && band_hist; i++)
        hist[i] += band_hist[i] - old[i];
}

void settle_sum_rows(const uint8_t *p, ptrdiff_t stride, int n, int rows, uint16_t *sums)
{
    /* the first row sets the sums, so that they need no clearing; then two
     * rows at a time, which halves the loads and stores of the sums */
    for (int i = 0; i < n; i++)
        sums[i] = p[i];
    int r = 1;
    for (; r + 1 < rows; r += 2) {
        const uint8_t *r0 = p + r * stride, *r1 = r0 + stride;
        for (int i = 0; i < n; i++)
            sums[i] = (uint16_t)(sums[i] + r0[i] + r1[i]);
    }
    if (r < rows) {
        const uint8_t *row = p + r * stride;
        for (int i = 0; i < n; i++)
            sums[i] = (uint16_t)(sums[i] + row[i]);
    }
}

void settle_reduce_plane(uint8_t *dst, ptrdiff_t dstride, const uint8_t *src, ptrdiff_t sstride,
                         int dw, int dh, int f)
{
    const int half = f * f / 2, shift = f == 1 ? 0 : f == 2 ? 2 : f == 4 ? 4 : 6;
    for (int y = 0; y < dh; y++) {
        const uint8_t *s = src + (ptrdiff_t)y * f * sstride;
        uint8_t *d = dst + (ptrdiff_t)y * dstride;
        for (int x = 0; x < dw; x++) {
            unsigned sum = 0;
            for (int r = 0; r < f; r++)
                for (int i = 0; i < f; i++)
                    sum += s[(ptrdiff_t)r * sstride + x * f + i];
            d[x] = (uint8_t)((sum + (unsigned)half) >> shift);
        }
    }
}

int settle_count_row_changed(const uint8_t *a, const uint8_t *b, int n, int tol, int *first,
                             int *last)
{
    int count = 0, lo = n, hi = -1;
    for (int i = 0; i < n; i++) {
        const int d = a[i] > b[i] ? a[i] - b[i] : b[i] - a[i];
        if (d > tol) {
            count++;
            lo = i < lo ? i : lo;
            hi = i;
        }
    }
    *first = lo;
    *last = hi;
    return count;
}

static inline int mulhrs(int a, int b)
{
    return (a * b + (1 << 14)) >> 15;
}

void settle_yuv_coef(SettleYuvCoef *k, double kr, double kb, int full)
{
    const double kg = 1 - kr - kb;
    const double ys = full ? 1 : 255.0 / 219, cs = full ? 1 : 255.0 / 224;
    k->y_off = full ? 0 : 16;
    k->cy = (int16_t)lrint(ys * 16384);
    k->crv = (int16_t)lrint(2 * (1 - kr) * cs * 8192);
    k->cgu = (int16_t)lrint(-2 * kb * (1 - kb) / kg * cs * 8192);
    k->cgv = (int16_t)lrint(-2 * kr * (1 - kr) / kg * cs * 8192);
    k->cbu = (int16_t)lrint(2 * (1 - kb) * cs * 8192);
    for (int i = 0; i < 256; i++) {
        k->ty[i] = (int16_t)(mulhrs((i - k->y_off) * 128, k->cy) + 32);
        k->tr[i] = (int16_t)mulhrs((i - 128) * 256, k->crv);
        k->tgu[i] = (int16_t)mulhrs((i - 128) * 256, k->cgu);
        k->tgv[i] = (int16_t)mulhrs((i - 128) * 256, k->cgv);
        k->tb[i] = (int16_t)mulhrs((i - 128) * 256, k->cbu);
    }
    for (int i = 0; i < 1536; i++)
        k->clip[i] = (uint8_t)(i < 512 ? 0 : i > 767 ? 255 : i - 512);
}

/* A sum of the terms to a level, by the clipping table (no branch). The sums
 * that sat() would saturate (above 32767) are far above 255 << 6 and clip to
 * 255 anyway, and none is below -32768 (the luma term is at least -1,200, a
 * chroma term above -17,600): sum >> 6 is within -300 .. 560. */
#define TO_U8(clip, x) ((clip)[((x) >> 6) + 512])

void settle_yuv420_rgb(uint8_t *dst, ptrdiff_t dstride, const uint8_t *y, ptrdiff_t ystride,
                       const uint8_t *u, ptrdiff_t ustride, const uint8_t *v, ptrdiff_t vstride,
                       int w, int h, const SettleYuvCoef *k)
{
    const int16_t *ty = k->ty, *tr = k->tr, *tgu = k->tgu, *tgv = k->tgv, *tb = k->tb;
    const uint8_t *clip = k->clip;
    for (int r = 0; r < h; r++) {
        const uint8_t *py = y + r * ystride;
        const uint8_t *pu = u + (r >> 1) * ustride, *pv = v + (r >> 1) * vstride;
        uint8_t *out = dst + r * dstride;
        for (int x = 0; x < w; x += 2) {
            /* a chroma sample's terms serve two pixels */
            const int cr = tr[pv[x >> 1]], cg = tgu[pu[x >> 1]] + tgv[pv[x >> 1]];
            const int cb = tb[pu[x >> 1]];
            for (int i = x; i < x + 2 && i < w; i++) {
                const int yy = ty[py[i]];
                out[3 * i] = TO_U8(clip, yy + cr);
                out[3 * i + 1] = TO_U8(clip, yy + cg);
                out[3 * i + 2] = TO_U8(clip, yy + cb);
            }
        }
    }
}

void settle_change_masks(const uint8_t *a, const uint8_t *b, int w, int tol, int strong_tol,
                         uint64_t *masks)
{
    for (int x0 = 0; x0 < w; x0 += 16) {
        int n = w - x0 < 16 ? w - x0 : 16;
        uint64_t m = 0;
        for (int i = 0; i < n; i++) {
            const uint8_t *p = a + 3 * (x0 + i), *q = b + 3 * (x0 + i);
            int d = abs(p[0] - q[0]), d1 = abs(p[1] - q[1]), d2 = abs(p[2] - q[2]);
            d = d1 > d ? d1 : d;
            d = d2 > d ? d2 : d;
            m |= (uint64_t)(d > tol) << (3 * i) | (uint64_t)(d > strong_tol) << (3 * i + 1);
        }
        masks[x0 / 16] = m;
    }
}

void settle_box_means(const uint32_t *acc, const int *x0, int n, int rows, uint8_t *out)
{
    for (int x = 0; x < n; x++) {
        int xa = x0[x], xb = x0[x + 1] > xa ? x0[x + 1] : xa + 1;
        uint64_t sum[3] = { 0, 0, 0 };
        for (const uint32_t *p = acc + (size_t)xa * 3, *e = acc + (size_t)xb * 3; p < e; p += 3) {
            sum[0] += p[0];
            sum[1] += p[1];
            sum[2] += p[2];
        }
        /* the rounded mean (sum + area / 2) / area in doubles, exact: both
         * below 2^53 and the quotient below 256, so the rounding never
         * reaches the next integer; a third of a 64-bit division */
        uint64_t area = (uint64_t)rows * (uint64_t)(xb - xa);
        double a = (double)area;
        for (int k = 0; k < 3; k++)
            out[3 * x + k] = (uint8_t)((double)(sum[k] + area / 2) / a);
    }
}

void settle_block_means(const uint16_t *sums, int n, int bs, float inv, float *out)
{
    for (int i = 0; i < n; i++, sums += 3 * bs)
        for (int c = 0; c < 3; c++) {
            uint32_t sum = 0;
            for (int k = 0; k < bs; k++)
                sum += sums[3 * k + c];
            out[3 * i + c] = (float)sum * inv;
        }
}

void settle_fit_sums(const float *ref, const float *cur, int n, const double *a,
                     const double *o, const double *lim, double s[5][3])
{
    for (int c = 0; c < 3; c++) {
        double sx = 0, sy = 0, sxx = 0, sxy = 0, m = 0;
        for (int k = 0; k < n; k++) {
            double x = ref[3 * k + c], y = cur[3 * k + c];
            if (lim && fabs(y - (a[c] * x + o[c])) > lim[c])
                continue;
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
            m++;
        }
        s[0][c] = sx;
        s[1][c] = sy;
        s[2][c] = sxx;
        s[3][c] = sxy;
        s[4][c] = m;
    }
}

void settle_block_errors(const float *ref, const float *cur, int n, const double *a,
                         const double *o, float *err, float *ch)
{
    for (int i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) {
            const float e = cur[3 * i + c] - (float)(a[c] * ref[3 * i + c] + o[c]);
            if (ch)
                ch[c * n + i] = e;
            if (err)
                err[3 * i + c] = e;
        }
}

void settle_block_levels(const float *ref, int n, uint8_t *lvl)
{
    for (int k = 0; k < n; k++) {
        const float *r = ref + 3 * k;
        const int l = (int)((r[0] + 2 * r[1] + r[2]) / 4 / 32.0);
        lvl[k] = (uint8_t)(l < 0 ? 0 : l > 7 ? 7 : l);
    }
}

void settle_block_residuals(const float *err, int n, int bins, float *res, uint16_t *bin)
{
    for (int k = 0; k < n; k++) {
        float m = fabsf(err[3 * k]);
        m = fabsf(err[3 * k + 1]) > m ? fabsf(err[3 * k + 1]) : m;
        m = fabsf(err[3 * k + 2]) > m ? fabsf(err[3 * k + 2]) : m;
        const int i = (int)(m * 8);
        res[k] = m;
        bin[k] = (uint16_t)(i < 0 ? 0 : i >= bins ? bins - 1 : i);
    }
}

double settle_block_shares(const float *res, const uint8_t *lvl, const double *thr, int n,
                           float low, float *ratio, int counts[3])
{
    double peak = 0;
    int below = 0, in = 0, over = 0;
    for (int k = 0; k < n; k++) {
        const float r = (float)(res[k] / thr[lvl[k]]);
        ratio[k] = r;
        below += r <= low;
        in += r <= 1.0f;
        over += r > 1.0f;
        peak = r > peak ? r : peak;
    }
    counts[0] = below;
    counts[1] = in;
    counts[2] = over;
    return peak;
}

/* A float as a signed key in the float order (-0 before +0), and back. */
static inline int32_t float_key(float f)
{
    int32_t i;
    memcpy(&i, &f, sizeof(i));
    return i < 0 ? i ^ 0x7fffffff : i;
}

static inline float key_float(int32_t i)
{
    i = i < 0 ? i ^ 0x7fffffff : i;
    float f;
    memcpy(&f, &i, sizeof(f));
    return f;
}

/* Each pass writes the keys below the pivot over the array and those above
 * it to the other one, both at every key with its count moved by the
 * comparison; the keys equal to it are dropped, and when the k-th is among
 * them it is the pivot. */
int settle_select_part(const float *v, int32_t *keys, int n, int k, float *out)
{
    int32_t *cur = keys, *other = keys + n + 8;
    for (int i = 0; i < n; i++)
        cur[i] = float_key(v[i]);
    for (int pass = 0; pass < SETTLE_SELECT_PASSES; pass++) {
        const int32_t p = settle_select_pivot(cur, n);
        int below = 0, above = 0;
        for (int i = 0; i < n; i++) {
            const int32_t x = cur[i];
            cur[below] = x;
            below += x < p;
            other[above] = x;
            above += x > p;
        }
        if (settle_select_narrow(&cur, &other, &n, &k, below, above)) {
            *out = key_float(p);
            return 0;
        }
    }
    return -1;
}

void settle_kernels_init(SettleKernels *k, unsigned flags)
{
    k->count_changed = settle_count_changed;
    k->histogram_rgb = settle_histogram_rgb;
    k->count_color = settle_count_color;
    k->delta_rgb = settle_delta_rgb;
    k->renew_rgb = settle_renew_rgb;
    k->sum_rows = settle_sum_rows;
    k->change_masks = settle_change_masks;
    k->yuv420_rgb = settle_yuv420_rgb;
    k->reduce_plane = settle_reduce_plane;
    k->count_row_changed = settle_count_row_changed;
    k->row_first_diff = settle_row_first_diff;
    k->copy_stream = settle_copy_stream;
    k->evict = settle_evict;
    k->fit_sums = settle_fit_sums;
    k->box_means = settle_box_means;
    k->select_part = settle_select_part;
    k->block_errors = settle_block_errors;
    k->block_levels = settle_block_levels;
    k->block_residuals = settle_block_residuals;
    k->block_shares = settle_block_shares;
    k->block_means = settle_block_means;
#if SETTLE_X86
    if (flags & SETTLE_CPU_SSE2) {
        k->count_changed = settle_count_changed_sse2;
        k->histogram_rgb = settle_histogram_rgb_x4;
        k->count_color = settle_count_color_sse2;
        k->delta_rgb = settle_delta_rgb_sse2;
        k->renew_rgb = settle_renew_rgb_sse2;
        k->sum_rows = settle_sum_rows_sse2;
        k->change_masks = settle_change_masks_sse2;
        k->reduce_plane = settle_reduce_plane_sse2;
        k->count_row_changed = settle_count_row_changed_sse2;
        k->row_first_diff = settle_row_first_diff_sse2;
        k->copy_stream = settle_copy_stream_sse2;
        k->box_means = settle_box_means_sse2;
        k->block_means = settle_block_means_sse2;
    }
    if (flags & SETTLE_CPU_CLFLUSHOPT)
        k->evict = settle_evict_clflushopt;
    if (flags & SETTLE_CPU_SSSE3)
        k->yuv420_rgb = settle_yuv420_rgb_ssse3;
    if (flags & SETTLE_CPU_AVX2) {
        k->count_changed = settle_count_changed_avx2;
        k->count_color = settle_count_color_avx2;
        k->delta_rgb = settle_delta_rgb_avx2;
        k->renew_rgb = settle_renew_rgb_avx2;
        k->sum_rows = settle_sum_rows_avx2;
        k->change_masks = settle_change_masks_avx2;
        k->yuv420_rgb = settle_yuv420_rgb_avx2;
        k->reduce_plane = settle_reduce_plane_avx2;
        k->fit_sums = settle_fit_sums_avx2;
        k->row_first_diff = settle_row_first_diff_avx2;
        k->count_row_changed = settle_count_row_changed_avx2;
        k->select_part = settle_select_part_avx2;
        k->block_errors = settle_block_errors_avx2;
        k->block_levels = settle_block_levels_avx2;
        k->block_residuals = settle_block_residuals_avx2;
        k->block_shares = settle_block_shares_avx2;
    }
#if SETTLE_AVX512
    if (flags & SETTLE_CPU_AVX512) {
        k->reduce_plane = settle_reduce_plane_avx512;
        k->count_row_changed = settle_count_row_changed_avx512;
        k->yuv420_rgb = settle_yuv420_rgb_avx512;
    }
#endif
#else
    (void)flags;
#endif
}
