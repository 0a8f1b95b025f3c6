/* SPDX-License-Identifier: BSD-2-Clause */
#include "grid.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "canvas.h"
#include "capgen.h"

#define PI 3.14159265358979323846

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double uni(uint64_t *s, double a, double b)
{
    return a + (b - a) * ((splitmix(s) >> 11) / 9007199254740992.0);
}

static int pick(uint64_t *s, int n)
{
    return (int)(splitmix(s) % (uint64_t)n);
}

static int imax(int a, int b)
{
    return a > b ? a : b;
}

static int imin(int a, int b)
{
    return a < b ? a : b;
}

static const uint8_t palette[][3] = {
    { 229, 57, 53 },  { 216, 27, 96 },  { 142, 36, 170 }, { 94, 53, 177 },
    { 30, 136, 229 }, { 0, 172, 193 },  { 0, 137, 123 },  { 67, 160, 71 },
    { 124, 179, 66 }, { 192, 202, 51 }, { 253, 216, 53 }, { 121, 85, 72 },
    { 84, 110, 122 }, { 245, 127, 160 }, { 0, 96, 100 }, { 255, 160, 0 },
};
#define NPAL ((int)(sizeof(palette) / sizeof(palette[0])))
static const uint8_t white[3] = { 250, 250, 250 };
static const uint8_t ink[3] = { 33, 33, 33 };
static const uint8_t soft[3] = { 120, 120, 120 };
static const uint8_t skeleton[3] = { 215, 215, 215 };

/* the page's colours: light, or dark mode (light text on a near-black page) */
typedef struct Theme {
    const uint8_t *page, *ink, *soft, *skeleton;
} Theme;
static const uint8_t dark_page[3] = { 18, 18, 20 }, dark_ink[3] = { 232, 232, 232 },
                     dark_soft[3] = { 150, 150, 155 }, dark_skeleton[3] = { 48, 48, 52 };

static Theme theme(const GridCase *g)
{
    Theme t = { white, ink, soft, skeleton };
    if (g->dark) {
        Theme d = { dark_page, dark_ink, dark_soft, dark_skeleton };
        t = d;
    }
    return t;
}

/* words as dark bars with gaps: text at the scale of a phone */
static void text_line(const Canvas *c, int x0, int x1, int y, int lh, uint32_t seed, int line,
                      const uint8_t col[3])
{
    int gap = imax(2, c->w / 70), x = x0;
    for (int word = 0; x < x1; word++) {
        int ww = imax(3, c->w / 40 + (int)(canvas_hash3(seed, (uint32_t)line, (uint32_t)word) %
                                         (uint32_t)imax(1, c->w / 9)));
        int end = imin(x + ww, x1);
        /* letters: thin vertical gaps inside the word */
        for (int xx = x; xx < end; xx++)
            if ((xx - x) % 4 != 3)
                canvas_rect(c, xx, y, xx + 1, y + lh, col);
        x = end + gap;
    }
}

/* a photo-like picture: gradients and a few shapes */
static void image(const Canvas *c, int x0, int y0, int x1, int y1, uint32_t seed)
{
    const uint8_t *a = palette[seed % NPAL], *b = palette[(seed / 7 + 3) % NPAL];
    int w = imax(1, x1 - x0), h = imax(1, y1 - y0);
    for (int y = imax(y0, 0); y < y1 && y < c->h; y++) {
        uint8_t *px = c->p + (size_t)y * c->stride + 3 * imax(x0, 0);
        for (int x = imax(x0, 0); x < x1 && x < c->w; x++, px += 3) {
            double u = (double)(x - x0) / w, v = (double)(y - y0) / h;
            double m = 0.5 + 0.5 * sin(6 * u + 3 * v + (seed % 13));
            for (int ch = 0; ch < 3; ch++)
                px[ch] = (uint8_t)(a[ch] * m + b[ch] * (1 - m) * (0.6 + 0.4 * v));
        }
    }
    canvas_disc(c, x0 + w * (int)(seed % 5 + 2) / 8, y0 + h / 3, imax(2, h / 6), white);
}

static void header(const Canvas *c, int bar_h, const uint8_t col[3], uint32_t seed)
{
    int hh = c->h / 11;
    canvas_rect(c, 0, 0, c->w, bar_h + hh, col);
    text_line(c, c->w / 6, c->w / 2, bar_h + hh / 3, imax(3, hh / 4), seed, 99, white);
}

static void home(const Canvas *c)
{
    static const uint8_t bg[3] = { 40, 60, 90 };
    canvas_rect(c, 0, 0, c->w, c->h, bg);
    int cell = c->w / 4;
    for (int r = 0; r < 5; r++)
        for (int k = 0; k < 4; k++) {
            int x = k * cell + cell / 5, y = c->h / 10 + r * cell * 5 / 4;
            canvas_rect(c, x, y, x + cell * 3 / 5, y + cell * 3 / 5, palette[(r * 4 + k) % NPAL]);
        }
}

static void splash(const Canvas *c, const uint8_t col[3])
{
    canvas_rect(c, 0, 0, c->w, c->h, col);
    canvas_disc(c, c->w / 2, c->h * 2 / 5, c->w / 7, white);
}

static void list_rows(const Canvas *c, const Theme *th, int y0, int nrows, uint32_t seed,
                      int skeleton_only, int k)
{
    int rh = c->h / 9, pad = c->w / 24;
    for (int r = 0; r < nrows; r++) {
        int y = y0 + r * rh;
        if (y + rh > c->h)
            break;
        if (skeleton_only) {
            /* a shimmer that sweeps across the skeleton every frame */
            uint8_t sk[3];
            int shade = (int)(20 * sin(0.35 * k - 0.02 * r * rh));
            for (int ch = 0; ch < 3; ch++)
                sk[ch] = canvas_clamp8(th->skeleton[ch] + shade);
            canvas_disc(c, pad + rh / 3, y + rh / 2, rh / 3, sk);
            canvas_rect(c, pad * 2 + rh * 2 / 3, y + rh / 4, c->w * 3 / 4, y + rh / 4 + rh / 7, sk);
            canvas_rect(c, pad * 2 + rh * 2 / 3, y + rh / 2, c->w / 2, y + rh / 2 + rh / 8, sk);
            continue;
        }
        canvas_disc(c, pad + rh / 3, y + rh / 2, rh / 3, palette[(seed + r) % NPAL]);
        text_line(c, pad * 2 + rh * 2 / 3, c->w * 3 / 4, y + rh / 4, imax(3, rh / 7), seed, r, th->ink);
        text_line(c, pad * 2 + rh * 2 / 3, c->w - pad, y + rh / 2, imax(2, rh / 9), seed, r + 50,
                  th->soft);
    }
}

static void spinner(const Canvas *c, int cx, int cy, int r, int k, const uint8_t col[3])
{
    double a0 = 0.4 * k;
    for (int y = cy - r; y <= cy + r; y++)
        for (int x = cx - r; x <= cx + r; x++) {
            int d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
            if (d2 > r * r || d2 < (r * 2 / 3) * (r * 2 / 3) || x < 0 || y < 0 || x >= c->w || y >= c->h)
                continue;
            double a = fmod(atan2(y - cy, x - cx) - a0 + 8 * PI, 2 * PI);
            if (a < 4.2)
                memcpy(c->p + (size_t)y * c->stride + 3 * x, col, 3);
        }
}

static int bar_height(const GridCase *g, int h)
{
    return g->bar == GRID_BAR_IOS ? h * 55 / 1000 : g->bar == GRID_BAR_ANDROID ? h * 36 / 1000 : 0;
}

/* The app's final picture; with `late`, the line of text that appears last. */
static void app_final(const GridCase *g, const Canvas *c, int bar, int late)
{
    uint32_t seed = (uint32_t)g->seed ^ (uint32_t)g->index;
    const uint8_t *hc = palette[seed % NPAL];
    Theme th = theme(g);
    canvas_rect(c, 0, 0, c->w, c->h, th.page);
    header(c, bar, hc, seed);
    int y0 = bar + c->h / 11 + c->h / 40;
    switch (g->layout) {
    case GRID_LIST:
    case GRID_SPLASH:
        image(c, c->w / 24, y0, c->w - c->w / 24, y0 + c->h / 5, seed);
        list_rows(c, &th, y0 + c->h / 5 + c->h / 40, 8, seed, 0, 0);
        break;
    case GRID_IMAGES:
        for (int i = 0; i < 6; i++) {
            int col = i % 2, row = i / 2, cw = c->w / 2;
            image(c, col * cw + cw / 12, y0 + row * cw, col * cw + cw * 11 / 12, y0 + row * cw + cw * 5 / 6,
                  seed + (uint32_t)i * 31);
        }
        break;
    case GRID_TEXT:
        for (int l = 0; l < 24; l++)
            text_line(c, c->w / 16, c->w * 15 / 16, y0 + l * c->h / 34, imax(3, c->h / 90), seed, l, th.ink);
        break;
    default:
        list_rows(c, &th, y0, 8, seed, 0, 0);
        break;
    }
    /* a short line of small text under the header ("updated just now"),
     * which an app draws once its data came back: a fraction of diff's
     * 4096 pixels */
    if (late)
        text_line(c, c->w / 2, c->w * 15 / 16, bar + c->h / 11 + 2, imax(3, c->h / 100), seed, 77,
                  th.soft);
}

static void app_before(const GridCase *g, const Canvas *c, int k, int bar)
{
    uint32_t seed = (uint32_t)g->seed ^ (uint32_t)g->index;
    const uint8_t *hc = palette[seed % NPAL];
    Theme th = theme(g);
    int y0 = bar + c->h / 11 + c->h / 40;
    const int *p = g->phase;
    if (k < p[0]) {
        home(c);
        return;
    }
    switch (g->layout) {
    case GRID_LIST:
        if (k < p[1]) {
            splash(c, hc);
        } else {
            canvas_rect(c, 0, 0, c->w, c->h, th.page);
            header(c, bar, hc, seed);
            list_rows(c, &th, y0, 10, seed, 1, k);
        }
        break;
    case GRID_SPLASH:
        splash(c, hc);
        break;
    case GRID_IMAGES: {
        app_final(g, c, bar, 0);
        /* images not yet loaded are grey placeholders; one more every few frames */
        int shown = k < p[1] ? 0 : 1 + (k - p[1]) * 5 / imax(1, p[2] - p[1]);
        for (int i = shown; i < 6; i++) {
            int col = i % 2, row = i / 2, cw = c->w / 2;
            canvas_rect(c, col * cw + cw / 12, y0 + row * cw, col * cw + cw * 11 / 12, y0 + row * cw + cw * 5 / 6,
                 th.skeleton);
        }
        break;
    }
    case GRID_TEXT: {
        app_final(g, c, bar, 0);
        /* paragraphs arrive in three parts */
        int lines = k < p[1] ? 0 : k < p[2] ? 12 : 20;
        canvas_rect(c, 0, y0 + lines * c->h / 34, c->w, c->h, th.page);
        break;
    }
    default: { /* GRID_ROWS: rows appear one by one under a spinner */
        canvas_rect(c, 0, 0, c->w, c->h, th.page);
        header(c, bar, hc, seed);
        /* the last row that fits appears at the truth, with the spinner gone */
        int fit = (c->h - y0) / (c->h / 9);
        int n = k < p[1] ? 0 : 1 + (k - p[1]) * (fit - 1) / imax(1, p[2] - p[1]);
        list_rows(c, &th, y0, imin(n, fit - 1), seed, 0, 0);
        spinner(c, c->w / 2, c->h * 7 / 8, c->w / 14, k, hc);
        break;
    }
    }
}

static void glyphs(const Canvas *c, int x, int y, int gh, int n, uint32_t seed, const uint8_t col[3])
{
    int gw = imax(2, gh * 3 / 5);
    for (int i = 0; i < n; i++) {
        uint32_t bits = canvas_hash3(seed, (uint32_t)i, 7);
        for (int cell = 0; cell < 6; cell++)
            if (bits >> cell & 1)
                canvas_rect(c, x + (cell % 2) * gw / 2, y + (cell / 2) * gh / 3, x + (cell % 2 + 1) * gw / 2,
                     y + (cell / 2 + 1) * gh / 3, col);
        x += gw + gw / 3;
    }
}

/* iOS: clock at the left inside a red pill whose brightness pulses; Android:
 * clock at the left, a red recording dot that blinks. Icons at the right. */
static void status_bar(const GridCase *g, const Canvas *c, int k, double t)
{
    int bh = bar_height(g, c->h);
    if (!bh)
        return;
    const uint8_t *bg = c->p + (size_t)(bh + 1) * c->stride + 3;
    uint8_t bgc[3] = { bg[0], bg[1], bg[2] };
    canvas_rect(c, 0, 0, c->w, bh, bgc);
    int lum = (bgc[0] * 2 + bgc[1] * 5 + bgc[2]) / 8;
    const uint8_t *fg = lum > 140 ? ink : white;
    int minute = g->clock_tick >= 0 && k >= g->clock_tick ? 42 : 41;
    int gh = bh / 2, y = bh / 4;
    if (g->kind == GRID_SCREEN && g->bar == GRID_BAR_IOS) {
        double a = 0.65 + 0.35 * sin(2 * PI * t / 1.2);
        uint8_t red[3] = { canvas_clamp8(bgc[0] * (1 - a) + 235 * a), canvas_clamp8(bgc[1] * (1 - a) + 60 * a),
                           canvas_clamp8(bgc[2] * (1 - a) + 50 * a) };
        canvas_rect(c, c->w / 20, 2, c->w / 20 + c->w / 5, bh - 2, red);
        glyphs(c, c->w / 20 + c->w / 40, y, gh, 4, (uint32_t)minute, white);
    } else {
        glyphs(c, c->w / 30, y, gh, 4, (uint32_t)minute, fg);
        if (g->kind == GRID_SCREEN && fmod(t, 1.0) < 0.5) {
            static const uint8_t red[3] = { 230, 40, 40 };
            canvas_disc(c, c->w / 30 + gh * 4, bh / 2, imax(2, gh / 3), red);
        }
    }
    /* signal bars and battery */
    for (int i = 0; i < 4; i++)
        canvas_rect(c, c->w * 7 / 10 + i * gh / 2, y + gh - (i + 1) * gh / 4, c->w * 7 / 10 + i * gh / 2 + gh / 3,
             y + gh, fg);
    canvas_rect(c, c->w * 85 / 100, y, c->w * 93 / 100, y + gh, fg);
}

/* Picture k of the recording: the app's frame src[k] (the recorder may
 * repeat a picture), the status bar of that moment. */
static void draw_app(GridCase *g, int k, uint8_t *rgb, int stride, int w, int h)
{
    Canvas c = { rgb, stride, w, h };
    int bar = bar_height(g, h), f = g->final;
    k = g->src[k];
    double t = g->time_ms[k] / 1000.0;
    if (k >= f) {
        app_final(g, &c, bar, g->late && k >= g->late_at);
    } else if (g->fade > 0 && k >= f - g->fade) {
        /* the last frames before the content is final blend towards it */
        double a = (double)(k - (f - g->fade) + 1) / (g->fade + 1);
        uint8_t *tmp = malloc((size_t)w * h * 3);
        if (tmp) {
            Canvas fin = { tmp, w * 3, w, h };
            app_before(g, &c, f - g->fade - 1, bar);
            app_final(g, &fin, bar, 0);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < 3 * w; x++) {
                    uint8_t *o = rgb + (size_t)y * stride + x;
                    *o = canvas_clamp8(*o * (1 - a) + tmp[(size_t)y * w * 3 + x] * a);
                }
            free(tmp);
        }
    } else {
        app_before(g, &c, k, bar);
    }
    status_bar(g, &c, k, t);
}

/* ---- the camera ---- */

static double gauss_table[4096];

static void init_gauss(void)
{
    if (gauss_table[0] == 0)
        camera_gauss_table(gauss_table, 0x853C49E6748FEA9BULL, splitmix);
}

/* A landscape film's room at (x, y) of its w x h picture, before the light:
 * the phone's body (a margin around the screen's corners), the object on the
 * desk, the desk below its edge, the wall above, darker towards the top. */
static double room(const GridCase *g, int x, int y, int w, int h)
{
    const double (*c)[2] = (const double(*)[2])g->corner;
    double x0 = fmin(c[0][0], c[3][0]), x1 = fmax(c[1][0], c[2][0]);
    double y0 = fmin(c[0][1], c[1][1]), y1 = fmax(c[2][1], c[3][1]);
    double mx = (x1 - x0) * 0.07, my = (y1 - y0) * 0.06;
    if (x >= x0 - mx && x < x1 + mx && y >= y0 - my && y < y1 + my)
        return g->room_body;
    const double *o = g->room_object;
    if (x >= o[0] * w && x < (o[0] + o[2]) * w && y >= o[1] * h && y < (o[1] + o[3]) * h)
        return g->room_object_level;
    if (y >= g->room_horizon * h)
        return g->room_desk * (1 - 0.15 * (y - g->room_horizon * h) / h);
    return g->room_wall * (1 - g->room_slope * (1 - (double)y / (g->room_horizon * h)));
}

static void film(GridCase *g, int k, uint8_t *rgb, int stride, int w, int h)
{
    int sw = g->screen_w, sh = g->screen_h;
    uint8_t *scr = g->scratch;
    draw_app(g, k, scr, sw * 3, sw, sh);
    double t = g->time_ms[k] / 1000.0, T = g->time_ms[g->nb_frames - 1] / 1000.0;
    /* auto-exposure follows the screen's mean brightness */
    double mean = 0;
    for (int i = 0; i < sw * sh * 3; i += 97)
        mean += scr[i];
    mean /= (sw * sh * 3 + 96) / 97;
    double target = pow(128.0 / (mean * 0.6 + 50), g->ae);
    if (k == 0)
        g->ae_gain = target;
    else
        g->ae_gain += (target - g->ae_gain) *
                      (1 - exp(-(g->time_ms[k] - g->time_ms[k - 1]) / 1000.0 / g->ae_tau));
    double gain = 0.85 * g->ae_gain * (1 + g->drift * t / T);
    double hm[9];
    camera_homography((const double(*)[2])g->corner, sw, sh, hm);
    double mper = 1.0 / (g->corner[1][0] - g->corner[0][0]) * sw; /* screen px per camera px */
    double period = mper * (0.9 + 0.25 * (double)(g->seed % 7) / 7);
    for (int y = 0; y < h; y++) {
        uint8_t *row = rgb + (ptrdiff_t)y * stride;
        double light = g->ambient;
        if (g->mains)
            light *= 1 + g->flicker * cos(2 * PI * 2 * g->mains * (t + g->rolling * y / h) + 1.3);
        for (int x = 0; x < w; x++) {
            double px = x + 0.5, py = y + 0.5;
            double d = hm[6] * px + hm[7] * py + hm[8];
            double u = (hm[0] * px + hm[1] * py + hm[2]) / d - 0.5;
            double v = (hm[3] * px + hm[4] * py + hm[5]) / d - 0.5;
            int inside = !(u < -0.5 || v < -0.5 || u > sw - 0.5 || v > sh - 0.5);
            for (int ch = 0; ch < 3; ch++) {
                double wb = 1 + g->wb_drift[ch] * t / T, val;
                if (inside) {
                    int u0 = (int)floor(u), v0 = (int)floor(v);
                    double fu = u - u0, fv = v - v0;
                    int ua = imax(u0, 0), ub = imin(u0 + 1, sw - 1);
                    int va = imax(v0, 0), vb = imin(v0 + 1, sh - 1);
                    double s = (scr[(va * sw + ua) * 3 + ch] * (1 - fu) + scr[(va * sw + ub) * 3 + ch] * fu) * (1 - fv) +
                               (scr[(vb * sw + ua) * 3 + ch] * (1 - fu) + scr[(vb * sw + ub) * 3 + ch] * fu) * fv;
                    if (g->moire > 0)
                        s *= 1 - g->moire * (0.5 + 0.5 * cos(2 * PI * u / period)) *
                                     (0.5 + 0.5 * cos(2 * PI * v / period));
                    val = s * 0.8 + 0.25 * light;
                } else if (g->landscape) {
                    val = room(g, x, y, w, h) * (0.6 + 0.02 * light);
                } else {
                    val = 12 + 0.9 * light;
                }
                row[3 * x + ch] = canvas_clamp8(gain * wb * val);
            }
        }
    }
    if (g->blur > 0)
        camera_box_blur(rgb, stride, w, h, g->blur);
    camera_noise(rgb, stride, w, h, gauss_table, g->read_noise, g->shot_noise,
                 g->seed * 31 + (uint64_t)k * 0x9E3779B97F4A7C15ULL + 1, splitmix);
}

static void draw(void *opaque, int k, uint8_t *rgb, int stride, int w, int h)
{
    GridCase *g = opaque;
    if (g->kind == GRID_CAMERA)
        film(g, k, rgb, stride, w, h);
    else
        draw_app(g, k, rgb, stride, w, h);
}

/* Version 2's conditions (dark mode, a late line, long fades, repeated
 * pictures), from their own stream; sets src[] and the truth. */
static int more_conditions(GridCase *g, uint64_t seed, int index, int last)
{
    uint64_t s2 = g->seed2;
    (void)seed;
    (void)index;
    g->dark = pick(&s2, 3) == 0;
    /* fades as long as a platform's cross-fade (150-300 ms) */
    if (g->fade > 0 && pick(&s2, 3) == 0)
        g->fade = 8 + pick(&s2, 8);
    g->fade = imin(g->fade, g->final - 2);
    g->fade = g->fade < 0 ? 0 : g->fade;
    /* the small line 0.3-1.0 s after the content, still 1.2 s before the end */
    int at = g->final + (int)(uni(&s2, 0.3, 1.0) * g->fps);
    g->late = pick(&s2, 4) == 0 && at <= last;
    g->late_at = g->late ? at : -1;
    g->src = malloc((size_t)g->nb_frames * sizeof(*g->src));
    if (!g->src)
        return -1;
    /* a quarter to a half of the pictures repeat the one before */
    double rep = g->dup ? uni(&s2, 0.25, 0.5) : 0;
    for (int k = 0; k < g->nb_frames; k++)
        g->src[k] = k > 0 && uni(&s2, 0, 1) < rep ? g->src[k - 1] : k;
    int want = g->late ? g->late_at : g->final;
    g->truth = g->nb_frames - 1;
    for (int k = 0; k < g->nb_frames; k++)
        if (g->src[k] >= want) {
            g->truth = k;
            break;
        }
    return 0;
}

int grid_case(GridCase *g, uint64_t seed, int index)
{
    memset(g, 0, sizeof(*g));
    uint64_t s = seed * 0x2545F4914F6CDD1DULL + (uint64_t)index * 0x9E3779B97F4A7C15ULL;
    splitmix(&s);
    g->seed = seed;
    g->index = index;
    g->kind = pick(&s, 2);
    g->layout = pick(&s, GRID_NB_LAYOUTS);
    g->bar = pick(&s, 3);
    static const int rates[] = { 24, 25, 30, 30, 60 };
    g->fps = rates[pick(&s, 5)];
    g->vfr = g->kind == GRID_SCREEN && pick(&s, 3) == 0;
    /* conditions added in version 2 come from a stream of their own, so
     * that every other condition of a seed stays as it was drawn */
    uint64_t s2 = seed * 0xD1342543DE82EF95ULL + (uint64_t)index * 0x94D049BB133111EBULL + 2;
    splitmix(&s2);
    /* a recorder that writes a constant 30 fps and repeats the picture
     * whenever the app had not drawn a new one in time */
    g->dup = g->kind == GRID_SCREEN && !g->vfr && pick(&s2, 4) == 0;
    if (g->dup)
        g->fps = 30;
    g->seed2 = s2;
    double secs = uni(&s, 3.0, 5.0);
    g->nb_frames = (int)(secs * g->fps);
    g->time_ms = malloc((size_t)g->nb_frames * sizeof(*g->time_ms));
    if (!g->time_ms)
        return -1;
    int64_t tm = 0;
    for (int i = 0; i < g->nb_frames; i++) {
        g->time_ms[i] = tm;
        double step = 1000.0 / g->fps;
        /* a screen recorder's irregular frame times */
        tm += g->vfr ? (int64_t)(step * uni(&s, 0.5, 1.8) + 0.5) : 0;
        if (!g->vfr)
            g->time_ms[i] = (int64_t)(i * 1000.0 / g->fps + 0.5);
    }
    /* the truth: between 35 % and 60 % of the capture, at least 1.2 s before the end */
    int last = g->nb_frames - (int)(1.2 * g->fps);
    g->final = imin((int)(g->nb_frames * uni(&s, 0.35, 0.6)), last);
    g->phase[0] = imax(2, g->final / 6);
    g->phase[1] = g->phase[0] + imax(2, (g->final - g->phase[0]) / 3);
    g->phase[2] = g->final;
    g->fade = pick(&s, 4) == 0 ? 2 + pick(&s, 6) : 0;
    g->clock_tick = g->kind == GRID_SCREEN && pick(&s, 3) == 0
                        ? g->final + pick(&s, g->nb_frames - g->final) : -1;
    if (more_conditions(g, seed, index, last) < 0)
        return -1;
    /* encoders as capture programs use them */
    static const char *const enc[] = { "libx264", "libx264", "libx264", "libx265", "libvpx",
                                       "libvpx-vp9" };
    g->encoder = enc[pick(&s, 6)];
    if (!strcmp(g->encoder, "libx264")) {
        static const int crf[] = { 18, 23, 28, 33 };
        g->quality = crf[pick(&s, 4)];
        g->bframes = pick(&s, 2) ? 3 : 0;
    } else if (!strcmp(g->encoder, "libx265")) {
        g->quality = 22 + pick(&s, 10);
        g->bframes = pick(&s, 2) ? 4 : 0;
    } else {
        g->quality = 10 + pick(&s, 30);
    }
    static const int gops[] = { 0, 30, 60, 120 };
    g->gop = gops[pick(&s, 4)];
    if (g->kind == GRID_SCREEN) {
        g->width = g->screen_w = 360;
        g->height = g->screen_h = 640;
    } else {
        g->width = 432;
        g->height = 576;
        g->screen_w = 240;
        g->screen_h = 432;
        double cx = uni(&s, 0.45, 0.55) * g->width, cy = uni(&s, 0.45, 0.55) * g->height;
        double hh = uni(&s, 0.62, 0.85) * g->height / 2, hw = hh * 240 / 432;
        double jx = hw * 0.12, jy = hh * 0.06;
        double base[4][2] = { { cx - hw, cy - hh }, { cx + hw, cy - hh }, { cx + hw, cy + hh },
                              { cx - hw, cy + hh } };
        for (int i = 0; i < 4; i++) {
            g->corner[i][0] = base[i][0] + uni(&s, -jx, jx);
            g->corner[i][1] = base[i][1] + uni(&s, -jy, jy);
        }
        g->read_noise = uni(&s, 0.5, 4.0);
        g->shot_noise = uni(&s, 0.0, 0.12);
        g->drift = uni(&s, -0.1, 0.1);
        for (int ch = 0; ch < 3; ch++)
            g->wb_drift[ch] = uni(&s, -0.04, 0.04);
        g->ae = pick(&s, 2) ? uni(&s, 0.1, 0.4) : 0;
        g->ae_tau = uni(&s, 0.2, 0.8);
        static const int mains[] = { 0, 50, 60 };
        g->mains = mains[pick(&s, 3)];
        g->flicker = uni(&s, 0.03, 0.15);
        g->ambient = uni(&s, 10, 50);
        g->rolling = pick(&s, 2) ? uni(&s, 0.01, 0.03) : 0;
        g->blur = pick(&s, 3);
        g->moire = pick(&s, 3) == 0 ? uni(&s, 0.1, 0.3) : 0;
        g->scratch = malloc((size_t)g->screen_w * g->screen_h * 3);
        if (!g->scratch)
            return -1;
    }
    init_gauss();
    return 0;
}

int grid_case_landscape(GridCase *g, uint64_t seed, int index)
{
    if (grid_case(g, seed, index) < 0)
        return -1;
    if (g->kind != GRID_CAMERA)
        return 0;
    /* a stream of its own: the case's other conditions stay as drawn */
    uint64_t s = seed * 0xA0761D6478BD642FULL + (uint64_t)index * 0xE7037ED1A0B428DBULL + 3;
    splitmix(&s);
    g->landscape = 1;
    g->width = 768;
    g->height = 432;
    /* the phone upright, its screen 55-80 % of the picture's height */
    double cx = uni(&s, 0.4, 0.6) * g->width, cy = uni(&s, 0.46, 0.54) * g->height;
    double hh = uni(&s, 0.55, 0.8) * g->height / 2, hw = hh * g->screen_w / g->screen_h;
    double jx = hw * 0.12, jy = hh * 0.06;
    double base[4][2] = { { cx - hw, cy - hh }, { cx + hw, cy - hh }, { cx + hw, cy + hh },
                          { cx - hw, cy + hh } };
    for (int i = 0; i < 4; i++) {
        g->corner[i][0] = base[i][0] + uni(&s, -jx, jx);
        g->corner[i][1] = base[i][1] + uni(&s, -jy, jy);
    }
    g->room_body = uni(&s, 8, 40);
    g->room_wall = uni(&s, 40, 140);
    g->room_desk = uni(&s, 30, 120);
    g->room_horizon = uni(&s, 0.6, 0.85);
    g->room_slope = uni(&s, 0, 0.4);
    /* an object on the desk or against the wall, to one side of the phone */
    double ow = uni(&s, 0.08, 0.2), oh = uni(&s, 0.1, 0.3);
    double ox = pick(&s, 2) ? uni(&s, 0.02, 0.3 - ow) : uni(&s, 0.7, 0.98 - ow);
    g->room_object[0] = ox;
    g->room_object[1] = g->room_horizon - oh * uni(&s, 0.5, 1.0);
    g->room_object[2] = ow;
    g->room_object[3] = oh;
    g->room_object_level = uni(&s, 20, 200);
    return 0;
}

void grid_free(GridCase *g)
{
    free(g->time_ms);
    free(g->scratch);
    free(g->src);
    g->time_ms = NULL;
    g->scratch = NULL;
    g->src = NULL;
}

static const char *const layout_names[] = { "list", "images", "text", "splash", "rows" };
static const char *const bar_names[] = { "none", "ios", "android" };

static const char *enc_name(const GridCase *g)
{
    return !strcmp(g->encoder, "libx264") ? (g->bframes ? "x264-bframes" : "x264")
           : !strcmp(g->encoder, "libx265") ? "x265"
           : !strcmp(g->encoder, "libvpx")  ? "vp8"
                                            : "vp9";
}

/* version 2's conditions, as " dark late=N dup" */
static void more_describe(const GridCase *g, char *buf, int len)
{
    snprintf(buf, (size_t)len, "%s%s%s", g->dark ? " dark" : "", g->late ? " late" : "",
             g->dup ? " dup" : "");
}

void grid_describe(const GridCase *g, char *buf, int len)
{
    char more[64];
    more_describe(g, more, sizeof(more));
    if (g->kind == GRID_SCREEN)
        snprintf(buf, (size_t)len, "screen %s %s q%d gop%d bar=%s %s fade=%d tick=%d%s", layout_names[g->layout],
                 enc_name(g), g->quality, g->gop, bar_names[g->bar], g->vfr ? "vfr" : "cfr", g->fade,
                 g->clock_tick, more);
    else
        snprintf(buf, (size_t)len,
                 "camera %s %s q%d gop%d %dfps noise=%.1f+%.2f drift=%.2f ae=%.2f mains=%d/%.2f rolling=%.3f "
                 "blur=%d moire=%.2f fade=%d%s%s",
                 layout_names[g->layout], enc_name(g), g->quality, g->gop, g->fps, g->read_noise,
                 g->shot_noise, g->drift, g->ae, g->mains, g->flicker, g->rolling, g->blur, g->moire,
                 g->fade, more, g->landscape ? " landscape" : "");
}

static const char *fade_class(const GridCase *g)
{
    return !g->fade ? "no" : g->fade < 8 ? "2-7" : "8-15";
}

void grid_classes(const GridCase *g, char *buf, int len)
{
    const char *kind = g->kind == GRID_SCREEN ? "screen" : "camera";
    if (g->kind == GRID_SCREEN) {
        snprintf(buf, (size_t)len, "%s|layout=%s|encoder=%s|bar=%s|rate=%s|fade=%s|dark=%s|late=%s|dup=%s",
                 kind, layout_names[g->layout], enc_name(g), bar_names[g->bar],
                 g->vfr ? "vfr" : g->fps == 60 ? "60" : "24-30", fade_class(g), g->dark ? "yes" : "no",
                 g->late ? "yes" : "no", g->dup ? "yes" : "no");
        return;
    }
    double n = g->read_noise * g->read_noise + g->shot_noise * 128;
    snprintf(buf, (size_t)len,
             "%s|layout=%s|encoder=%s|rate=%s|noise=%s|flicker=%d|shutter=%s|ae=%s|blur=%d|moire=%s|fade=%s|"
             "dark=%s|late=%s",
             kind, layout_names[g->layout], enc_name(g), g->fps == 60 ? "60" : "24-30",
             n < 4 ? "low" : n < 12 ? "mid" : "high", g->mains, g->rolling > 0 ? "rolling" : "global",
             g->ae > 0 ? "yes" : "no", g->blur, g->moire > 0 ? "yes" : "no", fade_class(g),
             g->dark ? "yes" : "no", g->late ? "yes" : "no");
}

int grid_write(GridCase *g, const char *path)
{
    CapgenSpec c = {
        .path = path, .encoder = g->encoder, .width = g->width, .height = g->height,
        .nb_frames = g->nb_frames, .fps = g->fps, .time_ms = g->vfr ? g->time_ms : NULL,
        .gop = g->gop, .quality = g->quality, .bframes = g->bframes, .draw = draw, .opaque = g,
    };
    return capgen_write(&c);
}

double grid_truth_time(const GridCase *g)
{
    return (g->time_ms[g->truth] - g->time_ms[0]) / 1000.0;
}

double grid_tolerance(const GridCase *g)
{
    if (g->kind == GRID_CAMERA)
        return 0.15;
    /* one frame: the longer interval next to the truth */
    int k = g->truth;
    int64_t a = k > 0 ? g->time_ms[k] - g->time_ms[k - 1] : 0;
    int64_t b = k + 1 < g->nb_frames ? g->time_ms[k + 1] - g->time_ms[k] : 0;
    return (a > b ? a : b) / 1000.0 + 0.0005;
}
