/* SPDX-License-Identifier: BSD-2-Clause */
/* PNG writing: the only code that talks to libpng. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>
#ifdef SETTLE_ISAL
#include <isa-l/igzip_lib.h>
#endif

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

#ifdef SETTLE_ISAL
#define ISAL_IN (256 * 1024) /* filtered rows handed to the deflate at a time */
#define ISAL_OUT (256 * 1024) /* an IDAT chunk's bytes at most */

/* The work space of the IDAT stream made by ISA-L (isal_idat). */
typedef struct IsalWork {
    uint8_t *in, *out, *prev, *level_buf;
    size_t in_cap;
    struct isal_zstream s;
} IsalWork;

static int isal_work_new(IsalWork *z, int w)
{
    size_t row = (size_t)w * 3 + 1;
    memset(z, 0, sizeof(*z));
    z->in_cap = row > ISAL_IN ? row : ISAL_IN - ISAL_IN % row;
    z->in = malloc(z->in_cap);
    z->out = malloc(ISAL_OUT);
    z->prev = calloc(1, row);
    z->level_buf = malloc(ISAL_DEF_LVL1_DEFAULT);
    return z->in && z->out && z->prev && z->level_buf ? 0 : SETTLE_ERR_NOMEM;
}

static void isal_work_free(IsalWork *z)
{
    free(z->in);
    free(z->out);
    free(z->prev);
    free(z->level_buf);
}

/* Deflates what z->in holds (n bytes; the stream's end when last), writing
 * each full output buffer as an IDAT chunk. 0, or < 0 on the deflate's error
 * (libpng's own errors longjmp). */
static int isal_feed(png_structp png, IsalWork *z, size_t n, int last)
{
    struct isal_zstream *s = &z->s;
    s->next_in = z->in;
    s->avail_in = (uint32_t)n;
    s->end_of_stream = (uint16_t)last;
    for (;;) {
        if (isal_deflate(s) != COMP_OK)
            return SETTLE_ERR_IO;
        int done = last && s->internal_state.state == ZSTATE_END;
        if (s->avail_out == 0 || (done && s->avail_out < ISAL_OUT)) {
            png_write_chunk(png, (png_const_bytep) "IDAT", z->out, ISAL_OUT - s->avail_out);
            s->next_out = z->out;
            s->avail_out = ISAL_OUT;
        }
        if (done || (!last && s->avail_in == 0))
            return 0;
    }
}

/* The picture's IDAT chunks and IEND: each row Up-filtered (as libpng's
 * PNG_FILTER_UP) and the zlib stream made by ISA-L's level 1, which is
 * about three times as fast as zlib's level 1 on these pictures for files of
 * about the same size (doc/performance.md). */
static int isal_idat(png_structp png, IsalWork *z, int w, int h,
                     const uint8_t *(*row)(void *, int), void *opaque)
{
    size_t rb = (size_t)w * 3, n = 0;
    isal_deflate_init(&z->s);
    z->s.gzip_flag = IGZIP_ZLIB;
    z->s.level = 1;
    z->s.level_buf = z->level_buf;
    z->s.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
    z->s.next_out = z->out;
    z->s.avail_out = ISAL_OUT;
    uint8_t *prev = z->prev; /* locals: the loop below is vectorised */
    for (int y = 0; y < h; y++) {
        const uint8_t *r = row(opaque, y);
        uint8_t *o = z->in + n + 1;
        o[-1] = PNG_FILTER_VALUE_UP;
        for (size_t i = 0; i < rb; i++)
            o[i] = (uint8_t)(r[i] - prev[i]);
        memcpy(prev, r, rb);
        n += rb + 1;
        int last = y == h - 1;
        if (last || n + rb + 1 > z->in_cap) {
            int ret = isal_feed(png, z, n, last);
            if (ret < 0)
                return ret;
            n = 0;
        }
    }
    png_write_chunk(png, (png_const_bytep) "IEND", NULL, 0);
    return 0;
}
#endif

/* A w x h picture, its rows from row(), through libpng to f, or to b when f
 * is NULL. */
static int encode(FILE *f, PngBuf *b, int w, int h, const uint8_t *(*row)(void *, int),
                  void *opaque)
{
#ifdef SETTLE_ISAL
    IsalWork z;
    if (isal_work_new(&z, w) < 0) {
        isal_work_free(&z);
        return SETTLE_ERR_NOMEM;
    }
#endif
    /* volatile: live across setjmp (gcc's -Wclobbered, in the zlib build) */
    volatile int ret = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        ret = SETTLE_ERR_NOMEM;
        goto done;
    }
    /* libpng reports errors by longjmp; nothing below allocates of our own
     * but b's buffer, which b owns (z's was allocated before) */
    if (setjmp(png_jmpbuf(png))) {
        ret = b && b->nomem ? SETTLE_ERR_NOMEM : SETTLE_ERR_IO;
        goto done;
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
     * against 11.4 ms, 205 against 258 KB; doc/performance.md). With ISA-L
     * the same filter, its deflate instead of zlib's (isal_idat) */
    png_set_compression_level(png, 1);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
#ifdef SETTLE_ISAL
    ret = isal_idat(png, &z, w, h, row, opaque);
#else
    for (int y = 0; y < h; y++)
        png_write_row(png, (png_const_bytep)row(opaque, y));
    png_write_end(png, info);
#endif
done:
    png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
#ifdef SETTLE_ISAL
    isal_work_free(&z);
#endif
    return ret;
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
