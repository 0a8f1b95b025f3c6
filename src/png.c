/* SPDX-License-Identifier: BSD-2-Clause */
/* PNG writing: the only code that talks to libpng. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "pictures.h"

/* Where settle_encode_png's bytes go: a buffer grown by doubling. */
typedef struct PngBuf {
    uint8_t *p;
    size_t len, cap;
    int nomem;
} PngBuf;

static void buf_write(png_structp png, png_bytep data, size_t n)
{
    PngBuf *b = png_get_io_ptr(png);
    if (n > b->cap - b->len) {
        size_t cap = b->cap;
        while (n > cap - b->len)
            cap = cap > SIZE_MAX / 2 ? SIZE_MAX : 2 * cap;
        uint8_t *p = n > cap - b->len ? NULL : realloc(b->p, cap);
        if (!p) {
            b->nomem = 1;
            png_error(png, "out of memory");
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

static void buf_flush(png_structp png)
{
    (void)png;
}

static int valid(const SettleImage *img)
{
    return img && img->rgb && img->width >= 1 && img->height >= 1 &&
           img->stride >= (ptrdiff_t)img->width * 3;
}

static const uint8_t *image_row(void *opaque, int y)
{
    const SettleImage *img = opaque;
    return img->rgb + (ptrdiff_t)y * img->stride;
}

/* A w x h picture, its rows from row(), through libpng to f, or to b when f
 * is NULL. */
static int encode(FILE *f, PngBuf *b, int w, int h, const uint8_t *(*row)(void *, int),
                  void *opaque)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    if (!png)
        return SETTLE_ERR_NOMEM;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return SETTLE_ERR_NOMEM;
    }
    /* libpng reports errors by longjmp; nothing below allocates of our own
     * but b's buffer, which b owns */
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return b && b->nomem ? SETTLE_ERR_NOMEM : SETTLE_ERR_IO;
    }
    if (f)
        png_init_io(png, f);
    else
        png_set_write_fn(png, b, buf_write, buf_flush);
    /* pictures of screens compress well and fast at a low level: zlib's
     * level 1 and one filter on every row (instead of level 6 and a filter
     * chosen row by row) cost a third of the time on a 2732x1536 frame, for
     * files about a fifth larger. Up rather than Sub: as fast or faster and
     * smaller on screens and camera films alike (amazon_chrome's stable frame
     * 59 against 64 ms, 1.93 against 2.12 MB; startup-test-elmo's 8.9
     * against 11.4 ms, 205 against 258 KB; doc/performance.md) */
    png_set_compression_level(png, 1);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < h; y++)
        png_write_row(png, (png_const_bytep)row(opaque, y));
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return 0;
}

int settle_write_png(FILE *f, const SettleImage *img)
{
    if (!f || !valid(img))
        return SETTLE_ERR_INVAL;
    int ret = encode(f, NULL, img->width, img->height, image_row, (void *)img);
    if (ret < 0)
        return ret;
    return fflush(f) || ferror(f) ? SETTLE_ERR_IO : 0;
}

/* settle_encode_png and settle_encode_png_rows */
static int encode_bytes(int w, int h, const uint8_t *(*row)(void *, int), void *opaque,
                        uint8_t **png, size_t *len)
{
    /* a start that holds most pictures' bytes at level 1 (a screen's
     * compresses to a sixth or less): one or two reallocations at most */
    PngBuf b = { .cap = (size_t)w * (size_t)h * 3 / 6 + 4096 };
    if (!(b.p = malloc(b.cap)))
        return SETTLE_ERR_NOMEM;
    int ret = encode(NULL, &b, w, h, row, opaque);
    if (ret < 0) {
        free(b.p);
        return ret;
    }
    if (b.cap - b.len >= 65536) { /* a picture that compressed well: the rest given back */
        uint8_t *p = realloc(b.p, b.len);
        b.p = p ? p : b.p;
    }
    *png = b.p;
    *len = b.len;
    return 0;
}

int settle_encode_png(const SettleImage *img, uint8_t **png, size_t *len)
{
    if (!png || !len)
        return SETTLE_ERR_INVAL;
    *png = NULL;
    *len = 0;
    if (!valid(img))
        return SETTLE_ERR_INVAL;
    return encode_bytes(img->width, img->height, image_row, (void *)img, png, len);
}

int settle_encode_png_rows(int w, int h, const uint8_t *(*row)(void *opaque, int y),
                           void *opaque, uint8_t **png, size_t *len)
{
    *png = NULL;
    *len = 0;
    if (w < 1 || h < 1 || !row)
        return SETTLE_ERR_INVAL;
    return encode_bytes(w, h, row, opaque, png, len);
}
