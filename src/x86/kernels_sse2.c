/* SPDX-License-Identifier: BSD-2-Clause */
/* SSE2 kernels: 16 pixels (48 bytes, three vectors) at a time, the rest of a
 * row by the scalar reference (delta_rgb and renew_rgb: by a last step that
 * overlaps the one before, unless the row is shorter than a step). */
#include <emmintrin.h>
#include <immintrin.h>
#include <string.h>

#include "x86/kernels_x86.h"

/* No POPCNT instruction in SSE2. */
static inline int popcount48(uint64_t m)
{
    m = m - (m >> 1 & 0x5555555555555555ull);
    m = (m & 0x3333333333333333ull) + (m >> 2 & 0x3333333333333333ull);
    m = (m + (m >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)(m * 0x0101010101010101ull >> 56);
}

static inline uint64_t mask48(__m128i m0, __m128i m1, __m128i m2)
{
    return (uint64_t)(unsigned)_mm_movemask_epi8(m0) |
           (uint64_t)(unsigned)_mm_movemask_epi8(m1) << 16 |
           (uint64_t)(unsigned)_mm_movemask_epi8(m2) << 32;
}

static inline __m128i absdiff(__m128i a, __m128i b)
{
    return _mm_or_si128(_mm_subs_epu8(a, b), _mm_subs_epu8(b, a));
}

/* Byte flags of d > t, as 48 bits. */
static inline uint64_t over48(__m128i d0, __m128i d1, __m128i d2, __m128i t)
{
    const __m128i z = _mm_setzero_si128();
    return ~mask48(_mm_cmpeq_epi8(_mm_subs_epu8(d0, t), z), _mm_cmpeq_epi8(_mm_subs_epu8(d1, t), z),
                   _mm_cmpeq_epi8(_mm_subs_epu8(d2, t), z)) &
           SETTLE_BYTES48;
}

int64_t settle_count_changed_sse2(const uint8_t *a, ptrdiff_t astride, const uint8_t *b,
                                  ptrdiff_t bstride, int w, int h, int tol, int strong_tol,
                                  int64_t *strong)
{
    if (tol < 0 || tol > 255 || strong_tol < 0 || strong_tol > 255)
        return settle_count_changed(a, astride, b, bstride, w, h, tol, strong_tol, strong);
    const __m128i t = _mm_set1_epi8((char)tol), st = _mm_set1_epi8((char)strong_tol);
    const int body = w & ~15;
    int64_t changed = 0, big = 0;
    for (int y = 0; y < h; y++) {
        const uint8_t *pa = a + y * astride, *pb = b + y * bstride;
        for (int x = 0; x < 3 * body; x += 48) {
            const __m128i d0 = absdiff(_mm_loadu_si128((const __m128i *)(pa + x)),
                                       _mm_loadu_si128((const __m128i *)(pb + x)));
            const __m128i d1 = absdiff(_mm_loadu_si128((const __m128i *)(pa + x + 16)),
                                       _mm_loadu_si128((const __m128i *)(pb + x + 16)));
            const __m128i d2 = absdiff(_mm_loadu_si128((const __m128i *)(pa + x + 32)),
                                       _mm_loadu_si128((const __m128i *)(pb + x + 32)));
            changed += popcount48(settle_any3(over48(d0, d1, d2, t)));
            big += popcount48(settle_any3(over48(d0, d1, d2, st)));
        }
        if (body < w) {
            int64_t s;
            changed += settle_count_changed(pa + 3 * body, astride, pb + 3 * body, bstride,
                                            w - body, 1, tol, strong_tol, &s);
            big += s;
        }
    }
    if (strong)
        *strong = big;
    return changed;
}

int64_t settle_count_color_sse2(const uint8_t *p, ptrdiff_t stride, int w, int h,
                                const uint8_t rgb[3], int tol)
{
    if (tol < 0 || tol > 255)
        return settle_count_color(p, stride, w, h, rgb, tol);
    uint8_t pattern[48];
    for (int i = 0; i < 48; i++)
        pattern[i] = rgb[i % 3];
    const __m128i c0 = _mm_loadu_si128((const __m128i *)pattern);
    const __m128i c1 = _mm_loadu_si128((const __m128i *)(pattern + 16));
    const __m128i c2 = _mm_loadu_si128((const __m128i *)(pattern + 32));
    const __m128i t = _mm_set1_epi8((char)tol);
    const int body = w & ~15;
    int64_t n = 0;
    for (int y = 0; y < h; y++) {
        const uint8_t *row = p + y * stride;
        for (int x = 0; x < 3 * body; x += 48) {
            const __m128i d0 = absdiff(_mm_loadu_si128((const __m128i *)(row + x)), c0);
            const __m128i d1 = absdiff(_mm_loadu_si128((const __m128i *)(row + x + 16)), c1);
            const __m128i d2 = absdiff(_mm_loadu_si128((const __m128i *)(row + x + 32)), c2);
            n += popcount48(settle_all3(~over48(d0, d1, d2, t)));
        }
        if (body < w)
            n += settle_count_color(row + 3 * body, stride, w - body, 1, rgb, tol);
    }
    return n;
}

/* delta_rgb on the 16 pixels at pc, pp: the counts added, the histogram
 * (unless hist is NULL) and marker moved, pp made pc, the mask word
 * returned. */
static inline uint64_t delta16(const uint8_t *pc, uint8_t *pp, __m128i t, __m128i st,
                               const uint8_t *marker, int mtol, uint32_t hist[SETTLE_HIST_BINS],
                               int64_t *changed, int64_t *big, int64_t *mk)
{
    uint32_t *hr = hist, *hg = hist ? hist + 256 : NULL, *hb = hist ? hist + 512 : NULL;
    const __m128i a0 = _mm_loadu_si128((const __m128i *)pc);
    const __m128i a1 = _mm_loadu_si128((const __m128i *)(pc + 16));
    const __m128i a2 = _mm_loadu_si128((const __m128i *)(pc + 32));
    const __m128i b0 = _mm_loadu_si128((const __m128i *)pp);
    const __m128i b1 = _mm_loadu_si128((const __m128i *)(pp + 16));
    const __m128i b2 = _mm_loadu_si128((const __m128i *)(pp + 32));
    uint64_t same = mask48(_mm_cmpeq_epi8(a0, b0), _mm_cmpeq_epi8(a1, b1), _mm_cmpeq_epi8(a2, b2));
    if (same == SETTLE_BYTES48)
        return 0;
    const __m128i d0 = absdiff(a0, b0), d1 = absdiff(a1, b1), d2 = absdiff(a2, b2);
    const uint64_t over = settle_any3(over48(d0, d1, d2, t));
    const uint64_t strong = settle_any3(over48(d0, d1, d2, st));
    *changed += popcount48(over);
    *big += popcount48(strong);
    const uint64_t moved = settle_any3(~same & SETTLE_BYTES48);
    for (uint64_t m = hist ? moved : 0; m; m &= m - 1) {
        const int i = __builtin_ctzll(m);
        hr[pp[i]]--, hg[pp[i + 1]]--, hb[pp[i + 2]]--;
        hr[pc[i]]++, hg[pc[i + 1]]++, hb[pc[i + 2]]++;
        if (marker)
            *mk += settle_near_color(pc + i, marker, mtol) - settle_near_color(pp + i, marker, mtol);
    }
    for (uint64_t m = !hist && marker ? moved : 0; m; m &= m - 1) {
        const int i = __builtin_ctzll(m);
        *mk += settle_near_color(pc + i, marker, mtol) - settle_near_color(pp + i, marker, mtol);
    }
    _mm_storeu_si128((__m128i *)pp, a0);
    _mm_storeu_si128((__m128i *)(pp + 16), a1);
    _mm_storeu_si128((__m128i *)(pp + 32), a2);
    return over | strong << 1;
}

void settle_delta_rgb_sse2(const uint8_t *cur, ptrdiff_t cstride, uint8_t *prev,
                           ptrdiff_t pstride, int w, int h, int tol, int strong_tol,
                           const uint8_t *marker, int mtol, uint32_t hist[SETTLE_HIST_BINS],
                           uint64_t *masks, SettleDelta *out)
{
    if (tol < 0 || tol > 255 || strong_tol < 0 || strong_tol > 255) {
        settle_delta_rgb(cur, cstride, prev, pstride, w, h, tol, strong_tol, marker, mtol, hist,
                         masks, out);
        return;
    }
    const __m128i t = _mm_set1_epi8((char)tol), st = _mm_set1_epi8((char)strong_tol);
    const int body = w & ~15;
    const size_t words = ((size_t)w + 15) / 16;
    int64_t changed = 0, big = 0, mk = 0, rows = 0;
    for (int y = 0; y < h; y++) {
        const uint8_t *pc = cur + y * cstride;
        uint8_t *pp = prev + y * pstride;
        uint64_t *mrow = masks ? masks + y * words : NULL;
        if (!memcmp(pc, pp, (size_t)w * 3)) {
            if (mrow)
                memset(mrow, 0, words * sizeof(*mrow));
            continue;
        }
        rows++;
        for (int x = 0; x < body; x += 16) {
            const uint64_t m = delta16(pc + 3 * x, pp + 3 * x, t, st, marker, mtol, hist,
                                       &changed, &big, &mk);
            if (mrow)
                mrow[x / 16] = m;
        }
        if (body < w && body) {
            /* The row's last 16 pixels, overlapping the body: its pixels
             * there are equal in pc and pp by now (pp was made pc above), so
             * they move nothing, count nothing and set no bit; the tail's
             * are taken as the reference takes them. */
            const uint64_t m = delta16(pc + 3 * (w - 16), pp + 3 * (w - 16), t, st, marker, mtol,
                                       hist, &changed, &big, &mk);
            if (mrow)
                mrow[body / 16] = m >> 3 * (16 - (w - body));
        } else if (body < w) {
            SettleDelta d;
            settle_delta_rgb(pc + 3 * body, cstride, pp + 3 * body, pstride, w - body, 1, tol,
                             strong_tol, marker, mtol, hist, mrow ? mrow + body / 16 : NULL, &d);
            changed += d.changed;
            big += d.strong;
            mk += d.marker;
        }
    }
    out->changed = changed;
    out->strong = big;
    out->marker = mk;
    out->rows = rows;
}

/* hist takes the first of the four parts. */
void settle_histogram_rgb_x4(const uint8_t *p, ptrdiff_t stride, int w, int h,
                             uint32_t hist[SETTLE_HIST_BINS])
{
    uint32_t more[3][SETTLE_HIST_BINS];
    memset(more, 0, sizeof(more));
    uint32_t *const part[4] = { hist, more[0], more[1], more[2] };
    for (int y = 0; y < h; y++)
        settle_histogram_row_x4(p + y * stride, w, part);
    settle_sum_parts_x4(part);
}

/* renew_rgb's counts on the 16 pixels at pc, pp (added to acc, the
 * differing pixels to *n), pp made pc, the mask word returned. */
static inline uint64_t renew16(const uint8_t *pc, uint8_t *pp, __m128i t, __m128i st,
                               SettleDelta *acc, int64_t *n)
{
    const __m128i a0 = _mm_loadu_si128((const __m128i *)pc);
    const __m128i a1 = _mm_loadu_si128((const __m128i *)(pc + 16));
    const __m128i a2 = _mm_loadu_si128((const __m128i *)(pc + 32));
    const __m128i d0 = absdiff(a0, _mm_loadu_si128((const __m128i *)pp));
    const __m128i d1 = absdiff(a1, _mm_loadu_si128((const __m128i *)(pp + 16)));
    const __m128i d2 = absdiff(a2, _mm_loadu_si128((const __m128i *)(pp + 32)));
    const uint64_t over = settle_any3(over48(d0, d1, d2, t));
    const uint64_t strong = settle_any3(over48(d0, d1, d2, st));
    acc->changed += popcount48(over);
    acc->strong += popcount48(strong);
    *n += popcount48(settle_any3(over48(d0, d1, d2, _mm_setzero_si128())));
    _mm_storeu_si128((__m128i *)pp, a0);
    _mm_storeu_si128((__m128i *)(pp + 16), a1);
    _mm_storeu_si128((__m128i *)(pp + 32), a2);
    return over | strong << 1;
}

/* Row by row, the row's pixels in the L1 cache for all three: counted (as
 * settle_count_changed_sse2), copied into prev, then histogrammed. */
void settle_renew_rgb_sse2(const uint8_t *cur, ptrdiff_t cstride, uint8_t *prev,
                           ptrdiff_t pstride, int w, int h, int tol, int strong_tol,
                           uint32_t hist[SETTLE_HIST_BINS], uint64_t *masks, SettleDelta *out)
{
    if (tol < 0 || tol > 255 || strong_tol < 0 || strong_tol > 255) {
        settle_renew_rgb(cur, cstride, prev, pstride, w, h, tol, strong_tol, hist, masks, out);
        return;
    }
    const __m128i t = _mm_set1_epi8((char)tol), st = _mm_set1_epi8((char)strong_tol);
    const int body = w & ~15;
    const size_t words = ((size_t)w + 15) / 16;
    uint32_t more[3][SETTLE_HIST_BINS];
    memset(more, 0, sizeof(more));
    uint32_t *const part[4] = { hist, more[0], more[1], more[2] };
    SettleDelta acc = { 0 };
    for (int y = 0; y < h; y++) {
        const uint8_t *pc = cur + y * cstride;
        uint8_t *pp = prev + y * pstride;
        uint64_t *mrow = masks ? masks + y * words : NULL;
        int64_t n = 0;
        for (int x = 0; x < body; x += 16) {
            const uint64_t m = renew16(pc + 3 * x, pp + 3 * x, t, st, &acc, &n);
            if (mrow)
                mrow[x / 16] = m;
        }
        int done = body;
        if (body < w && body) {
            /* The row's last 16 pixels, overlapping the body, whose pixels
             * there are equal in pc and pp by now (pp was made pc above): they
             * count nothing and set no bit. */
            const uint64_t m = renew16(pc + 3 * (w - 16), pp + 3 * (w - 16), t, st, &acc, &n);
            if (mrow)
                mrow[body / 16] = m >> 3 * (16 - (w - body));
            done = w;
        }
        settle_renew_row_end(pc, cstride, pp, pstride, w, done, tol, strong_tol, part, n, mrow,
                             &acc);
    }
    settle_sum_parts_x4(part);
    *out = acc;
}

/* 16 columns at a time, then 8, the sums in registers down all the rows. */
void settle_sum_rows_sse2(const uint8_t *p, ptrdiff_t stride, int n, int rows, uint16_t *sums)
{
    const __m128i z = _mm_setzero_si128();
    const int body = n & ~15;
    for (int i = 0; i < body; i += 16) {
        __m128i lo = z, hi = z;
        const uint8_t *q = p + i;
        for (int r = 0; r < rows; r++, q += stride) {
            const __m128i b = _mm_loadu_si128((const __m128i *)q);
            lo = _mm_add_epi16(lo, _mm_unpacklo_epi8(b, z));
            hi = _mm_add_epi16(hi, _mm_unpackhi_epi8(b, z));
        }
        _mm_storeu_si128((__m128i *)(sums + i), lo);
        _mm_storeu_si128((__m128i *)(sums + i + 8), hi);
    }
    int done = body;
    if (n - body >= 8) {
        __m128i lo = z;
        const uint8_t *q = p + body;
        for (int r = 0; r < rows; r++, q += stride)
            lo = _mm_add_epi16(lo, _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)q), z));
        _mm_storeu_si128((__m128i *)(sums + body), lo);
        done += 8;
    }
    if (done < n)
        settle_sum_rows(p + done, stride, n - done, rows, sums + done);
}

/* A box's three channel sums in the first three 32-bit lanes of one vector
 * (the fourth lane adds the next column's red, not used): one load and one
 * add a column instead of three of each. A box whose sums could pass 2^32
 * (255 times more than 16843009 values) is left to the scalar code. */
void settle_box_means_sse2(const uint32_t *acc, const int *x0, int n, int rows, uint8_t *out)
{
    for (int x = 0; x < n; x++) {
        int xa = x0[x], xb = x0[x + 1] > xa ? x0[x + 1] : xa + 1;
        uint64_t area = (uint64_t)rows * (uint64_t)(xb - xa);
        if (area > 16843009u) {
            settle_box_means(acc, x0 + x, 1, rows, out + 3 * (size_t)x);
            continue;
        }
        __m128i v = _mm_setzero_si128();
        for (const uint32_t *p = acc + (size_t)xa * 3, *e = acc + (size_t)xb * 3; p < e; p += 3)
            v = _mm_add_epi32(v, _mm_loadu_si128((const __m128i *)(const void *)p));
        uint32_t s[4];
        _mm_storeu_si128((__m128i *)(void *)s, v);
        double a = (double)area;
        for (int k = 0; k < 3; k++)
            out[3 * x + k] = (uint8_t)((double)((uint64_t)s[k] + area / 2) / a);
    }
}

void settle_change_masks_sse2(const uint8_t *a, const uint8_t *b, int w, int tol, int strong_tol,
                              uint64_t *masks)
{
    if (tol < 0 || tol > 255 || strong_tol < 0 || strong_tol > 255) {
        settle_change_masks(a, b, w, tol, strong_tol, masks);
        return;
    }
    const __m128i t = _mm_set1_epi8((char)tol), st = _mm_set1_epi8((char)strong_tol);
    const int body = w & ~15;
    for (int x = 0; x < body; x += 16) {
        const uint8_t *pa = a + 3 * x, *pb = b + 3 * x;
        const __m128i d0 = absdiff(_mm_loadu_si128((const __m128i *)pa),
                                   _mm_loadu_si128((const __m128i *)pb));
        const __m128i d1 = absdiff(_mm_loadu_si128((const __m128i *)(pa + 16)),
                                   _mm_loadu_si128((const __m128i *)(pb + 16)));
        const __m128i d2 = absdiff(_mm_loadu_si128((const __m128i *)(pa + 32)),
                                   _mm_loadu_si128((const __m128i *)(pb + 32)));
        masks[x / 16] = settle_any3(over48(d0, d1, d2, t)) | settle_any3(over48(d0, d1, d2, st)) << 1;
    }
    if (body < w)
        settle_change_masks(a + 3 * body, b + 3 * body, w - body, tol, strong_tol, masks + body / 16);
}

/* 8 column sums (16 bits) of 2 x 8 pixels' pairs, as 8 x 16-bit pair sums. */
static inline __m128i pair_sums(__m128i lo, __m128i hi)
{
    const __m128i one = _mm_set1_epi16(1);
    return _mm_packs_epi32(_mm_madd_epi16(lo, one), _mm_madd_epi16(hi, one));
}

/* The column sums of f rows of 16 bytes, low and high 8 columns. */
static inline void col_sums(const uint8_t *s, ptrdiff_t stride, int f, __m128i *lo, __m128i *hi)
{
    const __m128i z = _mm_setzero_si128();
    __m128i a = _mm_loadu_si128((const __m128i *)s);
    __m128i l = _mm_unpacklo_epi8(a, z), h = _mm_unpackhi_epi8(a, z);
    for (int r = 1; r < f; r++) {
        a = _mm_loadu_si128((const __m128i *)(s + r * stride));
        l = _mm_add_epi16(l, _mm_unpacklo_epi8(a, z));
        h = _mm_add_epi16(h, _mm_unpackhi_epi8(a, z));
    }
    *lo = l;
    *hi = h;
}

/* 16 outputs of f = 2 or 4 from 16 * f bytes of each of f rows. */
static inline void reduce_step(uint8_t *d, const uint8_t *s, ptrdiff_t sstride, int f)
{
    const __m128i one = _mm_set1_epi16(1);
    __m128i out[2];
    if (f == 2) {
        for (int k = 0; k < 2; k++) {
            __m128i lo, hi;
            col_sums(s + 16 * k, sstride, 2, &lo, &hi);
            out[k] = _mm_srli_epi16(_mm_add_epi16(pair_sums(lo, hi), _mm_set1_epi16(2)), 2);
        }
    } else {
        for (int k = 0; k < 2; k++) {
            __m128i q[2];
            for (int j = 0; j < 2; j++) {
                __m128i lo, hi;
                col_sums(s + 32 * k + 16 * j, sstride, 4, &lo, &hi);
                q[j] = _mm_madd_epi16(pair_sums(lo, hi), one);
            }
            out[k] = _mm_srli_epi16(_mm_add_epi16(_mm_packs_epi32(q[0], q[1]), _mm_set1_epi16(8)),
                                    4);
        }
    }
    _mm_storeu_si128((__m128i *)d, _mm_packus_epi16(out[0], out[1]));
}

/* A row at least 16 outputs wide takes its last step again at the row's end,
 * overlapping the step before (each output is its own box's mean, so the
 * overlap writes what is already there); narrower rows and other factors by
 * the reference. */
void settle_reduce_plane_sse2(uint8_t *dst, ptrdiff_t dstride, const uint8_t *src,
                              ptrdiff_t sstride, int dw, int dh, int f)
{
    if ((f != 2 && f != 4) || dw < 16) {
        settle_reduce_plane(dst, dstride, src, sstride, dw, dh, f);
        return;
    }
    const int body = dw & ~15;
    for (int y = 0; y < dh; y++) {
        const uint8_t *s = src + (ptrdiff_t)y * f * sstride;
        uint8_t *d = dst + (ptrdiff_t)y * dstride;
        for (int x = 0; x < body; x += 16)
            reduce_step(d + x, s + f * x, sstride, f);
        if (body < dw)
            reduce_step(d + dw - 16, s + f * (dw - 16), sstride, f);
    }
}

int settle_count_row_changed_sse2(const uint8_t *a, const uint8_t *b, int n, int tol, int *first,
                                  int *last)
{
    const __m128i t = _mm_set1_epi8((char)tol), z = _mm_setzero_si128();
    int count = 0, lo = n, hi = -1;
    const int body = tol < 255 ? n & ~15 : 0;
    for (int x = 0; x < body; x += 16) {
        const __m128i d = absdiff(_mm_loadu_si128((const __m128i *)(a + x)),
                                  _mm_loadu_si128((const __m128i *)(b + x)));
        const unsigned m = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_subs_epu8(d, t), z)) &
                           0xffffu;
        if (!m)
            continue;
        count += __builtin_popcount(m);
        if (lo == n)
            lo = x + __builtin_ctz(m);
        hi = x + 31 - __builtin_clz(m);
    }
    if (body < n && body) {
        /* the row's last 16 bytes, those before body (counted above) masked
         * off */
        const int x = n - 16;
        const __m128i d = absdiff(_mm_loadu_si128((const __m128i *)(a + x)),
                                  _mm_loadu_si128((const __m128i *)(b + x)));
        const unsigned m = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_subs_epu8(d, t), z)) &
                           0xffffu & ~0u << (body - x);
        count += __builtin_popcount(m);
        if (m) {
            lo = lo == n ? x + __builtin_ctz(m) : lo;
            hi = x + 31 - __builtin_clz(m);
        }
    } else if (body < n) {
        int f, l;
        count += settle_count_row_changed(a + body, b + body, n - body, tol, &f, &l);
        if (l >= 0) {
            lo = lo == n ? body + f : lo;
            hi = body + l;
        }
    }
    *first = lo;
    *last = hi;
    return count;
}

/* 32 bytes a step, as memcmp would compare them, then the place. */
/* A bit for each of the 32 bytes from a and b that differ. */
static inline unsigned differ32(const uint8_t *a, const uint8_t *b)
{
    const unsigned m0 = (unsigned)_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)a), _mm_loadu_si128((const __m128i *)b)));
    const unsigned m1 = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
        _mm_loadu_si128((const __m128i *)(a + 16)), _mm_loadu_si128((const __m128i *)(b + 16))));
    return ~(m0 | m1 << 16);
}

int settle_row_first_diff_sse2(const uint8_t *a, const uint8_t *b, int n)
{
    int x = 0;
    for (; x + 32 <= n; x += 32) {
        const unsigned m = differ32(a + x, b + x);
        if (m)
            return x + __builtin_ctz(m);
    }
    if (x < n && n >= 32) {
        /* the row's last 32 bytes, overlapping the step before: the bytes
         * before x are equal, so the first difference is at x or after */
        const int t = n - 32;
        const unsigned m = differ32(a + t, b + t);
        return m ? t + __builtin_ctz(m) : n;
    }
    while (x < n && a[x] == b[x])
        x++;
    return x;
}

/* 64 bytes (a cache line) a step, stored past the caches from where dst is
 * aligned to 16; the bytes before and after by memcpy. */
void settle_copy_stream_sse2(uint8_t *dst, const uint8_t *src, size_t n)
{
    size_t head = (size_t)(-(uintptr_t)dst & 15);
    if (n < head + 64) {
        memcpy(dst, src, n);
        return;
    }
    memcpy(dst, src, head);
    size_t x = head;
    for (; x + 64 <= n; x += 64) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(src + x));
        const __m128i b = _mm_loadu_si128((const __m128i *)(src + x + 16));
        const __m128i c = _mm_loadu_si128((const __m128i *)(src + x + 32));
        const __m128i d = _mm_loadu_si128((const __m128i *)(src + x + 48));
        _mm_stream_si128((__m128i *)(dst + x), a);
        _mm_stream_si128((__m128i *)(dst + x + 16), b);
        _mm_stream_si128((__m128i *)(dst + x + 32), c);
        _mm_stream_si128((__m128i *)(dst + x + 48), d);
    }
    memcpy(dst + x, src + x, n - x);
    _mm_sfence();
}

/* CLFLUSHOPT, not CLFLUSH: the flushes are ordered only by fences, so that
 * they go on while the analysis does (CLFLUSH waits for each in turn). No
 * fence: nothing settle does waits for the lines to have left. */
__attribute__((target("clflushopt"))) void settle_evict_clflushopt(const void *p, size_t n)
{
    if (!n)
        return;
    const uintptr_t end = (uintptr_t)p + n;
    for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)63; a < end; a += 64)
        _mm_clflushopt((void *)a);
}

/* A block's sums of 8 lanes loaded at every other column: lanes 0-2 add the
 * even columns' R, G, B and lanes 3-5 the odd ones', which the shift by 3
 * lanes adds to them (each channel's sum under 65536, so that no lane
 * carries). The last block's last load takes its 6 lanes alone (8 would read
 * two sums past it), and its 3 floats are stored alone (4 would write the
 * float after it). */
static inline void block_means_run(const uint16_t *sums, int n, int bs, __m128 m, float *out)
{
    const __m128i zero = _mm_setzero_si128();
    for (int i = 0; i < n; i++, sums += 3 * bs, out += 3) {
        __m128i v = zero;
        for (int k = 0; k + 2 < bs; k += 2)
            v = _mm_add_epi16(v, _mm_loadu_si128((const __m128i *)(sums + 3 * k)));
        const uint16_t *t = sums + 3 * (bs - 2);
        if (i + 1 < n) {
            v = _mm_add_epi16(v, _mm_loadu_si128((const __m128i *)t));
        } else {
            __m128i l = _mm_loadl_epi64((const __m128i *)t);
            l = _mm_insert_epi16(_mm_insert_epi16(l, t[4], 4), t[5], 5);
            v = _mm_add_epi16(v, l);
        }
        v = _mm_add_epi16(v, _mm_srli_si128(v, 6));
        const __m128 f = _mm_mul_ps(_mm_cvtepi32_ps(_mm_unpacklo_epi16(v, zero)), m);
        if (i + 1 < n) {
            _mm_storeu_ps(out, f);
        } else {
            _mm_storel_pi((__m64 *)out, f);
            _mm_store_ss(out + 2, _mm_movehl_ps(f, f));
        }
    }
}

/* The usual block widths unrolled; an odd one as the reference. */
void settle_block_means_sse2(const uint16_t *sums, int n, int bs, float inv, float *out)
{
    const __m128 m = _mm_set1_ps(inv);
    if (bs == 8)
        block_means_run(sums, n, 8, m, out);
    else if (bs == 16)
        block_means_run(sums, n, 16, m, out);
    else if (!(bs & 1))
        block_means_run(sums, n, bs, m, out);
    else
        settle_block_means(sums, n, bs, inv, out);
}
