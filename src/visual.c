/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Visual progress as WebPageTest defines it, in one streaming pass.
 *
 * WebPageTest (and browsertime's visualmetrics-portable.py, whose values the
 * tests compare with) extract a filmstrip scaled to 400 pixels, drop the
 * frames before render start and the duplicates at the end, and compute each
 * kept frame's progress from per-channel histograms. Here every frame is
 * scaled down (box average) to the same size; first visual change is the
 * first frame that differs from the start frame, last visual change the first
 * frame of the final run of frames that match each other, and the histograms
 * go to a temporary file so that progress (which needs the final frame) is
 * computed at the end with constant memory.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "visual.h"

/* Render start: a pixel moved by more than 10 % of 255 (WebPageTest's fuzz),
 * outside the centre 5 % of the picture (--renderignore 5) and a strip at the
 * bottom (24 rows of the 400-pixel picture) where desktop captures show the
 * browser's status line (in Android recordings only the last row: WebPageTest's
 * crop always leaves out the last row and column). */
#define START_FUZZ 25
#define START_BOTTOM 24
#define START_IGNORE_PERCENT 5
/* The run at the end: frames match the last one when at most 5 pixels moved
 * by more than 15 % of 255, outside a 10-row bottom strip (Android: the last
 * row). */
#define RUN_FUZZ 38
#define RUN_MAX_DIFF 5
#define RUN_BOTTOM 10
/* Near-white pixels (all of R, G, B at or above this) are the page's
 * background and stay out of the histograms. */
#define WHITE 250
/* A frame is kept (as ffmpeg's mpdecimate=hi=64 keeps it) when the sum of
 * absolute differences of an 8x8 block in a channel exceeds 64. */
#define KEEP_BLOCK 8
#define KEEP_SAD 64
/* Division by a cell's pixel count n as a multiplication by ceil(2^40 / n):
 * exact for sums below 2^40 / n (a cell has at most 166 x 166 pixels: sums
 * stay under 2^23, n under 2^15). */
#define INV_SHIFT 40

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SETTLE_LITTLE_ENDIAN 1
#else
#define SETTLE_LITTLE_ENDIAN 0
#endif

static int similar(const uint8_t *a, const uint8_t *b)
{
    int d0 = abs(a[0] - b[0]), d1 = abs(a[1] - b[1]), d2 = abs(a[2] - b[2]);
    return d0 <= 15 && d1 <= 15 && d2 <= 15 && d0 + d1 + d2 <= 15;
}

void settle_find_viewport(const uint8_t *rgb, ptrdiff_t stride, int w, int h, int rect[4])
{
    int cx = w / 2, cy = h / 2;
    const uint8_t *bg = rgb + cy * stride + cx * 3;
    const uint8_t *row = rgb + cy * stride;
    int left = 0, right = w, top = 0, bottom = h;
    for (int x = cx; x >= 0; x--)
        if (!similar(bg, row + x * 3)) {
            left = x + 1;
            break;
        }
    for (int x = cx; x < w; x++)
        if (!similar(bg, row + x * 3)) {
            right = x - 1;
            break;
        }
    for (int y = cy; y >= 0; y--)
        if (!similar(bg, rgb + y * stride + cx * 3)) {
            top = y + 1;
            break;
        }
    for (int y = cy; y < h; y++)
        if (!similar(bg, rgb + y * stride + cx * 3)) {
            bottom = y - 1;
            break;
        }
    /* WebPageTest's width and height leave out the last matching column and
     * row; so does this, so that both measure the same pixels. */
    rect[0] = left;
    rect[1] = top;
    rect[2] = right - left;
    rect[3] = bottom - top;
}

int settle_visual_init(SettleVisual *v, int w, int h, int exact_end, int mobile,
                       const SettleKernels *dsp)
{
    memset(v, 0, sizeof(*v));
    v->dsp = dsp;
    v->exact_end = exact_end;
    v->mobile = mobile;
    v->w = w;
    v->h = h;
    double s = fmin(1.0, fmin((double)SETTLE_VISUAL_SIZE / w, (double)SETTLE_VISUAL_SIZE / h));
    v->tw = (int)(w * s);
    v->th = (int)(h * s);
    if (v->tw < 1)
        v->tw = 1;
    if (v->th < 1)
        v->th = 1;
    size_t tn = (size_t)v->tw * v->th;
    v->xmap = malloc(sizeof(int) * (size_t)w);
    v->ymap = malloc(sizeof(int) * (size_t)h);
    v->cells = calloc(tn, sizeof(uint32_t));
    v->inv = malloc(tn * sizeof(uint64_t));
    v->xstart = malloc(sizeof(int) * ((size_t)v->tw + 1));
    /* a scaled row covers at most max(w, h) / 400 + 1 source rows: the sums of
     * a column fit 16 bits for pictures up to 65536 pixels a side; four more
     * elements, read (and not used) by the 64-bit loads past the last column
     * in scale_down */
    v->acc = calloc((size_t)w * 3 + 4, sizeof(uint16_t));
    v->wide = malloc((size_t)v->tw);
    v->cur = malloc(tn * 3);
    v->start = malloc(tn * 3);
    v->ref = malloc(tn * 3);
    v->tmp = malloc(tn * 3);
    v->row = malloc((size_t)v->tw * 3);
    if (!v->row || !v->wide || !v->xmap || !v->ymap || !v->cells || !v->inv || !v->xstart || !v->acc || !v->cur ||
        !v->start || !v->ref || !v->tmp) {
        settle_visual_free(v);
        return SETTLE_ERR_NOMEM;
    }
    for (int x = 0; x < w; x++)
        v->xmap[x] = (int)((int64_t)x * v->tw / w);
    for (int y = 0; y < h; y++)
        v->ymap[y] = (int)((int64_t)y * v->th / h);
    for (int tx = 0, x = 0; tx <= v->tw; tx++) {
        while (x < w && v->xmap[x] < tx)
            x++;
        v->xstart[tx] = x;
    }
    /* a cell's pixels: its source columns times its source rows (cells
     * counts the rows first) */
    for (int y = 0; y < h; y++)
        v->cells[v->ymap[y]]++;
    uint32_t rows_min = UINT32_MAX, rows_max = 0;
    for (int ty = 0; ty < v->th; ty++) {
        rows_min = v->cells[ty] < rows_min ? v->cells[ty] : rows_min;
        rows_max = v->cells[ty] > rows_max ? v->cells[ty] : rows_max;
    }
    for (int ty = v->th - 1; ty >= 0; ty--) {
        uint32_t rows = v->cells[ty];
        for (int tx = 0; tx < v->tw; tx++)
            v->cells[(size_t)ty * v->tw + tx] = rows * (uint32_t)(v->xstart[tx + 1] - v->xstart[tx]);
    }
    uint32_t most = 0;
    for (size_t i = 0; i < tn; i++) {
        v->inv[i] = (((uint64_t)1 << INV_SHIFT) + v->cells[i] - 1) / v->cells[i];
        if (v->cells[i] > most)
            most = v->cells[i];
    }
    v->packed = SETTLE_LITTLE_ENDIAN && (uint64_t)most * 255 <= UINT16_MAX;
    /* the cells of a row are k or k + 1 columns wide (k = v->narrow) */
    v->narrow = w / v->tw;
    for (int tx = 0; tx < v->tw; tx++) {
        int k = v->xstart[tx + 1] - v->xstart[tx];
        v->wide[tx] = (uint8_t)(k != v->narrow);
        if (k != v->narrow && k != v->narrow + 1)
            v->narrow = 0;
    }
    if (v->packed) {
        size_t tw3 = (size_t)v->tw * 3, classes = rows_max - rows_min + 1;
        v->rows_min = (int)rows_min;
        v->sums = calloc(tw3 + 1, sizeof(uint16_t));
        v->size = malloc(classes * tw3 * sizeof(float));
        v->half = malloc(classes * tw3 * sizeof(int32_t));
        if (!v->sums || !v->size || !v->half) {
            settle_visual_free(v);
            return SETTLE_ERR_NOMEM;
        }
        for (size_t c = 0; c < classes; c++)
            for (size_t i = 0; i < tw3; i++) {
                uint32_t n = (rows_min + (uint32_t)c) * (uint32_t)(v->xstart[i / 3 + 1] - v->xstart[i / 3]);
                v->size[c * tw3 + i] = (float)n;
                v->half[c * tw3 + i] = (int32_t)(n / 2);
            }
    }
    v->start_frame = v->first_change = v->last_change = v->scaled = v->last_content = -1;
    v->start_time = v->first_change_time = v->last_change_time = NAN;
    v->spool = tmpfile();
    v->spool_ok = v->spool != NULL;
    v->frames = tmpfile();
    v->frames_ok = v->frames != NULL;
    v->spool_ok &= v->frames_ok;
    return 0;
}

void settle_visual_free(SettleVisual *v)
{
    free(v->xmap);
    free(v->ymap);
    free(v->cells);
    free(v->inv);
    free(v->xstart);
    free(v->acc);
    free(v->sums);
    free(v->size);
    free(v->half);
    free(v->cur);
    free(v->start);
    free(v->ref);
    free(v->tmp);
    free(v->row);
    free(v->wide);
    if (v->spool)
        fclose(v->spool);
    if (v->frames)
        fclose(v->frames);
    memset(v, 0, sizeof(*v));
}

static inline uint64_t load64(const uint16_t *p)
{
    uint64_t q;
    memcpy(&q, p, sizeof(q));
    return q;
}

static inline uint64_t load64b(const uint8_t *p)
{
    uint64_t q;
    memcpy(&q, p, sizeof(q));
    return q;
}

static inline void hist_add(uint32_t *hist, const uint8_t *p, uint32_t d)
{
    if (p[0] < WHITE || p[1] < WHITE || p[2] < WHITE) {
        hist[p[0]] += d;
        hist[256 + p[1]] += d;
        hist[512 + p[2]] += d;
    }
}

/* Puts the n pixels of a scaled row row into old, the row of the previous
 * picture, moving those that differ in hist from their old values to their
 * new ones. Few scaled pixels change from one frame to the next even when
 * every source row did: eight pixels (24 bytes) are compared at a time. */
static void replace_row(uint32_t hist[SETTLE_HIST_BINS], uint8_t *old, const uint8_t *row, int n)
{
    const size_t n3 = (size_t)n * 3;
    if (!memcmp(old, row, n3))
        return;
    for (int x = 0; x < n; x += 8) {
        const uint8_t *a = old + 3 * x, *b = row + 3 * x;
        int e = x + 8 < n ? 8 : n - x;
        if (e == 8 && load64b(a) == load64b(b) && load64b(a + 8) == load64b(b + 8) &&
            load64b(a + 16) == load64b(b + 16))
            continue;
        for (int k = 0; k < e; k++, a += 3, b += 3)
            if (a[0] != b[0] || a[1] != b[1] || a[2] != b[2]) {
                hist_add(hist, a, (uint32_t)-1);
                hist_add(hist, b, 1);
            }
    }
    memcpy(old, row, n3);
}

/* The sums of a row of cells k or k + 1 (wide[tx]) columns wide: a pixel's
 * three sums and the next pixel's first as the four 16-bit lanes of one
 * 64-bit word, no lane carrying into the next as no cell sums to more than
 * 65535 (v->packed). Called with k a constant, it has no branch per cell. */
static inline void gather_cells(const uint16_t *acc, const uint8_t *wide, int tw, const int k,
                                uint16_t *sums)
{
    const uint16_t *p = acc;
    for (int tx = 0; tx < tw; tx++) {
        uint64_t s = 0;
        for (int j = 0; j < k; j++)
            s += load64(p + 3 * j);
        s += load64(p + 3 * k) & ((uint64_t)0 - wide[tx]);
        p += 3 * (k + wide[tx]);
        memcpy(sums + 3 * tx, &s, sizeof(s));
    }
}

/* Box average into v->cur: each scaled pixel is the rounded mean of the
 * source pixels that map to it. The source rows of a scaled row are summed
 * column by column first (dsp->sum_rows), then the columns gathered. */
static void scale_down(SettleVisual *v, const uint8_t *rgb, ptrdiff_t stride,
                       const uint8_t *dirty)
{
    /* after a first whole picture, rows are scaled into v->row and moved
     * into v->cur and v->hist by replace_row */
    const int update = dirty != NULL;
    int tw3 = v->tw * 3, w3 = v->w * 3;
    uint16_t *acc = v->acc;
    for (int y = 0; y < v->h;) {
        /* the source rows y .. ye - 1 make scaled row ty */
        int ty = v->ymap[y], ye = y + 1;
        while (ye < v->h && v->ymap[ye] == ty)
            ye++;
        int need = !dirty;
        for (int b = y / SETTLE_BAND_ROWS; !need && b <= (ye - 1) / SETTLE_BAND_ROWS; b++)
            need = dirty[b];
        if (!need) {
            y = ye;
            continue;
        }
        uint8_t *const dst = v->cur + (size_t)ty * tw3;
        uint8_t *const out = update ? v->row : dst;
        if (v->tw == v->w && v->th == v->h) {
            memcpy(out, rgb + y * stride, (size_t)tw3);
            y = ye;
            if (update)
                replace_row(v->hist, dst, out, v->tw);
            continue;
        }
        const int rows = ye - y;
        v->dsp->sum_rows(rgb + y * stride, stride, w3, rows, acc);
        y = ye;
        const uint64_t *inv = v->inv + (size_t)ty * v->tw;
        const uint32_t *cells = v->cells + (size_t)ty * v->tw;
        if (v->packed) {
            /* a pixel's three sums and the next pixel's first as the four
             * 16-bit lanes of one 64-bit word: no lane carries into the next,
             * as no cell sums to more than 65535 (v->packed). Locals, as
             * the stores to out may alias v. */
            const int *xs = v->xstart;
            const int tw = v->tw;
            uint16_t *sums = v->sums;
            switch (v->narrow) {
            case 1: gather_cells(acc, v->wide, tw, 1, sums); break;
            case 2: gather_cells(acc, v->wide, tw, 2, sums); break;
            case 3: gather_cells(acc, v->wide, tw, 3, sums); break;
            case 4: gather_cells(acc, v->wide, tw, 4, sums); break;
            case 5: gather_cells(acc, v->wide, tw, 5, sums); break;
            case 6: gather_cells(acc, v->wide, tw, 6, sums); break;
            case 7: gather_cells(acc, v->wide, tw, 7, sums); break;
            case 8: gather_cells(acc, v->wide, tw, 8, sums); break;
            default:
                for (int tx = 0; tx < tw; tx++) {
                    const uint16_t *p = acc + 3 * xs[tx];
                    int k = xs[tx + 1] - xs[tx];
                    uint64_t s = 0;
                    /* up to 8 columns without a loop, more two a step */
                    for (; k > 8; k -= 2, p += 6)
                        s += load64(p) + load64(p + 3);
                    switch (k) {
                    case 8: s += load64(p + 21); /* fall through */
                    case 7: s += load64(p + 18); /* fall through */
                    case 6: s += load64(p + 15); /* fall through */
                    case 5: s += load64(p + 12); /* fall through */
                    case 4: s += load64(p + 9); /* fall through */
                    case 3: s += load64(p + 6); /* fall through */
                    case 2: s += load64(p + 3); /* fall through */
                    case 1: s += load64(p); /* fall through */
                    default: break;
                    }
                    memcpy(sums + 3 * tx, &s, sizeof(s));
                }
                break;
            }
            /* (sum + n / 2) / n rounded down, in float: exact, as sum + n / 2
             * < 2^17 and n <= 257 are, and the quotient (below 256) rounds
             * by at most 2^-17, less than the 1 / n that separates a quotient
             * that is not a whole number from the next one. A loop the
             * compiler vectorises. */
            const float *size = v->size + (size_t)(rows - v->rows_min) * tw3;
            const int32_t *half = v->half + (size_t)(rows - v->rows_min) * tw3;
            for (int i = 0; i < tw3; i++)
                out[i] = (uint8_t)(int32_t)((float)(sums[i] + half[i]) / size[i]);
            if (update)
                replace_row(v->hist, dst, out, tw);
            continue;
        }
        for (int tx = 0; tx < v->tw; tx++) {
            uint64_t sum[3] = { 0, 0, 0 };
            for (int x = v->xstart[tx]; x < v->xstart[tx + 1]; x++) {
                sum[0] += acc[3 * x];
                sum[1] += acc[3 * x + 1];
                sum[2] += acc[3 * x + 2];
            }
            /* (sum + n / 2) / n, without a division */
            uint64_t half = cells[tx] / 2;
            for (int k = 0; k < 3; k++)
                out[3 * tx + k] = (uint8_t)(((sum[k] + half) * inv[tx]) >> INV_SHIFT);
        }
        if (update)
            replace_row(v->hist, dst, out, v->tw);
    }
}

static void histogram(SettleVisual *v)
{
    memset(v->hist, 0, sizeof(v->hist));
    uint32_t *hr = v->hist, *hg = v->hist + 256, *hb = v->hist + 512;
    size_t n = (size_t)v->tw * v->th;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = v->cur + 3 * i;
        if (p[0] < WHITE || p[1] < WHITE || p[2] < WHITE) {
            hr[p[0]]++;
            hg[p[1]]++;
            hb[p[2]]++;
        }
    }
}

/* Pixels of a and b (scaled pictures) that differ by more than fuzz in a
 * channel, in the top `rows` rows and all but the last column (as
 * WebPageTest's crop), outside the rectangle m (x, y, w, h; may be empty). */
/* The region compared (the top *rows rows, clamped, and *cols columns) and
 * the part of m inside it (x0, y0, x1, y1); returns whether that is empty. */
static int compared_region(const SettleVisual *v, int *rows, int *cols, const int m[4],
                           int in[4])
{
    *cols = v->tw > 1 ? v->tw - 1 : 1;
    *rows = *rows < 1 ? 1 : *rows > v->th ? v->th : *rows;
    in[0] = m[0] > 0 ? m[0] : 0;
    in[1] = m[1] > 0 ? m[1] : 0;
    in[2] = m[0] + m[2] < *cols ? m[0] + m[2] : *cols;
    in[3] = m[1] + m[3] < *rows ? m[1] + m[3] : *rows;
    return !(in[0] < in[2] && in[1] < in[3]);
}

static int64_t count_differences(const SettleVisual *v, const uint8_t *a, const uint8_t *b,
                                 int fuzz, int rows, const int m[4])
{
    int cols, in[4];
    const int empty = compared_region(v, &rows, &cols, m, in);
    const ptrdiff_t stride = (ptrdiff_t)v->tw * 3;
    int64_t n = v->dsp->count_changed(a, stride, b, stride, cols, rows, fuzz, fuzz, NULL);
    /* less those in the part of m inside that region */
    const int x0 = in[0], y0 = in[1], x1 = in[2], y1 = in[3];
    if (!empty) {
        const ptrdiff_t at = y0 * stride + 3 * x0;
        n -= v->dsp->count_changed(a + at, stride, b + at, stride, x1 - x0, y1 - y0, fuzz, fuzz,
                                   NULL);
    }
    return n;
}

/* Whether a byte of a and b (n bytes) differs by more than fuzz: a loop the
 * compiler vectorises. */
static int over(const uint8_t *a, const uint8_t *b, int n, int fuzz)
{
    uint8_t most = 0;
    for (int i = 0; i < n; i++) {
        uint8_t d = (uint8_t)(a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]);
        most = d > most ? d : most;
    }
    return most > fuzz;
}

/* Whether count_differences would count a pixel: row by row, up to the first
 * that has one. */
static int any_difference(const SettleVisual *v, const uint8_t *a, const uint8_t *b, int fuzz,
                          int rows, const int m[4])
{
    int cols, in[4];
    const int masked = !compared_region(v, &rows, &cols, m, in);
    const ptrdiff_t stride = (ptrdiff_t)v->tw * 3;
    const int x0 = in[0], y0 = in[1], x1 = in[2], y1 = in[3];
    for (int y = 0; y < rows; y++) {
        const uint8_t *pa = a + y * stride, *pb = b + y * stride;
        if (masked && y >= y0 && y < y1) {
            if (over(pa, pb, 3 * x0, fuzz) ||
                over(pa + 3 * x1, pb + 3 * x1, 3 * (cols - x1), fuzz))
                return 1;
        } else if (over(pa, pb, 3 * cols, fuzz)) {
            return 1;
        }
    }
    return 0;
}

/* Whether a differs from b enough for mpdecimate to keep it. A band of
 * blocks at a time: the absolute differences summed down its rows into
 * v->acc (free outside scale_down) by a loop the compiler vectorises, then
 * each block's columns; a band whose bytes are all equal is skipped. */
static int block_changed(const SettleVisual *v, const uint8_t *a, const uint8_t *b)
{
    const int tw3 = v->tw * 3;
    uint16_t *col = v->acc;
    for (int by = 0; by < v->th; by += KEEP_BLOCK) {
        int ye = by + KEEP_BLOCK < v->th ? by + KEEP_BLOCK : v->th;
        /* most bands are as they were: their rows are one run of bytes */
        if (!memcmp(a + (size_t)by * tw3, b + (size_t)by * tw3, (size_t)(ye - by) * tw3))
            continue;
        memset(col, 0, sizeof(*col) * (size_t)tw3);
        for (int y = by; y < ye; y++) {
            const uint8_t *pa = a + (size_t)y * tw3, *pb = b + (size_t)y * tw3;
            for (int i = 0; i < tw3; i++)
                col[i] = (uint16_t)(col[i] + abs(pa[i] - pb[i]));
        }
        for (int bx = 0; bx < v->tw; bx += KEEP_BLOCK) {
            int xe = bx + KEEP_BLOCK < v->tw ? bx + KEEP_BLOCK : v->tw;
            int sad[3] = { 0, 0, 0 };
            for (int x = bx; x < xe; x++) {
                sad[0] += col[3 * x];
                sad[1] += col[3 * x + 1];
                sad[2] += col[3 * x + 2];
            }
            if (sad[0] > KEEP_SAD || sad[1] > KEEP_SAD || sad[2] > KEEP_SAD)
                return 1;
        }
    }
    return 0;
}

static void store_frame(SettleVisual *v, int64_t index, double time)
{
    if (!v->frames_ok)
        return;
    if (fwrite(&index, sizeof(index), 1, v->frames) != 1 ||
        fwrite(&time, sizeof(time), 1, v->frames) != 1 ||
        fwrite(v->cur, (size_t)v->tw * v->th * 3, 1, v->frames) != 1) {
        v->frames_ok = v->spool_ok = 0;
        return;
    }
    v->stored++;
    v->last_change = index;
    v->last_change_time = time;
    memcpy(v->ref, v->cur, (size_t)v->tw * v->th * 3);
}

void settle_visual_frame(SettleVisual *v, const uint8_t *rgb, ptrdiff_t stride, int64_t index,
                         double time, int is_start, double start_time, const uint8_t *dirty,
                         int is_marker)
{
    if (v->start_frame < 0 && !is_start)
        return;
    if (!is_marker || is_start)
        v->last_content = index;
    /* Scaled rows whose source bands did not change keep their values; a
     * picture that did not change at all scales, counts and compares as the
     * previous one did, and only its record is written. */
    int follows = v->scaled == index - 1;
    int repeat = 0;
    if (follows && dirty) {
        repeat = !is_start;
        for (int b = 0; repeat && b < (v->h + SETTLE_BAND_ROWS - 1) / SETTLE_BAND_ROWS; b++)
            repeat = !dirty[b];
    }
    if (!repeat) {
        /* the histogram of a picture that follows the previous one is kept
         * up to date by scale_down */
        scale_down(v, rgb, stride, follows ? dirty : NULL);
        if (!follows || !dirty)
            histogram(v);
    }
    v->scaled = index;
    if (repeat) {
        /* no decision below can come out otherwise than for the previous frame */
    } else if (is_start) {
        v->start_frame = index;
        v->start_time = start_time;
        memcpy(v->start, v->cur, (size_t)v->tw * v->th * 3);
        memcpy(v->start_hist, v->hist, sizeof(v->hist));
    } else if (v->first_change < 0) {
        int mw = v->tw * START_IGNORE_PERCENT / 100, mh = v->th * START_IGNORE_PERCENT / 100;
        int mask[4] = { (int)floor(v->tw / 2.0 - mw / 2.0), (int)floor(v->th / 2.0 - mh / 2.0),
                        mw, mh };
        int rows = v->th - (v->mobile ? 1 : START_BOTTOM);
        if (any_difference(v, v->cur, v->start, START_FUZZ, rows, mask)) {
            v->first_change = index;
            v->first_change_time = time;
            store_frame(v, index, time);
        }
    } else if (block_changed(v, v->cur, v->ref)) {
        store_frame(v, index, time);
    }
    if (v->spool && v->spool_ok) {
        SettleVisualRecord r;
        r.index = index;
        r.time = time;
        memcpy(r.hist, v->hist, sizeof(v->hist));
        if (fwrite(&r, sizeof(r), 1, v->spool) != 1)
            v->spool_ok = 0;
    }
}

/* Reads stored frame k into v->tmp. */
static int read_stored(SettleVisual *v, int64_t k, int64_t *index, double *time)
{
    size_t tn3 = (size_t)v->tw * v->th * 3;
    long size = (long)(sizeof(int64_t) + sizeof(double) + tn3);
    if (fseek(v->frames, (long)k * size, SEEK_SET) ||
        fread(index, sizeof(*index), 1, v->frames) != 1 ||
        fread(time, sizeof(*time), 1, v->frames) != 1 || fread(v->tmp, tn3, 1, v->frames) != 1)
        return SETTLE_ERR_IO;
    return 0;
}

/* The last visual change: walking back from the last stored picture, the
 * earliest of the frames that all match it. Then the final histogram. */
static int find_last_change(SettleVisual *v)
{
    static const int none[4] = { 0, 0, 0, 0 };
    if (v->first_change < 0 || v->stored < 1)
        return 0;
    if (!v->frames_ok || fflush(v->frames))
        return SETTLE_ERR_IO;
    int64_t index;
    double time;
    /* the closing marker frames are not part of the page load */
    int64_t last = v->stored - 1;
    for (;; last--) {
        if (last < 0) {
            /* only the closing marker frames changed: no visual change */
            v->first_change = v->last_change = -1;
            v->first_change_time = v->last_change_time = NAN;
            return 0;
        }
        if (read_stored(v, last, &index, &time) < 0)
            return SETTLE_ERR_IO;
        if (index <= v->last_content)
            break;
    }
    memcpy(v->ref, v->tmp, (size_t)v->tw * v->th * 3);
    v->last_change = index;
    v->last_change_time = time;
    for (int64_t k = last - 1; k >= 0 && !v->exact_end; k--) {
        if (read_stored(v, k, &index, &time) < 0)
            return SETTLE_ERR_IO;
        if (count_differences(v, v->tmp, v->ref, RUN_FUZZ, v->th - (v->mobile ? 1 : RUN_BOTTOM),
                              none) > RUN_MAX_DIFF)
            break;
        v->last_change = index;
        v->last_change_time = time;
    }
    /* its histogram, from the spool of every frame since the start */
    SettleVisualRecord r;
    if (fflush(v->spool) ||
        fseek(v->spool, (long)((v->last_change - v->start_frame) * (int64_t)sizeof(r)), SEEK_SET) ||
        fread(&r, sizeof(r), 1, v->spool) != 1 || r.index != v->last_change)
        return SETTLE_ERR_IO;
    memcpy(v->ref_hist, r.hist, sizeof(r.hist));
    return 0;
}

int settle_visual_progress(const SettleVisual *v, const SettleVisualRecord *r)
{
    if (v->first_change < 0 || r->index >= v->last_change)
        return 100; /* the final picture (or nothing ever changed) */
    if (r->index < v->first_change)
        return 0;
    /* How far each bin moved from the start towards the final frame, as a
     * share of how far it had to move; near-white pixels are not counted. */
    uint64_t matched = 0, total = 0;
    for (int i = 0; i < SETTLE_HIST_BINS; i++) {
        int64_t s = v->start_hist[i];
        uint64_t cur = (uint64_t)llabs((int64_t)r->hist[i] - s);
        uint64_t target = (uint64_t)llabs((int64_t)v->ref_hist[i] - s);
        matched += cur < target ? cur : target;
        total += target;
    }
    if (!total)
        return 100;
    /* the same floating-point steps as WebPageTest, so that ties round alike */
    double p = (double)matched / (double)total;
    return (int)floor(p * 100);
}

int settle_visual_finish(SettleVisual *v, double *speed_index, double vc[3])
{
    static const int levels[3] = { 85, 95, 99 };
    *speed_index = vc[0] = vc[1] = vc[2] = NAN;
    if (v->start_frame < 0)
        return 0;
    if (!v->spool || !v->spool_ok || find_last_change(v) < 0 || fflush(v->spool) ||
        fseek(v->spool, 0, SEEK_SET))
        return SETTLE_ERR_IO;
    SettleVisualRecord r;
    double si = 0, prev_time = NAN;
    int prev_progress = 0;
    int64_t end = v->first_change < 0 ? v->start_frame : v->last_change;
    while (fread(&r, sizeof(r), 1, v->spool) == 1 && r.index <= end) {
        int p = settle_visual_progress(v, &r);
        if (r.index != v->start_frame)
            si += (r.time - prev_time) * (1.0 - prev_progress / 100.0);
        for (int k = 0; k < 3; k++) {
            if (p < levels[k])
                vc[k] = NAN;
            else if (isnan(vc[k]))
                vc[k] = r.time - v->start_time;
        }
        prev_time = r.time;
        prev_progress = p;
    }
    if (ferror(v->spool))
        return SETTLE_ERR_IO;
    *speed_index = si;
    return 0;
}
