/* SPDX-License-Identifier: BSD-2-Clause */
/* AVX-512 (F and BW) versions of the kernels that read the decoder's rows:
 * the reduction and the whole capture's camera test. Built with -mavx512f
 * -mavx512bw -mpopcnt; the rest of a row is the AVX2 kernels'. */
#include <immintrin.h>

#include "kernels_x86.h"

/* packus and packs work within 128-bit lanes: the qwords put back in order */
static inline __m512i lane_order(__m512i v)
{
    return _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), v);
}

/* f = 2: 64 outputs from 128 bytes of each of 2 rows, the pairs of a row
 * summed by maddubs (at most 510), the two rows added. */
static inline void reduce2_step(uint8_t *d, const uint8_t *s, ptrdiff_t sstride)
{
    const __m512i ones8 = _mm512_set1_epi8(1);
    __m512i w[2];
    for (int j = 0; j < 2; j++) {
        const __m512i a = _mm512_loadu_si512(s + 64 * j);
        const __m512i b = _mm512_loadu_si512(s + sstride + 64 * j);
        w[j] = _mm512_add_epi16(_mm512_maddubs_epi16(a, ones8), _mm512_maddubs_epi16(b, ones8));
        w[j] = _mm512_srli_epi16(_mm512_add_epi16(w[j], _mm512_set1_epi16(2)), 2);
    }
    _mm512_storeu_si512(d, lane_order(_mm512_packus_epi16(w[0], w[1])));
}

/* f = 4: 32 outputs from 128 bytes of each of 4 rows, then pairs of pairs by
 * madd (at most 4080). */
static inline void reduce4_step(uint8_t *d, const uint8_t *s, ptrdiff_t sstride)
{
    const __m512i ones8 = _mm512_set1_epi8(1), ones16 = _mm512_set1_epi16(1);
    __m512i q[2];
    for (int j = 0; j < 2; j++) {
        __m512i w = _mm512_setzero_si512();
        for (int r = 0; r < 4; r++) {
            const __m512i a = _mm512_loadu_si512(s + (ptrdiff_t)r * sstride + 64 * j);
            w = _mm512_add_epi16(w, _mm512_maddubs_epi16(a, ones8));
        }
        q[j] = _mm512_madd_epi16(w, ones16);
    }
    __m512i p = lane_order(_mm512_packs_epi32(q[0], q[1]));
    p = _mm512_srli_epi16(_mm512_add_epi16(p, _mm512_set1_epi16(8)), 4);
    _mm256_storeu_si256((__m256i *)d, _mm512_cvtepi16_epi8(p));
}

/* Rounded half up as the reference. A row at least one step wide takes its
 * last step again at the row's end, overlapping the step before (each
 * output is its own box's mean, so the overlap writes what is already
 * there); narrower rows and other factors by the AVX2 kernel. */
void settle_reduce_plane_avx512(uint8_t *dst, ptrdiff_t dstride, const uint8_t *src,
                                ptrdiff_t sstride, int dw, int dh, int f)
{
    const int per = f == 2 ? 64 : 32;
    if ((f != 2 && f != 4) || dw < per) {
        settle_reduce_plane_avx2(dst, dstride, src, sstride, dw, dh, f);
        return;
    }
    const int body = dw / per * per;
    for (int y = 0; y < dh; y++) {
        const uint8_t *s = src + (ptrdiff_t)y * f * sstride;
        uint8_t *d = dst + (ptrdiff_t)y * dstride;
        if (f == 2) {
            for (int x = 0; x < body; x += 64)
                reduce2_step(d + x, s + 2 * x, sstride);
            if (body < dw)
                reduce2_step(d + dw - 64, s + 2 * (dw - 64), sstride);
        } else {
            for (int x = 0; x < body; x += 32)
                reduce4_step(d + x, s + 4 * x, sstride);
            if (body < dw)
                reduce4_step(d + dw - 32, s + 4 * (dw - 32), sstride);
        }
    }
}

/* 64 bytes a step, without a branch: the changed bytes' mask (a mask
 * register) counted with popcnt, the first and last taken where it is not
 * empty; the tail (under 64 bytes) as the AVX2 kernel takes it. */
int settle_count_row_changed_avx512(const uint8_t *a, const uint8_t *b, int n, int tol,
                                    int *first, int *last)
{
    if (tol < 0 || tol >= 255)
        return settle_count_row_changed(a, b, n, tol, first, last);
    const __m512i t = _mm512_set1_epi8((char)tol);
    int count = 0, lo = n, hi = -1;
    const int body = n & ~63;
    for (int x = 0; x < body; x += 64) {
        const __m512i p = _mm512_loadu_si512(a + x), q = _mm512_loadu_si512(b + x);
        const __m512i d = _mm512_or_si512(_mm512_subs_epu8(p, q), _mm512_subs_epu8(q, p));
        const uint64_t m = _mm512_cmpgt_epu8_mask(d, t);
        count += (int)_mm_popcnt_u64(m);
        /* with a bit set outside the mask's own, so that both are defined:
         * they are the mask's own whenever it is not empty */
        const int f = x + __builtin_ctzll(m | 0x8000000000000000ull);
        const int l = x + 63 - __builtin_clzll(m | 1u);
        lo = lo == n && m ? f : lo;
        hi = m ? l : hi;
    }
    if (body < n) {
        int f, l;
        count += settle_count_row_changed_avx2(a + body, b + body, n - body, tol, &f, &l);
        if (l >= 0) {
            lo = lo == n ? body + f : lo;
            hi = body + l;
        }
    }
    *first = lo;
    *last = hi;
    return count;
}

/* The masks that interleave a channel's 16 bytes of a 128-bit lane into
 * bytes 16k to 16k + 15 of its 16 pixels' 48 (pshufb works per lane: the
 * same in each of the 4). */
static inline __m512i interleave_mask(int channel, int k)
{
    int8_t m[64];
    for (int i = 0; i < 16; i++) {
        const int pos = 16 * k + i;
        m[i] = m[i + 16] = m[i + 32] = m[i + 48] = (int8_t)(pos % 3 == channel ? pos / 3 : -1);
    }
    return _mm512_loadu_si512(m);
}

/* Q6 sums of 32 pixels (the rounding is in yy) to whole levels. */
static inline __m512i to_q0(__m512i yy, __m512i c)
{
    return _mm512_srai_epi16(_mm512_adds_epi16(yy, c), 6);
}

/* The chroma terms of 32 samples (pu, pv) for 64 pixels, each spread over
 * its two pixels: cc[c] for the luma lanes [0-7 | 16-23 | 32-39 | 48-55],
 * cc[3 + c] for the others, channel c of R, G, B; AVX2's chroma32 on twice
 * the samples. */
static inline void chroma64(const uint8_t *pu, const uint8_t *pv, __m512i crv, __m512i cgu,
                            __m512i cgv, __m512i cbu, __m512i cc[6])
{
    const __m512i c128 = _mm512_set1_epi16(128);
    const __m512i uu = _mm512_slli_epi16(
        _mm512_sub_epi16(_mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)pu)), c128), 8);
    const __m512i vv = _mm512_slli_epi16(
        _mm512_sub_epi16(_mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)pv)), c128), 8);
    const __m512i t[3] = { _mm512_mulhrs_epi16(vv, crv),
                           _mm512_add_epi16(_mm512_mulhrs_epi16(uu, cgu),
                                            _mm512_mulhrs_epi16(vv, cgv)),
                           _mm512_mulhrs_epi16(uu, cbu) };
    for (int c = 0; c < 3; c++) {
        cc[c] = _mm512_unpacklo_epi16(t[c], t[c]);
        cc[3 + c] = _mm512_unpackhi_epi16(t[c], t[c]);
    }
}

/* 64 pixels of luma at py with their chroma terms cc (chroma64's) as RGB at
 * out: AVX2's rgb32 on four lanes, then the lanes' 16-byte pieces put in
 * order (piece 3k + b of the 192 bytes is lane k of o[b]). */
static inline void rgb64(uint8_t *out, const uint8_t *py, const __m512i cc[6], __m512i yoff,
                         __m512i cy, __m512i m[3][3])
{
    const __m512i yb = _mm512_loadu_si512(py);
    const __m512i z = _mm512_setzero_si512(), r32 = _mm512_set1_epi16(32);
    __m512i yy[2];
    for (int i = 0; i < 2; i++) {
        const __m512i y16 = i ? _mm512_unpackhi_epi8(yb, z) : _mm512_unpacklo_epi8(yb, z);
        yy[i] = _mm512_add_epi16(
            _mm512_mulhrs_epi16(_mm512_slli_epi16(_mm512_sub_epi16(y16, yoff), 7), cy), r32);
    }
    __m512i ch8[3];
    for (int c = 0; c < 3; c++)
        ch8[c] = _mm512_packus_epi16(to_q0(yy[0], cc[c]), to_q0(yy[1], cc[3 + c]));
    __m512i o[3];
    for (int b = 0; b < 3; b++)
        o[b] = _mm512_or_si512(_mm512_or_si512(_mm512_shuffle_epi8(ch8[0], m[0][b]),
                                               _mm512_shuffle_epi8(ch8[1], m[1][b])),
                               _mm512_shuffle_epi8(ch8[2], m[2][b]));
    /* qwords 2k and 2k + 1 are lane k; 8 + i is the second source's i */
    const __m512i i0 = _mm512_setr_epi64(0, 1, 8, 9, 0, 0, 2, 3);
    const __m512i i1 = _mm512_setr_epi64(2, 3, 0, 0, 12, 13, 4, 5);
    const __m512i i2 = _mm512_setr_epi64(4, 5, 14, 15, 0, 0, 6, 7);
    const __m512i w0 = _mm512_inserti32x4(_mm512_permutex2var_epi64(o[0], i0, o[1]),
                                          _mm512_extracti32x4_epi32(o[2], 0), 2);
    const __m512i w1 = _mm512_inserti32x4(_mm512_permutex2var_epi64(o[1], i1, o[0]),
                                          _mm512_extracti32x4_epi32(o[2], 1), 1);
    const __m512i w2 = _mm512_inserti32x4(_mm512_permutex2var_epi64(o[2], i2, o[0]),
                                          _mm512_extracti32x4_epi32(o[1], 3), 2);
    _mm512_storeu_si512(out, w0);
    _mm512_storeu_si512(out + 64, w1);
    _mm512_storeu_si512(out + 128, w2);
}

/* AVX2's conversion 64 pixels a step: two rows at a time, the chroma terms
 * made once for both; the last step ends at the row's end, overlapping the
 * one before (the same pixels, the same bytes); rows under 64 pixels by the
 * AVX2 kernel. */
void settle_yuv420_rgb_avx512(uint8_t *dst, ptrdiff_t dstride, const uint8_t *y,
                              ptrdiff_t ystride, const uint8_t *u, ptrdiff_t ustride,
                              const uint8_t *v, ptrdiff_t vstride, int w, int h,
                              const SettleYuvCoef *k)
{
    if (w < 64) {
        settle_yuv420_rgb_avx2(dst, dstride, y, ystride, u, ustride, v, vstride, w, h, k);
        return;
    }
    const __m512i yoff = _mm512_set1_epi16(k->y_off), cy = _mm512_set1_epi16(k->cy);
    const __m512i crv = _mm512_set1_epi16(k->crv), cgu = _mm512_set1_epi16(k->cgu);
    const __m512i cgv = _mm512_set1_epi16(k->cgv), cbu = _mm512_set1_epi16(k->cbu);
    __m512i m[3][3];
    for (int ch = 0; ch < 3; ch++)
        for (int b = 0; b < 3; b++)
            m[ch][b] = interleave_mask(ch, b);
    const int last = (w - 64) & ~1, body = last + 64;
    for (int r = 0; r < h; r += 2) {
        const int rows = h - r < 2 ? 1 : 2;
        const uint8_t *py = y + r * ystride;
        const uint8_t *pu = u + (r >> 1) * ustride, *pv = v + (r >> 1) * vstride;
        uint8_t *out = dst + r * dstride;
        for (int x = 0;; x += 64) {
            if (x > last)
                x = last;
            __m512i cc[6];
            chroma64(pu + x / 2, pv + x / 2, crv, cgu, cgv, cbu, cc);
            rgb64(out + 3 * x, py + x, cc, yoff, cy, m);
            if (rows == 2)
                rgb64(out + dstride + 3 * x, py + ystride + x, cc, yoff, cy, m);
            if (x == last)
                break;
        }
        if (body < w)
            settle_yuv420_tail(out + 3 * body, dstride, py + body, ystride, pu + body / 2,
                               ustride, pv + body / 2, vstride, w - body, rows, k);
    }
}
