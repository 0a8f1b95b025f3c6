/* SPDX-License-Identifier: BSD-2-Clause */
/* SSSE3 kernels (compiled with -mssse3, run only where the CPU has it): the
 * 4:2:0 conversion for CPUs without AVX2, 16 pixels a step, the same
 * arithmetic as settle_yuv420_rgb_avx2 on half the width. */
#include <tmmintrin.h>

#include "x86/kernels_x86.h"

/* Bytes 16 k .. 16 k + 15 of 16 interleaved pixels (48 bytes) take the
 * channel's byte of pixel i / 3 where i % 3 is the channel: pshufb indices,
 * -1 (zero) elsewhere. */
static inline __m128i interleave_mask(int channel, int k)
{
    int8_t m[16];
    for (int i = 0; i < 16; i++) {
        const int pos = 16 * k + i;
        m[i] = (int8_t)(pos % 3 == channel ? pos / 3 : -1);
    }
    return _mm_loadu_si128((const __m128i *)m);
}

/* Q6 sums of 8 pixels (the rounding is in yy) to whole levels. */
static inline __m128i to_q0(__m128i yy, __m128i c)
{
    return _mm_srai_epi16(_mm_adds_epi16(yy, c), 6);
}

/* (v - 128) << 8 for 8 samples. */
static inline __m128i chroma(const uint8_t *p, __m128i c128)
{
    const __m128i v = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)p), _mm_setzero_si128());
    return _mm_slli_epi16(_mm_sub_epi16(v, c128), 8);
}

void settle_yuv420_rgb_ssse3(uint8_t *dst, ptrdiff_t dstride, const uint8_t *y,
                             ptrdiff_t ystride, const uint8_t *u, ptrdiff_t ustride,
                             const uint8_t *v, ptrdiff_t vstride, int w, int h,
                             const SettleYuvCoef *k)
{
    const __m128i yoff = _mm_set1_epi16(k->y_off), c128 = _mm_set1_epi16(128);
    const __m128i cy = _mm_set1_epi16(k->cy), crv = _mm_set1_epi16(k->crv);
    const __m128i cgu = _mm_set1_epi16(k->cgu), cgv = _mm_set1_epi16(k->cgv);
    const __m128i cbu = _mm_set1_epi16(k->cbu), r32 = _mm_set1_epi16(32);
    const __m128i z = _mm_setzero_si128();
    __m128i m[3][3];
    for (int ch = 0; ch < 3; ch++)
        for (int b = 0; b < 3; b++)
            m[ch][b] = interleave_mask(ch, b);
    /* the last step ends at the row's end (an even start, for the chroma),
     * overlapping the one before: the same pixels, the same bytes */
    const int last = w >= 16 ? (w - 16) & ~1 : -1;
    const int body = last >= 0 ? last + 16 : 0;
    for (int r = 0; r < h; r++) {
        const uint8_t *py = y + r * ystride;
        const uint8_t *pu = u + (r >> 1) * ustride, *pv = v + (r >> 1) * vstride;
        uint8_t *out = dst + r * dstride;
        for (int x = 0; last >= 0; x += 16) {
            if (x > last)
                x = last;
            const __m128i uu = chroma(pu + x / 2, c128), vv = chroma(pv + x / 2, c128);
            const __m128i cc[3] = {
                _mm_mulhrs_epi16(vv, crv),
                _mm_add_epi16(_mm_mulhrs_epi16(uu, cgu), _mm_mulhrs_epi16(vv, cgv)),
                _mm_mulhrs_epi16(uu, cbu),
            };
            /* pixels 0-7 and 8-15 as 16-bit lanes; each chroma term spread
             * over its pixel pair lines up with them */
            const __m128i yb = _mm_loadu_si128((const __m128i *)(py + x));
            __m128i yy[2];
            for (int i = 0; i < 2; i++) {
                const __m128i y16 = i ? _mm_unpackhi_epi8(yb, z) : _mm_unpacklo_epi8(yb, z);
                yy[i] = _mm_add_epi16(
                    _mm_mulhrs_epi16(_mm_slli_epi16(_mm_sub_epi16(y16, yoff), 7), cy), r32);
            }
            __m128i ch8[3];
            for (int c = 0; c < 3; c++)
                ch8[c] = _mm_packus_epi16(to_q0(yy[0], _mm_unpacklo_epi16(cc[c], cc[c])),
                                          to_q0(yy[1], _mm_unpackhi_epi16(cc[c], cc[c])));
            for (int b = 0; b < 3; b++)
                _mm_storeu_si128((__m128i *)(out + 3 * x + 16 * b),
                                 _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(ch8[0], m[0][b]),
                                                           _mm_shuffle_epi8(ch8[1], m[1][b])),
                                              _mm_shuffle_epi8(ch8[2], m[2][b])));
            if (x == last)
                break;
        }
        if (body < w)
            settle_yuv420_tail(out + 3 * body, dstride, py + body, ystride, pu + body / 2,
                               ustride, pv + body / 2, vstride, w - body, 1, k);
    }
}
