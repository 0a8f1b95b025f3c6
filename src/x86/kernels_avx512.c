/* SPDX-License-Identifier: BSD-2-Clause */
/* AVX-512 (F and BW) versions of the kernels that read the decoder's rows:
 * the reduction and the whole capture's camera test. Built with -mavx512f
 * -mavx512bw -mpopcnt; the rest of a row is the AVX2 kernels'. */
#include <immintrin.h>

#include "kernels_x86.h"

/* f = 2: 64 outputs from 128 bytes of each of 2 rows, the pairs of a row
 * summed by maddubs (at most 510), the two rows added; f = 4: 32 outputs
 * from 128 bytes of each of 4 rows, then pairs of pairs by madd (at most
 * 4080). Rounded half up as the reference; other factors, and the tail of a
 * row, by the AVX2 kernel. */
void settle_reduce_plane_avx512(uint8_t *dst, ptrdiff_t dstride, const uint8_t *src,
                                ptrdiff_t sstride, int dw, int dh, int f)
{
    if (f != 2 && f != 4) {
        settle_reduce_plane(dst, dstride, src, sstride, dw, dh, f);
        return;
    }
    const __m512i ones8 = _mm512_set1_epi8(1), ones16 = _mm512_set1_epi16(1);
    /* packus and packs work within 128-bit lanes: the qwords put back in order */
    const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
    const int per = f == 2 ? 64 : 32, body = dw / per * per;
    for (int y = 0; y < dh; y++) {
        const uint8_t *s = src + (ptrdiff_t)y * f * sstride;
        uint8_t *d = dst + (ptrdiff_t)y * dstride;
        if (f == 2) {
            const uint8_t *s1 = s + sstride;
            for (int x = 0; x < body; x += 64) {
                __m512i w[2];
                for (int j = 0; j < 2; j++) {
                    const __m512i a = _mm512_loadu_si512(s + 2 * x + 64 * j);
                    const __m512i b = _mm512_loadu_si512(s1 + 2 * x + 64 * j);
                    w[j] = _mm512_add_epi16(_mm512_maddubs_epi16(a, ones8),
                                            _mm512_maddubs_epi16(b, ones8));
                    w[j] = _mm512_srli_epi16(_mm512_add_epi16(w[j], _mm512_set1_epi16(2)), 2);
                }
                const __m512i p = _mm512_permutexvar_epi64(order, _mm512_packus_epi16(w[0], w[1]));
                _mm512_storeu_si512(d + x, p);
            }
        } else {
            for (int x = 0; x < body; x += 32) {
                __m512i q[2];
                for (int j = 0; j < 2; j++) {
                    __m512i w = _mm512_setzero_si512();
                    for (int r = 0; r < 4; r++) {
                        const __m512i a =
                            _mm512_loadu_si512(s + (ptrdiff_t)r * sstride + 4 * x + 64 * j);
                        w = _mm512_add_epi16(w, _mm512_maddubs_epi16(a, ones8));
                    }
                    q[j] = _mm512_madd_epi16(w, ones16);
                }
                __m512i p = _mm512_permutexvar_epi64(order, _mm512_packs_epi32(q[0], q[1]));
                p = _mm512_srli_epi16(_mm512_add_epi16(p, _mm512_set1_epi16(8)), 4);
                _mm256_storeu_si256((__m256i *)(d + x), _mm512_cvtepi16_epi8(p));
            }
        }
    }
    if (body < dw)
        settle_reduce_plane_avx2(dst + body, dstride, src + (ptrdiff_t)body * f, sstride,
                                 dw - body, dh, f);
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
