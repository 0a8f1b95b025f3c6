/* SPDX-License-Identifier: BSD-2-Clause */
/* Per-pixel kernels on packed RGB24 pictures. Pure functions, no state.
 * The functions below are the scalar reference; SettleKernels holds the
 * fastest versions this CPU runs (src/x86/), which give the same answers. */
#ifndef SETTLE_KERNELS_H
#define SETTLE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#define SETTLE_HIST_BINS 768
/* The most rows settle_update_band takes as a band. */
#define SETTLE_BAND_MAX 64

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

/* What changed from prev to cur, and prev made equal to cur. */
typedef struct SettleDelta {
    int64_t changed;       /* pixels whose largest channel difference exceeds tol */
    int64_t strong;        /* ... exceeds strong_tol */
    int64_t marker;        /* change in the count of pixels within mtol of the marker */
    int64_t rows;          /* rows in which any byte differed */
    int64_t differ;        /* pixels in which any byte differed (renew_rgb only) */
} SettleDelta;

/* One pass over two pictures that skips unchanged rows and pixels: counts the
 * changed pixels, moves each changed pixel's values in hist from its old
 * values to its new ones (so hist stays the histogram of the picture), keeps
 * the marker count, and copies the changed pixels into prev. marker may be
 * NULL; so may hist, which then moves nothing (the counts, masks and copy
 * are the same). The scalar reference is settle_count_changed +
 * settle_histogram_rgb + settle_count_color over the whole pictures. masks
 * (NULL: none) receives each row's change, (w + 15) / 16 words a row, the rows one after the other:
 * for tol and strong_tol from 0 to 255, settle_change_masks of the row. */
void settle_delta_rgb(const uint8_t *cur, ptrdiff_t cstride, uint8_t *prev, ptrdiff_t pstride,
                      int w, int h, int tol, int strong_tol, const uint8_t *marker, int mtol,
                      uint32_t hist[SETTLE_HIST_BINS], uint64_t *masks, SettleDelta *out);

/* A band counted afresh, in one pass: settle_count_changed of cur against
 * prev (out->changed, out->strong), the rows and the pixels in which any byte
 * differs (out->rows, out->differ; out->marker is 0), each row's change masks
 * as settle_delta_rgb's (masks NULL: none), then cur's values added to hist
 * (settle_histogram_rgb) and cur copied into prev. */
void settle_renew_rgb(const uint8_t *cur, ptrdiff_t cstride, uint8_t *prev, ptrdiff_t pstride,
                      int w, int h, int tol, int strong_tol, uint32_t hist[SETTLE_HIST_BINS],
                      uint64_t *masks, SettleDelta *out);

/* Counts the pixels whose R, G and B are each within tol of rgb. */
int64_t settle_count_color(const uint8_t *p, ptrdiff_t stride, int w, int h,
                           const uint8_t rgb[3], int tol);

/* sums[i] = the sum of p[r * stride + i] over the rows r = 0 .. rows - 1
 * (rows >= 1), modulo 65536, for i = 0 .. n - 1: the column sums of one row
 * of boxes when a picture is scaled down. */
void settle_sum_rows(const uint8_t *p, ptrdiff_t stride, int n, int rows, uint16_t *sums);

/* One row of a thumbnail from its band's column sums: acc holds a band of
 * `rows` picture rows summed column by column (RGB24, 3 values a column, each
 * at most 255 * rows); for x = 0 .. n - 1 the box of columns
 * [x0[x], max(x0[x + 1], x0[x] + 1)) gives out[3 x + c] = the rounded mean
 * (sum + area / 2) / area of channel c, area = rows * the box's columns.
 * acc is read up to one value past the last box's (3 * its end + 1 values);
 * that value is not used. */
void settle_box_means(const uint32_t *acc, const int *x0, int n, int rows, uint8_t *out);
/* The sums of a least-squares fit of cur = a * ref + o for each of the three
 * channels of n blocks (three floats each, R G B): with x = ref[3k + c] and
 * y = cur[3k + c] in doubles, s[0][c] sums x, s[1][c] y, s[2][c] x * x,
 * s[3][c] x * y and s[4][c] counts the blocks summed (as a double), each sum
 * taken in the order of k from +0.0. lim NULL: every block; else only the
 * blocks where |y - (a[c] * x + o[c])| > lim[c] does not hold. The faster
 * versions give the same doubles, to the bit. */
void settle_fit_sums(const float *ref, const float *cur, int n, const double *a,
                     const double *o, const double *lim, double s[5][3]);

/* The block test's errors of n blocks (three floats each, R G B) after a
 * gain and offset a channel: err[3k + c] = ch[c * n + k] = cur[3k + c] -
 * (float)(a[c] * ref[3k + c] + o[c]), the product and sum in doubles; err
 * NULL: ch only; ch NULL: err only. */
void settle_block_errors(const float *ref, const float *cur, int n, const double *a,
                         const double *o, float *err, float *ch);

/* The block test's brightness levels of n blocks (three floats each, R G B):
 * lvl[k] = (int)(((r + 2 * g) + b) / 4 / 32.0), the sum and the quarter in
 * floats, the last division in doubles, clamped to 0 .. 7 (a value under 0,
 * NaN or past int's range: 0). */
void settle_block_levels(const float *ref, int n, uint8_t *lvl);

/* The block test's residuals of n blocks from their errors (three floats
 * each): res[k] = the largest of |err[3k]|, |err[3k + 1]|, |err[3k + 2]| (a
 * NaN counts in the first channel only: m = |e0|, then |e| > m ? |e| : m),
 * and bin[k] = (int)(res[k] * 8) (the product in floats) clamped to
 * 0 .. bins - 1 (NaN or past int's range: 0). */
void settle_block_residuals(const float *err, int n, int bins, float *res, uint16_t *bin);

/* The block test's shares of n blocks: ratio[k] = (float)(res[k] /
 * thr[lvl[k]]), the division in doubles; counts[0] the shares at most low,
 * counts[1] those at most 1, counts[2] those over 1. Returns the largest
 * share (the first of a tie; NaN never; 0 when none is over 0). */
double settle_block_shares(const float *res, const uint8_t *lvl, const double *thr, int n,
                           float low, float *ratio, int counts[3]);

/* The block test's means of n whole blocks of bs columns (1 to 16) from
 * their row's column sums (settle_sum_rows' of RGB24 rows: 3 sums a
 * column, each block's sum of a channel under 65536): out[3i + c] =
 * (float)(the sum of sums[3 (bs i + k) + c] for k = 0 .. bs - 1) * inv, the
 * sum exact and the product in floats. Reads 3 bs n sums. */
void settle_block_means(const uint16_t *sums, int n, int bs, float inv, float *out);

/* The most passes settle_select_part makes before it gives up. */
#define SETTLE_SELECT_PASSES 64

/* The k-th smallest (0 <= k < n) of v[0..n), which holds no NaN, in the
 * order that puts -0 before +0 (a sort's on the floats' bits as keys:
 * settle_select_k's for more than 32), in *out; v is not written, keys
 * (2 * (n + 8) of them) is scratch. By partitions of the keys around the
 * median of three, without a branch a key. Returns 0, or -1 (*out not set)
 * after SETTLE_SELECT_PASSES passes without the k-th (pivots that split
 * badly pass after pass: the caller selects otherwise). */
int settle_select_part(const float *v, int32_t *keys, int n, int k, float *out);

/* settle_select_part's pivot: the median of the keys first, in the middle
 * and last of the n in cur. */
static inline int32_t settle_select_pivot(const int32_t *cur, int n)
{
    const int32_t a = cur[0], b = cur[n / 2], c = cur[n - 1];
    const int32_t lo = a < b ? a : b, hi = a < b ? b : a, mid = hi < c ? hi : c;
    return lo > mid ? lo : mid;
}

/* After a pass of settle_select_part (below keys under the pivot at the
 * start of *cur, above keys over it at the start of *other): the k-th of
 * the *n keys is the pivot (returns 1), or the search goes on among the
 * keys below it or, with k, n and the two arrays changed, those above it
 * (returns 0). */
static inline int settle_select_narrow(int32_t **cur, int32_t **other, int *n, int *k, int below,
                                       int above)
{
    if (*k < below) {
        *n = below;
        return 0;
    }
    if (*k >= *n - above) {
        *k -= *n - above;
        *n = above;
        int32_t *t = *cur;
        *cur = *other;
        *other = t;
        return 0;
    }
    return 1;
}

/* The conversion of 8-bit Y'CbCr to RGB, as 16-bit fixed point: settle's
 * own, so that its RGB is the same on every CPU and FFmpeg version. */
typedef struct SettleYuvCoef {
    int16_t y_off;              /* 16 (limited range) or 0 (full range) */
    int16_t cy;                 /* luma gain x 2^14 */
    int16_t crv, cgu, cgv, cbu; /* chroma gains x 2^13 */
    /* the terms below for every 8-bit value, for the scalar code */
    int16_t ty[256], tr[256], tgu[256], tgv[256], tb[256];
    uint8_t clip[1536]; /* clip255(i - 512) */
} SettleYuvCoef;

/* The coefficients of the matrix with luma weights kr and kb (BT.601: 0.299,
 * 0.114; BT.709: 0.2126, 0.0722), limited (16-235, 16-240) or full range. */
void settle_yuv_coef(SettleYuvCoef *k, double kr, double kb, int full);

/* 4:2:0 planes to packed RGB24, w x h pixels from the top of a band whose
 * first row is even (chroma row y / 2 of the band serves luma rows y). Each
 * chroma sample serves its 2 x 2 luma samples. In 16-bit fixed point, with
 * mulhrs(a, b) = (a * b + 2^14) >> 15 and sat() saturating to 16 bits:
 *   Y' = mulhrs((Y - y_off) << 7, cy) + 32, U' = (U - 128) << 8, V' = (V - 128) << 8
 *   R = clip255(sat(Y' + mulhrs(V', crv)) >> 6)
 *   G = clip255(sat(Y' + (mulhrs(U', cgu) + mulhrs(V', cgv))) >> 6)
 *   B = clip255(sat(Y' + mulhrs(U', cbu)) >> 6)
 * (the 32 rounds; only sums far above 255 << 6 saturate), within one level
 * of the exact conversion, rounded. */
void settle_yuv420_rgb(uint8_t *dst, ptrdiff_t dstride, const uint8_t *y, ptrdiff_t ystride,
                       const uint8_t *u, ptrdiff_t ustride, const uint8_t *v, ptrdiff_t vstride,
                       int w, int h, const SettleYuvCoef *k);

/* The last n pixels of h rows (at most 2, a pair) after a vector kernel's
 * last step: an odd width leaves one, whose chroma sample is its own,
 * converted here by the reference's tables and arithmetic (the same bytes)
 * without a call a row pair; any other n by the reference. */
static inline void settle_yuv420_tail(uint8_t *dst, ptrdiff_t dstride, const uint8_t *y,
                                      ptrdiff_t ystride, const uint8_t *u, ptrdiff_t ustride,
                                      const uint8_t *v, ptrdiff_t vstride, int n, int h,
                                      const SettleYuvCoef *k)
{
    if (n != 1 || h > 2) {
        settle_yuv420_rgb(dst, dstride, y, ystride, u, ustride, v, vstride, n, h, k);
        return;
    }
    const int cr = k->tr[*v], cg = k->tgu[*u] + k->tgv[*v], cb = k->tb[*u];
    for (int r = 0; r < h; r++) {
        const int yy = k->ty[y[r * ystride]];
        uint8_t *out = dst + r * dstride;
        out[0] = k->clip[((yy + cr) >> 6) + 512];
        out[1] = k->clip[((yy + cg) >> 6) + 512];
        out[2] = k->clip[((yy + cb) >> 6) + 512];
    }
}

/* A plane reduced by f x f boxes (f = 1, 2, 4 or 8): dst[y][x] = the mean of
 * src's f x f samples from (f x, f y), rounded half up ((sum + f * f / 2) /
 * (f * f)), for dw x dh samples of dst. f = 1 copies. Reads f * dh rows of
 * f * dw samples. */
void settle_reduce_plane(uint8_t *dst, ptrdiff_t dstride, const uint8_t *src, ptrdiff_t sstride,
                         int dw, int dh, int f);

/* How many of the n samples of rows a and b differ by more than tol, and the
 * first and last such sample's index (*first = n, *last = -1 when none). */
int settle_count_row_changed(const uint8_t *a, const uint8_t *b, int n, int tol, int *first,
                             int *last);

/* The index of the first byte in which rows a and b (n bytes) differ, n when
 * they are equal (memcmp, with the place). */
int settle_row_first_diff(const uint8_t *a, const uint8_t *b, int n);

/* n bytes from src to dst (not overlapping), as memcpy, for a copy that is
 * seldom read again soon: the vector versions write past the caches
 * (non-temporal stores, fenced before they return), so that the copy neither
 * reads dst's lines first nor evicts what the caches hold. */
void settle_copy_stream(uint8_t *dst, const uint8_t *src, size_t n);

/* Writes the cache lines holding the n bytes from p back to memory and
 * drops them from every cache; their values stay as they are. For a picture
 * settle has read for the last time, whose buffer the decoder takes back and
 * writes its next pictures into on another core: each line left in this
 * core's caches would make those writes wait for it to be fetched back
 * (src/decode.c, evict_rows). The scalar reference does nothing: it is a
 * matter of speed alone. */
void settle_evict(const void *p, size_t n);

/* Where one row changed, 16 pixels a word: for i = 0 .. w - 1, bit 3 * (i % 16)
 * of masks[i / 16] is set when pixel i's largest per-channel difference
 * between rows a and b (RGB24) exceeds tol (the rule of
 * settle_count_changed), bit 3 * (i % 16) + 1 when it exceeds strong_tol (a
 * strong change: how much a place changed, which tells content from an
 * encoder re-coding it); every other bit is 0. (w + 15) / 16 words. */
void settle_change_masks(const uint8_t *a, const uint8_t *b, int w, int tol, int strong_tol,
                         uint64_t *masks);

/* Instruction sets the kernels may use. */
enum {
    SETTLE_CPU_SSE2 = 1 << 0,
    SETTLE_CPU_SSSE3 = 1 << 1,
    SETTLE_CPU_AVX2 = 1 << 2, /* with POPCNT */
    SETTLE_CPU_AVX512 = 1 << 3, /* F and BW */
    SETTLE_CPU_CLFLUSHOPT = 1 << 4,
};

/* The instruction sets of this CPU that settle has kernels for, limited by
 * the environment variable SETTLE_CPU: "scalar" (none), "sse2", "ssse3", "avx2",
 * "avx512" (every one up to it, and CLFLUSHOPT); any other value or none: no
 * limit. */
unsigned settle_cpu_flags(void);

/* The kernels that may differ by CPU, as a table: dav1d's DSP context. */
typedef struct SettleKernels {
    int64_t (*count_changed)(const uint8_t *a, ptrdiff_t astride, const uint8_t *b,
                             ptrdiff_t bstride, int w, int h, int tol, int strong_tol,
                             int64_t *strong);
    void (*histogram_rgb)(const uint8_t *p, ptrdiff_t stride, int w, int h,
                          uint32_t hist[SETTLE_HIST_BINS]);
    int64_t (*count_color)(const uint8_t *p, ptrdiff_t stride, int w, int h,
                           const uint8_t rgb[3], int tol);
    void (*delta_rgb)(const uint8_t *cur, ptrdiff_t cstride, uint8_t *prev, ptrdiff_t pstride,
                      int w, int h, int tol, int strong_tol, const uint8_t *marker, int mtol,
                      uint32_t hist[SETTLE_HIST_BINS], uint64_t *masks, SettleDelta *out);
    void (*renew_rgb)(const uint8_t *cur, ptrdiff_t cstride, uint8_t *prev, ptrdiff_t pstride,
                      int w, int h, int tol, int strong_tol, uint32_t hist[SETTLE_HIST_BINS],
                      uint64_t *masks, SettleDelta *out);
    void (*sum_rows)(const uint8_t *p, ptrdiff_t stride, int n, int rows, uint16_t *sums);
    void (*change_masks)(const uint8_t *a, const uint8_t *b, int w, int tol, int strong_tol,
                         uint64_t *masks);
    void (*yuv420_rgb)(uint8_t *dst, ptrdiff_t dstride, const uint8_t *y, ptrdiff_t ystride,
                       const uint8_t *u, ptrdiff_t ustride, const uint8_t *v, ptrdiff_t vstride,
                       int w, int h, const SettleYuvCoef *k);
    void (*reduce_plane)(uint8_t *dst, ptrdiff_t dstride, const uint8_t *src, ptrdiff_t sstride,
                         int dw, int dh, int f);
    int (*count_row_changed)(const uint8_t *a, const uint8_t *b, int n, int tol, int *first,
                             int *last);
    int (*row_first_diff)(const uint8_t *a, const uint8_t *b, int n);
    void (*copy_stream)(uint8_t *dst, const uint8_t *src, size_t n);
    void (*evict)(const void *p, size_t n);
    void (*fit_sums)(const float *ref, const float *cur, int n, const double *a,
                     const double *o, const double *lim, double s[5][3]);
    void (*box_means)(const uint32_t *acc, const int *x0, int n, int rows, uint8_t *out);
    int (*select_part)(const float *v, int32_t *keys, int n, int k, float *out);
    void (*block_errors)(const float *ref, const float *cur, int n, const double *a,
                         const double *o, float *err, float *ch);
    void (*block_levels)(const float *ref, int n, uint8_t *lvl);
    void (*block_residuals)(const float *err, int n, int bins, float *res, uint16_t *bin);
    double (*block_shares)(const float *res, const uint8_t *lvl, const double *thr, int n,
                           float low, float *ratio, int counts[3]);
    void (*block_means)(const uint16_t *sums, int n, int bs, float inv, float *out);
} SettleKernels;

/* Fills k with the scalar reference, then with the versions for each
 * instruction set in flags (settle_cpu_flags() for this CPU). */
void settle_kernels_init(SettleKernels *k, unsigned flags);

/* k->delta_rgb for one band of rows whose own histogram band_hist is
 * kept: where few pixels changed it moves the changed ones in band_hist, where
 * many did it counts and recomputes the band afresh (cheaper than moving
 * every pixel), and either way adds the band's change to hist. *fresh (NULL:
 * none) is the band's state from one picture to the next: set when the band
 * was counted afresh and most of its pixels differed, so that it is counted
 * afresh again without looking first (a camera's noise). masks (NULL: none)
 * receives every row's change masks as settle_delta_rgb's, in the same pass,
 * so that where the picture changed costs no second reading. band_hist NULL
 * (hist is then not read): no histogram is kept, the changed rows are
 * counted and copied (the same counts, masks and copy) and *fresh is only
 * cleared. */
void settle_update_band(const SettleKernels *k, const uint8_t *cur, ptrdiff_t cstride,
                        uint8_t *prev, ptrdiff_t pstride, int w, int h, int tol, int strong_tol,
                        const uint8_t *marker, int mtol,
                        uint32_t band_hist[SETTLE_HIST_BINS], uint32_t hist[SETTLE_HIST_BINS],
                        uint8_t *fresh, uint64_t *masks, SettleDelta *out);

/* Asks for the n bytes from p, a cache line at a time, to be read soon:
 * rows far apart (the camera test's every LUMA_STEP_ALL-th, src/decode.c) or
 * read after other work (the reduction's next band, the picture as measured,
 * written a picture ago and since pushed out of the nearest caches), which
 * the processor's own prefetcher does not foresee. */
static inline void settle_prefetch(const void *p, size_t n)
{
#if defined(__GNUC__) || defined(__clang__)
    for (size_t x = 0; x < n; x += 64)
        __builtin_prefetch((const uint8_t *)p + x);
#else
    (void)p;
    (void)n;
#endif
}

#endif
