/* SPDX-License-Identifier: BSD-2-Clause */
#include "canvas.h"

#include <stddef.h>
#include <string.h>

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

void canvas_rect(const Canvas *c, int x0, int y0, int x1, int y1, const uint8_t col[3])
{
    x0 = max_int(x0, 0);
    y0 = max_int(y0, 0);
    if (x1 > c->w)
        x1 = c->w;
    if (y1 > c->h)
        y1 = c->h;
    for (int y = y0; y < y1; y++) {
        uint8_t *px = c->p + (size_t)y * c->stride + 3 * x0;
        for (int x = x0; x < x1; x++, px += 3)
            memcpy(px, col, 3);
    }
}

void canvas_disc(const Canvas *c, int cx, int cy, int r, const uint8_t col[3])
{
    for (int y = max_int(cy - r, 0); y <= cy + r && y < c->h; y++)
        for (int x = max_int(cx - r, 0); x <= cx + r && x < c->w; x++)
            if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r)
                memcpy(c->p + (size_t)y * c->stride + 3 * x, col, 3);
}

uint32_t canvas_hash3(uint32_t a, uint32_t b, uint32_t d)
{
    uint32_t x = a * 0x9e3779b1u ^ (b + 0x7f4a7c15u) * 0x85ebca6bu ^ (d + 1) * 0xc2b2ae35u;
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 12;
    return x;
}

uint8_t canvas_clamp8(double v)
{
    return v <= 0 ? 0 : v >= 255 ? 255 : (uint8_t)(v + 0.5);
}
