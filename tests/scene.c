/* SPDX-License-Identifier: BSD-2-Clause */
#include "scene.h"

#include <string.h>

#include "canvas.h"

/* Icon and avatar colours; none is within 40 levels of the orange marker or
 * of the blue splash the tests use, so marker coverage stays clean. */
static const uint8_t palette[][3] = {
    { 229, 57, 53 },  { 216, 27, 96 },  { 142, 36, 170 }, { 94, 53, 177 },
    { 30, 136, 229 }, { 0, 172, 193 },  { 0, 137, 123 },  { 67, 160, 71 },
    { 124, 179, 66 }, { 192, 202, 51 }, { 253, 216, 53 }, { 121, 85, 72 },
    { 84, 110, 122 }, { 255, 255, 255 }, { 156, 39, 176 }, { 0, 96, 100 },
    { 183, 28, 28 },  { 51, 105, 30 },  { 245, 127, 160 }, { 20, 20, 20 },
};
#define PALETTE_SIZE ((int)(sizeof(palette) / sizeof(palette[0])))

static const uint8_t home_bg[3] = { 120, 124, 130 };
static const uint8_t white[3] = { 255, 255, 255 };
static const uint8_t header_rgb[3] = { 0, 150, 136 };
static const uint8_t status_rgb[3] = { 0, 105, 92 };
static const uint8_t track_rgb[3] = { 178, 223, 219 };
static const uint8_t ink[3] = { 33, 33, 33 };
static const uint8_t grey_ink[3] = { 97, 97, 97 };
static const uint8_t rule_rgb[3] = { 224, 224, 224 };
static const uint8_t toast_rgb[3] = { 50, 50, 50 };
#define SKELETON_GREY 205
#define SHIMMER_GAIN 50

void scene_init(SceneSpec *s, int width, int height)
{
    memset(s, 0, sizeof(*s));
    s->width = width;
    s->height = height;
    s->marker_rgb[0] = 0xde;
    s->marker_rgb[1] = 0x64;
    s->marker_rgb[2] = 0x0d;
    s->splash_rgb[0] = 0x1c;
    s->splash_rgb[1] = 0x1f;
    s->splash_rgb[2] = 0x26;
}

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

static int in_disc(int x, int y, int cx, int cy, int r)
{
    int dx = x - cx, dy = y - cy;
    return dx * dx + dy * dy <= r * r;
}

/* The touch feedback: a half-white veil over a disc. */
static void whiten_disc(const Canvas *c, int cx, int cy, int r)
{
    for (int y = max_int(cy - r, 0); y <= cy + r && y < c->h; y++) {
        for (int x = max_int(cx - r, 0); x <= cx + r && x < c->w; x++) {
            if (!in_disc(x, y, cx, cy, r))
                continue;
            uint8_t *px = c->p + (size_t)y * c->stride + 3 * x;
            for (int k = 0; k < 3; k++)
                px[k] = (uint8_t)((px[k] + 255 + 1) / 2);
        }
    }
}

typedef struct Layout {
    int status_h, header_h, bar_h;
    int body_y, row_h, pad;
    int hero_h, rows_y;
    int avatar_r;
    int line_h;
} Layout;

static Layout layout(int h)
{
    Layout l;
    l.status_h = max_int(4, h / 24);
    l.header_h = max_int(8, h / 8);
    l.bar_h = max_int(2, h / 60);
    l.pad = max_int(2, h / 40);
    l.body_y = l.status_h + l.header_h + l.bar_h + l.pad;
    l.hero_h = max_int(8, h / 5);
    l.rows_y = l.body_y + l.hero_h + l.pad;
    l.row_h = max_int(12, h / 6);
    l.avatar_r = l.row_h * 7 / 20;
    l.line_h = max_int(2, l.row_h / 6);
    return l;
}

static void draw_home(const Canvas *c, int tapped)
{
    int w = c->w, h = c->h;
    int sb = max_int(4, h / 24);
    canvas_rect(c, 0, 0, w, h, home_bg);
    static const uint8_t status_dark[3] = { 60, 62, 66 };
    canvas_rect(c, 0, 0, w, sb, status_dark);
    canvas_rect(c, sb, sb / 4, sb + w / 10, sb - sb / 4, white);
    int cell_w = w / 4, cell_h = (h - sb) / 5;
    int s = (cell_w < cell_h ? cell_w : cell_h) * 3 / 5;
    int tap_x = 0, tap_y = 0;
    for (int r = 0; r < 5; r++) {
        for (int col = 0; col < 4; col++) {
            int cx = col * cell_w + cell_w / 2;
            int cy = sb + r * cell_h + cell_h * 2 / 5;
            const uint8_t *ic = palette[(r * 4 + col) % PALETTE_SIZE];
            canvas_rect(c, cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2, ic);
            const uint8_t *glyph = (r * 4 + col) % PALETTE_SIZE == 13 ? ink : white;
            canvas_rect(c, cx - s / 6, cy - s / 6, cx + s / 6, cy + s / 6, glyph);
            int label_y = cy + s / 2 + max_int(1, s / 8);
            canvas_rect(c, cx - s / 2, label_y, cx + s / 2, label_y + max_int(1, s / 8), white);
            if (r == 1 && col == 1) {
                tap_x = cx;
                tap_y = cy;
            }
        }
    }
    if (tapped)
        whiten_disc(c, tap_x, tap_y, h / 4);
}

static void draw_splash(const Canvas *c, const uint8_t bg[3])
{
    int w = c->w, h = c->h;
    canvas_rect(c, 0, 0, w, h, bg);
    int r = h / 8, cx = w / 2, cy = h * 2 / 5;
    canvas_disc(c, cx, cy, r, white);
    canvas_rect(c, cx - r / 2, cy - r / 2, cx + r / 2, cy + r / 2, header_rgb);
    int name_y = cy + r + h / 16;
    canvas_rect(c, cx - w / 8, name_y, cx + w / 8, name_y + max_int(2, h / 40), white);
}

static void draw_chrome(const Canvas *c, const Layout *l)
{
    int w = c->w, h = c->h;
    canvas_rect(c, 0, 0, w, h, white);
    canvas_rect(c, 0, 0, w, l->status_h, status_rgb);
    int y0 = l->status_h, hb = l->header_h;
    canvas_rect(c, 0, y0, w, y0 + hb, header_rgb);
    /* the menu icon and the title */
    int bar = max_int(1, hb / 12);
    for (int k = -1; k <= 1; k++) {
        int y = y0 + hb / 2 + k * 3 * bar;
        canvas_rect(c, hb / 4, y - bar / 2, hb / 4 + hb / 2, y - bar / 2 + bar, white);
    }
    canvas_rect(c, hb, y0 + hb * 3 / 8, hb + w / 3, y0 + hb * 5 / 8, white);
}

/* Skeleton grey brightened by a triangular band centred on bx; the band wraps
 * around the picture's width so that it always moves in view. */
static int shimmer(int x, int bx, int half, int w)
{
    int d = x > bx ? x - bx : bx - x;
    if (w - d < d)
        d = w - d;
    return SKELETON_GREY + (d < half ? SHIMMER_GAIN * (half - d) / half : 0);
}

static void shimmer_rect(const Canvas *c, int x0, int y0, int x1, int y1, int bx, int half)
{
    x0 = max_int(x0, 0);
    y0 = max_int(y0, 0);
    if (x1 > c->w)
        x1 = c->w;
    if (y1 > c->h)
        y1 = c->h;
    for (int x = x0; x < x1; x++) {
        int v = shimmer(x, bx, half, c->w);
        for (int y = y0; y < y1; y++)
            memset(c->p + (size_t)y * c->stride + 3 * x, v, 3);
    }
}

static void shimmer_disc(const Canvas *c, int cx, int cy, int r, int bx, int half)
{
    for (int y = max_int(cy - r, 0); y <= cy + r && y < c->h; y++) {
        for (int x = max_int(cx - r, 0); x <= cx + r && x < c->w; x++) {
            if (!in_disc(x, y, cx, cy, r))
                continue;
            int v = shimmer(x, bx, half, c->w);
            memset(c->p + (size_t)y * c->stride + 3 * x, v, 3);
        }
    }
}

static void draw_progress(const Canvas *c, const Layout *l, int k)
{
    int w = c->w, h = c->h;
    int y = l->status_h + l->header_h;
    canvas_rect(c, 0, y, w, y + l->bar_h, track_rgb);
    int seg = w / 3, x = (k * max_int(1, w / 15)) % (w + seg) - seg;
    canvas_rect(c, x, y, x + seg, y + l->bar_h, header_rgb);

    int half = max_int(4, w / 4), step = max_int(2, w / 20);
    int bx = (w / 2 + k * step) % w;
    int text_x = l->pad * 2 + 2 * l->avatar_r + l->pad * 2;
    int thumb = l->row_h - 2 * l->pad, thumb_x = w - l->pad * 2 - thumb;
    shimmer_rect(c, l->pad * 2, l->body_y, w - l->pad * 2, l->body_y + l->hero_h, bx, half);
    for (int top = l->rows_y; top + l->row_h <= h; top += l->row_h) {
        int cy = top + l->row_h / 2;
        shimmer_disc(c, l->pad * 2 + l->avatar_r, cy, l->avatar_r, bx, half);
        shimmer_rect(c, thumb_x, top + l->pad, thumb_x + thumb, top + l->pad + thumb, bx, half);
        int bh = max_int(2, l->row_h / 5), by = top + l->row_h / 8;
        shimmer_rect(c, text_x, by, text_x + w / 3, by + bh, bx, half);
        by += bh + bh / 2;
        shimmer_rect(c, text_x, by, thumb_x - l->pad * 2, by + bh, bx, half);
        by += bh + bh / 2;
        shimmer_rect(c, text_x, by, thumb_x - l->pad * 2 - w / 8, by + bh, bx, half);
    }
}

static void draw_text_line(const Canvas *c, int x0, int x1, int y, int lh, uint32_t seed,
                           int line, const uint8_t col[3])
{
    int w = c->w;
    int gap = max_int(2, w / 80), x = x0;
    for (int word = 0; x < x1; word++) {
        int ww = max_int(3, w / 40 + (int)(canvas_hash3(seed, (uint32_t)line, (uint32_t)word) %
                                          (uint32_t)max_int(1, w / 10)));
        int end = x + ww < x1 ? x + ww : x1;
        canvas_rect(c, x, y, end, y + lh, col);
        x = end + gap;
    }
}

/* A photo-like thumbnail: smooth gradients give the content a rich histogram. */
static void thumbnail(const Canvas *c, int x0, int y0, int size, int row)
{
    const uint8_t *tint = palette[(row * 5 + 1) % PALETTE_SIZE];
    for (int y = 0; y < size && y0 + y < c->h; y++) {
        uint8_t *px = c->p + (size_t)(y0 + y) * c->stride + 3 * x0;
        for (int x = 0; x < size && x0 + x < c->w; x++, px += 3) {
            int sky = y < size / 2;
            px[0] = (uint8_t)(sky ? 60 + 120 * x / size : tint[0] * (size - y / 2) / size);
            px[1] = (uint8_t)(sky ? 120 + 100 * y / size : tint[1] * (size - x / 3) / size);
            px[2] = (uint8_t)(sky ? 235 - 60 * y / size : tint[2] * (size - (x + y) / 4) / size);
        }
    }
    static const uint8_t sun[3] = { 255, 235, 120 };
    canvas_disc(c, x0 + size * 2 / 3, y0 + size / 4, max_int(1, size / 8), sun);
}

/* The banner photo at the top of the feed: sky over hills, every channel a
 * gradient, so that the content's histogram differs clearly from the
 * skeleton's greys even after lossy coding. */
static void hero(const Canvas *c, int x0, int y0, int x1, int y1)
{
    int hw = max_int(1, x1 - x0), hh = max_int(1, y1 - y0);
    for (int y = y0; y < y1 && y < c->h; y++) {
        uint8_t *px = c->p + (size_t)y * c->stride + 3 * x0;
        int v = y - y0;
        for (int x = x0; x < x1 && x < c->w; x++, px += 3) {
            int u = x - x0;
            /* hills: a triangle wave horizon */
            int t = (u * 4 * hh / hw) % (2 * hh / 3 + 1);
            int horizon = hh / 2 + (t < hh / 3 ? t : 2 * hh / 3 - t) / 2;
            int sky[3] = {
                30 + 150 * u / hw + 40 * v / hh,
                90 + 120 * v / hh,
                250 - 80 * u / hw - 40 * v / hh,
            };
            int hill[3] = {
                20 + 120 * (hh - v) / hh + 60 * u / hw,
                70 + 150 * (v > horizon ? v - horizon : 0) / hh + 30 * u / hw,
                10 + 90 * u / hw,
            };
            /* a soft horizon: a sharp one would be re-coded differently by
             * every keyframe, which is not what the scene is about */
            int soft = max_int(1, hh / 8);
            int a = (v - horizon + soft) * 256 / (2 * soft);
            a = a < 0 ? 0 : a > 256 ? 256 : a;
            for (int k = 0; k < 3; k++)
                px[k] = (uint8_t)((sky[k] * (256 - a) + hill[k] * a) >> 8);
        }
    }
}

static void draw_content(const Canvas *c, const Layout *l)
{
    int w = c->w, h = c->h;
    int text_x = l->pad * 2 + 2 * l->avatar_r + l->pad * 2;
    int thumb = l->row_h - 2 * l->pad, thumb_x = w - l->pad * 2 - thumb;
    int row = 0;
    hero(c, l->pad * 2, l->body_y, w - l->pad * 2, l->body_y + l->hero_h);
    for (int top = l->rows_y; top + l->row_h <= h; top += l->row_h, row++) {
        thumbnail(c, thumb_x, top + l->pad, thumb, row);
        int cy = top + l->row_h / 2;
        canvas_disc(c, l->pad * 2 + l->avatar_r, cy, l->avatar_r, palette[(row * 7 + 3) % PALETTE_SIZE]);
        /* initials on the avatar */
        int ir = max_int(1, l->avatar_r / 3);
        canvas_rect(c, l->pad * 2 + l->avatar_r - ir, cy - ir, l->pad * 2 + l->avatar_r + ir, cy + ir,
             (row * 7 + 3) % PALETTE_SIZE == 13 ? ink : white);
        int name_w = w / 5 + (int)(canvas_hash3((uint32_t)row, 99, 1) % (uint32_t)max_int(1, w / 5));
        canvas_rect(c, text_x, top + l->row_h / 8, text_x + name_w, top + l->row_h / 8 + l->line_h, ink);
        int lh = max_int(2, l->line_h * 3 / 4);
        int ly = top + l->row_h / 8 + l->line_h + max_int(2, l->line_h / 2);
        for (int line = 0; line < 2 && ly + lh <= top + l->row_h - 2; line++) {
            draw_text_line(c, text_x, thumb_x - l->pad * 2 - (line ? w / 8 : 0), ly, lh,
                           (uint32_t)row, line, line ? grey_ink : ink);
            ly += lh + max_int(2, lh);
        }
        canvas_rect(c, text_x, top + l->row_h - 1, w, top + l->row_h, rule_rgb);
    }
}

static void draw_toast(const Canvas *c)
{
    int w = c->w, h = c->h;
    int tw = w * 2 / 5, th = max_int(2, h / 20);
    int x0 = (w - tw) / 2, y0 = h - h / 8 - th;
    canvas_rect(c, x0, y0, x0 + tw, y0 + th, toast_rgb);
    canvas_rect(c, x0 + th / 2, y0 + th * 3 / 8, x0 + th / 2 + tw * 3 / 5, y0 + th * 5 / 8, white);
}

void scene_draw(void *opaque, int index, uint8_t *rgb, int stride, int w, int h)
{
    const SceneSpec *s = opaque;
    Canvas c = { rgb, stride, w, h };
    Layout l = layout(h);

    if (index < s->marker_frames) {
        canvas_rect(&c, 0, 0, w, h, s->marker_rgb);
    } else if (index < s->tap) {
        draw_home(&c, 0);
    } else if (index < s->splash) {
        draw_home(&c, 1);
    } else if (index < s->chrome) {
        draw_splash(&c, s->splash_rgb);
    } else if (index < s->content) {
        draw_chrome(&c, &l);
        if (s->progress)
            draw_progress(&c, &l, index - s->chrome);
    } else {
        draw_chrome(&c, &l);
        draw_content(&c, &l);
        if (index >= s->toast_from && index < s->toast_to)
            draw_toast(&c);
    }
}
