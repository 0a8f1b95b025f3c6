/* SPDX-License-Identifier: BSD-2-Clause */
#include "camera.h"
#include "canvas.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

int camera_init(CameraSpec *c, CapgenDraw draw, void *opaque, int screen_w, int screen_h,
                int w, int h)
{
    memset(c, 0, sizeof(*c));
    c->draw = draw;
    c->opaque = opaque;
    c->screen_w = screen_w;
    c->screen_h = screen_h;
    /* a screen of about 0.62 w x 0.8 h, seen a little from the left and from
     * above: its right edge is shorter and its bottom narrower than its top */
    double x0 = 0.20 * w, x1 = 0.80 * w, y0 = 0.08 * h, y1 = 0.90 * h;
    c->corner[0][0] = x0;
    c->corner[0][1] = y0;
    c->corner[1][0] = x1 + 0.02 * w;
    c->corner[1][1] = y0 + 0.03 * h;
    c->corner[2][0] = x1 - 0.01 * w;
    c->corner[2][1] = y1 - 0.02 * h;
    c->corner[3][0] = x0 + 0.03 * w;
    c->corner[3][1] = y1;
    c->background = 24;
    c->gain = 0.9;
    c->drift = -0.06;
    c->drift_frames = 90;
    c->noise = 3;
    c->blur = 1;
    c->screen = malloc((size_t)screen_w * screen_h * 3);
    return c->screen ? 0 : -1;
}

void camera_free(CameraSpec *c)
{
    free(c->screen);
    c->screen = NULL;
}

void camera_screen_box(const CameraSpec *c, int box[4])
{
    double l = fmax(c->corner[0][0], c->corner[3][0]), r = fmin(c->corner[1][0], c->corner[2][0]);
    double t = fmax(c->corner[0][1], c->corner[1][1]), b = fmin(c->corner[2][1], c->corner[3][1]);
    box[0] = (int)ceil(l);
    box[1] = (int)ceil(t);
    box[2] = (int)floor(r) - box[0];
    box[3] = (int)floor(b) - box[1];
}

void camera_homography(const double corner[4][2], int sw, int sh, double hm[9])
{
    /* the eight equations of the four corners, solved by Gaussian elimination */
    const double u[4] = { 0, sw, sw, 0 };
    const double v[4] = { 0, 0, sh, sh };
    double a[8][9];
    for (int i = 0; i < 4; i++) {
        double x = corner[i][0], y = corner[i][1];
        double r0[9] = { x, y, 1, 0, 0, 0, -x * u[i], -y * u[i], u[i] };
        double r1[9] = { 0, 0, 0, x, y, 1, -x * v[i], -y * v[i], v[i] };
        memcpy(a[2 * i], r0, sizeof(r0));
        memcpy(a[2 * i + 1], r1, sizeof(r1));
    }
    for (int col = 0; col < 8; col++) {
        int piv = col;
        for (int r = col + 1; r < 8; r++)
            if (fabs(a[r][col]) > fabs(a[piv][col]))
                piv = r;
        for (int k = 0; k < 9; k++) {
            double t = a[col][k];
            a[col][k] = a[piv][k];
            a[piv][k] = t;
        }
        for (int r = 0; r < 8; r++) {
            if (r == col)
                continue;
            double f = a[r][col] / a[col][col];
            for (int k = col; k < 9; k++)
                a[r][k] -= f * a[col][k];
        }
    }
    for (int i = 0; i < 8; i++)
        hm[i] = a[i][8] / a[i][i];
    hm[8] = 1;
}

static uint64_t next(uint64_t *s)
{
    /* xorshift64* */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

void camera_gauss_table(double table[4096], uint64_t seed, CameraRandom gen)
{
    for (int i = 0; i < 4096; i++) {
        double a = ((gen(&seed) >> 11) + 0.5) / 9007199254740992.0;
        double b = ((gen(&seed) >> 11) + 0.5) / 9007199254740992.0;
        table[i] = sqrt(-2 * log(a)) * cos(6.283185307179586 * b);
    }
}

void camera_noise(uint8_t *rgb, int stride, int w, int h, const double table[4096],
                  double read_noise, double shot_noise, uint64_t seed, CameraRandom gen)
{
    for (int y = 0; y < h; y++) {
        uint8_t *row = rgb + (ptrdiff_t)y * stride;
        for (int x = 0; x < 3 * w; x += 4) {
            uint64_t r = gen(&seed);
            for (int k = 0; k < 4 && x + k < 3 * w; k++) {
                double v = row[x + k];
                double sigma = sqrt(read_noise * read_noise + shot_noise * v);
                row[x + k] = canvas_clamp8(v + sigma * table[(r >> (12 * k + 8)) & 4095]);
            }
        }
    }
}

/* Box blur of radius r along rows (dx = 3) or columns (dx = stride). */
static void box(uint8_t *p, int stride, int w, int h, int r, int vertical, uint8_t *line)
{
    int n = vertical ? h : w, lines = vertical ? w : h;
    ptrdiff_t step = vertical ? stride : 3, jump = vertical ? 3 : stride;
    for (int l = 0; l < lines; l++) {
        uint8_t *q = p + l * jump;
        for (int i = 0; i < n; i++)
            memcpy(line + 3 * i, q + i * step, 3);
        for (int i = 0; i < n; i++) {
            for (int ch = 0; ch < 3; ch++) {
                int sum = 0, cnt = 0;
                for (int k = i - r; k <= i + r; k++) {
                    if (k >= 0 && k < n) {
                        sum += line[3 * k + ch];
                        cnt++;
                    }
                }
                q[i * step + ch] = (uint8_t)((sum + cnt / 2) / cnt);
            }
        }
    }
}

void camera_box_blur(uint8_t *rgb, int stride, int w, int h, int r)
{
    uint8_t *line = malloc((size_t)(w > h ? w : h) * 3);
    if (!line)
        return;
    box(rgb, stride, w, h, r, 0, line);
    box(rgb, stride, w, h, r, 1, line);
    free(line);
}

void camera_draw(void *opaque, int index, uint8_t *rgb, int stride, int w, int h)
{
    CameraSpec *c = opaque;
    int sw = c->screen_w, sh = c->screen_h;
    c->draw(c->opaque, index, c->screen, sw * 3, sw, sh);
    double hm[9];
    camera_homography((const double(*)[2])c->corner, sw, sh, hm);
    double t = c->drift_frames > 0 ? fmin(1.0, (double)index / c->drift_frames) : 0;
    double gain = c->gain * (1 + c->drift * t);
    double bg = c->background * (1 + c->drift * t);
    for (int y = 0; y < h; y++) {
        uint8_t *row = rgb + (ptrdiff_t)y * stride;
        for (int x = 0; x < w; x++) {
            double px = x + 0.5, py = y + 0.5;
            double d = hm[6] * px + hm[7] * py + hm[8];
            double u = (hm[0] * px + hm[1] * py + hm[2]) / d - 0.5;
            double v = (hm[3] * px + hm[4] * py + hm[5]) / d - 0.5;
            if (u < -0.5 || v < -0.5 || u > sw - 0.5 || v > sh - 0.5) {
                row[3 * x] = row[3 * x + 1] = row[3 * x + 2] = canvas_clamp8(bg);
                continue;
            }
            /* bilinear */
            int u0 = (int)floor(u), v0 = (int)floor(v);
            double fu = u - u0, fv = v - v0;
            int ua = u0 < 0 ? 0 : u0, ub = u0 + 1 >= sw ? sw - 1 : u0 + 1;
            int va = v0 < 0 ? 0 : v0, vb = v0 + 1 >= sh ? sh - 1 : v0 + 1;
            for (int ch = 0; ch < 3; ch++) {
                double p00 = c->screen[(va * sw + ua) * 3 + ch];
                double p01 = c->screen[(va * sw + ub) * 3 + ch];
                double p10 = c->screen[(vb * sw + ua) * 3 + ch];
                double p11 = c->screen[(vb * sw + ub) * 3 + ch];
                double s = (p00 * (1 - fu) + p01 * fu) * (1 - fv) + (p10 * (1 - fu) + p11 * fu) * fv;
                row[3 * x + ch] = canvas_clamp8(bg + gain * s * (255 - bg) / 255);
            }
        }
    }
    if (c->led[2] > 0 && c->led_period > 1 && (index % c->led_period) < c->led_period / 2) {
        for (int y = c->led[1]; y < c->led[1] + c->led[3] && y < h; y++)
            memset(rgb + (ptrdiff_t)y * stride + c->led[0] * 3, 250, (size_t)c->led[2] * 3);
    }
    if (c->blur > 0)
        camera_box_blur(rgb, stride, w, h, c->blur);
    if (c->noise > 0) {
        /* a table of Gaussian values, drawn from by the frame's own generator */
        static double table[4096];
        if (!table[0])
            camera_gauss_table(table, 0x853C49E6748FEA9BULL, next);
        camera_noise(rgb, stride, w, h, table, c->noise, 0,
                     0x9E3779B97F4A7C15ULL * (uint64_t)(index + 1), next);
    }
}
