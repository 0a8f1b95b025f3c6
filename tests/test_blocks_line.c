/* SPDX-License-Identifier: BSD-2-Clause */
/* The line test (src/blocks_line.c) on drawn landscape pictures: a phone's
 * screen in a room, sensor noise, a light's drift. A line of text two to
 * three pixels tall that appears under the header must count, on its
 * picture; noise, the drift, a re-coded edge and a screen's bottom edge
 * must not; the line stays where a toast's goes; and each quarter's mean is
 * its rows'. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blocks_line.h"
#include "blocks_stay.h"
#include "measure_blocks.h"

enum { W = 480, H = 272, BX0 = 160, BX1 = 320, BY0 = 16, BY1 = 256 };

typedef struct Film {
    uint64_t rng;
    double noise;    /* levels, per pixel */
    double gain;     /* the light */
    int line_from;   /* the picture the line appears on (-1: never) */
    int line_to;     /* ... and the one it is gone on (-1: stays) */
    double line_y;   /* its top, in pixels (it is 2.5 pixels tall) */
    const double *steps; /* the share of its ink on its first pictures, up to a
                          * share of 1 (NULL: all of it at once) */
    int bottom_from; /* from this picture the screen's bottom rows brighten, up to 18
                      * levels at the bottom (-1: never) */
    int soft_from;   /* from this picture the header's lower edge is softer (-1: never) */
    int band_from;   /* from this picture a band of rows under the header, 12 rows
                      * in the right half, is 20 levels darker (-1: never) */
    double line_ink; /* the line's ink (0: 190) */
} Film;

static double gauss(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    double a = ((*s >> 11) + 0.5) / 9007199254740992.0;
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    double b = ((*s >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2 * log(a)) * cos(6.283185307179586 * b);
}

static uint8_t clamp8(double v)
{
    return v <= 0 ? 0 : v >= 255 ? 255 : (uint8_t)(v + 0.5);
}

/* The picture: a grey room, the phone's dark bezel, its screen a white
 * page with a coloured header and rows of text; the late line a soft grey
 * under the header, over the right half of the screen, its edges blurred. */
static double scene(const Film *m, int f, int x, int y, int c)
{
    if (x < BX0 - 8 || x >= BX1 + 8 || y < BY0 - 8 || y >= BY1 + 8)
        return 90 + 20.0 * y / H;
    if (x < BX0 || x >= BX1 || y < BY0 || y >= BY1)
        return 20;
    double v = 230, head = c == 1 ? 180 : 120;
    /* an encoder re-coding the header's edge softer: its last row and the
     * first row of page each half way to the other (the light moved both
     * ways across the edge) */
    if (m->soft_from >= 0 && f >= m->soft_from && (y == BY0 + 27 || y == BY0 + 28))
        return (head + v) / 2;
    if (y < BY0 + 28)
        return head;
    if (y >= BY0 + 60 && (y - BY0) % 20 < 5 && x > BX0 + 8 && x < BX1 - 8 && (x / 6) % 5)
        v = 50;
    if (m->line_from >= 0 && f >= m->line_from && (m->line_to < 0 || f < m->line_to) &&
        x >= (BX0 + BX1) / 2 && x < BX1 - 10) {
        /* 2.5 pixels of ink (at 190 unless told): how much of row y it covers */
        double top = fmax(y, m->line_y), bottom = fmin(y + 1, m->line_y + 2.5), share = 1;
        for (int k = 0; m->steps && k <= f - m->line_from; k++) {
            share = m->steps[k];
            if (share >= 1)
                break;
        }
        v += ((m->line_ink > 0 ? m->line_ink : 190) - v) * fmax(0, bottom - top) * share;
    }
    /* a rolling shutter's flicker band: rows of page darker alike */
    if (m->band_from >= 0 && f >= m->band_from && y >= BY0 + 48 && y < BY0 + 60 &&
        x >= (BX0 + BX1) / 2)
        v -= 20;
    if (m->bottom_from >= 0 && f >= m->bottom_from && y >= BY1 - 8)
        v += 18.0 * (y - (BY1 - 8)) / 8.0;
    return v;
}

static void draw(Film *m, int f, uint8_t *px)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 3; c++)
                px[(y * W + x) * 3 + c] = clamp8(scene(m, f, x, y, c) * m->gain + m->noise * gauss(&m->rng));
}

static void send(SettleBlocks *b, const uint8_t *px)
{
    for (int y = 0; y < H; y += SETTLE_BLOCK)
        settle_blocks_rows(b, px + (size_t)y * W * 3, W * 3, y, H - y < SETTLE_BLOCK ? H - y : SETTLE_BLOCK);
}

/* A landscape block test whose box is the screen's blocks. */
static void open_box(SettleBlocks *b)
{
    assert_int_equal(settle_blocks_init(b, W, H, 0), 0);
    assert_true(b->lines.on);
    b->filled[0] = BX0 / SETTLE_BLOCK;
    b->filled[1] = BY0 / SETTLE_BLOCK;
    b->filled[2] = BX1 / SETTLE_BLOCK - 1;
    b->filled[3] = BY1 / SETTLE_BLOCK - 1;
}

/* Runs n pictures of the film through the line test alone (the block
 * test's box set to the screen's blocks, a camera's room, calm counted as
 * the block test counts it) and blocks_stay; returns the pictures it
 * counted, as bits, and what blocks_stay kept of the last change at the end
 * and the pictures it took for a revert. */
static int32_t kept_before_last; /* run_reverts: blocks_stay's kept_prev at the end */

static uint64_t run_reverts(Film m, int n, double drift, int *kept, uint64_t *reverts)
{
    SettleBlocks b;
    SettleBlocksStay st;
    open_box(&b);
    assert_int_equal(settle_blocks_stay_init(&st, b.nb), 0);
    uint8_t *px = malloc((size_t)W * H * 3);
    assert_non_null(px);
    uint64_t fired = 0;
    int32_t last = 0, prev = 0;
    *reverts = 0;
    for (int f = 0; f < n; f++) {
        m.gain = 1 + drift * f;
        draw(&m, f, px);
        send(&b, px);
        SettleBlocksFrame out;
        memset(&out, 0, sizeof(out));
        if (f > 0 && settle_blocks_line_fires(&b, &out, 1, 1)) {
            fired |= 1ULL << f;
            out.change = 1;
        }
        settle_blocks_line_keep(&b, &out);
        uint8_t rev;
        settle_blocks_stay_frame(&st, &b, out.change, &last, &prev, &rev);
        *reverts |= (uint64_t)rev << f;
        b.calm = out.change ? 0 : b.calm + 1;
    }
    *kept = last;
    kept_before_last = prev;
    free(px);
    settle_blocks_stay_free(&st);
    settle_blocks_free(&b);
    return fired;
}

static uint64_t run(Film m, int n, double drift, int *kept)
{
    uint64_t reverts;
    uint64_t fired = run_reverts(m, n, drift, kept, &reverts);
    assert_int_equal(reverts, 0);
    return fired;
}

static Film film(double noise, uint64_t seed)
{
    Film m = { .rng = seed, .noise = noise, .gain = 1, .line_from = -1, .line_to = -1,
               .bottom_from = -1, .soft_from = -1, .band_from = -1 };
    return m;
}

/* noise alone, and noise under a light that drifts 0.2 % a picture: nothing */
static void test_noise_alone(void **state)
{
    (void)state;
    int kept;
    for (uint64_t seed = 1; seed <= 2; seed++) {
        assert_int_equal(run(film(2.5, seed), 50, 0, &kept), 0);
        assert_int_equal(run(film(4, seed), 50, 0.002, &kept), 0);
    }
}

/* the line, on a block row's quarter and straddling two quarters, counts on
 * its picture and on no other; it stays */
static void test_line_appears(void **state)
{
    (void)state;
    const double at[] = { BY0 + 36, BY0 + 38.5, BY0 + 42.3 };
    for (int i = 0; i < 3; i++) {
        Film m = film(2.5, 7 + (uint64_t)i);
        m.line_from = 30;
        m.line_y = at[i];
        int kept;
        assert_int_equal(run(m, 60, 0, &kept), 1ULL << 30);
        assert_int_equal(kept, SETTLE_BLOCK_LINE_RUN);
    }
}

/* a line that comes and goes (a toast's): its going is a revert, and what
 * is kept of it at the end is nothing */
static void test_line_goes(void **state)
{
    (void)state;
    Film m = film(2.5, 11);
    m.line_from = 20;
    m.line_to = 35;
    m.line_y = BY0 + 36;
    int kept;
    uint64_t reverts;
    assert_int_equal(run_reverts(m, 60, 0, &kept, &reverts), 1ULL << 20 | 1ULL << 35);
    assert_int_equal(reverts, 1ULL << 35);
    assert_int_equal(kept, 0);
    /* the change before the last is the line that came: none of it stays */
    assert_int_equal(kept_before_last, 0);
}

/* the header's edge re-coded softer (its blocks' profiles move by under
 * LINE_SHARE of the edge's reach, its light both ways) does not count, nor
 * does a flicker band darkening three quarters of the blocks under the
 * header's alike; a line that appears five rows under the edge, in the next
 * row of blocks, does, and so does one right under it in a lighter ink,
 * which moves its blocks by under LINE_SHARE of the edge's reach but as ink
 * (src/blocks_line.c, inked), also in an ink lighter still (low55) */
static void test_edge_recoded(void **state)
{
    (void)state;
    int kept;
    Film m = film(2.5, 21);
    m.soft_from = 30;
    assert_int_equal(run(m, 60, 0, &kept), 0);
    m = film(2.5, 23);
    m.band_from = 30;
    assert_int_equal(run(m, 60, 0, &kept), 0);
    m = film(2.5, 22);
    m.line_from = 30;
    m.line_y = BY0 + 33;
    assert_int_equal(run(m, 60, 0, &kept), 1ULL << 30);
    m = film(2.5, 24);
    m.line_from = 30;
    m.line_y = BY0 + 29.5;
    m.line_ink = 205;
    assert_int_equal(run(m, 60, 0, &kept), 1ULL << 30);
    /* a lighter line there, whose blocks move by 0.10 to 0.12 of the
     * edge's reach as ink (low55) */
    m = film(2.5, 24);
    m.line_from = 30;
    m.line_y = BY0 + 29.5;
    m.line_ink = 214;
    assert_int_equal(run(m, 60, 0, &kept), 1ULL << 30);
}

/* a line that appears over three pictures, right under the header's edge
 * (a rolling shutter's rows, an encoder's partial updates): its first step
 * moves its blocks by under LINE_LOW of the edge's reach, its second as ink
 * but under twice the first's strength, its last under twice the second's;
 * it counts once, on its second step (the stand read against the pictures
 * before the rise), and stays */
static void test_line_rises(void **state)
{
    (void)state;
    static const double steps[] = { 0.3, 0.55, 1 };
    for (uint64_t seed = 31; seed <= 33; seed++) {
        Film m = film(2.5, seed);
        m.line_from = 30;
        m.line_y = BY0 + 29.5;
        m.steps = steps;
        int kept;
        assert_int_equal(run(m, 60, 0, &kept), 1ULL << 31);
        assert_int_equal(kept, SETTLE_BLOCK_LINE_RUN);
    }
}

/* The line of test_line_appears at picture 30, the window before it set to
 * `calm` still pictures since a change, of the strengths w (newest first,
 * as shares of the line's own strength; 0: a keyframe); whether the line
 * test counts it. */
static int line_after(int calm, const double *w, int n)
{
    SettleBlocks b;
    open_box(&b);
    uint8_t *px = malloc((size_t)W * H * 3);
    assert_non_null(px);
    Film m = film(2.5, 41);
    m.line_from = 30;
    m.line_y = BY0 + 36;
    double own = 0;
    int fired = 0;
    /* twice: the line's strength read first, then the window set from it */
    for (int pass = 0; pass < 2; pass++) {
        settle_blocks_free(&b);
        open_box(&b);
        m.rng = 41;
        for (int f = 0; f <= 30; f++) {
            draw(&m, f, px);
            send(&b, px);
            SettleBlocksFrame out;
            memset(&out, 0, sizeof(out));
            if (f == 30 && pass == 1) {
                SettleBlocksLine *l = &b.lines;
                for (int i = 0; i < SETTLE_BLOCK_LONE_SEEN; i++)
                    l->seen[(l->pos + SETTLE_BLOCK_LONE_SEEN - 1 - i) % SETTLE_BLOCK_LONE_SEEN] =
                        i < n ? (float)(w[i] * own) : 0;
                b.calm = calm;
            }
            if (f > 0)
                fired = settle_blocks_line_fires(&b, &out, 1, 1);
            if (f == 30 && pass == 0)
                own = b.lines.strength;
            settle_blocks_line_keep(&b, &out);
            b.calm++;
        }
    }
    assert_true(own >= 40); /* the shares below keep the fall over 10 */
    free(px);
    settle_blocks_free(&b);
    return fired;
}

/* the window's strongest pictures the change's own fall right after it
 * (content settling, a picture behind its reference): the line stands
 * against the pictures after the fall. Not when the fall is not right
 * after the change, nor when fewer than two pictures follow it. */
static void test_line_after_fall(void **state)
{
    (void)state;
    /* newest first: four calm pictures, a keyframe, the fall of three */
    static const double fall[] = { 0.15, 0.17, 0.15, 0.18, 0, 0.49, 0.75, 0.85 };
    assert_true(line_after(8, fall, 8));
    /* the same strengths a picture later than the change's first still one
     * (at 0.3): no fall of the change's own, the window's */
    static const double later[] = { 0.15, 0.17, 0.15, 0.18, 0, 0.49, 0.75, 0.85, 0.3 };
    assert_false(line_after(9, later, 9));
    assert_true(line_after(9, later, 8)); /* (its first 0: a keyframe, passed over) */
    /* ... and without a fall (the oldest two in the wrong order) */
    static const double not_falling[] = { 0.15, 0.17, 0.15, 0.18, 0, 0.49, 0.85, 0.75 };
    assert_false(line_after(8, not_falling, 8));
    /* a fall with one picture after it */
    static const double short_rest[] = { 0.15, 0, 0.49, 0.75, 0.85 };
    assert_false(line_after(5, short_rest, 5));
}

/* the screen's bottom rows brightening (an encoder re-coding a gradient
 * there): the box's last row is left out */
static void test_bottom_edge(void **state)
{
    (void)state;
    int kept;
    Film m = film(1.5, 5);
    m.bottom_from = 30;
    assert_int_equal(run(m, 60, 0, &kept), 0);
}

/* each quarter's luma mean is the four rows' of its block (the last one
 * from the block row's sums less the other three), within the box and one
 * block around it; none beyond */
static void test_quarters(void **state)
{
    (void)state;
    SettleBlocks b;
    open_box(&b);
    uint8_t *px = malloc((size_t)W * H * 3);
    assert_non_null(px);
    Film m = film(6, 3);
    m.line_from = 0;
    m.line_y = BY0 + 37;
    draw(&m, 0, px);
    send(&b, px);
    const int x0 = b.filled[0] - 1, x1 = b.filled[2] + 1;
    for (int by = 0; by < b.bh; by++) {
        int in = by >= b.filled[1] - 1 && by <= b.filled[3] + 1;
        assert_int_equal(b.lines.row[by] != 0, in);
        if (!in)
            continue;
        assert_int_equal(b.lines.span[2 * by], x0);
        assert_int_equal(b.lines.span[2 * by + 1], x1);
        for (int bx = x0; bx <= x1; bx++)
            for (int i = 0; i < 4; i++) {
                double sum = 0;
                for (int y = by * 16 + i * 4; y < by * 16 + i * 4 + 4; y++)
                    for (int x = bx * 16; x < bx * 16 + 16; x++)
                        for (int c = 0; c < 3; c++)
                            sum += px[(y * W + x) * 3 + c];
                assert_float_equal(b.lines.quart[4 * (by * b.bw + bx) + i], sum / (64 * 3), 1e-3);
            }
    }
    free(px);
    settle_blocks_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_noise_alone), cmocka_unit_test(test_line_appears),
        cmocka_unit_test(test_line_goes),   cmocka_unit_test(test_bottom_edge),
        cmocka_unit_test(test_quarters),  cmocka_unit_test(test_edge_recoded),
        cmocka_unit_test(test_line_rises),  cmocka_unit_test(test_line_after_fall),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
