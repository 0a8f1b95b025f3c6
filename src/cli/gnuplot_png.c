/* SPDX-License-Identifier: BSD-2-Clause */
/* The plot's PNG written by settle's encoder inside gnuplot: a module that
 * settle's gnuplot loads first (LD_PRELOAD, plot.c), whose
 * cairo_surface_write_to_png_stream takes the place of cairo's for the
 * pngcairo terminal. cairo writes an opaque picture as an RGB PNG through
 * libpng at zlib's default level with a filter chosen row by row: about
 * 20 ms of CPU for the 960x600 plot, half of gnuplot's drawing, at the end of
 * `settle analyze --plot`. settle's encoder (src/png.c: the Up filter, ISA-L's
 * or zlib's level 1) writes the same pixels in 3-6 ms. Any other picture (one
 * with transparency, a surface that is not in memory) and any failure here go
 * to cairo's own function, so gnuplot's output is never lost. Nothing here
 * links cairo: its functions are looked up in gnuplot's process when used. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

#include "pictures.h"

/* cairo.h's types and values, as far as used (cairo is not a build
 * dependency; the ABI is cairo 1.x's). */
typedef struct cairo_surface cairo_surface_t;
typedef int cairo_status_t;
typedef cairo_status_t (*cairo_write_func_t)(void *closure, const unsigned char *data,
                                             unsigned int length);
#define CAIRO_FORMAT_ARGB32 0
#define CAIRO_FORMAT_RGB24 1

typedef struct Cairo {
    cairo_status_t (*write_png_stream)(cairo_surface_t *, cairo_write_func_t, void *);
    void (*flush)(cairo_surface_t *);
    unsigned char *(*data)(cairo_surface_t *);
    int (*format)(cairo_surface_t *);
    int (*width)(cairo_surface_t *);
    int (*height)(cairo_surface_t *);
    int (*stride)(cairo_surface_t *);
} Cairo;

/* cairo's functions; 0, or -1 when one is missing. */
static int find_cairo(Cairo *c)
{
    *(void **)&c->write_png_stream = dlsym(RTLD_NEXT, "cairo_surface_write_to_png_stream");
    *(void **)&c->flush = dlsym(RTLD_NEXT, "cairo_surface_flush");
    *(void **)&c->data = dlsym(RTLD_NEXT, "cairo_image_surface_get_data");
    *(void **)&c->format = dlsym(RTLD_NEXT, "cairo_image_surface_get_format");
    *(void **)&c->width = dlsym(RTLD_NEXT, "cairo_image_surface_get_width");
    *(void **)&c->height = dlsym(RTLD_NEXT, "cairo_image_surface_get_height");
    *(void **)&c->stride = dlsym(RTLD_NEXT, "cairo_image_surface_get_stride");
    return c->write_png_stream && c->flush && c->data && c->format && c->width && c->height &&
                   c->stride
               ? 0
               : -1;
}

/* The surface's rows as RGB, as cairo's PNG writer makes them of an opaque
 * picture (each pixel a native-endian 32-bit word, 0xAARRGGBB). */
typedef struct Rows {
    const uint8_t *data;
    ptrdiff_t stride;
    int w;
    uint8_t *rgb;
} Rows;

static const uint8_t *rgb_row(void *opaque, int y)
{
    Rows *r = opaque;
    const uint32_t *p = (const uint32_t *)(const void *)(r->data + (ptrdiff_t)y * r->stride);
    for (int x = 0; x < r->w; x++) {
        r->rgb[3 * x] = (uint8_t)(p[x] >> 16);
        r->rgb[3 * x + 1] = (uint8_t)(p[x] >> 8);
        r->rgb[3 * x + 2] = (uint8_t)p[x];
    }
    return r->rgb;
}

/* 1 when every pixel of an ARGB32 surface is opaque (cairo then writes RGB). */
static int opaque(const uint8_t *data, ptrdiff_t stride, int w, int h)
{
    for (int y = 0; y < h; y++) {
        const uint32_t *p = (const uint32_t *)(const void *)(data + (ptrdiff_t)y * stride);
        uint32_t a = 0xff000000u;
        for (int x = 0; x < w; x++)
            a &= p[x];
        if (a != 0xff000000u)
            return 0;
    }
    return 1;
}

__attribute__((visibility("default"))) cairo_status_t
cairo_surface_write_to_png_stream(cairo_surface_t *s, cairo_write_func_t write, void *closure)
{
    Cairo c;
    if (find_cairo(&c) < 0)
        return 1; /* CAIRO_STATUS_NO_MEMORY: cairo is not in this process */
    c.flush(s);
    const uint8_t *data = c.data(s); /* NULL unless an image surface in memory */
    int fmt = data ? c.format(s) : -1, w = data ? c.width(s) : 0, h = data ? c.height(s) : 0;
    ptrdiff_t stride = data ? c.stride(s) : 0;
    if (!data || w < 1 || h < 1 || stride < (ptrdiff_t)w * 4 ||
        (fmt != CAIRO_FORMAT_RGB24 && (fmt != CAIRO_FORMAT_ARGB32 || !opaque(data, stride, w, h))))
        return c.write_png_stream(s, write, closure);
    Rows r = { data, stride, w, malloc((size_t)w * 3) };
    uint8_t *png = NULL;
    size_t len = 0;
    if (!r.rgb || settle_encode_png_rows(w, h, rgb_row, &r, &png, &len) < 0 || len > UINT32_MAX) {
        free(r.rgb);
        free(png);
        return c.write_png_stream(s, write, closure);
    }
    free(r.rgb);
    cairo_status_t st = write(closure, png, (unsigned int)len);
    free(png);
    return st;
}
