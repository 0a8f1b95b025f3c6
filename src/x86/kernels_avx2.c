/* SPDX-License-Identifier: BSD-2-Clause */
/* AVX2 kernels (compiled with -mavx2 -mpopcnt, run only where the CPU has
 * both): 32 pixels (96 bytes, three vectors) at a time, seen as two groups
 * of 16 for the pixel masks; the rest of a row by the scalar reference
 * (delta_rgb and renew_rgb: by a last step that overlaps the one before,
 * unless the row is shorter than a step). */
#include <immintrin.h>
#include <string.h>

#include "x86/kernels_x86.h"

/* Byte flags of three vectors as two 48-bit masks, for pixels 0-15 and 16-31. */
typedef struct Mask96 {
    uint64_t lo, hi;
} Mask96;

static inline Mask96 mask96(__m256i m0, __m256i m1, __m256i m2)
{
    const uint64_t b0 = (uint32_t)_mm256_movemask_epi8(m0);
    const uint64_t b1 = (uint32_t)_mm256_movemask_epi8(m1);
    const uint64_t b2 = (uint32_t)_mm256_movemask_epi8(m2);
    return (Mask96){ b0 | (b1 & 0xffff) << 32, b1 >> 16 | b2 << 16 };
}

static inline __m256i absdiff(__m256i a, __m256i b)
{
    return _mm256_or_si256(_mm256_subs_epu8(a, b), _mm256_subs_epu8(b, a));
}

/* Byte flags of d <= t. */
static inline Mask96 within96(__m256i d0, __m256i d1, __m256i d2, __m256i t)
{
    const __m256i z = _mm256_setzero_si256();
    return mask96(_mm256_cmpeq_epi8(_mm256_subs_epu8(d0, t), z),
                  _mm256_cmpeq_epi8(_mm256_subs_epu8(d1, t), z),
                  _mm256_cmpeq_epi8(_mm256_subs_epu8(d2, t), z));
}

/* Pixels with any byte over t. */
static inline int count_over(__m256i d0, __m256i d1, __m256i d2, __m256i t)
{
    const Mask96 m = within96(d0, d1, d2, t);
    return (int)_mm_popcnt_u64(settle_any3(~m.lo & SETTLE_BYTES48)) +
           (int)_mm_popcnt_u64(settle_any3(~m.hi & SETTLE_BYTES48));
}

/* Pixels with any byte over t (the count returned) and over st (added to
 * *strong), and their bits (settle_change_masks' words for the two groups of
 * 16) into m[0] and m[1] unless m is NULL. */
static inline int over_masks(__m256i d0, __m256i d1, __m256i d2, __m256i t, __m256i st,
                             int64_t *strong, uint64_t *m)
{
    const Mask96 w = within96(d0, d1, d2, t), s = within96(d0, d1, d2, st);
    const uint64_t lo = settle_any3(~w.lo & SETTLE_BYTES48), hi = settle_any3(~w.hi & SETTLE_BYTES48);
    const uint64_t slo = settle_any3(~s.lo & SETTLE_BYTES48);
    const uint64_t shi = settle_any3(~s.hi & SETTLE_BYTES48);
    if (m)
        m[0] = lo | slo << 1, m[1] = hi | shi << 1;
    *strong += (int)_mm_popcnt_u64(slo) + (int)_mm_popcnt_u64(shi);
    return (int)_mm_popcnt_u64(lo) + (int)_mm_popcnt_u64(hi);
}

static inline __m256i load(const uint8_t *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

int64_t settle_count_changed_avx2(const uint8_t *a, ptrdiff_t astride, const uint8_t *b,
                                  ptrdiff_t bstride, int w, int h, int tol, int strong_tol,
                                  int64_t *strong)
{
    if (tol < 0 || tol > 255 || strong_tol < 0 || strong_tol > 255)
        return settle_count_changed(a, astride, b, bstride, w, h, tol, strong_tol, strong);
    const __m256i t = _mm256_set1_epi8((char)tol), st = _mm256_set1_epi8((char)strong_tol);
    const int body = w & ~31;
    int64_t changed = 0, big = 0;
    for (int y = 0; y < h; y++) {
        const uint8_t *pa = a + y * astride, *pb = b + y * bstride;
        for (int x = 0; x < 3 * body; x += 96) {
            const __m256i d0 = absdiff(load(pa + x), load(pb + x));
            const __m256i d1 = absdiff(load(pa + x + 32), load(pb + x + 32));
            const __m256i d2 = absdiff(load(pa + x + 64), load(pb + x + 64));
            changed += count_over(d0, d1, d2, t);
            big += count_over(d0, d1, d2, st);
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

int64_t settle_count_color_avx2(const uint8_t *p, ptrdiff_t stride, int w, int h,
                                const uint8_t rgb[3], int tol)
{
    if (tol < 0 || tol > 255)
        return settle_count_color(p, stride, w, h, rgb, tol);
    uint8_t pattern[96];
    for (int i = 0; i < 96; i++)
        pattern[i] = rgb[i % 3];
    const __m256i c0 = load(pattern), c1 = load(pattern + 32), c2 = load(pattern + 64);
    const __m256i t = _mm256_set1_epi8((char)tol);
    const int body = w & ~31;
    int64_t n = 0;
    for (int y = 0; y < h; y++) {
        const uint8_t *row = p + y * stride;
        for (int x = 0; x < 3 * body; x += 96) {
            const Mask96 m = within96(absdiff(load(row + x), c0), absdiff(load(row + x + 32), c1),
                                      absdiff(load(row + x + 64), c2), t);
            n += (int)_mm_popcnt_u64(settle_all3(m.lo)) + (int)_mm_popcnt_u64(settle_all3(m.hi));
        }
        if (body < w)
            n += settle_count_color(row + 3 * body, stride, w - body, 1, rgb, tol);
    }
    return n;
}

/* Moves the histogram and marker count of the changed pixels flagged in m
 * (one bit per pixel at its first byte, bytes from pc and pp). */
static inline int64_t move_pixels(uint64_t m, const uint8_t *pc, const uint8_t *pp,
                                  uint32_t hist[SETTLE_HIST_BINS], const uint8_t *marker,
                                  int mtol)
{
    uint32_t *hr = hist, *hg = hist + 256, *hb = hist + 512;
    int64_t mk = 0;
    for (; m; m &= m - 1) {
        const int i = (int)__builtin_ctzll(m);
        hr[pp[i]]--, hg[pp[i + 1]]--, hb[pp[i + 2]]--;
        hr[pc[i]]++, hg[pc[i + 1]]++, hb[pc[i + 2]]++;
        if (marker)
            mk += settle_near_color(pc + i, marker, mtol) - settle_near_color(pp + i, marker, mtol);
    }
    return mk;
}

/* move_pixels without a histogram: the marker count only. */
static inline int64_t move_marker(uint64_t m, const uint8_t *pc, const uint8_t *pp,
                                  const uint8_t *marker, int mtol)
{
    int64_t mk = 0;
    for (; m; m &= m - 1) {
        const int i = (int)__builtin_ctzll(m);
        mk += settle_near_color(pc + i, marker, mtol) - settle_near_color(pp + i, marker, mtol);
    }
    return mk;
}

/* The mask words (settle_change_masks') of the last n pixels of a row, 1 <=
 * n <= 31, from lo and hi, the words of the 32 pixels that end the row: the
 * tail's pixel i is the window's pixel 32 - n + i. */
static inline void tail_words(uint64_t lo, uint64_t hi, int n, uint64_t *m)
{
    const int off = 3 * (32 - n);
    if (n > 16) {
        m[0] = (lo >> off | hi << (48 - off)) & SETTLE_BYTES48;
        m[1] = hi >> off;
    } else {
        m[0] = hi >> (off - 48);
    }
}

/* delta_rgb on the 32 pixels at pc, pp: the counts added, the histogram
 * (unless hist is NULL) and marker moved, pp made pc, the two mask words
 * into m unless m is NULL. */
static inline void delta32(const uint8_t *pc, uint8_t *pp, __m256i t, __m256i st,
                           const uint8_t *marker, int mtol, uint32_t hist[SETTLE_HIST_BINS],
                           uint64_t *m, int64_t *changed, int64_t *big, int64_t *mk)
{
    const __m256i a0 = load(pc), a1 = load(pc + 32), a2 = load(pc + 64);
    const __m256i b0 = load(pp), b1 = load(pp + 32), b2 = load(pp + 64);
    /* most steps of a changed row are the same in both (a camera film's
     * re-coded areas, a screen's caret): told by one test of the bytes'
     * differences before their masks are made */
    const __m256i x = _mm256_or_si256(_mm256_or_si256(_mm256_xor_si256(a0, b0),
                                                      _mm256_xor_si256(a1, b1)),
                                      _mm256_xor_si256(a2, b2));
    if (_mm256_testz_si256(x, x)) {
        if (m)
            m[0] = m[1] = 0;
        return;
    }
    const Mask96 same = mask96(_mm256_cmpeq_epi8(a0, b0), _mm256_cmpeq_epi8(a1, b1),
                               _mm256_cmpeq_epi8(a2, b2));
    const __m256i d0 = absdiff(a0, b0), d1 = absdiff(a1, b1), d2 = absdiff(a2, b2);
    *changed += over_masks(d0, d1, d2, t, st, big, m);
    if (hist) {
        *mk += move_pixels(settle_any3(~same.lo & SETTLE_BYTES48), pc, pp, hist, marker, mtol);
        *mk += move_pixels(settle_any3(~same.hi & SETTLE_BYTES48), pc + 48, pp + 48, hist,
                           marker, mtol);
    } else if (marker) {
        *mk += move_marker(settle_any3(~same.lo & SETTLE_BYTES48), pc, pp, marker, mtol);
        *mk += move_marker(settle_any3(~same.hi & SETTLE_BYTES48), pc + 48, pp + 48, marker,
                           mtol);
    }
    _mm256_storeu_si256((__m256i *)pp, a0);
    _mm256_storeu_si256((__m256i *)(pp + 32), a1);
    _mm256_storeu_si256((__m256i *)(pp + 64), a2);
}

void settle_delta_rgb_avx2(const uint8_t *cur, ptrdiff_t cstride, uint8_t *prev,
                           ptrdiff_t pstride, int w, int h, int tol, int strong_tol,
                           const uint8_t *marker, int mtol, uint32_t hist[SETTLE_HIST_BINS],
                           uint64_t *masks, SettleDelta *out)
{
    if (tol < 0 || tol > 255 || strong_tol < 0 || strong_tol > 255) {
        settle_delta_rgb(cur, cstride, prev, pstride, w, h, tol, strong_tol, marker, mtol, hist,
                         masks, out);
        return;
    }
    const __m256i t = _mm256_set1_epi8((char)tol), st = _mm256_set1_epi8((char)strong_tol);
    const int body = w & ~31;
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
        /* the step twice, so that each is compiled for its own case */
        for (int x = 0; x < body && hist; x += 32)
            delta32(pc + 3 * x, pp + 3 * x, t, st, marker, mtol, hist, mrow ? mrow + x / 16 : NULL,
                    &changed, &big, &mk);
        for (int x = 0; x < body && !hist; x += 32)
            delta32(pc + 3 * x, pp + 3 * x, t, st, marker, mtol, NULL, mrow ? mrow + x / 16 : NULL,
                    &changed, &big, &mk);
        if (body < w && body) {
            /* The row's last 32 pixels, overlapping the body: its pixels
             * there are equal in pc and pp by now (pp was made pc above), so
             * they move nothing, count nothing and set no bit; the tail's
             * are taken as the reference takes them. */
            uint64_t m[2];
            delta32(pc + 3 * (w - 32), pp + 3 * (w - 32), t, st, marker, mtol, hist, m, &changed,
                    &big, &mk);
            if (mrow)
                tail_words(m[0], m[1], w - body, mrow + body / 16);
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

/* renew_rgb's counts on the 32 pixels at pc, pp (added to acc; the
 * differing pixels returned), pp made pc, the two mask words into m unless m
 * is NULL. */
static inline int renew32(const uint8_t *pc, uint8_t *pp, __m256i t, __m256i st, uint64_t *m,
                          SettleDelta *acc)
{
    const __m256i a0 = load(pc), a1 = load(pc + 32), a2 = load(pc + 64);
    const __m256i d0 = absdiff(a0, load(pp)), d1 = absdiff(a1, load(pp + 32));
    const __m256i d2 = absdiff(a2, load(pp + 64));
    acc->changed += over_masks(d0, d1, d2, t, st, &acc->strong, m);
    _mm256_storeu_si256((__m256i *)pp, a0);
    _mm256_storeu_si256((__m256i *)(pp + 32), a1);
    _mm256_storeu_si256((__m256i *)(pp + 64), a2);
    return count_over(d0, d1, d2, _mm256_setzero_si256());
}

/* Row by row, the row's pixels in the L1 cache for all three: counted (as
 * settle_count_changed_avx2), copied into prev, then histogrammed. */
void settle_renew_rgb_avx2(const uint8_t *cur, ptrdiff_t cstride, uint8_t *prev,
                           ptrdiff_t pstride, int w, int h, int tol, int strong_tol,
                           uint32_t hist[SETTLE_HIST_BINS], uint64_t *masks, SettleDelta *out)
{
    if (tol < 0 || tol > 255 || strong_tol < 0 || strong_tol > 255) {
        settle_renew_rgb(cur, cstride, prev, pstride, w, h, tol, strong_tol, hist, masks, out);
        return;
    }
    const __m256i t = _mm256_set1_epi8((char)tol), st = _mm256_set1_epi8((char)strong_tol);
    const int body = w & ~31;
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
        for (int x = 0; x < body; x += 32)
            n += renew32(pc + 3 * x, pp + 3 * x, t, st, mrow ? mrow + x / 16 : NULL, &acc);
        int done = body;
        if (body < w && body) {
            /* The row's last 32 pixels, overlapping the body, whose pixels
             * there are equal in pc and pp by now (pp was made pc above): they
             * count nothing and set no bit. */
            uint64_t m[2];
            n += renew32(pc + 3 * (w - 32), pp + 3 * (w - 32), t, st, m, &acc);
            if (mrow)
                tail_words(m[0], m[1], w - body, mrow + body / 16);
            done = w;
        }
        settle_renew_row_end(pc, cstride, pp, pstride, w, done, tol, strong_tol, part, n, mrow,
                             &acc);
    }
    settle_sum_parts_x4(part);
    *out = acc;
}

/* The sums of 32 columns. */
static inline void sum_rows32(const uint8_t *q, ptrdiff_t stride, int rows, uint16_t *sums)
{
    __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
    for (int r = 0; r < rows; r++, q += stride) {
        lo = _mm256_add_epi16(lo, _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)q)));
        hi = _mm256_add_epi16(hi, _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(q + 16))));
    }
    _mm256_storeu_si256((__m256i *)sums, lo);
    _mm256_storeu_si256((__m256i *)(sums + 16), hi);
}

/* 64 columns at a time, then 32, each 16 bytes widened to 16-bit lanes as
 * they load, the sums in registers down all the rows. */
void settle_sum_rows_avx2(const uint8_t *p, ptrdiff_t stride, int n, int rows, uint16_t *sums)
{
    const int body64 = n & ~63, body = n & ~31;
    for (int i = 0; i < body64; i += 64) {
        __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
        const uint8_t *q = p + i;
        for (int r = 0; r < rows; r++, q += stride) {
            s0 = _mm256_add_epi16(s0, _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)q)));
            s1 = _mm256_add_epi16(s1,
                                  _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(q + 16))));
            s2 = _mm256_add_epi16(s2,
                                  _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(q + 32))));
            s3 = _mm256_add_epi16(s3,
                                  _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(q + 48))));
        }
        _mm256_storeu_si256((__m256i *)(sums + i), s0);
        _mm256_storeu_si256((__m256i *)(sums + i + 16), s1);
        _mm256_storeu_si256((__m256i *)(sums + i + 32), s2);
        _mm256_storeu_si256((__m256i *)(sums + i + 48), s3);
    }
    for (int i = body64; i < body; i += 32)
        sum_rows32(p + i, stride, rows, sums + i);
    /* the last 32 columns again, overlapping the step before: the same sums
     * written again */
    if (body < n && body)
        sum_rows32(p + n - 32, stride, rows, sums + n - 32);
    else if (body < n)
        settle_sum_rows_sse2(p + body, stride, n - body, rows, sums + body);
}

/* Bytes 16 k .. 16 k + 15 of 16 interleaved pixels (48 bytes) take the
 * channel's byte of pixel i / 3 where i % 3 is the channel: pshufb indices,
 * -1 (zero) elsewhere. */
static inline __m256i interleave_mask(int channel, int k)
{
    int8_t m[32];
    for (int i = 0; i < 16; i++) {
        const int pos = 16 * k + i;
        m[i] = m[i + 16] = (int8_t)(pos % 3 == channel ? pos / 3 : -1);
    }
    return _mm256_loadu_si256((const __m256i *)m);
}

/* Q6 sums of 16 pixels (the rounding is in yy) to whole levels. */
static inline __m256i to_q0(__m256i yy, __m256i c)
{
    return _mm256_srai_epi16(_mm256_adds_epi16(yy, c), 6);
}

/* The chroma terms of 16 samples (pu, pv) for 32 pixels, each spread over
 * its two pixels: cc[c] for the luma lanes [0-7 | 16-23], cc[3 + c] for
 * [8-15 | 24-31], channel c of R, G, B. */
static inline void chroma32(const uint8_t *pu, const uint8_t *pv, __m256i crv, __m256i cgu,
                            __m256i cgv, __m256i cbu, __m256i cc[6])
{
    const __m256i c128 = _mm256_set1_epi16(128);
    const __m256i uu = _mm256_slli_epi16(
        _mm256_sub_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)pu)), c128), 8);
    const __m256i vv = _mm256_slli_epi16(
        _mm256_sub_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)pv)), c128), 8);
    const __m256i t[3] = { _mm256_mulhrs_epi16(vv, crv),
                           _mm256_add_epi16(_mm256_mulhrs_epi16(uu, cgu),
                                            _mm256_mulhrs_epi16(vv, cgv)),
                           _mm256_mulhrs_epi16(uu, cbu) };
    for (int c = 0; c < 3; c++) {
        cc[c] = _mm256_unpacklo_epi16(t[c], t[c]);
        cc[3 + c] = _mm256_unpackhi_epi16(t[c], t[c]);
    }
}

/* 32 pixels of luma at py with their chroma terms cc (chroma32's) as RGB at
 * out: the three channels packed to bytes in order and interleaved by
 * pshufb per lane (masks m). */
static inline void rgb32(uint8_t *out, const uint8_t *py, const __m256i cc[6], __m256i yoff,
                         __m256i cy, __m256i m[3][3])
{
    /* luma as 16-bit lanes in the order [0-7 | 16-23] and [8-15 | 24-31]:
     * the chroma terms spread over their pixel pairs within each lane line
     * up with them, and packing restores the pixels' order */
    const __m256i yb = _mm256_loadu_si256((const __m256i *)py);
    const __m256i z = _mm256_setzero_si256(), r32 = _mm256_set1_epi16(32);
    __m256i yy[2];
    for (int i = 0; i < 2; i++) {
        const __m256i y16 = i ? _mm256_unpackhi_epi8(yb, z) : _mm256_unpacklo_epi8(yb, z);
        yy[i] = _mm256_add_epi16(
            _mm256_mulhrs_epi16(_mm256_slli_epi16(_mm256_sub_epi16(y16, yoff), 7), cy), r32);
    }
    __m256i ch8[3];
    for (int c = 0; c < 3; c++)
        ch8[c] = _mm256_packus_epi16(to_q0(yy[0], cc[c]), to_q0(yy[1], cc[3 + c]));
    __m256i o[3];
    for (int b = 0; b < 3; b++)
        o[b] = _mm256_or_si256(_mm256_or_si256(_mm256_shuffle_epi8(ch8[0], m[0][b]),
                                               _mm256_shuffle_epi8(ch8[1], m[1][b])),
                               _mm256_shuffle_epi8(ch8[2], m[2][b]));
    /* lane 0 holds pixels 0-15 (bytes 0-47), lane 1 pixels 16-31 */
    _mm256_storeu_si256((__m256i *)out, _mm256_permute2x128_si256(o[0], o[1], 0x20));
    _mm256_storeu_si256((__m256i *)(out + 32), _mm256_permute2x128_si256(o[2], o[0], 0x30));
    _mm256_storeu_si256((__m256i *)(out + 64), _mm256_permute2x128_si256(o[1], o[2], 0x31));
}

/* 32 pixels a step, two rows at a time: the rows of a pair share their
 * chroma row, so its terms are made once for both (the same values: a
 * third of the work a row was the chroma's). */
void settle_yuv420_rgb_avx2(uint8_t *dst, ptrdiff_t dstride, const uint8_t *y,
                            ptrdiff_t ystride, const uint8_t *u, ptrdiff_t ustride,
                            const uint8_t *v, ptrdiff_t vstride, int w, int h,
                            const SettleYuvCoef *k)
{
    const __m256i yoff = _mm256_set1_epi16(k->y_off), cy = _mm256_set1_epi16(k->cy);
    const __m256i crv = _mm256_set1_epi16(k->crv), cgu = _mm256_set1_epi16(k->cgu);
    const __m256i cgv = _mm256_set1_epi16(k->cgv), cbu = _mm256_set1_epi16(k->cbu);
    __m256i m[3][3];
    for (int ch = 0; ch < 3; ch++)
        for (int b = 0; b < 3; b++)
            m[ch][b] = interleave_mask(ch, b);
    /* the last step ends at the row's end (an even start, for the chroma),
     * overlapping the one before: the same pixels, the same bytes */
    const int last = w >= 32 ? (w - 32) & ~1 : -1;
    const int body = last >= 0 ? last + 32 : 0;
    for (int r = 0; r < h; r += 2) {
        const int rows = h - r < 2 ? 1 : 2;
        const uint8_t *py = y + r * ystride;
        const uint8_t *pu = u + (r >> 1) * ustride, *pv = v + (r >> 1) * vstride;
        uint8_t *out = dst + r * dstride;
        for (int x = 0; last >= 0; x += 32) {
            if (x > last)
                x = last;
            __m256i cc[6];
            chroma32(pu + x / 2, pv + x / 2, crv, cgu, cgv, cbu, cc);
            rgb32(out + 3 * x, py + x, cc, yoff, cy, m);
            if (rows == 2)
                rgb32(out + dstride + 3 * x, py + ystride + x, cc, yoff, cy, m);
            if (x == last)
                break;
        }
        if (body < w)
            settle_yuv420_tail(out + 3 * body, dstride, py + body, ystride, pu + body / 2,
                               ustride, pv + body / 2, vstride, w - body, rows, k);
    }
}

void settle_change_masks_avx2(const uint8_t *a, const uint8_t *b, int w, int tol, int strong_tol,
                              uint64_t *masks)
{
    if (tol < 0 || tol > 255 || strong_tol < 0 || strong_tol > 255) {
        settle_change_masks(a, b, w, tol, strong_tol, masks);
        return;
    }
    const __m256i t = _mm256_set1_epi8((char)tol), st = _mm256_set1_epi8((char)strong_tol);
    const int body = w & ~31;
    int64_t strong = 0;
    for (int x = 0; x < body; x += 32) {
        const uint8_t *pa = a + 3 * x, *pb = b + 3 * x;
        over_masks(absdiff(load(pa), load(pb)), absdiff(load(pa + 32), load(pb + 32)),
                   absdiff(load(pa + 64), load(pb + 64)), t, st, &strong, masks + x / 16);
    }
    if (body < w)
        settle_change_masks_sse2(a + 3 * body, b + 3 * body, w - body, tol, strong_tol,
                                 masks + body / 16);
}

/* f = 2: 32 outputs from 64 bytes of each of 2 rows, the pairs of a row
 * summed by maddubs (at most 510), the two rows added, and the sum s (at
 * most 1,020) rounded by one mulhrs by 8192: ((s >> 1) + 1) >> 1, which is
 * (s + 2) >> 2 for every s >= 0 (both drop s's lowest bit, then round the
 * half up). */
static inline void reduce2_step(uint8_t *d, const uint8_t *s, ptrdiff_t sstride)
{
    const __m256i ones8 = _mm256_set1_epi8(1), quarter = _mm256_set1_epi16(8192);
    __m256i w[2];
    for (int j = 0; j < 2; j++) {
        const __m256i a = _mm256_loadu_si256((const __m256i *)(s + 32 * j));
        const __m256i b = _mm256_loadu_si256((const __m256i *)(s + sstride + 32 * j));
        w[j] = _mm256_add_epi16(_mm256_maddubs_epi16(a, ones8), _mm256_maddubs_epi16(b, ones8));
        w[j] = _mm256_mulhrs_epi16(w[j], quarter);
    }
    const __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi16(w[0], w[1]), 0xd8);
    _mm256_storeu_si256((__m256i *)d, p);
}

/* f = 4: 16 outputs from 64 bytes of each of 4 rows, then pairs of pairs by
 * madd (at most 4080). */
static inline void reduce4_step(uint8_t *d, const uint8_t *s, ptrdiff_t sstride)
{
    const __m256i ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
    __m256i q[2];
    for (int j = 0; j < 2; j++) {
        __m256i w = _mm256_setzero_si256();
        for (int r = 0; r < 4; r++) {
            const __m256i a =
                _mm256_loadu_si256((const __m256i *)(s + (ptrdiff_t)r * sstride + 32 * j));
            w = _mm256_add_epi16(w, _mm256_maddubs_epi16(a, ones8));
        }
        q[j] = _mm256_madd_epi16(w, ones16);
    }
    __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi32(q[0], q[1]), 0xd8);
    p = _mm256_srli_epi16(_mm256_add_epi16(p, _mm256_set1_epi16(8)), 4);
    p = _mm256_permute4x64_epi64(_mm256_packus_epi16(p, p), 0x08);
    _mm_storeu_si128((__m128i *)d, _mm256_castsi256_si128(p));
}

/* Rounded half up as the reference. A row at least one step wide takes its
 * last step again at the row's end, overlapping the step before (each
 * output is its own box's mean, so the overlap writes what is already
 * there); narrower rows and other factors by the reference. */
void settle_reduce_plane_avx2(uint8_t *dst, ptrdiff_t dstride, const uint8_t *src,
                              ptrdiff_t sstride, int dw, int dh, int f)
{
    const int per = f == 2 ? 32 : 16;
    if ((f != 2 && f != 4) || dw < per) {
        settle_reduce_plane(dst, dstride, src, sstride, dw, dh, f);
        return;
    }
    const int body = dw / per * per;
    for (int y = 0; y < dh; y++) {
        const uint8_t *s = src + (ptrdiff_t)y * f * sstride;
        uint8_t *d = dst + (ptrdiff_t)y * dstride;
        if (f == 2) {
            for (int x = 0; x < body; x += 32)
                reduce2_step(d + x, s + 2 * x, sstride);
            if (body < dw)
                reduce2_step(d + dw - 32, s + 2 * (dw - 32), sstride);
        } else {
            for (int x = 0; x < body; x += 16)
                reduce4_step(d + x, s + 4 * x, sstride);
            if (body < dw)
                reduce4_step(d + dw - 16, s + 4 * (dw - 16), sstride);
        }
    }
}

/* A block's three floats and one more as doubles; the last block's fourth
 * would lie past the arrays, so it is 0. */
static inline __m256d block_pd(const float *p, int last)
{
    return _mm256_cvtps_pd(last ? _mm_setr_ps(p[0], p[1], p[2], 0.0f) : _mm_loadu_ps(p));
}

/* The three channels side by side, a channel a lane (the fourth is not
 * used): each lane adds its channel's terms in the order of k as the scalar
 * reference does, with the same roundings (no fused multiply-add: this file
 * is C11, where GCC does not contract, and built without -mfma), so the same
 * doubles. A block left out adds +0.0 (its bits masked off) instead of
 * nothing: a sum that starts at +0.0 is never -0.0 (only -0.0 + -0.0 is), and
 * s + +0.0 is s for any other s, NaN included. Four channels' chains of
 * additions in one register instead of one at a time: the loop is bound by
 * the latency of an addition, not by its work. */
/* The sums of one block's x and y, each a lane a channel (FitSums' order:
 * x, y, x * x, x * y, the count). */
typedef struct FitSums {
    __m256d s[5];
} FitSums;

static inline void fit_add(FitSums *f, __m256d x, __m256d y)
{
    f->s[0] = _mm256_add_pd(f->s[0], x);
    f->s[1] = _mm256_add_pd(f->s[1], y);
    f->s[2] = _mm256_add_pd(f->s[2], _mm256_mul_pd(x, x));
    f->s[3] = _mm256_add_pd(f->s[3], _mm256_mul_pd(x, y));
}

/* ... the block only where its residual is within the bound: a block left
 * out is +0.0 in x and y, so its square and product are +0.0 too */
static inline void fit_add_within(FitSums *f, __m256d x, __m256d y, __m256d va, __m256d vo,
                                  __m256d vl)
{
    const __m256d absm = _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX));
    const __m256d r = _mm256_and_pd(_mm256_sub_pd(y, _mm256_add_pd(_mm256_mul_pd(va, x), vo)), absm);
    const __m256d out = _mm256_cmp_pd(r, vl, _CMP_GT_OQ);
    fit_add(f, _mm256_andnot_pd(out, x), _mm256_andnot_pd(out, y));
    f->s[4] = _mm256_add_pd(f->s[4], _mm256_andnot_pd(out, _mm256_set1_pd(1.0)));
}

void settle_fit_sums_avx2(const float *ref, const float *cur, int n, const double *a,
                          const double *o, const double *lim, double s[5][3])
{
    FitSums f;
    for (int i = 0; i < 5; i++)
        f.s[i] = _mm256_setzero_pd();
    /* the blocks before the last, whose fourth float lies in the arrays,
     * then the last */
    int k = 0;
    if (!lim) {
        for (; k + 1 < n; k++)
            fit_add(&f, block_pd(ref + 3 * k, 0), block_pd(cur + 3 * k, 0));
        if (k < n)
            fit_add(&f, block_pd(ref + 3 * k, 1), block_pd(cur + 3 * k, 1));
        /* n ones added from +0.0: n, exactly */
        f.s[4] = _mm256_set1_pd((double)(n > 0 ? n : 0));
    } else {
        const __m256d va = _mm256_setr_pd(a[0], a[1], a[2], 0);
        const __m256d vo = _mm256_setr_pd(o[0], o[1], o[2], 0);
        const __m256d vl = _mm256_setr_pd(lim[0], lim[1], lim[2], 0);
        for (; k + 1 < n; k++)
            fit_add_within(&f, block_pd(ref + 3 * k, 0), block_pd(cur + 3 * k, 0), va, vo, vl);
        if (k < n)
            fit_add_within(&f, block_pd(ref + 3 * k, 1), block_pd(cur + 3 * k, 1), va, vo, vl);
    }
    double t[5][4];
    for (int i = 0; i < 5; i++)
        _mm256_storeu_pd(t[i], f.s[i]);
    for (int i = 0; i < 5; i++)
        for (int c = 0; c < 3; c++)
            s[i][c] = t[i][c];
}

/* 64 bytes a step, as memcmp would compare them, then the place. */
int settle_row_first_diff_avx2(const uint8_t *a, const uint8_t *b, int n)
{
    int x = 0;
    for (; x + 64 <= n; x += 64) {
        const uint64_t m0 =
            (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(load(a + x), load(b + x)));
        const uint64_t m1 =
            (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(load(a + x + 32), load(b + x + 32)));
        const uint64_t m = ~(m0 | m1 << 32);
        if (m)
            return x + (int)__builtin_ctzll(m);
    }
    if (x < n && n >= 64) {
        /* the row's last 64 bytes, overlapping the step before: the bytes
         * before x are equal, so the first difference is at x or after */
        const int t = n - 64;
        const uint64_t m0 =
            (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(load(a + t), load(b + t)));
        const uint64_t m1 =
            (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(load(a + t + 32), load(b + t + 32)));
        const uint64_t m = ~(m0 | m1 << 32);
        return m ? t + (int)__builtin_ctzll(m) : n;
    }
    while (x < n && a[x] == b[x])
        x++;
    return x;
}

/* The bytes of 32 at a and b that differ by at most t: 0xff, else 0. */
static inline __m256i within32(const uint8_t *a, const uint8_t *b, __m256i t)
{
    return _mm256_cmpeq_epi8(_mm256_subs_epu8(absdiff(load(a), load(b)), t),
                             _mm256_setzero_si256());
}

/* The changed bytes of 32 at a and b as a mask. */
static inline unsigned changed32(const uint8_t *a, const uint8_t *b, __m256i t)
{
    return ~(unsigned)_mm256_movemask_epi8(within32(a, b, t));
}

/* 32 bytes a step: the first step that changed from the start and the last
 * from the end, for the first and last places; the steps between them only
 * counted, the bytes that did not change a byte lane at a time (at most 255
 * steps, then summed by sad); the tail (under 32 bytes) as the SSE2 kernel
 * takes it. */
int settle_count_row_changed_avx2(const uint8_t *a, const uint8_t *b, int n, int tol, int *first,
                                  int *last)
{
    if (tol < 0 || tol >= 255)
        return settle_count_row_changed(a, b, n, tol, first, last);
    const __m256i t = _mm256_set1_epi8((char)tol), z = _mm256_setzero_si256();
    int count = 0, lo = n, hi = -1;
    const int body = n & ~31;
    int x = 0;
    unsigned m = 0;
    for (; x < body && !(m = changed32(a + x, b + x, t)); x += 32)
        ;
    if (x < body) {
        int e = body - 32;
        unsigned me = 0;
        for (; e > x && !(me = changed32(a + e, b + e, t)); e -= 32)
            ;
        lo = x + __builtin_ctz(m);
        me = e > x ? me : m;
        hi = e + 31 - __builtin_clz(me);
        count = (int)_mm_popcnt_u32(m) + (e > x ? (int)_mm_popcnt_u32(me) : 0);
        for (int y = x + 32; y < e;) {
            const int end = e - y > 255 * 32 ? y + 255 * 32 : e, steps = (end - y) / 32;
            __m256i same = z;
            for (; y < end; y += 32)
                same = _mm256_sub_epi8(same, within32(a + y, b + y, t));
            const __m256i s = _mm256_sad_epu8(same, z);
            const __m128i s2 = _mm_add_epi64(_mm256_castsi256_si128(s),
                                             _mm256_extracti128_si256(s, 1));
            count += 32 * steps - (int)(_mm_cvtsi128_si64(s2) + _mm_extract_epi64(s2, 1));
        }
    }
    if (body < n && body) {
        /* the row's last 32 bytes, those before body (counted above) masked
         * off */
        const int tx = n - 32;
        const unsigned mt = changed32(a + tx, b + tx, t) & ~0u << (body - tx);
        count += (int)_mm_popcnt_u32(mt);
        if (mt) {
            lo = lo == n ? tx + __builtin_ctz(mt) : lo;
            hi = tx + 31 - __builtin_clz(mt);
        }
    } else if (body < n) {
        int f, l;
        count += settle_count_row_changed_sse2(a + body, b + body, n - body, tol, &f, &l);
        if (l >= 0) {
            lo = lo == n ? body + f : lo;
            hi = body + l;
        }
    }
    *first = lo;
    *last = hi;
    return count;
}

/* For each 8-bit mask, the lanes set in it, in order, 3 bits each from the
 * lowest: the permutation that packs a vector's lanes by a comparison. */
static const uint32_t pack_lanes[256] = {
    0x000000, 0x000000, 0x000001, 0x000008, 0x000002, 0x000010, 0x000011, 0x000088, 0x000003, 0x000018,
    0x000019, 0x0000c8, 0x00001a, 0x0000d0, 0x0000d1, 0x000688, 0x000004, 0x000020, 0x000021, 0x000108,
    0x000022, 0x000110, 0x000111, 0x000888, 0x000023, 0x000118, 0x000119, 0x0008c8, 0x00011a, 0x0008d0,
    0x0008d1, 0x004688, 0x000005, 0x000028, 0x000029, 0x000148, 0x00002a, 0x000150, 0x000151, 0x000a88,
    0x00002b, 0x000158, 0x000159, 0x000ac8, 0x00015a, 0x000ad0, 0x000ad1, 0x005688, 0x00002c, 0x000160,
    0x000161, 0x000b08, 0x000162, 0x000b10, 0x000b11, 0x005888, 0x000163, 0x000b18, 0x000b19, 0x0058c8,
    0x000b1a, 0x0058d0, 0x0058d1, 0x02c688, 0x000006, 0x000030, 0x000031, 0x000188, 0x000032, 0x000190,
    0x000191, 0x000c88, 0x000033, 0x000198, 0x000199, 0x000cc8, 0x00019a, 0x000cd0, 0x000cd1, 0x006688,
    0x000034, 0x0001a0, 0x0001a1, 0x000d08, 0x0001a2, 0x000d10, 0x000d11, 0x006888, 0x0001a3, 0x000d18,
    0x000d19, 0x0068c8, 0x000d1a, 0x0068d0, 0x0068d1, 0x034688, 0x000035, 0x0001a8, 0x0001a9, 0x000d48,
    0x0001aa, 0x000d50, 0x000d51, 0x006a88, 0x0001ab, 0x000d58, 0x000d59, 0x006ac8, 0x000d5a, 0x006ad0,
    0x006ad1, 0x035688, 0x0001ac, 0x000d60, 0x000d61, 0x006b08, 0x000d62, 0x006b10, 0x006b11, 0x035888,
    0x000d63, 0x006b18, 0x006b19, 0x0358c8, 0x006b1a, 0x0358d0, 0x0358d1, 0x1ac688, 0x000007, 0x000038,
    0x000039, 0x0001c8, 0x00003a, 0x0001d0, 0x0001d1, 0x000e88, 0x00003b, 0x0001d8, 0x0001d9, 0x000ec8,
    0x0001da, 0x000ed0, 0x000ed1, 0x007688, 0x00003c, 0x0001e0, 0x0001e1, 0x000f08, 0x0001e2, 0x000f10,
    0x000f11, 0x007888, 0x0001e3, 0x000f18, 0x000f19, 0x0078c8, 0x000f1a, 0x0078d0, 0x0078d1, 0x03c688,
    0x00003d, 0x0001e8, 0x0001e9, 0x000f48, 0x0001ea, 0x000f50, 0x000f51, 0x007a88, 0x0001eb, 0x000f58,
    0x000f59, 0x007ac8, 0x000f5a, 0x007ad0, 0x007ad1, 0x03d688, 0x0001ec, 0x000f60, 0x000f61, 0x007b08,
    0x000f62, 0x007b10, 0x007b11, 0x03d888, 0x000f63, 0x007b18, 0x007b19, 0x03d8c8, 0x007b1a, 0x03d8d0,
    0x03d8d1, 0x1ec688, 0x00003e, 0x0001f0, 0x0001f1, 0x000f88, 0x0001f2, 0x000f90, 0x000f91, 0x007c88,
    0x0001f3, 0x000f98, 0x000f99, 0x007cc8, 0x000f9a, 0x007cd0, 0x007cd1, 0x03e688, 0x0001f4, 0x000fa0,
    0x000fa1, 0x007d08, 0x000fa2, 0x007d10, 0x007d11, 0x03e888, 0x000fa3, 0x007d18, 0x007d19, 0x03e8c8,
    0x007d1a, 0x03e8d0, 0x03e8d1, 0x1f4688, 0x0001f5, 0x000fa8, 0x000fa9, 0x007d48, 0x000faa, 0x007d50,
    0x007d51, 0x03ea88, 0x000fab, 0x007d58, 0x007d59, 0x03eac8, 0x007d5a, 0x03ead0, 0x03ead1, 0x1f5688,
    0x000fac, 0x007d60, 0x007d61, 0x03eb08, 0x007d62, 0x03eb10, 0x03eb11, 0x1f5888, 0x007d63, 0x03eb18,
    0x03eb19, 0x1f58c8, 0x03eb1a, 0x1f58d0, 0x1f58d1, 0xfac688,
};

/* The scalar reference's passes (src/kernels.c) 8 keys a step: each vector's
 * keys below and above the pivot packed by a permutation and stored at the
 * two counts (over keys already read). The last step loads only the keys
 * left, the rest zero. */
int settle_select_part_avx2(const float *v, int32_t *keys, int n, int k, float *out)
{
    int32_t *cur = keys, *other = keys + n + 8;
    const __m256i magnitude = _mm256_set1_epi32(0x7fffffff);
    const __m256i shifts = _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21);
    const __m256i seven = _mm256_set1_epi32(7);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int i = 0; i < n; i += 8) {
        const __m256i live = _mm256_cmpgt_epi32(_mm256_set1_epi32(n - i), lane);
        const __m256i x = _mm256_maskload_epi32((const int *)(v + i), live);
        const __m256i flip = _mm256_and_si256(_mm256_srai_epi32(x, 31), magnitude);
        _mm256_storeu_si256((__m256i *)(cur + i), _mm256_xor_si256(x, flip));
    }
    for (int pass = 0; pass < SETTLE_SELECT_PASSES; pass++) {
        const int32_t p = settle_select_pivot(cur, n);
        const __m256i pv = _mm256_set1_epi32(p);
        int below = 0, above = 0;
        for (int i = 0; i < n; i += 8) {
            const __m256i x = _mm256_loadu_si256((const __m256i *)(cur + i));
            const unsigned live = n - i >= 8 ? 0xffu : (1u << (n - i)) - 1;
            const unsigned lt = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(pv, x))) & live;
            const unsigned gt = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(x, pv))) & live;
            const __m256i il = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)pack_lanes[lt]), shifts), seven);
            const __m256i ig = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)pack_lanes[gt]), shifts), seven);
            _mm256_storeu_si256((__m256i *)(cur + below), _mm256_permutevar8x32_epi32(x, il));
            _mm256_storeu_si256((__m256i *)(other + above), _mm256_permutevar8x32_epi32(x, ig));
            below += _mm_popcnt_u32(lt);
            above += _mm_popcnt_u32(gt);
        }
        if (settle_select_narrow(&cur, &other, &n, &k, below, above)) {
            const int32_t key = p < 0 ? p ^ 0x7fffffff : p;
            memcpy(out, &key, sizeof(*out));
            return 0;
        }
    }
    return -1;
}

/* 4 floats of ref and cur from f: cur - (float)(a * ref + o), in doubles as
 * the reference takes them (a multiply, then an add: no fused one). */
static inline __m128 block_error4(__m128 r, __m128 c, __m256d a, __m256d o)
{
    const __m256d fit = _mm256_add_pd(_mm256_mul_pd(_mm256_cvtps_pd(r), a), o);
    return _mm_sub_ps(c, _mm256_cvtpd_ps(fit));
}

/* 8 blocks a step: their 24 floats in three vectors, whose channels repeat
 * every 12 floats (the gains and offsets as three patterns of 4 doubles),
 * then each channel's 8 gathered by blends (its places in the three vectors
 * are apart) and a permutation. The blocks after the last step as the
 * reference. */
void settle_block_errors_avx2(const float *ref, const float *cur, int n, const double *a,
                              const double *o, float *err, float *ch)
{
    const __m256d ap[3] = { _mm256_setr_pd(a[0], a[1], a[2], a[0]),
                            _mm256_setr_pd(a[1], a[2], a[0], a[1]),
                            _mm256_setr_pd(a[2], a[0], a[1], a[2]) };
    const __m256d op[3] = { _mm256_setr_pd(o[0], o[1], o[2], o[0]),
                            _mm256_setr_pd(o[1], o[2], o[0], o[1]),
                            _mm256_setr_pd(o[2], o[0], o[1], o[2]) };
    const __m256i perm0 = _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5);
    const __m256i perm1 = _mm256_setr_epi32(1, 4, 7, 2, 5, 0, 3, 6);
    const __m256i perm2 = _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 e[3];
        for (int j = 0; j < 3; j++) {
            const float *r = ref + 3 * i + 8 * j, *c = cur + 3 * i + 8 * j;
            const __m128 lo = block_error4(_mm_loadu_ps(r), _mm_loadu_ps(c), ap[(2 * j) % 3],
                                           op[(2 * j) % 3]);
            const __m128 hi = block_error4(_mm_loadu_ps(r + 4), _mm_loadu_ps(c + 4),
                                           ap[(2 * j + 1) % 3], op[(2 * j + 1) % 3]);
            e[j] = _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
            if (err)
                _mm256_storeu_ps(err + 3 * i + 8 * j, e[j]);
        }
        if (!ch)
            continue;
        const __m256 c0 = _mm256_blend_ps(_mm256_blend_ps(e[0], e[1], 0x92), e[2], 0x24);
        const __m256 c1 = _mm256_blend_ps(_mm256_blend_ps(e[0], e[1], 0x24), e[2], 0x49);
        const __m256 c2 = _mm256_blend_ps(_mm256_blend_ps(e[0], e[1], 0x49), e[2], 0x92);
        _mm256_storeu_ps(ch + i, _mm256_permutevar8x32_ps(c0, perm0));
        _mm256_storeu_ps(ch + n + i, _mm256_permutevar8x32_ps(c1, perm1));
        _mm256_storeu_ps(ch + 2 * (size_t)n + i, _mm256_permutevar8x32_ps(c2, perm2));
    }
    for (; i < n; i++)
        for (int c = 0; c < 3; c++) {
            const float e = cur[3 * i + c] - (float)(a[c] * ref[3 * i + c] + o[c]);
            if (ch)
                ch[c * n + i] = e;
            if (err)
                err[3 * i + c] = e;
        }
}

/* 8 blocks' 24 floats (R G B each) as three vectors of a channel each: the
 * channels repeat every 12 floats, so each channel's 8 are gathered from the
 * three loads by two blends and a permutation (as settle_block_errors_avx2). */
static inline void split_channels(const float *p, __m256 *c0, __m256 *c1, __m256 *c2)
{
    const __m256 e0 = _mm256_loadu_ps(p), e1 = _mm256_loadu_ps(p + 8),
                 e2 = _mm256_loadu_ps(p + 16);
    *c0 = _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(e0, e1, 0x92), e2, 0x24),
                                   _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5));
    *c1 = _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(e0, e1, 0x24), e2, 0x49),
                                   _mm256_setr_epi32(1, 4, 7, 2, 5, 0, 3, 6));
    *c2 = _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(e0, e1, 0x49), e2, 0x92),
                                   _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7));
}

/* 8 blocks a step. g + g is 2 * g; t * 0.25 is t / 4 (the same real value,
 * rounded alike); the 32nd, exact in the reference's doubles, is exact in
 * floats too but for a quarter under 2^-121, which truncates to 0 either
 * way. cvttps gives INT_MIN for NaN and past int's range, as cvttsd does. */
void settle_block_levels_avx2(const float *ref, int n, uint8_t *lvl)
{
    const __m256 quarter = _mm256_set1_ps(0.25f), th = _mm256_set1_ps(0.03125f);
    const __m256i zero = _mm256_setzero_si256(), top = _mm256_set1_epi32(7);
    int k = 0;
    for (; k + 8 <= n; k += 8) {
        __m256 r, g, b;
        split_channels(ref + 3 * k, &r, &g, &b);
        const __m256 t = _mm256_add_ps(_mm256_add_ps(r, _mm256_add_ps(g, g)), b);
        __m256i l = _mm256_cvttps_epi32(_mm256_mul_ps(_mm256_mul_ps(t, quarter), th));
        l = _mm256_min_epi32(_mm256_max_epi32(l, zero), top);
        const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(l), _mm256_extracti128_si256(l, 1));
        _mm_storel_epi64((__m128i *)(lvl + k), _mm_packus_epi16(w, w));
    }
    if (k < n)
        settle_block_levels(ref + 3 * k, n - k, lvl + k);
}

/* 8 blocks a step; max_ps(a, b) is a > b ? a : b, the reference's test. */
void settle_block_residuals_avx2(const float *err, int n, int bins, float *res, uint16_t *bin)
{
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 eight = _mm256_set1_ps(8.0f);
    const __m256i zero = _mm256_setzero_si256(), top = _mm256_set1_epi32(bins - 1);
    int k = 0;
    for (; k + 8 <= n; k += 8) {
        __m256 e0, e1, e2;
        split_channels(err + 3 * k, &e0, &e1, &e2);
        __m256 m = _mm256_and_ps(e0, absm);
        m = _mm256_max_ps(_mm256_and_ps(e1, absm), m);
        m = _mm256_max_ps(_mm256_and_ps(e2, absm), m);
        _mm256_storeu_ps(res + k, m);
        __m256i i = _mm256_cvttps_epi32(_mm256_mul_ps(m, eight));
        i = _mm256_min_epi32(_mm256_max_epi32(i, zero), top);
        _mm_storeu_si128((__m128i *)(bin + k),
                         _mm_packus_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1)));
    }
    if (k < n)
        settle_block_residuals(err + 3 * k, n - k, bins, res + k, bin + k);
}

/* 4 blocks a step: their thresholds gathered by level, the divisions in
 * doubles, rounded to floats as the reference's cast; the counts from the
 * comparisons' masks; the largest share a lane, then across the lanes (a
 * share is never NaN-propagated: max_ps keeps the lane's when the share is
 * not greater). */
double settle_block_shares_avx2(const float *res, const uint8_t *lvl, const double *thr, int n,
                                float low, float *ratio, int counts[3])
{
    const __m128 vlow = _mm_set1_ps(low), one = _mm_set1_ps(1.0f);
    __m128 pk = _mm_setzero_ps();
    int below = 0, in = 0, over = 0, k = 0;
    for (; k + 4 <= n; k += 4) {
        int32_t l4;
        memcpy(&l4, lvl + k, sizeof(l4));
        const __m128i idx = _mm_cvtepu8_epi32(_mm_cvtsi32_si128(l4));
        const __m256d t = _mm256_i32gather_pd(thr, idx, 8);
        const __m128 q = _mm256_cvtpd_ps(_mm256_div_pd(_mm256_cvtps_pd(_mm_loadu_ps(res + k)), t));
        _mm_storeu_ps(ratio + k, q);
        below += _mm_popcnt_u32((unsigned)_mm_movemask_ps(_mm_cmp_ps(q, vlow, _CMP_LE_OQ)));
        in += _mm_popcnt_u32((unsigned)_mm_movemask_ps(_mm_cmp_ps(q, one, _CMP_LE_OQ)));
        over += _mm_popcnt_u32((unsigned)_mm_movemask_ps(_mm_cmp_ps(q, one, _CMP_GT_OQ)));
        pk = _mm_max_ps(q, pk);
    }
    float lanes[4];
    _mm_storeu_ps(lanes, pk);
    double peak = 0;
    for (int i = 0; i < 4; i++)
        peak = lanes[i] > peak ? lanes[i] : peak;
    if (k < n) {
        int c[3];
        const double p = settle_block_shares(res + k, lvl + k, thr, n - k, low, ratio + k, c);
        peak = p > peak ? p : peak;
        below += c[0];
        in += c[1];
        over += c[2];
    }
    counts[0] = below;
    counts[1] = in;
    counts[2] = over;
    return peak;
}
