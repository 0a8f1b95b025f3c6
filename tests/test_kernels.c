/* SPDX-License-Identifier: BSD-2-Clause */
/* Every kernel of every instruction set this CPU has (src/x86/) against the
 * scalar reference, bit for bit: random pictures and the edges (widths that
 * leave tails, padded strides, nothing changed, every byte changed,
 * differences exactly at the tolerances, tolerances at and beyond their ends). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels.h"

enum { MAXW = 200, MAXH = 3, PAD = 7 };

static const int widths[] = { 1, 2, 3, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 95, 96,
                              97, 130, MAXW };
static const int tols[][2] = { { 5, 96 }, { 0, 255 }, { 255, 0 }, { 1, 1 }, { 127, 128 },
                               { -1, 300 } };
static const int mtols[] = { 0, 20, 255, -1 };

/* How cur differs from prev. */
enum { SAME, ALL_BYTES, RANDOM, NEAR_TOL, SPARSE, MARKERS, CONTENTS };

static unsigned seed = 1;
static unsigned rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed >> 8;
}

static const uint8_t marker[3] = { 0xf4, 0x80, 0x2a };

/* prev random; cur from it as `content` says, differences of tol and tol + 1 for NEAR_TOL. */
static void make(uint8_t *cur, uint8_t *prev, ptrdiff_t stride, int w, int h, int content, int tol)
{
    for (ptrdiff_t i = 0; i < stride * h; i++)
        prev[i] = (uint8_t)rnd();
    memcpy(cur, prev, (size_t)(stride * h));
    for (int y = 0; y < h; y++) {
        uint8_t *c = cur + y * stride;
        for (int x = 0; x < 3 * w; x++) {
            unsigned r = rnd();
            switch (content) {
            case ALL_BYTES: c[x] ^= (uint8_t)(1 + r % 255); break;
            case RANDOM: c[x] = (uint8_t)(r >> 4); break;
            case NEAR_TOL: {
                int d = tol + (int)(r % 3) - 1, v = c[x] + (r & 8 ? d : -d);
                if (r % 4 == 0 && v >= 0 && v <= 255)
                    c[x] = (uint8_t)v;
                break;
            }
            case SPARSE: if (r % 97 == 0) c[x] = (uint8_t)(r >> 4); break;
            case MARKERS:
                if (x % 3 == 0 && r % 3 == 0)
                    memcpy(c + x, marker, 3);
                if (x % 3 == 0 && r % 5 == 0)
                    memcpy(prev + y * stride + x, marker, 3);
                break;
            default: break;
            }
        }
    }
    /* a picture all one colour */
    if (content == SAME && rnd() % 2)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < 3 * w; x++)
                cur[y * stride + x] = prev[y * stride + x] = marker[x % 3];
}

/* change_masks row by row against the reference, the reference's bits
 * against count_changed (n changed pixels, s strongly), and the words past
 * the row untouched. */
static void check_masks(const SettleKernels *k, const uint8_t *cur, const uint8_t *prev,
                        ptrdiff_t stride, int w, int h, int tol, int stol, int64_t n, int64_t s,
                        const char *what)
{
    enum { WORDS = (MAXW + 15) / 16 + 1 };
    int64_t bits = 0, strong = 0;
    for (int y = 0; y < h; y++) {
        uint64_t m_ref[WORDS], m_k[WORDS];
        memset(m_ref, 0x5a, sizeof(m_ref));
        memset(m_k, 0x5a, sizeof(m_k));
        settle_change_masks(cur + y * stride, prev + y * stride, w, tol, stol, m_ref);
        k->change_masks(cur + y * stride, prev + y * stride, w, tol, stol, m_k);
        if (memcmp(m_ref, m_k, sizeof(m_ref)))
            fail_msg("change_masks %s: row %d", what, y);
        for (int i = 0; i < (w + 15) / 16; i++) {
            uint64_t pixels = i < w / 16 ? 0xffffffffffffull : (1ull << (3 * (w % 16))) - 1;
            if (m_ref[i] & ~(pixels & 0x6db6db6db6dbull))
                fail_msg("change_masks %s: bits beyond the pixels in word %d", what, i);
            bits += __builtin_popcountll(m_ref[i] & 0x249249249249ull);
            strong += __builtin_popcountll(m_ref[i] & 0x492492492492ull);
        }
    }
    if (bits != n || strong != s)
        fail_msg("change_masks %s: %lld/%lld bits, count_changed %lld/%lld", what,
                 (long long)bits, (long long)strong, (long long)n, (long long)s);
}

enum { MASKS = MAXH * ((MAXW + 15) / 16) + 1 };

/* A band's masks (renew_rgb's, delta_rgb's) against change_masks row by
 * row, and nothing written past them. */
static void check_band_masks(const uint8_t *cur, const uint8_t *prev, ptrdiff_t stride, int w,
                             int h, int tol, int stol, const uint64_t *masks, const char *kernel,
                             const char *what)
{
    const int words = (w + 15) / 16;
    for (int y = 0; y < h; y++) {
        uint64_t row[(MAXW + 15) / 16];
        settle_change_masks(cur + y * stride, prev + y * stride, w, tol, stol, row);
        if (memcmp(row, masks + y * words, (size_t)words * sizeof(*row)))
            fail_msg("%s %s: masks of row %d", kernel, what, y);
    }
    uint64_t guard;
    memset(&guard, 0x5a, sizeof(guard));
    for (int i = h * words; i < MASKS; i++)
        if (masks[i] != guard)
            fail_msg("%s %s: word %d past the masks written", kernel, what, i);
}

static void check(const SettleKernels *k, const char *path)
{
    SettleKernels scalar;
    settle_kernels_init(&scalar, 0);
    const SettleKernels *ref = &scalar;
    const ptrdiff_t max_stride = 3 * MAXW + PAD;
    uint8_t *cur = malloc((size_t)max_stride * MAXH), *prev = malloc((size_t)max_stride * MAXH);
    uint8_t *p_ref = malloc((size_t)max_stride * MAXH), *p_k = malloc((size_t)max_stride * MAXH);
    assert_non_null(cur && prev && p_ref && p_k);
    long checks = 0;
    for (size_t wi = 0; wi < sizeof(widths) / sizeof(*widths); wi++)
        for (int h = 1; h <= MAXH; h += 2)
            for (int pad = 0; pad <= PAD; pad += PAD)
                for (int content = 0; content < CONTENTS; content++)
                    for (size_t ti = 0; ti < sizeof(tols) / sizeof(*tols); ti++) {
        const int w = widths[wi], tol = tols[ti][0], stol = tols[ti][1];
        const ptrdiff_t stride = 3 * w + pad;
        const int mtol = mtols[(wi + ti) % 4];
        make(cur, prev, stride, w, h, content, tol);
        char what[160];
        snprintf(what, sizeof(what), "%s: w %d h %d stride %td content %d tol %d/%d mtol %d",
                 path, w, h, stride, content, tol, stol, mtol);

        int64_t s_ref = -1, s_k = -2;
        int64_t n_ref = ref->count_changed(cur, stride, prev, stride, w, h, tol, stol, &s_ref);
        int64_t n_k = k->count_changed(cur, stride, prev, stride, w, h, tol, stol, &s_k);
        if (n_ref != n_k || s_ref != s_k)
            fail_msg("count_changed %s: %lld/%lld, reference %lld/%lld", what, (long long)n_k,
                     (long long)s_k, (long long)n_ref, (long long)s_ref);
        assert_int_equal(k->count_changed(cur, stride, prev, stride, w, h, tol, stol, NULL),
                         n_ref);
        check_masks(k, cur, prev, stride, w, h, tol, stol, n_ref, s_ref, what);
        /* bottom-up pictures: the last row first, a negative stride */
        const uint8_t *cur_up = cur + (h - 1) * stride, *prev_up = prev + (h - 1) * stride;
        assert_int_equal(k->count_changed(cur_up, -stride, prev_up, -stride, w, h, tol, stol,
                                          &s_k),
                         n_ref);
        assert_int_equal(s_k, s_ref);
        assert_int_equal(k->count_color(cur_up, -stride, w, h, marker, mtol),
                         ref->count_color(cur, stride, w, h, marker, mtol));

        if (k->count_color(cur, stride, w, h, marker, mtol) !=
                ref->count_color(cur, stride, w, h, marker, mtol) ||
            k->count_color(prev, stride, w, h, marker, mtol) !=
                ref->count_color(prev, stride, w, h, marker, mtol))
            fail_msg("count_color %s", what);

        uint32_t h_ref[SETTLE_HIST_BINS] = { 0 }, h_k[SETTLE_HIST_BINS] = { 0 };
        ref->histogram_rgb(cur, stride, w, h, h_ref);
        k->histogram_rgb(cur, stride, w, h, h_k);
        if (memcmp(h_ref, h_k, sizeof(h_ref)))
            fail_msg("histogram_rgb %s", what);

        /* a band counted afresh: the counts, cur's values added to a
         * histogram that holds some already, prev made cur, its padding
         * untouched */
        memcpy(p_ref, prev, (size_t)(stride * h));
        memcpy(p_k, prev, (size_t)(stride * h));
        for (int i = 0; i < SETTLE_HIST_BINS; i++)
            h_ref[i] = h_k[i] = rnd() % 1000;
        SettleDelta r_ref, r_k;
        memset(&r_k, 0xa5, sizeof(r_k));
        uint64_t mk_ref[MASKS], mk_k[MASKS];
        memset(mk_ref, 0x5a, sizeof(mk_ref));
        memset(mk_k, 0x5a, sizeof(mk_k));
        uint32_t h_init[SETTLE_HIST_BINS];
        memcpy(h_init, h_k, sizeof(h_init));
        ref->renew_rgb(cur, stride, p_ref, stride, w, h, tol, stol, h_ref, mk_ref, &r_ref);
        /* without masks, then again with them: the same result */
        k->renew_rgb(cur, stride, p_k, stride, w, h, tol, stol, h_k, NULL, &r_k);
        if (memcmp(h_ref, h_k, sizeof(h_ref)) || memcmp(p_ref, p_k, (size_t)(stride * h)))
            fail_msg("renew_rgb %s: without masks", what);
        SettleDelta r_nomask = r_k;
        memcpy(p_k, prev, (size_t)(stride * h));
        memcpy(h_k, h_init, sizeof(h_k));
        k->renew_rgb(cur, stride, p_k, stride, w, h, tol, stol, h_k, mk_k, &r_k);
        if (memcmp(&r_nomask, &r_k, sizeof(r_k)))
            fail_msg("renew_rgb %s: counts differ with masks", what);
        if (tol >= 0 && tol <= 255)
            check_band_masks(cur, prev, stride, w, h, tol, stol, mk_ref, "renew_rgb reference",
                             what);
        if (memcmp(mk_ref, mk_k, sizeof(mk_ref)))
            fail_msg("renew_rgb %s: masks", what);
        if (r_ref.changed != r_k.changed || r_ref.strong != r_k.strong ||
            r_ref.rows != r_k.rows || r_ref.differ != r_k.differ || r_k.marker != 0)
            fail_msg("renew_rgb %s: %lld/%lld/%lld/%lld, reference %lld/%lld/%lld/%lld", what,
                     (long long)r_k.changed, (long long)r_k.strong, (long long)r_k.rows,
                     (long long)r_k.differ, (long long)r_ref.changed, (long long)r_ref.strong,
                     (long long)r_ref.rows, (long long)r_ref.differ);
        if (memcmp(h_ref, h_k, sizeof(h_ref)))
            fail_msg("renew_rgb %s: histogram", what);
        if (memcmp(p_ref, p_k, (size_t)(stride * h)))
            fail_msg("renew_rgb %s: previous picture", what);
        /* the reference's counts, taken another way */
        assert_int_equal(r_ref.changed, n_ref);
        assert_int_equal(r_ref.strong, s_ref);
        int64_t rows_differ = 0, px_differ = ref->count_changed(cur, stride, prev, stride, w, h,
                                                                 0, 0, NULL);
        for (int y = 0; y < h; y++)
            rows_differ += memcmp(cur + y * stride, prev + y * stride, (size_t)w * 3) != 0;
        assert_int_equal(r_ref.rows, rows_differ);
        assert_int_equal(r_ref.differ, px_differ);

        /* the incremental kernel, with and without the marker: the counts,
         * the histogram moved, prev updated and its padding untouched; then
         * k's with no histogram (m >= 2): the same counts, masks and copy */
        for (int m = 0; m < 4; m++) {
            const uint8_t *mk = m % 2 ? marker : NULL;
            memcpy(p_ref, prev, (size_t)(stride * h));
            memcpy(p_k, prev, (size_t)(stride * h));
            memset(h_ref, 0, sizeof(h_ref));
            ref->histogram_rgb(prev, stride, w, h, h_ref);
            memcpy(h_k, h_ref, sizeof(h_ref));
            SettleDelta d_ref, d_k;
            memset(&d_k, 0xa5, sizeof(d_k));
            memset(mk_ref, 0x5a, sizeof(mk_ref));
            memset(mk_k, 0x5a, sizeof(mk_k));
            ref->delta_rgb(cur, stride, p_ref, stride, w, h, tol, stol, mk, mtol, h_ref,
                           m ? mk_ref : NULL, &d_ref);
            k->delta_rgb(cur, stride, p_k, stride, w, h, tol, stol, mk, mtol, m < 2 ? h_k : NULL,
                         m ? mk_k : NULL, &d_k);
            if (m >= 2)
                memcpy(h_k, h_ref, sizeof(h_ref));
            if (m && tol >= 0 && tol <= 255)
                check_band_masks(cur, prev, stride, w, h, tol, stol, mk_ref,
                                 "delta_rgb reference", what);
            if (m && memcmp(mk_ref, mk_k, sizeof(mk_ref)))
                fail_msg("delta_rgb %s: masks", what);
            if (d_ref.changed != d_k.changed || d_ref.strong != d_k.strong ||
                d_ref.marker != d_k.marker || d_ref.rows != d_k.rows)
                fail_msg("delta_rgb %s marker %d: %lld/%lld/%lld/%lld, reference "
                         "%lld/%lld/%lld/%lld", what, m, (long long)d_k.changed,
                         (long long)d_k.strong, (long long)d_k.marker, (long long)d_k.rows,
                         (long long)d_ref.changed, (long long)d_ref.strong,
                         (long long)d_ref.marker, (long long)d_ref.rows);
            if (memcmp(h_ref, h_k, sizeof(h_ref)))
                fail_msg("delta_rgb %s marker %d: histogram", what, m);
            if (memcmp(p_ref, p_k, (size_t)(stride * h)))
                fail_msg("delta_rgb %s marker %d: previous picture", what, m);
        }
        checks++;
    }
    free(cur);
    free(prev);
    free(p_ref);
    free(p_k);
    print_message("%s: %ld cases agree with the scalar reference\n", path, checks);
}

/* Where two rows first differ: the reference against the definition, and
 * k's against the reference, for every length up to 300 with the first
 * difference at every place (or none) and another after it, at odd offsets. */
static void check_row_first_diff(const SettleKernels *k, const char *path)
{
    enum { N = 300 };
    uint8_t *a = malloc(N + 1), *b = malloc(N + 1);
    assert_non_null(a);
    assert_non_null(b);
    long checks = 0;
    for (int n = 0; n <= N; n++)
        for (int off = 0; off < 2 && off + n <= N + 1; off++)
            for (int i = -1; i < n; i++)
                for (int j = i; j < n; j += (n - i) / 3 + 1) {
                    uint8_t *pa = a + off, *pb = b + off;
                    for (int x = 0; x < n; x++)
                        pa[x] = pb[x] = (uint8_t)rnd();
                    if (i >= 0) {
                        pb[i] ^= (uint8_t)(1 + rnd() % 255);
                        pb[j] ^= (uint8_t)(1 + rnd() % 255); /* j == i: may restore it */
                    }
                    int first = 0;
                    while (first < n && pa[first] == pb[first])
                        first++;
                    assert_int_equal(settle_row_first_diff(pa, pb, n), first);
                    if (k->row_first_diff(pa, pb, n) != first)
                        fail_msg("row_first_diff %s: length %d, differences at %d and %d", path,
                                 n, i, j);
                    checks++;
                }
    free(a);
    free(b);
    print_message("row_first_diff %s: %ld rows agree\n", path, checks);
}

/* The streamed copy: every length up to 300, from every source and
 * destination offset within 16 bytes, neither byte before nor after the
 * destination's written. */
static void check_copy_stream(const SettleKernels *k, const char *path)
{
    enum { N = 300, OFF = 16 };
    uint8_t *src = malloc(N + OFF), *dst = malloc(N + 3 * OFF), *want = malloc(N + 3 * OFF);
    assert_non_null(src);
    assert_non_null(dst);
    assert_non_null(want);
    long checks = 0;
    for (int n = 0; n <= N; n++)
        for (int so = 0; so < OFF; so += 5)
            for (int dof = 0; dof < OFF; dof++) {
                for (int x = 0; x < N + OFF; x++)
                    src[x] = (uint8_t)rnd();
                for (int x = 0; x < N + 3 * OFF; x++)
                    dst[x] = want[x] = (uint8_t)rnd();
                memcpy(want + OFF + dof, src + so, (size_t)n);
                k->copy_stream(dst + OFF + dof, src + so, (size_t)n);
                if (memcmp(dst, want, N + 3 * OFF))
                    fail_msg("copy_stream %s: %d bytes, offsets %d and %d", path, n, so, dof);
                checks++;
            }
    free(src);
    free(dst);
    free(want);
    print_message("copy_stream %s: %ld copies agree\n", path, checks);
}

/* Lines out of the caches: every length up to 300 from every offset within
 * a cache line, over bytes just written (lines the caches hold changed,
 * which must reach memory) and over bytes only read; no byte inside or
 * around the range changes. */
static void check_evict(const SettleKernels *k, const char *path)
{
    enum { N = 300, OFF = 64, SIZE = 512 }; /* N + 3 * OFF, in whole lines */
    uint8_t *buf = aligned_alloc(64, SIZE), *want = malloc(SIZE);
    assert_non_null(buf);
    assert_non_null(want);
    long checks = 0;
    for (int n = 0; n <= N; n++)
        for (int off = 0; off < OFF; off += 3)
            for (int written = 0; written < 2; written++) {
                if (written || !checks)
                    for (int x = 0; x < SIZE; x++)
                        buf[x] = (uint8_t)rnd();
                memcpy(want, buf, SIZE);
                k->evict(buf + OFF + off, (size_t)n);
                if (memcmp(buf, want, SIZE))
                    fail_msg("evict %s: %d bytes at offset %d", path, n, off);
                checks++;
            }
    free(buf);
    free(want);
    print_message("evict %s: %ld ranges left as they were\n", path, checks);
}

/* Column sums of random rows: every width up to 100 (tails of every length)
 * and some wider, at odd offsets, with row counts from 1 to past 257 (where
 * the 16-bit sums wrap). */
static void check_sum_rows(const SettleKernels *k, const char *path)
{
    enum { N = 1100, ROWS = 300, STRIDE = N + 13 };
    static const int rows[] = { 1, 2, 3, 4, 5, 6, 7, 9, 17, 257, 258, ROWS };
    uint8_t *p = malloc((size_t)STRIDE * ROWS);
    uint16_t *s_ref = malloc(sizeof(uint16_t) * (N + 1)), *s_k = malloc(sizeof(uint16_t) * (N + 1));
    assert_non_null(p && s_ref && s_k);
    for (size_t i = 0; i < (size_t)STRIDE * ROWS; i++)
        p[i] = (uint8_t)(i % 7 ? rnd() : 255);
    long checks = 0;
    for (int n = 1; n < N; n = n < 100 ? n + 1 : n * 3 / 2 + 1)
        for (size_t ri = 0; ri < sizeof(rows) / sizeof(*rows); ri++)
            for (int off = 0; off < 3; off++) {
                s_ref[n] = s_k[n] = 0x5a5a;
                settle_sum_rows(p + off, STRIDE, n, rows[ri], s_ref);
                k->sum_rows(p + off, STRIDE, n, rows[ri], s_k);
                if (memcmp(s_ref, s_k, sizeof(uint16_t) * (size_t)(n + 1)))
                    fail_msg("sum_rows %s: n %d rows %d offset %d", path, n, rows[ri], off);
                checks++;
            }
    /* the reference itself, against sums taken here */
    for (int i = 0; i < 50; i++) {
        unsigned sum = 0;
        for (int r = 0; r < ROWS; r++)
            sum += p[r * STRIDE + i];
        settle_sum_rows(p, STRIDE, 50, ROWS, s_ref);
        assert_int_equal(s_ref[i], sum % 65536);
    }
    free(p);
    free(s_ref);
    free(s_k);
    print_message("%s: %ld sum_rows cases agree with the scalar reference\n", path, checks);
}

/* The block test's fit sums: block means as the block test makes them (an
 * integer sum over 64 or 256 pixels) and references drifted by a leak (any
 * float), n from 1 to past a 720p picture's 3,600 blocks (the last block's
 * fourth float lies past the arrays: they end there), with every block,
 * with bounds that leave some blocks out, residuals exactly at the bound
 * (kept), all out and none out. The same doubles, to the bit: a sum taken in
 * another order would round differently over so many terms. */
static void check_fit_sums(const SettleKernels *k, const char *path)
{
    enum { NB = 3700 };
    static const int ns[] = { 1, 2, 3, 4, 5, 7, 8, 31, 100, 1000, 3600, NB };
    long checks = 0;
    for (size_t ni = 0; ni < sizeof(ns) / sizeof(*ns); ni++) {
        const int n = ns[ni];
        float *ref = malloc(sizeof(float) * 3 * (size_t)n);
        float *cur = malloc(sizeof(float) * 3 * (size_t)n);
        assert_non_null(ref && cur);
        for (int i = 0; i < 3 * n; i++) {
            cur[i] = (float)(rnd() % (256 * 64)) / (i % 2 ? 64.0f : 256.0f);
            ref[i] = i % 5 ? cur[i] + ((float)(rnd() % 2001) - 1000.0f) / 997.0f
                           : (float)(rnd() % 255) * 0.987654f;
            if (i % 11 == 0) /* an outlier: content */
                cur[i] = ref[i] + 40.0f;
            if (i % 13 == 0) /* a residual exactly at the bound of 1.5 below */
                cur[i] = ref[i] + 1.5f;
        }
        const double a[][3] = { { 1, 1, 1 }, { 0.9, 1.1, 1.37 }, { 1.6, 0.6, 1 } };
        const double o[][3] = { { 0, 0, 0 }, { -3.25, 0.5, 12.0 }, { 40, -40, 0.1 } };
        const double lims[][3] = { { 1, 1, 1 }, { 1.5, 1.5, 1.5 }, { 2.7, 1, 30 },
                                   { 0, 0, 0 }, { INFINITY, INFINITY, INFINITY } };
        for (size_t ai = 0; ai < sizeof(a) / sizeof(*a); ai++)
            for (int li = -1; li < (int)(sizeof(lims) / sizeof(*lims)); li++) {
                double s_ref[5][3], s_k[5][3];
                const double *lim = li < 0 ? NULL : lims[li];
                settle_fit_sums(ref, cur, n, a[ai], o[ai], lim, s_ref);
                k->fit_sums(ref, cur, n, a[ai], o[ai], lim, s_k);
                if (memcmp(s_ref, s_k, sizeof(s_ref)))
                    fail_msg("fit_sums %s: n %d fit %zu bound %d", path, n, ai, li);
                /* the reference counts what it sums */
                if (!lim)
                    for (int c = 0; c < 3; c++)
                        assert_true(s_ref[4][c] == n);
                checks++;
            }
        free(ref);
        free(cur);
    }
    print_message("%s: %ld fit_sums cases agree with the scalar reference\n", path, checks);
}

/* A float the block test's per-block kernels may meet: means and errors of
 * every size, with ties at the levels' and bins' edges, and now and then a
 * sign, a zero of either sign, a NaN, an infinity, a denormal or a value
 * past int's range. */
static float block_value(int i)
{
    static const float odd[] = { -0.0f, 0.0f, -1.5f, -300.0f, 3e9f, -3e9f, 1e-40f, 128.0f,
                                 127.99999f, 255.0f, 63.875f, 63.874996f, 0.125f, 0.12499999f };
    const uint32_t r = rnd();
    if (r % 29 == 0)
        return odd[rnd() % (sizeof(odd) / sizeof(*odd))];
    if (r % 97 == 1)
        return r & 64 ? NAN : (r & 128 ? INFINITY : -INFINITY);
    if (r % 5 == 2)
        return (float)(rnd() % 256) / 8.0f * (i % 2 ? 1.0f : -1.0f);
    return (float)(rnd() % (256 * 4096)) / 4096.0f - (r % 3 == 0 ? 100.0f : 0.0f);
}

/* The block test's levels, residuals and shares: every length up to 100
 * blocks (tails of every length after the steps), against the reference,
 * and the reference against its definition. */
static void check_block_stats(const SettleKernels *k, const char *path)
{
    enum { N = 100, BINS = 512 };
    float ref[3 * N], res[N], res_k[N], ratio[N], ratio_k[N];
    uint8_t lvl[N], lvl_k[N];
    uint16_t bin[N], bin_k[N];
    const double thr[][8] = { { 10, 10, 10, 10, 10, 10, 10, 10 },
                              { 10, 12.5, 3.3333333333, 60, 0.1, 7, 1e-300, 1e300 } };
    const float lows[] = { 1.0f / 6.0f, 0.16666667f, 1.0f, 0.0f };
    long checks = 0;
    for (int round = 0; round < 8; round++)
        for (int n = 1; n <= N; n++) {
            for (int i = 0; i < 3 * n; i++)
                ref[i] = block_value(i);
            memset(lvl_k, 0x55, sizeof(lvl_k));
            memcpy(lvl, lvl_k, sizeof(lvl));
            settle_block_levels(ref, n, lvl);
            k->block_levels(ref, n, lvl_k);
            if (memcmp(lvl, lvl_k, sizeof(lvl)))
                fail_msg("block_levels %s: n %d round %d", path, n, round);
            for (int i = 0; i < n; i++) {
                const int l = (int)((ref[3 * i] + 2 * ref[3 * i + 1] + ref[3 * i + 2]) / 4 / 32.0);
                assert_int_equal(lvl[i], l < 0 ? 0 : l > 7 ? 7 : l);
            }
            memset(res_k, 0x55, sizeof(res_k));
            memset(bin_k, 0x55, sizeof(bin_k));
            memcpy(res, res_k, sizeof(res));
            memcpy(bin, bin_k, sizeof(bin));
            settle_block_residuals(ref, n, BINS, res, bin);
            k->block_residuals(ref, n, BINS, res_k, bin_k);
            if (memcmp(res, res_k, sizeof(res)) || memcmp(bin, bin_k, sizeof(bin)))
                fail_msg("block_residuals %s: n %d round %d", path, n, round);
            for (int i = 0; i < n; i++) {
                float m = fabsf(ref[3 * i]);
                m = fabsf(ref[3 * i + 1]) > m ? fabsf(ref[3 * i + 1]) : m;
                m = fabsf(ref[3 * i + 2]) > m ? fabsf(ref[3 * i + 2]) : m;
                const int b = (int)(m * 8);
                assert_memory_equal(&res[i], &m, sizeof(m));
                assert_int_equal(bin[i], b < 0 ? 0 : b >= BINS ? BINS - 1 : b);
            }
            /* shares of the residuals (some NaN) at levels 0 to 7 */
            for (int i = 0; i < n; i++)
                lvl[i] = (uint8_t)(rnd() % 8);
            for (size_t t = 0; t < sizeof(thr) / sizeof(*thr); t++)
                for (size_t li = 0; li < sizeof(lows) / sizeof(*lows); li++) {
                    int c[3], c_k[3];
                    memset(ratio_k, 0x55, sizeof(ratio_k));
                    memcpy(ratio, ratio_k, sizeof(ratio));
                    const double p = settle_block_shares(res, lvl, thr[t], n, lows[li], ratio, c);
                    const double p_k = k->block_shares(res, lvl, thr[t], n, lows[li], ratio_k, c_k);
                    if (memcmp(ratio, ratio_k, sizeof(ratio)) || memcmp(c, c_k, sizeof(c)) ||
                        memcmp(&p, &p_k, sizeof(p)))
                        fail_msg("block_shares %s: n %d round %d thr %zu low %zu", path, n, round,
                                 t, li);
                    double want = 0;
                    int below = 0, in = 0, over = 0;
                    for (int i = 0; i < n; i++) {
                        const float r = (float)(res[i] / thr[t][lvl[i]]);
                        assert_memory_equal(&ratio[i], &r, sizeof(r));
                        below += r <= lows[li];
                        in += r <= 1.0f;
                        over += r > 1;
                        want = r > want ? r : want;
                    }
                    assert_int_equal(c[0], below);
                    assert_int_equal(c[1], in);
                    assert_int_equal(c[2], over);
                    assert_memory_equal(&p, &want, sizeof(want));
                    checks++;
                }
        }
    print_message("%s: %ld block levels, residuals and shares cases agree with the scalar "
                  "reference\n", path, checks);
}

/* The block test's errors: every row length up to 100 blocks (tails of
 * every length after the steps of 8), gains and offsets at their bounds and
 * between, means that round differently in floats and doubles. */
static void check_block_errors(const SettleKernels *k, const char *path)
{
    enum { N = 100 };
    float ref[3 * N], cur[3 * N], e_ref[3 * N], e_k[3 * N], c_ref[3 * N], c_k[3 * N];
    const double a[][3] = { { 1, 1, 1 }, { 0.6, 1.6, 1.0000001 }, { 0.93, 1.2, 0.77 } };
    const double o[][3] = { { 0, 0, 0 }, { -40, 40, 0.3 }, { 1e-3, -7.123456789, 2.5 } };
    long checks = 0;
    for (int n = 1; n <= N; n++)
        for (size_t ai = 0; ai < sizeof(a) / sizeof(*a); ai++) {
            for (int i = 0; i < 3 * n; i++) {
                ref[i] = (float)(rnd() % (256 * 64)) / 64.0f;
                cur[i] = i % 7 ? ref[i] + ((float)(rnd() % 4001) - 2000.0f) / 331.0f
                               : (float)(rnd() % 255) / 3.0f;
            }
            memset(e_k, 0x55, sizeof(e_k));
            memset(c_k, 0x55, sizeof(c_k));
            memcpy(e_ref, e_k, sizeof(e_k));
            memcpy(c_ref, c_k, sizeof(c_k));
            settle_block_errors(ref, cur, n, a[ai], o[ai], e_ref, c_ref);
            k->block_errors(ref, cur, n, a[ai], o[ai], e_k, c_k);
            if (memcmp(e_ref, e_k, sizeof(e_ref)) || memcmp(c_ref, c_k, sizeof(c_ref)))
                fail_msg("block_errors %s: n %d fit %zu", path, n, ai);
            /* without err: the same channels */
            memset(c_k, 0x55, sizeof(c_k));
            k->block_errors(ref, cur, n, a[ai], o[ai], NULL, c_k);
            if (memcmp(c_ref, c_k, sizeof(c_ref)))
                fail_msg("block_errors %s: n %d fit %zu, channels only", path, n, ai);
            /* without ch: the same errors, in the reference too */
            memset(e_k, 0x55, sizeof(e_k));
            k->block_errors(ref, cur, n, a[ai], o[ai], e_k, NULL);
            if (memcmp(e_ref, e_k, sizeof(e_ref)))
                fail_msg("block_errors %s: n %d fit %zu, errors only", path, n, ai);
            memset(e_k, 0x55, sizeof(e_k));
            settle_block_errors(ref, cur, n, a[ai], o[ai], e_k, NULL);
            if (memcmp(e_ref, e_k, sizeof(e_ref)))
                fail_msg("block_errors reference: n %d fit %zu, errors only", n, ai);
            /* the reference is the definition */
            for (int i = 0; i < n; i++)
                for (int c = 0; c < 3; c++) {
                    const float want = cur[3 * i + c] - (float)(a[ai][c] * ref[3 * i + c] + o[ai][c]);
                    assert_memory_equal(&e_ref[3 * i + c], &want, sizeof(want));
                    assert_memory_equal(&c_ref[c * n + i], &want, sizeof(want));
                }
            checks++;
        }
    print_message("%s: %ld block_errors cases agree with the scalar reference\n", path, checks);
}

/* the floats' order that puts -0 before +0, as the selection's keys */
static int cmp_key(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    if (x != y)
        return x < y ? -1 : 1;
    return (int)!signbit(x) - (int)!signbit(y);
}

static void check_select_one(const SettleKernels *k, const char *path, float *v, float *sorted,
                             int32_t *keys, int shape, int n, int kk)
{
    float want = NAN, got = NAN;
    if (settle_select_part(v, keys, n, kk, &want) || k->select_part(v, keys, n, kk, &got))
        fail_msg("select_part %s: shape %d n %d k %d gave up", path, shape, n, kk);
    if (memcmp(&want, &sorted[kk], sizeof(want)))
        fail_msg("select_part reference: shape %d n %d k %d: %a, the sort has %a", shape, n, kk,
                 (double)want, (double)sorted[kk]);
    if (memcmp(&want, &got, sizeof(want)))
        fail_msg("select_part %s: shape %d n %d k %d: %a, the reference has %a", path, shape, n,
                 kk, (double)got, (double)want);
}

/* The selections: every size up to 130 and every k, and the sizes of a
 * picture's blocks at a few k, on the shapes of a row's offsets and of the
 * residuals (both signs, many equal values, zeros of both signs, a few
 * values, sorted and reversed, infinities and denormals), against the
 * reference, which is checked against a sort; the input must stay as it
 * was. */
static void check_select_part(const SettleKernels *k, const char *path)
{
    enum { N = 3700 };
    static const int big[] = { 255, 256, 257, 1000, 3600, N };
    float *v = malloc(N * sizeof(*v)), *keep = malloc(N * sizeof(*v));
    float *sorted = malloc(N * sizeof(*v));
    int32_t *keys = malloc(2 * (N + 8) * sizeof(*keys));
    assert_true(v && keep && sorted && keys);
    long checks = 0;
    for (int shape = 0; shape < 7; shape++)
        for (int z = 1; z <= 130 + (int)(sizeof(big) / sizeof(*big)); z++) {
            const int n = z <= 130 ? z : big[z - 131];
            for (int i = 0; i < n; i++) {
                const float u = (float)(rnd() % 20001) / 1000.0f - 10.0f;
                switch (shape) {
                case 0:
                    v[i] = u;
                    break;
                case 1: /* two in five the same */
                    v[i] = rnd() % 5 < 2 ? 0.75f : u;
                    break;
                case 2:
                    v[i] = rnd() % 3 == 0 ? 0.0f : rnd() % 2 ? -0.0f : u * 1e-3f;
                    break;
                case 3:
                    v[i] = (float)((int)(rnd() % 4) - 2);
                    break;
                case 4:
                    v[i] = (float)i * 0.5f;
                    break;
                case 5:
                    v[i] = (float)(n - i) * -0.25f;
                    break;
                default:
                    v[i] = rnd() % 7 == 0 ? (rnd() % 2 ? INFINITY : -INFINITY)
                           : rnd() % 2   ? u * 1e-40f
                                         : u * 1e30f;
                    break;
                }
            }
            memcpy(keep, v, sizeof(*v) * (size_t)n);
            memcpy(sorted, v, sizeof(*v) * (size_t)n);
            qsort(sorted, (size_t)n, sizeof(*sorted), cmp_key);
            if (n <= 130) {
                for (int kk = 0; kk < n; kk++, checks++)
                    check_select_one(k, path, v, sorted, keys, shape, n, kk);
            } else {
                const int ks[] = { 0, 1, n / 3, n / 2, n / 2 + 1, n - 1 };
                for (size_t j = 0; j < sizeof(ks) / sizeof(*ks); j++, checks++)
                    check_select_one(k, path, v, sorted, keys, shape, n, ks[j]);
            }
            assert_memory_equal(v, keep, sizeof(*v) * (size_t)n);
        }
    free(v);
    free(keep);
    free(sorted);
    free(keys);
    print_message("%s: %ld select_part cases agree with the scalar reference\n", path, checks);
}

/* The reduction of a plane by f x f boxes and the row change count: every
 * output width up to 70 and some wider (tails of every length), 1 to 3
 * output rows, odd offsets, against the reference, which is itself checked
 * against means taken here; the padding after each output row must stay. */
static void check_reduce(const SettleKernels *k, const char *path)
{
    enum { N = 1200, ROWS = 24, STRIDE = N + 29, OS = 600 + 7 };
    static const int fs[] = { 1, 2, 4, 8 };
    uint8_t *p = malloc((size_t)STRIDE * ROWS), *q = malloc((size_t)STRIDE * ROWS);
    uint8_t *o_ref = malloc((size_t)OS * 3), *o_k = malloc((size_t)OS * 3);
    assert_non_null(p && q && o_ref && o_k);
    for (size_t i = 0; i < (size_t)STRIDE * ROWS; i++) {
        p[i] = (uint8_t)(i % 5 ? rnd() : 255);
        q[i] = (uint8_t)(i % 3 ? (unsigned)(p[i] + (int)(rnd() % 21) - 10) : rnd());
    }
    long checks = 0;
    for (size_t fi = 0; fi < sizeof(fs) / sizeof(*fs); fi++) {
        const int f = fs[fi];
        for (int dw = 1; dw * f + 3 <= N && dw < 600; dw = dw < 70 ? dw + 1 : dw * 3 / 2 + 1)
            for (int dh = 1; dh <= 3 && dh * f <= ROWS; dh++)
                for (int off = 0; off < 3; off++) {
                    memset(o_ref, 0x5a, (size_t)OS * 3);
                    memset(o_k, 0x5a, (size_t)OS * 3);
                    settle_reduce_plane(o_ref, OS, p + off, STRIDE, dw, dh, f);
                    k->reduce_plane(o_k, OS, p + off, STRIDE, dw, dh, f);
                    if (memcmp(o_ref, o_k, (size_t)OS * 3))
                        fail_msg("reduce_plane %s: f %d w %d h %d offset %d", path, f, dw, dh, off);
                    checks++;
                }
        /* the reference: each box's mean, rounded half up */
        settle_reduce_plane(o_ref, OS, p, STRIDE, 40, 2, f);
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 40; x++) {
                unsigned sum = 0;
                for (int r = 0; r < f; r++)
                    for (int i = 0; i < f; i++)
                        sum += p[(y * f + r) * STRIDE + x * f + i];
                assert_int_equal(o_ref[y * OS + x], (sum + (unsigned)(f * f / 2)) / (unsigned)(f * f));
            }
    }
    static const int row_tols[] = { 0, 1, 2, 5, 9, 254, 255 };
    for (int n = 1; n < N; n = n < 100 ? n + 1 : n * 3 / 2 + 1)
        for (size_t ti = 0; ti < sizeof(row_tols) / sizeof(*row_tols); ti++)
            for (int off = 0; off < 3; off++) {
                int a_ref, b_ref, a_k, b_k;
                int c_ref = settle_count_row_changed(p + off, q + off, n, row_tols[ti], &a_ref, &b_ref);
                int c_k = k->count_row_changed(p + off, q + off, n, row_tols[ti], &a_k, &b_k);
                if (c_ref != c_k || a_ref != a_k || b_ref != b_k)
                    fail_msg("count_row_changed %s: n %d tol %d offset %d: %d %d %d, reference "
                             "%d %d %d", path, n, row_tols[ti], off, c_k, a_k, b_k, c_ref, a_ref, b_ref);
                int want = 0, first = n, last = -1;
                for (int i = 0; i < n; i++)
                    if (abs(p[off + i] - q[off + i]) > row_tols[ti]) {
                        want++;
                        first = first == n ? i : first;
                        last = i;
                    }
                assert_int_equal(c_ref, want);
                assert_int_equal(a_ref, first);
                assert_int_equal(b_ref, last);
                checks++;
            }
    /* every sum of a 2 x 2 box, 0 to 1,020, each rounded as the reference
     * rounds it (the AVX2 kernel rounds by a multiplication) */
    enum { SUMS = 1021 };
    uint8_t *boxes = malloc((size_t)2 * 2 * SUMS), *o_sums = malloc(SUMS);
    assert_non_null(boxes && o_sums);
    for (int x = 0; x < SUMS; x++)
        for (int i = 0; i < 4; i++) {
            const int left = x - 255 * i;
            boxes[(i / 2) * 2 * SUMS + 2 * x + i % 2] = (uint8_t)(left < 0 ? 0 : left > 255 ? 255 : left);
        }
    k->reduce_plane(o_sums, SUMS, boxes, 2 * SUMS, SUMS, 1, 2);
    for (int x = 0; x < SUMS; x++)
        if (o_sums[x] != (x + 2) / 4)
            fail_msg("reduce_plane %s: f 2, box sum %d gave %d", path, x, o_sums[x]);
    checks += SUMS;
    free(boxes);
    free(o_sums);
    free(p);
    free(q);
    free(o_ref);
    free(o_k);
    print_message("%s: %ld reduce_plane and count_row_changed cases agree with the scalar "
                  "reference\n", path, checks);
}

/* The row change count on long rows (the AVX2 kernel counts the steps
 * between the first and the last that changed 255 at a time) and sparse
 * changes: none, one byte anywhere, the ends only, runs, everything; every
 * tolerance class, against the reference. */
static void check_count_rows(const SettleKernels *k, const char *path)
{
    enum { N = 20011 };
    static const int ns[] = { 1, 31, 32, 33, 63, 64, 65, 96, 97, 640, 1280, 1311, 8159, 8160,
                              8161, 8192, 8193, 8224, 16352, 16353, 16385, 20000, N };
    static const int ctols[] = { 0, 3, 96, 254 };
    uint8_t *p = malloc(N), *q = malloc(N);
    assert_non_null(p && q);
    long checks = 0;
    for (int pat = 0; pat < 7; pat++)
        for (size_t ni = 0; ni < sizeof(ns) / sizeof(*ns); ni++) {
            const int n = ns[ni];
            /* a one-byte change at positions spread over the row */
            const int spots = pat == 1 ? 40 : 1;
            for (int sp = 0; sp < spots; sp++) {
                for (int i = 0; i < N; i++)
                    p[i] = q[i] = (uint8_t)rnd();
                const int at = (int)((int64_t)(n - 1) * sp / (spots > 1 ? spots - 1 : 1));
                for (int i = 0; i < n; i++) {
                    int change = 0;
                    switch (pat) {
                    case 1: change = i == at; break;
                    case 2: change = i == 0 || i == n - 1; break;
                    case 3: change = i % 4099 < 300; break;
                    case 4: change = 1; break;
                    case 5: change = (int)(rnd() % 7) == 0; break;
                    case 6: change = i > n / 3 && i < n / 3 + 40; break;
                    default: break;
                    }
                    if (change)
                        q[i] = (uint8_t)(p[i] + 1 + (int)(rnd() % 255));
                }
                for (size_t ti = 0; ti < sizeof(ctols) / sizeof(*ctols); ti++) {
                    int a_ref, b_ref, a_k, b_k;
                    const int c_ref = settle_count_row_changed(p, q, n, ctols[ti], &a_ref, &b_ref);
                    const int c_k = k->count_row_changed(p, q, n, ctols[ti], &a_k, &b_k);
                    if (c_ref != c_k || a_ref != a_k || b_ref != b_k)
                        fail_msg("count_row_changed %s: pattern %d n %d tol %d spot %d: %d %d %d, "
                                 "reference %d %d %d", path, pat, n, ctols[ti], at, c_k, a_k, b_k,
                                 c_ref, a_ref, b_ref);
                    checks++;
                }
            }
        }
    free(p);
    free(q);
    print_message("%s: %ld long count_row_changed rows agree with the scalar reference\n", path,
                  checks);
}

/* The matrices settle converts with, both ranges. */
static const double matrices[][2] = { { 0.299, 0.114 }, { 0.2126, 0.0722 }, { 0.30, 0.11 },
                                      { 0.212, 0.087 }, { 0.2627, 0.0593 } };

/* 4:2:0 to RGB: random planes (and planes at the ends of the range), every
 * width up to 70 and some wider, 1 to 5 rows, padded strides; the padding
 * after each row must stay as it was. */
static void check_yuv(const SettleKernels *k, const char *path)
{
    enum { W = 300, H = 5, PADY = 5, PADC = 3, PADO = 11 };
    const ptrdiff_t ys = W + PADY, cs = W / 2 + PADC, os = 3 * W + PADO;
    uint8_t *py = malloc((size_t)ys * H), *pu = malloc((size_t)cs * H), *pv = malloc((size_t)cs * H);
    uint8_t *o_ref = malloc((size_t)os * H), *o_k = malloc((size_t)os * H);
    assert_non_null(py && pu && pv && o_ref && o_k);
    long checks = 0;
    for (int content = 0; content < 3; content++) {
        for (ptrdiff_t i = 0; i < ys * H; i++)
            py[i] = (uint8_t)(content == 0 ? rnd() : content == 1 ? (i & 1 ? 255 : 0) : 235);
        for (ptrdiff_t i = 0; i < cs * H; i++) {
            pu[i] = (uint8_t)(content == 0 ? rnd() : content == 1 ? (i & 2 ? 255 : 0) : 16);
            pv[i] = (uint8_t)(content == 0 ? rnd() : content == 1 ? (i & 4 ? 0 : 255) : 240);
        }
        for (size_t mi = 0; mi < sizeof(matrices) / sizeof(*matrices); mi++)
            for (int full = 0; full < 2; full++) {
                SettleYuvCoef c;
                settle_yuv_coef(&c, matrices[mi][0], matrices[mi][1], full);
                for (int w = 1; w <= W; w = w < 70 ? w + 1 : w + 37)
                    for (int h = 1; h <= H; h++) {
                        memset(o_ref, 0x5a, (size_t)os * H);
                        memset(o_k, 0x5a, (size_t)os * H);
                        settle_yuv420_rgb(o_ref, os, py, ys, pu, cs, pv, cs, w, h, &c);
                        k->yuv420_rgb(o_k, os, py, ys, pu, cs, pv, cs, w, h, &c);
                        if (memcmp(o_ref, o_k, (size_t)os * H))
                            fail_msg("yuv420_rgb %s: content %d matrix %zu full %d w %d h %d",
                                     path, content, mi, full, w, h);
                        checks++;
                    }
            }
    }
    free(py);
    free(pu);
    free(pv);
    free(o_ref);
    free(o_k);
    print_message("%s: %ld yuv420_rgb cases agree with the scalar reference\n", path, checks);
}

/* The reference against the conversion in floating point, rounded: within
 * one level everywhere, and exact on the most part. */
static void test_yuv_reference(void **state)
{
    (void)state;
    long n = 0, off = 0;
    for (size_t mi = 0; mi < sizeof(matrices) / sizeof(*matrices); mi++)
        for (int full = 0; full < 2; full++) {
            const double kr = matrices[mi][0], kb = matrices[mi][1], kg = 1 - kr - kb;
            const double ysc = full ? 1 : 255.0 / 219, csc = full ? 1 : 255.0 / 224;
            SettleYuvCoef c;
            settle_yuv_coef(&c, kr, kb, full);
            for (int Y = 0; Y < 256; Y += 3)
                for (int U = 0; U < 256; U += 5)
                    for (int V = 0; V < 256; V += 5) {
                        const uint8_t y = (uint8_t)Y, u = (uint8_t)U, v = (uint8_t)V;
                        uint8_t rgb[3];
                        settle_yuv420_rgb(rgb, 3, &y, 1, &u, 1, &v, 1, 1, 1, &c);
                        const double yy = (Y - (full ? 0 : 16)) * ysc;
                        const double uu = (U - 128) * csc, vv = (V - 128) * csc;
                        const double want[3] = {
                            yy + 2 * (1 - kr) * vv,
                            yy - 2 * kb * (1 - kb) / kg * uu - 2 * kr * (1 - kr) / kg * vv,
                            yy + 2 * (1 - kb) * uu,
                        };
                        for (int i = 0; i < 3; i++) {
                            double e = want[i] < 0 ? 0 : want[i] > 255 ? 255 : want[i];
                            double d = rgb[i] - e;
                            if (d > 1 || d < -1)
                                fail_msg("Y %d U %d V %d matrix %zu full %d: channel %d is %d, "
                                         "exactly %.3f", Y, U, V, mi, full, i, rgb[i], e);
                            off += rgb[i] != (int)lrint(e);
                            n++;
                        }
                    }
        }
    print_message("%ld of %ld values differ by one level from the exact ones, rounded\n", off, n);
    assert_true(off * 20 < n);
}

/* count_row_changed on rows equal but for one or two bytes, at every place
 * of the first 100 and the steps' edges after (a camera's dark surround: whole
 * steps without a change before the first and after the last), and on rows
 * with nothing changed: each against the definition. */
static void check_row_changed_sparse(const SettleKernels *k, const char *path)
{
    enum { N = 700 };
    uint8_t *p = malloc(N), *q = malloc(N);
    assert_non_null(p && q);
    long checks = 0;
    for (int n = 1; n <= N; n = n < 100 ? n + 1 : n + 31)
        for (int i = -1; i < n; i = i < 100 || i % 32 >= 30 || i % 32 == 0 ? i + 1 : i + 29)
            for (int j = -1; j <= i; j += i > 0 ? i : 2) {
                for (int x = 0; x < n; x++)
                    p[x] = q[x] = (uint8_t)(x * 7 + 3);
                if (i >= 0)
                    q[i] = (uint8_t)(p[i] + 9);
                if (j >= 0)
                    q[j] = (uint8_t)(p[j] - 30);
                int a, b;
                const int c = k->count_row_changed(p, q, n, 5, &a, &b);
                const int want = (i >= 0) + (j >= 0 && j != i);
                const int first = i < 0 ? n : j >= 0 && j < i ? j : i, last = i < 0 ? -1 : i;
                if (c != want || a != first || b != last)
                    fail_msg("count_row_changed %s: n %d changed at %d and %d: %d %d %d, want "
                             "%d %d %d", path, n, i, j, c, a, b, want, first, last);
                checks++;
            }
    free(p);
    free(q);
    print_message("%s: %ld sparse count_row_changed cases\n", path, checks);
}

/* A thumbnail row's box means from random column sums: picture widths from
 * 1 to past 3000 into 1 to 200 boxes (every width a box can have, the
 * boxes' ends as settle_thumb_begin lays them out), bands of 1 to 40 rows
 * with sums up to 255 a row (a band of all 255, the exact mean); the value
 * past the last box is junk, which no version may use; and boxes whose sums
 * could pass 32 bits, which the faster versions leave to the scalar code.
 * Then the reference itself, against the division taken here. */
static void check_box_means(const SettleKernels *k, const char *path)
{
    enum { W = 3100 };
    static const int pic_w[] = { 1, 2, 3, 7, 13, 200, 201, 399, 480, 1280, 2732, 3001, W };
    static const int boxes[] = { 1, 2, 3, 7, 150, 199, 200 };
    static const int rows[] = { 1, 2, 6, 7, 13, 14, 40 };
    uint32_t *acc = malloc(sizeof(*acc) * (3 * W + 1));
    int *x0 = malloc(sizeof(*x0) * (W + 1));
    uint8_t *o_ref = malloc(3 * W), *o_k = malloc(3 * W);
    assert_non_null(acc && x0 && o_ref && o_k);
    long checks = 0;
    for (size_t wi = 0; wi < sizeof(pic_w) / sizeof(*pic_w); wi++)
        for (size_t bi = 0; bi < sizeof(boxes) / sizeof(*boxes); bi++)
            for (size_t ri = 0; ri < sizeof(rows) / sizeof(*rows); ri++)
                for (int white = 0; white <= 1; white++) {
                    int w = pic_w[wi], n = boxes[bi] < w ? boxes[bi] : w, r = rows[ri];
                    for (int x = 0; x <= n; x++)
                        x0[x] = (int)((int64_t)x * w / n);
                    for (int i = 0; i < 3 * w; i++)
                        acc[i] = white ? 255u * (unsigned)r : rnd() % (255u * (unsigned)r + 1);
                    acc[3 * w] = rnd();
                    settle_box_means(acc, x0, n, r, o_ref);
                    k->box_means(acc, x0, n, r, o_k);
                    if (memcmp(o_ref, o_k, 3 * (size_t)n))
                        fail_msg("box_means %s: width %d boxes %d rows %d", path, w, n, r);
                    for (int i = 0; white && i < 3 * n; i++)
                        assert_int_equal(o_ref[i], 255);
                    checks++;
                }
    /* sums past 32 bits: two boxes of 2 columns over 9,000,000 rows of 255 */
    int big[3] = { 0, 2, 4 };
    for (int i = 0; i < 12; i++)
        acc[i] = 255u * 9000000u - (unsigned)i * 1000u;
    acc[12] = 0;
    settle_box_means(acc, big, 2, 9000000, o_ref);
    k->box_means(acc, big, 2, 9000000, o_k);
    assert_memory_equal(o_ref, o_k, 6);
    /* the reference against its definition */
    for (int i = 0; i < 1000; i++) {
        int xs = 1 + (int)(rnd() % 20), r = 1 + (int)(rnd() % 20), one[2] = { 0, xs };
        uint64_t sum[3] = { 0, 0, 0 }, area = (uint64_t)xs * (uint64_t)r;
        for (int j = 0; j < 3 * xs; j++) {
            acc[j] = rnd() % (255u * (unsigned)r + 1);
            sum[j % 3] += acc[j];
        }
        settle_box_means(acc, one, 1, r, o_ref);
        for (int c = 0; c < 3; c++)
            assert_int_equal(o_ref[c], (sum[c] + area / 2) / area);
    }
    free(acc);
    free(x0);
    free(o_ref);
    free(o_k);
    print_message("%s: %ld box_means cases agree with the scalar reference\n", path, checks);
}

/* The block test's means of a row of blocks from random column sums: every
 * block width from 1 to 16, rows of 0 to 40 blocks (the last one taken apart
 * in the faster versions), sums up to each block's largest (65535 a
 * channel: 16 x 16 rows of 255, and the 16-bit lanes' bound), a float after
 * the last block that no version may write, and divisors of the rows from
 * 1 to 16. Then the reference itself, against the sums taken here. */
static void check_block_means(const SettleKernels *k, const char *path)
{
    enum { N = 40 };
    uint16_t sums[3 * 16 * N + 8];
    float o_ref[3 * N + 1], o_k[3 * N + 1];
    long checks = 0;
    for (int bs = 1; bs <= 16; bs++)
        for (int n = 0; n <= N; n++)
            for (int rows = 1; rows <= 16; rows += 5) {
                const unsigned most = 65535u / (unsigned)bs;
                for (int i = 0; i < 3 * 16 * N + 8; i++)
                    sums[i] = (uint16_t)(i % 11 == 3 ? most : rnd() % (most + 1));
                const float inv = 1.0f / (float)(bs * rows);
                for (int i = 0; i <= 3 * N; i++)
                    o_ref[i] = o_k[i] = -1.5f;
                settle_block_means(sums, n, bs, inv, o_ref);
                k->block_means(sums, n, bs, inv, o_k);
                if (memcmp(o_ref, o_k, sizeof(o_ref)))
                    fail_msg("block_means %s: %d blocks of %d rows %d", path, n, bs, rows);
                assert_true(o_ref[3 * n] == -1.5f);
                for (int i = 0; i < n; i++)
                    for (int c = 0; c < 3; c++) {
                        uint32_t sum = 0;
                        for (int x = 0; x < bs; x++)
                            sum += sums[3 * (bs * i + x) + c];
                        const float want = (float)sum * inv;
                        assert_memory_equal(&o_ref[3 * i + c], &want, sizeof(want));
                    }
                checks++;
            }
    print_message("%s: %ld block_means cases agree with the scalar reference\n", path, checks);
}

/* Each instruction set on its own, as SETTLE_CPU would limit it. */
static void test_sse2(void **state)
{
    (void)state;
    if (!(settle_cpu_flags() & SETTLE_CPU_SSE2))
        skip();
    SettleKernels k;
    settle_kernels_init(&k, SETTLE_CPU_SSE2);
    assert_ptr_not_equal(k.count_changed, settle_count_changed);
    check(&k, "sse2");
    assert_ptr_not_equal(k.row_first_diff, settle_row_first_diff);
    check_row_first_diff(&k, "sse2");
    assert_ptr_not_equal(k.copy_stream, settle_copy_stream);
    check_copy_stream(&k, "sse2");
    check_sum_rows(&k, "sse2");
    assert_ptr_not_equal(k.box_means, settle_box_means);
    check_box_means(&k, "sse2");
    assert_ptr_not_equal(k.block_means, settle_block_means);
    check_block_means(&k, "sse2");
    check_reduce(&k, "sse2");
    check_count_rows(&k, "sse2");
    check_row_changed_sparse(&k, "sse2");
    check_yuv(&k, "sse2");
}

static void test_clflushopt(void **state)
{
    (void)state;
    if (!(settle_cpu_flags() & SETTLE_CPU_CLFLUSHOPT))
        skip();
    SettleKernels k;
    settle_kernels_init(&k, SETTLE_CPU_SSE2 | SETTLE_CPU_CLFLUSHOPT);
    assert_ptr_not_equal(k.evict, settle_evict);
    check_evict(&k, "clflushopt");
    settle_kernels_init(&k, SETTLE_CPU_SSE2);
    assert_ptr_equal(k.evict, settle_evict);
    check_evict(&k, "scalar");
}

static void test_ssse3(void **state)
{
    (void)state;
    if (!(settle_cpu_flags() & SETTLE_CPU_SSSE3))
        skip();
    SettleKernels k;
    settle_kernels_init(&k, SETTLE_CPU_SSE2 | SETTLE_CPU_SSSE3);
    assert_ptr_not_equal(k.yuv420_rgb, settle_yuv420_rgb);
    check_yuv(&k, "ssse3");
}

static void test_avx2(void **state)
{
    (void)state;
    if (!(settle_cpu_flags() & SETTLE_CPU_AVX2))
        skip();
    SettleKernels k;
    settle_kernels_init(&k, SETTLE_CPU_SSE2 | SETTLE_CPU_SSSE3 | SETTLE_CPU_AVX2);
    assert_ptr_not_equal(k.count_changed, settle_count_changed);
    assert_ptr_not_equal(k.yuv420_rgb, settle_yuv420_rgb);
    check(&k, "avx2");
    /* the AVX2 version, not the SSE2 one */
    SettleKernels k_sse2;
    settle_kernels_init(&k_sse2, SETTLE_CPU_SSE2);
    assert_ptr_not_equal(k.row_first_diff, k_sse2.row_first_diff);
    check_row_first_diff(&k, "avx2");
    check_copy_stream(&k, "avx2");
    check_sum_rows(&k, "avx2");
    assert_ptr_not_equal(k.fit_sums, settle_fit_sums);
    check_fit_sums(&k, "avx2");
    assert_ptr_not_equal(k.select_part, settle_select_part);
    check_select_part(&k, "avx2");
    assert_ptr_not_equal(k.block_errors, settle_block_errors);
    check_block_errors(&k, "avx2");
    assert_ptr_not_equal(k.block_levels, settle_block_levels);
    assert_ptr_not_equal(k.block_residuals, settle_block_residuals);
    assert_ptr_not_equal(k.block_shares, settle_block_shares);
    check_block_stats(&k, "avx2");
    check_block_means(&k, "avx2");
    /* the reduction's own AVX2 version, not the SSE2 one, is checked */
    SettleKernels k2;
    settle_kernels_init(&k2, SETTLE_CPU_SSE2 | SETTLE_CPU_SSSE3);
    assert_ptr_not_equal(k.reduce_plane, k2.reduce_plane);
    check_reduce(&k, "avx2");
    check_count_rows(&k, "avx2");
    /* and the camera test's counts' own */
    assert_ptr_not_equal(k.count_row_changed, k2.count_row_changed);
    check_row_changed_sparse(&k, "avx2");
    check_yuv(&k, "avx2");
}

static void test_avx512(void **state)
{
    (void)state;
    if (!(settle_cpu_flags() & SETTLE_CPU_AVX512))
        skip();
    SettleKernels k, k2;
    settle_kernels_init(&k, SETTLE_CPU_SSE2 | SETTLE_CPU_SSSE3 | SETTLE_CPU_AVX2 |
                                SETTLE_CPU_AVX512);
    settle_kernels_init(&k2, SETTLE_CPU_SSE2 | SETTLE_CPU_SSSE3 | SETTLE_CPU_AVX2);
    /* the reduction's, the camera test's and the conversion's own AVX-512
     * versions, not AVX2's */
    assert_ptr_not_equal(k.reduce_plane, k2.reduce_plane);
    assert_ptr_not_equal(k.count_row_changed, k2.count_row_changed);
    assert_ptr_not_equal(k.yuv420_rgb, k2.yuv420_rgb);
    check(&k, "avx512");
    check_reduce(&k, "avx512");
    check_count_rows(&k, "avx512");
    check_row_changed_sparse(&k, "avx512");
    check_yuv(&k, "avx512");
}

/* SETTLE_CPU=scalar leaves only the reference. */
static void test_env_scalar(void **state)
{
    (void)state;
    const char *old = getenv("SETTLE_CPU");
    char *saved = old ? strdup(old) : NULL;
    setenv("SETTLE_CPU", "scalar", 1);
    assert_int_equal(settle_cpu_flags(), 0);
    SettleKernels k;
    settle_kernels_init(&k, settle_cpu_flags());
    assert_ptr_equal(k.count_changed, settle_count_changed);
    assert_ptr_equal(k.delta_rgb, settle_delta_rgb);
    assert_ptr_equal(k.change_masks, settle_change_masks);
    assert_ptr_equal(k.reduce_plane, settle_reduce_plane);
    assert_ptr_equal(k.fit_sums, settle_fit_sums);
    assert_ptr_equal(k.row_first_diff, settle_row_first_diff);
    assert_ptr_equal(k.copy_stream, settle_copy_stream);
    assert_ptr_equal(k.evict, settle_evict);
    assert_ptr_equal(k.select_part, settle_select_part);
    check_select_part(&k, "scalar");
    assert_ptr_equal(k.block_errors, settle_block_errors);
    assert_ptr_equal(k.block_levels, settle_block_levels);
    assert_ptr_equal(k.block_residuals, settle_block_residuals);
    assert_ptr_equal(k.block_shares, settle_block_shares);
    check_block_stats(&k, "scalar");
    assert_ptr_equal(k.block_means, settle_block_means);
    /* the limits keep CLFLUSHOPT, which is no vector instruction set */
    const unsigned cl = SETTLE_CPU_CLFLUSHOPT;
    setenv("SETTLE_CPU", "sse2", 1);
    assert_int_equal(settle_cpu_flags() & ~(SETTLE_CPU_SSE2 | cl), 0);
    setenv("SETTLE_CPU", "ssse3", 1);
    assert_int_equal(settle_cpu_flags() & ~(SETTLE_CPU_SSE2 | SETTLE_CPU_SSSE3 | cl), 0);
    setenv("SETTLE_CPU", "avx2", 1);
    assert_int_equal(settle_cpu_flags() &
                         ~(SETTLE_CPU_SSE2 | SETTLE_CPU_SSSE3 | SETTLE_CPU_AVX2 | cl),
                     0);
    if (saved)
        setenv("SETTLE_CPU", saved, 1);
    else
        unsetenv("SETTLE_CPU");
    free(saved);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sse2),
        cmocka_unit_test(test_clflushopt),
        cmocka_unit_test(test_ssse3),
        cmocka_unit_test(test_avx2),
        cmocka_unit_test(test_avx512),
        cmocka_unit_test(test_env_scalar),
        cmocka_unit_test(test_yuv_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
