/* SPDX-License-Identifier: BSD-2-Clause */
#include "blocks_line.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"
#include "settle/settle.h"

/* A picture's line strength: the strongest run of LINE_RUN blocks side by
 * side in a row of the content's box (below the top band, its last row
 * left out) whose profiles moved from the reference's at the same quarter
 * or the next, the same way; the run's weakest block's move over the box's
 * median move (at least LINE_FLOOR levels). It counts a picture as a
 * change when that strength is LINE_STRENGTH at least and LINE_STAND times
 * the largest of the SETTLE_BLOCK_LONE_SEEN pictures before it (changes and
 * keyframes counted 0; a rise of its own and the last change's fall left
 * out, stand_before), after
 * LINE_CALM still pictures at least, on a keyframe never (the encoder
 * re-codes every block's detail).
 *
 * Read off the seventeen landscape accuracy grids of session 48 (1026
 * camera films; every picture after the truth against the late films' line
 * pictures; doc/accuracy.md, line48): a line stands 7.5-104 strong, its
 * picture 1.7 to 233 times the window; at 10 and 2 the test counts 28 of
 * the 171 late lines (25 of the 40 the block test missed) and fires after
 * the truth in 3 films (encoders re-coding an edge: LINE_SHARE); at 7 and
 * 2 in 11, at 5 and 2 in 22. The box's last row is its screen's bottom
 * edge, where x264 re-codes a gradient a step at a time (seed 397's
 * case052: from 184 to 190 over three pictures, 118 still pictures after
 * the truth, strength 8.5 to 23). */
#define LINE_RUN SETTLE_BLOCK_LINE_RUN
#define LINE_STRENGTH 10.0
#define LINE_STAND 2.0
#define LINE_CALM 5
#define LINE_FLOOR 0.25
/* the pictures that follow a fall left out of the window (stand_before) */
#define LINE_LEFT 2
/* ... and when each of the run's blocks moved by LINE_SHARE at least of
 * the reach of its profile before (its largest quarter from the block's
 * mean): an encoder re-coding an edge that was there moves it by a share
 * of its contrast (seed 263's case084, x264 at q33 after 70 copied
 * pictures: the header's edge by 0.16-0.21 of it, three times in 18
 * pictures; startup-test-elmo, VP8: text by 0.04), a line adds its own
 * (on the seventeen grids, 0.25 of the edge under which it appears at
 * least, but for three lines at 0.10-0.19) */
#define LINE_SHARE 0.22f
/* ... or by LINE_LOW of it at least when the block's move is ink added
 * (inked): a line right under an edge (a header's) moves its blocks by 0.13
 * to 0.22 of the edge's reach, as much as a re-coded edge. Ink moves the
 * rows it lies in one way, in one quarter or two, and the others hardly:
 * the quarters' raw moves (the light's gain taken out) the other way at
 * most LINE_ONE of those its own way, its largest quarter's move LINE_CONC
 * times the others' mean at least. Read off session 50's thirty-three
 * landscape grids: the lines right under an edge that LINE_SHARE held
 * back move the other way by 0 to 0.15 of their own, their largest quarter
 * 2.5 times the others' mean or more; seed 263's case084's re-coded edge
 * moves its light both ways between the quarters on either side (a block
 * of each run 0.40 to 0.67 the other way), and a rolling shutter's flicker
 * band darkens three quarters alike (seed 453's case008: 3.9 to 6.5
 * levels, a block of its run at 1.75 times the others' mean). A line across
 * a photo's edge moves its blocks by less: 0.10 of the reach (held-out
 * seed 489's case034, x264 with B-frames at q33, its blocks inked), where
 * startup-test-elmo's re-coded text moves by 0.04; at 0.12 before (low55:
 * sixteen landscape grids, one film more right at 0.10 and the same at
 * 0.08, none broken) */
#define LINE_LOW 0.10f
#define LINE_ONE 0.2f
#define LINE_CONC 2.0f
/* SettleBlocksLine.row: the row's quarters were counted while the test was
 * on (the caller counts only the bands that changed: a row counted before
 * keeps sums of its own), and its reference is theirs */
#define ROW_NOW 1
#define ROW_REF 2
/* a reference, as the block test's, follows a still picture by 1/LEAK */
#define LEAK 8.0f

int settle_blocks_line_init(SettleBlocksLine *l, int w, int h, int bw, int bh)
{
    memset(l, 0, sizeof(*l));
    const size_t nb = (size_t)bw * (size_t)bh;
    l->on = h <= w;
    if (!l->on)
        return 0;
    l->quart = calloc(nb * 4, sizeof(*l->quart));
    l->ref = calloc(nb * 4, sizeof(*l->ref));
    l->row = calloc((size_t)bh, sizeof(*l->row));
    l->span = malloc(2 * (size_t)bh * sizeof(*l->span));
    l->qcol = calloc(4 * ((size_t)w * 3 + 1), sizeof(*l->qcol));
    l->tmp = calloc(3 * (size_t)bw, sizeof(*l->tmp));
    l->move = calloc(nb, sizeof(*l->move));
    l->at = calloc(nb, sizeof(*l->at));
    l->sorted = calloc(nb, sizeof(*l->sorted));
    if (!l->quart || !l->ref || !l->row || !l->span || !l->qcol || !l->tmp || !l->move || !l->at ||
        !l->sorted) {
        settle_blocks_line_free(l);
        return SETTLE_ERR_NOMEM;
    }
    for (int i = 0; i < 2 * bh; i++)
        l->span[i] = -1;
    return 0;
}

void settle_blocks_line_free(SettleBlocksLine *l)
{
    free(l->quart);
    free(l->ref);
    free(l->row);
    free(l->span);
    free(l->qcol);
    free(l->tmp);
    free(l->move);
    free(l->at);
    free(l->sorted);
    memset(l, 0, sizeof(*l));
}

void settle_blocks_line_row(SettleBlocks *b, const uint8_t *rgb, ptrdiff_t stride, int by, int rows)
{
    SettleBlocksLine *l = &b->lines;
    const int *f = b->filled, bs = b->bs, q = bs / 4, whole = b->w / bs;
    /* the box's rows and columns and one more block around them, once the
     * block test has a box */
    const int x0 = f[0] - 1 > 0 ? f[0] - 1 : 0, x1 = f[2] + 1 < whole - 1 ? f[2] + 1 : whole - 1;
    if (rows != bs || bs % 4 || f[0] > f[2] || by < f[1] - 1 || by > f[3] + 1 || x1 < x0) {
        l->row[by] = 0;
        return;
    }
    if (l->span[2 * by] != x0 || l->span[2 * by + 1] != x1) {
        l->row[by] = 0; /* a reference of other columns */
        l->span[2 * by] = x0;
        l->span[2 * by + 1] = x1;
    }
    const int nx = x1 - x0 + 1, n = nx * bs * 3;
    const size_t cn = (size_t)b->w * 3 + 1;
    const ptrdiff_t from = (ptrdiff_t)x0 * bs * 3;
    uint16_t *c0 = l->qcol, *c1 = c0 + cn, *c2 = c1 + cn, *c3 = c2 + cn;
    const uint16_t *all = b->colsum + from;
    for (int i = 0; i < 3; i++)
        b->sum_rows(rgb + (ptrdiff_t)(i * q) * stride + from, stride, n, q, l->qcol + i * cn);
    /* the last quarter's: the block row's sums less the other three (exact) */
    for (int j = 0; j < n; j++)
        c3[j] = (uint16_t)(all[j] - c0[j] - c1[j] - c2[j]);
    float *out = l->quart + 4 * ((size_t)by * b->bw + x0);
    for (int i = 0; i < 4; i++) {
        b->block_means(l->qcol + i * cn, nx, bs, 1.0f / (float)(bs * q), l->tmp);
        for (int x = 0; x < nx; x++) {
            const float *t = l->tmp + 3 * x;
            out[4 * x + i] = (t[0] + t[1] + t[2]) / 3;
        }
    }
    l->row[by] |= ROW_NOW;
}

/* Whether row y's quarters are the picture's and its reference theirs, in
 * columns x0 to x1. */
static int row_ok(const SettleBlocksLine *l, int y, int x0, int x1)
{
    return l->row[y] == (ROW_NOW | ROW_REF) && l->span[2 * y] <= x0 && l->span[2 * y + 1] >= x1;
}

/* Each block's largest profile move and its quarter, in the box's rows
 * y0..y1 and columns x0..x1 (0 for a row not yet measured); the median
 * move of those measured, at least LINE_FLOOR (-1: too few). */
static double profile_moves(SettleBlocks *b, int x0, int x1, int y0, int y1, float gain)
{
    SettleBlocksLine *l = &b->lines;
    const int bw = b->bw;
    int n = 0, m = 0;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++, n++) {
            l->move[n] = 0;
            l->at[n] = 0;
            if (!row_ok(l, y, x0, x1))
                continue;
            const float *c = l->quart + 4 * ((size_t)y * bw + x), *r = l->ref + 4 * ((size_t)y * bw + x);
            float mc = (c[0] + c[1] + c[2] + c[3]) / 4, mr = (r[0] + r[1] + r[2] + r[3]) / 4, most = 0;
            for (int i = 0; i < 4; i++) {
                float d = (c[i] - mc) - gain * (r[i] - mr);
                if (fabsf(d) > fabsf(most)) {
                    most = d;
                    l->at[n] = (int8_t)(d < 0 ? -(i + 1) : i + 1);
                }
            }
            l->move[n] = fabsf(most);
            l->sorted[m++] = l->move[n];
        }
    if (m < LINE_RUN)
        return -1;
    float median = settle_select_with(b->select_part, b->keys, l->sorted, m, m / 2);
    return median > LINE_FLOOR ? median : LINE_FLOOR;
}

/* The picture's line strength (the comment at LINE_RUN), its run's row and
 * first column. */
static double strength(SettleBlocks *b, float gain)
{
    SettleBlocksLine *l = &b->lines;
    const int *f = b->filled;
    const int y0 = f[1] > b->bar_rows ? f[1] : b->bar_rows, y1 = f[3] - 1;
    const int x0 = f[0] > 0 ? f[0] : 0, x1 = f[2] < b->w / b->bs - 1 ? f[2] : b->w / b->bs - 1;
    const int cols = x1 - x0 + 1;
    if (f[0] > f[2] || cols < LINE_RUN || y1 < y0)
        return 0;
    double median = profile_moves(b, x0, x1, y0, y1, gain), best = 0;
    if (median < 0)
        return 0;
    for (int y = y0; y <= y1; y++)
        for (int x = 0; x + LINE_RUN <= cols; x++) {
            const int k = (y - y0) * cols + x;
            int same = l->at[k] != 0;
            float weakest = l->move[k];
            for (int j = 1; j < LINE_RUN && same; j++) {
                int a = l->at[k], c = l->at[k + j];
                same = c != 0 && (a > 0) == (c > 0) && abs(abs(a) - abs(c)) <= 1;
                weakest = l->move[k + j] < weakest ? l->move[k + j] : weakest;
            }
            if (same && weakest / median > best) {
                best = weakest / median;
                l->run_y = y;
                l->run_x = x0 + x;
            }
        }
    return best;
}

/* A block's profile: its quarters less their mean. */
static void profile(const float *q, float *p)
{
    float m = (q[0] + q[1] + q[2] + q[3]) / 4;
    for (int i = 0; i < 4; i++)
        p[i] = q[i] - m;
}

/* Whether a block's quarters cur moved from its reference's ref (the
 * light's gain put in) as ink added does (LINE_LOW). */
static int inked(const float *cur, const float *ref, float gain)
{
    float up = 0, down = 0, top = 0;
    for (int i = 0; i < 4; i++) {
        const float d = cur[i] - gain * ref[i];
        if (d > 0)
            up += d;
        else
            down -= d;
        top = fabsf(d) > top ? fabsf(d) : top;
    }
    const float own = up > down ? up : down, other = up > down ? down : up;
    return top > 0 && other <= LINE_ONE * own && 3 * top >= LINE_CONC * (up + down - top);
}

/* The run found last: its blocks' profiles before (the reference's, the
 * light's gain put in) into before, their moves into move; whether each
 * moved by LINE_SHARE of its profile's reach before, or by LINE_LOW of it
 * as ink (new content, not a re-coded edge). */
static int measure_run(SettleBlocks *b, double gain, float *before, float *move)
{
    SettleBlocksLine *l = &b->lines;
    int new = 1;
    for (int j = 0; j < LINE_RUN; j++) {
        const size_t k = (size_t)l->run_y * b->bw + l->run_x + j;
        float *p = before + 4 * j, c[4], most = 0, reach = 0;
        profile(l->ref + 4 * k, p);
        profile(l->quart + 4 * k, c);
        for (int i = 0; i < 4; i++) {
            p[i] *= (float)gain;
            most = fabsf(c[i] - p[i]) > most ? fabsf(c[i] - p[i]) : most;
            reach = fabsf(p[i]) > reach ? fabsf(p[i]) : reach;
        }
        move[j] = most;
        new &= most >= LINE_SHARE * reach ||
               (most >= LINE_LOW * reach && inked(l->quart + 4 * k, l->ref + 4 * k, (float)gain));
    }
    return new;
}

/* The run just counted, for settle_blocks_line_kept (slot 0, the one
 * before it to slot 1). */
static void keep_run(SettleBlocks *b, double gain)
{
    SettleBlocksLine *l = &b->lines;
    l->kept_y[1] = l->kept_y[0];
    l->kept_x[1] = l->kept_x[0];
    memcpy(l->kept_before[1], l->kept_before[0], sizeof(l->kept_before[0]));
    memcpy(l->kept_move[1], l->kept_move[0], sizeof(l->kept_move[0]));
    l->kept_y[0] = l->run_y;
    l->kept_x[0] = l->run_x;
    measure_run(b, gain, l->kept_before[0], l->kept_move[0]);
}

int settle_blocks_line_kept(const SettleBlocks *b, int slot)
{
    const SettleBlocksLine *l = &b->lines;
    int kept = 0;
    for (int j = 0; j < LINE_RUN; j++) {
        const size_t k = (size_t)l->kept_y[slot] * b->bw + l->kept_x[slot] + j;
        const float *p = l->kept_before[slot] + 4 * j;
        float c[4], most = 0;
        /* a row counted again for other columns since: as it stood */
        if (!(l->row[l->kept_y[slot]] & ROW_NOW)) {
            kept++;
            continue;
        }
        profile(l->quart + 4 * k, c);
        for (int i = 0; i < 4; i++)
            most = fabsf(c[i] - p[i]) > most ? fabsf(c[i] - p[i]) : most;
        kept += most * 2 >= l->kept_move[slot][j];
    }
    return kept;
}

/* The largest strength of the SETTLE_BLOCK_LONE_SEEN pictures before this
 * one, those of a rise and of a fall left out.
 *
 * The rise: the pictures just before, newest first, each LINE_STRENGTH at
 * least and under the one after it (this picture's strength for the
 * newest). A line that appears over a few pictures (a rolling shutter's
 * rows, an encoder's partial updates between B-frames) moves its run
 * further from the reference picture after picture, its first steps held
 * back by LINE_SHARE; read against its own steps, its last would never
 * stand (seed 449's case114, landscape: 11.8, 21.8 and 30.8 over three
 * pictures, 0.9 before them, each under LINE_SHARE, its line right under
 * the header, which LINE_LOW counts; seed 229's case023 and seed 257's
 * case117 needed this alone).
 *
 * The fall: with the last change among them (calm still pictures since),
 * the still pictures right after it, oldest first, each LINE_STRENGTH at
 * least and over the next one (keyframes, counted 0, passed over), when
 * LINE_LEFT pictures at least follow them. They are the change's own
 * after-image: content still settling after the picture the block test
 * counted, its rows' reference following it a picture behind, their
 * strength falling to the capture's level as it settles. Read against
 * them, a line that comes a few pictures after the page would have to
 * stand twice as strong as the page's own last steps (held-out seed 483's
 * case110, VP8: a line under the header 9 pictures after the page's last
 * change, 29.0 strong against 24.6, 21.9 and 14.2 in the three pictures
 * after that change, 4.4 to 5.2 in the four before it). */
static double stand_before(const SettleBlocksLine *l, int calm)
{
    double v[SETTLE_BLOCK_LONE_SEEN + 1], most = 0, after = l->strength;
    for (int i = 1; i <= SETTLE_BLOCK_LONE_SEEN; i++)
        v[i] = l->seen[(l->pos + SETTLE_BLOCK_LONE_SEEN - i) % SETTLE_BLOCK_LONE_SEEN];
    /* the fall: v[calm] (the oldest still picture) down to v[calm - fall + 1] */
    int fall = 0, left = 0;
    if (calm <= SETTLE_BLOCK_LONE_SEEN) {
        for (int i = calm; i >= 1; i--) {
            if (v[i] == 0)
                continue;
            int next = i - 1;
            while (next >= 1 && v[next] == 0)
                next--;
            if (next < 1 || !(v[i] >= LINE_STRENGTH && v[i] > v[next]))
                break;
            fall = calm - i + 1;
        }
        for (int i = calm - fall; i >= 1; i--)
            left += v[i] > 0;
        fall = left >= LINE_LEFT ? fall : 0;
    }
    int rising = 1;
    for (int i = 1; i <= SETTLE_BLOCK_LONE_SEEN; i++) {
        rising = rising && v[i] >= LINE_STRENGTH && v[i] < after;
        if (rising)
            after = v[i];
        else if (i <= calm - fall || i > calm)
            most = v[i] > most ? v[i] : most;
    }
    return most;
}

int settle_blocks_line_fires(SettleBlocks *b, const SettleBlocksFrame *out, int room, double gain)
{
    SettleBlocksLine *l = &b->lines;
    l->fired = 0;
    l->strength = 0;
    if (!l->on || b->filled[0] > b->filled[2])
        return 0;
    l->strength = strength(b, (float)gain);
    const double most = stand_before(l, b->calm);
    float before[LINE_RUN * 4], move[LINE_RUN];
    l->fired = room && !b->keyframe && !out->change && !out->change_bar && !out->fade &&
               b->calm >= LINE_CALM && l->strength >= LINE_STRENGTH &&
               l->strength >= LINE_STAND * most && measure_run(b, gain, before, move);
    if (l->fired)
        keep_run(b, gain);
    return l->fired;
}

void settle_blocks_line_keep(SettleBlocks *b, const SettleBlocksFrame *out)
{
    SettleBlocksLine *l = &b->lines;
    if (!l->on)
        return;
    const int still = !out->change && !out->change_bar && !out->fade;
    l->seen[l->pos] = still && !b->keyframe ? (float)l->strength : 0;
    l->pos = (l->pos + 1) % SETTLE_BLOCK_LONE_SEEN;
    for (int y = 0; y < b->bh; y++) {
        if (!(l->row[y] & ROW_NOW))
            continue;
        const size_t at = 4 * ((size_t)y * b->bw + (size_t)l->span[2 * y]);
        const size_t n = 4 * (size_t)(l->span[2 * y + 1] - l->span[2 * y] + 1);
        float *r = l->ref + at;
        const float *c = l->quart + at;
        if (!still || !(l->row[y] & ROW_REF)) {
            memcpy(r, c, n * sizeof(*r));
            l->row[y] |= ROW_REF;
            continue;
        }
        for (size_t k = 0; k < n; k++)
            r[k] += (c[k] - r[k]) / LEAK;
    }
}
